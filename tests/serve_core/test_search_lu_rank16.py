"""Issue #15, sixteenth pass (rank16): a question asking for Luxembourg's own law (or for the act
transposing a directive) is answered by Legilux first and never left out for the EU act it names;
the Legilux acts whose titles say they transpose a directive EUR-Lex resolves are named. Pure tests
on published titles, and end to end on the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

from derive.index.text import normalize
from serve.core import LegalCore, ranking
from serve.core.ops import search

LU, EU = "lu-legilux", "eu-eurlex"

#: Official titles as Legilux publishes them (normalised as the index holds them).
MIFID_LAW = normalize(
    "Loi du 30 mai 2018 relative aux marchés d'instruments financiers et portant 1. transposition de la"
    " directive 2014/65/UE du Parlement européen et du Conseil du 15 mai 2014 concernant les marchés"
    " d'instruments financiers")
IBAN_LAW = normalize(
    "Loi du 25 mars 2020 instituant un système électronique central de recherche de données concernant"
    " des comptes IBAN et des coffres-forts … en vue de la transposition 1. de l'article 1er, points 19 et"
    " 29, de la directive (UE) 2018/843 du Parlement européen et du Conseil du 30 mai 2018 modifiant la"
    " directive (UE) 2015/849 relative à la prévention de l'utilisation du système financier aux fins du"
    " blanchiment de capitaux")


def _asks(query: str) -> bool:
    return ranking.asks_own_law(normalize(query).split())


def test_a_question_asking_for_luxembourg_law_is_recognised() -> None:
    assert _asks("Luxembourg law transposing MiFID II on markets in financial instruments")
    assert _asks("Luxemburger Gesetz über die Abwicklung von Kreditinstituten")
    assert _asks("Luxemburger Klimagesetz")
    assert _asks("loi luxembourgeoise sur le bail à usage d'habitation")
    assert _asks("droit luxembourgeois protection des données")
    assert _asks("loi transposant la directive 2014/65/UE")  # only a member State transposes
    assert not _asks("Banque centrale du Luxembourg")  # the country inside a name
    assert not _asks("acquisition de la nationalité luxembourgeoise")  # the adjective of a subject
    assert not _asks("Luxembourg state guarantee scheme")  # no word for the law itself
    assert not _asks("General Data Protection Regulation")


def test_a_directive_is_cited_by_year_then_number() -> None:
    assert ranking.directive_citation("32014l0065") == "2014 65"
    assert ranking.directive_citation("31995l0046") == "95 46"  # two-digit years before 1999
    assert ranking.directive_citation("31999l0044") == "1999 44"
    assert ranking.directive_citation("32016r0679") is None  # a regulation
    assert ranking.directive_citation("32014l0065r(01)") is None  # a corrigendum


def test_a_title_transposes_the_directive_it_names_after_its_transposition_word() -> None:
    assert ranking.transposes(MIFID_LAW, "2014 65")
    assert not ranking.transposes(MIFID_LAW, "2014 59")
    assert ranking.transposes(IBAN_LAW, "2018 843")
    # the directive the transposed one amends is not transposed by the law
    assert not ranking.transposes(IBAN_LAW, "2015 849")
    assert not ranking.transposes(normalize("Loi du 20 juillet 1992 portant modification du régime des"
                                            " brevets d'invention"), "2014 65")


def _section(publisher: str, fit: float) -> dict[str, Any]:
    return {"publisher": publisher, "outcome": "succeeded", "top_title_match": fit,
            "hits": [{"work": f"{publisher}:w", "anchor": "art_1", "match_reasons": ["keyword"], "score": 1.0}]}


def test_luxembourg_law_asked_orders_the_legilux_section_first() -> None:
    eu, lu = _section(EU, 1.0), _section(LU, 0.2)
    assert search.order_sections([eu, lu]) == [eu, lu]  # the better-titled section first …
    assert search.order_sections([eu, lu], own_law=True) == [lu, eu]  # … unless Luxembourg law is asked
    assert search.order_sections([eu, lu], eu_form=True, own_law=True) == [eu, lu]  # a directive asked
    empty = {**_section(LU, 0.2), "hits": []}
    assert search.order_sections([eu, empty], own_law=True) == [eu, empty]


def test_luxembourg_law_asked_beside_an_eu_name_is_answered_by_legilux_first(
    fixture_core: LegalCore,
) -> None:
    # "personal data protection" names the GDPR (a strong EU name): the Legilux section used to be
    # left out for it, so the question asking for Luxembourg's law was answered by the GDPR alone
    answer = fixture_core.call("search", {"query": "Luxembourg law on personal data protection", "limit": 10})
    sections = [s for s in answer["publishers"] if s.get("hits")]
    assert [s["publisher"] for s in sections] == [LU, EU]
    assert sections[1]["hits"][0]["work"] == "eu-eurlex:32016r0679"  # the EU act still answers
    # without the country's law asked, the EU name alone answers, as before
    plain = fixture_core.call("search", {"query": "personal data protection", "limit": 10})
    assert [s["publisher"] for s in plain["publishers"] if s.get("hits")] == [EU]
