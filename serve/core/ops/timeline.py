"""``timeline`` (the dated states of a work) and ``article_history`` (one provision across them)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, cast

from derive.index.history import History, VersionText, build_history
from legal.outcomes import Outcome
from serve.core.anchors import match_anchor, nearest_anchors
from serve.core.envelope import Answer, CallContext, answer, is_provisional
from serve.core.known import (
    KnownView,
    TextAtK,
    disclosures,
    expression_text_at,
    known_expressions,
    not_yet_known,
    work_view,
)
from serve.core.resolve import locate_work
from serve.core.shapes import last_day, version_choice
from serve.core.store import (
    Work,
    expressions_for,
    has_history,
    texts,
    versions_by_rowid,
    versions_of,
)

MAX_STATES = 500
HISTORY_HINT = "List the anchors of a version with as_of and mode=outline."


def timeline(ctx: CallContext, args: dict[str, Any]) -> Answer:
    located = locate_work(ctx, args["work"], args["publisher"])
    if isinstance(located, dict):
        return located
    index, work = located.index, located.work
    known_on = args["known_on"]
    texts_then: dict[int, TextAtK] = {}
    with index.session(ctx.deadline_seconds) as conn:
        held = versions_of(conn, work.rowid)
        view = None if known_on is None else work_view(conn, held, known_on)
        if view is not None:
            if not view.known:
                return not_yet_known(ctx, index, view, {"work": work.work_id, "title": work.title})
            held = view.versions
        versions = [v for v in held if args["include_withdrawn"] or not v.withdrawn]
        page = versions[args["offset"]:args["offset"] + args["limit"]]
        exprs = expressions_for(conn, [v.rowid for v in page])
        if view is not None and known_on is not None:
            for v in page:
                kv = view.of(v)
                exprs[v.rowid] = known_expressions(exprs.get(v.rowid, []), kv) if kv else exprs.get(v.rowid, [])
                for e in exprs[v.rowid]:
                    then = expression_text_at(conn, e, known_on)
                    if then is not None:
                        texts_then[e.rowid] = then
    rows = []
    for v in page:
        entry = version_choice(work, v, exprs.get(v.rowid, []))
        entry["expressions"] = [{"language": e.language, "title": e.title, "title_short": e.title_short,
                                 "source_uri": e.source_uri, "text_state": e.text_state, "text_reason": e.gap_reason,
                                 "extraction_profile": e.profile, "provisions": e.provision_count,
                                 "evidence_sha256": e.evidence_sha256} for e in exprs.get(v.rowid, [])]
        if known_on is not None:
            for doc, e in zip(entry["expressions"], exprs.get(v.rowid, []), strict=True):
                if e.rowid in texts_then:
                    doc["known_on_text"] = texts_then[e.rowid].doc(known_on, e.evidence_file)
            entry["text_languages"] = [lang for lang, e in zip(entry["languages"], exprs.get(v.rowid, []), strict=True)
                                       if lang in entry["text_languages"] and e.rowid not in texts_then]
        rows.append(entry)
    payload = {"work": work.work_id, "title": work.title, "primary_language": work.primary_language,
               "total_count": len(versions), "offset": args["offset"], "limit": args["limit"],
               "truncated": len(versions) > args["offset"] + len(page), "versions": rows}
    if view is not None:
        payload["as_known"] = disclosures(view)
    outcome = Outcome.SUCCEEDED if versions else Outcome.EMPTY
    provisional = any(is_provisional(index, v.valid_from) for v in page)
    return answer(ctx, index, outcome, payload, provisional=provisional)


def _held_anchors(conn: sqlite3.Connection, work: Work, language: str) -> list[str]:
    query = "SELECT DISTINCT anchor FROM provision_states WHERE work_rowid = ? AND language = ? ORDER BY anchor"
    return [str(r[0]) for r in conn.execute(query, (work.rowid, language))]


def _in_window(valid_from: str, end: str | None, start: str | None, stop: str | None) -> bool:
    return (stop is None or valid_from <= stop) and (start is None or end is None or end > start)


def _states(conn: sqlite3.Connection, work: Work, language: str, anchor: str,
            args: dict[str, Any], known: KnownHistory | None = None) -> tuple[list[dict[str, Any]], bool]:
    query = ("SELECT * FROM provision_states WHERE work_rowid = ? AND language = ? AND anchor = ? ORDER BY seq")
    found: list[Any] = (known.states_of(anchor) if known is not None
                        else list(conn.execute(query, (work.rowid, language, anchor))))
    rows = [r for r in found if _in_window(r["valid_from"], r["end_exclusive"], args["from_date"], args["to_date"])]
    truncated = len(rows) > MAX_STATES
    rows = rows[:MAX_STATES]
    versions = versions_by_rowid(conn, [r["first_version_rowid"] for r in rows] + [r["last_version_rowid"] for r in rows])
    bodies = texts(conn, [r["text_sha256"] for r in rows]) if args["include_text"] else {}
    out = []
    for r in rows:
        first, last = versions[r["first_version_rowid"]], versions[r["last_version_rowid"]]
        state: dict[str, Any] = {
            "valid_from": r["valid_from"], "end_exclusive": r["end_exclusive"], "last_day": last_day(r["end_exclusive"]),
            "text_sha256": r["text_sha256"], "versions": r["versions"],
            "first_version": first.lex_id, "last_version": last.lex_id,
            "provision_id": f"{first.lex_id}#{anchor}", "article_valid_from": r["article_valid_from"],
            "validity_conflict": bool(r["article_valid_from"] and r["article_valid_from"] != r["valid_from"]),
            "record_sha256": first.record_sha256,
        }
        if args["include_text"]:
            state["text"] = bodies.get(r["text_sha256"])
        out.append(state)
    return out, truncated


def _events(conn: sqlite3.Connection, work: Work, language: str, anchor: str,
            known: KnownHistory | None = None) -> list[dict[str, Any]]:
    if known is not None:
        mine = [e for e in known.history.events if anchor in (e[5], e[6])]
        versions = versions_by_rowid(conn, [cast(int, e[3]) for e in mine])
        return [{"event": e[4], "anchor": e[5], "from_anchor": e[6], "at_version": versions[cast(int, e[3])].lex_id,
                 "valid_from": versions[cast(int, e[3])].valid_from, "text_sha256": e[7]} for e in mine]
    query = ("SELECT e.*, v.lex_id, v.valid_from FROM anchor_events e JOIN versions v USING (version_rowid) "
             "WHERE e.work_rowid = ? AND e.language = ? AND (e.anchor = ? OR e.from_anchor = ?) ORDER BY e.seq")
    return [{"event": r["event"], "anchor": r["anchor"], "from_anchor": r["from_anchor"], "at_version": r["lex_id"],
             "valid_from": r["valid_from"], "text_sha256": r["text_sha256"]}
            for r in conn.execute(query, (work.rowid, language, anchor, anchor))]


@dataclass(frozen=True)
class KnownHistory:
    """The provision history of one work and language rebuilt from the states held on ``known_on``
    (the live states then, their intervals then, and only texts proven to be the ones held then)."""

    history: History
    unproven: tuple[str, ...]

    def states_of(self, anchor: str) -> list[dict[str, Any]]:
        names = ("work_rowid", "language", "anchor", "seq", "valid_from", "end_exclusive", "text_sha256",
                 "first_version_rowid", "last_version_rowid", "versions", "article_valid_from")
        return [dict(zip(names, s, strict=True)) for s in self.history.states if s[2] == anchor]

    @property
    def anchors(self) -> list[str]:
        return sorted({str(s[2]) for s in self.history.states})


def known_history(conn: sqlite3.Connection, work: Work, language: str, view: KnownView) -> KnownHistory:
    live = [kv for kv in view.known if not kv.version.withdrawn]
    exprs = expressions_for(conn, [kv.version.rowid for kv in live])
    texts_: list[VersionText] = []
    unproven: list[str] = []
    for kv in live:
        chosen = next((e for e in known_expressions(exprs.get(kv.version.rowid, []), kv) if e.language == language), None)
        if chosen is None or not chosen.has_text:
            continue
        if expression_text_at(conn, chosen, view.known_on) is not None:
            unproven.append(kv.version.version_key)
            continue
        rows = conn.execute("SELECT anchor, text_sha256, article_valid_from FROM provisions WHERE expression_rowid = ? "
                            "ORDER BY seq", (chosen.rowid,))
        texts_.append(VersionText(kv.version.rowid, kv.version.valid_from, kv.version.end_exclusive,
                                  tuple((str(r[0]), str(r[1]), r[2]) for r in rows)))
    return KnownHistory(build_history(work.rowid, language, texts_), tuple(unproven))


def article_history(ctx: CallContext, args: dict[str, Any]) -> Answer:
    located = locate_work(ctx, args["work"], args["publisher"])
    if isinstance(located, dict):
        return located
    index, work = located.index, located.work
    language = args["language"] or work.primary_language or ""
    base: dict[str, Any] = {"work": work.work_id, "anchor": args["anchor"], "language": language}
    known: KnownHistory | None = None
    with index.session(ctx.deadline_seconds) as conn:
        if args["known_on"] is not None:
            view = work_view(conn, versions_of(conn, work.rowid), args["known_on"])
            if not view.known:
                return not_yet_known(ctx, index, view, base)
            base["as_known"] = disclosures(view)
            if view.differs:
                known = known_history(conn, work, language, view)
                base["as_known"]["texts_not_held_then"] = list(known.unproven)
        if not (known.history.states if known is not None else has_history(conn, work.rowid, language)):
            return answer(ctx, index, Outcome.NO_PROVISION_HISTORY, {**base, "hint": HISTORY_HINT})
        held = known.anchors if known is not None else _held_anchors(conn, work, language)
        anchor = match_anchor(args["anchor"], held)
        if anchor is None:
            return answer(ctx, index, Outcome.UNKNOWN_ANCHOR, {
                **base, "nearest_anchors": nearest_anchors(args["anchor"], held), "anchors_in_history": len(held)})
        states, truncated = _states(conn, work, language, anchor, args, known)
        events = _events(conn, work, language, anchor, known)
    payload = {**base, "anchor": anchor, "distinct_texts": len({s["text_sha256"] for s in states}),
               "states": states, "truncated": truncated, "anchor_events": events}
    if anchor != args["anchor"]:
        payload["requested_anchor"] = args["anchor"]
    outcome = Outcome.SUCCEEDED if states else Outcome.EMPTY
    provisional = is_provisional(index, args["from_date"], args["to_date"])
    return answer(ctx, index, outcome, payload, provisional=provisional)
