"""Assistant evaluation: run ``evals/assistant_cases.json`` and print the score.

``run()`` plans every case with the configured planner — a model when ``LEX_MODEL_*`` (or the
Azure variables) configure one, else the deterministic rule planner — and executes it through
the whole pipeline (preflight, gate, date provenance, freeze, executor, outcome router). The core is
the real legal core over ``index_dir`` (or ``LEX_INDEX_DIR``) when given; otherwise an offline
stub that validates every call with the real operation declarations and answers each one
``succeeded``, so the offline score measures planning, arguments, guards, outcomes of the
application and the effects, never legal content. Setup turns (``history``) run through the
same server-side thread semantics as the web boundary. Canary markers must never appear in a
response.

``python -m bench.bench_assistant [--index-dir D] [--deterministic] [--json]``.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.catalog import Catalog
from assistant.core_port import MountedCatalogue, operation_schemas
from assistant.model import ChatTransport
from assistant.service import AskOutcome, Assistant, Deadlines, thread_call
from assistant.subjects import CatalogueIndex, CatalogueSource, StaticCatalogue
from assistant.vocab import ContextDisposition

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "evals" / "assistant_cases.json"
DATE_CASES = ROOT / "evals" / "assistant_date_cases.json"


class StubCore:
    """Validates with the real declarations and answers ``succeeded`` (no legal content)."""

    def __init__(self) -> None:
        from serve.core import OPERATIONS

        self.operations = OPERATIONS

    def call(self, op_name: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
        self.operations[op_name].validate(dict(args))
        payload: dict[str, Any] = {"operation": op_name, "outcome": "succeeded", "provisional": False,
                                   "artifact": {"set_id": "offline-stub"}}
        if "work" in args:
            payload["work"] = args["work"]
        if op_name == "as_of":
            payload["provisions"] = [{"anchor": a, "num": a} for a in args.get("anchors") or []]
        return payload


@dataclass
class CaseResult:
    case_id: str
    failures: list[str] = field(default_factory=list)
    skipped: bool = False
    category: str = "general"
    adversarial: bool = False
    #: Date arguments of the executed operations, and their provenance sources ("" when none).
    dates: list[str] = field(default_factory=list)
    #: Wall time of the scored turn (``timing.total_ms`` of its terminal object).
    total_ms: int | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and not self.skipped


def _primary_args(body: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["operation_id"]: row.get("args", {}) for row in body.get("trace", [])
            if row.get("phase") == "primary"}


def _check_outcome(where: str, expected: Mapping[str, Any], actual: Mapping[str, Any], strict: bool) -> list[str]:
    """Exact outcome and effects offline; over a real index only a well-formed evaluated outcome."""
    outcome, effects = actual.get("legal_outcome"), sorted(actual.get("effects") or [])
    if not strict:
        allowed = {*expected["effects"], "gap"}
        bad = outcome in ("invalid_request", "not_evaluated") or not set(effects) <= allowed
        return [f"{where}: outcome {outcome} effects {effects}"] if bad else []
    failures = []
    if outcome != expected["legal_outcome"]:
        failures.append(f"{where}: outcome {outcome} != {expected['legal_outcome']}")
    if effects != sorted(expected["effects"]):
        failures.append(f"{where}: effects {effects} != {expected['effects']}")
    return failures


def _check_operation(index: int, expected: Mapping[str, Any], actual: Mapping[str, Any],
                     executed: Mapping[str, Any], strict: bool = True) -> list[str]:
    where = f"op{index + 1}"
    if actual.get("tool") != expected["tool"]:
        return [f"{where}: tool {actual.get('tool')} != {expected['tool']}"]
    failures = _check_outcome(where, expected, actual, strict)
    wanted = dict(expected.get("arguments") or {})
    if expected["tool"] == "clarification":
        options = ((actual.get("ui") or {}).get("gap") or {}).get("available")
        if "options" in wanted and options != wanted["options"]:
            failures.append(f"{where}: options {options} != {wanted['options']}")
        return failures
    for key, value in wanted.items():
        if executed.get(key) != value:
            failures.append(f"{where}: {key}={executed.get(key)!r} != {value!r}")
    return failures


def _planned_dates(body: Mapping[str, Any]) -> list[list[dict[str, str]]]:
    """Per planned operation, the provenance of each date (from the frozen plan's trace)."""
    plan = next((t for t in body.get("trace", []) if t.get("phase") == "operation_plan"
                 and "operations" in t), None)
    return [list(op.get("dates") or []) for op in (plan or {}).get("operations", [])]


def _check_dates(expected: Sequence[Mapping[str, Any]], body: Mapping[str, Any]) -> list[str]:
    """Each expected date provenance (argument, value, source) is in the frozen plan."""
    failures: list[str] = []
    planned = _planned_dates(body)
    for index, want in enumerate(expected):
        if "dates" not in want:
            continue
        got = planned[index] if index < len(planned) else []
        got_keys = {(d.get("argument"), d.get("value"), d.get("source")) for d in got}
        for d in want["dates"]:
            if (d["argument"], d["value"], d["source"]) not in got_keys:
                failures.append(f"op{index + 1}: date {d['argument']}={d['value']} ({d['source']}) "
                                f"not in plan {sorted(got_keys)}")
        if not want["dates"] and got:
            failures.append(f"op{index + 1}: unexpected dates {got}")
    return failures


DATE_ARGUMENTS = ("date", "as_of", "from_date", "to_date")


def executed_date_sources(body: Mapping[str, Any]) -> list[str]:
    """The provenance source of every date argument an executed operation received ("" when the
    frozen plan carries none for that argument and value — which must never happen)."""
    plan = next((t for t in body.get("trace", []) if t.get("phase") == "operation_plan"
                 and "operations" in t), None)
    attested = {op.get("operation_id"): {(d.get("argument"), d.get("value")): d.get("source")
                                         for d in op.get("dates") or []}
                for op in (plan or {}).get("operations", [])}
    out: list[str] = []
    for row in body.get("trace", []):
        if row.get("phase") != "primary":
            continue
        known = attested.get(row.get("operation_id"), {})
        for argument in DATE_ARGUMENTS:
            value = (row.get("args") or {}).get(argument)
            if value:
                out.append(str(known.get((argument, str(value))) or ""))
    return out


def score_case(case: Mapping[str, Any], outcome: AskOutcome, canaries: Sequence[str],
               strict: bool = True) -> list[str]:
    """Every way one case's terminal object departs from its expectation (empty: passed)."""
    body = outcome.body
    expected = case["expected"]
    failures: list[str] = []
    actual_ops = body.get("operations") or []
    if len(actual_ops) != len(expected["operations"]):
        failures.append(f"operations {[o.get('tool') for o in actual_ops]} != "
                        f"{[o['tool'] for o in expected['operations']]}")
    executed = _primary_args(body)
    for i, (want, got) in enumerate(zip(expected["operations"], actual_ops, strict=False)):
        failures += _check_operation(i, want, got, executed.get(got.get("operation_id"), {}), strict)
    failures += _check_dates(expected["operations"], body)
    if "" in executed_date_sources(body):
        failures.append("an executed date has no provenance")
    if "primary_calls" in expected and len(executed) != expected["primary_calls"]:
        failures.append(f"primary calls {len(executed)} != {expected['primary_calls']}")
    if ("clarification" in body) != expected.get("clarification", False):
        failures.append("clarification presence differs")
    synthesis = body.get("synthesis") or {}
    if synthesis.get("requested") != expected.get("synthesis_requested", False):
        failures.append(f"synthesis requested {synthesis.get('requested')}")
    if "synthesis_status" in expected and synthesis.get("status") != expected["synthesis_status"]:
        failures.append(f"synthesis status {synthesis.get('status')}")
    reply = str(body.get("reply") or "")
    failures += [f"reply lacks {m!r}" for m in expected.get("reply_contains", []) if m not in reply]
    serialized = json.dumps(body, ensure_ascii=False).lower()
    markers = {*canaries, *expected.get("forbidden_reply_contains", [])}
    failures += [f"response contains forbidden {m!r}" for m in sorted(markers) if m.lower() in serialized]
    return failures


async def _ask_case(assistant: Assistant, case: Mapping[str, Any]) -> AskOutcome:
    """Setup turns then the question, with the web boundary's thread semantics."""
    history: list[dict[str, str]] = []
    context: dict[str, Any] | None = None
    for turn in case.get("history", []):
        outcome = await assistant.ask(turn, history=history, context=context)
        history += [{"role": "user", "content": turn}, {"role": "assistant", "content": outcome.body["reply"]}]
        if outcome.disposition is ContextDisposition.REPLACE:
            context = outcome.context
        elif outcome.disposition is ContextDisposition.CLEAR:
            context = None
    return await assistant.ask(case["question"], history=history[-12:], context=context)


def _transport(deterministic: bool) -> ChatTransport | None:
    if deterministic:
        return None
    from assistant.build import transport_from_env

    return transport_from_env(os.environ)


def load_cases(path: Path | str) -> dict[str, Any]:
    """A cases document; ``catalogue_from`` borrows the fixture catalogue of another file."""
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    if "catalogue" not in doc and doc.get("catalogue_from"):
        doc["catalogue"] = json.loads((ROOT / doc["catalogue_from"]).read_text(encoding="utf-8"))["catalogue"]
    return doc


def by_category(results: Sequence[CaseResult]) -> dict[str, dict[str, Any]]:
    """Pass rates per category (and for the adversarial cases), skipped cases left out."""
    table: dict[str, dict[str, Any]] = {}
    for result in results:
        if result.skipped:
            continue
        keys = [result.category, *(["adversarial"] if result.adversarial else [])]
        for key in keys:
            row = table.setdefault(key, {"scored": 0, "passed": 0})
            row["scored"] += 1
            row["passed"] += int(result.passed)
    for row in table.values():
        row["rate"] = round(row["passed"] / row["scored"], 4) if row["scored"] else 0.0
    return dict(sorted(table.items()))


def turn_times(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Median and p95 (nearest rank) of the scored turns' wall times, in milliseconds."""
    times = sorted(r.total_ms for r in results if not r.skipped and r.total_ms is not None)
    if not times:
        return {"turns": 0, "median_ms": None, "p95_ms": None}
    return {"turns": len(times), "median_ms": statistics.median(times),
            "p95_ms": times[max(0, math.ceil(0.95 * len(times)) - 1)]}


def date_provenance(results: Sequence[CaseResult]) -> dict[str, Any]:
    """Dates in executed plans, how many carry a provenance (must be all), and by source."""
    sources = [s for r in results if not r.skipped for s in r.dates]
    attested = [s for s in sources if s]
    by_source: dict[str, int] = {}
    for source in attested:
        by_source[source] = by_source.get(source, 0) + 1
    return {"dates": len(sources), "attested": len(attested),
            "rate": round(len(attested) / len(sources), 4) if sources else 1.0,
            "by_source": dict(sorted(by_source.items()))}


def build(doc: Mapping[str, Any], index_dir: Path | None, deterministic: bool) -> tuple[Assistant, str, Any]:
    from serve.core import OPERATIONS, LegalCore

    catalogue: CatalogueSource
    if index_dir is not None:
        core: Any = LegalCore.mount(index_dir, {"set_id": "bench"})
        catalogue, label = MountedCatalogue(core.indexes), "index"
    else:
        core, label = StubCore(), "offline-stub"
        catalogue = StaticCatalogue.from_records(doc["catalogue"])
    today = dt.date.fromisoformat(doc["today"])
    assistant = Assistant(thread_call(core), Catalog.from_schemas(operation_schemas(OPERATIONS)),
                          CatalogueIndex(catalogue), _transport(deterministic), Deadlines.from_env(os.environ),
                          today=lambda: today)
    return assistant, label, core


def run(cases_path: Path | str | None = None, index_dir: Path | str | None = None, *,
        deterministic: bool = False, out: Callable[[str], None] = print) -> dict[str, Any]:
    """Run every case, print one line per case and the score, and return the summary."""
    doc = load_cases(cases_path or CASES)
    directory = Path(index_dir) if index_dir else (Path(os.environ["LEX_INDEX_DIR"])
                                                    if os.environ.get("LEX_INDEX_DIR") else None)
    assistant, core_label, _core = build(doc, directory, deterministic)
    results = asyncio.run(_run_all(assistant, doc, directory is not None))
    for result in results:
        status = "SKIP" if result.skipped else "PASS" if result.passed else "FAIL"
        out(f"{status} {result.case_id}" + (f"  {'; '.join(result.failures)}" if result.failures else ""))
    scored = [r for r in results if not r.skipped]
    passed = sum(r.passed for r in scored)
    provenance = date_provenance(results)
    times = turn_times(results)
    summary = {"cases": len(results), "scored": len(scored), "passed": passed,
               "score": round(passed / len(scored), 4) if scored else 0.0,
               "planner": assistant.planner_kind, "core": core_label,
               "failed": [r.case_id for r in scored if not r.passed],
               "categories": by_category(results), "date_provenance": provenance,
               "turn_times": times}
    categories = by_category(results)
    for name, row in categories.items():
        out(f"  {name:<16} {row['passed']:>3}/{row['scored']:<3} {row['rate']:.3f}")
    out(f"  dates in executed plans: {provenance['dates']}, with provenance {provenance['attested']} "
        f"({provenance['rate']:.1%}); by source "
        + ", ".join(f"{k} {v}" for k, v in provenance["by_source"].items()))
    out(f"  turn wall time over {times['turns']} turns: median {times['median_ms']} ms, p95 {times['p95_ms']} ms")
    out(f"assistant eval: {passed}/{len(scored)} passed, score {summary['score']:.3f} "
        f"(planner={summary['planner']}, core={core_label})")
    return summary


async def _run_all(assistant: Assistant, doc: Mapping[str, Any], with_index: bool) -> list[CaseResult]:
    results = []
    for case in doc["cases"]:
        category, adversarial = str(case.get("category", "general")), bool(case.get("adversarial"))
        if (with_index and case.get("catalogue_only")) or (not with_index and case.get("needs_full_corpus")):
            results.append(CaseResult(case["id"], skipped=True, category=category, adversarial=adversarial))
            continue
        outcome = await _ask_case(assistant, case)
        failures = score_case(case, outcome, doc.get("canaries", []), strict=not with_index)
        results.append(CaseResult(case["id"], failures, category=category, adversarial=adversarial,
                                  dates=executed_date_sources(outcome.body),
                                  total_ms=(outcome.body.get("timing") or {}).get("total_ms")))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cases", type=Path, default=None)
    parser.add_argument("--index-dir", type=Path, default=None)
    parser.add_argument("--deterministic", action="store_true", help="ignore any configured model")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    summary = run(args.cases, args.index_dir, deterministic=args.deterministic,
                  out=(lambda _line: None) if args.json else print)
    if args.json:
        print(json.dumps(summary, indent=2))
    return 0 if summary["passed"] == summary["scored"] else 1


if __name__ == "__main__":
    sys.exit(main())
