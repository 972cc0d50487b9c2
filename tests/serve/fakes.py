"""A tiny in-memory stand-in for the legal core, with the same interface as ``serve.core``.

It answers the ten operations over one small Legilux work with three states (two of them
beginning on the same day), so the shells can be tested without building an index.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.errors import RequestError
from serve.mount import ArtifactIdentity

DATE = {"type": "string", "format": "date", "pattern": r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
        "minLength": 10, "maxLength": 10}
TEXT = {"type": "string", "minLength": 1, "maxLength": 1000}
SHORT = {"type": "string", "minLength": 1, "maxLength": 64}
KEY = {"type": "string", "minLength": 1, "maxLength": 128}


def _schema(props: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": dict(props), "required": list(required), "additionalProperties": False}


@dataclass(frozen=True)
class Spec:
    name: str
    description: str
    input_schema: Mapping[str, Any]
    effect: str


OPERATIONS: dict[str, Spec] = {
    spec.name: spec
    for spec in (
        Spec("as_of", "What a work said on a date.", _schema(
            {"work": TEXT, "date": DATE, "version_key": KEY, "publisher": SHORT, "language": SHORT,
             "mode": {"type": "string", "enum": ["full", "outline", "select"]},
             "anchors": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 512},
                         "minItems": 1, "maxItems": 50}},
            ("work", "date")), "provision"),
        Spec("timeline", "The dated states of a work.", _schema(
            {"work": TEXT, "publisher": SHORT, "limit": {"type": "integer", "minimum": 1, "maximum": 200},
             "offset": {"type": "integer", "minimum": 0, "maximum": 100000}}, ("work",)), "timeline"),
        Spec("in_force_on", "Works in force on a date.", _schema(
            {"date": DATE, "publisher": SHORT, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
            ("date",)), "in_force"),
        Spec("diff", "What changed between two dates.", _schema(
            {"work": TEXT, "from_date": DATE, "to_date": DATE, "from_version_key": KEY, "to_version_key": KEY,
             "publisher": SHORT, "anchor": {"type": "string", "minLength": 1, "maxLength": 512}},
            ("work", "from_date", "to_date")), "diff"),
        Spec("search", "Search provisions.", _schema(
            {"query": TEXT, "publisher": SHORT, "limit": {"type": "integer", "minimum": 1, "maximum": 50},
             "time_scope": {"type": "string", "enum": ["all_versions", "as_of"]}, "as_of": DATE},
            ("query",)), "workspace"),
        Spec("article_history", "One provision across states.", _schema(
            {"work": TEXT, "anchor": {"type": "string", "minLength": 1, "maxLength": 512}}, ("work", "anchor")),
            "history"),
        Spec("provenance", "The hash chain of a version.", _schema({"lex_id": TEXT, "language": SHORT}, ("lex_id",)),
             "verification"),
        Spec("coverage", "What is held.", _schema({"publisher": SHORT}), "coverage"),
        Spec("cited_by", "Who cites a work.", _schema(
            {"work": TEXT, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}, ("work",)), "cited_by"),
        Spec("changes_in_period", "Works that changed in a window.", _schema(
            {"from_date": DATE, "to_date": DATE, "publisher": SHORT}, ("from_date", "to_date")), "ranking"),
    )
}

PUB = "lu-legilux"
SLUG = "loi-2020-01-01-a1"
WORK = f"{PUB}:{SLUG}"


def key(date: str, pvid: str) -> str:
    return f"{date}--{hashlib.sha256(pvid.encode()).hexdigest()}"


V1 = key("2020-01-01", "v1")
V2A = key("2022-01-01", "v2a")
V2B = key("2022-01-01", "v2b")

TEXTS = {
    V1: [("art_1", "Art. 1er", "Objet", "La loi s'applique à <toute> chose."), ("art_2", "Art. 2", None, "Les peines sont légères.")],
    V2A: [("art_1", "Art. 1er", "Objet", "La loi s'applique partout, révisée."), ("art_3", "Art. 3", None, "Un article nouveau.")],
    V2B: [("art_1", "Art. 1er", "Objet", "La loi s'applique partout.")],
}
VERSIONS = [
    {"version_key": V1, "valid_from": "2020-01-01", "valid_to": "2022-01-01"},
    {"version_key": V2A, "valid_from": "2022-01-01", "valid_to": None},
    {"version_key": V2B, "valid_from": "2022-01-01", "valid_to": None},
]


def _doc(version: Mapping[str, Any]) -> dict[str, Any]:
    return {"work": WORK, "lex_id": f"{WORK}:{version['version_key']}", "title": "Loi du 1er janvier 2020 <test>",
            "language": "fr", "text_languages": ["fr"], "record_sha256": "ab" * 32, "evidence_sha256": "cd" * 32,
            "extraction_profile": "akn-lu/1", "source_uri": "https://legilux.public.lu/eli/etat/leg/loi/2020/01/01/a1/jo",
            **version}


def _provisions(version_key: str) -> list[dict[str, Any]]:
    return [{"anchor": a, "num": n, "heading": h, "path": [], "text": t,
             "text_sha256": hashlib.sha256(t.encode()).hexdigest()} for a, n, h, t in TEXTS[version_key]]


def _changes(old_key: str, new_key: str) -> dict[str, Any]:
    """The core's ``summary`` and ``changes`` between two versions of the fake work."""
    old = {p["anchor"]: p for p in _provisions(old_key)}
    new = {p["anchor"]: p for p in _provisions(new_key)}
    changes: list[dict[str, Any]] = []
    for anchor, p in new.items():
        if anchor not in old:
            changes.append({"anchor": anchor, "change": "added", "num": p["num"], "heading": p["heading"],
                            "text": p["text"]})
        elif old[anchor]["text_sha256"] != p["text_sha256"]:
            changes.append({"anchor": anchor, "change": "changed", "num": p["num"], "heading": p["heading"],
                            "from_text_sha256": old[anchor]["text_sha256"], "to_text_sha256": p["text_sha256"]})
    changes += [{"anchor": a, "change": "removed", "num": p["num"], "heading": p["heading"], "text": p["text"]}
                for a, p in old.items() if a not in new]
    summary = {kind: sum(1 for c in changes if c["change"] == kind) for kind in ("added", "removed", "changed")}
    summary["unchanged"] = sum(1 for a, p in new.items() if a in old and old[a]["text_sha256"] == p["text_sha256"])
    return {"summary": summary, "changes": changes, "truncated": False}


