"""Issue #15, titles28: an act asked by its title's words, its old name or as of a date.

- a name asked as of a date names only the acts held by then (:func:`serve.core.resolve.enacted_by`):
  the GDPR's French short title asked as of 2012 is the question's words, not the GDPR;
- the acts only their titles can find answer a question whose last stage found nothing
  (:func:`serve.core.ops.search.empty_at_last_stage`), never nothing;
- a French « règlement sur … » names Luxembourg règlements grand-ducaux too
  (:func:`serve.core.ops.search.subject_form_kinds`);
- an act named alone lists first the act its title repeals first (:func:`serve.core.ranking.repealed_in_order`).

On the real fixture corpus (``LEX_FIXTURES``) where it holds such acts."""

from __future__ import annotations

import sqlite3
from typing import Any

from serve.core import LegalCore, ranking
from serve.core.ops.search import FRENCH_REGLEMENT_KINDS, subject_form_kinds
from serve.core.resolve import acronym_works, enacted_by, initials, name_initials
from serve.core.searchplan import act_name

EU = "eu-eurlex"
LU = "lu-legilux"
#: Arrêtés grand-ducaux on the salaire social minimum whose text the fixture corpus does not hold;
#: their first states start on 1967-11-21 (the two first) and 1967-11-28.
UNTEXTED = ("agd-1963-04-22-n1", "agd-1965-06-25-n1", "agd-1967-11-15-n1")
#: The Market Abuse Regulation's official title (Regulation (EU) No 596/2014), normalised.
MAR_TITLE = ("regulation eu no 596 2014 of the european parliament and of the council of 16 april 2014 on market "
             "abuse market abuse regulation and repealing directive 2003 6 ec of the european parliament and of "
             "the council and commission directives 2003 124 ec 2003 125 ec and 2004 72 ec")


