"""Issue #13 (the one-change build's margin): the release gate's searches cut no snippet
(:func:`serve.core.ops.search.without_snippets`); every judged case of the fixture judgments
answers the same hits, in the same order, with the same fields but ``snippet``, as a served
search. On the real fixture indexes (``LEX_FIXTURES``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipelines import release_stage
from pipelines.settings import LexSettings
from release.benchmark import load_judgments
from release.benchmark.runner import search_args
from serve.core import LegalCore
from serve.core.ops import search

JUDGMENTS = Path(__file__).resolve().parents[2] / "evals" / "retrieval_judgments.json"


def _without(value: Any, key: str = "snippet") -> Any:
    """``value`` with every ``key`` member left out, at any depth (a hit's nested provisions too)."""
    if isinstance(value, dict):
        return {k: _without(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [_without(v, key) for v in value]
    return value


def _snippets(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [value.get("snippet"), *(s for v in value.values() for s in _snippets(v))]
    if isinstance(value, list):
        return [s for v in value for s in _snippets(v)]
    return []


def test_the_judged_cases_answer_the_same_hits_without_snippets(fixture_core: LegalCore) -> None:
    cases = load_judgments(JUDGMENTS).cases
    assert len(cases) >= 20
    differing = 0
    for case in cases:
        args = search_args(case)
        served = json.loads(json.dumps(fixture_core.call("search", args), default=str))
        with search.without_snippets():
            gated = json.loads(json.dumps(fixture_core.call("search", args), default=str))
        assert _without(gated) == _without(served), case.id
        differing += _snippets(gated) != _snippets(served)
    # the snippets the served search cuts from stored texts are not cut (each hit keeps its fallback)
    assert differing >= 10


def test_no_snippet_is_cut_inside_the_block_and_every_one_after_it(fixture_core: LegalCore,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    cut: list[int] = []
    real = search.cut_later

    def counting(deadline_seconds: float, pending: Any) -> None:
        cut.append(len(pending))
        real(deadline_seconds, pending)

    monkeypatch.setattr(search, "cut_later", counting)
    args = {"query": "protection des données personnelles", "limit": 10}
    with search.without_snippets():
        fixture_core.call("search", args)
    assert cut == []
    fixture_core.call("search", args)
    assert cut and any(cut)


def test_the_release_gate_searches_without_snippets(fixture_core: LegalCore, fixture_indexes: Any,
                                                   tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """:func:`pipelines.release_stage.benchmark` runs its cases inside :func:`without_snippets`."""
    import release.assemble
    import release.benchmark

    seen: list[bool] = []

    def scoring(core: LegalCore, *_args: Any, **_kwargs: Any) -> tuple[dict[str, Any], None]:
        seen.append(search._SNIPPETS.get())
        core.call("search", {"query": "protection des données personnelles", "limit": 10})
        return {}, None

    monkeypatch.setattr(release.benchmark, "retrieval_benchmark", scoring)
    monkeypatch.setattr(release.assemble, "add_report", lambda *_args, **_kwargs: None)
    staging = tmp_path / "staging"
    staging.mkdir()
    (staging / release.assemble.INDEXES_DIR).symlink_to(fixture_indexes.index_dir)
    lex = LexSettings(workdir=str(tmp_path / "work"), source="published", judgments=str(JUDGMENTS))
    release_stage.benchmark(lex, staging, None, "2026-12-01T00:00:00Z")
    assert seen == [False]
    assert search._SNIPPETS.get()  # restored after the gate
