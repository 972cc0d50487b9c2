"""Retrieval judgments (``lex-retrieval-judgments/1``): load, validate, type.

A judgments file is one JSON object::

    {"schema": "lex-retrieval-judgments/1", "review": {"status": "engineer-written", ...},
     "cases": [{"id": "temporal-001", "category": "temporal", "query": "...",
                "filters": {"publisher": "eu-eurlex", "language": "en", "as_of": "2020-01-01"},
                "relevant": [{"work": "eu-eurlex:32013r0575", "grade": 3,
                              "anchors": ["art_92"], "versions": ["2019-12-25--<64 hex>"]}],
                "forbidden": [{"work": "...", "version": "...", "reason": "..."}],
                "expect_no_hits": false, "work_rows_allowed": false, "note": "..."}]}

Rules checked at load time (each refusal is a :class:`JudgmentsError` naming the case):
unique ids of the form ``<category>-NNN``; a closed category vocabulary; a query of 1..1000
characters; only known filters, each well-formed; ``negative`` and ``gap`` cases expect no
hits and list no relevant work, every other case lists at least one; ``temporal`` cases carry
``as_of``; grades 1..3; work ids ``<publisher>:<slug>``; version keys
``<valid_from>--<64 hex>``; ``work_rows_allowed`` only on no-hit cases; a forbidden item may
not forbid a relevant work wholesale.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.canonical import sha256_hex
from legal.errors import LexError
from legal.ids import Publisher, VersionKey, WorkId, parse_date

SCHEMA = "lex-retrieval-judgments/1"
CATEGORIES = ("exact", "short_title", "temporal", "conceptual", "bilingual", "fuzzy", "negative", "gap",
              "ambiguity", "comparison")
NO_HIT_CATEGORIES = frozenset({"negative", "gap"})
FILTER_KEYS = frozenset({"publisher", "language", "as_of", "works", "document_type", "fuzzy"})
REVIEW_STATUSES = ("engineer-written", "engineer-reviewed", "lawyer-reviewed")
MAX_QUERY = 1000
MAX_GRADE = 3
_ID = re.compile(r"^([a-z_]+)-(\d{3,4})$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}$")
_ANCHOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class JudgmentsError(LexError):
    """A judgments file is unreadable or breaks a rule (``subject`` names the case)."""

    family = "evaluation"
    default_code = "invalid_judgments"


@dataclass(frozen=True)
class Relevant:
    """A relevant work with its grade; optional anchors and the versions that count."""

    work: str
    grade: int
    anchors: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()

    def accepts(self, version_key: str | None) -> bool:
        """Whether a hit of this work in ``version_key`` counts as this relevant item."""
        return not self.versions or version_key in self.versions


@dataclass(frozen=True)
class Forbidden:
    """A work (or one version of it) that must never be returned for the case."""

    work: str
    version: str | None = None
    reason: str = ""

    def matches(self, work: str | None, version_key: str | None) -> bool:
        return work == self.work and (self.version is None or self.version == version_key)


@dataclass(frozen=True)
class Filters:
    publisher: str | None = None
    language: str | None = None
    as_of: str | None = None
    works: tuple[str, ...] = ()
    document_type: str | None = None
    fuzzy: str | None = None


@dataclass(frozen=True)
class Case:
    """One judged query."""

    id: str
    category: str
    query: str
    filters: Filters
    relevant: tuple[Relevant, ...]
    forbidden: tuple[Forbidden, ...]
    expect_no_hits: bool
    work_rows_allowed: bool = False
    note: str = ""

    def relevant_for(self, work: str | None) -> Relevant | None:
        return next((r for r in self.relevant if r.work == work), None)

    @property
    def top_grade(self) -> int:
        return max((r.grade for r in self.relevant), default=0)


@dataclass(frozen=True)
class Judgments:
    """A validated judgments file and the SHA-256 of its bytes."""

    cases: tuple[Case, ...]
    sha256: str
    review_status: str

    def categories(self) -> tuple[str, ...]:
        present = {c.category for c in self.cases}
        return tuple(c for c in CATEGORIES if c in present)


# -- loading -------------------------------------------------------------------------------


def load_judgments(path: Path) -> Judgments:
    """Read and validate a judgments file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JudgmentsError(f"cannot read judgments: {exc.strerror}", code="judgments_unreadable",
                             subject=path.name) from None
    return parse_judgments(data)


