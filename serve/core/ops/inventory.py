"""Publisher-wide operations: ``in_force_on``, ``changes_in_period`` and ``coverage``.

Each runs on every mounted index (or the one named by ``publisher``) and answers with one
section per publisher; ``limit``/``offset`` page each publisher's list.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Callable
from typing import Any

from derive.index.serving import coverage_counts
from legal.outcomes import Outcome
from serve.core.envelope import Answer, CallContext, answer, fanout, is_provisional
from serve.core.known_index import IndexAt, held_expressions, index_at
from serve.core.mount import Catalogue, MountedIndex
from serve.core.periods import Periods, load_periods
from serve.core.resolve import mounted_publisher
from serve.core.shapes import choose_expression, version_choice
from serve.core.store import (
    Expression,
    Version,
    Work,
    expressions_for,
    versions_by_rowid,
    works_by_rowid,
)

Section = Callable[[CallContext, MountedIndex, dict[str, Any]], Answer]


def over_publishers(ctx: CallContext, args: dict[str, Any], section: Section,
                    payload: dict[str, Any] | None = None) -> Answer:
    chosen = mounted_publisher(ctx, args.get("publisher"))
    if isinstance(chosen, dict):
        return chosen
    indexes = [chosen] if chosen is not None else ctx.ordered()
    return fanout(ctx, [section(ctx, index, args) for index in indexes], payload)


def _periods(index: MountedIndex, known_on: str | None = None) -> Periods:
    if known_on is not None:
        return index_at(index, known_on).periods
    return index.memo("periods", load_periods)


def slug_ranks(catalogue: Catalogue) -> array[int]:
    """Each work's place in slug order, by work rowid (``in_force_on`` lists its works in slug
    order): sorting by it touches none of the catalogue's strings, whose pages a served worker would
    otherwise copy (ADR 0178)."""
    slugs = catalogue.slug_of
    ranks = array("i", bytes(4 * (max(slugs, default=0) + 1)))
    for rank, rowid in enumerate(sorted(slugs, key=lambda r: (slugs[r], r))):
        ranks[rowid] = rank
    return ranks


def slug_ranks_of(index: MountedIndex) -> array[int]:
    return index.memo("slug_ranks", lambda _conn: slug_ranks(index.catalogue))


def _in_force_entry(work: Work, version: Version, expressions: list[Expression], language: str | None) -> dict[str, Any]:
    entry = version_choice(work, version, expressions)
    entry["work"] = work.work_id
    expression = choose_expression(expressions, language, work.primary_language)
    entry["text_available"] = bool(expression and expression.has_text)
    return entry


def in_force_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    day, language, document_type = args["date"], args["language"], args["document_type"]
    known_on = args["known_on"]
    periods = _periods(index, known_on)
    winners = periods.in_force(day, document_type, language)
    ranks, rowids = slug_ranks_of(index), periods.rowids
    ordered = sorted(winners, key=lambda kv: ranks[rowids[kv[0]]])
    page = [(rowids[w], [periods.version_rowid(s) for s in states])
            for w, states in ordered[args["offset"]:args["offset"] + args["limit"]]]
    with index.session(ctx.deadline_seconds) as conn:
        works = works_by_rowid(conn, [w for w, _ in page])
        page_ids = [s for _, states in page for s in states]
        versions = versions_by_rowid(conn, page_ids)
        exprs = expressions_for(conn, page_ids)
    then = None if known_on is None else index_at(index, known_on)
    if then is not None:
        versions = {rid: then.live.get(rid, v) for rid, v in versions.items()}
        exprs = {rid: then.expressions(rid, held) for rid, held in exprs.items()}
    shown = [(works[w], [versions[s] for s in states]) for w, states in page]
    single, ambiguous = [], []
    for work, chosen in shown:
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
    if then is not None:
        payload["as_known"] = _as_known(then)
    return answer(ctx, index, outcome, payload, provisional=is_provisional(index, day))


def _as_known(then: IndexAt) -> dict[str, Any]:
    return {"known_on": then.known_on, "versions_sighted_later": then.sighted_later,
            "versions_withdrawn_then": then.withdrawn_then, "expressions_text_not_held_then": len(then.unproven_text)}


def in_force_on(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, in_force_section, {"date": args["date"]})


def _distinct_texts(first: tuple[str | None, str | None], last: tuple[str | None, str | None]) -> tuple[int, bool]:
    if first[0] is None and last[0] is None:
        return 0, False
    if first[0] is None or last[0] is None:
        return 1, False
    return (1 if first[0] == last[0] else 2), first[1] == last[1]


def _change_entry(periods: Periods, work: int, lo: int, hi: int) -> dict[str, Any]:
    head, (first_held, end_held) = periods.head(work), periods.states_of(work)
    last = hi - 1
    # states start in order: the one before the window
    baseline = lo - 1 if lo > first_held else None
    start_side = lo if baseline is None else baseline
    distinct, comparable = _distinct_texts(periods.primary(start_side, head.primary_language),
                                           periods.primary(last, head.primary_language))
    return {
        "work": head.work_id, "title": head.title, "document_type": head.document_type,
        "versions_in_period": hi - lo, "versions_total": end_held - first_held,
        "first_change": periods.valid_from(lo), "last_change": periods.valid_from(last),
        "baseline": None if baseline is None else periods.valid_from(baseline),
        "distinct_texts": distinct, "wording_changed": distinct == 2, "text_comparable": comparable,
        "diff_from": periods.version_key(start_side), "diff_to": periods.version_key(last),
    }


def _ordered(periods: Periods, found: list[tuple[int, int, int]], order: str) -> list[tuple[int, int, int]]:
    """``by_date``: latest last change, most states, work id; ``by_churn``: most states, latest last
    change, work id (two stable sorts instead of a key of negated characters). A start's day code
    orders as its day (:meth:`Periods.day`)."""
    ranks, starts = periods.id_ranks, periods.start_codes
    found = sorted(found, key=lambda f: ranks[f[0]])
    if order == "by_churn":
        return sorted(found, key=lambda f: (f[2] - f[1], starts[f[2] - 1]), reverse=True)
    return sorted(found, key=lambda f: (starts[f[2] - 1], f[2] - f[1]), reverse=True)


def changes_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    start, stop, document_type = args["from_date"], args["to_date"], args["document_type"]
    periods = _periods(index, args["known_on"])
    found = periods.changed(start, stop, document_type)
    ordered = _ordered(periods, found, args["order"])
    page = [_change_entry(periods, *f) for f in ordered[args["offset"]:args["offset"] + args["limit"]]]
    for rank, entry in enumerate(page, args["offset"] + 1):
        entry["rank"] = rank
    payload = {"window": {"from": start, "to": stop}, "order": args["order"], "works_changed": len(found),
               "new_versions": sum(hi - lo for _, lo, hi in found), "offset": args["offset"],
               "limit": args["limit"], "truncated": len(found) > args["offset"] + len(page), "changes": page}
    if args["known_on"] is not None:
        payload["as_known"] = _as_known(index_at(index, args["known_on"]))
    outcome = Outcome.SUCCEEDED if found else Outcome.NO_CHANGES_IN_PERIOD
    return answer(ctx, index, outcome, payload, provisional=is_provisional(index, stop))


def changes_in_period(ctx: CallContext, args: dict[str, Any]) -> Answer:
    return over_publishers(ctx, args, changes_section, {"window": {"from": args["from_date"], "to": args["to_date"]}})


def _coverage_counts(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts precomputed at build time (``serving_coverage``, :func:`derive.index.serving.coverage_counts`)."""
    row = conn.execute("SELECT v FROM serving_coverage WHERE k = 'counts'").fetchone()
    counts: dict[str, Any] = json.loads(row[0]) if row else coverage_counts(conn)
    counts["future_versions"] = 0
    return counts


