"""The successive pairs of an index's works, counted, kept beside it for the next incremental build.

``word_diffs`` (:mod:`derive.index.serving`) holds the word changes of every pair of wordings that
follow each other in the time line of one anchor of one work (``_successive_pairs``), and a build
finds them by walking every live expression of every work with text. Only the works a build rewrote
can change their pairs, and a stored pair is gone only when no work holds it any more. So a build
keeps, beside its index (``.<publisher>.pairs.z``, never in it nor in a release: the index's bytes
are those of a build without it), every pair with the number of works holding it (:func:`dump`);
the next incremental build walks the rewritten works' time lines only, before and after (their old
pairs read before the work is deleted), and brings the counts up to date: a pair whose count falls
to zero is removed, a new pair not stored yet is computed. Trusted only for the index file whose
SHA-256 it names; missing or damaged, every expression is walked as before.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

from derive.index import sidecar

SCHEMA = "lex-index-pairs/1"

#: a pair of wordings: the two texts' SHA-256, hex
Pair = tuple[str, str]


def path_of(out_dir: Path, publisher: str) -> Path:
    return out_dir / f".{publisher}.pairs.z"


def count(per_work: Iterable[Iterable[Pair]]) -> dict[Pair, int]:
    """Per pair, the number of works (each an iterable of its pairs) holding it."""
    out: dict[Pair, int] = {}
    for pairs in per_work:
        for pair in set(pairs):
            out[pair] = out.get(pair, 0) + 1
    return out


def recount(previous: Mapping[Pair, int], old: Iterable[Iterable[Pair]], new: Iterable[Iterable[Pair]]
            ) -> tuple[dict[Pair, int], set[Pair]]:
    """``previous`` counts with the rewritten works' ``old`` pairs taken out and their ``new`` ones
    put in; and the old pairs no work holds any more."""
    out = dict(previous)
    dropped: set[Pair] = set()
    for pairs in old:
        for pair in set(pairs):
            left = out.get(pair, 0) - 1
            if left > 0:
                out[pair] = left
            else:
                out.pop(pair, None)
                dropped.add(pair)
    for pairs in new:
        for pair in set(pairs):
            out[pair] = out.get(pair, 0) + 1
    return out, {p for p in dropped if p not in out}


def dump(counts: Mapping[Pair, int], index_sha256: str) -> bytes:
    """A :func:`derive.index.sidecar.frame`: the head names the index file and the number of pairs, the
    body holds each pair's two 32-byte hashes, then every count (uint32), in pair order."""
    items = sorted(counts.items())
    keys = b"".join(bytes.fromhex(b) + bytes.fromhex(a) for (b, a), _ in items)
    return sidecar.frame({"schema": SCHEMA, "index_sha256": index_sha256, "pairs": len(items)},
                         keys + struct.pack(f"<{len(items)}I", *(n for _, n in items)))


def load(path: Path, index_sha256: str) -> dict[Pair, int] | None:
    """The counts at ``path`` when they describe the index of SHA-256 ``index_sha256``, else None."""
    found = sidecar.unframe(path, SCHEMA, index_sha256)
    if found is None:
        return None
    head, data, at = found
    try:
        n = int(head["pairs"])
        if n < 0 or len(data) != at + 68 * n:
            return None
        counts = struct.unpack_from(f"<{n}I", data, at + 64 * n)
    except (ValueError, TypeError, KeyError, struct.error):
        return None
    keys = data[at:at + 64 * n].hex()
    return {(keys[128 * i:128 * i + 64], keys[128 * i + 64:128 * i + 128]): int(counts[i]) for i in range(n)}


def write(path: Path, counts: Mapping[Pair, int] | None, index_sha256: str) -> None:
    """Write (or, with no ``counts`` or no pair to keep, remove) the sidecar, through a file renamed
    into place (absent, the next incremental build walks every work: an index without successive pairs)."""
    sidecar.write(path, dump(counts, index_sha256) if counts else None)
