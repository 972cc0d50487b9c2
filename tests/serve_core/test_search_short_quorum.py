"""A quorum whose ranked window is short of its ``LIMIT`` answers from that window alone
(:func:`serve.core.ops.search.quorum_occurrences`, ADR 0185): the window is then every state of the
quorum, so the filtered join over the whole quorum, which it no longer runs, gives the same rows —
under every filter, on the real fixture indexes."""

from __future__ import annotations

import sqlite3
import sys
from typing import Any

import pytest

from serve.core.ops import search
from serve.core.ops.search import Filters, quorum_occurrences
from tests.index.pipeline import FixtureBuild
from tests.serve_core.test_search_newest import _connect  # the same fixture connection

QUORUMS = (["article", "commission"], ["loi", "taxe", "conseil"], ["directive", "member", "règlement"],
           ["tax", "taxe", "steuer"])
FILTERS = (Filters(), Filters(as_of="2010-01-01"), Filters(document_type="loi"), Filters(language="fr"),
           Filters(language="en"))


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_a_short_quorum_window_gives_the_rows_of_the_whole_quorum(fixture_indexes: FixtureBuild, name: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    conn = _connect(fixture_indexes, name)
    real_window, real_occurrences = search.window_occurrences, search.occurrences
    seen: dict[str, Any] = {}
    fallbacks: list[str] = []

    def window_spy(c: sqlite3.Connection, window: list[tuple[int, float]], filters: Filters,
                   limit: int) -> list[dict[str, Any]]:
        caller = sys._getframe(1).f_locals
        seen.update(window=window, first=caller["first"], ranked=caller["ranked"], params=caller["params"])
        return real_window(c, window, filters, limit)

    def occurrences_spy(c: sqlite3.Connection, source: str, params: list[Any], filters: Filters,
                        limit: int) -> list[dict[str, Any]]:
        if sys._getframe(1).f_code.co_name == "quorum_occurrences":
            fallbacks.append(source)
        return real_occurrences(c, source, params, filters, limit)

    monkeypatch.setattr(search, "window_occurrences", window_spy)
    monkeypatch.setattr(search, "occurrences", occurrences_spy)
    short = found = 0
    for words in QUORUMS:
        groups = [[w] for w in words]
        for filters in FILTERS:
            for limit in (1, 10, 60, 200):
                seen.clear()
                fallbacks.clear()
                rows = quorum_occurrences(conn, groups, 2, filters, limit)
                if not seen:
                    continue  # no group the index can match
                # the whole quorum filtered and ranked by SQL: the statement a short window replaces
                whole = real_occurrences(conn, f"({seen['ranked']})", seen["params"], filters, limit)
                assert rows == whole
                if len(seen["window"]) < seen["first"]:
                    short += 1
                    assert not fallbacks
                found += len(rows)
    assert short and found
