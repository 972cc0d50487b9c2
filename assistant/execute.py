"""Executor and outcome router: run the frozen plan in user order, once, with no replanning.

Each operation is called on the in-process legal core; its answer becomes one
:class:`OperationResult` with a closed legal outcome and a closed transport outcome, the
effects it rendered (checked against its frozen declaration: anything else raises), one card
per effect (values copied from the answer, never authored) and one named deterministic line.
Nothing a result says can change a later operation: the plan was sealed before the first call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant import core_port as cp
from assistant.plan import RequestedOperation, computed_effects
from assistant.replies import named_line
from assistant.subjects import SubjectAuthority
from assistant.vocab import Effect, LegalOutcome, TransportOutcome, UnknownStatusError
from legal.errors import LexError, RequestError

CoreCall = Callable[[str, Mapping[str, Any]], Awaitable[Mapping[str, Any]]]
ResultSink = Callable[["OperationResult"], Awaitable[None]]

_TEXT = {
    "en": {
        "boundary": "Lex can retrieve verified legal text, but it cannot give legal advice, decide "
                    "compliance, or apply law to your facts.",
        "needs_work": "Lex needs a specific instrument before it can continue this operation.",
        "invalid": "The parameters for this legal operation are invalid.",
        "timed_out": "This operation was not evaluated: the first-result deadline expired.",
        "cancelled": "This operation was not evaluated: the request was cancelled.",
        "upstream_failed": "This operation was not evaluated: the legal core failed.",
        "over_quota": "This operation was not evaluated: the request is over quota.",
    },
    "fr": {
        "boundary": "Lex peut retrouver le texte juridique vérifié, mais ne peut pas donner de "
                    "conseil juridique, juger la conformité ni appliquer le droit à vos faits.",
        "needs_work": "Lex a besoin d'un instrument précis pour poursuivre cette opération.",
        "invalid": "Les paramètres de cette opération juridique ne sont pas valides.",
        "timed_out": "Cette opération n'a pas été évaluée : le délai du premier résultat a expiré.",
        "cancelled": "Cette opération n'a pas été évaluée : la demande a été annulée.",
        "upstream_failed": "Cette opération n'a pas été évaluée : le noyau juridique a échoué.",
        "over_quota": "Cette opération n'a pas été évaluée : la demande dépasse le quota.",
    },
}


def text(locale: str, key: str) -> str:
    return _TEXT.get(locale, _TEXT["en"])[key]


@dataclass(frozen=True)
class OperationResult:
    """One operation's typed result (the wire object is :meth:`wire`)."""

    operation: RequestedOperation
    legal_outcome: LegalOutcome
    transport_outcome: TransportOutcome
    effects: frozenset[Effect]
    cards: Mapping[str, Any]
    line: str
    executed_arguments: Mapping[str, Any] | None = None
    payload: Mapping[str, Any] | None = None
    detail: str | None = None
    duration_ms: int = 0

    def wire(self) -> dict[str, Any]:
        op = self.operation
        return {
            "operation_id": op.operation_id, "order": op.user_order, "tool": op.tool,
            "result_class": _value(op.result_class), "disposition": _value(op.disposition),
            "legal_outcome": self.legal_outcome.value,
            "transport_outcome": self.transport_outcome.value,
            "effects": sorted(e.value for e in self.effects), "ui": dict(self.cards) or None,
        }

    def trace(self) -> dict[str, Any]:
        phase = "application" if self.operation.is_application else "primary"
        row: dict[str, Any] = {"phase": phase, "operation_id": self.operation.operation_id,
                               "tool": self.operation.tool, "args": dict(self.executed_arguments or {}),
                               "status": self.legal_outcome.value,
                               "transport": self.transport_outcome.value,
                               "duration_ms": self.duration_ms}
        if self.detail:
            row["detail"] = self.detail
        return row


def _value(item: Any) -> str | None:
    return None if item is None else str(item.value)


# --- argument execution -----------------------------------------------------------------------


