"""A static word encoder distilled from the pinned e5 encoder (issue #15, docs/hybrid.md §10; measured, not served).

The model2vec idea done by hand with numpy: every word of a vocabulary (the corpus titles and
headings, and optionally a question vocabulary) is passed **alone** through the project's encoder
(:mod:`derive.vectors.encoder`, query side), its output vector kept; the vectors are centred and
reduced by PCA to ``dims`` components; each word carries a SIF weight ``a / (a + p(w))`` from its
corpus frequency ``p(w)``. A text's vector is the weighted mean of its words' vectors,
L2-normalised. Encoding a question is then a dictionary look-up and a small matrix sum: no
model, no tokenizer, microseconds instead of tens of milliseconds.

- :func:`words`: the word split (lower-cased runs of two or more letters; digits and
  punctuation dropped), used alike for the vocabulary, the frequencies and the questions;
- :func:`distil`: a :class:`StaticTable` from an encoder, a vocabulary and frequencies (pure
  given the encoder; deterministic: the PCA is an SVD of a fixed matrix with signs fixed);
- :meth:`StaticTable.encode`: a text's vector; a word outside the vocabulary falls back to the
  known word sharing its longest prefix (at least :data:`PREFIX_MIN` letters: "trottinettes" →
  "trottinette"), else it is dropped; a text with no known word encodes to zeros;
- :func:`save_table` / :func:`load_table`: ``STEM.npy`` (float32: the vectors, then the weights
  as the last column) and ``STEM.json`` (format ``lex-evidence-static-words/1``: the vocabulary,
  the parameters with the source encoder's identity, and the SHA-256 of the ``.npy``); a ``.npy``
  whose digest differs from the manifest's (or from an expected digest) is refused
  (``static_table_mismatch``).

Nothing here is on the serving path: docs/hybrid.md §10 and ADR 0062 give the measurements.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from derive.vectors.encoder import Encoder
from legal.errors import IndexError_

FORMAT = "lex-evidence-static-words/1"
#: Components kept by the PCA.
DIMS = 256
#: SIF smoothing: a word of probability ``p`` weighs ``SIF_A / (SIF_A + p)``.
SIF_A = 1e-3
#: Fewest letters an out-of-vocabulary word must share with a known word to borrow its vector.
PREFIX_MIN = 5
_WORD = re.compile(r"[^\W\d_]{2,}")

Matrix = npt.NDArray[np.float32]


def words(text: str) -> list[str]:
    """The words of ``text`` as the static encoder sees them (lower case, two letters or more)."""
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class StaticTable:
    """The distilled table: ``vocabulary[i]`` has vector ``vectors[i]`` and weight ``weights[i]``."""

    vocabulary: tuple[str, ...]
    vectors: Matrix
    weights: npt.NDArray[np.float32]
    params: Mapping[str, Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.vocabulary)})
        object.__setattr__(self, "_sorted", sorted(self.vocabulary))

    @property
    def dims(self) -> int:
        return int(self.vectors.shape[1])

    def lookup(self, word: str) -> int | None:
        """The row of ``word``, or of the known word sharing its longest prefix (≥ PREFIX_MIN letters)."""
        index: dict[str, int] = self._index  # type: ignore[attr-defined]
        if word in index:
            return index[word]
        if len(word) < PREFIX_MIN:
            return None
        known: list[str] = self._sorted  # type: ignore[attr-defined]
        at = bisect.bisect_left(known, word)
        best, best_len = None, PREFIX_MIN - 1
        for j in (at - 1, at):
            if 0 <= j < len(known):
                shared = _shared_prefix(word, known[j])
                if shared > best_len:
                    best, best_len = known[j], shared
        return None if best is None else index[best]

    def rows(self, text: str) -> list[int]:
        """The table rows of ``text``'s words, in order (unknown words dropped)."""
        return [r for r in (self.lookup(w) for w in words(text)) if r is not None]

    def encode(self, text: str) -> Matrix:
        """``(dims,)`` L2-normalised weighted mean of the words' vectors (zeros when none is known)."""
        rows = self.rows(text)
        if not rows:
            return np.zeros(self.dims, dtype=np.float32)
        idx = np.asarray(rows, dtype=np.int64)
        vector = self.weights[idx] @ self.vectors[idx]
        norm = float(np.linalg.norm(vector))
        return (vector / norm).astype(np.float32) if norm > 0 else vector.astype(np.float32)

    def encode_many(self, texts: Sequence[str]) -> Matrix:
        return np.stack([self.encode(t) for t in texts]) if texts else np.zeros((0, self.dims), np.float32)


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def frequencies(texts: Iterable[str]) -> dict[str, int]:
    """Word counts over ``texts`` (the SIF weights' corpus)."""
    return dict(Counter(w for text in texts for w in words(text)))


