"""The artifact-set layout, and the one function that lays a set out.

An artifact set is a directory of regular files; the server mounts it and
:func:`release.verify.verify_artifact_set` checks it. Its layout, per publisher ``<pub>``::

    indexes/<pub>.sqlite              the SQLite FTS5 index (the server opens ``indexes/``)
    indexes/<pub>.stamp.json          its build stamp
    dataset/<pub>/provisions.parquet  the per-article dataset (lex-dataset/3, docs/contracts.md §2)
    dataset/<pub>/states.parquet      its distinct text states
    dataset/<pub>/version_events.parquet      every event of every version record (transaction time)
    dataset/<pub>/version_visibility.parquet  when each version was held, with its valid time then
    dataset/<pub>/gaps.jsonl          its typed gaps
    corpus/<pub>/manifest.json        the corpus-tree manifest the set was derived from
    scope/<name>                      scope files (the pipeline writes ``scope/eu-scope.json``)
    reports/retrieval-report.json     the retrieval benchmark report, bound to the index files
    reports/retrieval-report.dsse.json  ... and its signed envelope
    statement.dsse.json               the signed statement listing every file above

:func:`assemble_set` copies the inputs into that layout (into a sibling temporary directory,
renamed into place at the end, so a failed assembly leaves nothing behind);
:func:`add_report` binds a benchmark report to the set's index files and writes it with its
signed envelope. Signing (:mod:`release.signing`) comes after. The pipeline and
``lex release assemble`` both call these functions, so both produce the same bytes.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from legal.artifacts import DATASET_FILES, index_file_name, stamp_file_name
from legal.canonical import pretty_bytes
from legal.fs import fsync_dir
from release.codes import Reason, refuse
from release.files import atomic_write, check_name, hash_file
from release.keys import Signer
from release.layout import dataset_name
from release.report import bind, sign_report
from release.signatures import write_envelope

INDEXES_DIR = "indexes"
CORPUS_DIR = "corpus"
SCOPE_DIR = "scope"
REPORTS_DIR = "reports"
CORPUS_MANIFEST = "manifest.json"
RETRIEVAL_REPORT = f"{REPORTS_DIR}/retrieval-report.json"
RETRIEVAL_REPORT_ENVELOPE = f"{REPORTS_DIR}/retrieval-report.dsse.json"

Progress = Callable[[str, int], None]


def index_name(publisher: str) -> str:
    """``indexes/<publisher>.sqlite``: where a publisher's index sits in a set."""
    return f"{INDEXES_DIR}/{index_file_name(publisher)}"


def stamp_name(publisher: str) -> str:
    return f"{INDEXES_DIR}/{stamp_file_name(publisher)}"


def corpus_manifest_name(publisher: str) -> str:
    return f"{CORPUS_DIR}/{publisher}/{CORPUS_MANIFEST}"


def scope_name(file_name: str) -> str:
    return check_name(f"{SCOPE_DIR}/{file_name}")


@dataclass(frozen=True)
class PublisherSources:
    """Where one publisher's files are before assembly.

    ``index_dir`` holds ``<pub>.sqlite`` and ``<pub>.stamp.json`` (``lex index build --out``),
    ``dataset_dir`` holds the dataset contract's files (:data:`legal.artifacts.DATASET_FILES`:
    the four Parquet tables and ``gaps.jsonl``, as ``lex derive run`` writes them),
    ``corpus_dir`` is the corpus tree (its ``manifest.json`` is taken).
    """

    publisher: str
    index_dir: Path
    dataset_dir: Path
    corpus_dir: Path

    def files(self) -> dict[str, Path]:
        """``{name in the set: source path}`` for this publisher."""
        pub = self.publisher
        out = {
            index_name(pub): self.index_dir / index_file_name(pub),
            stamp_name(pub): self.index_dir / stamp_file_name(pub),
        }
        out.update({dataset_name(pub, name): self.dataset_dir / name for name in DATASET_FILES})
        out[corpus_manifest_name(pub)] = self.corpus_dir / CORPUS_MANIFEST
        return out


@dataclass(frozen=True)
class SetSources:
    """Everything a set is made of, the benchmark report aside (it is measured on the set)."""

    publishers: tuple[PublisherSources, ...]
    scope: Mapping[str, bytes] = field(default_factory=dict)

    def files(self) -> dict[str, Path]:
        """``{name in the set: source path}`` of every copied file, sorted by name."""
        out: dict[str, Path] = {}
        for sources in self.publishers:
            for name, path in sources.files().items():
                if name in out:
                    refuse(Reason.ASSEMBLY_CONFLICT, "two inputs map to one file of the set", name)
                out[name] = path
        return dict(sorted(out.items()))

    def plan(self) -> dict[str, Path | bytes]:
        """Every file of the set (reports aside) and where its bytes come from."""
        planned: dict[str, Path | bytes] = dict(self.files())
        planned.update({scope_name(name): data for name, data in sorted(self.scope.items())})
        return dict(sorted(planned.items()))