def parse_judgments(data: bytes) -> Judgments:
    """Validate judgments given as bytes (the digest is of exactly these bytes)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JudgmentsError(f"judgments are not UTF-8 JSON: {exc}", code="judgments_not_json") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise JudgmentsError(f"judgments must be an object with schema {SCHEMA}", code="judgments_schema")
    raw_cases = document.get("cases")
    if not isinstance(raw_cases, list) or not raw_cases:
        raise JudgmentsError("judgments need a non-empty 'cases' list", code="judgments_empty")
    cases = tuple(parse_case(raw) for raw in raw_cases)
    _check_unique(cases)
    return Judgments(cases, sha256_hex(data), _review_status(document.get("review")))


def _review_status(review: object) -> str:
    status = review.get("status") if isinstance(review, dict) else None
    if status not in REVIEW_STATUSES:
        raise JudgmentsError(f"review.status must be one of {', '.join(REVIEW_STATUSES)}", code="judgments_review")
    return str(status)


def _check_unique(cases: Sequence[Case]) -> None:
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise JudgmentsError("duplicate case id", code="duplicate_case", subject=case.id)
        seen.add(case.id)


# -- one case ------------------------------------------------------------------------------


def _fail(case_id: str, message: str, code: str = "invalid_case") -> JudgmentsError:
    return JudgmentsError(message, code=code, subject=case_id)


def parse_case(raw: object) -> Case:
    """Validate one case object."""
    if not isinstance(raw, dict):
        raise JudgmentsError("every case must be an object", code="invalid_case")
    case_id = raw.get("id")
    if not isinstance(case_id, str) or not (match := _ID.match(case_id)):
        raise _fail(str(case_id), "case id must look like '<category>-NNN' (or -NNNN)")
    category = raw.get("category")
    if category not in CATEGORIES or match.group(1) != category:
        raise _fail(case_id, f"category must be one of {', '.join(CATEGORIES)} and prefix the id")
    unknown = set(raw) - {"id", "category", "query", "filters", "relevant", "forbidden", "expect_no_hits",
                          "work_rows_allowed", "note"}
    if unknown:
        raise _fail(case_id, f"unknown case fields: {', '.join(sorted(unknown))}")
    case = Case(
        id=case_id, category=str(category), query=_query(case_id, raw.get("query")),
        filters=_filters(case_id, raw.get("filters", {})),
        relevant=tuple(_relevant(case_id, r) for r in _list(case_id, raw.get("relevant", []), "relevant")),
        forbidden=tuple(_forbidden(case_id, f) for f in _list(case_id, raw.get("forbidden", []), "forbidden")),
        expect_no_hits=_flag(case_id, raw.get("expect_no_hits", False), "expect_no_hits"),
        work_rows_allowed=_flag(case_id, raw.get("work_rows_allowed", False), "work_rows_allowed"),
        note=str(raw.get("note", "")),
    )
    _check_case(case)
    return case


def _check_case(case: Case) -> None:
    if case.category in NO_HIT_CATEGORIES and (not case.expect_no_hits or case.relevant):
        raise _fail(case.id, f"{case.category} cases expect no hits and list no relevant work")
    if case.category not in NO_HIT_CATEGORIES and (case.expect_no_hits or not case.relevant):
        raise _fail(case.id, "this case must list relevant works and expect hits")
    if case.work_rows_allowed and not case.expect_no_hits:
        raise _fail(case.id, "work_rows_allowed only applies to cases that expect no hits")
    if case.category == "temporal" and case.filters.as_of is None:
        raise _fail(case.id, "temporal cases need filters.as_of")
    works = [r.work for r in case.relevant]
    if len(works) != len(set(works)):
        raise _fail(case.id, "a work is listed twice as relevant")
    for item in case.forbidden:
        if item.version is None and item.work in works:
            raise _fail(case.id, "a relevant work cannot be forbidden wholesale (name the forbidden version)")


def _list(case_id: str, value: object, name: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(case_id, f"{name} must be a list")
    return value


def _flag(case_id: str, value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(case_id, f"{name} must be true or false")
    return value


def _query(case_id: str, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_QUERY:
        raise _fail(case_id, f"query must be 1..{MAX_QUERY} characters")
    return value


def _filters(case_id: str, value: object) -> Filters:
    if not isinstance(value, dict):
        raise _fail(case_id, "filters must be an object")
    unknown = set(value) - FILTER_KEYS
    if unknown:
        raise _fail(case_id, f"unknown filters: {', '.join(sorted(unknown))}")
    return Filters(
        publisher=_publisher(case_id, value.get("publisher")),
        language=_optional(case_id, value.get("language"), "language", _LANGUAGE),
        as_of=_date(case_id, value.get("as_of")),
        works=tuple(_work(case_id, w) for w in _list(case_id, value.get("works", []), "filters.works")),
        document_type=_optional(case_id, value.get("document_type"), "document_type", None),
        fuzzy=_choice(case_id, value.get("fuzzy"), "fuzzy", ("auto", "off")),
    )


def _optional(case_id: str, value: object, name: str, pattern: re.Pattern[str] | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value or (pattern is not None and not pattern.match(value)):
        raise _fail(case_id, f"filters.{name} is malformed")
    return value


def _choice(case_id: str, value: object, name: str, choices: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if value not in choices:
        raise _fail(case_id, f"filters.{name} must be one of {', '.join(choices)}")
    return str(value)


def _publisher(case_id: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value not in {p.value for p in Publisher}:
        raise _fail(case_id, "filters.publisher must be a publisher id (eu-eurlex, lu-legilux)")
    return value


def _date(case_id: str, value: object) -> str | None:
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise TypeError
        return parse_date(value).isoformat()
    except (LexError, TypeError):
        raise _fail(case_id, "filters.as_of must be a YYYY-MM-DD date") from None


def _work(case_id: str, value: object) -> str:
    if not isinstance(value, str):
        raise _fail(case_id, "a work id must be a string")
    try:
        return str(WorkId.parse(value))
    except LexError:
        raise _fail(case_id, f"invalid work id {value!r} (expected <publisher>:<slug>)") from None


def _version(case_id: str, value: object) -> str:
    if not isinstance(value, str) or not VersionKey.looks_like(value):
        raise _fail(case_id, f"invalid version key {str(value)[:80]!r}")
    return value


def _relevant(case_id: str, raw: object) -> Relevant:
    if not isinstance(raw, dict) or set(raw) - {"work", "grade", "anchors", "versions"}:
        raise _fail(case_id, "a relevant item is {work, grade, anchors?, versions?}")
    grade = raw.get("grade")
    if not isinstance(grade, int) or isinstance(grade, bool) or not 1 <= grade <= MAX_GRADE:
        raise _fail(case_id, f"grade must be an integer 1..{MAX_GRADE}")
    anchors = _list(case_id, raw.get("anchors", []), "anchors")
    if not all(isinstance(a, str) and _ANCHOR.match(a) for a in anchors):
        raise _fail(case_id, "anchors must be provision anchors like art_92")
    versions = tuple(_version(case_id, v) for v in _list(case_id, raw.get("versions", []), "versions"))
    return Relevant(_work(case_id, raw.get("work")), grade, tuple(anchors), versions)


def _forbidden(case_id: str, raw: object) -> Forbidden:
    if not isinstance(raw, dict) or set(raw) - {"work", "version", "reason"}:
        raise _fail(case_id, "a forbidden item is {work, version?, reason?}")
    version = raw.get("version")
    return Forbidden(_work(case_id, raw.get("work")), None if version is None else _version(case_id, version),
                     str(raw.get("reason", "")))


def describe(judgments: Judgments) -> Mapping[str, Any]:
    """Counts for a report: cases per category, digest, review status."""
    counts = {c: sum(1 for case in judgments.cases if case.category == c) for c in judgments.categories()}
    return {"sha256": judgments.sha256, "cases": len(judgments.cases), "per_category": counts,
            "review_status": judgments.review_status}
