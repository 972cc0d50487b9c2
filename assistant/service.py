"""The assistant turn: preflight → plan → gate (one correction) → date provenance → freeze → execute.

:class:`Assistant.ask` runs one turn under three deadlines (planner 12 s, first typed result
25 s, optional synthesis 45 s; all configurable). When the model planner misses its deadline
or is unavailable, the deterministic rule planner plans the turn (disclosed); when synthesis
misses its deadline or fails, the deterministic typed reply is returned as is. The terminal
body always carries the typed per-operation results under any prose.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.arguments import PlanViolation
from assistant.catalog import Catalog
from assistant.compose import UNAVAILABLE, Finalizer, SynthesisResult
from assistant.core_port import LegalCorePort
from assistant.evidence import build_ledger
from assistant.execute import CoreCall, Executor, OperationResult, completed_result
from assistant.model import ChatTransport, ModelUnavailableError, Usage
from assistant.plan import OperationPlan, RequestedOperation
from assistant.planning import (
    InvalidPlanError,
    ModelPlanner,
    Planner,
    PlannerRequest,
    PlanningResult,
)
from assistant.provenance import date_sentences, require_provenance
from assistant.rules import RulePlanner
from assistant.subjects import (
    NONE_OF_THESE,
    CatalogueIndex,
    Preflight,
    SubjectAuthority,
    is_anaphoric,
    resolve_subject,
)
from assistant.text import locale_of, normalize
from assistant.untrusted import own_words
from assistant.vocab import ContextDisposition, LegalOutcome, TransportOutcome
from legal.errors import ConfigError

EventSink = Callable[[str, Mapping[str, Any]], Awaitable[None]]
MAX_QUESTION = 1000
INVALID_PLAN = {"en": "This request does not map to a valid legal operation.",
                "fr": "Cette demande ne correspond à aucune opération juridique valide."}
NONE_REPLY = {"en": "Add more details: an official title, an identifier or a CELEX number.",
              "fr": "Précisez : un titre officiel, un identifiant ou un numéro CELEX."}
DETERMINISTIC_LABEL = {
    "en": "[Planned by Lex's deterministic rule planner; no language model was used.]",
    "fr": "[Planifié par le planificateur déterministe de Lex ; aucun modèle de langue n'a été utilisé.]",
}
FALLBACK = {
    "en": "The model planner did not answer in time, so Lex planned this turn with its "
          "deterministic rule planner.",
    "fr": "Le planificateur à modèle n'a pas répondu à temps : Lex a planifié ce tour avec son "
          "planificateur déterministe.",
}
@dataclass(frozen=True)
class Deadlines:
    """Seconds allowed to the planner, to the first typed result and to optional synthesis."""

    planner_s: float = 12.0
    first_result_s: float = 25.0
    synthesis_s: float = 45.0

    def __post_init__(self) -> None:
        for name in ("planner_s", "first_result_s", "synthesis_s"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"the {name} deadline must be positive", code="invalid_deadline",
                                  subject=name)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Deadlines:
        def read(name: str, default: float) -> float:
            raw = env.get(name, "").strip()
            return float(raw) if raw else default

        return cls(read("LEX_ASK_PLANNER_DEADLINE_S", 12.0), read("LEX_ASK_FIRST_RESULT_DEADLINE_S", 25.0),
                   read("LEX_ASK_SYNTHESIS_DEADLINE_S", 45.0))


@dataclass
class AskOutcome:
    """The terminal object of a turn and what it does to the thread's subject context."""

    status: int
    body: dict[str, Any]
    disposition: ContextDisposition = ContextDisposition.CLEAR
    context: dict[str, Any] | None = None
    retain: bool = True