def pca_basis(raw: Matrix, dims: int) -> tuple[Matrix, Matrix]:
    """``(mean, components)``: the first ``dims`` principal axes of ``raw``'s rows, each axis's sign
    fixed so that its largest-magnitude loading is positive (the SVD's sign is arbitrary)."""
    mean = raw.mean(axis=0, dtype=np.float64)
    _, _, vt = np.linalg.svd(raw.astype(np.float64) - mean, full_matrices=False)
    comps = vt[:dims]
    signs = np.sign(comps[np.arange(len(comps)), np.abs(comps).argmax(axis=1)])
    return mean.astype(np.float32), (comps * signs[:, None]).astype(np.float32)


def reduce(raw: Matrix, dims: int) -> Matrix:
    """``raw`` centred and projected on its first ``dims`` principal axes (``dims`` ≥ width: centred only)."""
    mean, comps = pca_basis(raw, min(dims, raw.shape[1]))
    return np.ascontiguousarray(((raw - mean) @ comps.T).astype(np.float32))


def sif_weights(vocabulary: Sequence[str], counts: Mapping[str, int], a: float = SIF_A) -> npt.NDArray[np.float32]:
    """``a / (a + p(w))`` with ``p`` the word's share of ``counts`` (an unseen word: p = 0, weight 1)."""
    total = max(1, sum(counts.values()))
    return np.asarray([a / (a + counts.get(w, 0) / total) for w in vocabulary], dtype=np.float32)


def embed_words(encoder: Encoder, vocabulary: Sequence[str]) -> Matrix:
    """``(len(vocabulary), encoder dims)``: each word alone through the encoder, query side."""
    out = np.zeros((len(vocabulary), encoder.identity.dims), dtype=np.float32)
    for i, word in enumerate(vocabulary):
        out[i] = encoder.encode_query(word)
    return out


def distil(raw: Matrix, vocabulary: Sequence[str], counts: Mapping[str, int], *, dims: int = DIMS,
           a: float = SIF_A, source: Mapping[str, Any] | None = None) -> StaticTable:
    """The table from the words' raw encoder vectors (rows of ``raw``, in ``vocabulary`` order)."""
    if len(vocabulary) != len(raw) or len(set(vocabulary)) != len(vocabulary):
        raise IndexError_("the static vocabulary must be distinct words, one per raw vector",
                          code="static_table_invalid", subject="vocabulary")
    vectors = reduce(raw, dims)
    params = {"dims": int(vectors.shape[1]), "sif_a": a, "prefix_min": PREFIX_MIN, "source": dict(source or {})}
    return StaticTable(tuple(vocabulary), vectors, sif_weights(vocabulary, counts, a), params)


def stem_file(stem: Path, suffix: str) -> Path:
    """``stem`` + ``suffix``: a dot inside the stem's name ("words-a1e-3.v2") is kept, not replaced."""
    return stem.with_name(stem.name + suffix)


def _npy_bytes(table: StaticTable) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(np.column_stack([table.vectors, table.weights]).astype("<f4")),
            allow_pickle=False)
    return buffer.getvalue()


def save_table(table: StaticTable, stem: Path) -> str:
    """Write ``<stem>.npy`` and ``<stem>.json``; the SHA-256 of the ``.npy`` (also in the manifest)."""
    data = _npy_bytes(table)
    digest = hashlib.sha256(data).hexdigest()
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem_file(stem, ".npy").write_bytes(data)
    manifest = {"format": FORMAT, "npy_sha256": digest, "params": dict(table.params),
                "vocabulary": list(table.vocabulary)}
    stem_file(stem, ".json").write_bytes(
        json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return digest


def load_table(stem: Path, *, expected_sha256: str | None = None) -> StaticTable:
    """The table written by :func:`save_table`, its ``.npy`` verified against the manifest's digest
    (and ``expected_sha256`` when given)."""
    manifest = json.loads(stem_file(stem, ".json").read_text(encoding="utf-8"))
    if manifest.get("format") != FORMAT:
        raise IndexError_(f"not a {FORMAT} manifest", code="static_table_invalid", subject=stem.name)
    data = stem_file(stem, ".npy").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    for pinned in (manifest.get("npy_sha256"), expected_sha256):
        if pinned is not None and digest != pinned:
            raise IndexError_(f"static table has sha256 {digest}, pinned {pinned}", code="static_table_mismatch",
                              subject=stem.name)
    matrix = np.load(io.BytesIO(data), allow_pickle=False).astype(np.float32)
    vocabulary = tuple(str(w) for w in manifest["vocabulary"])
    if matrix.shape[0] != len(vocabulary):
        raise IndexError_("static table rows and vocabulary differ", code="static_table_invalid", subject=stem.name)
    return StaticTable(vocabulary, np.ascontiguousarray(matrix[:, :-1]), np.ascontiguousarray(matrix[:, -1]),
                       manifest["params"])
