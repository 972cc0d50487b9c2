"""Build inputs: the corpus tree's records and the per-article dataset, read into plain values.

The builder is a pure function of these values plus ``built_at``. Reading is the only I/O:

- :func:`read_tree` takes anything with ``manifest()``, ``works()`` and ``versions(slug)``
  (a :class:`corpus_tree.CorpusTree`, or an in-memory stand-in in tests) and copies its
  records into dicts;
- :func:`read_dataset` reads a dataset directory (``docs/contracts.md`` §2): provision rows
  from ``provisions.jsonl`` (else ``provisions.parquet``, else every other ``*.jsonl`` /
  ``*.parquet``), text gaps from ``gaps.jsonl`` and refused versions from ``errors.jsonl``
  (indexed as ``text_not_available`` gaps naming the refusal); every file read is listed with
  its SHA-256 so the stamp names its inputs. The dataset's own per-work history files are not
  read: the index derives its provision history from the rows (``derive/index/history.py``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from legal.canonical import orjson_module
from legal.errors import IndexError_

ROWS_FILES = ("provisions.jsonl", "provisions.parquet")
GAPS_FILE = "gaps.jsonl"
ERRORS_FILE = "errors.jsonl"
_NOT_ROWS = {GAPS_FILE, ERRORS_FILE}
_HISTORY_DIRS = {"history", "histories"}


class TreeLike(Protocol):
    """The read side of a corpus tree that the builder needs."""

    def manifest(self) -> Any: ...

    def works(self) -> Iterable[Any]: ...

    def versions(self, slug: str) -> Sequence[Any]: ...


def as_dict(record: Any) -> dict[str, Any]:
    """A plain dict copy of a record (a mapping, or an object with ``to_dict()``)."""
    to_dict = getattr(record, "to_dict", None)
    if callable(to_dict):
        value = to_dict()
        if isinstance(value, dict):
            return value
    if isinstance(record, Mapping):
        return {str(k): v for k, v in record.items()}
    raise IndexError_(f"cannot read record of type {type(record).__name__}", code="unreadable_record")


@dataclass(frozen=True)
class TreeInput:
    """The records of one publisher's corpus tree."""

    manifest: dict[str, Any]
    works: tuple[dict[str, Any], ...]
    versions: Mapping[str, tuple[dict[str, Any], ...]]

    @property
    def publishers(self) -> tuple[str, ...]:
        return tuple(sorted({work_publisher(w) for w in self.works}))

    def for_publisher(self, publisher: str) -> TreeInput:
        works = tuple(w for w in self.works if work_publisher(w) == publisher)
        return TreeInput(self.manifest, works, {str(w["slug"]): self.versions.get(str(w["slug"]), ()) for w in works})

    def latest_transaction_time(self) -> str | None:
        """The newest transaction-time stamp in the records (a deterministic default ``built_at``)."""
        stamps = [str(e["observed_from"]) for vs in self.versions.values() for v in vs
                  for e in v.get("events") or [] if e.get("observed_from")]
        stamps += [str(o["retrieved_at"]) for vs in self.versions.values() for v in vs
                   for x in v.get("expressions") or [] for o in x.get("observations") or [] if o.get("retrieved_at")]
        return max(stamps) if stamps else None


def work_publisher(work: Mapping[str, Any]) -> str:
    value = work.get("publisher") or str(work.get("lex_work_id") or "").split(":", 1)[0]
    return str(value)


def read_tree(tree: TreeLike) -> TreeInput:
    works = tuple(sorted((as_dict(w) for w in tree.works()), key=lambda w: str(w.get("slug", ""))))
    versions = {str(w["slug"]): tuple(as_dict(v) for v in tree.versions(str(w["slug"]))) for w in works}
    return TreeInput(manifest=as_dict(tree.manifest()), works=works, versions=versions)


@dataclass(frozen=True)
class CitationRow:
    href: str
    text: str | None
    target_work: str | None


@dataclass(frozen=True)
class ProvisionRow:
    """One row of the per-article dataset (``docs/contracts.md`` §2)."""

    provision_id: str
    lex_id: str
    work_id: str
    publisher: str
    version_key: str
    language: str
    anchor: str
    type: str
    num: str | None
    heading: str | None
    path: tuple[str, ...]
    article_valid_from: str | None
    text_md: str
    text_sha256: str
    citations: tuple[CitationRow, ...]
    profile: str
    evidence_sha256: str | None
    evidence_file: str | None
    record_sha256: str
    span_start: int | None
    span_end: int | None
    order: int = 0


@dataclass(frozen=True)
class GapRow:
    lex_id: str
    work_id: str
    language: str
    gap: str
    reason: str | None
    evidence_sha256: str | None


