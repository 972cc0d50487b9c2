"""Signed retrieval benchmark reports, bound to artifact identities, and their gates.

A report is a JSON document (canonical, so numbers are decimal *strings*: canonical JSON
refuses floats, and decimal text compares exactly)::

    {"schema": "lex-retrieval-benchmark/1",
     "bound": {"set_id": "<hex>"}            # and/or
              {"subjects": {"<relative name>": "<sha256 hex>", ...}},
     "metrics": {"mrr": "0.8123", "recall_at_10": "0.95", ..., "latency_p95_ms": "41.2"},
     "gates": [{"name": "mrr", "comparison": ">=", "threshold": "0.5", "value": "0.8123",
                "passed": true}, ...],
     "passed": true,
     "created_at": "...", "runner": "...", "context": {...}}

Bind to ``set_id`` when the set is signed before the benchmark runs; bind to the file digests
of the indexes when the report itself travels inside the set (its own digest would otherwise
change the set id). It is signed as an in-toto Statement (predicateType
:data:`REPORT_PREDICATE`) in the same DSSE envelope as artifact sets; the statement's subjects
are the bound identities. :func:`verify_report` checks the signature, the shape, that the
claimed gates agree with the metrics, that the bound identity is the candidate's, and that
every gate of the *verifier's* policy passes (a report cannot pick its own thresholds).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

from legal.canonical import is_sha256_hex, sha256_hex
from legal.errors import ReleaseError
from release.codes import Reason, refuse
from release.files import check_name
from release.keys import Signer, TrustStore
from release.signatures import Envelope, Opened, open_statement, sign_statement
from release.statement import intoto_statement, parse_intoto
from release.verify import VerifiedSet

REPORT_PREDICATE = "https://lex-evidence.dev/retrieval-benchmark/v1"
REPORT_SCHEMA = "lex-retrieval-benchmark/1"
SET_SUBJECT_NAME = "lex-artifact-set"
_DECIMAL = re.compile(r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$")

Comparison = Literal[">=", "<=", "=="]
COMPARISONS: tuple[Comparison, ...] = (">=", "<=", "==")

# metric names (the benchmark runner fills these)
MRR = "mrr"
RECALL_AT_10 = "recall_at_10"
NDCG_AT_10 = "ndcg_at_10"
EXACT_FIRST_ACCURACY = "exact_first_accuracy"
TEMPORAL_LEAKAGE = "temporal_leakage_failures"
NO_HIT_ACCURACY = "no_hit_accuracy"
LATENCY_P95_MS = "latency_p95_ms"


# -- metric values -------------------------------------------------------------------------


def metric(value: float | int | Decimal | str, places: int = 6) -> str:
    """A metric as canonical decimal text (``0.812346``, ``0``, ``41.2``); NaN/inf refused."""
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except InvalidOperation:
        refuse(Reason.MALFORMED_REPORT, "metric must be a number", str(value)[:40])
    if isinstance(value, bool) or not number.is_finite():
        refuse(Reason.MALFORMED_REPORT, "metric must be a finite number", str(value))
    text = format(number.quantize(Decimal(1).scaleb(-places)), "f")
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text in ("-0", "") else text


def parse_decimal(text: object, what: str) -> Decimal:
    if not isinstance(text, str) or not _DECIMAL.match(text):
        refuse(Reason.MALFORMED_REPORT, f"{what} must be a decimal string like '0.95'", str(text)[:40])
    try:
        return Decimal(text)
    except InvalidOperation:
        refuse(Reason.MALFORMED_REPORT, f"{what} is not a decimal", text[:40])


# -- gates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GateRule:
    """``metric <comparison> threshold`` (e.g. ``mrr >= 0.5``)."""

    metric: str
    comparison: Comparison
    threshold: Decimal

    def passes(self, value: Decimal) -> bool:
        if self.comparison == ">=":
            return value >= self.threshold
        if self.comparison == "<=":
            return value <= self.threshold
        return value == self.threshold


DEFAULT_RULES: tuple[GateRule, ...] = (
    GateRule(MRR, ">=", Decimal("0.5")),
    GateRule(RECALL_AT_10, ">=", Decimal("0.7")),
    GateRule(NDCG_AT_10, ">=", Decimal("0.55")),
    GateRule(EXACT_FIRST_ACCURACY, ">=", Decimal("1")),
    GateRule(TEMPORAL_LEAKAGE, "==", Decimal("0")),
    GateRule(NO_HIT_ACCURACY, ">=", Decimal("1")),
    GateRule(LATENCY_P95_MS, "<=", Decimal("250")),
)


@dataclass(frozen=True)
class GatePolicy:
    """The gates a report must pass. Defaults above; thresholds are configurable."""

    rules: tuple[GateRule, ...] = DEFAULT_RULES

    def with_thresholds(self, thresholds: Mapping[str, str | int | Decimal]) -> GatePolicy:
        """A copy with some thresholds replaced (unknown metric names are refused)."""
        known = {rule.metric: rule for rule in self.rules}
        for name in thresholds:
            if name not in known:
                refuse(Reason.GATE_POLICY_INVALID, "no gate for this metric", name)
        rules = tuple(
            replace(rule, threshold=_threshold(thresholds[rule.metric])) if rule.metric in thresholds else rule
            for rule in self.rules
        )
        return GatePolicy(rules)

    def to_json(self) -> list[dict[str, str]]:
        return [{"name": r.metric, "comparison": r.comparison, "threshold": metric(r.threshold)} for r in self.rules]


def _threshold(value: object) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        refuse(Reason.GATE_POLICY_INVALID, "threshold must be a number or decimal string", str(value)[:40])
    text = value if isinstance(value, str) else metric(value)
    if not _DECIMAL.match(text):
        refuse(Reason.GATE_POLICY_INVALID, "threshold must be a decimal like '0.95'", text[:40])
    return Decimal(text)


def load_gate_policy(path: Path) -> GatePolicy:
    """A policy file: ``{"thresholds": {"mrr": "0.6", "latency_p95_ms": "200"}}``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        refuse(Reason.GATE_POLICY_INVALID, f"cannot read gate policy: {exc}", path.name)
    if not isinstance(document, dict) or not isinstance(document.get("thresholds"), dict):
        refuse(Reason.GATE_POLICY_INVALID, 'gate policy must be {"thresholds": {metric: value}}', path.name)
    return GatePolicy().with_thresholds(document["thresholds"])


