"""Issue #14 (diff CPU): the diff's reads, the same values by cheaper paths — provision keys read
from ``provision_rows`` joined to their lexical states (not the ``provisions`` view's correlated
subquery per row), stored word diffs matched as stored bytes, and a text cut from a block the diff
read before. On the real fixture indexes (``LEX_FIXTURES``); the old paths are the reference."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from derive.index import textstore
from derive.index.serving import StoredPair, stored_pairs
from serve.core.store import ProvisionKey, provision_keys
from tests.index.pipeline import FixtureBuild
from tests.serve_core.test_search_newest import _connect

NAMES = ["eu-eurlex.sqlite", "lu-legilux.sqlite"]


def _view_keys(conn: sqlite3.Connection, expression: int, anchors: list[str] | None = None) -> list[ProvisionKey]:
    query = "SELECT anchor, text_sha256, num, heading FROM provisions WHERE expression_rowid = ?"
    params: list[Any] = [expression]
    if anchors is not None:
        query += f" AND anchor IN ({','.join('?' * len(anchors))})"
        params.extend(anchors)
    return [ProvisionKey(*r) for r in conn.execute(query + " ORDER BY seq", params)]


@pytest.mark.parametrize("name", NAMES)
def test_provision_keys_are_the_views(fixture_indexes: FixtureBuild, name: str) -> None:
    conn = _connect(fixture_indexes, name)
    expressions = [int(r[0]) for r in conn.execute("SELECT expression_rowid FROM expressions ORDER BY 1")]
    assert expressions
    compared = 0
    for expression in expressions:
        whole = _view_keys(conn, expression)
        assert provision_keys(conn, expression) == whole
        anchors = [*[k.anchor for k in whole[::3]][:5], "no_such_anchor"]
        assert provision_keys(conn, expression, anchors) == _view_keys(conn, expression, anchors)
        assert provision_keys(conn, expression, []) == []
        compared += len(whole)
    assert compared > 100


def _reference_pairs(conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], StoredPair]:
    """The rows as the pairs' hex strings found them before (every row of each from-text, read as hex)."""
    out: dict[tuple[str, str], StoredPair] = {}
    wanted = {(b, a) for b, a in pairs if textstore.key(b) is not None and textstore.key(a) is not None}
    for f, t, encoding, body in conn.execute("SELECT from_sha256, to_sha256, encoding, body FROM word_diffs"):
        pair = (bytes(f).hex(), bytes(t).hex())
        if pair in wanted:
            out[pair] = StoredPair(str(encoding), bytes(body))
    return out


@pytest.mark.parametrize("name", NAMES)
def test_stored_pairs_match_as_stored(fixture_indexes: FixtureBuild, name: str) -> None:
    conn = _connect(fixture_indexes, name)
    rows = [(bytes(f).hex(), bytes(t).hex()) for f, t in conn.execute("SELECT from_sha256, to_sha256 FROM word_diffs")]
    assert rows
    crossed = [(rows[i][0], rows[-1 - i][1]) for i in range(len(rows))]  # mostly not stored
    asked = [*rows, *crossed, (rows[0][0], "not a hash"), ("0" * 64, rows[0][1]), (rows[0][0].upper(), rows[0][1])]
    assert stored_pairs(conn, [(rows[0][0].upper(), rows[0][1])]) == {}  # as before: asked in capitals, none
    for chunk in (asked, asked[:1], asked[:300], asked[::-1]):
        assert stored_pairs(conn, chunk) == _reference_pairs(conn, chunk)
    assert len(stored_pairs(conn, rows)) == len(set(rows))
