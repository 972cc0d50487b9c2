"""A deterministic stand-in encoder (hashed bag of words) so hybrid tests need no model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

import numpy as np

from derive.vectors.encoder import EncoderIdentity, FloatMatrix

DIMS = 32
FAKE_IDENTITY = EncoderIdentity("fake/hashed-bag-of-words", "fake", "0" * 64, "1" * 64, DIMS, "", "")


def word_vector(word: str) -> FloatMatrix:
    seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(DIMS).astype(np.float32)
    return (v / np.linalg.norm(v)).astype(np.float32)


def embed(text: str) -> FloatMatrix:
    words = re.findall(r"\w+", text.lower())
    if not words:
        return np.zeros(DIMS, dtype=np.float32)
    v = np.sum([word_vector(w) for w in words], axis=0)
    return (v / max(float(np.linalg.norm(v)), 1e-9)).astype(np.float32)


class FakeEncoder:
    """``queries`` maps a query text to the passage text whose vector it should be (to steer ranking)."""

    def __init__(self, queries: Mapping[str, str] | None = None, identity: EncoderIdentity = FAKE_IDENTITY) -> None:
        self.queries = dict(queries or {})
        self._identity = identity
        self.passages_encoded = 0

    @property
    def identity(self) -> EncoderIdentity:
        return self._identity

    def count_tokens(self, text: str) -> int:
        return 2 + len(text.split())

    def encode_passages(self, texts: Sequence[str]) -> FloatMatrix:
        self.passages_encoded += len(texts)
        if not texts:
            return np.zeros((0, DIMS), dtype=np.float32)
        return np.stack([embed(t) for t in texts]).astype(np.float32)

    def encode_query(self, text: str) -> FloatMatrix:
        return embed(self.queries.get(text, text))
