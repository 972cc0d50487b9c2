"""Issue #15, fifty-first session (zh51): positive questions answered with nothing, on the real fixture corpus
(``LEX_FIXTURES``; ADR 0177).

Four query-side rules, each with an on/off constant:

- :func:`serve.core.ops.search.pair_lead`: an answer the keywords left empty takes the act the terms rank first when a
  term of it is said whole over two of the question's words, it covers at least
  :data:`serve.core.ops.search.EMPTY_LEAD_COVERAGE` of the question and leads every other act by
  :data:`serve.core.ops.search.PAIR_LEAD_MARGIN`, and no foreign place is left out;
- :func:`serve.core.ops.search.held_nowhere`: a word a section lists as unknown that some searched index's vocabulary
  holds is no absent word (a section not withheld was never asked of it);
- :func:`serve.core.ops.search.held_unprefixed`: a word of a repeating prefix and a held word (« recoordination ») is
  no absent subject;
- :func:`serve.core.ops.search.noun_words`: in an answer the keywords left empty, a German verb in a question
  ("melden") is read as its noun in « -ung » (:func:`serve.core.actterms.verb_noun`) when more acts' terms say the noun
  ("Meldung").
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import pytest

from serve.core import LegalCore, actterms
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import answer_works, filler_terms, mounted_with_terms, searched

CONSUMER = "lu-legilux:loi-2011-04-08-n2"
#: Test terms, as in the zh50 tests: the consumer code's term of two words no text holds; other held acts given terms of
#: made-up words no question says, so that the terms weigh a word as the full build's thousands of acts do.
TERMS = [
    {"work": CONSUMER, "fr": ["zorblax widget"]},
    *filler_terms(),
]
#: Two words the consumer code's terms say whole and a word every fixture index holds that they leave out: on the
#: fixture's few acts the terms weigh it so that they cover 0.29 of the question, which the tests take as the least share
#: (:data:`serve.core.ops.search.EMPTY_LEAD_COVERAGE` lowered to 0.25; the full build's weights are the corpus's).
PAIRED = "zorblax widget délai"


@pytest.fixture(scope="module")
def zh51_core(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LegalCore]:
    with mounted_with_terms(fixture_indexes, tmp_path_factory, TERMS, "zh51") as core:
        yield core


def _match(words: tuple[str, ...], coverage: float, terms: tuple[str, ...]) -> actterms.Match[int]:
    return actterms.Match(1, coverage, words, terms)


@pytest.fixture
def rules_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The four rules on, whatever a candidate's defaults."""
    for name in ("PAIR_LEAD", "HELD_NOWHERE", "UNPREFIXED"):
        monkeypatch.setattr(search, name, True)
    monkeypatch.setattr(actterms, "VERB_NOUNS", True)


def test_the_rules_are_on_the_default_path() -> None:
    assert search.PAIR_LEAD is True and search.HELD_NOWHERE is True
    assert search.UNPREFIXED is True and actterms.VERB_NOUNS is True
    assert search.PAIR_LEAD_MARGIN == search.EMPTY_LEAD_MARGIN


def test_a_pair_lead_is_two_words_said_whole_a_share_and_a_margin(rules_on: None) -> None:
    words = ["zorblax", "widget", "procedure", "delai"]
    best = _match(("zorblax", "widget"), 0.4, ("widget zorblax",))
    assert search.pair_lead(best, [_match(("procedure",), 0.2, ("procedur",))], words)
    assert search.pair_lead(best, [], words)
    # too near the next act, too little of the question, one word only, a term said only in part
    assert not search.pair_lead(best, [_match(("procedure",), 0.3, ("procedur",))], words)
    assert not search.pair_lead(_match(("zorblax", "widget"), 0.25, ("widget zorblax",)), [], words)
    assert not search.pair_lead(_match(("zorblax",), 0.4, ("zorblax",)), [], words)
    assert not search.pair_lead(_match(("zorblax", "widget"), 0.4, ("quuxel widget zorblax",)), [], words)
    # three words are the three-word lead's (empty_lead), not this rule's
    assert not search.pair_lead(_match(("zorblax", "widget", "delai"), 0.6, ("widget zorblax",)), [], words)


def test_a_pair_lead_never_leaves_out_a_foreign_place(rules_on: None) -> None:
    words = ["mandat", "bourgmestre", "bruxelles"]
    assert not search.pair_lead(_match(("mandat", "bourgmestre"), 0.43, ("bourgmestr mandat",)), [], words)


def test_the_pair_lead_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "PAIR_LEAD", False)
    best = _match(("zorblax", "widget"), 0.4, ("widget zorblax",))
    assert not search.pair_lead(best, [], ["zorblax", "widget", "procedure"])


