"""Issue #16, serving side: the ledger decides what is mounted (defect 1), the mounted set is
re-verified on a schedule and on SIGHUP (defect 3), a missing release root refuses to start,
slow headers are cut off and ``GET /mcp`` does not hold a stream (defect 12), and
``no_corpus_mounted`` answers carry the reason (defect 13)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from cli.main import main
from release.keys import keygen, load_signer, load_trust_roots
from release.promotion import POINTERS_NAME, ReleaseRoot
from release.report import bind, build_report, sign_report
from release.signing import sign_artifact_set
from serve.app import (
    AppSettings,
    create_app,
    h11_header_timeout_protocol,
    header_timeout_protocol,
    install_sighup,
    new_state,
)
from serve.core import OPERATIONS
from serve.mount import MountConfig, ServeState
from tests.index.handmade import build_handmade
from tests.serve.conftest import NO_RATE
from tests.serve.server import running

PASSPHRASE = b"test passphrase"
GOOD = {"mrr": "0.81", "recall_at_10": "0.93", "ndcg_at_10": "0.77", "exact_first_accuracy": "1",
        "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "38.5"}


@pytest.fixture(scope="module")
def key(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    files = keygen(tmp_path_factory.mktemp("keys"), "ed25519", PASSPHRASE)
    return files.private_key, files.public_key


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("handmade")
    build_handmade(directory / "indexes")
    return directory


def make_set(tmp_path: Path, small_index: Path, key: tuple[Path, Path], name: str, created_at: str) -> Path:
    directory = tmp_path / name
    shutil.copytree(small_index, directory)
    (directory / "label.txt").write_text(name)  # another set id per name
    sign_artifact_set(directory, [load_signer(key[0], PASSPHRASE)], created_by="tests", created_at=created_at)
    return directory


def promote(root: ReleaseRoot, directory: Path, key: tuple[Path, Path], tmp_path: Path) -> str:
    set_id = root.candidate(directory).set_id
    report = build_report(bind(set_id=set_id), GOOD, created_at="2026-01-02T03:04:05Z", runner="tests")
    path = tmp_path / f"{set_id[:8]}.dsse.json"
    path.write_bytes(sign_report(report, [load_signer(key[0], PASSPHRASE)]).to_bytes())
    root.evaluate(set_id, path)
    root.promote(set_id)
    return set_id


@pytest.fixture
def release_root(tmp_path: Path, small_index: Path, key: tuple[Path, Path]) -> tuple[Path, str, str]:
    root = ReleaseRoot(tmp_path / "releases", load_trust_roots([key[1]]), actor="tests")
    a = promote(root, make_set(tmp_path, small_index, key, "a", "2026-01-01T00:00:00Z"), key, tmp_path)
    b = promote(root, make_set(tmp_path, small_index, key, "b", "2026-01-02T00:00:00Z"), key, tmp_path)
    return root.root, a, b


def test_a_forged_current_pointer_is_not_mounted(release_root: tuple[Path, str, str], key: tuple[Path, Path]) -> None:
    root, a, b = release_root
    config = MountConfig(release_root=root, trust_roots=(key[1],))
    assert new_state(config, NO_RATE).mount().artifact.set_id == b  # type: ignore[union-attr]
    pointers = json.loads((root / POINTERS_NAME).read_text())
    (root / POINTERS_NAME).write_text(json.dumps({**pointers, "current": a, "rollback": b}))
    mounted = new_state(config, NO_RATE).mount()
    assert mounted.status == "refused" and mounted.refusal is not None
    assert (mounted.refusal.family, mounted.refusal.code) == ("release", "pointers_mismatch")


def _wait(predicate: object, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


def _tamper(directory: Path) -> None:
    index = directory / "indexes" / "eu-eurlex.sqlite"
    index.chmod(0o644)
    data = bytearray(index.read_bytes())
    data[-1] ^= 0xFF  # same size, other bytes, rewritten in place
    index.write_bytes(bytes(data))


def test_the_mounted_set_is_reverified_on_a_schedule(release_root: tuple[Path, str, str],
                                                     key: tuple[Path, Path]) -> None:
    root, _a, b = release_root
    state = new_state(MountConfig(release_root=root, trust_roots=(key[1],)), NO_RATE)
    app = create_app(state, AppSettings(limits=NO_RATE, reverify_interval=0.2))
    with TestClient(app, raise_server_exceptions=False) as client:
        _wait(lambda: client.get("/readyz").status_code == 200)
        _tamper(root / "sets" / b)
        _wait(lambda: client.get("/readyz").status_code == 503)
        body = client.get("/readyz").json()
        assert body["status"] == "refused" and body["reason"]["code"] == "digest_mismatch"
        answer = client.post("/api/v1/coverage", json={}).json()
        assert answer["outcome"] == "no_corpus_mounted"
        assert answer["reason"]["code"] == "digest_mismatch"


def test_sighup_reverifies_the_mounted_set(release_root: tuple[Path, str, str], key: tuple[Path, Path]) -> None:
    root, _a, b = release_root
    state = new_state(MountConfig(release_root=root, trust_roots=(key[1],)), NO_RATE)
    state.mount()
    previous = signal.getsignal(signal.SIGHUP)
    try:
        assert install_sighup(state)
        _tamper(root / "sets" / b)
        os.kill(os.getpid(), signal.SIGHUP)
        _wait(lambda: state.reverify_due(None))
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert state.reverify().status == "refused"
    assert state.mounted.refusal is not None and state.mounted.refusal.code == "digest_mismatch"


def test_a_promotion_is_picked_up_by_reverification(tmp_path: Path, release_root: tuple[Path, str, str],
                                                    small_index: Path, key: tuple[Path, Path]) -> None:
    root, _a, b = release_root
    state: ServeState = new_state(MountConfig(release_root=root, trust_roots=(key[1],)), NO_RATE)
    assert state.mount().artifact.set_id == b  # type: ignore[union-attr]
    releaser = ReleaseRoot(root, load_trust_roots([key[1]]), actor="tests")
    c = promote(releaser, make_set(tmp_path, small_index, key, "c", "2026-01-03T00:00:00Z"), key, tmp_path)
    assert state.reverify().artifact.set_id == c  # type: ignore[union-attr]


def test_serve_refuses_to_start_on_a_missing_release_root(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--release-root", str(tmp_path / "nowhere"), "--port", "0"]) == 2
    assert "config/release_root_missing" in capsys.readouterr().err


@pytest.mark.parametrize("protocol", [header_timeout_protocol, h11_header_timeout_protocol],
                         ids=["httptools", "h11"])
@pytest.mark.parametrize("after_a_response", [False, True], ids=["first-head", "keep-alive"])
def test_a_client_that_drips_its_headers_is_cut_off(small_index: Path, protocol: Any, after_a_response: bool) -> None:
    import uvicorn

    state = new_state(MountConfig(index_dir=small_index, unsigned_dev=True), NO_RATE)
    app = create_app(state, AppSettings(limits=NO_RATE))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                            http=protocol(0.5))
    with running(app, config=config) as url:
        host, port = url.split("//")[1].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            if after_a_response:  # a whole request first: the timer is armed again after its response
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                first = sock.recv(4096)
                assert first.startswith(b"HTTP/1.1 200")
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            started = time.monotonic()
            for _ in range(20):  # drip a header byte every 0.1 s: never a complete head
                try:
                    sock.sendall(b"X")
                except OSError:
                    break
                time.sleep(0.1)
            reply = sock.recv(200)
        assert time.monotonic() - started < 3
        assert reply.startswith(b"HTTP/1.1 408")


def test_get_mcp_answers_405_at_once(small_index: Path) -> None:
    state = new_state(MountConfig(index_dir=small_index, unsigned_dev=True), NO_RATE)
    with TestClient(create_app(state, AppSettings(limits=NO_RATE))) as client:
        started = time.monotonic()
        response = client.get("/mcp", headers={"accept": "text/event-stream"})
        assert time.monotonic() - started < 2
        assert response.status_code == 405 and response.headers["allow"] == "POST"
        assert response.json()["error"]["data"]["error"]["code"] == "method_not_allowed"


# -- invalid input (defect 10) ---------------------------------------------------------------


@pytest.fixture(scope="module")
def dev_client(small_index: Path) -> object:
    state = new_state(MountConfig(index_dir=small_index, unsigned_dev=True), NO_RATE)
    state.mount()
    with TestClient(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False)),
                    raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_lone_surrogate_is_a_typed_400_on_every_operation(dev_client: TestClient, operation: str) -> None:
    name = next(iter(OPERATIONS[operation].input_schema["properties"]), "query")
    body = ('{"' + name + '": "\\ud800"}').encode()
    response = dev_client.post(f"/api/v1/{operation}", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["error"] == {"family": "request", "code": "invalid_unicode",
                                        "message": response.json()["error"]["message"], "subject": name}


def test_mcp_stdio_answers_unreadable_lines(small_index: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    lines = [b"this is not json\n", b'{"jsonrpc": "2.0"}\n', b'{"query": "\\ud800"}\n']
    process = subprocess.run([sys.executable, "-m", "cli", "mcp", "--index-dir", str(small_index), "--unsigned-dev"],
                             input=b"".join(lines), capture_output=True, cwd=root, timeout=60,
                             env={**os.environ, "PYTHONPATH": str(root)})
    replies = [json.loads(line) for line in process.stdout.splitlines() if line.strip()]
    assert len(replies) == 3, (process.stdout, process.stderr[-2000:])
    assert replies[0] == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert all(r["id"] is None and r["error"]["code"] in (-32700, -32600) for r in replies)


# -- the published schema is what the edge validates (defect 13) -----------------------------


def test_schema_and_validation_agree_on_the_drifted_cases(dev_client: TestClient) -> None:
    import re

    document = dev_client.get("/openapi.json").json()
    search = document["components"]["schemas"]["search_arguments"]["properties"]
    date = document["components"]["schemas"]["as_of_arguments"]["properties"]["date"]["pattern"]
    assert not re.match(date, "0000-01-01") and not re.match(date, "2023-02-29") and re.match(date, "2024-02-29")
    assert dev_client.post("/api/v1/as_of", json={"work": "x", "date": "0000-01-01"}).status_code == 400
    assert search["limit"]["type"] == "integer"  # JSON Schema's integer: 7.0 is one, and is accepted
    assert dev_client.post("/api/v1/search", json={"query": "choses", "limit": 7.0}).status_code == 200
    refused = dev_client.post("/api/v1/search", json={"query": "choses", "publisher": None})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_argument"
    assert "null" not in json.dumps(search)  # null is declared nowhere, and refused
    reason = document["components"]["schemas"]["LegalAnswer"]["properties"]["reason"]
    assert reason["required"] == ["family", "code", "message"]