@dataclass(frozen=True)
class InputFile:
    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class DatasetInput:
    rows: tuple[ProvisionRow, ...]
    gaps: tuple[GapRow, ...]
    files: tuple[InputFile, ...] = field(default=())

    def for_publisher(self, publisher: str) -> DatasetInput:
        return DatasetInput(
            rows=tuple(r for r in self.rows if r.publisher == publisher),
            gaps=tuple(g for g in self.gaps if g.work_id.split(":", 1)[0] == publisher),
            files=self.files,
        )


def _opt_str(d: Mapping[str, Any], key: str, where: str) -> str | None:
    value = d.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise IndexError_(f"dataset member {key!r} must be a string", code="bad_dataset_row", subject=where)
    return value


def _req_str(d: Mapping[str, Any], key: str, where: str) -> str:
    value = _opt_str(d, key, where)
    if value is None:
        raise IndexError_(f"dataset row lacks {key!r}", code="bad_dataset_row", subject=where)
    return value


def _citations(value: Any, where: str) -> tuple[CitationRow, ...]:
    if value is None:
        return ()
    if isinstance(value, str):  # Parquet writers sometimes store nested values as JSON text
        value = json.loads(value)
    out = []
    for item in value:
        if not isinstance(item, Mapping) or not isinstance(item.get("href"), str):
            raise IndexError_("citation without href", code="bad_dataset_row", subject=where)
        out.append(CitationRow(href=item["href"], text=_opt_str(item, "text", where),
                               target_work=_opt_str(item, "target_work", where)))
    return tuple(out)


