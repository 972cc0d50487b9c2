"""The C heap's free pages handed back to the system (glibc's ``malloc_trim``).

A long build or a server about to fork frees more memory than the C allocator returns by itself:
those pages stay resident (under the next Parquet row group, or shared with every forked worker and
copied into each as soon as it allocates there). :func:`release_free_heap` is the one place the
project asks for them back. The C library's symbols are the process's own (``ctypes.CDLL(None)``):
``ctypes.util.find_library`` would run ``ldconfig -p`` in a subprocess to find the same library.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable


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