@dataclass(frozen=True)
class AssembledSet:
    """An assembled (not yet signed) set directory and the files written into it."""

    directory: Path
    files: Mapping[str, int]

    @property
    def total_bytes(self) -> int:
        return sum(self.files.values())


def publisher_sources(
    publishers: Iterable[str], *, index_dir: Path, dataset_root: Path, corpus_root: Path
) -> tuple[PublisherSources, ...]:
    """Sources laid out as the pipeline's work directory is: ``<dataset_root>/<pub>/``,
    ``<corpus_root>/<pub>/``, and every index in ``index_dir``."""
    return tuple(PublisherSources(pub, Path(index_dir), Path(dataset_root) / pub, Path(corpus_root) / pub)
                 for pub in publishers)


def assemble_set(directory: Path, sources: SetSources, *, progress: Progress | None = None,
                 link: bool = False) -> AssembledSet:
    """Lay ``sources`` out as an artifact set at ``directory`` (which must not exist yet).

    Refuses ``set_dir_exists`` when ``directory`` exists and ``assembly_input_missing`` when an
    input file is absent (checked before anything is written). ``link``: input files are hard
    links to their sources where the file system allows it (a copy otherwise) — for a transient
    staging set whose files nothing writes to and which is copied into a release root (which
    copies and verifies every byte), as the pipeline stages one; a set that is kept is copied.
    """
    directory = Path(directory)
    if directory.exists() or directory.is_symlink():
        refuse(Reason.SET_DIR_EXISTS, "the set directory already exists (assemble into a new one)", str(directory))
    plan = sources.plan()
    if not plan:
        refuse(Reason.EMPTY_SET, "an artifact set needs at least one file")
    for name, source in plan.items():
        if isinstance(source, Path) and not source.is_file():
            refuse(Reason.ASSEMBLY_INPUT_MISSING, f"input for {name} is missing: {source.name}", str(source))
    directory.parent.mkdir(parents=True, exist_ok=True)
    temp = directory.with_name(f".{directory.name}.assembling-{secrets.token_hex(6)}")
    written: dict[str, int] = {}
    try:
        for name, source in plan.items():
            written[name] = _place(temp / name, source, link)
            if progress is not None:
                progress(name, written[name])
        os.rename(temp, directory)
    finally:
        if temp.exists():
            shutil.rmtree(temp)
    fsync_dir(directory.parent)
    return AssembledSet(directory, written)


def _place(target: Path, source: Path | bytes, link: bool = False) -> int:
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, bytes):
        target.write_bytes(source)
        return len(source)
    if link:
        try:
            os.link(source, target)
            return target.stat().st_size
        except OSError:
            pass  # another file system, or links refused: copy
    shutil.copyfile(source, target)
    return target.stat().st_size


def bound_to_set(report: Mapping[str, Any], directory: Path,
                 known: Mapping[str, tuple[int, str]] | None = None) -> dict[str, Any]:
    """``report`` with its bound index files named as in the set (``indexes/<file>``), after
    checking each bound digest against the file in ``directory`` (``report_for_other_identity``).

    The benchmark names the index files it measured (``eu-eurlex.sqlite``); the release root
    checks a report's binding against the set's subject names. ``known``: hashes the producer
    holds for files it just copied into the set (``{name in the set: (size, sha256)}``).
    """
    bound = report.get("bound")
    if not isinstance(bound, dict) or not isinstance(bound.get("subjects"), dict) or "set_id" in bound:
        refuse(Reason.MALFORMED_REPORT, "a report inside a set is bound to its index files only")
    subjects: dict[str, str] = {}
    for name, sha in bound["subjects"].items():
        in_set = name if name.startswith(f"{INDEXES_DIR}/") else f"{INDEXES_DIR}/{name}"
        path = Path(directory) / check_name(in_set)
        held = (known or {}).get(in_set)
        actual = held[1] if held is not None and path.is_file() and path.stat().st_size == held[0] else None
        if not path.is_file() or (actual if actual is not None else hash_file(path)[1]) != sha:
            refuse(Reason.REPORT_FOR_OTHER_IDENTITY, "the report was measured on other index bytes", in_set)
        subjects[in_set] = sha
    return {**report, "bound": bind(subjects=subjects)}


def add_report(directory: Path, report: Mapping[str, Any], signers: Sequence[Signer],
               known: Mapping[str, tuple[int, str]] | None = None) -> tuple[Path, Path]:
    """Bind ``report`` to the set's index files, sign it, write both into ``reports/``
    (``known``: :func:`bound_to_set`)."""
    directory = Path(directory)
    bound = bound_to_set(report, directory, known)
    envelope = sign_report(bound, signers)
    (directory / REPORTS_DIR).mkdir(exist_ok=True)
    report_path = directory / RETRIEVAL_REPORT
    atomic_write(report_path, pretty_bytes(bound))
    envelope_path = write_envelope(directory / RETRIEVAL_REPORT_ENVELOPE, envelope)
    return report_path, envelope_path
