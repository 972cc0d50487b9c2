"""``provenance`` (the hash chain behind a version or provision) and ``cited_by``."""

from __future__ import annotations

import sqlite3
from typing import Any

from derive.index.identifiers import celex_to_slug
from legal.outcomes import Outcome
from serve.core.anchors import match_anchor, nearest_anchors
from serve.core.envelope import Answer, CallContext, answer, artifact_identity, fanout, unknown_work
from serve.core.known import (
    KnownVersion,
    TextAtK,
    disclosures,
    expression_text_at,
    known_expressions,
    not_yet_known,
    text_refusal,
    work_view,
)
from serve.core.known_index import index_at
from serve.core.mount import MountedIndex
from serve.core.resolve import locate_work, mounted_publisher
from serve.core.shapes import expression_doc, interval, provision_doc
from serve.core.store import (
    Expression,
    Version,
    expressions_of,
    provisions_of,
    version_by_lex_id,
    works_by_rowid,
)

MAX_ROWS = 1000
EVIDENCE_SCOPE = "captured_cross_references_in_held_non_withdrawn_versions"


def _events(conn: sqlite3.Connection, version: Version) -> list[dict[str, Any]]:
    query = "SELECT event, observed_from, scope, detail FROM events WHERE version_rowid = ? ORDER BY seq"
    return [dict(r) for r in conn.execute(query, (version.rowid,)).fetchmany(MAX_ROWS)]


def _observations(conn: sqlite3.Connection, version: Version, expression: Expression, withdrawn_at: str | None,
                  known_on: str | None = None) -> list[dict[str, Any]]:
    query = ("SELECT file, sha256, size, source_uri, retrieved_at, format, held_elsewhere FROM observations "
             "WHERE expression_rowid = ? ORDER BY seq")
    rows = [dict(r) for r in conn.execute(query, (expression.rowid,)).fetchmany(MAX_ROWS)]
    if known_on is not None:
        rows = [r for r in rows if r["retrieved_at"] is None or str(r["retrieved_at"])[:10] <= known_on]
    for row in rows:
        row["held_elsewhere"] = bool(row["held_elsewhere"])
        row["observed_to"] = withdrawn_at
    return rows


def _withdrawn_at(events: list[dict[str, Any]]) -> str | None:
    last = None
    for e in events:
        if e["event"] in ("withdrawn_from_source", "resighted"):
            last = e
    return last["observed_from"] if last and last["event"] == "withdrawn_from_source" else None


def _chain(index: MountedIndex, version: Version, expression: Expression | None) -> dict[str, Any]:
    return {
        "evidence_sha256": expression.evidence_sha256 if expression else None,
        "evidence_file": expression.evidence_file if expression else None,
        "extraction_profile": expression.profile if expression else None,
        "record_sha256": version.record_sha256,
        "imported_record_sha256": version.provenance_record_sha256,
        "corpus_manifest_sha256": index.stamp.get("corpus_manifest_sha256"),
        "dataset_sha256": index.stamp.get("dataset_sha256"),
        "index_content_digest": index.stamp.get("content_digest"),
    }


def _locate_version(ctx: CallContext, lex_id: str) -> tuple[MountedIndex, str, str | None] | Answer:
    head, _, anchor = lex_id.partition("#")
    publisher = head.split(":", 1)[0].lower()
    chosen = mounted_publisher(ctx, publisher)
    if not isinstance(chosen, MountedIndex):
        return chosen if isinstance(chosen, dict) else unknown_work(ctx, lex_id)
    return chosen, head, anchor or None


