"""How provision texts are stored: once per ``text_sha256``, packed in zlib blocks of about 32 KiB.

Texts are packed in the order the builder first meets them (work by work), so a block holds the
texts of one work or of a few neighbouring ones: one compression context for many short,
alike provisions saves far more than compressing each text alone (``docs/index.md`` §6.1).

- ``text_dictionary(dictionary)``: one row, the zlib preset dictionary of every block (up to
  32 KiB: the sentences that recur most in a sample of the publisher's texts, :func:`train`);
  empty when none recurs. A function of the set of texts, computed by a full build and kept by an
  incremental one (it is storage, not content: the content digest does not cover it).
- ``text_blocks(block_rowid, body)``: ``body`` is zlib (level :data:`LEVEL`, with the dictionary)
  of the UTF-8 bytes of its texts, one after the other. A block is closed before a text that
  would take it past :data:`BLOCK_BYTES`; a longer text has a block of its own (:class:`Packer`).
- ``texts(text_sha256, words, block_rowid, start, length)``: where a text lies in its
  block's inflated bytes (byte offsets), and its word count (:func:`derive.index.worddiff.word_count`,
  format 6: ``diff`` prices a pair of texts against its budget before reading them, :func:`locate`);
  the key is the SHA-256's 32 bytes (the functions here take and give the lower-case hex every
  other table uses).

Every reader goes through this module (:func:`read_texts`, :func:`read_heads`,
:func:`stored_texts`, or :func:`locate` then :func:`read_located`): a read inflates a block only as far as the texts it asks for need, and
recently inflated blocks (or their first bytes, with the inflater to go on with) are kept per
connection in a bounded cache (:data:`CACHE_BYTES`), so a search page or a diff whose texts share a
block inflates it once, and a cached block costs no SQLite read. Compression output depends on the
zlib version, which the stamp records next to the SQLite version. Reads inflate with ISA-L
(``isal.isal_zlib``: the same deflate streams, the same bytes out, in about a third of zlib's CPU)
where it is installed, else with zlib (:func:`inflater`, :func:`inflate`); writes always deflate
with zlib, so the stored bytes do not depend on it.
"""

from __future__ import annotations

import codecs
import hashlib
import importlib
import re
import sqlite3
import threading
import weakref
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from derive.index.worddiff import word_count
from legal.errors import IndexError_

LEVEL = 6
#: A body stored alone (:func:`encode`) is compressed when that saves at least this share.
MIN_SAVING = 0.08
ZLIB_VERSION = zlib.ZLIB_RUNTIME_VERSION
#: A block is closed before a text that would take its UTF-8 bytes past this size.
BLOCK_BYTES = 1 << 15
#: Size limit of the preset dictionary (zlib's window).
DICTIONARY_BYTES = 1 << 15
#: The dictionary is trained on the texts whose SHA-256 sorts below this (1/16 of them: a sample
#: that depends on the set of texts only, never on their order).
SAMPLE_BELOW = "1"
#: Bytes the block cache keeps: inflated bytes, and the inflaters kept to go on with (a block larger
#: than a quarter of it is never kept).
CACHE_BYTES = 8 << 20
#: ``text_encoding`` in the stamp.
ENCODING = f"zlib-{LEVEL} blocks of {BLOCK_BYTES} bytes, preset dictionary"

#: A ``texts`` row: ``(text_sha256, words, block_rowid, start, length)``.
TextRow = tuple[str, int, int, int, int]
#: A ``text_blocks`` row: ``(block_rowid, body)``.
BlockRow = tuple[int, bytes]


def _inflating() -> Any:
    """``isal.isal_zlib`` (ISA-L's inflate: the same output as zlib's for every deflate stream, about
    three times faster on the text blocks) when it is installed, else :mod:`zlib`."""
    try:
        return importlib.import_module("isal.isal_zlib")
    except ImportError:  # pragma: no cover - the standard library's
        return zlib


_INFLATE = _inflating()
#: What a damaged stream raises (ISA-L's error is not a ``zlib.error``).
INFLATE_ERRORS: tuple[type[Exception], ...] = tuple({zlib.error, _INFLATE.error})


def inflater(dictionary: bytes = b"") -> Any:
    """A decompressor (``decompressobj``) of one zlib stream, deflated with ``dictionary`` if any."""
    return _INFLATE.decompressobj(zdict=dictionary) if dictionary else _INFLATE.decompressobj()