def test_an_act_the_terms_lead_on_two_words_answers(zh51_core: LegalCore, monkeypatch: pytest.MonkeyPatch,
                                                    rules_on: None) -> None:
    monkeypatch.setattr(search, "FRAME_WORDS", False)  # the frame-word rule (zh50) would take it on its own
    monkeypatch.setattr(search, "EMPTY_LEAD_COVERAGE", 0.25)
    assert answer_works(searched(zh51_core, PAIRED)) == [CONSUMER]
    monkeypatch.setattr(search, "PAIR_LEAD", False)
    assert answer_works(searched(zh51_core, PAIRED)) == []


def test_a_word_the_law_never_says_keeps_the_pair_empty(zh51_core: LegalCore, monkeypatch: pytest.MonkeyPatch,
                                                       rules_on: None) -> None:
    monkeypatch.setattr(search, "FRAME_WORDS", False)
    monkeypatch.setattr(search, "EMPTY_LEAD_COVERAGE", 0.25)
    # « licornes » is held by no fixture text: the question is about it, and the terms leave it out
    assert answer_works(searched(zh51_core, "zorblax widget licornes")) == []


def _ctx(core: LegalCore) -> types.SimpleNamespace:
    return types.SimpleNamespace(indexes=core.indexes, deadline_seconds=30.0)


def test_a_word_some_index_holds_is_not_absent(zh51_core: LegalCore, rules_on: None) -> None:
    sections = [{"publisher": "eu-eurlex"}, {"publisher": "lu-legilux"}]
    plans: dict[str, Any] = {"eu-eurlex": None, "lu-legilux": None}  # only which publishers were searched is read
    # « licornes » no fixture index holds; "processing" the GDPR's English text does
    found = search.held_nowhere(_ctx(zh51_core), sections, plans, ["processing", "licornes"])  # type: ignore[arg-type]
    assert found == ["licornes"]


def test_held_nowhere_off(zh51_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "HELD_NOWHERE", False)
    sections = [{"publisher": "eu-eurlex"}]
    plans: dict[str, Any] = {"eu-eurlex": None}
    found = search.held_nowhere(_ctx(zh51_core), sections, plans, ["processing"])  # type: ignore[arg-type]
    assert found == ["processing"]


def test_a_repeating_prefix_is_cut_from_a_long_word(rules_on: None) -> None:
    assert search.unprefixed("recoordination") == "coordination"
    assert search.unprefixed("rester") is None  # too short a rest: another word
    assert search.unprefixed("coordination") is None


def test_a_prefixed_held_word_is_held(zh51_core: LegalCore, monkeypatch: pytest.MonkeyPatch, rules_on: None) -> None:
    index = zh51_core.indexes["eu-eurlex"]
    with index.session(30.0) as conn:
        assert search.held_unprefixed(conn, "reprocessing")  # "processing": the GDPR's
        assert not search.held_unprefixed(conn, "relicornes")
        monkeypatch.setattr(search, "UNPREFIXED", False)
        assert not search.held_unprefixed(conn, "reprocessing")


def test_a_german_verb_reads_as_its_noun(rules_on: None) -> None:
    assert actterms.verb_noun("melden") == "meldung"
    assert actterms.verb_noun("andern") == "anderung"
    assert actterms.verb_noun("regeln") == "regelung"
    assert actterms.verb_noun("meldungen") is None and actterms.verb_noun("arzt") is None
    assert "meldung" not in actterms.word_forms("melden")  # not a form everywhere: only in an empty answer


def test_a_verb_is_read_as_the_noun_the_terms_say_more(rules_on: None) -> None:
    counts = {"melden": 2, "meldung": 28, "arzt": 5, "masern": 3, "zahlen": 9}
    found = search.nouns_for(lambda w: counts.get(w, 0), ["arzt", "melden", "masern", "zahlen"])
    assert found == {"melden": "meldung"}  # "zahlung" no term says: "zahlen" stays


def test_the_noun_meets_the_terms() -> None:
    index = actterms.term_index([(1, "Masern Meldung", "de"), (2, "Arzt Berufskrankheit", "de")])
    found = actterms.matches(index, ["arzt", "meldung", "masern"])
    assert found[0].work == 1 and found[0].words == ("meldung", "masern")
    assert actterms.firm(found[0], ["arzt", "meldung", "masern"])
    # the verb itself: its German stem « meld » is no stem of « Meldung »
    assert not any("melden" in m.words for m in actterms.matches(index, ["arzt", "melden", "masern"]))


def test_the_verb_noun_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actterms, "VERB_NOUNS", False)
    assert actterms.verb_noun("melden") is None
    assert search.nouns_for(lambda w: {"meldung": 28}.get(w, 0), ["melden"]) == {}