class FakeCore:
    """Answers like the legal core; ``mounted=False`` answers ``no_corpus_mounted`` everywhere."""

    def __init__(self, mounted: bool = False, artifact: Mapping[str, Any] | None = None,
                 delay: float = 0.0, hold: threading.Event | None = None) -> None:
        self.mounted = mounted
        self.artifact = dict(artifact or {})
        self.delay = delay
        self.hold = hold
        self.publishers = (PUB,) if mounted else ()
        self.calls = 0
        self._lock = threading.Lock()

    def call(self, operation: str, arguments: Mapping[str, Any]) -> Any:
        with self._lock:
            self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        if self.hold is not None:
            self.hold.wait(10.0)
        if operation not in OPERATIONS:
            raise RequestError("no such operation", code="unknown_operation", subject=operation)
        if not self.mounted:
            return {"operation": operation, "outcome": "no_corpus_mounted", "publisher": None, "provisional": False,
                    "artifact": {"set_id": None}, "detail": "No verified index is mounted."}
        handler = getattr(self, f"_{operation}", None)
        body = handler(dict(arguments)) if handler else {"outcome": "empty"}
        return {"operation": operation, "publisher": PUB, "timeline_semantics": "publisher_applicability",
                "provisional": False, "artifact": {"set_id": self.artifact.get("set_id")}, **body}

    def _states(self, day: str) -> list[Mapping[str, Any]]:
        covering = [v for v in VERSIONS if v["valid_from"] <= day and (v["valid_to"] is None or day < v["valid_to"])]
        latest = max((v["valid_from"] for v in covering), default=None)
        return [v for v in covering if v["valid_from"] == latest]

    def _resolve(self, day: str, exact: str | None) -> tuple[str, Any]:
        states = self._states(day)
        if exact:
            chosen = [v for v in states if v["version_key"] == exact]
            if not chosen:
                raise RequestError("version_key does not identify a state on this date", code="invalid_argument",
                                   subject="version_key")
            return "one", chosen[0]
        if len(states) > 1:
            return "ambiguous", states
        return ("one", states[0]) if states else ("none", None)

    def _as_of(self, args: dict[str, Any]) -> dict[str, Any]:
        if args["work"] != WORK:
            return {"outcome": "unknown_work", "work": args["work"]}
        kind, found = self._resolve(args["date"], args.get("version_key"))
        if kind == "ambiguous":
            return {"outcome": "ambiguous_version", "work": WORK, "version_choices": [_doc(v) for v in found]}
        if kind == "none":
            return {"outcome": "no_version_for_date", "work": WORK, "nearest_versions": []}
        provisions = _provisions(found["version_key"])
        if args.get("anchors"):
            provisions = [p for p in provisions if p["anchor"] in args["anchors"]]
        return {"outcome": "succeeded", "work": WORK, "version": _doc(found), "provisions": provisions}

    def _timeline(self, args: dict[str, Any]) -> dict[str, Any]:
        if args["work"] != WORK:
            return {"outcome": "unknown_work", "work": args["work"]}
        return {"outcome": "succeeded", "work": WORK, "title": "Loi du 1er janvier 2020 <test>",
                "total_count": len(VERSIONS), "truncated": False, "versions": [_doc(v) for v in VERSIONS]}

    def _diff(self, args: dict[str, Any]) -> dict[str, Any]:
        if args["work"] != WORK:
            return {"outcome": "unknown_work", "work": args["work"]}
        a = self._resolve(args["from_date"], args.get("from_version_key"))
        b = self._resolve(args["to_date"], args.get("to_version_key"))
        if a[0] == "ambiguous" or b[0] == "ambiguous":
            out: dict[str, Any] = {"outcome": "ambiguous_version", "work": WORK}
            for name, side in (("from", a), ("to", b)):
                if side[0] == "ambiguous":
                    out[f"{name}_version_choices"] = [_doc(v) for v in side[1]]
            return out
        if a[0] == "none" or b[0] == "none":
            return {"outcome": "no_version_for_date", "work": WORK, "from_resolved": a[0] != "none",
                    "to_resolved": b[0] != "none"}
        return {"outcome": "succeeded", "work": WORK, "from": _doc(a[1]), "to": _doc(b[1]),
                "changed": a[1] is not b[1], "provision_level_comparable": True,
                **_changes(a[1]["version_key"], b[1]["version_key"])}

    def _search(self, args: dict[str, Any]) -> dict[str, Any]:
        hits = [{"work": WORK, "title": "Loi du 1er janvier 2020 <test>", "anchor": a, "num": n, "heading": h,
                 "version_key": V1, "valid_from": "2020-01-01", "snippet": t}
                for a, n, h, t in TEXTS[V1] if args["query"].lower() in t.lower()]
        section = {"outcome": "succeeded" if hits else "empty", "publisher": PUB,
                   "timeline_semantics": "publisher_applicability", "hits": hits}
        return {"outcome": section["outcome"], "publishers": [section]}

    def _provenance(self, args: dict[str, Any]) -> dict[str, Any]:
        lex_id = args["lex_id"]
        version = next((v for v in VERSIONS if f"{WORK}:{v['version_key']}" == lex_id), None)
        if version is None:
            return {"outcome": "unknown_work", "lex_id": lex_id}
        return {"outcome": "succeeded", **_doc(version), "events": [{"event": "first_sighting",
                "observed_from": "2024-01-01T00:00:00Z"}], "expressions": [],
                "chain": {"record_sha256": "ab" * 32, "evidence_sha256": "cd" * 32}}

    def _coverage(self, args: dict[str, Any]) -> dict[str, Any]:
        section = {"outcome": "succeeded", "publisher": PUB, "works": 1, "versions": 3,
                   "valid_from_earliest": "2020-01-01", "valid_from_latest": "2022-01-01"}
        return {"outcome": "succeeded", "publishers": [section]}


class FakeBackend:
    """A :class:`serve.mount.CoreBackend` over :class:`FakeCore`."""

    def __init__(self, delay: float = 0.0, hold: threading.Event | None = None) -> None:
        self.delay = delay
        self.hold = hold
        self.mounted_dirs: list[Path] = []

    def empty(self) -> FakeCore:
        return FakeCore(False, delay=self.delay, hold=self.hold)

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> FakeCore:
        self.mounted_dirs.append(directory)
        return FakeCore(True, artifact.to_dict(), delay=self.delay, hold=self.hold)

    def publishers(self, core: Any) -> tuple[str, ...]:
        return tuple(core.publishers)
