"""The reviewed EUR-Lex scope file (``lex-eu-scope/1``): seeds plus one level of relations.

A scope names seed acts by CELEX, grouped in domains with a review *wave*; only domains with
``wave <= approved_wave`` are enumerated. With ``relations.depth = 1`` the adapter adds every
work that a seed amends/corrects/repeals/implicitly repeals/is based on, or that does so to the
seed (reference model §5.3), subject to the admission filter (CELEX family and legal form)
and the caps. Selection reasons are engineering inputs only: they never reach the tree.

The scope's SHA-256 (over the file's raw bytes) identifies the configuration of a run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from legal.errors import ConfigError
from publishers.eurlex.vocab import CDM, LANGUAGES

SCHEMA = "lex-eu-scope/1"
PREDICATES = {
    "amends": CDM + "resource_legal_amends_resource_legal",
    "corrects": CDM + "resource_legal_corrects_resource_legal",
    "repeals": CDM + "resource_legal_repeals_resource_legal",
    "implicitly_repeals": CDM + "resource_legal_implicitly_repeals_resource_legal",
    "based_on": CDM + "resource_legal_based_on_resource_legal",
}


@dataclass(frozen=True)
class Relations:
    depth: int = 1
    predicates: tuple[str, ...] = tuple(PREDICATES)
    max_related_per_seed: int = 500
    max_works: int = 2000


@dataclass(frozen=True)
class EurlexScope:
    """A validated scope. ``seeds`` are the admitted seed CELEX numbers of approved waves."""

    scope_id: str
    seeds: tuple[str, ...]
    languages: tuple[str, ...] = ("en", "fr")
    legal_forms: tuple[str, ...] = ("REG", "DIR", "DEC", "TREATY", "CHARTER")
    relations: Relations = field(default_factory=Relations)
    include_original: bool = True
    include_unamended: bool = True
    sha256: str | None = None

    @classmethod
    def of(cls, seeds: Sequence[str], *, depth: int = 0, scope_id: str = "ad-hoc", **kwargs: Any) -> EurlexScope:
        """An in-code scope (tests, one-off runs)."""
        return cls(scope_id=scope_id, seeds=tuple(sorted(set(seeds))),
                   relations=Relations(depth=depth), **kwargs)

    @classmethod
    def load(cls, path: str | Path | None = None) -> EurlexScope:
        """Load and validate a scope file (default: the bundled reviewed ``scope.json``)."""
        if path is None:
            data = resources.files("publishers.eurlex").joinpath("scope.json").read_bytes()
            where = "publishers/eurlex/scope.json"
        else:
            data = Path(path).read_bytes()
            where = str(path)
        try:
            doc = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"scope file is not JSON: {exc}", code="invalid_scope", subject=where) from None
        return cls.from_document(doc, where=where, sha256=hashlib.sha256(data).hexdigest())

    @classmethod
    def from_document(cls, doc: Any, *, where: str, sha256: str | None = None) -> EurlexScope:
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise ConfigError(f"scope schema must be {SCHEMA!r}", code="invalid_scope", subject=where)
        if doc.get("history", {}).get("manufacture_consolidations", False):
            raise ConfigError("manufacture_consolidations must be false", code="invalid_scope", subject=where)
        wave = _int(doc, "approved_wave", where)
        seeds = sorted({celex for domain in _list(doc, "domains", where) if _int(domain, "wave", where) <= wave
                        for celex in _list(domain, "seeds", where)})
        languages = tuple(_list(doc, "languages", where))
        if not languages or any(lang not in LANGUAGES for lang in languages):
            raise ConfigError(f"scope languages must be among {sorted(LANGUAGES)}", code="invalid_scope",
                              subject=where)
        rel = doc.get("relations", {})
        predicates = tuple(rel.get("predicates", tuple(PREDICATES)))
        if any(p not in PREDICATES for p in predicates):
            raise ConfigError(f"unknown relation predicate in {predicates}", code="invalid_scope", subject=where)
        history = doc.get("history", {})
        return cls(
            scope_id=str(doc.get("scope_id", "")), seeds=tuple(str(s) for s in seeds), languages=languages,
            legal_forms=tuple(_list(doc, "legal_forms", where)),
            relations=Relations(depth=int(rel.get("depth", 1)), predicates=predicates,
                                max_related_per_seed=int(rel.get("max_related_per_seed", 500)),
                                max_works=int(rel.get("max_works", 2000))),
            include_original=bool(history.get("include_original", True)),
            include_unamended=bool(history.get("include_unamended", True)),
            sha256=sha256,
        )


def _list(doc: Any, key: str, where: str) -> list[Any]:
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, list):
        raise ConfigError(f"scope member {key!r} must be a list", code="invalid_scope", subject=where)
    return value


def _int(doc: Any, key: str, where: str) -> int:
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"scope member {key!r} must be an integer", code="invalid_scope", subject=where)
    return value