def _path(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = json.loads(value) if value.startswith("[") else [value]
    if not all(isinstance(p, str) for p in value):
        raise IndexError_("path must be a list of strings", code="bad_dataset_row", subject=where)
    return tuple(value)


def _span(value: Any) -> tuple[int | None, int | None]:
    if isinstance(value, str):
        value = json.loads(value)
    if isinstance(value, Mapping) and isinstance(value.get("start"), int) and isinstance(value.get("end"), int):
        return int(value["start"]), int(value["end"])
    return None, None


def _checked_row(d: Mapping[str, Any], order: int, where: str) -> ProvisionRow:
    """:func:`provision_row` field by field: the first bad field, in field order, is refused."""
    start, end = _span(d.get("span"))
    return ProvisionRow(
        provision_id=_req_str(d, "provision_id", where),
        lex_id=_req_str(d, "lex_id", where),
        work_id=_req_str(d, "work_id", where),
        publisher=_req_str(d, "publisher", where),
        version_key=_req_str(d, "version_key", where),
        language=_req_str(d, "language", where),
        anchor=_req_str(d, "anchor", where),
        type=_req_str(d, "type", where),
        num=_opt_str(d, "num", where),
        heading=_opt_str(d, "heading", where),
        path=_path(d.get("path"), where),
        article_valid_from=_opt_str(d, "article_valid_from", where),
        text_md=_req_str(d, "text_md", where),
        text_sha256=_req_str(d, "text_sha256", where),
        citations=_citations(d.get("citations"), where),
        profile=_req_str(d, "profile", where),
        evidence_sha256=_opt_str(d, "evidence_sha256", where),
        evidence_file=_opt_str(d, "evidence_file", where),
        record_sha256=_req_str(d, "record_sha256", where),
        span_start=start,
        span_end=end,
        order=order,
    )


#: The types a plain row's members have: its strings, its optional strings (or None), its path (a
#: list of strings, or None), its citations (a list, or None) and its span (a dict, or None).
_STR = {str}
_OPT_STR = {str, type(None)}
_PATH = {list, type(None)}


def provision_row(d: Mapping[str, Any], order: int, where: str) -> ProvisionRow:
    """One dataset row, or a typed error naming its first bad field (in field order). A row whose
    members are of the plain JSON types (every one a string where a string is asked, the path a
    list of strings, each citation an object with a string ``href``) is checked with one test per
    kind of member; any other row goes field by field (:func:`_checked_row`), which refuses or
    accepts it exactly as that test would."""
    get: Callable[[str], Any] = d.get
    provision_id, lex_id, work_id, publisher = get("provision_id"), get("lex_id"), get("work_id"), get("publisher")
    version_key, language, anchor, kind = get("version_key"), get("language"), get("anchor"), get("type")
    text_md, text_sha256, profile, record_sha256 = get("text_md"), get("text_sha256"), get("profile"), get("record_sha256")
    num, heading, valid_from = get("num"), get("heading"), get("article_valid_from")
    evidence_sha256, evidence_file = get("evidence_sha256"), get("evidence_file")
    path, citations, span = get("path"), get("citations"), get("span")
    if ({type(provision_id), type(lex_id), type(work_id), type(publisher), type(version_key), type(language),
         type(anchor), type(kind), type(text_md), type(text_sha256), type(profile), type(record_sha256)} != _STR
            or not {type(num), type(heading), type(valid_from), type(evidence_sha256), type(evidence_file)} <= _OPT_STR
            or type(path) not in _PATH or (path and {type(p) for p in path} != _STR)
            or not (citations is None or (type(citations) is list and all(
                type(c) is dict and type(c.get("href")) is str and type(c.get("text", None)) in _OPT_STR
                and type(c.get("target_work", None)) in _OPT_STR for c in citations)))):
        return _checked_row(d, order, where)
    start, end = _span(span) if span is not None else (None, None)
    return ProvisionRow(
        provision_id, lex_id, work_id, publisher, version_key, language, anchor, kind, num, heading,
        tuple(path) if path else (), valid_from, text_md, text_sha256,
        tuple([CitationRow(c["href"], c.get("text"), c.get("target_work")) for c in citations]) if citations else (),
        profile, evidence_sha256, evidence_file, record_sha256, start, end, order)


def gap_row(d: Mapping[str, Any], where: str) -> GapRow:
    """A gap; ``language`` null (a state with no expression at all) is stored as ``""``."""
    return GapRow(
        lex_id=_req_str(d, "lex_id", where),
        work_id=_req_str(d, "work_id", where),
        language=_opt_str(d, "language", where) or "",
        gap=_req_str(d, "gap", where),
        reason=_opt_str(d, "reason", where),
        evidence_sha256=_opt_str(d, "evidence_sha256", where),
    )


def error_gap(d: Mapping[str, Any], where: str) -> GapRow:
    """A version the deriver refused, as a ``text_not_available`` gap naming the refusal."""
    code = _opt_str(d, "code", where) or "derivation_error"
    message = _opt_str(d, "message", where) or ""
    return GapRow(
        lex_id=_req_str(d, "lex_id", where),
        work_id=_req_str(d, "work_id", where),
        language=_opt_str(d, "language", where) or "",
        gap="text_not_available",
        reason=f"derivation refused ({code}): {message}".strip(),
        evidence_sha256=_opt_str(d, "evidence_sha256", where),
    )


#: a file's SHA-256 when the caller already holds it (the pipeline's stage state: the derive stage
#: hashed the dataset as it wrote it), else None: then it is read here
KnownSha256 = Callable[[Path], "str | None"]


def _file_entry(root: Path, path: Path, known: KnownSha256 | None = None) -> InputFile:
    sha = known(path) if known is not None else None
    if sha is not None:
        return InputFile(path=path.relative_to(root).as_posix(), sha256=sha, size=path.stat().st_size)
    h, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
            size += len(chunk)
    return InputFile(path=path.relative_to(root).as_posix(), sha256=h.hexdigest(), size=size)


_ORJSON: Callable[[bytes | str], Any] | None = getattr(orjson_module(), "loads", None)


def loads_line(line: bytes | str) -> Any:
    """:func:`json.loads` of one dataset line as the row readers take it, through ``orjson`` (a fraction
    of the CPU): a line orjson refuses (a lone surrogate escape, ``NaN``, a float beyond its range,
    another encoding) is read by :func:`json.loads`, and so is a row whose ``span`` holds a float.
    orjson reads an integer beyond 64 bits as a float: ``span`` is the only member whose numbers
    :func:`provision_row` takes, and a number in any member it reads is refused alike (:func:`gap_row`
    and :func:`error_gap` read strings only), so every row and refusal is the one json's value gives."""
    if _ORJSON is not None:
        try:
            value = _ORJSON(line)
        except ValueError:  # orjson.JSONDecodeError is a ValueError
            return json.loads(line)
        span = value.get("span") if type(value) is dict else None
        if type(span) is not dict or not any(type(v) is float for v in span.values()):
            return value
    return json.loads(line)


def _jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    with path.open("r", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                value = loads_line(line)
                if not isinstance(value, dict):
                    raise IndexError_("dataset line is not an object", code="bad_dataset_row",
                                      subject=f"{path.name}:{number}")
                yield f"{path.name}:{number}", value


def _parquet(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    import pyarrow.parquet as pq

    from derive.parquet import plain_batch  # rows in their JSONL form (dates as ISO text)

    number = 0
    for batch in pq.ParquetFile(path).iter_batches(batch_size=4096):
        for value in plain_batch(batch):
            number += 1
            yield f"{path.name}:{number}", value


def _candidate_files(root: Path, suffix: str) -> list[Path]:
    found = []
    for path in sorted(root.rglob(f"*{suffix}")):
        rel = path.relative_to(root)
        if path.name in _NOT_ROWS or any(part in _HISTORY_DIRS for part in rel.parts[:-1]):
            continue
        if path.is_file():
            found.append(path)
    return found


def row_files(directory: Path) -> list[Path]:
    for name in ROWS_FILES:
        if (directory / name).is_file():
            return [directory / name]
    return _candidate_files(directory, ".jsonl") or _candidate_files(directory, ".parquet")


def dataset_row_values(directory: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, value)`` of every provision row of a dataset directory, one at a time, in file order."""
    for path in row_files(directory):
        reader = _jsonl if path.suffix == ".jsonl" else _parquet
        yield from reader(path)


def dataset_gaps(directory: Path, known: KnownSha256 | None = None) -> tuple[list[GapRow], list[InputFile]]:
    """The gaps and refusals of a dataset directory, and every file the dataset is read from
    (``known``: the rows files' SHA-256 when the caller holds them)."""
    if not directory.is_dir():
        raise IndexError_("dataset directory not found", code="dataset_missing", subject=directory.name)
    files = [_file_entry(directory, path, known) for path in row_files(directory)]
    gaps: list[GapRow] = []
    for path in sorted(directory.rglob(GAPS_FILE)):
        gaps.extend(gap_row(value, where) for where, value in _jsonl(path))
        files.append(_file_entry(directory, path))
    for path in sorted(directory.rglob(ERRORS_FILE)):
        gaps.extend(error_gap(value, where) for where, value in _jsonl(path))
        files.append(_file_entry(directory, path))
    files.sort(key=lambda f: f.path)
    return gaps, files


def merged_files(files: Sequence[Sequence[InputFile]], names: Sequence[str]) -> tuple[InputFile, ...]:
    """The files of several dataset directories as one list (prefixed with their directory name)."""
    if len(files) == 1:
        return tuple(files[0])
    return tuple(sorted((InputFile(f"{name}/{f.path}", f.sha256, f.size) for group, name in
                         zip(files, names, strict=True) for f in group), key=lambda f: f.path))


def latest_transaction_time(tree: TreeLike) -> str | None:
    """:meth:`TreeInput.latest_transaction_time` reading one work's records at a time."""
    latest: str | None = None
    for work in tree.works():
        for version in tree.versions(str(as_dict(work)["slug"])):
            v = as_dict(version)
            stamps = [str(e["observed_from"]) for e in v.get("events") or [] if e.get("observed_from")]
            stamps += [str(o["retrieved_at"]) for x in v.get("expressions") or [] for o in x.get("observations") or []
                       if o.get("retrieved_at")]
            for stamp in stamps:
                latest = stamp if latest is None or stamp > latest else latest
    return latest


def read_dataset(directory: Path) -> DatasetInput:
    """Provision rows, gaps and refusals of a dataset directory (JSONL preferred over Parquet)."""
    if not directory.is_dir():
        raise IndexError_("dataset directory not found", code="dataset_missing", subject=directory.name)
    rows: list[ProvisionRow] = []
    files: list[InputFile] = []
    for path in row_files(directory):
        reader = _jsonl if path.suffix == ".jsonl" else _parquet
        for where, value in reader(path):
            rows.append(provision_row(value, len(rows), where))
        files.append(_file_entry(directory, path))
    gaps: list[GapRow] = []
    for path in sorted(directory.rglob(GAPS_FILE)):
        gaps.extend(gap_row(value, where) for where, value in _jsonl(path))
        files.append(_file_entry(directory, path))
    for path in sorted(directory.rglob(ERRORS_FILE)):
        gaps.extend(error_gap(value, where) for where, value in _jsonl(path))
        files.append(_file_entry(directory, path))
    files.sort(key=lambda f: f.path)
    return DatasetInput(rows=tuple(rows), gaps=tuple(gaps), files=tuple(files))


def merge_datasets(datasets: Sequence[DatasetInput], names: Sequence[str]) -> DatasetInput:
    """Several dataset directories as one input; file names are prefixed with their directory name."""
    if len(datasets) == 1:
        return datasets[0]
    rows: list[ProvisionRow] = []
    for data in datasets:
        rows.extend(ProvisionRow(**{**r.__dict__, "order": len(rows) + i}) for i, r in enumerate(data.rows))
    files = sorted((InputFile(f"{name}/{f.path}", f.sha256, f.size) for data, name in zip(datasets, names, strict=True)
                    for f in data.files), key=lambda f: f.path)
    return DatasetInput(rows=tuple(rows), gaps=tuple(g for d in datasets for g in d.gaps), files=tuple(files))