def _section(core: LegalCore, publisher: str, query: str, **extra: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"query": query, "fuzzy": "off", **extra}
    if "as_of" in extra:
        args["time_scope"] = "as_of"
    answer = core.call("search", args)
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_a_work_is_enacted_by_a_day_when_a_live_state_starts_on_or_before_it(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    gdpr = index.catalogue.rowid_of["32016r0679"]  # first state 2016-04-27
    with index.session(60.0) as conn:
        assert enacted_by(conn, [gdpr], "2012-01-01") == []
        assert enacted_by(conn, [gdpr], "2016-04-26") == []
        assert enacted_by(conn, [gdpr], "2016-04-27") == [gdpr]
        assert enacted_by(conn, [], "2020-01-01") == []


def test_a_name_asked_before_its_act_existed_is_the_questions_words(fixture_core: LegalCore) -> None:
    query = "Protection des données à caractère personnel"  # a publisher short title of the GDPR
    then = _section(fixture_core, EU, query, as_of="2012-01-01")
    assert then["query_plan"]["work_mentions"] == []
    assert then["query_plan"]["terms"] == ["protection", "donnees", "caractere", "personnel"]
    assert not any(h["work"] == f"{EU}:32016r0679" for h in then["hits"])
    later = _section(fixture_core, EU, query, as_of="2020-01-01")
    assert [m["works"] for m in later["query_plan"]["work_mentions"]] == [[f"{EU}:32016r0679"]]
    assert later["hits"][0]["work"] == f"{EU}:32016r0679"
    undated = _section(fixture_core, EU, query)
    assert undated["hits"][0]["work"] == f"{EU}:32016r0679"


def test_the_acts_only_their_titles_find_answer_a_question_nothing_else_answers(fixture_core: LegalCore) -> None:
    query = "montant du salaire social minimum des ouvriers"
    # on 1968-01-01 no text of that day holds the words; the arrêtés on the salaire social minimum,
    # in force then, are held by their titles only (4 of 5 words)
    then = _section(fixture_core, LU, query, as_of="1968-01-01")
    assert [h["work"] for h in then["hits"]] == [f"{LU}:{s}" for s in UNTEXTED]
    assert all(h["match_reasons"] == ["title_words"] for h in then["hits"])
    # before any of them was in force, still nothing (the date filter is kept)
    assert _section(fixture_core, LU, query, as_of="1966-01-01")["hits"] == []


def test_a_word_no_index_holds_keeps_the_empty_answer(fixture_core: LegalCore) -> None:
    # "zzyzx" is held nowhere (relaxation withheld as unknown_terms): the titles holding the other
    # words are not the act asked for
    section = _section(fixture_core, LU, "salaire social minimum zzyzx", as_of="1968-01-01")
    assert section["hits"] == []
    assert section["relaxation_withheld"]["reason"] == "unknown_terms"


def test_a_french_reglement_names_the_luxembourg_reglements_too() -> None:
    french = act_name("règlement sur la liste des vaccinations conseillées")
    english = act_name("regulation on the list of recommended vaccinations")
    assert french is not None and english is not None
    assert subject_form_kinds(french) >= FRENCH_REGLEMENT_KINDS
    assert not FRENCH_REGLEMENT_KINDS & subject_form_kinds(english)
    directive = act_name("directive sur la liste des vaccinations conseillées")
    assert directive is not None and not FRENCH_REGLEMENT_KINDS & subject_form_kinds(directive)


def test_a_reglement_asked_by_most_of_its_title_words_is_named(fixture_core: LegalCore) -> None:
    # « conseillées » is in no name: the Règlement grand-ducal du 18 octobre 2001 déterminant la liste
    # des vaccinations recommandées holds the rarest word and a majority of them
    section = _section(fixture_core, LU, "règlement sur la liste des vaccinations conseillées")
    assert section["hits"][0]["work"] == f"{LU}:rgd-2001-10-18-n3"
    mention = section["query_plan"]["work_mentions"][0]
    assert (mention["reason"], mention["works"]) == ("form_titled", [f"{LU}:rgd-2001-10-18-n3"])
    assert section.get("relaxation_withheld") is None


def test_the_act_a_title_repeals_first_comes_first() -> None:
    assert ranking.repealed_in_order(MAR_TITLE) == ["2003 6", "2003 124", "2003 125", "2004 72"]
    assert ranking.repealed_numbers(MAR_TITLE) == {"2003 6", "2003 124", "2003 125", "2004 72"}
    assert ranking.repealed_in_order("amending directive 2002 92 ec") == []


def test_predecessors_follow_the_repealing_clause_not_the_rowids() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE work_names (work_rowid INTEGER, kind TEXT, normalized TEXT)")
    conn.execute("INSERT INTO work_names VALUES (1, 'official_title', ?)", (MAR_TITLE,))
    # rowids in the opposite order of the title's: the newest-first order listed 2004/72 first
    numbered = {"2003 6": 2, "2003 124": 3, "2003 125": 4, "2004 72": 5, "596 2014": 1}
    assert ranking.predecessors(conn, 1, numbered) == [2, 3, 4, 5]


def test_an_acronym_is_the_initials_of_a_names_words_less_the_linking_words() -> None:
    assert initials("European Insurance and Occupational Pensions Authority") == "eiopa"
    assert initials("Autorité européenne des marchés financiers") == "aemf"
    assert initials("Regulation (EU) No 1094/2010") == ""  # numbers: no acronym of a name
    assert initials("Code civil") == ""  # too few words to be written as an acronym


def test_a_capitalised_acronym_names_the_works_it_is_the_initials_of(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    gdpr = index.catalogue.rowid_of["32016r0679"]
    with index.session(60.0) as conn:
        by_initials = name_initials(conn)
    # « Protection des données à caractère personnel », a publisher short title of the GDPR
    assert acronym_works(by_initials, index.catalogue.names, "PDCP") == [gdpr]
    assert acronym_works(by_initials, index.catalogue.names, "pdcp") == []  # not written as an acronym
    assert acronym_works(by_initials, index.catalogue.names, "GDPR") == []  # a name itself: resolved as a name


def test_a_question_writing_an_acronym_ranks_its_act_first(fixture_core: LegalCore) -> None:
    section = _section(fixture_core, LU, "NCCP")  # the New Code of Civil Procedure, an alias of the NCPC
    mention = section["query_plan"]["work_mentions"][0]
    assert (mention["reason"], mention["works"], mention["soft"]) == \
        ("acronym_name", [f"{LU}:rgd-1998-08-03-n4"], True)
    assert section["hits"][0]["work"] == f"{LU}:rgd-1998-08-03-n4"
    assert _section(fixture_core, LU, "nccp")["query_plan"]["work_mentions"] == []