def provenance(ctx: CallContext, args: dict[str, Any]) -> Answer:
    located = _locate_version(ctx, args["lex_id"])
    if isinstance(located, dict):
        return located
    index, lex_id, anchor = located
    with index.session(ctx.deadline_seconds) as conn:
        version = version_by_lex_id(conn, lex_id)
        if version is None:
            return unknown_work(ctx, args["lex_id"], index=index)
        work = works_by_rowid(conn, [version.work_rowid])[version.work_rowid]
        events = _events(conn, version)
        known_on = args["known_on"]
        known: KnownVersion | None = None
        if known_on is not None:
            view = work_view(conn, [version], known_on)
            if not view.known:
                return not_yet_known(ctx, index, view, {"lex_id": version.lex_id, "work": work.work_id})
            known = view.known[0]
            version = known.version
            events = [e for e in events if str(e["observed_from"])[:10] <= known_on]
        withdrawn_at = _withdrawn_at(events)
        expressions = [e for e in expressions_of(conn, version.rowid)
                       if args["language"] is None or e.language == args["language"]]
        if known is not None:
            expressions = known_expressions(expressions, known)
        docs = [{**expression_doc(e), "observations": _observations(conn, version, e, withdrawn_at, known_on)}
                for e in expressions]
        texts_then: dict[int, TextAtK] = {}
        if known_on is not None:
            for doc, e in zip(docs, expressions, strict=True):
                then = expression_text_at(conn, e, known_on)
                if then is not None:
                    texts_then[e.rowid] = then
                    doc["known_on_text"] = then.doc(known_on, e.evidence_file)
        chosen = next((e for e in expressions if e.has_text), expressions[0] if expressions else None)
        payload: dict[str, Any] = {
            "lex_id": version.lex_id, "work": work.work_id, "version_key": version.version_key,
            "publisher_version_identifier": version.publisher_version_identifier, **interval(version),
            "withdrawn": version.withdrawn, "first_observed": version.first_observed,
            "document_roles": list(version.document_roles), "raw": version.raw,
            "events": events, "expressions": docs, "chain": _chain(index, version, chosen),
            "artifact_note": "The chain runs text_sha256 → evidence_sha256 (verbatim publisher bytes) → "
                             "record_sha256 (the version record naming them) → corpus manifest → index content "
                             "digest → the signed artifact set.",
        }
        if known is not None and known_on is not None:
            payload["as_known"] = disclosures(view)
        if anchor is None:
            return answer(ctx, index, Outcome.SUCCEEDED, payload)
        if chosen is not None and chosen.rowid in texts_then and known_on is not None:
            return text_refusal(ctx, index, {**payload, "anchor": anchor}, chosen, texts_then[chosen.rowid], known_on)
        provisions = provisions_of(conn, chosen.rowid) if chosen is not None and chosen.has_text else []
    held = [p.anchor for p in provisions]
    matched = match_anchor(anchor, held)
    if matched is None:
        return answer(ctx, index, Outcome.ANCHOR_NOT_IN_VERSION if held else Outcome.TEXT_NOT_AVAILABLE,
                      {**payload, "anchor": anchor, "nearest_anchors": nearest_anchors(anchor, held)})
    provision = next(p for p in provisions if p.anchor == matched)
    payload["provision"] = provision_doc(version, provision, None)
    payload["chain"]["text_sha256"] = provision.text_sha256
    return answer(ctx, index, Outcome.SUCCEEDED, payload)


def _cited_work(ctx: CallContext, work: str) -> tuple[str, bool]:
    """The canonical ``publisher:slug`` of the cited work and whether a mounted index holds it."""
    located = locate_work(ctx, work, None)
    if not isinstance(located, dict):
        return located.work.work_id, True
    head = work.strip().split("#", 1)[0]
    parts = head.split(":")
    if len(parts) >= 2:
        return f"{parts[0].lower()}:{parts[1].lower()}", False
    return f"eu-eurlex:{celex_to_slug(head)}", False


_CITING = ("FROM citations c JOIN expressions e USING (expression_rowid) "
           "JOIN versions v USING (version_rowid) JOIN works w USING (work_rowid) "
           "WHERE c.target_work_id = ? AND v.withdrawn = 0")