GATES_ENV = "LEX_RELEASE_GATES"


def gate_policy(path: Path | None = None, env: Mapping[str, str] | None = None) -> GatePolicy:
    """The operator's one gate policy: ``path`` (``--gates``), else the file named by
    ``$LEX_RELEASE_GATES``, else the defaults. Every command that applies gates reads it here."""
    if path is None:
        named = (os.environ if env is None else env).get(GATES_ENV, "").strip()
        path = Path(named) if named else None
    return load_gate_policy(path) if path is not None else GatePolicy()


def evaluate_gates(metrics: Mapping[str, str], policy: GatePolicy | None = None) -> list[dict[str, Any]]:
    """One gate row per rule; a missing metric fails its gate (``value`` null)."""
    rows = []
    for rule in (policy or GatePolicy()).rules:
        raw = metrics.get(rule.metric)
        value = parse_decimal(raw, rule.metric) if raw is not None else None
        rows.append({
            "name": rule.metric,
            "comparison": rule.comparison,
            "threshold": metric(rule.threshold),
            "value": raw,
            "passed": value is not None and rule.passes(value),
        })
    return rows


def failed_gates(gates: Sequence[Mapping[str, Any]]) -> list[str]:
    return [str(gate["name"]) for gate in gates if gate.get("passed") is not True]


# -- building and signing ------------------------------------------------------------------