def anchor_for(article: str) -> str:
    """The article anchor the core matches by article key (``6`` → ``art_6``, ``1er`` → ``art_1er``)."""
    return "art_" + "_".join(article.split())


def executed_arguments(op: RequestedOperation) -> dict[str, Any]:
    """The arguments sent to the core: the server-held article becomes an anchor."""
    args = op.arguments
    article = args.pop("article_number", None)
    if article is None:
        return args
    anchor = anchor_for(str(article))
    if op.tool == "as_of":
        args["anchors"] = [anchor]
        args["mode"] = "select" if args.get("mode") in (None, "full", "select") else args["mode"]
    elif op.tool in ("diff", "article_history"):
        args["anchor"] = anchor
    return args


def authorised(op: RequestedOperation, authority: SubjectAuthority | None) -> bool:
    """A work operation may only name a work of the subject authority (defence in depth)."""
    args = op.arguments
    if "work" in args:
        return authority is not None and any(m.work == args["work"] for m in authority.members)
    if "lex_id" in args:
        return authority is not None and any(m.exact_lex_id == args["lex_id"] for m in authority.members)
    return True


# --- cards ------------------------------------------------------------------------------------

_CARD_FIELDS = (
    "work", "cited_work", "title", "date", "from_date", "to_date", "mode", "anchor", "language",
    "valid_from", "valid_to", "changed", "distinct_texts", "total_count", "total_provisions",
    "works_changed", "new_versions", "total_works_in_force", "citing_articles", "order", "query",
    "record_sha256", "lex_id", "permalink", "source_uri", "provisional", "truncated",
)


def _view(op: RequestedOperation, payload: Mapping[str, Any], outcome: LegalOutcome) -> dict[str, Any]:
    view: dict[str, Any] = {"outcome": outcome.value}
    for key in _CARD_FIELDS:
        value = cp.first(payload, key)
        if isinstance(value, str | int | bool):
            view[key] = value[: cp.MAX_TEXT] if isinstance(value, str) else value
    found = cp.rows(payload)
    if found:
        view["rows"] = [cp.scalar_row(r) for r in found[: cp.MAX_ROWS]]
        view["rows_total"] = len(found)
    if op.tool == "coverage":
        view["publishers"] = [cp.scalar_row(s) for s in cp.sections(payload)]
    return view


def gap_view(status: str, explanation: str, payload: Mapping[str, Any] | None = None,
             available: Sequence[str] = ()) -> dict[str, Any]:
    view: dict[str, Any] = {"status": status, "explanation": explanation}
    if payload is not None:
        for key in ("work", "date", "detail", "hint"):
            value = cp.first(payload, key)
            if isinstance(value, str):
                view[key] = value[: cp.MAX_TEXT]
        choices = cp.rows(payload, ("version_choices", "nearest_versions", "candidates"))
        if choices:
            view["available"] = [cp.scalar_row(c) for c in choices[:20]]
    if available:
        view["available"] = list(available)
    return view


def cards_for(op: RequestedOperation, effects: frozenset[Effect], outcome: LegalOutcome,
              payload: Mapping[str, Any] | None, explanation: str) -> dict[str, Any]:
    """One card per rendered effect; the card kinds must lie inside the frozen declaration."""
    cards: dict[str, Any] = {}
    for effect in sorted(effects):
        if effect is Effect.GAP:
            cards[effect.value] = gap_view(outcome.value, explanation, payload)
        elif payload is not None:
            cards[effect.value] = _view(op, payload, outcome)
    op.check_effects(Effect(k) for k in cards)
    return cards


# --- the executor -----------------------------------------------------------------------------


