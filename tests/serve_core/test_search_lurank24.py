"""Issue #15, twenty-fourth session (lurank24): three query-side rules for Legilux questions.

- A synonym or translation alternative is also searched in its other grammatical number when the
  index holds that form in far more provisions (:func:`alternative_forms`): the lexicon renders
  "advertising" as « publicités », the acts say « publicité ».
- A dated citation whose held acts of that day hold none of its subject words answers no hits
  (:func:`dated_subject_not_held`): the day's act is about something else.
- Beside provisions holding every word by chance, the acts whose names hold a strict majority of the
  question's subject words come as work rows (:func:`majority_titled_rows`, :func:`chance_provisions`).

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore
from serve.core.ops.search import (
    Filters,
    Hit,
    alternative_forms,
    chance_provisions,
    dated_subject_words,
    majority_titled_rows,
    number_forms,
)

LU = "lu-legilux"
CONSUMER_CODE = "lu-legilux:loi-2011-04-08-n2"
PUBLIC_TRANSPORT = "lu-legilux:loi-2021-02-05-a106"  # Loi du 5 février 2021 sur les transports publics
SCHOOLS = "lu-legilux:loi-2009-02-06-n3"  # … portant organisation de l'enseignement fondamental
DESIGNATION = "lu-legilux:loi-1953-06-26-n1"  # … concernant la désignation des personnes et des biens …


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def _rowid(core: LegalCore, publisher: str, work: str) -> int:
    return core.indexes[publisher].catalogue.rowid_of[work.split(":", 1)[1]]


# -- the other grammatical number of a lexicon alternative -------------------------------------------


def test_number_forms_are_the_plural_or_singular_of_words_the_vocabulary_counts() -> None:
    assert number_forms("publicites") == ["publicite"]
    assert number_forms("publicite") == ["publicites"]
    assert number_forms("reseaux") == ["reseau"]
    assert number_forms("loi") == [] and number_forms("pays") == []  # 'vocabulary' lists no 3-letter word
    assert number_forms("process") == []  # -ss is no plural


def test_an_alternative_the_text_says_in_the_other_number_is_searched_in_it_too(fixture_core: LegalCore) -> None:
    # the fixture Legilux text holds « publicites » in 2 provisions, « publicite » in 30
    with fixture_core.indexes[LU].session(5.0) as conn:
        found = alternative_forms(conn, {"advertising": ["publicites"], "law": ["loi"],
                                         "medicinal products": ["medicaments"]})
    assert found == {"advertising": ["publicites", "publicite"], "law": ["loi"],
                     "medicinal products": ["medicaments"]}  # « médicament » is held by no provision


def test_an_english_question_finds_the_provision_saying_publicite(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "Luxembourg law on advertising of medicinal products",
                                          "publisher": LU, "fuzzy": "off"})
    lu = _section(answer, LU)
    assert "advertising -> publicite" in lu["query_expansions"]
    assert lu["hits"] and lu["hits"][0]["work"] == CONSUMER_CODE
    assert lu["hits"][0]["match_reasons"] == ["keyword", "translated"]


# -- a dated citation whose act of that day is on another subject -------------------------------------


def test_dated_subject_words_leave_out_forms_frames_and_stop_words() -> None:
    assert dated_subject_words(["loi", "relative", "parcs", "eoliens", "mer"]) == ["parcs", "eoliens", "mer"]
    assert dated_subject_words(["loi", "sur", "transports", "publics", "2021"]) == ["transports", "publics"]
    assert dated_subject_words(["r", "g", "d"]) == []  # "R.G.D. du 10 mars 2014": the letters of the form
    assert dated_subject_words(["loi", "31", "juilet", "2006", "licenciement"]) == ["licenciement"]  # a month


def test_an_act_whose_text_is_not_held_is_never_silent_on_the_subject(fixture_core: LegalCore) -> None:
    # the fixture holds the Code du travail (loi du 31 juillet 2006) by its names only
    answer = fixture_core.call("search", {"query": "loi du 31 juillet 2006 relative aux parcs éoliens en mer",
                                          "fuzzy": "off"})
    assert _section(answer, LU)["hits"][0]["work"] == "lu-legilux:loi-2006-07-31-n2"


def test_a_dated_citation_of_a_held_act_on_another_subject_answers_no_hits(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "loi du 5 février 2021 relative aux parcs éoliens en mer",
                                          "fuzzy": "off"})
    for section in answer["publishers"]:
        assert section["hits"] == []
        assert section["relaxation_withheld"]["reason"] == "dated_subject_not_held"
        assert section["relaxation_withheld"]["words"] == ["parcs", "eoliens", "mer"]
    # the act of that day on its own subject is answered as before
    answer = fixture_core.call("search", {"query": "loi du 5 février 2021 sur les transports publics",
                                          "fuzzy": "off"})
    assert _section(answer, LU)["hits"][0]["work"] == PUBLIC_TRANSPORT
    # … and so is the day's act with one subject word it holds beside one it does not
    answer = fixture_core.call("search", {"query": "loi du 5 février 2021 relative aux transports en mer",
                                          "fuzzy": "off"})
    assert _section(answer, LU)["hits"][0]["work"] == PUBLIC_TRANSPORT


# -- the acts the words name, beside provisions holding them by chance ----------------------------------


def test_the_acts_whose_names_hold_most_subject_words_are_found_by_their_titles(fixture_core: LegalCore) -> None:
    schools = _rowid(fixture_core, LU, SCHOOLS)
    with fixture_core.indexes[LU].session(5.0) as conn:
        index = fixture_core.indexes[LU]
        # three of four subject words in the title "portant organisation de l'enseignement fondamental"
        rows = majority_titled_rows(conn, [["organisation"], ["enseignement"], ["fondamental"], ["cantine"]],
                                    Filters(), 10, index)
        assert [h.row["work_rowid"] for h in rows] == [schools] and rows[0].reasons == ["title_words"]
        # two of four: no majority of at least three words
        assert majority_titled_rows(conn, [["enseignement"], ["fondamental"], ["cantine"], ["repas"]],
                                    Filters(), 10, index) == []
        # three of four in a long title the question says little of (precision 0.125: the conflict and
        # risk zones of the conflict-minerals law, "mise en œuvre du règlement (UE) 2017/821 …"): no row
        assert majority_titled_rows(conn, [["zones"], ["conflit"], ["risque"], ["cantine"]],
                                    Filters(), 10, index) == []


def test_provisions_on_works_named_by_no_subject_word_are_chance_provisions(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[LU]
    consumer, schools = _rowid(fixture_core, LU, CONSUMER_CODE), _rowid(fixture_core, LU, SCHOOLS)
    groups = [["enseignement"], ["fondamental"], ["organisation"]]

    def hit(work: int, reasons: list[str]) -> Hit:
        return Hit({"work_rowid": work, "anchor": "art_1"}, reasons)

    with index.session(5.0) as conn:
        assert chance_provisions(conn, index, [hit(consumer, ["keyword"])], groups)
        assert not chance_provisions(conn, index, [hit(schools, ["keyword"])], groups)  # named by the words
        assert not chance_provisions(conn, index, [hit(consumer, ["keyword"])] * 5, groups)  # five: not by chance
        assert not chance_provisions(conn, index, [hit(consumer, ["partial_terms"])], groups)  # no strict hit


def test_the_act_titled_by_the_words_answers_beside_a_chance_provision(fixture_core: LegalCore) -> None:
    # one article of the law on cultural leave holds "désignation", "personnes", "biens" and
    # "employeur" (in some form); the Loi du 26 juin 1953 concernant la désignation des personnes et
    # des biens … holds three of the four subject words in its title, and its text not the fourth
    answer = fixture_core.call("search", {"query": "désignation des personnes et des biens par l'employeur",
                                          "fuzzy": "off"})
    lu = _section(answer, LU)
    assert [h["work"] for h in lu["hits"]][:2] == [DESIGNATION, "lu-legilux:loi-2023-01-06-a16"]
    assert lu["hits"][0]["match_reasons"] == ["title_words"]
    # a question naming the act by its title words alone is answered by its text as before
    answer = fixture_core.call("search", {"query": "désignation des personnes et des biens dans les actes",
                                          "fuzzy": "off"})
    assert _section(answer, LU)["hits"][0]["match_reasons"] != ["title_words"]
