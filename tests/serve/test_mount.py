"""Verify-then-mount: a signed set mounts; every refusal mounts nothing and /readyz says why."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from release.keys import keygen, load_signer
from release.signing import sign_artifact_set
from release.statement import ENVELOPE_NAME
from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig, ServeState, verify_then_mount
from tests.index.handmade import build_handmade
from tests.serve.conftest import NO_RATE

PASSPHRASE = b"test passphrase"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two key pairs made with ``release.keys.keygen``: the pinned one and a stranger."""
    out: dict[str, Path] = {}
    for name in ("pinned", "stranger"):
        files = keygen(tmp_path_factory.mktemp(f"keys-{name}"), "ed25519", PASSPHRASE)
        out[f"{name}_private"], out[f"{name}_public"] = files.private_key, files.public_key
    return out


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("handmade")
    build_handmade(directory / "indexes")
    return directory


@pytest.fixture
def signed_set(tmp_path: Path, small_index: Path, keys: dict[str, Path]) -> Path:
    """A fresh copy of the small index, signed by the pinned key."""
    directory = tmp_path / "set"
    shutil.copytree(small_index, directory)
    signer = load_signer(keys["pinned_private"], PASSPHRASE)
    sign_artifact_set(directory, [signer], created_by="tests", created_at="2026-01-02T03:04:05Z")
    return directory


def readyz(config: MountConfig) -> tuple[int, dict[str, object], TestClient]:
    state = new_state(config, NO_RATE)
    client = TestClient(create_app(state, AppSettings(limits=NO_RATE)), raise_server_exceptions=False)
    client.__enter__()
    _wait_mounted(state)
    response = client.get("/readyz")
    return response.status_code, response.json(), client


