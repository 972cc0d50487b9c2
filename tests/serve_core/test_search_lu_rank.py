"""Issue #15, twelfth pass (lurank12): Legilux acts a lawyer names by abbreviation, by date (with typos)
or by subject. One test or more per failure class; end to end on the real fixture corpus
(``LEX_FIXTURES``) where the fixtures hold the case, else on real Legilux titles and profiles."""

from __future__ import annotations

import sqlite3
import weakref
from typing import Any

import pytest

from derive.index.aliases import LEXICON_PATH, alias_names, own_clause, reviewed, title_popular_name
from serve.core import LegalCore, ranking
from serve.core.ops import search as search_op

LU = "lu-legilux"


def _section(core: LegalCore, query: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "publisher": LU})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == LU))


def _works(core: LegalCore, query: str) -> list[str]:
    return [h["work"] for h in _section(core, query)["hits"]]


# -- class 1: abbreviations and names the publisher's metadata does not carry --------------------

#: Real Legilux titles (consolidated versions of the full catalogue).
AIFM_TITLE = ("Version consolidée applicable au 28/07/2023 : Loi du 12 juillet 2013 relative aux gestionnaires de "
              "fonds d'investissement alternatifs et\n - portant transposition de la directive 2011/61/UE …\n - "
              "portant modification\n - de la loi modifiée du 15 juin 2004 relative à la société d'investissement "
              "en capital à risque (SICAR)\n - de la loi modifiée du 13 juillet 2005 relative aux institutions de "
              "retraite professionnelle sous forme de société d'épargne-pension à capital variable (sepcav) et "
              "d'association d'épargne-pension (assep)")
SICAR_TITLE = "Loi du 15 juin 2004 relative à la société d'investissement en capital à risque (SICAR)."
CNPD_TITLE = ("Loi du 1er août 2018 portant organisation de la Commission nationale pour la protection des données "
              "et mise en œuvre du règlement (UE) 2016/679 (règlement général sur la protection des données)")
LABEL_TITLE = ("Version consolidée applicable au 01/01/2009 : Règlement grand-ducal du 19 novembre 1999 portant "
               "exécution de l'article 137, alinéa 5 de la loi modifiée du 4 décembre 1967 concernant l'impôt sur "
               "le revenu. (Imposition forfaitaire du personnel de ménage)")


@pytest.mark.parametrize(("title", "name"), [
    (AIFM_TITLE, None),  # "assep" and "SICAR" name acts the AIFM law amends
    (SICAR_TITLE, "SICAR"),  # the act's own abbreviation, in its own clause
    (CNPD_TITLE, None),  # the GDPR's name is the EU regulation's, not the CNPD law's
    (LABEL_TITLE, "Imposition forfaitaire du personnel de ménage"),  # a label after the closing full stop
])
def test_a_legilux_title_names_its_act_only_in_its_own_clause(title: str, name: str | None) -> None:
    assert title_popular_name(own_clause(title)) == name
    work = {"slug": "loi-2013-07-12-n1", "document_type": "LOI"}
    found = {n.value for n in alias_names(work, LU, [{"title": title, "language": "fr"}])}
    assert (name in found) if name else not (found - {a for a, _ in reviewed().get(f"{LU}:loi-2013-07-12-n1", [])})


def test_the_eur_lex_parenthesis_rule_is_unchanged() -> None:
    title = ("Regulation (EU) 2016/679 of the European Parliament and of the Council of 27 April 2016 on the protection "
             "of natural persons … and repealing Directive 95/46/EC (General Data Protection Regulation)")
    names = {n.value for n in alias_names({"slug": "32016r0679", "document_type": "REG"}, "eu-eurlex",
                                          [{"title": title, "language": "en"}])}
    assert "General Data Protection Regulation" in names


def test_the_reviewed_luxembourg_fund_abbreviations_name_one_act_each_with_its_legilux_title() -> None:
    expected = {"FIS": "loi-2007-02-13-n1", "SIF Law": "loi-2007-02-13-n1", "RAIF": "loi-2016-07-23-n7",
                "FIAR": "loi-2016-07-23-n7", "loi SICAR": "loi-2004-06-15-n1", "AIFM Law": "loi-2013-07-12-n1",
                "Securitisation Law": "loi-2004-03-22-n1", "Payment Services Law": "loi-2009-11-10-n1"}
    import json
    entries = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))["aliases"]
    by_alias = {e["alias"]: e for e in entries}
    for alias, slug in expected.items():
        entry = by_alias[alias]
        assert entry["work"] == f"{LU}:{slug}"
        # the source quotes the act's Legilux title ("Loi du 13 février 2007 …") and names the authority's usage
        assert "Loi du " in entry["source"] and "Legilux title" in entry["source"] and "CSSF" in entry["source"]


# -- class 3: an act cited by its date, with extra words and typos ----------------------------------

@pytest.mark.parametrize(("word", "month"), [
    ("avril", 4), ("avirl", 4), ("fevier", 2), ("fevr", 2), ("juil", 7), ("juilet", 7), ("septmbre", 9),
    ("otcobre", 10), ("decmbre", 12), ("12", 12), ("mai", 5),
    ("mais", None), ("13", None), ("loi", None), ("fusion", None), ("aot", None)])
