"""Vectors: chunking, quantisation round trip, deterministic files, verification on load."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from derive.index.read import check_mountable, open_readonly
from derive.vectors.build import build_vectors, manifest_file_name, vectors_file_name
from derive.vectors.chunking import ChunkPolicy, WordCounter, chunk_text, state_text
from derive.vectors.quantise import choose_scale, dequantise, quantise
from derive.vectors.store import load_vectors
from legal.errors import IndexError_
from tests.hybrid.fakes import FAKE_IDENTITY, FakeEncoder

EU = "eu-eurlex"


def _stamp(path: Path) -> dict[str, str]:
    conn = open_readonly(path)
    try:
        return check_mountable(conn, path.name)
    finally:
        conn.close()


# -- quantisation ------------------------------------------------------------------------------


def test_quantisation_round_trip() -> None:
    rng = np.random.default_rng(7)
    v = rng.standard_normal((200, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    scale = choose_scale(v)
    q = quantise(v, scale)
    assert q.dtype == np.int8 and int(np.abs(q).max()) == 127
    back = dequantise(q, scale)
    step = 1 / float(scale)
    assert float(np.abs(back - v).max()) <= 0.5 * step + 1e-6
    cosine = np.sum(back * v, axis=1) / np.linalg.norm(back, axis=1)
    assert float(cosine.min()) > 0.999
    query = v[0]
    assert int(np.argmax(back @ query)) == 0  # the ranking of dot products survives
    assert np.array_equal(quantise(dequantise(q, scale), scale), q)  # idempotent
    assert choose_scale(v) == scale and "e" not in scale


def test_quantisation_of_nothing() -> None:
    empty = np.zeros((0, 8), dtype=np.float32)
    assert quantise(empty, choose_scale(empty)).shape == (0, 8)


# -- chunking ----------------------------------------------------------------------------------


def test_chunks_stay_within_the_token_budget() -> None:
    words = WordCounter(lambda text: 2 + len(text.split()))  # 2 tokens of overhead, one per word
    text = " ".join(f"w{i}" for i in range(100))
    chunks = chunk_text(text, words, ChunkPolicy(chunk_tokens=12, budget_tokens=30))
    assert chunks == [" ".join(f"w{i}" for i in range(0, 10)), " ".join(f"w{i}" for i in range(10, 20)),
                      " ".join(f"w{i}" for i in range(20, 24))]
    assert sum(len(c.split()) + 2 for c in chunks) <= 30
    assert chunk_text("   ", words) == []
    assert chunk_text("one", words, ChunkPolicy(chunk_tokens=2, budget_tokens=2)) == ["one"]  # a word always fits
    assert state_text("Scope", "The thing") == "Scope\nThe thing" and state_text(None, "x") == "x"


# -- files -------------------------------------------------------------------------------------


def test_build_is_deterministic_and_the_cache_changes_nothing(index_dir: Path, tmp_path: Path) -> None:
    index = index_dir / f"{EU}.sqlite"
    first = (index_dir / vectors_file_name(EU)).read_bytes(), (index_dir / manifest_file_name(EU)).read_bytes()
    out = tmp_path / "again"
    cache = tmp_path / "cache.sqlite"
    cold = FakeEncoder()
    build_vectors(index, cold, out_dir=out, cache_path=cache)
    assert ((out / vectors_file_name(EU)).read_bytes(), (out / manifest_file_name(EU)).read_bytes()) == first
    warm = FakeEncoder()
    result = build_vectors(index, warm, out_dir=out, cache_path=cache, batch_size=1)
    assert warm.passages_encoded == 0 and result.chunks_cached == result.manifest["counts"]["distinct_chunks"]
    assert ((out / vectors_file_name(EU)).read_bytes(), (out / manifest_file_name(EU)).read_bytes()) == first


def test_manifest_binds_index_and_encoder(index_dir: Path) -> None:
    index = index_dir / f"{EU}.sqlite"
    manifest = json.loads((index_dir / manifest_file_name(EU)).read_text())
    stamp = _stamp(index)
    assert manifest["schema"] == "lex-evidence-vectors/1"
    assert manifest["index"]["content_digest"] == stamp["content_digest"]
    assert manifest["encoder"] == FAKE_IDENTITY.as_dict()
    kinds = [r[0] for r in manifest["rows"]]
    assert kinds == sorted(kinds) and set(kinds) == {"s", "w"}  # states first, then work titles
    loaded = load_vectors(index, stamp)
    assert loaded.matrix.shape == (manifest["vectors"]["count"], FAKE_IDENTITY.dims)
    assert loaded.kinds.sum() == manifest["counts"]["state_rows"]


def test_tampered_vectors_are_refused(index_dir: Path) -> None:
    index = index_dir / f"{EU}.sqlite"
    path = index_dir / vectors_file_name(EU)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(IndexError_) as caught:
        load_vectors(index, _stamp(index))
    assert caught.value.code == "vectors_unverified"


def test_manifest_for_another_index_is_refused(index_dir: Path, tmp_path: Path) -> None:
    index = index_dir / f"{EU}.sqlite"
    manifest_path = index_dir / manifest_file_name(EU)
    manifest = json.loads(manifest_path.read_text())
    manifest["index"]["content_digest"] = "0" * 64
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(IndexError_) as caught:
        load_vectors(index, _stamp(index))
    assert caught.value.code == "vectors_unverified"
    manifest_path.write_text("{not json")
    with pytest.raises(IndexError_) as caught:
        load_vectors(index, _stamp(index))
    assert caught.value.code == "vectors_unverified"


@pytest.mark.parametrize("name", [vectors_file_name(EU), manifest_file_name(EU)])
def test_missing_vectors_are_refused(index_dir: Path, name: str) -> None:
    index = index_dir / f"{EU}.sqlite"
    (index_dir / name).unlink()
    with pytest.raises(IndexError_) as caught:
        load_vectors(index, _stamp(index))
    assert caught.value.code == "vectors_missing"


def test_vectors_of_a_rebuilt_index_are_refused(index_dir: Path, tmp_path: Path) -> None:
    from tests.index.handmade import build_handmade

    other = tmp_path / "other"
    paths = build_handmade(other, built_at="2026-09-01T00:00:00Z")  # same content, another stamp → other file
    for name in (vectors_file_name(EU), manifest_file_name(EU)):
        shutil.copy(index_dir / name, other / name)
    with pytest.raises(IndexError_) as caught:
        load_vectors(paths[EU], _stamp(paths[EU]))
    assert caught.value.code == "vectors_unverified"
