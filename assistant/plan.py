"""The frozen plan: value-copied operations with declared effects and recorded repairs.

An :class:`OperationPlan` is sealed: every operation stores its arguments as canonical JSON
bytes (at most 32,768) and hands each consumer a fresh copy; a later rewrite builds a new
operation and a new plan through :meth:`OperationPlan.create`, which re-runs every
invariant. Each operation declares the effects it may render; producing any other effect
raises :class:`UndeclaredEffectError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from assistant.arguments import PlanViolation
from assistant.catalog import INVENTORY_TOOLS, POLICIES
from assistant.vocab import Disposition, Effect, ResultClass
from legal.errors import IntegrityError

if TYPE_CHECKING:
    from assistant.provenance import DateSource

MAX_OPERATIONS = 8
MAX_ARGUMENT_BYTES = 32_768
MAX_REQUEST_ID = 128
LOCALES = frozenset({"en", "fr"})


class UndeclaredEffectError(IntegrityError):
    """An operation produced an effect outside its frozen declaration."""

    default_code = "undeclared_effect"


def canonical_arguments(arguments: Mapping[str, Any]) -> bytes:
    """Sorted, compact UTF-8 JSON of one operation's arguments, bounded."""
    data = json.dumps(dict(arguments), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    raw = data.encode("utf-8")
    if len(raw) > MAX_ARGUMENT_BYTES:
        raise PlanViolation("out_of_bounds",
                            f"Operation arguments exceed {MAX_ARGUMENT_BYTES} bytes.")
    return raw


@dataclass(frozen=True)
class RequestedOperation:
    """One planned operation, immutable; ``arguments`` returns a new copy on every read."""

    operation_id: str
    user_order: int
    tool: str
    arguments_json: bytes
    effects: frozenset[Effect]
    repairs: tuple[str, ...] = ()
    dates: tuple[DateSource, ...] = ()

    @classmethod
    def create(cls, request_id: str, index: int, tool: str, arguments: Mapping[str, Any],
               repairs: Iterable[str] = ()) -> RequestedOperation:
        policy = POLICIES.get(tool)
        if policy is None:
            raise PlanViolation("unknown_operation", "Unknown legal operation or application action.")
        return cls(f"{request_id}:op-{index + 1}", index, tool, canonical_arguments(arguments),
                   policy.declared_effects, tuple(repairs))

    @property
    def arguments(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.arguments_json)
        return value

    @property
    def result_class(self) -> ResultClass | None:
        return POLICIES[self.tool].result_class

    @property
    def disposition(self) -> Disposition | None:
        return POLICIES[self.tool].disposition

    @property
    def is_application(self) -> bool:
        return self.disposition is not None

    def with_arguments(self, tool: str, arguments: Mapping[str, Any],
                       repair: str | None = None) -> RequestedOperation:
        """A new operation at the same position (the original is untouched)."""
        repairs = (*self.repairs, repair) if repair else self.repairs
        return replace(self, tool=tool, arguments_json=canonical_arguments(arguments),
                       effects=POLICIES[tool].declared_effects, repairs=repairs, dates=())

    def with_dates(self, dates: tuple[DateSource, ...]) -> RequestedOperation:
        """The same operation carrying the provenance of each of its dates."""
        return replace(self, dates=tuple(dates))

    def check_effects(self, produced: Iterable[Effect]) -> frozenset[Effect]:
        """``produced`` if it lies inside the frozen declaration, else raise."""
        effects = frozenset(produced)
        outside = effects - self.effects
        if outside:
            raise UndeclaredEffectError(
                f"operation {self.operation_id} produced an effect outside its frozen plan",
                subject=",".join(sorted(outside)))
        return effects

    def trace(self) -> dict[str, Any]:
        return {
            "operation_id": self.operation_id, "order": self.user_order, "tool": self.tool,
            "result_class": self.result_class.value if self.result_class else None,
            "disposition": self.disposition.value if self.disposition else None,
            "arguments": self.arguments, "effects": sorted(e.value for e in self.effects),
            "repairs": list(self.repairs),
            **({"dates": [d.to_dict() for d in self.dates]} if self.dates else {}),
        }


@dataclass(frozen=True)
class OperationPlan:
    """One to eight frozen operations in user order, and the reconciled synthesis flag."""

    request_id: str
    locale: str
    operations: tuple[RequestedOperation, ...]
    synthesis_requested: bool
    notes: tuple[str, ...] = ()

    @classmethod
    def create(cls, request_id: str, locale: str, operations: Sequence[RequestedOperation],
               synthesis: bool, notes: Iterable[str] = ()) -> OperationPlan:
        """Check every invariant, reconcile synthesis against the plan, and seal."""
        ops = tuple(sorted(operations, key=lambda op: op.user_order))
        _check_invariants(request_id, locale, ops)
        reconciled, note = reconcile_synthesis(ops, synthesis)
        return cls(request_id, locale, ops, reconciled, (*notes, *([note] if note else [])))

    def replace_operations(self, operations: Sequence[RequestedOperation],
                           synthesis: bool | None = None) -> OperationPlan:
        """A new plan (never a mutation); rewrites never raise the synthesis flag."""
        flag = self.synthesis_requested if synthesis is None else synthesis and self.synthesis_requested
        return OperationPlan.create(self.request_id, self.locale, operations, flag, self.notes)

    def trace(self) -> dict[str, Any]:
        return {
            "phase": "operation_plan", "request_id": self.request_id, "locale": self.locale,
            "synthesis": self.synthesis_requested,
            "operations": [op.trace() for op in self.operations],
            **({"notes": list(self.notes)} if self.notes else {}),
        }


def _check_invariants(request_id: str, locale: str, ops: tuple[RequestedOperation, ...]) -> None:
    if not 1 <= len(request_id) <= MAX_REQUEST_ID:
        raise PlanViolation("other", "The request id must have 1 to 128 characters.")
    if locale not in LOCALES:
        raise PlanViolation("other", "The locale must be en or fr.")
    if not 1 <= len(ops) <= MAX_OPERATIONS:
        raise PlanViolation("out_of_bounds", "A plan holds one to eight operations.")
    if [op.user_order for op in ops] != list(range(len(ops))):
        raise PlanViolation("other", "Operation order must be contiguous from zero.")
    ids = [op.operation_id for op in ops]
    if len(set(ids)) != len(ids) or not all(ids):
        raise PlanViolation("other", "Operation ids must be unique and non-empty.")
    for op in ops:
        policy = POLICIES[op.tool]
        if op.effects != policy.declared_effects:
            raise PlanViolation("other", f"Operation '{op.tool}' must declare its catalog effects.")
    if any(op.tool == "clarification" for op in ops) and len(ops) != 1:
        raise PlanViolation("other", "A clarification must be the only operation.")


def reconcile_synthesis(ops: Sequence[RequestedOperation], synthesis: bool) -> tuple[bool, str | None]:
    """The synthesis flag checked against the plan only, never against the reader's words.

    Refused when every operation is an application disposition; cleared when every legal
    operation is an inventory (coverage, cited_by, in_force_on), whose lists are rendered in
    full already.
    """
    if not synthesis:
        return False, None
    legal = [op for op in ops if not op.is_application]
    if not legal:
        raise PlanViolation("other", "Synthesis cannot be requested for application actions alone.")
    if all(op.tool in INVENTORY_TOOLS for op in legal):
        return False, "synthesis_declined " + ",".join(op.tool for op in legal)
    return True, None


def computed_effects(op: RequestedOperation, outcome: str, transport: str) -> frozenset[Effect]:
    """The effects an outcome renders (checked against the declaration by the caller)."""
    policy = POLICIES[op.tool]
    if transport != "completed" or op.is_application:
        return frozenset({Effect.GAP})
    if outcome in ("succeeded", "succeeded_empty"):
        return frozenset({policy.primary, *policy.extra})
    if outcome == "not_comparable" and policy.primary is Effect.DIFF:
        return frozenset({Effect.DIFF, Effect.GAP})
    return frozenset({Effect.GAP})
