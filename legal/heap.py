"""The C heap: its free pages handed back to the system (glibc's ``malloc_trim``), Python's
small-object allocator's free blocks filled before a server forks (:func:`pin_free_blocks`), and its
fastbins turned off while bodies are derived (glibc's ``mallopt``); and the Python collector's
first threshold raised while bodies are derived (:func:`collector_relaxed`).

A long build or a server about to fork frees more memory than the C allocator returns by itself:
those pages stay resident (under the next Parquet row group, or shared with every forked worker and
copied into each as soon as it allocates there). :func:`release_free_heap` is the one place the
project asks for them back. The C library's symbols are the process's own (``ctypes.CDLL(None)``):
``ctypes.util.find_library`` would run ``ldconfig -p`` in a subprocess to find the same library.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import os
import sys
import tempfile
from collections.abc import Callable, Iterator


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    return trim


def release_free_heap() -> bool:
    """``malloc_trim(0)``: give the C heap's free pages back; False where the C library has none."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


def free_small_blocks() -> dict[int, int] | None:
    """Python's small-object allocator's free blocks in its partly used pools, per block size
    (``sys._debugmallocstats``' "avail blocks" column, read from what it writes to standard
    error, lent to a temporary file for the call); None where it cannot be read (no such function,
    no descriptor 2, or its table not found)."""
    debug = getattr(sys, "_debugmallocstats", None)
    if debug is None:
        return None
    try:
        with tempfile.TemporaryFile() as out:
            if sys.stderr is not None:
                sys.stderr.flush()
            saved = os.dup(2)
            try:
                os.dup2(out.fileno(), 2)
                debug()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            out.seek(0)
            text = out.read().decode("ascii", "replace")
    except (OSError, ValueError):  # no standard error to borrow, no temporary file
        return None
    found: dict[int, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 5 and all(part.isdigit() for part in parts):
            found[int(parts[1])] = int(parts[4])
    return found or None


#: Objects :func:`pin_free_blocks` made (never freed: the process forks and its children keep them).
_PINNED: list[object] = []


def _filler(size: int, n: int) -> object:
    """A new object of ``size`` bytes exactly as Python's allocator counts them (``n`` tells them apart)."""
    if size <= 16:
        return object()
    if size <= 32:
        return float(n) + 0.5  # a float: 24 bytes
    return bytes(size - 33)  # a bytes object: 33 bytes and its contents


def pin_free_blocks() -> int:
    """Fill every free block of the small-object allocator's partly used pools with an object
    that is never freed nor read; the blocks filled (0 where :func:`free_small_blocks` has nothing).

    Why a server does it just before it forks its workers (:func:`serve.workers._settle`): the
    warmed tables leave free blocks scattered among live objects — a few in each of hundreds of
    pools — and a worker's next small objects go there first: each of its allocations then
    copies a shared page (and its pool's header page) to use a few dozen bytes of it. Pinned in
    the builder, a worker's new objects go to pools of its own, many to a page (ADR 0159)."""
    free = free_small_blocks()
    if not free:
        return 0
    made = 0
    for size, count in sorted(free.items()):
        _PINNED.extend(_filler(size, made + i) for i in range(count))
        made += count
    return made


#: ``mallopt``'s parameter for the largest request served from glibc's *fastbins* (``M_MXFAST``)
#: and its default on a 64-bit build (``64 * sizeof(size_t) / 4``).
M_MXFAST = 1
DEFAULT_MXFAST = 128


@functools.cache
def _mallopt() -> Callable[[int, int], int] | None:
    try:
        mallopt: Callable[[int, int], int] = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return None
    return mallopt


def set_fastbins(max_size: int) -> bool:
    """``mallopt(M_MXFAST, max_size)``: the largest freed chunk glibc keeps in a fastbin; ``0``
    turns fastbins off. False where the C library has no ``mallopt`` (then nothing changed).

    Why a derivation turns them off (:func:`fastbins_off`): a parsed body is a libxml2 tree of
    a few hundred thousand small nodes, freed at once when its profile returns. In fastbins they
    stay unmerged until the next request too large for one, whose ``malloc_consolidate`` then
    walks and merges them all — paid again for every body, and more than the merging on ``free``
    costs without them (measured in docs/derive.md, "The C heap")."""
    mallopt = _mallopt()
    if mallopt is None:
        return False
    return bool(mallopt(M_MXFAST, max_size))


@contextlib.contextmanager
def fastbins_off() -> Iterator[bool]:
    """Fastbins off (:func:`set_fastbins` ``0``) for the block, back to glibc's default after;
    yields whether the setting took (False where the C library has no ``mallopt``)."""
    done = set_fastbins(0)
    try:
        yield done
    finally:
        if done:
            set_fastbins(DEFAULT_MXFAST)


#: The cyclic collector's first-generation threshold while bodies are derived (Python's default: 700).
DERIVE_GC_THRESHOLD = 20_000


def set_gc_threshold(first: int) -> int:
    """Set the cyclic collector's first-generation threshold (``gc.set_threshold``, the other two
    kept); returns the one it replaces.

    Why a derivation raises it (:func:`collector_relaxed`): a body's walk and its rows allocate
    and free containers by the million, and every 700 left alive start a collection, whose
    survivors (the version's rows, the walker's lists) are traversed again at the next ones and
    promoted into the old generation, which is then traversed whole again and again. At 20,000
    a first-generation collection comes a few dozen times per EUR-Lex work instead of thousands,
    and an old-generation one about never: 2.7 → 0.2 CPU-s of collection in 60 CPU-s of
    derivation (docs/derive.md, "The Python collector"). A derivation makes few cycles (a few
    hundred objects per work), so they wait longer for nothing that matters."""
    old = gc.get_threshold()
    gc.set_threshold(first, old[1], old[2])
    return old[0]


@contextlib.contextmanager
def collector_relaxed(first: int = DERIVE_GC_THRESHOLD) -> Iterator[None]:
    """The collector's first threshold at ``first`` (:func:`set_gc_threshold`) for the block, the
    previous one back after."""
    previous = set_gc_threshold(first)
    try:
        yield
    finally:
        set_gc_threshold(previous)
