"""Which body of a version is derived, per language (model §6.2, adapted to an evidence store).

A body counts only when its bytes are in the store (an observation ``held_elsewhere``, or whose
hash the store lacks, is not derivable here). Then:

1. ``fmx4_languages`` (work-wide): languages that have a Formex main member in some version and
   no version where they have a primary body without Formex — such works stay on one profile;
2. a primary body (``fr.xml``, ``en.html``…) is a *structured* unit, unless its language is a
   Formex language and the version has Formex;
3. a Formex unit (the main member) for Formex languages, or as recovery when the language
   still has no unit;
4. a ``pdf`` unit only if the language still has none; then ``pdf-memorial``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from corpus_tree import Expression, Observation, VersionRecord
from derive.profiles.fmx4_eu import main_member_name

# Version of the body selection (which observation is derived for which language). It is part of
# every derive cache key: a change here that picks other bodies must bump it.
UNITS_VERSION = 1

STRUCTURED = "structured"
FMX4 = "fmx4"
PDF = "pdf"
PDF_MEMORIAL = "pdf-memorial"


class Evidence(Protocol):
    def has(self, sha256: str) -> bool: ...

    def read(self, sha256: str) -> bytes:
        """The bytes held under ``sha256``, which hash to it (the store checks them on read, so
        derivation takes ``sha256`` as their hash and does not hash them again)."""
        ...


@dataclass(frozen=True, slots=True)
class Unit:
    """One body to derive for one language of one version."""

    language: str
    kind: str
    observation: Observation


def held(obs: Observation, evidence: Evidence) -> bool:
    return not obs.held_elsewhere and evidence.has(obs.sha256)


def _formex_main(expr: Expression, evidence: Evidence) -> Observation | None:
    members = {o.file.rsplit("/", 1)[-1]: o for o in expr.observations if o.format == FMX4 and held(o, evidence)}
    sizes = {name: (o.size if o.size is not None else 0) for name, o in members.items()}
    doc_xml = {name: evidence.read(o.sha256) for name, o in members.items() if name.lower().endswith(".doc.xml")}
    name = main_member_name(sizes, doc_xml)
    return members.get(name) if name else None


def _primary(expr: Expression, evidence: Evidence) -> Observation | None:
    found = [o for o in expr.observations if o.format is None and held(o, evidence)]
    return found[-1] if found else None


def fmx4_languages(versions: Sequence[VersionRecord], evidence: Evidence) -> frozenset[str]:
    with_formex: set[str] = set()
    primary_only: set[str] = set()
    for version in versions:
        for expr in version.expressions:
            has_fmx = _formex_main(expr, evidence) is not None
            if has_fmx:
                with_formex.add(expr.language)
            elif _primary(expr, evidence) is not None:
                primary_only.add(expr.language)
    return frozenset(with_formex - primary_only)


def _alt(expr: Expression, evidence: Evidence, fmt: str) -> Observation | None:
    found = sorted((o for o in expr.observations if o.format == fmt and held(o, evidence)), key=lambda o: o.file)
    return found[0] if found else None


def units_for(version: VersionRecord, evidence: Evidence, fmx4_langs: Iterable[str]) -> list[Unit]:
    """The units of one version, in ordinal order of their observation file."""
    formex_langs = frozenset(fmx4_langs)
    units: list[Unit] = []
    for expr in version.expressions:
        lang = expr.language
        formex = _formex_main(expr, evidence)
        primary = _primary(expr, evidence)
        unit: Unit | None = None
        if primary is not None and not (lang in formex_langs and formex is not None):
            unit = Unit(lang, STRUCTURED, primary)
        elif formex is not None:
            unit = Unit(lang, FMX4, formex)
        else:
            for fmt in (PDF, PDF_MEMORIAL):
                alt = _alt(expr, evidence, fmt)
                if alt is not None:
                    unit = Unit(lang, fmt, alt)
                    break
        if unit is not None:
            units.append(unit)
    return sorted(units, key=lambda u: u.observation.file)
