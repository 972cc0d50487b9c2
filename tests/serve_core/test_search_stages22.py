"""Issue #14, search p95 on the full corpora (ADR 0033): work a search no longer repeats, the same
answers.

- A later stage (stems, then relaxation) answers a publisher's section of the earlier stage when the
  lanes reached no branch that stage decides (:attr:`serve.core.ops.search.Lexical.gates`): every
  answer is the one searching each stage afresh gave.
- :func:`serve.core.ops.search.best_label` picks the label splitting every label picked.
- :func:`serve.core.topk.match_count` remembers the counts :func:`serve.core.topk._count` walks.

On the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search as search_op
from serve.core.topk import RankedCache, _count, _walked_count, match_count

QUESTIONS = ["protection des consommateurs", "protectoin des consomateurs", "insolvabilité", "organisateur",
             "consumer credit", "the the", "article 5", "verbraucherschutz", "Verordnung", "liste intéressés",
             "salaire social minimum", "cassant cranberry", "pour", "directive", "règlement grand-ducal",
             "marchés publics données"]
VARIANTS: list[dict[str, Any]] = [{}, {"result_grain": "provisions"}, {"relax": "off"}, {"fuzzy": "off"},
                                  {"as_of": "2020-01-01"}]


def _answers(core: LegalCore) -> list[str]:
    out = []
    for question in QUESTIONS:
        for variant in VARIANTS:
            answer = core.call("search", {"query": question, **variant})
            out.append(json.dumps({k: v for k, v in answer.items() if k != "artifact"}, ensure_ascii=False))
    return out


def test_a_section_kept_across_stages_is_the_one_searched_again(fixture_core: LegalCore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    section = search_op.search_section
    calls: list[tuple[bool, bool]] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append((kwargs.get("stem", False), kwargs.get("relaxed", False)))
        return section(*args, **kwargs)

    monkeypatch.setattr(search_op, "search_section", counted)
    kept = _answers(fixture_core)
    kept_calls = list(calls)

    def staged(*args: Any, **kwargs: Any) -> Any:  # as if every stage decided something: none kept
        kwargs["gates"].add("every stage")
        return counted(*args, **kwargs)

    monkeypatch.setattr(search_op, "search_section", staged)
    calls.clear()
    assert _answers(fixture_core) == kept
    # the later stages searched fewer sections, and some later stage still searched its own
    assert len(kept_calls) < len(calls), (len(kept_calls), len(calls))
    assert any(stem for stem, _ in kept_calls)


def test_gates_note_only_what_was_reached() -> None:
    found = search_op.Lexical([])
    assert found.gate("stem", False) is False and not found.gates
    assert found.gate("stem", True) is True and found.gate("relax", True) is True
    assert found.gates == {"stem", "relax"}


def _best_label_by_splitting(labels: list[tuple[str, ...]], tokens: list[str]) -> tuple[int | None, int]:
    best, best_overlap = None, -1
    for i, label in enumerate(labels):
        words = set(label[-1].split())
        overlap = sum(1 for t in tokens if t in words)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
    return best, best_overlap


def test_best_label_is_the_label_splitting_every_label_picks() -> None:
    rng = random.Random(14)
    vocabulary = ["droit", "droits", "travail", "travailleur", "marche", "marches", "public", "publics", "eau"]
    for _ in range(3000):
        labels = [("eurovoc", str(i), "label", "fr", " ".join(rng.choices(vocabulary, k=rng.randrange(0, 5))))
                  for i in range(rng.randrange(0, 8))]
        tokens = rng.sample(vocabulary, rng.randrange(1, 4)) + (["droit"] if rng.random() < 0.2 else [])
        assert search_op.best_label(labels, tokens) == _best_label_by_splitting(labels, tokens), (labels, tokens)
    # a substring is not a word: "marche" is in "marches" and no label holds it as a word
    assert search_op.best_label([("k", "1", "l", "", "eau"), ("k", "2", "l", "", "marches")], ["marche"]) == (0, 0)
    assert search_op.best_label([], ["eau"]) == (None, -1)


def test_walked_counts_answer_as_walking_again() -> None:
    for total in range(0, 12):
        for reach in range(0, 12):
            walked = (min(total, reach + 1), reach)
            for cap in range(0, 12):
                told = _walked_count(walked, cap)
                assert told is None or told == min(total, cap + 1), (total, reach, cap)
                assert told is not None or cap > reach  # a walk as far as asked always answers


def test_match_counts_are_remembered_per_index(fixture_core: LegalCore) -> None:
    index = fixture_core._indexes["lu-legilux"]
    index.ranked_cache.clear()
    matches = ['"loi"', '"article"', '"consommateur"', '"loi" AND "article"', '"nosuchword"']
    with index.session(60.0) as conn:
        assert isinstance(conn.ranked_cache, RankedCache)
        for cap in (5, 240, 1, 60, 10_000, 3):
            for match in matches:
                assert match_count(conn, match, cap) == _count(conn, match, cap), (match, cap)
        assert conn.ranked_cache.counted('"loi"', 3) == _count(conn, '"loi"', 3)
        conn.ranked_cache.clear()
        assert conn.ranked_cache.counted('"loi"', 3) is None