def inflate(body: bytes) -> bytes:
    """``zlib.decompress(body)`` through :func:`inflater`'s engine; a damaged body raises
    ``zlib.error`` whichever engine read it, as ``zlib.decompress`` does."""
    try:
        return bytes(_INFLATE.decompress(body))
    except INFLATE_ERRORS as exc:
        raise zlib.error(str(exc)) from None


_SENTENCE = re.compile(rb"(?<=[.;:\n])\s*")


def train(sample: Iterable[str]) -> bytes:
    """The preset dictionary of a publisher's blocks from a sample of its texts (any order).

    Sentences (cut after ``.``, ``;``, ``:`` or a line end) of 20 to 300 bytes are counted once per
    text; those in at least two texts are taken by saved bytes (count × length, then bytes), the
    most valuable last (closest to the data, as zlib prefers), up to :data:`DICTIONARY_BYTES`."""
    counts: Counter[bytes] = Counter()
    for text in sample:
        counts.update(s for s in set(_SENTENCE.split(text.encode("utf-8"))) if 20 <= len(s) <= 300)
    chosen: list[bytes] = []
    size = 0
    for sentence, count in sorted(counts.items(), key=lambda kv: (-kv[1] * len(kv[0]), kv[0])):
        if count < 2:
            continue
        if size + len(sentence) + 1 <= DICTIONARY_BYTES:
            chosen.append(sentence)
            size += len(sentence) + 1
    return b"".join(s + b"\n" for s in reversed(chosen))


def sampled(sha256: str) -> bool:
    """Whether a text is in the dictionary's training sample."""
    return sha256 < SAMPLE_BELOW


def _deflate(raw: bytes, dictionary: bytes) -> bytes:
    packer = zlib.compressobj(LEVEL, zdict=dictionary) if dictionary else zlib.compressobj(LEVEL)
    return packer.compress(raw) + packer.flush()


@dataclass
class Packer:
    """Packs texts, in the order given, into blocks numbered from ``next_block``: a block is closed
    before a text that would take its UTF-8 bytes past :data:`BLOCK_BYTES`; a longer text has a
    block of its own. :meth:`add` and :meth:`finish` return the blocks closed, each with its texts' rows."""

    next_block: int = 1
    dictionary: bytes = b""
    _pending: list[tuple[str, int, bytes]] = field(default_factory=list)  # (sha, words, UTF-8)
    _size: int = 0

    def add(self, sha256: str, text: str) -> list[tuple[BlockRow, list[TextRow]]]:
        raw = text.encode("utf-8")
        out = []
        if self._pending and self._size + len(raw) > BLOCK_BYTES:
            out.append(self._close())
        self._pending.append((sha256, word_count(text, raw), raw))
        self._size += len(raw)
        if self._size >= BLOCK_BYTES:
            out.append(self._close())
        return out

    def finish(self) -> list[tuple[BlockRow, list[TextRow]]]:
        return [self._close()] if self._pending else []

    def _close(self) -> tuple[BlockRow, list[TextRow]]:
        block, self.next_block = self.next_block, self.next_block + 1
        rows: list[TextRow] = []
        start = 0
        for sha, words, raw in self._pending:
            rows.append((sha, words, block, start, len(raw)))
            start += len(raw)
        body = _deflate(b"".join(raw for _, _, raw in self._pending), self.dictionary)
        self._pending, self._size = [], 0
        return (block, body), rows


def pack(texts: Iterable[tuple[str, str]], dictionary: bytes, first_block: int = 1
         ) -> Iterator[tuple[BlockRow, list[TextRow]]]:
    """Every block of ``(sha256, text)`` pairs, in order (:class:`Packer`)."""
    packer = Packer(first_block, dictionary)
    for sha, text in texts:
        yield from packer.add(sha, text)
    yield from packer.finish()


def key(sha256: str) -> bytes | None:
    """The ``texts`` key of a hex SHA-256 (None for a string that is not one)."""
    if len(sha256) != 64:
        return None
    try:
        return bytes.fromhex(sha256)
    except ValueError:
        return None


def is_stored(conn: sqlite3.Connection, sha256: str) -> bool:
    return conn.execute("SELECT 1 FROM texts WHERE text_sha256 = ?", (key(sha256),)).fetchone() is not None


def prune(conn: sqlite3.Connection) -> None:
    """Remove the texts no lexical state names, then the blocks no text lies in."""
    conn.execute("DELETE FROM texts WHERE lower(hex(text_sha256)) NOT IN (SELECT text_sha256 FROM lexical_states)")
    conn.execute("DELETE FROM text_blocks WHERE block_rowid NOT IN (SELECT block_rowid FROM texts)")


