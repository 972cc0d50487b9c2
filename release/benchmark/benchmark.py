"""The retrieval benchmark end to end: mount, run, score, report (release/report.py format).

The legal core is injected (:class:`BenchmarkCore`; ``serve.core.LegalCore`` fits): release
never imports ``serve`` or ``derive``. The caller mounts the indexes and passes the core::

    with LegalCore.mount(index_dir, {"set_id": …}) as core:          # serve.core, in the caller
        report, measured = retrieval_benchmark(core, index_dir, load_judgments(path), mode="keyword",
                                               created_at="2026-08-22T00:00:00Z")
    envelope = sign_report(report, [signer])        # release.report

The report is a ``lex-retrieval-benchmark/1`` document built by
:func:`release.report.build_report`: overall metrics under the names the release gates read
(``mrr``, ``recall_at_10``, ``ndcg_at_10``, ``exact_first_accuracy``,
``temporal_leakage_failures``, ``no_hit_accuracy``, ``latency_p95_ms``) plus descriptive
ones, gates evaluated under the policy, and a ``context`` holding the protocol, the
judgments digest, the index identities, the per-category table, every case's result and
the failing cases. It is bound to the SHA-256 of each mounted index file (names relative to
the index directory) and, when the directory was verified as a signed artifact set, to its
set id as well.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from legal.errors import LexError
from release.assemble import INDEXES_DIR
from release.benchmark.judgments import Judgments, describe
from release.benchmark.runner import (
    LIMIT,
    UNAVAILABLE,
    CaseRun,
    SearchCore,
    check_cases,
    run_cases,
    warm_up,
)
from release.benchmark.scoring import Aggregate, CaseScore, aggregate, by_category, score_case
from release.files import hash_file
from release.report import GatePolicy, bind, build_report, metric
from release.verify import VerifiedSet

RUNNER = "lex bench retrieval"
#: metric names measured besides the gated ones
LATENCY_P50_MS = "latency_p50_ms"
ANCHOR_RECALL = "anchor_recall_at_10"


@dataclass(frozen=True)
class IndexFile:
    """One mounted index file and the identity its stamp declares."""

    name: str
    publisher: str
    sha256: str
    bytes: int
    stamp: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        keep = ("content_digest", "built_at", "corpus_manifest_sha256", "schema")
        return {"name": self.name, "publisher": self.publisher, "sha256": self.sha256, "bytes": self.bytes,
                **{k: self.stamp[k] for k in keep if k in self.stamp}}


@dataclass(frozen=True)
class BenchmarkRun:
    """Everything one run measured."""

    mode: str
    status: str  # ok | retrieval_mode_unavailable
    unavailable_reason: str | None
    runs: tuple[CaseRun, ...]
    scores: tuple[CaseScore, ...]
    overall: Aggregate
    per_category: Mapping[str, Aggregate]
    cold_query_ms: float


class Validates(Protocol):
    def validate(self, args: Any) -> dict[str, Any]: ...


class NamedIndex(Protocol):
    """A mounted index: ``name`` is its file name inside the index directory."""

    @property
    def name(self) -> str: ...


class BenchmarkCore(SearchCore, Protocol):
    """What the benchmark needs of a mounted legal core (:class:`serve.core.LegalCore` fits)."""

    @property
    def indexes(self) -> Mapping[str, NamedIndex]: ...

    def stamps(self) -> dict[str, dict[str, str]]: ...

    def operation(self, name: str) -> Validates: ...


class BenchmarkRefused(LexError):
    """The benchmark cannot measure anything, so it writes (and signs) no report.

    Codes: ``unknown_layout`` (neither ``indexes/`` nor ``<publisher>.sqlite`` in the
    directory), ``no_index_mounted``, ``empty_index`` (no provisions in any mounted index),
    ``no_judged_cases``, ``no_case_ran`` (every case errored or found nothing mounted).
    """

    family = "evaluation"
    default_code = "benchmark_refused"


@dataclass(frozen=True)
class IndexLayout:
    """Where the indexes of a benchmarked directory are, and how a set names them."""

    mount_dir: Path
    prefix: str  # "indexes/" for a set in the release layout, "" for a bare index directory

    @property
    def is_set(self) -> bool:
        return bool(self.prefix)


def index_layout(directory: Path) -> IndexLayout:
    """A set in the release layout (``indexes/<publisher>.sqlite``) or a bare index directory
    (``<publisher>.sqlite``); anything else is refused (``unknown_layout``)."""
    directory = Path(directory)
    nested = directory / INDEXES_DIR
    if nested.is_dir() and any(nested.glob("*.sqlite")):
        return IndexLayout(nested, f"{INDEXES_DIR}/")
    if any(directory.glob("*.sqlite")):
        return IndexLayout(directory, "")
    raise BenchmarkRefused("no <publisher>.sqlite here nor under indexes/: nothing to benchmark",
                           code="unknown_layout", subject=directory.name)


def check_measurable(core: BenchmarkCore, judgments: Judgments) -> None:
    """Refuse before running when nothing could be measured."""
    if not judgments.cases:
        raise BenchmarkRefused("no judged cases were loaded", code="no_judged_cases")
    if not core.indexes:
        raise BenchmarkRefused("no publisher index was mounted", code="no_index_mounted")
    counts = [stamp.get("count.provisions") for stamp in core.stamps().values()]
    if counts and all(c is not None and str(c) == "0" for c in counts):
        raise BenchmarkRefused("the mounted indexes hold no provisions", code="empty_index")


def check_ran(result: BenchmarkRun) -> None:
    """Refuse a run in which no case was actually answered from an index."""
    answered = [r for r in result.runs if r.status != "error" and r.outcome != "no_corpus_mounted"]
    if not answered:
        raise BenchmarkRefused("no case was answered from a mounted index", code="no_case_ran")


# -- identity ------------------------------------------------------------------------------


def index_files(index_dir: Path, core: BenchmarkCore, prefix: str = "",
                known: Mapping[str, tuple[int, str]] | None = None) -> tuple[IndexFile, ...]:
    """The index file of each publisher mounted in ``core``, hashed; named as the core mounted
    them, after ``prefix`` (``indexes/`` binds the report to a set's file names). ``known``:
    ``{file name as the core mounted it: (size, sha256)}`` a producer holds for index files it
    just placed there (:func:`release.files.hash_files`: taken for a file of that size instead of
    reading it; the set's verification reads every byte against the signed hashes)."""
    out = []
    stamps = core.stamps()
    for publisher in sorted(stamps):
        name = core.indexes[publisher].name
        held = (known or {}).get(name)
        path = index_dir / name
        size, sha = held if held is not None and path.stat().st_size == held[0] else hash_file(path)
        out.append(IndexFile(f"{prefix}{name}", publisher, sha, size, dict(stamps[publisher])))
    return tuple(out)


def binding(files: Sequence[IndexFile], verified: VerifiedSet | None = None) -> dict[str, Any]:
    """The report's ``bound`` member: index file digests, plus the set id when verified."""
    return bind(set_id=verified.set_id if verified is not None else None,
                subjects={f.name: f.sha256 for f in files})


# -- running -------------------------------------------------------------------------------


def run(core: SearchCore, judgments: Judgments, *, mode: str = "keyword", validate: Callable[[Mapping[str, Any]], object],
        timer: Callable[[], float] = time.perf_counter) -> BenchmarkRun:
    """Validate every case against the search declaration, then run and score them all."""
    check_cases(judgments.cases, validate, mode)
    cold = warm_up(core, mode, timer)
    runs = run_cases(core, judgments.cases, mode, limit=LIMIT, timer=timer)
    unavailable = [r for r in runs if r.status == "unavailable"]
    scores = tuple(score_case(c, r.hits, latency_ms=r.latency_ms, status=r.status)
                   for c, r in zip(judgments.cases, runs, strict=True))
    return BenchmarkRun(
        mode=mode, status=UNAVAILABLE if unavailable else "ok",
        unavailable_reason=unavailable[0].detail if unavailable else None,
        runs=tuple(runs), scores=scores, overall=aggregate(scores),
        per_category=by_category(scores, judgments.categories()), cold_query_ms=cold,
    )


# -- reporting -----------------------------------------------------------------------------


def _number(value: float | int | None, places: int = 6) -> str | None:
    return None if value is None else metric(value, places=places if isinstance(value, float) else 0)


def aggregate_json(agg: Aggregate) -> dict[str, Any]:
    """Measured metrics of an aggregate as decimal strings (unmeasured ones omitted)."""
    values: dict[str, float | int | None] = {
        "mrr": agg.mrr, "recall_at_10": agg.recall_at_10, "ndcg_at_10": agg.ndcg_at_10,
        "exact_first_accuracy": agg.exact_first_accuracy, "temporal_leakage_failures": agg.temporal_leakage_failures,
        "no_hit_accuracy": agg.no_hit_accuracy, ANCHOR_RECALL: agg.anchor_recall_at_10,
    }
    latencies = {LATENCY_P50_MS: agg.latency_p50_ms, "latency_p95_ms": agg.latency_p95_ms}
    out: dict[str, Any] = {"cases": agg.cases, "passed": agg.passed}
    out.update({k: text for k, v in values.items() if (text := _number(v)) is not None})
    out.update({k: text for k, v in latencies.items() if (text := _number(v, 3)) is not None})
    return out


def report_metrics(result: BenchmarkRun) -> dict[str, str]:
    """The report's ``metrics``: overall values when the mode ran, else only the counts."""
    counts = {"cases": metric(result.overall.cases, 0),
              "cases_unavailable": metric(sum(1 for r in result.runs if r.status == "unavailable"), 0),
              "cases_errored": metric(sum(1 for r in result.runs if r.status == "error"), 0)}
    if result.status != "ok":
        return counts
    measured = {k: v for k, v in aggregate_json(result.overall).items() if k not in ("cases", "passed")}
    return {**counts, "cases_passed": metric(result.overall.passed, 0), **measured}


def case_json(score: CaseScore) -> dict[str, Any]:
    out: dict[str, Any] = {"id": score.case_id, "category": score.category, "status": score.status,
                           "passed": score.passed, "hits": score.hits, "ranked_works": list(score.ranked)}
    optional: dict[str, Any] = {
        "first_relevant_rank": score.first_relevant_rank, "reciprocal_rank": _number(score.reciprocal_rank),
        "recall_at_10": _number(score.recall_at_10), "ndcg_at_10": _number(score.ndcg_at_10),
        ANCHOR_RECALL: _number(score.anchor_recall_at_10), "exact_first": score.exact_first,
        "no_hit_correct": score.no_hit_correct, "latency_ms": _number(score.latency_ms, 3),
    }
    out.update({k: v for k, v in optional.items() if v is not None})
    if score.leaks:
        out["leaks"] = list(score.leaks)
    if score.failures:
        out["failures"] = list(score.failures)
    return out


def report_context(result: BenchmarkRun, judgments: Judgments, files: Sequence[IndexFile]) -> dict[str, Any]:
    context: dict[str, Any] = {
        "benchmark": "retrieval",
        "retrieval_mode": result.mode,
        "mode_status": result.status,
        "protocol": {"operation": "search", "limit": LIMIT, "ranking_unit": "distinct work",
                     "fuzzy": "auto for the fuzzy category, off otherwise (unless a case sets it)",
                     "merge": "round-robin over publisher sections",
                     "gain": "linear in the judged grade (1..3)", "percentiles": "nearest rank"},
        "judgments": dict(describe(judgments)),
        "indexes": [f.to_json() for f in files],
        "cold_query_ms": _number(result.cold_query_ms, 3),
        "per_category": {},
        "failures": [],
        "cases": [case_json(s) for s in result.scores],
    }
    if result.status != "ok":
        context["retrieval_unavailable_reason"] = result.unavailable_reason
        return context
    context["per_category"] = {c: aggregate_json(a) for c, a in result.per_category.items()}
    context["failures"] = [{"id": s.case_id, "reasons": list(s.failures)} for s in result.scores if s.failures]
    return context


def benchmark_report(result: BenchmarkRun, judgments: Judgments, files: Sequence[IndexFile], *, created_at: str,
                     verified: VerifiedSet | None = None, policy: GatePolicy | None = None,
                     runner: str = RUNNER) -> dict[str, Any]:
    """The ``lex-retrieval-benchmark/1`` report of a run, gates evaluated under ``policy``."""
    return build_report(binding(files, verified), report_metrics(result), created_at=created_at, runner=runner,
                        policy=policy, context=report_context(result, judgments, files))


def retrieval_benchmark(core: BenchmarkCore, index_dir: Path, judgments: Judgments, *, created_at: str,
                        mode: str = "keyword", verified: VerifiedSet | None = None, policy: GatePolicy | None = None,
                        runner: str = RUNNER, name_prefix: str = "",
                        known: Mapping[str, tuple[int, str]] | None = None) -> tuple[dict[str, Any], BenchmarkRun]:
    """Run every case against ``core`` (mounted by the caller over ``index_dir``) and build the report
    (``known``: :func:`index_files`).

    Refuses (:class:`BenchmarkRefused`) rather than report a run that measured nothing.
    """
    check_measurable(core, judgments)
    result = run(core, judgments, mode=mode, validate=core.operation("search").validate)
    check_ran(result)
    files = index_files(index_dir, core, name_prefix, known)
    report = benchmark_report(result, judgments, files, created_at=created_at, verified=verified, policy=policy,
                              runner=runner)
    return report, result