def test_a_citations_month_is_read_through_abbreviations_and_one_typo(word: str, month: int | None) -> None:
    assert search_op.month_number(word) == month


def test_a_law_cited_with_a_typo_in_its_month_comes_first_with_the_other_words(fixture_core: LegalCore) -> None:
    # before: "juilet" was no month, the citation named nothing and every word was required: no hits
    section = _section(fixture_core, "loi du 31 juilet 2006 licenciement")
    assert section["hits"][0]["work"] == f"{LU}:loi-2006-07-31-n2"
    mention = next(m for m in section["query_plan"]["work_mentions"] if m["reason"] == "dated_reference")
    assert mention["works"] == [f"{LU}:loi-2006-07-31-n2"] and mention["soft"]
    assert _works(fixture_core, "loi du 6 fevirer 2009 obligation scolaire")[0] == f"{LU}:loi-2009-02-06-n3"


def test_a_mistyped_citation_of_an_act_not_held_still_answers_no_hits(fixture_core: LegalCore) -> None:
    section = _section(fixture_core, "loi du 8 janvir 2013 surendettement")
    assert section["hits"] == []
    assert section["relaxation_withheld"]["reason"] == "dated_reference_not_held"


def _stand_in_citations(monkeypatch: pytest.MonkeyPatch, child: int, parent: int) -> None:
    """The one relation the fixtures lack (as in ``test_search_principal``): ``child`` cites ``parent`` twice."""
    real = ranking.cited_works

    def cited(conn: sqlite3.Connection, work: int, rowid_of: Any, publisher: str) -> list[tuple[int, int]]:
        return [(parent, 2)] if work == child else real(conn, work, rowid_of, publisher)

    monkeypatch.setattr(ranking, "cited_works", cited)
    monkeypatch.setattr(search_op, "_PARENTS", weakref.WeakKeyDictionary())


@pytest.mark.usefixtures("without_act_terms")  # « tests de dépistage » half says a sibling covid-test act's terms
def test_a_regulation_cited_by_its_date_keeps_its_place_before_the_law_it_executes(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = fixture_core._indexes[LU].catalogue
    regulation, law = f"{LU}:rgd-2021-05-14-a370", f"{LU}:loi-1980-03-07-n1"
    _stand_in_citations(monkeypatch, catalogue.rowid_of["rgd-2021-05-14-a370"], catalogue.rowid_of["loi-1980-03-07-n1"])
    # the words alone: the law the regulation executes comes right before it (test_search_principal)
    words = _works(fixture_core, "tests de dépistage organisation")
    assert words.index(law) + 1 == words.index(regulation)
    # the regulation cited by its date ("RGD du 14 mai 2021 …"): it is what the user asked for, first
    cited = _works(fixture_core, "règlement grand-ducal du 14 mai 2021 tests de dépistage organisation")
    assert cited[0] == regulation


# -- class 2: the principal act in force before the acts naming its subject among others -----------

def test_a_legilux_subject_stops_where_the_title_lists_the_acts_it_amends() -> None:
    title = ("Loi du 22 mars 2004 relative à la titrisation et portant modification de\n - la loi modifiée du 5 avril "
             "1993 relative au secteur financier\n - la loi modifiée du 4 décembre 1967 concernant l'impôt sur le revenu")
    assert ranking.subject_words([title], legilux=True) == frozenset({"titrisation"})
    assert "financier" in ranking.subject_words([title])  # EUR-Lex (and the default) read the whole subject
    amending = "Loi du 9 août 2018 portant modification de la loi modifiée du 22 mars 2004 relative à la titrisation"
    assert "titrisation" in ranking.subject_words([amending], legilux=True)  # an amending law's subject is kept


def test_only_a_legilux_principal_act_in_force_named_by_its_whole_subject_is_weighed_up() -> None:
    law = ranking.WorkProfile("in_force", "principal", "law", "Loi du 22 mars 2004 relative à la titrisation")
    assert search_op.exact_subject(law, 1.0, 1.0)
    assert not search_op.exact_subject(law, 1.0, 0.5)  # its subject says more than the question
    assert not search_op.exact_subject(law, 0.5, 1.0)  # the question says more than its names
    for other in (ranking.WorkProfile("repealed", "principal", "law", ""),  # "droit d'auteur": the 1972 law
                  ranking.WorkProfile("in_force", "amending", "law", ""),
                  ranking.WorkProfile("in_force", "principal", "secondary", "")):  # a EUR-Lex act
        assert not search_op.exact_subject(other, 1.0, 1.0)


def test_a_law_whose_title_amends_the_act_named_alone_counts_among_its_amending_acts() -> None:
    title = ("Loi du 18 juillet 2013 concernant des agents intervenant dans l'enseignement fondamental et modifiant: "
             "1. la loi modifiée du 6 février 2009 portant organisation de l'enseignement fondamental; 9. la loi du "
             "13 juillet 2006 portant réorganisation du centre de psychologie et d'orientation scolaires (CPOS).")
    assert ranking.amends_in_title(title, "13 juillet 2006")
    assert not ranking.amends_in_title("Loi du 13 juillet 2006 portant réorganisation du CPOS", "13 juillet 2006")
    assert not ranking.amends_in_title("Règlement grand-ducal du 5 mai 2010 portant exécution de la loi du 13 "
                                       "juillet 2006", "13 juillet 2006")