def bind(set_id: str | None = None, subjects: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The ``bound`` member: a set id, file digests (name → sha256), or both."""
    bound: dict[str, Any] = {}
    if set_id is not None:
        bound["set_id"] = set_id
    if subjects:
        bound["subjects"] = dict(sorted(subjects.items()))
    _check_bound(bound)
    return bound


def bind_to_verified_set(verified: VerifiedSet, names: Sequence[str] | None = None) -> dict[str, Any]:
    """Bind to a verified set: its id, or (``names``) the digests of some of its files."""
    if names is None:
        return bind(set_id=verified.set_id)
    return bind(subjects={name: verified.subjects[name].sha256 for name in names})


def build_report(
    bound: Mapping[str, Any],
    metrics: Mapping[str, str],
    *,
    created_at: str,
    runner: str,
    policy: GatePolicy | None = None,
    context: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A report document with its gates evaluated under ``policy``."""
    gates = evaluate_gates(metrics, policy)
    report = {
        "schema": REPORT_SCHEMA,
        "bound": dict(bound),
        "metrics": dict(sorted(metrics.items())),
        "gates": gates,
        "passed": not failed_gates(gates),
        "created_at": created_at,
        "runner": runner,
        "context": dict(context or {}),
    }
    check_report_shape(report)
    return report


def report_statement(report: Mapping[str, Any]) -> dict[str, Any]:
    """The in-toto statement for a report (subjects = the bound identities)."""
    return intoto_statement(_bound_subjects(report["bound"]), REPORT_PREDICATE, dict(report))


def sign_report(report: Mapping[str, Any], signers: Sequence[Signer]) -> Envelope:
    """Check the report's shape and consistency, then sign it (DSSE, in-toto payload)."""
    check_report_shape(report)
    check_claimed_gates(report)
    return sign_statement(report_statement(report), signers)


def _bound_subjects(bound: Mapping[str, Any]) -> list[dict[str, Any]]:
    subjects = []
    if "set_id" in bound:
        subjects.append({"name": SET_SUBJECT_NAME, "digest": {"sha256": bound["set_id"]}})
    for name, sha in sorted(bound.get("subjects", {}).items()):
        subjects.append({"name": name, "digest": {"sha256": sha}})
    return subjects


# -- shape and consistency -----------------------------------------------------------------


def check_report_shape(report: Mapping[str, Any]) -> None:
    """Refuse a report that is not of the documented shape (``malformed_report``)."""
    if report.get("schema") != REPORT_SCHEMA:
        refuse(Reason.MALFORMED_REPORT, f"report schema must be {REPORT_SCHEMA}", str(report.get("schema"))[:60])
    _check_bound(report.get("bound"))
    metrics = report.get("metrics")
    if not isinstance(metrics, dict) or not metrics:
        refuse(Reason.MALFORMED_REPORT, "metrics must be a non-empty object")
    for name, value in metrics.items():
        parse_decimal(value, f"metric {name}")
    gates = report.get("gates")
    if not isinstance(gates, list) or not all(isinstance(g, dict) for g in gates):
        refuse(Reason.MALFORMED_REPORT, "gates must be a list of objects")
    if not isinstance(report.get("passed"), bool):
        refuse(Reason.MALFORMED_REPORT, "passed must be a boolean")


def _check_bound(bound: object) -> None:
    if not isinstance(bound, dict) or not bound or set(bound) - {"set_id", "subjects"}:
        refuse(Reason.MALFORMED_REPORT, "bound must hold set_id and/or subjects, nothing else")
    if "set_id" in bound and not (isinstance(bound["set_id"], str) and is_sha256_hex(bound["set_id"])):
        refuse(Reason.MALFORMED_REPORT, "bound.set_id must be a sha256 hex")
    subjects = bound.get("subjects", {})
    if not isinstance(subjects, dict) or ("subjects" in bound and not subjects):
        refuse(Reason.MALFORMED_REPORT, "bound.subjects must be a non-empty {name: sha256} object")
    for name, sha in subjects.items():
        check_name(name)
        if not isinstance(sha, str) or not is_sha256_hex(sha):
            refuse(Reason.MALFORMED_REPORT, "bound subject digest must be a sha256 hex", name)


def check_claimed_gates(report: Mapping[str, Any]) -> None:
    """The report's own gate rows must agree with its metrics (``report_inconsistent``)."""
    metrics = report["metrics"]
    for gate in report["gates"]:
        name, comparison = gate.get("name"), gate.get("comparison")
        if comparison not in COMPARISONS or not isinstance(name, str):
            refuse(Reason.REPORT_INCONSISTENT, "gate needs a name and a comparison", str(name))
        rule = GateRule(name, comparison, parse_decimal(gate.get("threshold"), f"gate {name} threshold"))
        value = metrics.get(name)
        passed = value is not None and rule.passes(parse_decimal(value, name))
        if gate.get("value") != value or gate.get("passed") is not passed:
            refuse(Reason.REPORT_INCONSISTENT, "gate row disagrees with the metrics", name)
    if report["passed"] is not (not failed_gates(report["gates"])):
        refuse(Reason.REPORT_INCONSISTENT, "passed disagrees with the gates")


def check_binding(report: Mapping[str, Any], verified: VerifiedSet) -> None:
    """The report's bound identity must be ``verified``'s (``report_for_other_identity``)."""
    bound = report["bound"]
    if "set_id" in bound and bound["set_id"] != verified.set_id:
        refuse(Reason.REPORT_FOR_OTHER_IDENTITY, "report is bound to another artifact set", bound["set_id"])
    for name, sha in bound.get("subjects", {}).items():
        subject = verified.subjects.get(name)
        if subject is None or subject.sha256 != sha:
            refuse(Reason.REPORT_FOR_OTHER_IDENTITY, "report is bound to another file digest", name)


def check_gates(report: Mapping[str, Any], policy: GatePolicy | None = None) -> list[dict[str, Any]]:
    """Re-evaluate the metrics under the verifier's ``policy``; refuse if any gate fails."""
    gates = evaluate_gates(report["metrics"], policy)
    failed = failed_gates(gates)
    if failed or report["passed"] is not True:
        refuse(Reason.GATE_FAILED, "benchmark gates failed", ",".join(failed) or "report.passed=false")
    return gates


# -- verification --------------------------------------------------------------------------


@dataclass(frozen=True)
class VerifiedReport:
    """A report whose signature, shape, binding and gates were verified."""

    report: Mapping[str, Any]
    key_ids: tuple[str, ...]
    payload_sha256: str
    gates: tuple[Mapping[str, Any], ...] = field(default=())

    @property
    def bound(self) -> Mapping[str, Any]:
        return dict(self.report["bound"])


def verify_report(
    envelope: Envelope | bytes | Path,
    trust: TrustStore,
    *,
    expected: VerifiedSet | None = None,
    policy: GatePolicy | None = None,
) -> VerifiedReport:
    """Verify a signed report; with ``expected``, also its binding and the gates."""
    opened = _opened(envelope, trust)
    subjects, report = parse_intoto(opened.payload, REPORT_PREDICATE, Reason.MALFORMED_REPORT)
    check_report_shape(report)
    if subjects != _bound_subjects(report["bound"]):
        refuse(Reason.REPORT_INCONSISTENT, "statement subjects differ from report.bound")
    check_claimed_gates(report)
    verified = VerifiedReport(report, opened.key_ids, sha256_hex(opened.payload))
    if expected is None:
        return verified
    check_binding(report, expected)
    return replace(verified, gates=tuple(check_gates(report, policy)))


def _opened(envelope: Envelope | bytes | Path, trust: TrustStore) -> Opened:
    """Parse and verify; every signature failure becomes ``bad_report_signature``."""
    try:
        return open_statement(envelope, trust)
    except ReleaseError as exc:
        refuse(Reason.BAD_REPORT_SIGNATURE, f"report signature refused: {exc.message} [{exc.code}]", exc.subject)
