"""Replicate a publisher's records N times under new identities (pure; no I/O).

Replica 0 is the corpus as imported. Replica ``r`` ≥ 1 is a copy in which every identity the
publisher would mint differently for another act is rewritten, consistently across records:

- **Legilux**: the prefix ``scale-r<r>-`` is put before one path segment of every ELI of the
  record — work URI, consolidation URI (the publisher version identifier), expression pages,
  ``text.url``, filestore URLs of XML and PDF bodies: the segment after
  ``/eli/etat/leg/<kind>/<yyyy>/<mm>/<dd>/`` when the ELI has that shape (a dated Legilux ELI
  keeps its five segments, as the identifier grammar expects), else the one right after
  ``/eli/etat/leg/`` (or ``adm/``).
  ``loi-2006-07-31-n2`` becomes ``loi-2006-07-31-scale-r3-n2``: the slug keeps the
  ``<kind>-<date>`` head by which the Mémorial profile finds the act in a gazette issue, and
  the date tails the adapter reads from consolidation URIs stay intact.
- **EUR-Lex**: the CELEX number gets ``9`` and the three-digit replica number inserted after
  its type letters (``32016R0679`` → ``32016R90030679``, ``02016R0679-20160504`` →
  ``02016R90030679-20160504``, ``32004L0048R(03)`` → ``32004L90030048R(03)``), in ``raw.celex``
  and wherever a CELEX follows ``resource/celex/`` or ``CELEX:`` (escaped form kept escaped).
  Sector, year and type letter — all the adapter derives from a CELEX — are unchanged. Cellar
  zip paths of Formex members get a ``scale-r<r>.`` prefix so each replica has its own zip.

Then ``lex_id`` is recomputed from the new slug and version key, ``provenance`` (the published
record a replica was *not* imported from) is dropped, and ``record_sha256`` is re-sealed.
Events are kept, so withdrawn states stay withdrawn in every replica.

**Bodies.** So that the evidence store's deduplication does not hide growth, every XML-like
body (first non-blank byte ``<``: Akoma Ntoso, Formex members, XHTML/HTML pages) of replica
``r`` ≥ 1 gets one XML comment appended after its root element,
``\\n<!-- lex-evidence scale replica r -->\\n`` — legal in XML and HTML after the document
element, and invisible to every extraction profile. Observations get the new ``sha256`` and
``size``. PDFs are shared bytes (deduplicated by the store): they are 11 of ~260 fixture
bodies, and a PDF has no harmless place for a byte without rewriting its cross-reference table.
Bodies a record names but does not hold (``held_elsewhere``) stay as they are.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from corpus_tree.records import seal
from legal.identifiers import CELEX_RESOURCE
from legal.ids import Publisher, VersionKey, WorkSlug, parse_date

Record = dict[str, Any]
Rename = Callable[[str], str]

CELEX_BASE = CELEX_RESOURCE
CELLAR_PATH = "/resource/cellar/"
MAX_REPLICAS = 999
_LU_ELI = re.compile(r"/eli/etat/(?:leg|adm)/(?:[^/]+/\d{4}/\d{2}/\d{2}/)?")
_CELEX_IN_URI = re.compile(r"(resource/celex/|CELEX:)([^\s\"&#?]+)")
_CELEX_PARTS = re.compile(r"^([0-9CE])(\d{4})([A-Z]+)(.+)$", re.IGNORECASE)
_SKIP_KEYS = frozenset({"sha256", "file", "record_sha256", "lex_id", "provenance", "events", "title",
                        "title_short", "label"})


def marker(replica: int) -> bytes:
    """The bytes appended to an XML-like body of ``replica`` (≥ 1)."""
    return f"\n<!-- lex-evidence scale replica {replica} -->\n".encode("ascii")


def is_xml_like(head: bytes) -> bool:
    """True when the first non-blank byte (after a UTF-8 BOM) is ``<``."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    return text.startswith(b"<")


# -- identity rewriting ------------------------------------------------------------------------


def rename_celex(celex: str, replica: int) -> str:
    """``32016R0679`` → ``32016R9<rrr>0679`` (sector, year and type letters kept)."""
    match = _CELEX_PARTS.match(celex)
    if match is None:
        raise ValueError(f"cannot replicate CELEX {celex!r}")
    sector, year, kind, rest = match.groups()
    return f"{sector}{year}{kind}9{replica:03d}{rest}"


def lu_renamer(replica: int) -> Rename:
    """Rewrites Legilux ELIs of ``replica``."""
    return lambda text: _LU_ELI.sub(lambda m: f"{m.group(0)}scale-r{replica}-", text)


def eu_renamer(replica: int) -> Rename:
    """Rewrites CELEX numbers in URIs and Cellar zip paths of ``replica``."""

    def celex_token(m: re.Match[str]) -> str:
        token = m.group(2)
        escaped = m.group(1) == "CELEX:"
        renamed = rename_celex(unquote(token) if escaped else token, replica)
        return m.group(1) + (quote(renamed, safe="") if escaped else renamed)

    def rename(text: str) -> str:
        text = _CELEX_IN_URI.sub(celex_token, text)
        return text.replace(CELLAR_PATH, f"{CELLAR_PATH}scale-r{replica}.")

    return rename


def renamer(publisher: Publisher, replica: int) -> Rename:
    if not 1 <= replica <= MAX_REPLICAS:
        raise ValueError(f"replica must be in 1..{MAX_REPLICAS}, not {replica}")
    return lu_renamer(replica) if publisher is Publisher.LEGILUX else eu_renamer(replica)


