"""Issue #15, forty-first session (subj41): an everyday word rare in law excused from the any-word
quorum's IDF share to a provision holding another of the question's everyday words (ADR 0128), on
the real fixture corpus (``LEX_FIXTURES``) where an index is read.

A plain-word question says « toucher la prime », « laisser », « fauteuil roulant » where the act says
« bénéficier de la prime », « maintenir », « aides techniques »: words common in general language
(``derive/index/everyday_words.json``, selected from wordfreq) and rare in the acts, so they carried the
IDF share the any-word quorum asks and kept out the act that holds the rest of the question.
"""

from __future__ import annotations

import json
import math
import sqlite3
from typing import Any

import pytest

from derive.index import everyday
from serve.core import LegalCore
from serve.core.ops import rare_body, search
from tests.index.pipeline import FixtureBuild

LU = "lu-legilux"
FOREST_PRIME = "lu-legilux:rgd-2021-04-16-a315"  # the prime for ecosystem services in forests


def _section(core: LegalCore, query: str, publisher: str = LU) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "limit": 10, "fuzzy": "off"})
    return next(dict(s) for s in answer["publishers"] if s["publisher"] == publisher)


def _works(core: LegalCore, query: str) -> list[str]:
    return [h["work"] for h in _section(core, query)["hits"]]


@pytest.mark.parametrize("word", ["fauteuil", "payant", "colis", "foret", "porteuse", "canada", "toucher"])
def test_an_everyday_word_rare_in_law_is_listed(word: str) -> None:
    assert everyday.is_everyday(word)


@pytest.mark.parametrize("word", ["titrisation", "usufruit", "reexamine", "article", "commission", "zzzz"])
def test_a_subject_word_or_a_common_legal_word_is_not(word: str) -> None:
    # « titrisation » and « usufruit » are rare in general language; « article » is in too many provisions
    assert not everyday.is_everyday(word)


def test_the_list_is_packed_four_bytes_a_word() -> None:
    text = everyday.EVERYDAY_PATH.read_text(encoding="utf-8")
    data = json.loads(text)
    keys = everyday.read_keys(text)
    assert keys.itemsize == 4 and list(keys) == sorted(everyday.word_key(w) for w in data["words"])
    assert len(set(keys)) >= len(keys) - 5  # CRC-32 collisions among the words: a handful at most
    assert data["source"]["package"] == "wordfreq" and data["licence"].startswith("CC-BY-SA-4.0")
    assert data["selection"]["max_docs"] == 100
    # the search's weight floor is about the same count in either full index (67,739 and 69,530 states)
    assert all(95 <= states / (math.exp(search.EVERYDAY_MIN_IDF) - 1) <= 110 for states in (67_739, 69_530))


def test_pivot_parts_restricts_only_groups_common_under_both_quorums() -> None:
    parts = ["a", "b", "c"]
    # under the plain quorum a and b are common; under the excused one only a is
    assert search.pivot_parts(parts, [1.0, 2.0, 9.0], 5.0) == ["(a) AND (c)", "(b) AND (c)", "c"]
    assert search.pivot_parts(parts, [1.0, 2.0, 9.0], 5.0, ([1.0, 2.0, 3.0], 2.5)) == ["(a) AND (b OR c)", "b", "c"]


def test_the_rule_is_on_the_default_path() -> None:
    assert search.EXCUSE_EVERYDAY is True


def test_a_plain_word_question_whose_everyday_words_kept_its_act_out_is_answered(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # the forest prime regulation's art. 6 holds « prime », « hectare », « arbres », « morts » (the last
    # two everyday words rare in law), not « toucher » (« bénéficier ») nor « laisser » (« maintenir »),
    # two everyday words that carried the IDF share. The fixture index holds 3,302 provision states: the
    # weight of a word 100 of them hold stands for the full index's floor (100 of 67,739)
    monkeypatch.setattr(search, "EVERYDAY_MIN_IDF", math.log(1 + 3302 / 100))
    query = "pour toucher la prime, combien d'arbres morts faut-il laisser par hectare dans mon bois"
    assert _works(fixture_core, query)[:1] == [FOREST_PRIME]
    monkeypatch.setattr(search, "EXCUSE_EVERYDAY", False)
    # (the empty answer's rare words in an act's provisions, ADR 0184, would take the question on their own)
    monkeypatch.setattr(rare_body, "RARE_BODY", False)
    assert _works(fixture_core, query) == []


def test_an_everyday_word_is_excused_only_beside_another(fixture_indexes: FixtureBuild,
                                                           fixture_core: LegalCore) -> None:
    # the Nouveau Code de procédure civile's seizure provisions hold « juge », « saisir », « débiteur »,
    # which without « chat » weigh the whole share; « chat » is the question's only everyday word, so no
    # provision holds another and it is not excused (readable negatives of the same shape: « congé de
    # maternité pour une mère porteuse », "who sets the salary of the Prime Minister of Canada")
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{LU}.sqlite")
    try:
        groups = [["juge"], ["saisir"], ["chat"], ["debiteur"]]
        assert search.everyday_words(groups, search.idf_weights(conn, groups)) == [False, False, True, False]
    finally:
        conn.close()
    assert _section(fixture_core, "le juge peut-il saisir le chat du débiteur")["hits"] == []


def test_everyday_words_flags_the_everyday_word_rare_in_the_searched_index(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{LU}.sqlite")
    try:
        groups = [["juge", "juges"], ["chat"], ["debiteur", "debiteurs"]]
        assert search.everyday_words(groups, search.idf_weights(conn, groups)) == [False, True, False]
        # a word too common in the searched index is not rare in law, whatever its list
        assert search.everyday_words(groups, [9.0, 0.5, 9.0]) is None
    finally:
        conn.close()


def test_the_partial_lane_does_not_excuse_everyday_words(fixture_core: LegalCore,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the partial lane (two of three words beside answered provisions, reason ``partial_terms``) keeps
    # the plain quorum: only the any-word relaxation, which runs when nothing else answered, excuses
    calls: list[bool] = []
    quorum_occurrences = search.quorum_occurrences

    def spy(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        calls.append(kwargs.get("excuse", True))
        return quorum_occurrences(*args, **kwargs)

    monkeypatch.setattr(search, "quorum_occurrences", spy)
    eu = _section(fixture_core, "notification supervisory authority", "eu-eurlex")
    assert ["partial_terms"] in [h["match_reasons"] for h in eu["hits"]]
    assert calls == [False]
