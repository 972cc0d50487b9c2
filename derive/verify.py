"""``lex derive verify``: re-derive a dataset from its tree and byte-compare every file.

The claim checked is "this code over these evidence bytes yields exactly these files". A
mismatch means the dataset was produced by other code (a different profile version), from
other evidence, or was edited afterwards. The re-derivation never reads the per-work cache
(:mod:`derive.cache`): it checks the code, not the cache.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tree import CorpusTree
from derive.dataset import Progress, build_dataset
from derive.limits import DEFAULT_LIMITS, Limits


@dataclass
class VerifyReport:
    compared: int = 0
    mismatched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.mismatched or self.missing or self.extra)

    def line(self) -> str:
        return (f"verify derive: compared={self.compared} mismatched={len(self.mismatched)} "
                f"missing={len(self.missing)} extra={len(self.extra)}")


CHUNK = 1 << 20


def same_bytes(a: Path, b: Path) -> bool:
    """Byte equality of two files, read in 1 MiB chunks (never a whole file in memory)."""
    if a.stat().st_size != b.stat().st_size:
        return False
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            left, right = fa.read(CHUNK), fb.read(CHUNK)
            if left != right:
                return False
            if not left:
                return True


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def compare_dirs(expected: Path, actual: Path) -> VerifyReport:
    """``expected`` is the fresh derivation; ``actual`` the dataset under test."""
    want, have = _files(expected), _files(actual)
    report = VerifyReport()
    for rel, path in want.items():
        if rel not in have:
            report.missing.append(rel)
            continue
        report.compared += 1
        if not same_bytes(path, have[rel]):
            report.mismatched.append(rel)
    report.extra = sorted(set(have) - set(want))
    return report


def verify_dataset(dataset: str | Path, tree: CorpusTree, *, limits: Limits = DEFAULT_LIMITS,
                   progress: Progress | None = None, workers: int = 1) -> VerifyReport:
    """Re-derive ``tree`` (``workers`` processes, no cache) beside nothing else, then compare
    file by file, streamed. Peak memory is that of a build, not the size of the dataset."""
    with tempfile.TemporaryDirectory(prefix="lex-derive-verify-") as tmp:
        fresh = Path(tmp) / "dataset"
        build_dataset(tree, fresh, limits=limits, progress=progress, use_cache=False, workers=workers)
        return compare_dirs(fresh, Path(dataset))