def rewrite_strings(value: Any, rename: Rename, key: str | None = None) -> Any:
    """``value`` with ``rename`` applied to every string, except under identity-free keys."""
    if key in _SKIP_KEYS:
        return value
    if isinstance(value, str):
        return rename(value)
    if isinstance(value, list):
        return [rewrite_strings(v, rename, key) for v in value]
    if isinstance(value, dict):
        return {k: rewrite_strings(v, rename, k) for k, v in value.items()}
    return value


def slug_of(publisher: Publisher, work_identifier: str) -> str:
    if publisher is Publisher.LEGILUX:
        return WorkSlug.from_eli(work_identifier).value
    return WorkSlug.from_celex(work_identifier[len(CELEX_BASE):]).value


# -- bodies --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Perturbed:
    """A replica's body: the base body's bytes plus :func:`marker` of ``replica``."""

    base_sha256: str
    replica: int
    size: int


@dataclass
class BodyTable:
    """Hashes of the base bodies' replicas, computed once per (body, replica).

    ``read_base(sha)`` returns the held base bytes (``None`` when not held). The SHA-256 state
    of a base body is computed once and extended by each replica's marker.
    """

    read_base: Callable[[str], bytes | None]
    perturbed: dict[str, Perturbed] = field(default_factory=dict)
    _state: dict[str, Any] = field(default_factory=dict)
    _sizes: dict[str, int] = field(default_factory=dict)
    _memo: dict[tuple[str, int], tuple[str, int] | None] = field(default_factory=dict)

    def replica_of(self, sha256: str, replica: int) -> tuple[str, int] | None:
        """``(sha256, size)`` of the body of ``replica`` (``None``: not held or not XML-like)."""
        key = (sha256, replica)
        if key not in self._memo:
            self._memo[key] = self._compute(sha256, replica)
        return self._memo[key]

    def _compute(self, sha256: str, replica: int) -> tuple[str, int] | None:
        if sha256 not in self._state:
            data = self.read_base(sha256)
            xml = data is not None and is_xml_like(data[:4096])
            self._state[sha256] = hashlib.sha256(data) if xml and data is not None else None
            self._sizes[sha256] = len(data) if data is not None else 0
        base = self._state[sha256]
        if base is None:
            return None
        h = base.copy()
        tail = marker(replica)
        h.update(tail)
        new = h.hexdigest()
        size = self._sizes[sha256] + len(tail)
        self.perturbed[new] = Perturbed(sha256, replica, size)
        return new, size

    def read(self, sha256: str) -> bytes | None:
        """The bytes of a base body or of a replica's perturbed body."""
        p = self.perturbed.get(sha256)
        if p is None:
            return self.read_base(sha256)
        data = self.read_base(p.base_sha256)
        return None if data is None else data + marker(p.replica)


def _observation(o: Mapping[str, Any], bodies: BodyTable, replica: int) -> Record:
    if o.get("held_elsewhere"):
        return dict(o)
    found = bodies.replica_of(o["sha256"], replica)
    if found is None:
        return dict(o)
    sha, size = found
    out = dict(o, sha256=sha)
    if "size" in out:
        out["size"] = size
    return out


# -- records -------------------------------------------------------------------------------------


def replicate_version(record: Mapping[str, Any], publisher: Publisher, replica: int,
                      bodies: BodyTable) -> Record:
    """The version record ``record`` as replica ``replica`` (0: unchanged)."""
    if replica == 0:
        return dict(record)
    out: Record = rewrite_strings({k: v for k, v in record.items() if k not in ("provenance",
                                                                               "record_sha256")},
                                  renamer(publisher, replica))
    if publisher is Publisher.EURLEX and isinstance(out.get("raw", {}).get("celex"), str):
        out["raw"] = dict(out["raw"], celex=rename_celex(out["raw"]["celex"], replica))
    out["expressions"] = [dict(e, observations=[_observation(o, bodies, replica) for o in e["observations"]])
                          for e in out["expressions"]]
    key = VersionKey.create(parse_date(out["valid_from"]), out["publisher_version_identifier"])
    out["lex_id"] = f"{publisher.value}:{slug_of(publisher, out['work_identifier'])}:{key}"
    return seal(out)


def replicate_work(work: Mapping[str, Any], publisher: Publisher, replica: int) -> Record:
    """The work record ``work`` as replica ``replica`` (0: unchanged)."""
    if replica == 0:
        return dict(work)
    out: Record = rewrite_strings(dict(work), renamer(publisher, replica))
    slug = slug_of(publisher, out["work_identifier"])
    out["slug"], out["lex_work_id"] = slug, f"{publisher.value}:{slug}"
    return out


@dataclass
class Replicated:
    """Every replica's records of one publisher."""

    publisher: Publisher
    works: list[Record]
    versions: list[Record]

    def seeds(self) -> list[str]:
        """EUR-Lex: the CELEX numbers of the works (the scope an adapter enumerates)."""
        return sorted(w["work_identifier"][len(CELEX_BASE):] for w in self.works)


def replicate(publisher: Publisher, works: Iterable[Mapping[str, Any]], versions: Iterable[Mapping[str, Any]],
              n: int, bodies: BodyTable) -> Replicated:
    """``n`` replicas (0 … n-1) of the given work and version records."""
    if not 1 <= n <= MAX_REPLICAS + 1:
        raise ValueError(f"n must be in 1..{MAX_REPLICAS + 1}")
    base_works, base_versions = list(works), list(versions)
    out = Replicated(publisher, [], [])
    for r in range(n):
        out.works.extend(replicate_work(w, publisher, r) for w in base_works)
        out.versions.extend(replicate_version(v, publisher, r, bodies) for v in base_versions)
    return out
