"""``as_of``: what a work (or some of its provisions) said on a date."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from legal.outcomes import Outcome
from serve.core.anchors import match_anchor, nearest_anchors
from serve.core.envelope import Answer, CallContext, answer, is_provisional
from serve.core.known import (
    KnownView,
    disclosures,
    expression_text_at,
    held_then,
    known_expressions,
    not_yet_known,
    text_refusal,
    unseen_key,
    work_view,
)
from serve.core.mount import MountedIndex
from serve.core.resolve import DateResolution, locate_work, neighbours, resolve_on
from serve.core.shapes import (
    choose_expression,
    provision_doc,
    text_outcome,
    version_choice,
    version_doc,
)
from serve.core.store import (
    Expression,
    Provision,
    Version,
    Work,
    anchors_of,
    citations_of,
    expressions_for,
    expressions_of,
    provisions_by_anchors,
    provisions_of,
    texts,
    version_gap_reason,
    versions_of,
)

MAX_PROVISIONS = 2000
MAX_CHARACTERS = 250_000
MAX_CITATIONS = 200
MAX_CHOICES = 20
AMBIGUITY_HINT = "Several states of this work start on the same day; retry with one version_key."


def version_choices(conn: sqlite3.Connection, work: Work, versions: Sequence[Version],
                    view: KnownView | None = None) -> list[dict[str, Any]]:
    exprs = expressions_for(conn, [v.rowid for v in versions])
    if view is not None:
        exprs = {v.rowid: held_then(conn, view, v, exprs.get(v.rowid, [])) for v in versions[:MAX_CHOICES]}
    return [version_choice(work, v, exprs.get(v.rowid, [])) for v in versions[:MAX_CHOICES]]


def refusal_for_date(ctx: CallContext, index: MountedIndex, conn: sqlite3.Connection, work: Work,
                     versions: Sequence[Version], resolution: DateResolution, day: str,
                     base: dict[str, Any], view: KnownView | None = None) -> Answer | None:
    """The ambiguous_version / no_version_for_date answer, or None when one state was found."""
    provisional = is_provisional(index, day)
    if resolution.ambiguous:
        return answer(ctx, index, Outcome.AMBIGUOUS_VERSION, {
            **base, "version_choices": version_choices(conn, work, resolution.choices, view),
            "choices_truncated": len(resolution.choices) > MAX_CHOICES, "hint": AMBIGUITY_HINT,
        }, provisional=provisional)
    if resolution.version is None:
        before, after = neighbours(versions, day)
        near = version_choices(conn, work, [v for v in (before, after) if v is not None], view)
        return answer(ctx, index, Outcome.NO_VERSION_FOR_DATE, {
            **base, "nearest_versions": near,
            "detail": "No published state of this work covers this date (before its first state, in a gap "
                      "the publisher left, or after a closed last state).",
        }, provisional=provisional)
    return None


def missing_expression_reason(conn: sqlite3.Connection, version: Version, expressions: Sequence[Expression],
                              language: str | None) -> str:
    if expressions:
        held = ", ".join(e.language for e in expressions)
        return f"this state has no {language} expression (held: {held})"
    return version_gap_reason(conn, version.lex_id) or "the publisher lists no expression for this state"


def _with_citations(docs: list[dict[str, Any]], cites: dict[str, list[dict[str, Any]]]) -> bool:
    budget = MAX_CITATIONS
    truncated = False
    for doc in docs:
        items = cites.get(doc["anchor"], [])
        doc["citations"] = items[:budget]
        truncated = truncated or len(items) > budget
        budget = max(0, budget - len(items))
    return truncated


def _full(conn: sqlite3.Connection, version: Version, provisions: Sequence[Provision]) -> dict[str, Any]:
    chosen = list(provisions[:MAX_PROVISIONS])
    bodies = texts(conn, [p.text_sha256 for p in chosen])
    docs: list[dict[str, Any]] = []
    used = 0
    text_truncated = False
    for p in chosen:
        body = bodies[p.text_sha256]
        if used + len(body) > MAX_CHARACTERS:
            text_truncated = True
            doc = provision_doc(version, p, None)
            doc["text_omitted"] = True
            doc["text_characters"] = len(body)
            docs.append(doc)
            continue
        used += len(body)
        docs.append(provision_doc(version, p, body))
    return {"provisions": docs, "total_provisions": len(provisions), "truncated": len(provisions) > len(chosen),
            "text_truncated": text_truncated}


def _select(conn: sqlite3.Connection, version: Version, expression: Expression, anchors: Sequence[str],
            with_text: bool) -> dict[str, Any]:
    exact = {p.anchor: p for p in provisions_by_anchors(conn, expression.rowid, anchors)}
    held: list[str] = [] if all(a in exact for a in anchors) else anchors_of(conn, expression.rowid)
    found: list[Provision] = []
    # the anchors of ``found``: a provision is found once (its anchor is in it)
    taken: set[str] = set()
    missing: list[str] = []
    widened: dict[str, str] = {}
    for requested in anchors:
        matched = requested if requested in exact else match_anchor(requested, held)
        if matched is None:
            missing.append(requested)
            continue
        if matched != requested:
            widened[requested] = matched
            exact.update({p.anchor: p for p in provisions_by_anchors(conn, expression.rowid, [matched])})
        if matched not in taken:
            taken.add(matched)
            found.append(exact[matched])
    bodies = texts(conn, [p.text_sha256 for p in found]) if with_text else {}
    out: dict[str, Any] = {
        "provisions": [provision_doc(version, p, bodies.get(p.text_sha256)) for p in found],
        "total_provisions": expression.provision_count,
        "anchors_in_version": expression.provision_count,
        "anchors_not_in_version": missing,
    }
    if widened:
        out["anchor_matches"] = widened
    if missing:
        out["nearest_anchors"] = {a: nearest_anchors(a, held) for a in missing}
    return out


def _outline(version: Version, provisions: Sequence[Provision]) -> dict[str, Any]:
    chosen = provisions[:MAX_PROVISIONS]
    return {"provisions": [provision_doc(version, p, None) for p in chosen], "total_provisions": len(provisions),
            "truncated": len(provisions) > len(chosen)}


def provisions_payload(conn: sqlite3.Connection, version: Version, expression: Expression, mode: str,
                       anchors: Sequence[str] | None) -> dict[str, Any]:
    if anchors:
        payload = _select(conn, version, expression, anchors, with_text=mode != "outline")
    elif mode == "outline":
        payload = _outline(version, provisions_of(conn, expression.rowid))
    else:
        payload = _full(conn, version, provisions_of(conn, expression.rowid))
    if mode != "outline":
        returned = [p["anchor"] for p in payload["provisions"]]
        cites = citations_of(conn, expression.rowid, returned if anchors else None)
        payload["citations_truncated"] = _with_citations(payload["provisions"], cites)
    return payload


def stored_texts(index: MountedIndex, shas: Sequence[str], deadline_seconds: float) -> dict[str, str]:
    """``sha -> text`` of the texts among ``shas`` that ``index`` stores, read within the deadline.

    Not an operation (no arguments to check, no envelope, not in the catalogue): a shell that
    already holds the hashes of exact wordings (the web diff page: a ``diff`` answer's
    ``from_text_sha256`` / ``to_text_sha256``) reads their texts here instead of asking ``as_of``
    for them, which would also resolve the version and read its versions, citations and envelope.
    A text is the same whichever version holds it (its hash is of its bytes); a hash the index
    does not store is absent from the result.
    """
    if not shas:
        return {}
    with index.session(deadline_seconds) as conn:
        return texts(conn, shas)


def run(ctx: CallContext, args: dict[str, Any]) -> Answer:
    located = locate_work(ctx, args["work"], args["publisher"])
    if isinstance(located, dict):
        return located
    index, work, day = located.index, located.work, args["date"]
    mode = args["mode"] or ("select" if args["anchors"] else "full")
    base: dict[str, Any] = {"work": work.work_id, "date": day, "mode": mode}
    provisional = is_provisional(index, day)
    known_on = args["known_on"]
    with index.session(ctx.deadline_seconds) as conn:
        versions = versions_of(conn, work.rowid)
        view = None if known_on is None else work_view(conn, versions, known_on)
        if view is not None:
            if not view.known:
                return not_yet_known(ctx, index, view, base)
            versions = view.versions
            base["as_known"] = disclosures(view)
            unseen = unseen_key(ctx, index, view, [args["version_key"]], base)
            if unseen is not None:
                return unseen
        resolution = resolve_on(versions, day, args["version_key"], include_withdrawn=args["include_withdrawn"])
        refusal = refusal_for_date(ctx, index, conn, work, versions, resolution, day, base, view)
        if refusal is not None:
            return refusal
        version = resolution.version
        assert version is not None
        expressions = expressions_of(conn, version.rowid)
        known = None if view is None else view.of(version)
        if known is not None:
            expressions = known_expressions(expressions, known)
        expression = choose_expression(expressions, args["language"], work.primary_language)
        payload: dict[str, Any] = {
            **base, "version": version_doc(work, version, expression),
            "available_languages": [e.language for e in expressions],
        }
        if view is not None:
            payload["as_known"] = disclosures(view, [version])
        if resolution.withdrawn_same_day:
            payload["withdrawn_same_day"] = [v.version_key for v in resolution.withdrawn_same_day]
        blocked = text_outcome(index, expression)
        if blocked is not None:
            outcome, reason = blocked
            if expression is None:
                reason = missing_expression_reason(conn, version, expressions, args["language"])
            return answer(ctx, index, outcome, {**payload, "text_unavailable_reason": reason}, provisional=provisional)
        assert expression is not None
        then = None if known_on is None else expression_text_at(conn, expression, known_on)
        if then is not None and known_on is not None:
            return text_refusal(ctx, index, payload, expression, then, known_on, provisional=provisional)
        payload.update(provisions_payload(conn, version, expression, mode, args["anchors"]))
    outcome = Outcome.SUCCEEDED
    if args["anchors"] and not payload["provisions"]:
        outcome = Outcome.ANCHOR_NOT_IN_VERSION
    return answer(ctx, index, outcome, payload, provisional=provisional)
