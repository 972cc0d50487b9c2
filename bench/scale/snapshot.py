"""A frozen copy of the code under measurement.

The working tree is shared, and other engineers change it while a run that may take twenty
minutes is going. So the harness first copies the packages it measures into
``<out>/work/code/``, and starts every child (the replay and each stage) with that copy as its
working directory. ``python -m`` puts the working directory first on ``sys.path``, ahead of the
editable install's finder, so every N runs the same code. The copy's digest goes in the
results.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from bench.scale.measure import ROOT

#: What a run executes: the pipeline packages and the harness itself.
PACKAGES = ("legal", "corpus_tree", "publishers", "derive", "release", "bench/scale")
_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def snapshot(target: Path, root: Path = ROOT) -> Path:
    """Copy :data:`PACKAGES` from ``root`` into ``target`` (replaced); return ``target``."""
    if target.exists():
        shutil.rmtree(target)
    for package in PACKAGES:
        shutil.copytree(root / package, target / package, ignore=_IGNORE)
    return target


def code_digest(root: Path) -> str:
    """SHA-256 (16 hex) over the path and bytes of every ``.py`` file of :data:`PACKAGES` under ``root``."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
