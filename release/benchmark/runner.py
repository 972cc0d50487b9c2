"""Run judged cases through the legal core's ``search`` operation, in process.

Protocol (index_ops.md §6, adapted to this core):

- one ``search`` call per case with ``limit`` 10 and the case's filters (``as_of`` sets
  ``time_scope: as_of``); ``fuzzy`` is ``auto`` only for the ``fuzzy`` category unless the
  case says otherwise (the reference benchmark does the same);
- the core answers one section per selected publisher; their hits are merged by
  interleaving ranks (first hit of each section in the order the answer gives its sections —
  the core orders them by evidence, docs/search.md — then the second…); a case with a
  ``publisher`` filter has one section;
- ``retrieval_mode: hybrid`` on a core that has not activated it answers
  ``retrieval_mode_unavailable``: the case is recorded as unavailable, never silently scored
  as keyword;
- latency is the wall time of the in-process ``call`` (one untimed warm-up call first).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from legal.errors import LexError, RequestError
from release.benchmark.judgments import Case, JudgmentsError

LIMIT = 10
MODES = ("keyword", "hybrid")
UNAVAILABLE = "retrieval_mode_unavailable"
WARM_UP_QUERY = "protection des données personnelles"


class SearchCore(Protocol):
    """What the runner needs from :class:`serve.core.LegalCore`."""

    def call(self, name: str, args: Mapping[str, Any] | None = None) -> Mapping[str, Any]: ...


Validator = Callable[[Mapping[str, Any]], object]


@dataclass(frozen=True)
class CaseRun:
    """The merged hits of one case, its latency and status (``ok``, ``unavailable``, ``error``)."""

    case_id: str
    hits: tuple[Mapping[str, Any], ...]
    latency_ms: float | None
    status: str = "ok"
    detail: str = ""
    outcome: str | None = None


def search_args(case: Case, mode: str = "keyword", limit: int = LIMIT) -> dict[str, Any]:
    """The ``search`` arguments of one case."""
    f = case.filters
    args: dict[str, Any] = {"query": case.query, "limit": limit, "retrieval_mode": mode,
                            "fuzzy": f.fuzzy or ("auto" if case.category == "fuzzy" else "off")}
    if f.publisher:
        args["publisher"] = f.publisher
    if f.language:
        args["language"] = f.language
    if f.document_type:
        args["document_type"] = f.document_type
    if f.works:
        args["works"] = list(f.works)
    if f.as_of:
        args["time_scope"] = "as_of"
        args["as_of"] = f.as_of
    return args


def check_cases(cases: Iterable[Case], validate: Validator, mode: str = "keyword") -> None:
    """Refuse (before any timing) a case whose arguments the ``search`` declaration rejects."""
    if mode not in MODES:
        raise JudgmentsError(f"mode must be one of {', '.join(MODES)}", code="invalid_mode", subject=mode)
    for case in cases:
        try:
            validate(search_args(case, mode))
        except RequestError as exc:
            raise JudgmentsError(f"search refuses this case: {exc.message}", code="case_not_searchable",
                                 subject=case.id) from None


def sections(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The publisher sections of a fanned-out answer (or the answer itself)."""
    found = answer.get("publishers")
    if isinstance(found, list):
        return [s for s in found if isinstance(s, Mapping)]
    return [answer]


def interleave(groups: Sequence[Sequence[Mapping[str, Any]]], limit: int = LIMIT) -> list[Mapping[str, Any]]:
    """Round-robin merge of per-publisher ranked lists, at most ``limit`` rows."""
    out: list[Mapping[str, Any]] = []
    depth = max((len(g) for g in groups), default=0)
    for i in range(depth):
        out.extend(g[i] for g in groups if i < len(g))
    return out[:limit]


def merged_hits(answer: Mapping[str, Any], limit: int = LIMIT) -> list[Mapping[str, Any]]:
    groups = [[h for h in s.get("hits") or [] if isinstance(h, Mapping)] for s in sections(answer)]
    return interleave(groups, limit)


def unavailable_reason(answer: Mapping[str, Any]) -> str | None:
    """The activation reason when any section refused the requested retrieval mode."""
    for section in sections(answer):
        if section.get("outcome") == UNAVAILABLE:
            return str(section.get("retrieval_unavailable_reason") or "unavailable")
    return None


def run_case(core: SearchCore, case: Case, mode: str = "keyword", *, limit: int = LIMIT,
             timer: Callable[[], float] = time.perf_counter) -> CaseRun:
    """One timed ``search`` call, its merged hits and status."""
    args = search_args(case, mode, limit)
    started = timer()
    try:
        answer = core.call("search", args)
    except LexError as exc:
        return CaseRun(case.id, (), (timer() - started) * 1000, "error", f"{exc.code}: {exc.message}")
    elapsed = (timer() - started) * 1000
    reason = unavailable_reason(answer)
    if reason is not None:
        return CaseRun(case.id, (), elapsed, "unavailable", reason, UNAVAILABLE)
    return CaseRun(case.id, tuple(merged_hits(answer, limit)), elapsed, outcome=str(answer.get("outcome")))


def warm_up(core: SearchCore, mode: str, timer: Callable[[], float] = time.perf_counter) -> float:
    """One untimed-for-metrics call (cold caches); returns its latency in ms."""
    started = timer()
    with contextlib.suppress(LexError):
        core.call("search", {"query": WARM_UP_QUERY, "limit": LIMIT, "retrieval_mode": mode})
    return (timer() - started) * 1000


def run_cases(core: SearchCore, cases: Sequence[Case], mode: str = "keyword", *, limit: int = LIMIT,
              timer: Callable[[], float] = time.perf_counter) -> list[CaseRun]:
    return [run_case(core, case, mode, limit=limit, timer=timer) for case in cases]