_ORDER = " ORDER BY v.valid_from DESC, w.slug, c.anchor, c.seq"
_COLUMNS = "SELECT c.expression_rowid, c.anchor, c.href, c.label, v.lex_id, v.valid_from, w.work_id, w.title"


def _with_provisions(conn: sqlite3.Connection, rows: list[sqlite3.Row]) -> list[dict[str, Any]]:
    """The page's citing rows, each with its citing provision's ``num`` and ``heading`` (None when
    the anchor names no provision of that expression). An anchor occurs at most once in an
    expression (the index build refuses a duplicate), so one look-up per row is the left join."""
    out = []
    for r in rows:
        found = conn.execute("SELECT num, heading FROM provisions WHERE expression_rowid = ? AND anchor = ?",
                             (r["expression_rowid"], r["anchor"])).fetchone()
        out.append({**dict(r), "num": found[0] if found else None, "heading": found[1] if found else None})
    return out


def cited_by_section(ctx: CallContext, index: MountedIndex, target: str, args: dict[str, Any]) -> Answer:
    """Counts over every citing row in SQL, and only the page's rows read (a much-cited act has
    thousands): the rows are ordered and paged without their provisions, whose number and heading
    are then read for the page alone."""
    with index.session(ctx.deadline_seconds) as conn:
        if args["known_on"] is not None:
            total, works, rows = _citing_then(conn, index, target, args)
        else:
            total, works = conn.execute(f"SELECT COUNT(*), COUNT(DISTINCT w.work_id) {_CITING}", (target,)).fetchone()
            rows = conn.execute(f"{_COLUMNS} {_CITING}{_ORDER} LIMIT ? OFFSET ?",
                                (target, args["limit"], args["offset"])).fetchall()
        page = _with_provisions(conn, rows)
    citations = [{"work": r["work_id"], "title": r["title"], "lex_id": r["lex_id"], "valid_from": r["valid_from"],
                  "anchor": r["anchor"], "provision_id": f"{r['lex_id']}#{r['anchor']}", "num": r["num"],
                  "heading": r["heading"], "href": r["href"], "label": r["label"]} for r in page]
    payload = {"cited_work": target, "evidence_scope": EVIDENCE_SCOPE, "current_legal_effect_assessed": False,
               "relationship_type_assessed": False, "citing_provisions": total,
               "citing_works": works, "offset": args["offset"], "limit": args["limit"],
               "truncated": total > args["offset"] + len(page), "citations": citations}
    return answer(ctx, index, Outcome.SUCCEEDED if total else Outcome.EMPTY, payload)


def _citing_then(conn: sqlite3.Connection, index: MountedIndex, target: str,
                 args: dict[str, Any]) -> tuple[int, int, list[sqlite3.Row]]:
    """The citing rows of versions live on ``known_on``, in languages and texts held then: their
    count, their works' count and the page's rows."""
    then = index_at(index, args["known_on"])
    query = (f"{_COLUMNS}, v.version_rowid, e.language "
             f"{_CITING.replace(' AND v.withdrawn = 0', '')}{_ORDER}")
    rows = []
    for r in conn.execute(query, (target,)):
        kv = then.known.get(r["version_rowid"])
        if (r["version_rowid"] in then.live and kv is not None and r["language"] not in kv.hidden_languages
                and r["expression_rowid"] not in then.unproven_text):
            rows.append(r)
    page = rows[args["offset"]:args["offset"] + args["limit"]]
    return len(rows), len({r["work_id"] for r in rows}), page


def cited_by(ctx: CallContext, args: dict[str, Any]) -> Answer:
    target, held = _cited_work(ctx, args["work"])
    sections = [cited_by_section(ctx, index, target, args) for index in ctx.ordered()]
    if not held and all(s["outcome"] == Outcome.EMPTY.value for s in sections):
        return unknown_work(ctx, args["work"])
    out = fanout(ctx, sections, {"cited_work": target, "cited_work_held": held})
    out["artifact"] = artifact_identity(ctx, None)
    return out