def completed_result(op: RequestedOperation, outcome: LegalOutcome, transport: TransportOutcome,
               explanation: str, *, payload: Mapping[str, Any] | None = None,
               args: Mapping[str, Any] | None = None, line: str | None = None,
               detail: str | None = None, started: float | None = None,
               available: Sequence[str] = ()) -> OperationResult:
    effects = op.check_effects(computed_effects(op, outcome.value, transport.value))
    cards = cards_for(op, effects, outcome, payload, explanation)
    if available and "gap" in cards:
        cards["gap"]["available"] = list(available)
    elapsed = int((time.monotonic() - started) * 1000) if started is not None else 0
    return OperationResult(op, outcome, transport, effects, cards, line or explanation, args, payload,
                           detail, elapsed)


def application_result(op: RequestedOperation, locale: str) -> OperationResult:
    args = op.arguments
    if op.tool == "legal_boundary":
        return completed_result(op, LegalOutcome.LEGAL_BOUNDARY, TransportOutcome.COMPLETED,
                          text(locale, "boundary"))
    return completed_result(op, LegalOutcome.NEEDS_CLARIFICATION, TransportOutcome.COMPLETED,
                      str(args.get("question")), available=list(args.get("options") or []))


def transport_gap(op: RequestedOperation, transport: TransportOutcome, locale: str,
                  detail: str | None = None) -> OperationResult:
    return completed_result(op, LegalOutcome.NOT_EVALUATED, transport, text(locale, transport.value),
                      detail=detail)


@dataclass
class Executor:
    """Runs a frozen plan's operations in user order against the in-process core."""

    call: CoreCall
    locale: str
    authority: SubjectAuthority | None
    first_deadline: Callable[[], float | None] = lambda: None
    results: list[OperationResult] = field(default_factory=list)

    async def run(self, operations: Sequence[RequestedOperation], sink: ResultSink) -> list[OperationResult]:
        pending = list(operations)
        while pending:
            op = pending.pop(0)
            result = await self._one(op)
            self.results.append(result)
            await sink(result)
            if result.transport_outcome is TransportOutcome.TIMED_OUT:
                for rest in pending:
                    gap = transport_gap(rest, TransportOutcome.TIMED_OUT, self.locale)
                    self.results.append(gap)
                    await sink(gap)
                break
        return self.results

    async def _one(self, op: RequestedOperation) -> OperationResult:
        if op.is_application:
            return application_result(op, self.locale)
        if not authorised(op, self.authority):
            return completed_result(op, LegalOutcome.NEEDS_CLARIFICATION, TransportOutcome.COMPLETED,
                              text(self.locale, "needs_work"))
        args = executed_arguments(op)
        started = time.monotonic()
        try:
            payload = await self._call(op.tool, args)
            outcome = cp.outcome_of(payload)
        except TimeoutError:
            return transport_gap(op, TransportOutcome.TIMED_OUT, self.locale, "first_result_deadline")
        except UnknownStatusError:
            return transport_gap(op, TransportOutcome.UPSTREAM_FAILED, self.locale, "unknown_status")
        except RequestError:
            return completed_result(op, LegalOutcome.INVALID_REQUEST, TransportOutcome.COMPLETED,
                              text(self.locale, "invalid"), args=args,
                              detail="operation_arguments_invalid", started=started)
        except LexError as exc:
            transport = TransportOutcome.TIMED_OUT if exc.family == "deadline" else TransportOutcome.UPSTREAM_FAILED
            return transport_gap(op, transport, self.locale, exc.code)
        except Exception as exc:
            return transport_gap(op, TransportOutcome.UPSTREAM_FAILED, self.locale, type(exc).__name__)
        line = named_line(op.tool, payload, outcome, args, self.locale, self._title(args.get("work")))
        return completed_result(op, outcome, TransportOutcome.COMPLETED, line, payload=payload, args=args,
                          line=line, started=started)

    def _title(self, work: Any) -> str | None:
        """The catalogue title of an authorised work (identity data, never model text)."""
        if self.authority is None:
            return None
        return next((m.title for m in self.authority.members if m.work == work), None)

    async def _call(self, tool: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        remaining = self.first_deadline()
        if remaining is None:
            return await self.call(tool, args)
        if remaining <= 0:
            raise TimeoutError
        return await asyncio.wait_for(self.call(tool, args), timeout=remaining)
