"""int8 quantisation of L2-normalised vectors with one scale per file.

``q = clamp(round(v · scale), -127, 127)`` with ``scale = 127 / max |v|`` over the whole file,
rounded to 6 significant digits and recorded in the manifest as a decimal string. One shared
scale keeps dot-product *ranking* exact up to rounding (a common factor never reorders), and
uses the full int8 range, unlike the fixed ``v · 127`` of the reference design whose typical
component of a 384-dimensional unit vector (≈ 0.05) lands on only a handful of levels.
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import numpy.typing as npt

Int8Matrix = npt.NDArray[np.int8]


def choose_scale(vectors: npt.NDArray[np.float32]) -> str:
    peak = float(np.max(np.abs(vectors))) if vectors.size else 1.0
    if peak <= 0.0:
        peak = 1.0
    return format(Decimal(repr(127.0 / peak)), ".6g") if peak else "127"


def quantise(vectors: npt.NDArray[np.float32], scale: str) -> Int8Matrix:
    s = np.float64(Decimal(scale))
    q = np.rint(np.asarray(vectors, dtype=np.float64) * s)
    return np.clip(q, -127, 127).astype(np.int8)


def dequantise(q: Int8Matrix, scale: str) -> npt.NDArray[np.float32]:
    return (np.asarray(q, dtype=np.float32) / np.float32(Decimal(scale))).astype(np.float32)
