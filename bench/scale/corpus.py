"""The scaled corpus: fixture corpora imported once into base trees, replicated N times, and
turned into replay sources (records in memory, bodies read from the base evidence store).

::

    base = prepare_base(fixtures, work_dir / "base")          # import_published, idempotent
    corpus = ScaledCorpus.build(base, n=16)                   # every replica's records
    replay = ReplayPublisher(corpus.sources())                # serve it (publishers.replay)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.scale.replicate import BodyTable, Replicated, replicate
from corpus_tree import CorpusTree, VersionRecord, WorkRecord
from corpus_tree.importer import import_published
from legal.ids import Publisher
from publishers.replay import ReplaySource

CORPORA = {Publisher.LEGILUX: "lex-corpus-lu-legilux", Publisher.EURLEX: "lex-corpus-eu-eurlex"}
BASE_DIRS = {Publisher.LEGILUX: "lu", Publisher.EURLEX: "eu"}


def prepare_base(fixtures: Path, base: Path) -> dict[Publisher, Path]:
    """Import both fixture corpora into ``base/lu`` and ``base/eu`` (a no-op when already there)."""
    out = {}
    for publisher, name in CORPORA.items():
        target = base / BASE_DIRS[publisher]
        import_published(fixtures / name, target)
        out[publisher] = target
    return out


def base_records(tree: CorpusTree, works: Iterable[str] | None) -> tuple[list[dict[str, Any]],
                                                                       list[dict[str, Any]]]:
    """The work and version records of ``tree`` (only the slugs in ``works`` when given)."""
    keep = set(works) if works is not None else None
    ws = [w.to_dict() for w in tree.works() if keep is None or w.slug in keep]
    if keep is not None and len(ws) != len(keep):
        missing = sorted(keep - {w["slug"] for w in ws})
        raise SystemExit(f"works not in {tree.root}: {missing}")
    vs = [v.to_dict() for w in ws for v in tree.versions(w["slug"])]
    return ws, vs


@dataclass
class ScaledCorpus:
    """Every replica's records of both publishers and one body table per publisher."""

    n: int
    replicated: dict[Publisher, Replicated]
    bodies: dict[Publisher, BodyTable]

    @classmethod
    def build(cls, base: Mapping[Publisher, Path], n: int,
              works: Mapping[Publisher, Sequence[str] | None] | None = None) -> ScaledCorpus:
        replicated, bodies = {}, {}
        for publisher, path in base.items():
            tree = CorpusTree.open(path)
            table = BodyTable(_reader(tree))
            ws, vs = base_records(tree, (works or {}).get(publisher))
            replicated[publisher] = replicate(publisher, ws, vs, n, table)
            bodies[publisher] = table
        return cls(n, replicated, bodies)

    def sources(self) -> list[ReplaySource]:
        """One replay source per publisher (records typed, bodies through the body table)."""
        out = []
        for publisher, rep in self.replicated.items():
            works = [WorkRecord.from_dict(w) for w in rep.works]
            versions = [VersionRecord.from_dict(v) for v in rep.versions]
            out.append(ReplaySource(publisher, works, versions, self.bodies[publisher].read,
                                    origin=f"scale n={self.n}"))
        return out

    def summary(self) -> dict[str, Any]:
        """What is served: counts per publisher and the EUR-Lex seeds (the ingest scope)."""
        out: dict[str, Any] = {"n": self.n, "publishers": {}}
        for publisher, rep in self.replicated.items():
            current = [v for v in rep.versions if not VersionRecord.from_dict(v).is_withdrawn]
            out["publishers"][publisher.value] = {
                "works": len(rep.works), "versions": len(rep.versions), "current_versions": len(current),
                "perturbed_bodies": len(self.bodies[publisher].perturbed),
                "seeds": rep.seeds() if publisher is Publisher.EURLEX else [],
            }
        return out


def _reader(tree: CorpusTree) -> Callable[[str], bytes | None]:
    def read(sha: str) -> bytes | None:
        return tree.evidence.read(sha) if tree.evidence.has(sha) else None

    return read
