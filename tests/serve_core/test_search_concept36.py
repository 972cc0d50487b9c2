"""Issue #15, concept36: plain-word questions asked in the words of an article's subject, written before any search.

What the pass found and fixed:

- a Legilux code's title ("Code de la consommation", "Code de commerce") names its field, none of its
  subjects; the parts above an article (« Section 2 — Clauses abusives », « TITRE IV. — Des sursis de
  paiement ») name them. The any-word relaxation's hits on a code were dropped as off-subject (its title
  holds none of the question's words), and, once kept, the question was emptied as "words apart";
  a code's part headed by a subject word of the question is now evidence for both.

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore
from serve.core.ops import search

LU = "lu-legilux"
CONSUMER_CODE = f"{LU}:loi-2011-04-08-n2"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_a_part_heading_holds_a_word_or_a_light_stem_form() -> None:
    path = '["LIVRE III. — Des faillites et de la réhabilitation", "TITRE IV. — Des sursis de paiement"]'
    assert search.part_holds(path, ["sursis"])
    assert search.part_holds(path, ["faillite"])  # « faillites »
    assert not search.part_holds(path, ["creancier", "commercant"])
    assert search.code_part_groups([path], [["immeubles"], ["faillite", "faillites"]]) == {1}
    assert search.code_part_groups([], [["faillite"]]) == set()


def test_a_code_article_under_a_part_named_by_the_question_answers_it(fixture_core: LegalCore) -> None:
    # no provision holds every word; the consumer code's article on unfair terms holds « clauses »,
    # « abusives », « juge », « office » under « Section 2 — Clauses abusives », its title none of them:
    # before, the any-word hit was dropped as off-subject (the title) and then as words apart
    section = _section(fixture_core, "clauses abusives : le juge peut-il les annuler d'office", LU)
    assert section["hits"], section.get("relaxation_withheld")
    first = section["hits"][0]
    assert first["work"] == CONSUMER_CODE
    assert "any_term" in first["match_reasons"]
    assert section.get("relaxation_withheld") is None


def test_a_code_article_on_a_creditworthiness_check_is_found_by_its_part(fixture_core: LegalCore) -> None:
    # « Sous-section 5 — Obligation d'évaluer la solvabilité du consommateur »: the article holds the
    # lender's duty in words the question shares only in part
    section = _section(fixture_core, "crédit : le prêteur doit-il vérifier la solvabilité de l'emprunteur", LU)
    assert [h["work"] for h in section["hits"]][:1] == [CONSUMER_CODE]


def test_an_act_that_is_no_code_is_not_kept_by_its_chapter_headings(fixture_core: LegalCore) -> None:
    # the rule is for codes only: a question no provision and no title answers keeps its empty answer
    section = _section(fixture_core, "vente de porte en porte : le vendeur peut-il demander un acompte", LU)
    assert section["hits"] == []


def test_an_article_saying_the_two_rarest_words_together_is_kept_though_its_title_holds_none(
        fixture_core: LegalCore) -> None:
    # the 1881 arrêté on transporting explosives, art. 15: « Le passage du convoi par des localités à
    # habitations agglomérées … avis … à l'autorité chargée de la police locale »; its title (transport,
    # poudre, substances explosives) holds none of the question's words, so the any-word hit was dropped
    # as off-subject; « habitations agglomérées », the question's two rarest words, stand together there
    section = _section(fixture_core, "passage par une localité à habitations agglomérées : faut-il prévenir la police ?",
                       LU)
    assert section.get("relaxation_withheld") is None
    first = section["hits"][0]
    assert (first["work"], first["anchor"]) == (f"{LU}:argd-1881-04-20-n1", "art_15")
    assert "any_term" in first["match_reasons"]
