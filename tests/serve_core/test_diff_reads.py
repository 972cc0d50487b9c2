"""Issue #14 (diff CPU): the diff's reads, the same values by cheaper paths — provision keys read
from ``provision_rows`` joined to their lexical states (since format 9 through the ``provisions`` view,
whose hash and type, number and heading come from that join), stored word diffs matched as stored
bytes, and a text cut from a block the diff read before. On the real fixture indexes (``LEX_FIXTURES``);
the old paths are the reference."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from derive.index import textstore
from derive.index.serving import StoredPair, stored_pairs
from serve.core import LegalCore
from serve.core.ops import diff as diff_op
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


def _diff_calls(core: LegalCore) -> list[dict[str, Any]]:
    """Diffs between far-apart and consecutive states of the fixture works with most states."""
    calls: list[dict[str, Any]] = []
    for name in ("eu-eurlex", "lu-legilux"):
        with core.indexes[name].session(10.0) as conn:
            rows = conn.execute(
                "SELECT w.work_id, v.valid_from FROM versions v JOIN works w USING (work_rowid) "
                "JOIN expressions e USING (version_rowid) WHERE v.withdrawn = 0 AND e.language = w.primary_language "
                "AND e.text_state = 'provisions' ORDER BY w.work_id, v.valid_from").fetchall()
        by_work: dict[str, list[str]] = {}
        for work, start in rows:
            by_work.setdefault(str(work), []).append(str(start))
        for work, starts in sorted(by_work.items(), key=lambda kv: -len(kv[1]))[:6]:
            if len(starts) > 1:
                calls.append({"work": work, "from_date": starts[0], "to_date": starts[-1], "limit": 2000})
                calls.append({"work": work, "from_date": starts[-2], "to_date": starts[-1]})
    return calls


@pytest.mark.parametrize(("words", "matches"), [(0, 0), (40, 400), (400, 4_000), (None, None)])
def test_remembered_pairs_change_no_answer(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch,
                                           words: int | None, matches: int | None) -> None:
    """What an answer remembers of its pairs (stored changes, a computed pair's cost or the bounds
    that elided it, its changes) gives the next answers what working them out again gives, under
    any budget, and spares their reads."""
    calls = _diff_calls(fixture_core)
    assert calls
    monkeypatch.setattr(diff_op, "PAIRS", diff_op.PairCache(0))  # nothing remembered: the reference
    fresh = [fixture_core.call("diff", args) for args in calls]
    assert any(a.get("diff_truncated") for a in fresh) or words is None
    remembered = diff_op.PairCache(64 << 20)
    monkeypatch.setattr(diff_op, "PAIRS", remembered)
    for args in calls:  # remembered under the default budgets
        fixture_core.call("diff", args)
    if words is not None:
        monkeypatch.setattr(diff_op, "WORD_BUDGET", words)
        monkeypatch.setattr(diff_op, "MATCH_BUDGET", matches)
        monkeypatch.setattr(diff_op, "PAIRS", diff_op.PairCache(0))
        fresh = [fixture_core.call("diff", args) for args in calls]
        monkeypatch.setattr(diff_op, "PAIRS", remembered)
    read: list[int] = []
    real = textstore.read_located

    def counting(conn: Any, located: dict[str, Any], raws: dict[int, bytes] | None = None) -> dict[str, str]:
        read.append(len(located))
        return real(conn, located, raws)

    monkeypatch.setattr(diff_op, "read_located", counting)
    again = [fixture_core.call("diff", args) for args in calls]
    assert again == fresh
    warm = sum(read)
    monkeypatch.setattr(diff_op, "PAIRS", diff_op.PairCache(0))
    read[:] = []
    assert [fixture_core.call("diff", args) for args in calls] == fresh
    # every stored pair is read without its texts (format 8): the reads spared are the computed pairs'
    assert warm < sum(read) if words is None else warm <= sum(read)


def test_a_pair_cache_keeps_to_its_bytes() -> None:
    cache = diff_op.PairCache(10_000)
    known = diff_op.KnownPair(False, None, None, b"x" * 500)
    for i in range(100):
        cache.put(("file", str(i), "b"), known)
    assert cache.get(("file", "0", "b")) is None and cache.get(("file", "99", "b")) == known
    assert 0 < sum(1 for i in range(100) if cache.get(("file", str(i), "b"))) <= 10_000 // known.size
    cache.put(("file", "big", "b"), diff_op.KnownPair(True, None, None, b"x" * 5_000))  # over an eighth: not kept
    assert cache.get(("file", "big", "b")) is None


def _reference_lru(capacity: int, steps: list[tuple[str, list[Any]]]) -> tuple[list[Any], list[Any]]:
    """What one get or put at a time leaves (the keys, least recently used first) and finds."""
    from collections import OrderedDict

    held: OrderedDict[Any, diff_op.KnownPair] = OrderedDict()
    found: list[Any] = []
    for kind, items in steps:
        for item in items:
            if kind == "get":
                if item in held:
                    held.move_to_end(item)
                    found.append((item, held[item]))
                continue
            key, known = item
            if known.size > capacity // 8:
                continue
            held.pop(key, None)
            held[key] = known
            while sum(k.size for k in held.values()) > capacity and held:
                held.popitem(last=False)
    return list(held), found


def test_a_pair_cache_batch_is_one_call_after_another() -> None:
    """``get_many`` / ``put_many`` (one lock an answer) keep and find what a ``get`` / ``put`` per
    pair would, in the same order: a key asked or put twice, sizes past the capacity, a pair too
    large to keep."""
    import random

    rng = random.Random(7)
    capacity = 8_000
    steps: list[tuple[str, list[Any]]] = []
    for _ in range(300):
        keys = [("file", str(rng.randrange(40)), "b") for _ in range(rng.randrange(6))]
        if rng.random() < 0.5:
            steps.append(("get", keys))
        else:
            steps.append(("put", [(k, diff_op.KnownPair(False, None, None, b"x" * rng.choice([0, 100, 900, 1_200])))
                                  for k in keys]))
    cache = diff_op.PairCache(capacity)
    found: list[Any] = []
    for kind, items in steps:
        if kind == "get":
            got = cache.get_many(items)
            found += [(k, got[k]) for k in items if k in got]
        else:
            cache.put_many(items)
    keys, reference_found = _reference_lru(capacity, steps)
    assert list(cache._pairs) == keys and len(keys) > 3
    assert found == reference_found and len(found) > 20
    assert cache._size == sum(k.size for k in cache._pairs.values()) <= capacity
