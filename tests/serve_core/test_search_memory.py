"""Issue #15, fourth pass: a repeated question costs less and answers the same — every ranked match
and every snippet remembered per mounted index, bounded and packed. On the real fixture corpus
(``LEX_FIXTURES``)."""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search as search_op
from serve.core.topk import RankedCache

QUERIES = ("protection des consommateurs", "organisation judiciaire", "personal data processing")


def test_a_repeated_search_reads_no_text_and_ranks_nothing_again(fixture_core: LegalCore,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for index in fixture_core.indexes.values():
        index.ranked_cache.clear()
    first = [fixture_core.call("search", {"query": q, "fuzzy": "off"}) for q in QUERIES]
    read: list[Any] = []
    real_heads, real_rows = search_op.text_heads, search_op.ranked_rows
    monkeypatch.setattr(search_op, "text_heads",
                        lambda conn, shas, *chars: read.extend(shas) or real_heads(conn, shas, *chars))
    ranked: list[str] = []

    def rows(conn: Any, match: str, bm25: str, window: int) -> list[tuple[int, float]]:
        cache = conn.ranked_cache
        if cache.get((match, window)) is None:
            ranked.append(match)
        return real_rows(conn, match, bm25, window)

    monkeypatch.setattr(search_op, "ranked_rows", rows)
    again = [fixture_core.call("search", {"query": q, "fuzzy": "off"}) for q in QUERIES]
    assert again == first
    assert read == [] and ranked == []
    # forgetting the index's memory (as the benchmark's cold searches do) reads and ranks again
    for index in fixture_core.indexes.values():
        index.ranked_cache.clear()
    assert [fixture_core.call("search", {"query": q, "fuzzy": "off"}) for q in QUERIES] == first
    assert read and ranked


def test_the_memory_is_bounded_and_packed() -> None:
    cache = RankedCache(entries=2)
    rows = [(7, -1.5), (9, -0.25)]
    cache.put(("a", 10), rows)
    assert cache.get(("a", 10)) == rows
    cache.put(("b", 10), rows)
    cache.put(("c", 10), rows)
    assert cache.get(("a", 10)) is None and cache.get(("c", 10)) == rows
    cache.put_snippet(("sha", ("word",)), "… a snippet …")
    assert cache.snippet(("sha", ("word",))) == "… a snippet …"
    cache.clear()
    assert cache.snippet(("sha", ("word",))) is None and cache.get(("c", 10)) is None