def write_dictionary(conn: sqlite3.Connection, dictionary: bytes) -> None:
    conn.execute("DELETE FROM text_dictionary")
    conn.execute("INSERT INTO text_dictionary VALUES (?)", (dictionary,))


def write_texts(conn: sqlite3.Connection, texts: Iterable[tuple[str, str]], first_block: int = 1) -> None:
    """Insert ``(sha256, text)`` pairs (none already stored) as new blocks numbered from ``first_block``,
    compressed with the stored dictionary."""
    for block, rows in pack(texts, dictionary(conn), first_block):
        conn.execute("INSERT INTO text_blocks VALUES (?, ?)", block)
        conn.executemany("INSERT INTO texts VALUES (?, ?, ?, ?, ?)",
                         ((bytes.fromhex(sha), *rest) for sha, *rest in rows))


def next_block(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT COALESCE(MAX(block_rowid), 0) + 1 FROM text_blocks").fetchone()[0])


def dictionary(conn: sqlite3.Connection) -> bytes:
    """The stored preset dictionary (refused when there is none: not a texts store of this format)."""
    row = conn.execute("SELECT dictionary FROM text_dictionary").fetchone()
    if row is None:
        raise IndexError_("the index holds no text dictionary", code="bad_text_block")
    return bytes(row[0])


#: What an inflater kept to go on with holds, counted against the cache's capacity: zlib's 32 KiB
#: window and its state (≈ 40 KiB); ISA-L's state is larger, its window and decoding tables (84–91 KiB
#: of memory per inflater kept, measured over blocks of the full indexes and in the tests; ADR 0159).
#: Counted at 40 KiB, a served worker's 1 MiB cache held ≈ 2.3 MB.
INFLATER_BYTES = (40 << 10) if _INFLATE is zlib else (96 << 10)


def _holder(conn: sqlite3.Connection) -> Callable[[], sqlite3.Connection | None]:
    """What the cache keeps of a connection, to tell it from a later one that got the same ``id``:
    a weak reference when the connection takes one (a subclass such as the served
    ``IndexConnection``: the cache then keeps no connection, nor what it refers to, alive), else
    the connection itself."""
    try:
        return weakref.ref(conn)
    except TypeError:
        return lambda: conn


class _Inflating:
    """A block inflated so far: its first bytes, and the inflater to go on with (None once whole)."""

    __slots__ = ("conn", "inflater", "raw")

    def __init__(self, conn: Callable[[], sqlite3.Connection | None], raw: bytes, inflater: Any) -> None:
        self.conn = conn  # so that a later connection with the same id never reads this one's blocks
        self.raw = raw
        self.inflater = inflater

    @property
    def size(self) -> int:
        return len(self.raw) + (INFLATER_BYTES if self.inflater is not None else 0)


class _BlockCache:
    """Blocks inflated recently, per connection (an index file is immutable while served; a build
    never reuses a block id on its connection), least recently used dropped first, at most
    :data:`CACHE_BYTES` of inflated bytes. A block is inflated only as far as a read needs, and a
    later read needing more goes on from there. A hit reads nothing from SQLite."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._blocks: OrderedDict[tuple[int, int], _Inflating] = OrderedDict()
        self._dictionaries: OrderedDict[int, tuple[Callable[[], sqlite3.Connection | None], bytes]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._blocks.clear()
            self._dictionaries.clear()
            self._size = 0

    def dictionary(self, conn: sqlite3.Connection) -> bytes:
        with self._lock:
            found = self._dictionaries.get(id(conn))
            if found is not None and found[0]() is conn:
                return found[1]
        zdict = dictionary(conn)
        with self._lock:
            self._dictionaries[id(conn)] = (_holder(conn), zdict)
            while len(self._dictionaries) > 16:
                self._dictionaries.popitem(last=False)
        return zdict

    def read(self, conn: sqlite3.Connection, blocks: dict[int, int]) -> dict[int, bytes]:
        """``block → its first bytes``, at least ``blocks[block]`` of them (0: the whole block)."""
        out: dict[int, bytes] = {}
        missing: list[int] = []
        with self._lock:
            for block, upto in blocks.items():
                entry = self._blocks.get((id(conn), block))
                if entry is None or entry.conn() is not conn:
                    missing.append(block)
                    continue
                self._blocks.move_to_end((id(conn), block))
                if entry.inflater is not None and (upto == 0 or len(entry.raw) < upto):
                    self._size -= entry.size
                    entry.raw += _go_on(entry.inflater, entry.inflater.unconsumed_tail,
                                        0 if upto == 0 else upto - len(entry.raw))
                    if entry.inflater.eof:
                        entry.inflater = None
                    self._size += entry.size
                out[block] = entry.raw
            self._trim()
        if not missing:
            return out
        zdict = self.dictionary(conn)
        holder = _holder(conn)
        for block, body in _bodies(conn, missing):
            decompressor = inflater(zdict)
            raw = _go_on(decompressor, body, blocks[block])
            out[block] = raw
            if len(body) + len(raw) > self.capacity // 4:
                continue
            with self._lock:
                previous = self._blocks.pop((id(conn), block), None)
                if previous is not None:
                    self._size -= previous.size
                entry = _Inflating(holder, raw, None if decompressor.eof else decompressor)
                self._blocks[(id(conn), block)] = entry
                self._size += entry.size
                self._trim()
        return out

    def _trim(self) -> None:
        while self._size > self.capacity and self._blocks:
            _, dropped = self._blocks.popitem(last=False)
            self._size -= dropped.size


def _go_on(inflater: Any, data: bytes, most: int) -> bytes:
    """Up to ``most`` more bytes (0: all the rest) of a block."""
    try:
        raw = bytes(inflater.decompress(data, most))
    except INFLATE_ERRORS as exc:
        raise IndexError_(f"stored text block is not zlib: {exc}", code="bad_text_block") from None
    if most == 0 and not inflater.eof:
        raise IndexError_("stored text block is truncated", code="bad_text_block")
    return raw


BLOCKS = _BlockCache(CACHE_BYTES)


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _plain(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving plain tuples whatever the connection's row factory (the core's makes
    ``sqlite3.Row`` objects, dearer to build for many small rows)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


class Located(NamedTuple):
    """Where one stored text lies (a ``texts`` row): its word count, its block, its byte span."""

    words: int
    block: int
    start: int
    length: int


def locate(conn: sqlite3.Connection, shas: Iterable[str]) -> dict[str, Located]:
    """``sha → where it lies`` of the stored texts among ``shas`` (one not stored is left out): one
    statement per 500 texts, nothing inflated."""
    ids = sorted({k for k in map(key, set(shas)) if k is not None})
    out: dict[str, Located] = {}
    cursor = _plain(conn)
    for first in range(0, len(ids), 500):
        chunk = ids[first:first + 500]
        for sha, words, block, start, length in cursor.execute(
                f"SELECT text_sha256, words, block_rowid, start, length FROM texts "
                f"WHERE text_sha256 IN ({_marks(len(chunk))})", chunk):
            out[bytes(sha).hex()] = Located(int(words), int(block), int(start), int(length))
    return out


def read_located(conn: sqlite3.Connection, located: dict[str, Located],
                 raws: dict[int, bytes] | None = None) -> dict[str, str]:
    """``sha → text`` of texts already located (:func:`locate`): each block inflated once, as far as
    the texts asked of it need. ``raws``: a caller's blocks read so far (``block → its first
    bytes``): a text they reach is cut from them, and the blocks read are added to them."""
    raws = {} if raws is None else raws
    upto: dict[int, int] = {}
    for where in located.values():
        end = where.start + where.length
        if where.block not in raws or len(raws[where.block]) < end:
            upto[where.block] = max(upto.get(where.block, 0), end)
    if upto:
        raws.update(BLOCKS.read(conn, upto))
    return {sha: _utf8(raws[w.block][w.start:w.start + w.length]) for sha, w in located.items()}


def _located(conn: sqlite3.Connection, shas: Iterable[str]) -> dict[int, list[tuple[str, int, int]]]:
    """``block_rowid → [(sha, start, length)]`` of the stored texts among ``shas``."""
    ids = sorted({k for k in map(key, set(shas)) if k is not None})
    out: dict[int, list[tuple[str, int, int]]] = {}
    cursor = _plain(conn)
    for first in range(0, len(ids), 500):
        chunk = ids[first:first + 500]
        for sha, block, start, length in cursor.execute(
                f"SELECT text_sha256, block_rowid, start, length FROM texts WHERE text_sha256 IN ({_marks(len(chunk))})",
                chunk):
            out.setdefault(block, []).append((bytes(sha).hex(), start, length))
    return out


def _bodies(conn: sqlite3.Connection, ids: list[int]) -> Iterator[tuple[int, bytes]]:
    ids = sorted(ids)
    cursor = _plain(conn)
    for first in range(0, len(ids), 500):
        chunk = ids[first:first + 500]
        for block, body in cursor.execute(
                f"SELECT block_rowid, body FROM text_blocks WHERE block_rowid IN ({_marks(len(chunk))})", chunk):
            yield int(block), bytes(body)


def _utf8(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise IndexError_("stored text is not UTF-8", code="bad_text_block") from None


def read_texts(conn: sqlite3.Connection, shas: Iterable[str]) -> dict[str, str]:
    """``sha → text`` of the stored texts among ``shas`` (one not stored is left out)."""
    located = _located(conn, shas)
    raws = BLOCKS.read(conn, {b: max(s + n for _, s, n in wanted) for b, wanted in located.items()})
    return {sha: _utf8(raws[block][start:start + length])
            for block, wanted in located.items() for sha, start, length in wanted}


def read_text(conn: sqlite3.Connection, sha: str) -> str:
    """One stored text; a missing one is refused."""
    found = read_texts(conn, [sha]).get(sha)
    if found is None:
        raise IndexError_("text not stored in the index", code="text_missing", subject=sha)
    return found


def read_heads(conn: sqlite3.Connection, shas: Iterable[str], chars: int) -> dict[str, tuple[str, bool]]:
    """``sha → (head, complete)``: at least the first ``chars`` characters of each stored text (all of
    it when ``complete``), inflating no more of a block than the heads asked of it need."""
    limit = 4 * chars  # UTF-8: at most 4 bytes a character
    located = _located(conn, shas)
    raws = BLOCKS.read(conn, {b: max(s + min(n, limit) for _, s, n in wanted) for b, wanted in located.items()})
    out: dict[str, tuple[str, bool]] = {}
    for block, wanted in located.items():
        raw = raws[block]
        for sha, start, length in wanted:
            if length <= limit:
                out[sha] = (_utf8(raw[start:start + length]), True)
            else:
                head = codecs.getincrementaldecoder("utf-8")().decode(raw[start:start + limit], final=False)
                out[sha] = (head, False)
    return out


def stored_texts(conn: sqlite3.Connection) -> Iterator[tuple[str, int, str]]:
    """``(sha, words, text)`` of every stored text, block by block (each block inflated once)."""
    for sha, words, raw in stored_utf8(conn):
        yield sha, words, _utf8(raw)


def stored_utf8(conn: sqlite3.Connection, from_block: int = 1) -> Iterator[tuple[str, int, bytes]]:
    """:func:`stored_texts` with each text's bytes as stored (its UTF-8, not checked here); only the
    texts of the blocks numbered ``from_block`` or more (every block from 1: all of them)."""
    rows = conn.execute("SELECT block_rowid, text_sha256, words, start, length FROM texts "
                        "WHERE block_rowid >= ? ORDER BY block_rowid, start", (from_block,)).fetchall()
    index = 0
    zdict = dictionary(conn)
    for block, body in conn.execute("SELECT block_rowid, body FROM text_blocks WHERE block_rowid >= ? "
                                    "ORDER BY block_rowid", (from_block,)):
        raw = _go_on(inflater(zdict), bytes(body), 0)
        while index < len(rows) and rows[index][0] == block:
            _, sha, words, start, length = rows[index]
            yield bytes(sha).hex(), int(words), raw[start:start + length]
            index += 1


def encode(text: str) -> tuple[str, int, bytes]:
    """``(encoding, characters, body)`` of one text stored alone (a ``word_diffs`` row): its UTF-8
    bytes (``utf8``) or, when zlib saves at least :data:`MIN_SAVING`, compressed (``zlib``)."""
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, LEVEL)
    if len(packed) <= len(raw) * (1 - MIN_SAVING):
        return "zlib", len(text), packed
    return "utf8", len(text), raw


def decode(encoding: str, body: bytes) -> str:
    """The text of an :func:`encode` body."""
    if encoding == "zlib":
        return inflate(body).decode("utf-8")
    if encoding == "utf8":
        return bytes(body).decode("utf-8")
    raise IndexError_(f"unknown text encoding {encoding!r}", code="unknown_text_encoding")


def check(sha256: str, text: str) -> str:
    """``text``, refusing one that does not hash to its key."""
    check_utf8(sha256, text.encode("utf-8"))
    return text


def check_utf8(sha256: str, raw: bytes) -> None:
    """Refuse a text's UTF-8 bytes (:func:`stored_utf8`) that do not hash to its key (as :func:`check`)."""
    if hashlib.sha256(raw).hexdigest() != sha256:
        raise IndexError_("stored text does not hash to its key", code="text_hash_mismatch", subject=sha256)


def utf8_text(raw: bytes) -> str:
    """The text of stored bytes (:func:`stored_utf8`), refused as :func:`stored_texts` refuses bytes
    that are not UTF-8."""
    return _utf8(raw)
