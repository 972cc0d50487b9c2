"""The empty-provision ratchet (reference/model.md §6.7): empties may shrink, never grow.

An *empty provision* is a row whose ``text_md`` is whitespace only (a provision the publisher
marks but whose wording we cannot render — typically a wholly struck-through article). Its
*signature* is the compact JSON ``[valid_from, language, type, num, heading, [path…]]`` — not
the anchor, so a re-minted anchor does not change it. For each work the dataset counts how many
empty provisions carry each signature.

:func:`check_ratchet` compares a new dataset's counts with the previously accepted ones: a work
any of whose signature counts exceeds the accepted count is refused ("empty-provision signature
is not in the accepted baseline"). A work absent from the accepted counts has no baseline and
is accepted as it is; a work present with no empty provision is a zero baseline (any empty
provision then fails). A work is *present* in a dataset when it has at least one provision row
(the reference's "prior output directory": it writes a work only when something derived).

The pipeline runs this as an asset check between the previous and the new materialisation;
counts are plain JSON (``{work_id: {signature: count}}``) and can be stored between runs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SignatureCounts = dict[str, dict[str, int]]
MESSAGE = "empty-provision signature is not in the accepted baseline"


def signature(row: dict[str, Any]) -> str:
    """Compact JSON ``[valid_from, language, type, num, heading, [path…]]`` of a row."""
    value = [row["valid_from"], row["language"], row["type"], row["num"], row["heading"], list(row["path"] or [])]
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_empty(row: dict[str, Any]) -> bool:
    """Whitespace-only text, as :attr:`derive.model.Provision.is_empty` defines it."""
    return not str(row["text_md"]).strip()


_WORK_ID = b'"work_id":"'
_TEXT_MD = b'"text_md":"'
#: bytes that start no whitespace character (printable ASCII but the quote and the backslash)
_NOT_SPACE = frozenset(range(0x21, 0x7F)) - {ord('"'), ord("\\")}


def _unparsed_work(line: bytes) -> str | None:
    """The work id of a canonical dataset line whose ``text_md`` is certainly not empty (it starts
    with a printable ASCII character), read from its bytes; None when the line must be parsed (the
    text may be whitespace only, or the line is not of that shape). In a canonical line a string
    value's quotes are escaped, so the last ``"work_id":"`` and the first ``"text_md":"`` are keys."""
    text = line.find(_TEXT_MD)
    at = line.rfind(_WORK_ID)
    if text < 0 or at < 0 or len(line) <= text + len(_TEXT_MD) or line[text + len(_TEXT_MD)] not in _NOT_SPACE:
        return None
    start = at + len(_WORK_ID)
    end = line.find(b'"', start)
    work = line[start:end]
    if end < 0 or b"\\" in work:
        return None
    return work.decode("utf-8")


def _tally(lines: Iterable[bytes], counts: dict[str, Counter[str]]) -> None:
    """Add the canonical dataset ``lines`` to ``counts``; only the lines whose text may be empty
    are parsed (:func:`_unparsed_work`)."""
    for line in lines:
        if not line.strip():
            continue
        known = _unparsed_work(line)
        if known is not None:
            counts.setdefault(known, Counter())
            continue
        row = json.loads(line)
        work = counts.setdefault(row["work_id"], Counter())
        if is_empty(row):
            work[signature(row)] += 1


def _sorted(counts: dict[str, Counter[str]]) -> SignatureCounts:
    return {work: dict(sorted(c.items())) for work, c in sorted(counts.items())}


def empty_signature_counts(dataset_dir: str | Path) -> SignatureCounts:
    """Per work present in the dataset (≥ 1 provision row): empty-provision signature → count.
    Only the lines whose text may be empty are parsed (:func:`_unparsed_work`)."""
    counts: dict[str, Counter[str]] = {}
    with (Path(dataset_dir) / "provisions.jsonl").open("rb") as fh:
        _tally(fh, counts)
    return _sorted(counts)


def updated_signature_counts(dataset_dir: str | Path, previous: SignatureCounts, kept: Iterable[str],
                             spans: Mapping[str, tuple[int, int]]) -> SignatureCounts:
    """:func:`empty_signature_counts` of a dataset rewritten from one whose counts were
    ``previous``, without reading it whole: the works in ``kept`` have the very lines they had
    (copied byte for byte: their counts are a function of those lines alone) and keep their
    previous counts; every other work present is counted from its lines, the ``(offset, length)``
    span ``spans`` gives it in the new ``provisions.jsonl``. ``spans`` must name every work the
    new file holds lines of (the builder that wrote it says where each work's lines are)."""
    kept = set(kept)
    counts: dict[str, Counter[str]] = {w: Counter(previous[w]) for w in kept if w in previous}
    with (Path(dataset_dir) / "provisions.jsonl").open("rb") as fh:
        for work, (offset, length) in sorted(spans.items(), key=lambda item: item[1]):
            if work in kept or not length:
                continue
            fh.seek(offset)
            _tally(fh.read(length).splitlines(keepends=True), counts)
    return _sorted(counts)


@dataclass(frozen=True, slots=True)
class RatchetProblem:
    """One refused work: a signature whose count grew past the accepted baseline."""

    work_id: str
    signature: str
    previous: int
    current: int

    def to_dict(self) -> dict[str, Any]:
        return {"work_id": self.work_id, "signature": self.signature, "previous": self.previous,
                "current": self.current, "message": MESSAGE}

    def __str__(self) -> str:
        return f"{self.work_id}: {MESSAGE}: {self.signature} ({self.previous} → {self.current})"


def check_ratchet(previous_counts: SignatureCounts, current_counts: SignatureCounts) -> list[RatchetProblem]:
    """Every (work, signature) whose count exceeds the accepted one; empty when the ratchet holds.

    Works without a baseline (absent from ``previous_counts``) are accepted as they are.
    """
    problems = []
    for work_id, current in sorted(current_counts.items()):
        baseline = previous_counts.get(work_id)
        if baseline is None:
            continue
        for sig, count in sorted(current.items()):
            before = baseline.get(sig, 0)
            if count > before:
                problems.append(RatchetProblem(work_id, sig, before, count))
    return problems


def refused_works(problems: list[RatchetProblem]) -> list[str]:
    """The works a list of problems refuses, sorted, each once."""
    return sorted({p.work_id for p in problems})
