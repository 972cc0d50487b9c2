"""Issue #15, fifty-third session (zh53): positive questions answered with nothing, on the real fixture corpus
(``LEX_FIXTURES``; ADR 0191).

Four query-side rules, each with an on/off constant, each touching only an answer that is otherwise empty:

- :func:`serve.core.ops.search.dated_own_act`: a question whose form word reads as the Union's ("2023 regulation …",
  :func:`serve.core.ops.search.asks_eu_act`) is not emptied as asking for an EU act no index holds when a section
  holds the act of the year it names whose names hold its words (:func:`serve.core.ops.search.dated_pick`);
- :func:`serve.core.ops.search.firm_lead`: an empty answer's clear lead (:func:`serve.core.ops.search.empty_lead`)
  weighed over the acts the terms firmly say only;
- :func:`serve.core.ops.search.framed_in_part`: an empty answer takes the act the terms rank first when they cover
  three of the question's words at least in part and every word they leave out is a frame word;
- :func:`serve.core.ops.search.compound_name_act`: a one-word question that is a German compound naming a Union act
  by its form (« Konzessionsrichtlinie ») takes the one act of that form whose terms say the whole compound.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serve.core import LegalCore, actterms
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import answer_works, filler_terms, mounted_with_terms, searched

CATTLE = "lu-legilux:rgd-2018-05-30-a455"
#: An English question asking, by its year and its title's words, for the fixture's 2018 grand-ducal regulation on the
#: identification and registration of cattle: "regulation" alone reads as the Union's form.
CATTLE_2018 = "2018 regulation on a system for identifying and registering bovine animals"

CONSUMER = "lu-legilux:loi-2011-04-08-n2"
OTHER = "lu-legilux:rgd-2018-05-30-a455"
DIRECTIVE = "eu-eurlex:32024l1405"
#: Test terms: the consumer code's four-word term no text holds (a question says three of its words, in part), another
#: act's four-word term said in part by three other words, a directive's German name, and a Luxembourg act whose terms
#: name a directive it carries out; the filler acts weigh a word as the full build's thousands of acts do.
TERMS = [
    {"work": CONSUMER, "fr": ["zorblax widget quuxel blorp"]},
    {"work": OTHER, "fr": ["fnordel snarfel grobble wibbit"]},
    {"work": DIRECTIVE, "de": ["Zorblaxrichtlinie", "Blorpverordnung"]},
    {"work": CATTLE, "de": ["Quuxelrichtlinie"]},
    *filler_terms(),
]


@pytest.fixture(scope="module")
def zh53_core(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LegalCore]:
    with mounted_with_terms(fixture_indexes, tmp_path_factory, TERMS, "zh53") as core:
        yield core


def _match(words: tuple[str, ...], coverage: float, terms: tuple[str, ...]) -> actterms.Match[int]:
    return actterms.Match(1, coverage, words, terms)


@pytest.fixture
def rules_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The four rules on, whatever a candidate's defaults."""
    for name in ("EU_ACT_DATED_OWN", "FIRM_LEAD", "FRAMED_IN_PART", "COMPOUND_NAME"):
        monkeypatch.setattr(search, name, True)


def test_the_dated_own_act_is_on_the_default_path() -> None:
    assert search.EU_ACT_DATED_OWN is True


# --- the act of the named year beside an English "regulation" ---------------------------------------------------------

def test_the_act_of_the_named_year_is_not_emptied(fixture_core: LegalCore, rules_on: None) -> None:
    assert answer_works(searched(fixture_core, CATTLE_2018))[:1] == [CATTLE]


def test_the_dated_own_act_off(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "EU_ACT_DATED_OWN", False)
    answer = searched(fixture_core, CATTLE_2018)
    assert answer_works(answer) == []
    assert {s["relaxation_withheld"]["reason"] for s in answer["publishers"]} == {"eu_act_not_held"}


def test_a_union_act_no_index_holds_stays_empty(fixture_core: LegalCore, rules_on: None) -> None:
    # no year, no held act of it: the EU-act rule still answers nothing
    answer = searched(fixture_core, "Chat Control regulation scanning private messages for abuse")
    assert answer_works(answer) == []


def test_the_eu_act_rule_asks_the_dated_act_last() -> None:
    asked: list[bool] = []

    def held() -> bool:
        asked.append(True)
        return True

    # nothing answered: the rule never fires, and never asks
    assert not search.eu_act_unanswered({}, [{"publisher": "eu-eurlex", "hits": []}], "2023 regulation on x", held)
    assert asked == []


