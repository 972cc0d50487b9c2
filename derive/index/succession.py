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

import json
import struct
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path

SCHEMA = "lex-index-pairs/1"
_LENGTH = struct.Struct("<I")

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
    """zlib of a JSON head (the index file's SHA-256, the number of pairs), then each pair's two
    32-byte hashes and its count (uint32), in pair order."""
    items = sorted(counts.items())
    head = json.dumps({"schema": SCHEMA, "index_sha256": index_sha256, "pairs": len(items)}).encode()
    keys = b"".join(bytes.fromhex(b) + bytes.fromhex(a) for (b, a), _ in items)
    return zlib.compress(_LENGTH.pack(len(head)) + head + keys + struct.pack(f"<{len(items)}I", *(n for _, n in items)), 1)


def load(path: Path, index_sha256: str) -> dict[Pair, int] | None:
    """The counts at ``path`` when they describe the index of SHA-256 ``index_sha256``, else None."""
    try:
        data = zlib.decompress(path.read_bytes())
        (length,) = _LENGTH.unpack_from(data, 0)
        head = json.loads(data[_LENGTH.size:_LENGTH.size + length])
        if not isinstance(head, dict) or head.get("schema") != SCHEMA or head.get("index_sha256") != index_sha256:
            return None
        n = int(head["pairs"])
        at = _LENGTH.size + length
        if n < 0 or len(data) != at + 68 * n:
            return None
        counts = struct.unpack_from(f"<{n}I", data, at + 64 * n)
        keys = data[at:at + 64 * n].hex()
        return {(keys[128 * i:128 * i + 64], keys[128 * i + 64:128 * i + 128]): int(counts[i]) for i in range(n)}
    except (OSError, ValueError, TypeError, KeyError, struct.error, zlib.error):
        return None


def write(path: Path, counts: Mapping[Pair, int] | None, index_sha256: str) -> None:
    """Write (or, with no ``counts`` or no pair to keep, remove) the sidecar, through a file renamed
    into place (absent, the next incremental build walks every work: an index without successive pairs)."""
    if not counts:
        path.unlink(missing_ok=True)
        return
    tmp = path.with_name(path.name + ".building")
    tmp.write_bytes(dump(counts, index_sha256))
    tmp.replace(path)
