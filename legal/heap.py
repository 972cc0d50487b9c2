"""The C heap: its free pages handed back to the system (glibc's ``malloc_trim``), and its
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