# --- the lead over the acts the terms firmly say -----------------------------------------------------------------------

def test_a_firm_lead_is_weighed_over_firm_acts_only(rules_on: None) -> None:
    words = ["zorblax", "widget", "quuxel", "delai", "procedure", "formulaire"]
    best = _match(("zorblax", "widget", "quuxel"), 0.5, ("quuxel widget zorblax",))
    in_part = _match(("delai", "procedure", "formulaire"), 0.4, ("blorp delai formulair procedur",))
    firm = _match(("delai", "procedure", "formulaire"), 0.4, ("delai formulair procedur",))
    assert not search.empty_lead(best, [in_part], words)  # 0.1 below: no clear lead over every act
    assert search.firm_lead(best, [in_part], words)  # the act said only in part is no competitor
    assert not search.firm_lead(best, [firm], words)
    # two words, or a term of the first said only in part, are not the three-word lead's
    assert not search.firm_lead(_match(("zorblax", "widget"), 0.5, ("widget zorblax",)), [in_part], words)
    assert not search.firm_lead(_match(("zorblax", "widget", "quuxel"), 0.5, ("blorp quuxel widget zorblax",)),
                                [in_part], words)


def test_the_firm_lead_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FIRM_LEAD", False)
    words = ["zorblax", "widget", "quuxel", "delai"]
    assert not search.firm_lead(_match(("zorblax", "widget", "quuxel"), 0.5, ("quuxel widget zorblax",)), [], words)


# --- the terms said in part over a framed subject -----------------------------------------------------------------------

def test_an_act_said_in_part_over_frame_words_answers(zh53_core: LegalCore, rules_on: None,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # « délai » is a word of every fixture act; the consumer code's terms say three words of four
    query = "zorblax widget quuxel délai"
    assert answer_works(searched(zh53_core, query)) == [CONSUMER]
    monkeypatch.setattr(search, "FRAMED_IN_PART", False)
    assert answer_works(searched(zh53_core, query)) == []


def test_a_subject_word_left_out_keeps_it_empty(zh53_core: LegalCore, rules_on: None) -> None:
    # « licornes » no fixture text holds: the question is about it, and the terms leave it out
    assert answer_works(searched(zh53_core, "zorblax widget quuxel licornes")) == []


def test_framed_in_part_needs_three_words_a_lead_and_no_firm_term(zh53_core: LegalCore, rules_on: None) -> None:
    # two words said in part: not enough
    assert answer_works(searched(zh53_core, "zorblax widget délai")) == []
    words = ["zorblax", "widget", "quuxel", "fnordel", "snarfel", "grobble"]
    best = _match(("zorblax", "widget", "quuxel"), 0.4, ("blorp quuxel widget zorblax",))
    tied = _match(("fnordel", "snarfel", "grobble"), 0.4, ("fnordel grobbl snarfel wibbit",))
    # another act said as much: no lead (decided before the frame words are read)
    assert not search.framed_in_part(None, [], {}, best, [tied], words)  # type: ignore[arg-type]
    # a term said whole is the firm rules' (act_term_answer)
    firm = _match(("zorblax", "widget", "quuxel"), 0.4, ("quuxel widget zorblax",))
    assert not search.framed_in_part(None, [], {}, firm, [], words)  # type: ignore[arg-type]


# --- a German compound naming a Union act by its form ------------------------------------------------------------------

def test_a_compound_names_its_form() -> None:
    assert search.compound_form("konzessionsrichtlinie") == "l"
    assert search.compound_form("holzhandelsverordnung") == "r"
    assert search.compound_form("richtlinie") is None  # no modifier
    assert search.compound_form("asylgesetz") is None  # a law: Luxembourg's or the Union's


def test_the_directive_its_terms_name_answers(zh53_core: LegalCore, rules_on: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert answer_works(searched(zh53_core, "Zorblaxrichtlinie")) == [DIRECTIVE]
    monkeypatch.setattr(search, "COMPOUND_NAME", False)
    assert answer_works(searched(zh53_core, "Zorblaxrichtlinie")) == []


def test_a_compound_of_another_form_or_publisher_stays_empty(zh53_core: LegalCore, rules_on: None) -> None:
    # a directive's terms saying a regulation's name: not of the form asked
    assert answer_works(searched(zh53_core, "Blorpverordnung")) == []
    # a Luxembourg act naming the directive it carries out is no directive
    assert answer_works(searched(zh53_core, "Quuxelrichtlinie")) == []
    # a name no act's terms say
    assert answer_works(searched(zh53_core, "Wibbitrichtlinie")) == []
