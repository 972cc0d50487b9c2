"""Issue #15, forty-ninth session (zh49): positive questions answered with nothing given their answer back by the act
terms, without answering a question no act is about (ADR 0164), on the real fixture corpus (``LEX_FIXTURES``).

* An answer the keywords left empty takes the act its terms firmly cover (:func:`serve.core.ops.search.act_term_answer`)
  unless a word *no index holds* is left out by the terms: such a word is now one every section lists as
  ``unknown_terms`` (:func:`serve.core.ops.search.unknown_everywhere`), not one a single section lacks — an English
  word the French texts of Legilux lack and the English texts of EUR-Lex hold is a word of the corpus.
* A subject word no text holds (``subject_not_held``, ADR 0132) that an act's reviewed terms say firmly is a subject the
  corpus holds in other words: the mark is withdrawn (:func:`serve.core.ops.search.absent_words_termed`).
* The any-word relaxation's hits on an act whose reviewed terms firmly say the question are on its subject, when no
  other subject evidence keeps any of them (:func:`serve.core.ops.search.with_termed_works`); the question's rare words
  held apart in such an act are no chance (:func:`serve.core.ops.search.answered_termed`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from serve.core import LegalCore, actterms
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import answer_works, filler_terms, mounted_with_terms, searched

EU, LU = "eu-eurlex", "lu-legilux"
CONSUMER = "lu-legilux:loi-2011-04-08-n2"
GDPR = "eu-eurlex:32016r0679"
#: Test terms: the consumer code's French term of two words no text holds; the GDPR's French term of the two words
#: the absent-subject test question is about (no fixture text holds « robots » nor « humanoïdes »).
#: Other held acts are given terms of made-up words no question says, so that the terms weigh a word as the full
#: build's thousands of acts do (a word among few acts' terms is rare: :func:`serve.core.actterms.partly_covered`).
TERMS = [
    {"work": CONSUMER, "fr": ["zorblax widget"]},
    {"work": GDPR, "fr": ["robots humanoïdes"], "en": ["identifiable carriage"]},
    *filler_terms(),
]


@pytest.fixture(scope="module")
def zh49_core(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LegalCore]:
    with mounted_with_terms(fixture_indexes, tmp_path_factory, TERMS, "zh49") as core:
        yield core


def _section(withheld: dict[str, Any] | None, terms: list[str] | None = None) -> dict[str, Any]:
    words = ["amount", "phosphate", "washing", "powder", "tip", "group lawsuit", "lawsuit"]
    return {"query_plan": {"terms": words if terms is None else terms}, "relaxation_withheld": withheld}


def test_the_rules_are_on_the_default_path() -> None:
    assert search.UNKNOWN_EVERYWHERE is True and search.ABSENT_TERMED is True and search.EMPTY_COVERAGE == 0.6


def test_the_words_no_index_holds_are_those_every_section_lists() -> None:
    unknown = {"reason": "unknown_terms", "terms": ["amount", "washing", "powder"]}
    held = {"reason": "off_subject", "relaxed": {}}
    # EUR-Lex holds the English words Legilux's French texts lack: none is held nowhere
    assert search.unknown_everywhere([_section(held), _section(unknown)]) == []
    # a section whose relaxation was not withheld says nothing of what its index holds
    assert search.unknown_everywhere([_section(None), _section(unknown)]) == ["amount", "washing", "powder"]
    # a word both sections lack is held nowhere; a phrase counts by its words
    assert search.unknown_everywhere([_section({"reason": "unknown_terms", "terms": ["tip", "group lawsuit"]}),
                                      _section({"reason": "unknown_terms", "terms": ["lawsuit", "tip"]})]) \
        == ["tip", "lawsuit"]
    # a section that did not search a word (a translation of the question, its untranslated words left out) says
    # nothing of it: "tip" stays a word no index holds
    assert search.unknown_everywhere([_section(held, terms=[]), _section(unknown)]) == ["amount", "washing", "powder"]
    assert search.unknown_everywhere([_section(held, terms=["combien", "organisateur", "voyage"]),
                                      _section({"reason": "unknown_terms", "terms": ["tip"]},
                                               terms=["much", "tip", "organiser", "package", "travel"])]) == ["tip"]
    assert search.unknown_everywhere([]) == []


def test_without_the_rule_every_listed_word_weighs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "UNKNOWN_EVERYWHERE", False)
    sections = [_section({"reason": "off_subject"}), _section({"reason": "unknown_terms", "terms": ["group lawsuit"]})]
    assert search.unknown_everywhere(sections) == ["group", "lawsuit"]


def test_termed_words_need_a_firm_match_covering_every_word() -> None:
    asked = ["water", "skiing", "boating", "moselle"]
    match = actterms.Match(1, 0.86, ("water", "skiing", "boating", "moselle"), ("water skiing",))
    assert search.termed_words([match], ["skiing"], asked)
    assert not search.termed_words([match], ["skiing", "jetski"], asked)  # a word the terms leave out
    assert not search.termed_words([match], [], asked)
    single = actterms.Match(1, 0.5, ("skiing",), ("skiing",))  # one word covered: no firm evidence
    assert not search.termed_words([single], ["skiing"], asked)
    partly = actterms.Match(1, 0.5, ("water", "skiing"), ("water skiing zone",))  # a term said in part only
    assert not search.termed_words([partly], ["skiing"], asked)


def test_an_absent_subject_the_act_terms_say_is_answered(zh49_core: LegalCore, fixture_core: LegalCore) -> None:
    query = "statut juridique des robots humanoïdes au travail"
    # without terms for it (the plain fixture build), no text holds the subject: nothing answers (ADR 0132)
    plain = searched(fixture_core, query)
    assert answer_works(plain) == []
    assert {s["relaxation_withheld"]["reason"] for s in plain["publishers"]} == {"subject_not_held"}
    # the GDPR's terms say « robots humanoïdes »: the subject is held, in other words, and the GDPR answers
    answer = searched(zh49_core, query)
    assert GDPR in answer_works(answer)
    assert not any((s.get("relaxation_withheld") or {}).get("reason") == "subject_not_held"
                   for s in answer["publishers"])


def test_an_absent_subject_no_act_terms_say_stays_empty(zh49_core: LegalCore) -> None:
    # « yoga » is held by no text and said by no act's terms: the question stays empty, with its reason
    answer = searched(zh49_core, "protection des données et le yoga")
    assert answer_works(answer) == []
    assert {s["relaxation_withheld"]["reason"] for s in answer["publishers"]} == {"subject_not_held"}


def test_the_mark_stays_without_the_rule(zh49_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "ABSENT_TERMED", False)
    assert answer_works(searched(zh49_core, "statut juridique des robots humanoïdes au travail")) == []


def test_a_relaxation_on_an_act_the_terms_say_is_kept(zh49_core: LegalCore, fixture_core: LegalCore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # "carriage entend identifiable": two of the words meet in the GDPR and the package-travel directive, whose names
    # hold none of them; without terms for it the relaxation is withheld (tests/serve_core/test_search_off_subject.py)
    query = "carriage entend identifiable"
    plain = next(s for s in searched(fixture_core, query)["publishers"] if s["publisher"] == EU)
    assert plain["hits"] == [] and plain["relaxation_withheld"]["reason"] == "off_subject"
    # the GDPR's terms say "identifiable carriage" (a test term): its hits are on the subject, the directive's are not
    # (the later words-apart rule, which finds the two words pages apart in the GDPR, is left out here)
    monkeypatch.setattr(search, "words_apart", lambda *args, **kwargs: False)
    section = next(s for s in searched(zh49_core, query)["publishers"] if s["publisher"] == EU)
    assert [h["work"] for h in section["hits"]] == [GDPR]
    assert section["hits"][0]["match_reasons"] == ["any_term"] and section["relaxation_withheld"] is None
    monkeypatch.setattr(search, "RELAXED_TERMED", False)
    # … and with the empty answer's act-term rule for frame words off (ADR 0170: the GDPR's terms say two of the three
    # words, « entend » is a frame word, so the emptied answer would take the GDPR from its terms alone)
    monkeypatch.setattr(search, "FRAME_WORDS", False)
    # (and the two-word lead, zh51: the GDPR's term says two of the three words, and no other act's terms say any)
    monkeypatch.setattr(search, "PAIR_LEAD", False)
    section = next(s for s in searched(zh49_core, query)["publishers"] if s["publisher"] == EU)
    assert section["hits"] == [] and section["relaxation_withheld"]["reason"] == "off_subject"


def test_termed_works_are_the_firm_matches(zh49_core: LegalCore) -> None:
    index = zh49_core.indexes[EU]
    with index.session(5.0) as conn:
        termed = search.termed_works(conn, index, ["carriage", "entend", "identifiable"])
        assert set(termed) == {index.catalogue.rowid_of["32016r0679"]}
        assert search.termed_works(conn, index, ["carriage", "entend"]) == {}  # the term said in part only


def test_rare_words_apart_in_an_act_the_terms_say_are_no_chance(zh49_core: LegalCore,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the GDPR holds "carriage" and "identifiable" pages apart (search.words_apart); its terms say the question, as a
    # title holding its words would: the answer stands
    query = "carriage entend identifiable"
    assert GDPR in answer_works(searched(zh49_core, query))
    monkeypatch.setattr(search, "WORDS_APART_TERMED", False)
    answer = searched(zh49_core, query)
    assert answer_works(answer) == []
    assert {s["relaxation_withheld"]["reason"] for s in answer["publishers"]} == {"words_apart"}
