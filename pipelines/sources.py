"""Turn the configured source into corpus-tree updates for one publisher.

- ``sample``: the bundled demonstration corpus is served by the replay publisher on loopback
  and ingested through the real adapters (the same code path as ``live``);
- ``replay``: a replay publisher already running at ``settings.replay_url``;
- ``published`` (older name ``fixtures``): exported ``lex-corpus-<publisher>`` trees under
  ``settings.fixtures_dir`` (the test fixtures, or the two full corpora) imported as they are,
  verified record by record (:func:`corpus_tree.importer.import_published`, what
  ``lex corpus import`` calls);
- ``live``: the official endpoints.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from corpus_tree.importer import import_published
from legal.errors import ConfigError
from legal.ids import Publisher
from pipelines.settings import LexSettings
from pipelines.state import StageState

Progress = Callable[[str, int, int], None]


def sample_root(publisher: Publisher) -> Path:
    from publishers.sample import sample_corpus_roots

    return Path(sample_corpus_roots()[publisher.value])


def sample_scope(publisher: Publisher | str = Publisher.EURLEX) -> Any:
    """The publisher's scope for the bundled sample (EUR-Lex: every sample EU work, one relation
    level; a publisher without scopes: ``None``)."""
    from publishers.wiring import sample_scope as scope_of_root

    pub = Publisher.parse(publisher)
    return scope_of_root(pub, sample_root(pub))


@contextlib.contextmanager
def replay_of(root: Path) -> Iterator[str]:
    """A replay publisher over ``root`` on 127.0.0.1, for the duration of the block."""
    from publishers.replay.app import ReplayPublisher
    from publishers.replay.server import serve_in_thread
    from publishers.replay.source import load_source

    replay = ReplayPublisher(sources=[load_source(root)])
    with serve_in_thread(replay.app()) as url:
        yield url


def update_tree(settings: LexSettings, publisher: Publisher, progress: Progress | None = None,
                tree: CorpusTree | None = None, staged: set[str] | None = None) -> dict[str, Any]:
    """Bring the publisher's tree up to date from the configured source; returns a report dict.
    ``tree``: the publisher's tree already open (an import then reads its records through it, so
    a :meth:`CorpusTree.caching` block around the call keeps what it parsed). ``staged``: gets the
    bodies an import installed, each hashed as it was written (what the verification after it
    need not hash again: :func:`corpus_tree.verify.verify_tree`'s ``fresh``)."""
    target = settings.tree(publisher.value)
    evidence = settings.evidence_dir or None
    if settings.published:
        return _import(settings, publisher, published_source(settings, publisher), target, tree, staged)
    guards = settings.ingest_options()
    if settings.source == "sample":
        with replay_of(sample_root(publisher)) as url:
            return _ingest(target, evidence, publisher, url, sample_scope(publisher), progress, **guards)
    if settings.source == "replay":
        if not settings.replay_url:
            raise ConfigError("source 'replay' needs replay_url", code="missing_replay_url")
        return _ingest(target, evidence, publisher, settings.replay_url, _DEFAULT_SCOPE, progress,
                       settings.scope_file(publisher.value), **guards)
    if settings.source == "live":
        return _ingest(target, evidence, publisher, None, _DEFAULT_SCOPE, progress, settings.scope_file(publisher.value),
                       **guards)
    raise ConfigError(f"unknown source {settings.source!r}", code="unknown_source", subject=settings.source)


def source_fingerprint(src: Path) -> str:
    """A digest of every file's relative path, size and modification time under ``src`` (the quick
    check of rsync and make): an exported tree whose files all keep their size and time is taken as
    unchanged; a new, removed, rewritten or touched file changes it.

    The bytes are those of an ``os.walk`` of ``src`` (top-down, subdirectories in name order, a
    directory's files in name order before its subdirectories; a symbolic link to a directory
    listed with the directories but not walked, any other entry a file, ``lstat``-ed), walked with
    ``os.scandir`` and a stack of (relative prefix, directory) strings: no path joined or made
    relative per file (a published tree holds tens of thousands of files, and this check runs
    before every import and in every stage-currency check)."""
    import hashlib
    import os

    h = hashlib.sha256()
    pending = [("", os.fspath(src))]
    while pending:
        prefix, directory = pending.pop()
        try:
            with os.scandir(directory) as entries:
                found = list(entries)
        except OSError:  # as os.walk: an unreadable directory is passed over
            continue
        subdirectories: list[tuple[str, str]] = []
        files: list[tuple[str, os.DirEntry[str]]] = []
        for entry in found:
            try:
                is_dir = entry.is_dir()  # as os.walk classifies: a link to a directory is one
            except OSError:
                is_dir = False
            if not is_dir:
                files.append((entry.name, entry))
            elif not entry.is_symlink():  # listed, not walked (os.walk without followlinks)
                subdirectories.append((entry.name, entry.path))
        for name, entry in sorted(files, key=lambda f: f[0]):
            st = entry.stat(follow_symlinks=False)
            h.update(f"{prefix}{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        # walked in name order: the stack pops the smallest name first
        pending.extend((f"{prefix}{name}/", path) for name, path in sorted(subdirectories, reverse=True))
    return h.hexdigest()


def import_state(settings: LexSettings, publisher: Publisher, src: Path,
                 target: Path) -> tuple[StageState, dict[str, Any], dict[str, Path]]:
    """The import's stage state, its inputs (the source's files, the evidence store) and outputs
    (the tree's manifest): the import is skipped when the state holds these (:func:`_import`,
    and :func:`pipelines.currency.stage_current` before a step is started)."""
    state = StageState(settings.root, f"import-{publisher.value}", rehash=settings.rehash)
    inputs = {"files": source_fingerprint(src), "evidence": settings.evidence_dir}
    return state, inputs, {"manifest": target / "manifest.json"}


def published_source(settings: LexSettings, publisher: Publisher) -> Path:
    """The published tree a ``published`` source imports for ``publisher``."""
    if not settings.fixtures_dir:
        raise ConfigError(f"source {settings.source!r} needs the directory of the published trees "
                          "(LEX_PUBLISHED_DIR)", code="missing_fixtures_dir")
    return Path(settings.fixtures_dir) / f"lex-corpus-{publisher.value}"


def verified_state(settings: LexSettings, publisher: Publisher,
                   records_digest: object) -> tuple[StageState, dict[str, Any]]:
    """The state of the tree's last sound full verification and its inputs (the records digest):
    the ``corpus_tree`` step verifies the tree unless the state holds them."""
    return (StageState(settings.root, f"corpus-verified-{publisher.value}", rehash=settings.rehash),
            {"records": records_digest})


def _import(settings: LexSettings, publisher: Publisher, src: Path, target: Path,
            tree: CorpusTree | None = None, staged: set[str] | None = None) -> dict[str, Any]:
    """Import the published tree ``src`` (what ``lex corpus import`` does), unless it holds the very
    files imported last time (same relative paths, sizes and times, wherever the directory is: a
    copy made of hard links, or the same export moved, is the same source) into the very tree
    that import left (then nothing could change: the importer would read and verify every record
    to commit nothing).

    Otherwise the works whose files all keep their size, time and inode since the last sound import
    are not read again (``state/import-<publisher>.memo.json``, :class:`corpus_tree.importer.SourceMemo`,
    written only after a successful import; ignored under ``LEX_REHASH=1``)."""
    from corpus_tree.importer import SourceMemo

    state, inputs, outputs = import_state(settings, publisher, src, target)
    if state.unchanged(inputs, outputs):
        return {"skipped": "source unchanged (every file's size and time)", "bodies_new": 0}
    memo_path = settings.root / "state" / f"import-{publisher.value}.memo.json"
    try:
        memo = SourceMemo.from_bytes(memo_path.read_bytes())
    except OSError:
        memo = SourceMemo()
    into: CorpusTree | Path = tree if tree is not None and tree.root == target else target
    imported = import_published(src, into, memo=None if settings.rehash else memo)
    if staged is not None:
        staged.update(imported.bodies_staged)
    report = dict(imported.to_dict())
    memo_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = memo_path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(memo.to_bytes())
    os.replace(tmp, memo_path)
    state.record(inputs, outputs)
    return report


_DEFAULT_SCOPE: Any = object()


def _ingest(target: Path, evidence: str | None, publisher: Publisher, replay_url: str | None, scope: Any,
            progress: Progress | None, scope_path: str | None = None, **guards: Any) -> dict[str, Any]:
    """One ingest through :func:`publishers.wiring.run_ingest` (the CLI's code path)."""
    from publishers.wiring import run_ingest

    kwargs: dict[str, Any] = {} if scope is _DEFAULT_SCOPE else {"scope": scope}
    kwargs.update(guards)
    report = run_ingest(publisher, target, replay_url=replay_url, scope_path=scope_path, evidence_dir=evidence,
                        delay=0.0 if replay_url else None, progress=progress, **kwargs)
    return dict(report.to_dict())
