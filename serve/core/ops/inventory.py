"""Publisher-wide operations: ``in_force_on``, ``changes_in_period`` and ``coverage``.

Each runs on every mounted index (or the one named by ``publisher``) and answers with one
section per publisher; ``limit``/``offset`` page each publisher's list.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from typing import Any, NamedTuple

from derive.index.serving import coverage_counts

from legal.outcomes import Outcome
from serve.core.envelope import Answer, CallContext, answer, fanout, is_provisional
from serve.core.mount import MountedIndex
from serve.core.resolve import mounted_publisher
from serve.core.shapes import choose_expression, version_choice
from serve.core.store import Expression, Version, Work, expressions_for, versions_by_rowid, works_by_rowid

Section = Callable[[CallContext, MountedIndex, dict[str, Any]], Answer]


def over_publishers(ctx: CallContext, args: dict[str, Any], section: Section,
                    payload: dict[str, Any] | None = None) -> Answer:
    chosen = mounted_publisher(ctx, args.get("publisher"))
    if isinstance(chosen, dict):
        return chosen
    indexes = [chosen] if chosen is not None else ctx.ordered()
    return fanout(ctx, [section(ctx, index, args) for index in indexes], payload)


class _State(NamedTuple):
    """A live state as the period index (``serving_states``) holds it."""

    rowid: int
    work_rowid: int
    valid_from: str
    version_key: str
    expressions: str


def _covering(conn: sqlite3.Connection, day: str, document_type: str | None) -> list[_State]:
    query = ("SELECT version_rowid, work_rowid, valid_from, version_key, expressions FROM serving_states "
             "WHERE valid_from <= ? AND (end_exclusive IS NULL OR end_exclusive > ?)")
    params: list[Any] = [day, day]
    if document_type:
        query += " AND document_type = ?"
        params.append(document_type)
    cursor = conn.cursor()
    cursor.row_factory = None
    return list(map(_State._make, cursor.execute(query + " ORDER BY work_rowid, valid_from, version_key", params)))


def _winners(states: list[_State]) -> dict[int, list[_State]]:
    by_work: dict[int, list[_State]] = defaultdict(list)
    for v in states:
        by_work[v.work_rowid].append(v)
    out = {}
    for rowid, items in by_work.items():
        start = max(v.valid_from for v in items)
        out[rowid] = [v for v in items if v.valid_from == start]
    return out


def _languages(state: _State) -> set[str]:
    return {str(e[0]) for e in json.loads(state.expressions)}


def _in_force_entry(work: Work, version: Version, expressions: list[Expression], language: str | None) -> dict[str, Any]:
    entry = version_choice(work, version, expressions)
    entry["work"] = work.work_id
    expression = choose_expression(expressions, language, work.primary_language)
    entry["text_available"] = bool(expression and expression.has_text)
    return entry


def in_force_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    day, language = args["date"], args["language"]
    with index.session(ctx.deadline_seconds) as conn:
        winners = _winners(_covering(conn, day, args["document_type"]))
        if language:
            winners = {w: vs for w, vs in winners.items() if any(language in _languages(v) for v in vs)}
        slugs = index.catalogue.slug_of
        ordered = sorted(winners.items(), key=lambda kv: slugs[kv[0]])
        page = ordered[args["offset"]:args["offset"] + args["limit"]]
        works = works_by_rowid(conn, [w for w, _ in page])
        page_ids = [v.rowid for _, vs in page for v in vs]
        versions = versions_by_rowid(conn, page_ids)
        exprs = expressions_for(conn, page_ids)
    single, ambiguous = [], []
    for rowid, states in page:
        work = works[rowid]
        chosen = [versions[v.rowid] for v in states]
        if len(chosen) == 1:
            single.append(_in_force_entry(work, chosen[0], exprs.get(chosen[0].rowid, []), language))
        else:
            ambiguous.append({"work": work.work_id, "valid_from": chosen[0].valid_from,
                              "choices": [version_choice(work, v, exprs.get(v.rowid, [])) for v in chosen[:20]],
                              "choices_truncated": len(chosen) > 20})
    outcome = Outcome.SUCCEEDED if single else (Outcome.AMBIGUOUS_VERSION if ambiguous else Outcome.EMPTY)
    payload = {"date": day, "population": "versioned works held by this index (withdrawn states excluded)",
               "total_works_in_force": len(ordered), "offset": args["offset"], "limit": args["limit"],
               "truncated": len(ordered) > args["offset"] + len(page), "works": single, "ambiguous_works": ambiguous}
    return answer(ctx, index, outcome, payload, provisional=is_provisional(index, day))


def in_force_on(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, in_force_section, {"date": args["date"]})


class _WorkLine(NamedTuple):
    work_id: str
    title: str | None
    document_type: str | None
    primary_language: str | None


def _primary_digest(state: _State, primary: str | None) -> tuple[str | None, str | None]:
    """``choose_expression(…, None, primary)`` over the state's expression summary: its digest and
    profile when that expression holds text."""
    summary = json.loads(state.expressions)  # [[language, has_text, digest, profile], …]
    if not summary:
        return None, None
    chosen = min(summary, key=lambda e: (not e[1], e[0] != primary, e[0]))
    if not chosen[1]:
        return None, None
    return chosen[2], chosen[3]


def _distinct_texts(first: tuple[str | None, str | None], last: tuple[str | None, str | None]) -> tuple[int, bool]:
    if first[0] is None and last[0] is None:
        return 0, False
    if first[0] is None or last[0] is None:
        return 1, False
    return (1 if first[0] == last[0] else 2), first[1] == last[1]


def _change_entry(work: _WorkLine, in_window: list[_State], history: list[_State]) -> dict[str, Any]:
    first, last = in_window[0], in_window[-1]
    earlier = [v for v in history if v.valid_from < first.valid_from]
    baseline = earlier[-1] if earlier else None
    start_side = baseline or first
    distinct, comparable = _distinct_texts(_primary_digest(start_side, work.primary_language),
                                           _primary_digest(last, work.primary_language))
    return {
        "work": work.work_id, "title": work.title, "document_type": work.document_type,
        "versions_in_period": len(in_window), "versions_total": len(history),
        "first_change": first.valid_from, "last_change": last.valid_from,
        "baseline": baseline.valid_from if baseline else None,
        "distinct_texts": distinct, "wording_changed": distinct == 2, "text_comparable": comparable,
        "diff_from": start_side.version_key, "diff_to": last.version_key,
    }


def _order_key(order: str) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    if order == "by_churn":
        return lambda c: (-c["versions_in_period"], _neg(c["last_change"]), c["work"])
    return lambda c: (_neg(c["last_change"]), -c["versions_in_period"], c["work"])


def _neg(day: str) -> tuple[int, ...]:
    return tuple(-ord(ch) for ch in day)


def changes_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    start, stop = args["from_date"], args["to_date"]
    query = "SELECT DISTINCT work_rowid FROM serving_states WHERE valid_from BETWEEN ? AND ?"
    params: list[Any] = [start, stop]
    if args["document_type"]:
        query += " AND document_type = ?"
        params.append(args["document_type"])
    with index.session(ctx.deadline_seconds) as conn:
        cursor = conn.cursor()
        cursor.row_factory = None
        rowids = [int(r[0]) for r in cursor.execute(query + " ORDER BY work_rowid", params)]
        works: dict[int, _WorkLine] = {}
        history: dict[int, list[_State]] = defaultdict(list)
        for i in range(0, len(rowids), 500):
            chunk = rowids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for r in cursor.execute("SELECT work_rowid, work_id, title, document_type, primary_language FROM works "
                                    f"WHERE work_rowid IN ({marks})", chunk):
                works[r[0]] = _WorkLine(*r[1:])
            for r in cursor.execute("SELECT version_rowid, work_rowid, valid_from, version_key, expressions "
                                    f"FROM serving_states WHERE work_rowid IN ({marks}) "
                                    "ORDER BY work_rowid, valid_from, version_key", chunk):
                history[r[1]].append(_State._make(r))
    changes = []
    for w in rowids:
        window = [v for v in history[w] if start <= v.valid_from <= stop]
        changes.append(_change_entry(works[w], window, history[w]))
    changes.sort(key=_order_key(args["order"]))
    page = changes[args["offset"]:args["offset"] + args["limit"]]
    for rank, entry in enumerate(page, args["offset"] + 1):
        entry["rank"] = rank
    payload = {"window": {"from": start, "to": stop}, "order": args["order"], "works_changed": len(changes),
               "new_versions": sum(c["versions_in_period"] for c in changes), "offset": args["offset"],
               "limit": args["limit"], "truncated": len(changes) > args["offset"] + len(page), "changes": page}
    outcome = Outcome.SUCCEEDED if changes else Outcome.NO_CHANGES_IN_PERIOD
    return answer(ctx, index, outcome, payload, provisional=is_provisional(index, stop))


def changes_in_period(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, changes_section, {"window": {"from": args["from_date"], "to": args["to_date"]}})


def _coverage_counts(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts precomputed at build time (``serving_coverage``, :func:`derive.index.serving.coverage_counts`)."""
    row = conn.execute("SELECT v FROM serving_coverage WHERE k = 'counts'").fetchone()
    counts: dict[str, Any] = json.loads(row[0]) if row else coverage_counts(conn)
    counts["future_versions"] = 0
    return counts


def coverage_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    with index.session(ctx.deadline_seconds) as conn:
        counts = _coverage_counts(conn)
        counts["future_versions"] = conn.execute(
            "SELECT COUNT(*) FROM serving_states WHERE valid_from > ?", (index.built_date,)).fetchone()[0]
    stamp = index.stamp
    payload = {
        **counts,
        "valid_from_earliest": stamp.get("valid_from_earliest"), "valid_from_latest": stamp.get("valid_from_latest"),
        "history_begins": stamp.get("history_begins"), "built_at": stamp.get("built_at"),
        "excluded_empty_provisions": int(stamp.get("excluded_empty_provisions", "0")),
        "note": "Counts exclude withdrawn states. A version without text is held as metadata: answers about it "
                "say text_not_available rather than borrowing text from another date.",
    }
    return answer(ctx, index, Outcome.SUCCEEDED, payload)


def coverage(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, coverage_section)