def _wait_mounted(state: ServeState, timeout: float = 20.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while state.mounted.status == "pending" and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_signed_set_mounts_and_is_ready(signed_set: Path, keys: dict[str, Path]) -> None:
    status, body, client = readyz(MountConfig(index_dir=signed_set, trust_roots=(keys["pinned_public"],)))
    try:
        assert status == 200, body
        assert body["ready"] is True and body["reason"] is None
        artifact = body["artifact"]
        assert isinstance(artifact, dict) and artifact["signed"] is True and len(artifact["set_id"]) == 64
        assert body["mounted_publishers"] == ["eu-eurlex", "lu-legilux"]
        answer = client.post("/api/v1/coverage", json={}).json()
        assert answer["outcome"] == "succeeded"
        assert answer["artifact"]["set_id"] == artifact["set_id"]
        assert client.get("/healthz").text == "ok"
    finally:
        client.__exit__(None, None, None)


def _drop_envelope(directory: Path, keys: dict[str, Path]) -> None:
    (directory / ENVELOPE_NAME).unlink()


def _sign_with_stranger(directory: Path, keys: dict[str, Path]) -> None:
    (directory / ENVELOPE_NAME).unlink()
    sign_artifact_set(directory, [load_signer(keys["stranger_private"], PASSPHRASE)], created_by="tests",
                      created_at="2026-01-02T03:04:05Z")


def _flip_signature(directory: Path, keys: dict[str, Path]) -> None:
    path = directory / ENVELOPE_NAME
    envelope = json.loads(path.read_bytes())
    sig = bytearray(base64.b64decode(envelope["signatures"][0]["sig"]))
    sig[0] ^= 0x01
    envelope["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()
    path.write_text(json.dumps(envelope))


def _change_bytes(directory: Path, keys: dict[str, Path]) -> None:
    path = directory / "indexes" / "lu-legilux.stamp.json"
    data = bytearray(path.read_bytes())
    data[-2] = ord("x") if data[-2] != ord("x") else ord("y")
    path.write_bytes(bytes(data))


def _remove_file(directory: Path, keys: dict[str, Path]) -> None:
    (directory / "indexes" / "eu-eurlex.stamp.json").unlink()


def _add_file(directory: Path, keys: dict[str, Path]) -> None:
    (directory / "indexes" / "notes.txt").write_text("not listed")


REFUSALS: dict[str, tuple[Callable[[Path, dict[str, Path]], None], str]] = {
    "unsigned": (_drop_envelope, "unsigned"),
    "unknown key": (_sign_with_stranger, "unknown_key"),
    "bad signature": (_flip_signature, "bad_signature"),
    "hash mismatch": (_change_bytes, "digest_mismatch"),
    "missing file": (_remove_file, "missing_file"),
    "extra file": (_add_file, "extra_file"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_every_refusal_mounts_nothing_and_readyz_names_it(case: str, signed_set: Path,
                                                         keys: dict[str, Path]) -> None:
    tamper, code = REFUSALS[case]
    tamper(signed_set, keys)
    status, body, client = readyz(MountConfig(index_dir=signed_set, trust_roots=(keys["pinned_public"],)))
    try:
        assert status == 503
        assert body["ready"] is False and body["status"] == "refused"
        assert body["reason"] == {**body["reason"], "family": "release", "code": code}  # type: ignore[dict-item]
        assert body["mounted_publishers"] == []
        answer = client.post("/api/v1/as_of", json={"work": "eu-eurlex:32099r0001", "date": "2022-06-01"})
        assert answer.status_code == 200 and answer.json()["outcome"] == "no_corpus_mounted"
        assert client.get("/healthz").status_code == 200
    finally:
        client.__exit__(None, None, None)


def test_no_trust_roots_is_a_typed_refusal(signed_set: Path) -> None:
    mounted = verify_then_mount(MountConfig(index_dir=signed_set), new_state(MountConfig(), NO_RATE).backend)
    assert mounted.status == "refused" and mounted.refusal is not None
    assert (mounted.refusal.family, mounted.refusal.code) == ("config", "no_trust_roots")


def test_a_trust_root_inside_the_artifact_directory_is_refused(signed_set: Path, keys: dict[str, Path]) -> None:
    inside = signed_set / "indexes" / "root.pub.pem"
    shutil.copy(keys["pinned_public"], inside)
    state = new_state(MountConfig(index_dir=signed_set, trust_roots=(inside,)), NO_RATE)
    mounted = state.mount()
    assert mounted.refusal is not None and mounted.refusal.code == "trust_root_in_artifact_dir"


def test_the_release_root_current_pointer_names_the_set(tmp_path: Path, signed_set: Path,
                                                        keys: dict[str, Path]) -> None:
    from release.keys import load_trust_roots
    from release.promotion import ReleaseRoot
    from release.report import bind, build_report, sign_report

    releaser = ReleaseRoot(tmp_path / "releases", load_trust_roots([keys["pinned_public"]]), actor="tests")
    set_id = releaser.candidate(signed_set).set_id
    metrics = {"mrr": "1", "recall_at_10": "1", "ndcg_at_10": "1", "exact_first_accuracy": "1",
               "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "1"}
    report = tmp_path / "report.dsse.json"
    report.write_bytes(sign_report(build_report(bind(set_id=set_id), metrics, created_at="2026-01-02T03:04:05Z",
                                                runner="tests"),
                                   [load_signer(keys["pinned_private"], PASSPHRASE)]).to_bytes())
    releaser.evaluate(set_id, report)
    releaser.promote(set_id)
    mounted = new_state(MountConfig(release_root=releaser.root, trust_roots=(keys["pinned_public"],)),
                        NO_RATE).mount()
    assert mounted.ready and mounted.artifact is not None
    assert (mounted.artifact.set_id, mounted.artifact.source) == (set_id, "release_root")


def test_a_release_root_without_a_current_set_is_not_ready(tmp_path: Path, keys: dict[str, Path]) -> None:
    (tmp_path / "releases").mkdir()
    mounted = new_state(MountConfig(release_root=tmp_path / "releases", trust_roots=(keys["pinned_public"],)),
                        NO_RATE).mount()
    assert mounted.refusal is not None and mounted.refusal.code == "no_current_set"


def test_unsigned_dev_mounts_but_says_so_everywhere(small_index: Path) -> None:
    status, body, client = readyz(MountConfig(index_dir=small_index, unsigned_dev=True))
    try:
        assert status == 200
        artifact = body["artifact"]
        assert isinstance(artifact, dict) and artifact["signed"] is False
        assert str(artifact["set_id"]).startswith("unsigned-")
        assert "artifact_unsigned_dev" in body["issues"]  # type: ignore[operator]
        answer = client.post("/api/v1/coverage", json={}).json()
        assert answer["artifact"]["signed"] is False
        page = client.get("/", headers={"accept": "text/html"}).text
        assert "Unsigned development index" in page
    finally:
        client.__exit__(None, None, None)


def test_a_required_publisher_that_is_missing_keeps_readyz_at_503(signed_set: Path, keys: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    config = MountConfig(index_dir=signed_set, trust_roots=(keys["pinned_public"],),
                         required_publishers=("eu-eurlex", "lu-legilux"))
    assert new_state(config, NO_RATE).mount().ready
    lu_only = tmp_path / "lu-only"
    (lu_only / "indexes").mkdir(parents=True)
    for name in ("lu-legilux.sqlite", "lu-legilux.stamp.json"):
        shutil.copy(signed_set / "indexes" / name, lu_only / "indexes" / name)
    mounted = new_state(MountConfig(index_dir=lu_only, unsigned_dev=True,
                                    required_publishers=("eu-eurlex", "lu-legilux")), NO_RATE).mount()
    assert not mounted.ready
    assert mounted.readiness()["reason"] is not None or "eu-eurlex:not_mounted" in mounted.readiness()["issues"]


def test_readiness_never_shows_a_machine_absolute_path(tmp_path: Path, keys: dict[str, Path]) -> None:
    missing = tmp_path / "does-not-exist"
    body = new_state(MountConfig(index_dir=missing, trust_roots=(keys["pinned_public"],)), NO_RATE).mount().readiness()
    assert str(tmp_path) not in json.dumps(body)


def test_a_worker_freezes_its_mount_and_frees_the_set_it_replaces(signed_set: Path, keys: dict[str, Path]) -> None:
    """Under ``lex serve --workers N`` a mounted set's objects are frozen out of the collector, and a
    mount that replaces the set unfreezes them first: the replaced core is freed, not kept frozen."""
    import gc
    import weakref

    def tie_a_cycle(core: object, _directory: Path) -> None:  # core -> probe -> core: freed only by the collector
        probe: dict[str, object] = {"core": core}
        core.__dict__["_cycle_probe"] = probe

    state = new_state(MountConfig(index_dir=signed_set, trust_roots=(keys["pinned_public"],)), NO_RATE,
                      mount_hooks=[tie_a_cycle])
    state.worker = 0
    try:
        first = state.mount()
        assert first.status == "mounted"
        assert gc.get_freeze_count() > 0
        replaced = weakref.ref(first.core)
        del first
        assert state.mount().status == "mounted"
        assert replaced() is None
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def test_a_single_process_server_freezes_nothing(signed_set: Path, keys: dict[str, Path]) -> None:
    import gc

    before = gc.get_freeze_count()
    state = new_state(MountConfig(index_dir=signed_set, trust_roots=(keys["pinned_public"],)), NO_RATE)
    assert state.mount().status == "mounted"
    assert gc.get_freeze_count() == before