def _coverage_then(ctx: CallContext, index: MountedIndex, known_on: str) -> Answer:
    """Coverage as held on ``known_on``: the counts the view of that day can rebuild."""
    then = index_at(index, known_on)
    exprs = [e for v in then.live.values() for e in then.expressions(v.rowid, held_expressions(index, v.rowid))]
    with_text = {e.version_rowid for e in exprs if e.has_text}
    payload = {
        "works": len(then.periods), "versions": len(then.live), "withdrawn_versions": then.withdrawn_then,
        "versions_sighted_later": then.sighted_later, "expressions": len(exprs),
        "versions_with_text": len(with_text),
        "expressions_text_not_held_then": sum(1 for e in exprs if e.rowid in then.unproven_text),
        "future_versions": sum(1 for v in then.live.values() if v.valid_from > known_on),
        "built_at": index.stamp.get("built_at"),
        "note": f"Counts as held on {known_on}: states first sighted later are left out, states withdrawn then are "
                "counted as withdrawn, languages added later are left out, and an expression whose body changed "
                "later counts as without text (this index holds only the later text). Provision, text and gap "
                "counts are those of the index and are not rebuilt for a past day.",
    }
    return answer(ctx, index, Outcome.SUCCEEDED, payload)


def coverage_section(ctx: CallContext, index: MountedIndex, args: dict[str, Any]) -> Answer:
    if args["known_on"] is not None and index_at(index, args["known_on"]).differs:
        return _coverage_then(ctx, index, args["known_on"])
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
