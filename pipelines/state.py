"""Input digests of each stage, so that a re-run with unchanged inputs does nothing.

Each stage writes ``<workdir>/state/<stage>.json`` = ``{inputs, outputs}`` after it succeeds.
A stage whose current input digest equals the recorded one, and whose recorded outputs are
still on disk with the recorded digests, is skipped (reported as ``skipped: inputs unchanged``).
The state file is written last, atomically: a killed run leaves the previous state, so the
next run redoes the stage.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from legal.canonical import canonical_bytes, digest


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def files_digest(paths: Mapping[str, Path]) -> dict[str, str]:
    return {name: file_sha256(path) for name, path in sorted(paths.items()) if path.is_file()}


class StageState:
    """The recorded inputs and outputs of one stage."""

    def __init__(self, root: Path, stage: str) -> None:
        self.path = root / "state" / f"{stage}.json"
        #: the outputs' hashes computed by the last :meth:`unchanged` that found the stage current
        self.digests: dict[str, str] | None = None

    def _load(self) -> dict[str, object] | None:
        try:
            value = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def unchanged(self, inputs: object, outputs: Mapping[str, Path]) -> bool:
        self.digests = None
        recorded = self._load()
        if recorded is None or recorded.get("inputs") != digest(inputs):
            return False
        current = files_digest(outputs)
        if recorded.get("outputs") != current or not all(p.is_file() for p in outputs.values()):
            return False
        self.digests = current
        return True

    def output_digests(self, outputs: Mapping[str, Path]) -> dict[str, str]:
        """:func:`files_digest` of ``outputs``: the hashes the last :meth:`unchanged` computed when it
        found the stage current (for a caller that then wrote none of them), else computed now."""
        return dict(self.digests) if self.digests is not None else files_digest(outputs)

    def record(self, inputs: object, outputs: Mapping[str, Path], digests: Mapping[str, str] | None = None) -> None:
        """Record ``inputs`` and the outputs' hashes (``digests``: :func:`files_digest` of ``outputs``
        when the caller just computed it)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        hashes = dict(digests) if digests is not None else files_digest(outputs)
        tmp.write_bytes(canonical_bytes({"inputs": digest(inputs), "outputs": hashes}))
        os.replace(tmp, self.path)
