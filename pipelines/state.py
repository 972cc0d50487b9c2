"""Input digests of each stage, so that a re-run with unchanged inputs does nothing.

Each stage writes ``<workdir>/state/<stage>.json`` = ``{inputs, outputs, files}`` after it succeeds.
A stage whose current input digest equals the recorded one, and whose recorded outputs are
still on disk with the recorded digests, is skipped (reported as ``skipped: inputs unchanged``).
The state file is written last, atomically: a killed run leaves the previous state, so the
next run redoes the stage.

The quick check: ``files`` records, for every file the stage hashed (its outputs, and inputs
hashed through :meth:`StageState.sha256`), its size, modification time (ns) and inode beside its
SHA-256. A file whose three are those recorded is taken to hold the recorded bytes and is not
read again; any difference (a rewrite, a rename over it, a copy) hashes it. So an unchanged
stage costs a ``stat`` per file, not a read of gigabytes. What it trusts: that nothing rewrote a
file in place keeping its size and restoring its time. ``rehash`` (``LEX_REHASH=1``) hashes
every file regardless; ``lex derive verify`` and ``lex corpus verify`` check the content itself.

Stages share what they hashed: each state it records also merges its ``files`` into
``<workdir>/state/file-hashes.json`` (:data:`SHARED`; entries of files that no longer exist
dropped), which any stage consults under the same rule, so a file one stage wrote and hashed (the
dataset, the index) is not read again by the stages that take it as input.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from legal.canonical import canonical_bytes, digest, file_sha256


def files_digest(paths: Mapping[str, Path]) -> dict[str, str]:
    return {name: file_sha256(path) for name, path in sorted(paths.items()) if path.is_file()}


def stat_key(path: Path) -> str:
    """What the quick check compares: ``size:mtime_ns:inode`` (a string: canonical JSON numbers
    stop at 2**53)."""
    st = path.stat()
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


#: the hashes every stage of the work directory recorded, ``{path: [stat_key, sha256]}``
SHARED = "file-hashes.json"


class StageState:
    """The recorded inputs and outputs of one stage. ``rehash``: never trust the recorded
    (size, time, inode) of a file, hash it."""

    def __init__(self, root: Path, stage: str, rehash: bool = False) -> None:
        self.path = root / "state" / f"{stage}.json"
        self.rehash = rehash
        #: the outputs' hashes computed by the last :meth:`unchanged` that found the stage current
        self.digests: dict[str, str] | None = None
        self._recorded: dict[str, object] | None = None
        self._loaded = False
        #: ``{path: [stat_key, sha256]}`` of the files seen in this run
        self._seen: dict[str, list[str]] = {}
        self._hashed = 0
        self._shared: dict[str, object] | None = None

    def _load(self) -> dict[str, object] | None:
        if not self._loaded:
            self._loaded = True
            try:
                value = json.loads(self.path.read_bytes())
            except (OSError, ValueError):
                value = None
            self._recorded = value if isinstance(value, dict) else None
        return self._recorded

    def _known(self) -> dict[str, object]:
        recorded = self._load()
        files = recorded.get("files") if recorded is not None else None
        return files if isinstance(files, dict) else {}

    def sha256(self, path: Path) -> str:
        """The file's SHA-256: the recorded one when its size, time and inode are those recorded
        (and not ``rehash``), else read now. Remembered for :meth:`record`."""
        stat = stat_key(path)  # before reading: a write during the read shows at the next check
        sha = self._recorded_for(str(path), stat)
        if sha is None:
            sha = file_sha256(path)
            self._hashed += 1
        self._seen[str(path)] = [stat, sha]
        return sha

    def recorded_sha256(self, path: Path) -> str | None:
        """The SHA-256 recorded for ``path`` when its size, time and inode are those recorded (and
        not ``rehash``), else ``None`` — never read (the quick check alone, for a caller that reads
        the file itself when there is no record). Remembered for :meth:`record` when found."""
        try:
            stat = stat_key(path)
        except OSError:
            return None
        sha = self._recorded_for(str(path), stat)
        if sha is not None:
            self._seen[str(path)] = [stat, sha]
        return sha

    def _recorded_for(self, key: str, stat: str) -> str | None:
        seen = self._seen.get(key)
        if seen is not None and seen[0] == stat:
            return seen[1]
        if self.rehash:
            return None
        for known in (self._known().get(key), self._shared_files().get(key)):
            if isinstance(known, list) and len(known) == 2 and known[0] == stat:
                return str(known[1])
        return None

    def remember(self, path: Path, sha256: str) -> bool:
        """Record that ``path`` holds ``sha256`` as it is now — for a file the caller has just read
        whole and checked against that digest (a verified copy), so that the next quick check of it
        is a ``stat``; kept by the next :meth:`record`. True when this is news (the file's
        current size, time and inode were not recorded with that digest)."""
        stat = stat_key(path)
        news = self._recorded_for(str(path), stat) != sha256
        self._seen[str(path)] = [stat, sha256]
        return news

    def _shared_files(self) -> dict[str, object]:
        if self._shared is None:
            self._shared = _read_json(self.path.parent / SHARED) or {}
        return self._shared

    def _publish(self) -> None:
        """Merge what this stage saw into the shared hashes (read again now: another step may
        have written it since; a lost update only costs a read later)."""
        path = self.path.parent / SHARED
        shared = {k: v for k, v in (_read_json(path) or {}).items() if os.path.exists(k)}
        shared.update(self._seen)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(canonical_bytes(dict(sorted(shared.items()))))
        os.replace(tmp, path)
        self._shared = shared

    def files_digest(self, paths: Mapping[str, Path]) -> dict[str, str]:
        """:func:`files_digest` through :meth:`sha256`."""
        return {name: self.sha256(path) for name, path in sorted(paths.items()) if path.is_file()}

    def unchanged(self, inputs: object, outputs: Mapping[str, Path]) -> bool:
        self.digests = None
        recorded = self._load()
        if recorded is None or recorded.get("inputs") != digest(inputs):
            return False
        hashed = self._hashed
        current = self.files_digest(outputs)
        if recorded.get("outputs") != current or not all(p.is_file() for p in outputs.values()):
            return False
        self.digests = current
        if self._hashed != hashed or any(str(p) not in self._known() for p in outputs.values()):
            # current, but some file was read (copied, touched, or a state without ``files``):
            # remember what was seen so that the next check is a ``stat``
            self._write(str(recorded["inputs"]), current)
        return True

    def recorded_outputs(self) -> dict[str, str]:
        """The outputs' hashes the last :meth:`record` (or current :meth:`unchanged`) wrote, never read now."""
        recorded = self._load()
        outputs = recorded.get("outputs") if recorded is not None else None
        return {str(k): str(v) for k, v in outputs.items()} if isinstance(outputs, dict) else {}

    def output_digests(self, outputs: Mapping[str, Path]) -> dict[str, str]:
        """:func:`files_digest` of ``outputs``: the hashes the last :meth:`unchanged` computed when it
        found the stage current (for a caller that then wrote none of them), else computed now."""
        return dict(self.digests) if self.digests is not None else self.files_digest(outputs)

    def record(self, inputs: object, outputs: Mapping[str, Path], digests: Mapping[str, str] | None = None) -> None:
        """Record ``inputs`` and the outputs' hashes (``digests``: :func:`files_digest` of ``outputs``
        when the caller just computed it, after writing them)."""
        if digests is None:
            hashes = self.files_digest(outputs)
        else:
            hashes = dict(digests)
            for name, path in outputs.items():
                if name in hashes and path.is_file():
                    self._seen[str(path)] = [stat_key(path), hashes[name]]
        self._write(digest(inputs), hashes)

    def _write(self, inputs_digest: str, hashes: Mapping[str, str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".{os.getpid()}.tmp")  # steps of a run may record side by side
        files = {key: value for key, value in sorted(self._seen.items())}
        tmp.write_bytes(canonical_bytes({"inputs": inputs_digest, "outputs": dict(hashes), "files": files}))
        os.replace(tmp, self.path)
        self._recorded = {"inputs": inputs_digest, "outputs": dict(hashes), "files": files}
        self._loaded = True
        self._publish()


def _read_json(path: Path) -> dict[str, object] | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