def thread_call(core: LegalCorePort) -> CoreCall:
    """An async call of a synchronous in-process core on a worker thread."""

    async def call(tool: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        return await asyncio.to_thread(core.call, tool, dict(args))

    return call


def utc_today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


async def _no_events(name: str, payload: Mapping[str, Any]) -> None:
    return None


def runner_up_clause(authority: SubjectAuthority | None, locale: str) -> str | None:
    if authority is None or authority.disclosure is None:
        return None
    d = authority.disclosure
    named = f"{d.runner_up_title} ({d.runner_up_work})" if d.runner_up_title else d.runner_up_work
    used = authority.members[0].work
    if locale == "fr":
        return (f"Votre formulation désignait plus d'un instrument ; Lex a utilisé {used} plutôt que "
                f"{named}.")
    return f"Your wording named more than one instrument; Lex used {used} rather than {named}."


def citation_clauses(authority: SubjectAuthority | None, locale: str, used: Sequence[str] = ()) -> list[str]:
    """A work selected by a dated citation (and used by the plan): the reader's words that
    selected it, and why."""
    out: list[str] = []
    for member in authority.members if authority is not None else ():
        citation = member.citation
        if citation is None or citation.day is None or member.work not in used:
            continue
        named = f"{member.work} ({member.title})" if member.title else member.work
        kind, day = "/".join(citation.types), citation.day.isoformat()
        if locale == "fr":
            out.append(f"Lex a compris « {citation.words} » comme {named} : le seul acte détenu de type "
                       f"{kind} daté du {day}. Cette date désigne l'acte ; ce n'est pas la date du texte.")
        else:
            out.append(f'Lex took "{citation.words}" to mean {named}: the only held act of type {kind} '
                       f"dated {day}. That date names the act; it is not the date of the text.")
    return out


def disclosures(plan: OperationPlan, authority: SubjectAuthority | None, locale: str,
                today: dt.date | None = None) -> list[str]:
    """Forced disclosures: a dated citation's selection, the runner-up, then every date used and
    its provenance (each once)."""
    out: list[str] = []
    clause = runner_up_clause(authority, locale)
    used = [str(op.arguments["work"]) for op in plan.operations if op.arguments.get("work")]
    if used:
        out.extend(citation_clauses(authority, locale, used))
        if clause:
            out.append(clause)
    for op in plan.operations:
        for sentence in date_sentences(op, locale, today or utc_today()):
            if sentence not in out:
                out.append(sentence)
    return out


def with_disclosures(reply: str, sentences: Sequence[str]) -> str:
    """Append each disclosure not already present verbatim (idempotent)."""
    for sentence in sentences:
        if sentence and sentence not in reply:
            reply = f"{reply}\n{sentence}"
    return reply


def merge_ui(results: Sequence[OperationResult]) -> dict[str, Any]:
    """First card per slot wins (the per-operation cards stay on each operation)."""
    merged: dict[str, Any] = {}
    for result in results:
        for slot, card in result.cards.items():
            merged.setdefault(slot, card)
    return merged


@dataclass
class _Turn:
    """Per-turn mutable bookkeeping (never shared between turns)."""

    request_id: str
    question: str
    locale: str
    started: float
    emit: EventSink
    trace: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    timing: dict[str, int | None] = field(default_factory=dict)
    first_reported: bool = False


@dataclass
class Assistant:
    """One mounted assistant: core call, catalog, catalogue, optional model, deadlines."""

    call: CoreCall
    catalog: Catalog
    catalogue: CatalogueIndex
    transport: ChatTransport | None = None
    deadlines: Deadlines = field(default_factory=Deadlines)
    clock: Callable[[], float] = time.monotonic
    today: Callable[[], dt.date] = utc_today
    new_request_id: Callable[[], str] = lambda: uuid.uuid4().hex
    hybrid_servable: bool = False

    @property
    def planner_kind(self) -> str:
        return "model" if self.transport is not None else "deterministic"

    def model_identity(self) -> dict[str, str] | None:
        return self.transport.identity.to_dict() if self.transport is not None else None

    @staticmethod
    def is_non_selection(question: str) -> bool:
        return normalize(question) == NONE_OF_THESE

    async def ask(self, question: str, *, history: Sequence[Mapping[str, str]] = (),
                  context: Mapping[str, Any] | None = None, emit: EventSink | None = None,
                  request_id: str | None = None) -> AskOutcome:
        locale = locale_of(question)
        turn = _Turn(request_id or self.new_request_id(), question, locale, self.clock(), emit or _no_events)
        if not 1 <= len(question.strip()) <= MAX_QUESTION:
            return AskOutcome(400, {"error": {"family": "request", "code": "question_length",
                                              "message": "the question must hold 1..1000 characters"},
                                    "reply": ""}, retain=False)
        if self.is_non_selection(question):
            return AskOutcome(200, self._body(turn, self._labelled(NONE_REPLY[locale], locale), []),
                              ContextDisposition.CLEAR,
                              retain=False)
        await turn.emit("phase", {"phase": "resolution", "status": "started"})
        previous = next((m["content"] for m in reversed(history) if m.get("role") == "user"), None)
        own = own_words(question)
        preflight = resolve_subject(self.catalogue, own.text, locale, context=context, previous_turn=previous)
        turn.trace.append(dict(preflight.trace))
        await turn.emit("phase", {"phase": "resolution", "status": "completed"})
        if preflight.clarification is not None:
            return self._subject_clarification(turn, preflight)
        return await self._planned(turn, preflight, history)

    # --- planning ---------------------------------------------------------------------------

    def _first_remaining(self, turn: _Turn) -> float | None:
        if turn.first_reported:
            return None
        return self.deadlines.first_result_s - (self.clock() - turn.started)

    async def _plan(self, turn: _Turn, request: PlannerRequest) -> tuple[PlanningResult, str | None]:
        started = self.clock()
        fallback: str | None = None
        try:
            if self.transport is None:
                return await RulePlanner().plan(request), None
            planner: Planner = ModelPlanner(self.transport, self.clock)
            remaining = self._first_remaining(turn)
            budget = self.deadlines.planner_s if remaining is None else min(self.deadlines.planner_s, remaining)
            if budget <= 0:
                raise TimeoutError
            deadline = started + budget
            result = await asyncio.wait_for(
                planner.plan(request, remaining=lambda: deadline - self.clock()), timeout=max(budget, 0.001))
            turn.usage.input_tokens += result.usage.input_tokens
            turn.usage.output_tokens += result.usage.output_tokens
            return result, None
        except TimeoutError:
            fallback = "planner_deadline"
        except ModelUnavailableError:
            fallback = "planner_unavailable"
        finally:
            turn.timing["planner_ms"] = int((self.clock() - started) * 1000)
        result = await RulePlanner().plan(request)
        result.diagnostics.append(f"model_planner_fallback {fallback}")
        return result, fallback

    async def _planned(self, turn: _Turn, preflight: Preflight,
                       history: Sequence[Mapping[str, str]]) -> AskOutcome:
        request = PlannerRequest(turn.request_id, turn.question, turn.locale, self.today(), self.catalog,
                                 preflight.authority, tuple(history), self.hybrid_servable)
        await turn.emit("phase", {"phase": "planning", "status": "started"})
        try:
            planned, fallback = await self._plan(turn, request)
        except InvalidPlanError as exc:
            turn.usage.input_tokens += exc.usage.input_tokens
            turn.usage.output_tokens += exc.usage.output_tokens
            return self._invalid_plan(turn, exc.violation, exc.attempts)
        except PlanViolation as exc:  # a rule-planner violation is an invalid plan too
            return self._invalid_plan(turn, exc.violation, 1)
        plan, diagnostics = planned.plan, [f"dates {op.operation_id} {op.tool} "
                                           + ",".join(f"{d.argument}={d.source}" for d in op.dates)
                                           for op in planned.plan.operations if op.dates]
        try:
            require_provenance(plan.operations)
        except PlanViolation as exc:
            return self._invalid_plan(turn, exc.violation, planned.attempts)
        plan_trace = plan.trace()
        plan_trace.update({"planner": planned.planner, "attempts": planned.attempts,
                           "diagnostics": [*planned.diagnostics, *diagnostics]})
        if planned.repaired:
            plan_trace["planner_retry"] = True
        turn.trace.append(plan_trace)
        await turn.emit("phase", {"phase": "planning", "status": "completed"})
        return await self._execute(turn, plan, preflight.authority, planned.planner, fallback)

    # --- execution and synthesis ------------------------------------------------------------

    async def _execute(self, turn: _Turn, plan: OperationPlan, authority: SubjectAuthority | None,
                       planner: str, fallback: str | None) -> AskOutcome:
        await turn.emit("phase", {"phase": "execution", "status": "started"})
        executor = Executor(self.call, turn.locale, authority, lambda: self._first_remaining(turn))
        started = self.clock()

        async def sink(result: OperationResult) -> None:
            if not turn.first_reported:
                turn.first_reported = True
                turn.timing["first_result_ms"] = int((self.clock() - turn.started) * 1000)
            turn.trace.append(result.trace())
            await turn.emit("step", {"kind": result.operation.tool, "text": result.line})
            await turn.emit("operation_result", result.wire())

        results = await executor.run(plan.operations, sink)
        turn.timing["core_ms"] = int((self.clock() - started) * 1000)
        await turn.emit("phase", {"phase": "execution", "status": "completed"})
        notes = disclosures(plan, authority, turn.locale, self.today())
        if fallback:
            notes.append(FALLBACK[turn.locale])
        typed = self._typed_reply(turn, results, notes, planner)
        reply, synthesis = await self._synthesis(turn, plan, results, typed, notes)
        body = self._body(turn, reply, results, typed_reply=typed, planner=planner, fallback=fallback,
                          synthesis=synthesis, disclosures=notes)
        status = 504 if any(r.transport_outcome is TransportOutcome.TIMED_OUT for r in results) else 200
        disposition, context = self._context(turn, authority)
        return AskOutcome(status, body, disposition, context)

    def _typed_reply(self, turn: _Turn, results: Sequence[OperationResult], notes: Sequence[str],
                     planner: str) -> str:
        clarification = next((r for r in results if r.operation.tool == "clarification"), None)
        if clarification is not None:
            reply = str(clarification.operation.arguments.get("question"))
        else:
            reply = "\n".join(r.line for r in results)
        reply = with_disclosures(reply, notes)
        if planner == "deterministic":
            reply = f"{reply}\n{DETERMINISTIC_LABEL[turn.locale]}"
        return reply

    def _synthesis_allowed(self, plan: OperationPlan, results: Sequence[OperationResult]) -> bool:
        return plan.synthesis_requested and not any(
            r.legal_outcome is LegalOutcome.NEEDS_CLARIFICATION
            or r.transport_outcome is not TransportOutcome.COMPLETED for r in results)

    async def _synthesis(self, turn: _Turn, plan: OperationPlan, results: Sequence[OperationResult],
                         typed: str, notes: Sequence[str]) -> tuple[str, dict[str, Any]]:
        if not plan.synthesis_requested:
            return typed, {"requested": False, "status": "not_requested"}
        if not self._synthesis_allowed(plan, results):
            return typed, {"requested": True, "status": "skipped"}
        unavailable = typed + UNAVAILABLE[turn.locale]
        if self.transport is None:
            await turn.emit("synthesis", {"status": "unavailable"})
            return unavailable, {"requested": True, "status": "synthesis_unavailable"}
        await turn.emit("synthesis", {"status": "started"})
        started = self.clock()
        outcome = await self._finalize(turn, results, typed)
        turn.timing["synthesis_ms"] = int((self.clock() - started) * 1000)
        turn.usage.input_tokens += outcome.usage.input_tokens
        turn.usage.output_tokens += outcome.usage.output_tokens
        turn.trace.append(outcome.trace())
        if outcome.status == "completed" and outcome.reply:
            await turn.emit("synthesis", {"status": "completed"})
            return with_disclosures(outcome.reply, notes), {"requested": True, "status": "completed"}
        await turn.emit("synthesis", {"status": "unavailable"})
        return unavailable, {"requested": True, "status": outcome.status}

    async def _finalize(self, turn: _Turn, results: Sequence[OperationResult], typed: str) -> SynthesisResult:
        assert self.transport is not None
        ledger = build_ledger(results)
        try:
            return await asyncio.wait_for(Finalizer(self.transport).run(turn.question, typed, ledger, turn.locale),
                                          timeout=self.deadlines.synthesis_s)
        except TimeoutError:
            return SynthesisResult("deadline")
        except ModelUnavailableError:
            return SynthesisResult("unavailable")
        except Exception:  # optional prose can only lose: any failure keeps the typed reply
            logging.getLogger(__name__).exception("synthesis failed")
            return SynthesisResult("failed")

    # --- bodies -------------------------------------------------------------------------------

    def _context(self, turn: _Turn, authority: SubjectAuthority | None) -> tuple[ContextDisposition,
                                                                              dict[str, Any] | None]:
        if authority is not None:
            return ContextDisposition.REPLACE, authority.context()
        if is_anaphoric(normalize(turn.question)):
            return ContextDisposition.PRESERVE, None
        return ContextDisposition.CLEAR, None

    def _body(self, turn: _Turn, reply: str, results: Sequence[OperationResult], *,
              typed_reply: str | None = None, planner: str | None = None, fallback: str | None = None,
              synthesis: Mapping[str, Any] | None = None, disclosures: Sequence[str] = (),
              clarification: Mapping[str, Any] | None = None) -> dict[str, Any]:
        turn.timing.setdefault("planner_ms", None)
        body: dict[str, Any] = {
            "request_id": turn.request_id, "locale": turn.locale, "reply": reply,
            "typed_reply": typed_reply if typed_reply is not None else reply,
            "planner": {"kind": planner or self.planner_kind, **({"fallback": fallback} if fallback else {})},
            "trace": turn.trace, "operations": [r.wire() for r in results],
            "ui": merge_ui(results) or None, "disclosures": list(disclosures),
            "synthesis": dict(synthesis or {"requested": False, "status": "not_requested"}),
            "model_usage": turn.usage.to_dict(), "model_identity": self.model_identity(),
            "timing": {**turn.timing, "total_ms": int((self.clock() - turn.started) * 1000)},
        }
        if clarification is not None:
            body["clarification"] = dict(clarification)
        return body

    def _labelled(self, reply: str, locale: str) -> str:
        """With no model configured, every reply says so."""
        return reply if self.transport is not None else f"{reply}\n{DETERMINISTIC_LABEL[locale]}"

    def _subject_clarification(self, turn: _Turn, preflight: Preflight) -> AskOutcome:
        assert preflight.clarification is not None
        clar = preflight.clarification
        values = [c.value for c in clar.choices]
        op = RequestedOperation.create(turn.request_id, 0, "clarification",
                                       {"question": clar.question, "options": values})
        op = dataclasses.replace(op, operation_id=f"{turn.request_id}:subject")
        result = completed_result(op, LegalOutcome.NEEDS_CLARIFICATION, TransportOutcome.COMPLETED,
                                  clar.question, available=values)
        body = self._body(turn, self._labelled(clar.question, turn.locale), [result], clarification={
            "question": clar.question, "options": [c.label for c in clar.choices],
            "choices": [{"label": c.label, "value": c.value} for c in clar.choices]})
        anaphoric = is_anaphoric(normalize(turn.question))
        return AskOutcome(200, body, ContextDisposition.PRESERVE if anaphoric else ContextDisposition.CLEAR)

    def _invalid_plan(self, turn: _Turn, violation: str, attempts: int) -> AskOutcome:
        reply = self._labelled(INVALID_PLAN[turn.locale], turn.locale)
        turn.trace.append({"phase": "operation_plan", "request_id": turn.request_id,
                           "status": "invalid_request", "violation": violation, "attempts": attempts})
        body = self._body(turn, reply, [])
        body["operations"] = [{
            "operation_id": f"{turn.request_id}:invalid", "order": 0, "tool": None, "result_class": None,
            "disposition": "gap", "legal_outcome": LegalOutcome.INVALID_REQUEST.value,
            "transport_outcome": TransportOutcome.COMPLETED.value, "effects": ["gap"],
            "ui": {"gap": {"status": LegalOutcome.INVALID_REQUEST.value, "explanation": reply}}}]
        body["ui"] = body["operations"][0]["ui"]
        return AskOutcome(200, body, ContextDisposition.CLEAR)
