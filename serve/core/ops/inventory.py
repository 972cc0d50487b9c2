"""Publisher-wide operations: ``in_force_on``, ``changes_in_period`` and ``coverage``.

Each runs on every mounted index (or the one named by ``publisher``) and answers with one
section per publisher; ``limit``/``offset`` page each publisher's list.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from legal.outcomes import Outcome
from serve.core.envelope import Answer, CallContext, answer, fanout, is_provisional
from serve.core.mount import MountedIndex
from serve.core.resolve import mounted_publisher
from serve.core.shapes import choose_expression, version_choice
from serve.core.store import Expression, Version, Work, expressions_for, works_by_rowid

Section = Callable[[CallContext, MountedIndex, dict[str, Any]], Answer]


def over_publishers(ctx: CallContext, args: dict[str, Any], section: Section,
                    payload: dict[str, Any] | None = None) -> Answer:
    chosen = mounted_publisher(ctx, args.get("publisher"))
    if isinstance(chosen, dict):
        return chosen
    indexes = [chosen] if chosen is not None else ctx.ordered()
    return fanout(ctx, [section(ctx, index, args) for index in indexes], payload)


def _covering(conn: sqlite3.Connection, day: str, document_type: str | None) -> list[Version]:
    query = ("SELECT * FROM versions WHERE withdrawn = 0 AND valid_from <= ? "
             "AND (end_exclusive IS NULL OR end_exclusive > ?)")
    params: list[Any] = [day, day]
    if document_type:
        query += " AND document_type = ?"
        params.append(document_type)
    return [Version.of(r) for r in conn.execute(query + " ORDER BY work_rowid, valid_from, version_key", params)]


def _winners(versions: list[Version]) -> dict[int, list[Version]]:
    by_work: dict[int, list[Version]] = defaultdict(list)
    for v in versions:
        by_work[v.work_rowid].append(v)
    out = {}
    for rowid, items in by_work.items():
        start = max(v.valid_from for v in items)
        out[rowid] = [v for v in items if v.valid_from == start]
    return out


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
            exprs = expressions_for(conn, [v.rowid for vs in winners.values() for v in vs])
            winners = {w: vs for w, vs in winners.items()
                       if any(e.language == language for v in vs for e in exprs.get(v.rowid, []))}
        slugs = index.catalogue.slug_of
        ordered = sorted(winners.items(), key=lambda kv: slugs[kv[0]])
        page = ordered[args["offset"]:args["offset"] + args["limit"]]
        works = works_by_rowid(conn, [w for w, _ in page])
        if not language:
            exprs = expressions_for(conn, [v.rowid for _, vs in page for v in vs])
    single, ambiguous = [], []
    for rowid, versions in page:
        work = works[rowid]
        if len(versions) == 1:
            single.append(_in_force_entry(work, versions[0], exprs.get(versions[0].rowid, []), language))
        else:
            ambiguous.append({"work": work.work_id, "valid_from": versions[0].valid_from,
                              "choices": [version_choice(work, v, exprs.get(v.rowid, [])) for v in versions[:20]],
                              "choices_truncated": len(versions) > 20})
    outcome = Outcome.SUCCEEDED if single else (Outcome.AMBIGUOUS_VERSION if ambiguous else Outcome.EMPTY)
    payload = {"date": day, "population": "versioned works held by this index (withdrawn states excluded)",
               "total_works_in_force": len(ordered), "offset": args["offset"], "limit": args["limit"],
               "truncated": len(ordered) > args["offset"] + len(page), "works": single, "ambiguous_works": ambiguous}
    return answer(ctx, index, outcome, payload, provisional=is_provisional(index, day))


def in_force_on(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, in_force_section, {"date": args["date"]})


def _primary_digest(exprs: list[Expression], primary: str | None) -> tuple[str | None, str | None]:
    chosen = choose_expression(exprs, None, primary)
    if chosen is None or not chosen.has_text:
        return None, None
    return chosen.provisions_digest, chosen.profile


def _distinct_texts(first: tuple[str | None, str | None], last: tuple[str | None, str | None]) -> tuple[int, bool]:
    if first[0] is None and last[0] is None:
        return 0, False
    if first[0] is None or last[0] is None:
        return 1, False
    return (1 if first[0] == last[0] else 2), first[1] == last[1]


def _change_entry(work: Work, in_window: list[Version], history: list[Version],
                  exprs: dict[int, list[Expression]]) -> dict[str, Any]:
    first, last = in_window[0], in_window[-1]
    earlier = [v for v in history if v.valid_from < first.valid_from]
    baseline = earlier[-1] if earlier else None
    start_side = baseline or first
    distinct, comparable = _distinct_texts(_primary_digest(exprs.get(start_side.rowid, []), work.primary_language),
                                           _primary_digest(exprs.get(last.rowid, []), work.primary_language))
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
    query = "SELECT DISTINCT work_rowid FROM versions WHERE withdrawn = 0 AND valid_from BETWEEN ? AND ?"
    params: list[Any] = [start, stop]
    if args["document_type"]:
        query += " AND document_type = ?"
        params.append(args["document_type"])
    with index.session(ctx.deadline_seconds) as conn:
        rowids = [int(r[0]) for r in conn.execute(query, params)]
        works = works_by_rowid(conn, rowids)
        history: dict[int, list[Version]] = defaultdict(list)
        for i in range(0, len(rowids), 500):
            chunk = rowids[i:i + 500]
            sql = (f"SELECT * FROM versions WHERE withdrawn = 0 AND work_rowid IN ({','.join('?' * len(chunk))}) "
                   "ORDER BY work_rowid, valid_from, version_key")
            for r in conn.execute(sql, chunk):
                history[r["work_rowid"]].append(Version.of(r))
        windows = {w: [v for v in vs if start <= v.valid_from <= stop] for w, vs in history.items()}
        needed = set()
        for w, vs in windows.items():
            earlier = [v for v in history[w] if v.valid_from < vs[0].valid_from]
            needed.update({(earlier[-1] if earlier else vs[0]).rowid, vs[-1].rowid})
        exprs = expressions_for(conn, needed)
    changes = sorted((_change_entry(works[w], windows[w], history[w], exprs) for w in rowids), key=_order_key(args["order"]))
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
    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    live = "FROM expressions e JOIN versions v USING (version_rowid) WHERE v.withdrawn = 0"
    states = {r[0]: r[1] for r in conn.execute(f"SELECT e.text_state, COUNT(*) {live} GROUP BY 1 ORDER BY 1")}
    doc_types = [{"code": r[0], "versions": r[1], "versions_with_text": r[2]} for r in conn.execute(
        "SELECT COALESCE(v.document_type, ''), COUNT(DISTINCT v.version_rowid), "
        "COUNT(DISTINCT CASE WHEN e.text_state = 'provisions' THEN v.version_rowid END) "
        "FROM versions v LEFT JOIN expressions e USING (version_rowid) WHERE v.withdrawn = 0 GROUP BY 1 ORDER BY 2 DESC, 1")]
    languages = [{"code": r[0], "works": r[1], "versions": r[2], "versions_with_text": r[3]} for r in conn.execute(
        f"SELECT e.language, COUNT(DISTINCT v.work_rowid), COUNT(DISTINCT v.version_rowid), "
        f"COUNT(DISTINCT CASE WHEN e.text_state = 'provisions' THEN v.version_rowid END) {live} GROUP BY 1 ORDER BY 1")]
    return {
        "works": one("SELECT COUNT(DISTINCT work_rowid) FROM versions WHERE withdrawn = 0"),
        "works_held": one("SELECT COUNT(*) FROM works"),
        "versions": one("SELECT COUNT(*) FROM versions WHERE withdrawn = 0"),
        "withdrawn_versions": one("SELECT COUNT(*) FROM versions WHERE withdrawn = 1"),
        "expressions": one(f"SELECT COUNT(*) {live}"),
        "expression_text_states": states,
        "versions_with_text": one(f"SELECT COUNT(DISTINCT v.version_rowid) {live} AND e.text_state = 'provisions'"),
        "provisions": one("SELECT COUNT(*) FROM provisions"),
        "distinct_texts": one("SELECT COUNT(*) FROM texts"),
        "gaps": {r[0]: r[1] for r in conn.execute("SELECT gap, COUNT(*) FROM gaps GROUP BY 1 ORDER BY 1")},
        "document_types": doc_types[:100],
        "languages": languages,
        "future_versions": 0,
    }


def coverage_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    with index.session(ctx.deadline_seconds) as conn:
        counts = _coverage_counts(conn)
        counts["future_versions"] = conn.execute(
            "SELECT COUNT(*) FROM versions WHERE withdrawn = 0 AND valid_from > ?", (index.built_date,)).fetchone()[0]
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
