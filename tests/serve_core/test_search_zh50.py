"""Issue #15, fiftieth session (zh50): a positive question answered with nothing whose act the reviewed act terms firmly
say, beside words the law says often, on the real fixture corpus (``LEX_FIXTURES``; ADR 0170).

An answer the keywords left empty took the act its terms firmly cover only when they cover at least
:data:`serve.core.ops.search.EMPTY_COVERAGE` of the question (ADR 0152). The act is now also taken when they cover at
least :data:`serve.core.ops.search.FRAME_COVERAGE` and every word they leave out is a frame word: a word some searched
index holds in many provisions (IDF below :data:`serve.core.ops.search.FRAME_MAX_IDF`), a translated word weighed in its
translations, never a foreign place (:func:`serve.core.ops.search.framed_subject`). A word left out that the law says
rarely or never is what the question is about: the answer stays empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search
from serve.core.searchplan import Plan
from tests.index.pipeline import FixtureBuild
from tests.serve_core.term_matches import answer_works, filler_terms, mounted_with_terms, searched

CONSUMER = "lu-legilux:loi-2011-04-08-n2"
#: Test terms: the consumer code's term of three words no text holds; other held acts given terms of made-up words no
#: question says, so that the terms weigh a word as the full build's thousands of acts do.
TERMS = [
    {"work": CONSUMER, "fr": ["zorblax widget quuxor"]},
    *filler_terms(),
]
#: Three words the terms say and a frame word every fixture index holds in many provisions: the terms cover 0.38.
FRAMED = "zorblax widget quuxor procédure"


@pytest.fixture(scope="module")
def zh50_core(fixture_indexes: FixtureBuild, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LegalCore]:
    with mounted_with_terms(fixture_indexes, tmp_path_factory, TERMS, "zh50") as core:
        yield core


def _plan(terms: list[str], synonyms: dict[str, list[str]], translations: dict[str, Any] | None) -> Plan:
    return Plan(terms, None, None, [], [], False, synonyms=synonyms, translations=translations)


def test_the_rule_is_on_the_default_path() -> None:
    assert search.FRAME_WORDS is True and search.FRAME_TRANSLATED is True
    assert search.FRAME_COVERAGE == search.EMPTY_COVERAGE / 2 and search.FRAME_MAX_IDF == search.EVERYDAY_MIN_IDF


def test_a_frame_word_is_common_in_some_index_and_no_foreign_place() -> None:
    assert search.frame_word("give", [9.0, 3.9])  # rare in one index, common in the other
    assert not search.frame_word("licornes", [])  # held by no index
    assert not search.frame_word("submarine", [9.1])  # held by few provisions
    assert not search.frame_word("bruxelles", [5.2])  # a foreign place is what the question is about
    assert not search.frame_word("give", [search.FRAME_MAX_IDF])  # the bound is strict


def test_the_alternatives_are_a_translated_plans_single_words() -> None:
    plan = _plan(["rechte", "kaufers"], {"rechte": ["droit"], "straße": ["route", "voie publique"]}, {"language": "de"})
    assert search.frame_alternatives(plan, ["rechte", "strasse", "ware"]) == {"rechte": ["droit"], "strasse": ["route"]}
    plain = _plan(["rechte"], {"rechte": ["droit"]}, None)  # same-language synonyms: no translation
    assert search.frame_alternatives(plain, ["rechte"]) == {}


def test_the_alternatives_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FRAME_TRANSLATED", False)
    plan = _plan(["rechte"], {"rechte": ["droit"]}, {"language": "de"})
    assert search.frame_alternatives(plan, ["rechte"]) == {}


def test_an_act_the_terms_say_beside_frame_words_answers(zh50_core: LegalCore) -> None:
    answer = searched(zh50_core, FRAMED)
    assert answer_works(answer) == [CONSUMER]
    hit = next(h for s in answer["publishers"] for h in s.get("hits") or [])
    assert "act_term" in hit["match_reasons"] and hit["matched_act_terms"] == ["zorblax widget quuxor"]


def test_without_the_rule_the_answer_stays_empty(zh50_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "FRAME_WORDS", False)
    monkeypatch.setattr(search, "EMPTY_LEAD", False)  # conlu50's clear lead would take the act on its own
    assert answer_works(searched(zh50_core, FRAMED)) == []


def test_a_word_the_law_never_says_keeps_the_answer_empty(zh50_core: LegalCore) -> None:
    # « licornes » is held by no fixture text: the question is about it, and the terms leave it out
    assert answer_works(searched(zh50_core, "zorblax widget quuxor licornes")) == []
