"""``lex serve --workers N``: a supervisor and worker processes on loopback, over real indexes.

Both workers answer (the supervisor hands connections out in turn); a killed worker is
restarted; a deliberately slow operation in one worker delays ``/healthz`` by no more than the
budget; a re-verification that fails in one worker unmounts the set in every worker; SIGTERM
stops the supervisor and every worker cleanly.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from release.keys import keygen, load_signer
from release.signing import sign_artifact_set
from tests.index.handmade import build_handmade
from tests.serve.server import children_of as workers_of
from tests.serve.server import wait_for

ROOT = Path(__file__).resolve().parents[2]
HEALTHZ_BUDGET = 0.05
PASSPHRASE = b"test passphrase"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, /proc and signals: Linux")


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("workers-set")
    build_handmade(directory / "indexes")
    return directory


@contextmanager
def server(argv: list[str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """Start ``argv`` (a server printing its URL first); yield the URL and the process; stop it."""
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        assert match, line + (process.stderr.read() if process.stderr and process.poll() is not None else "")
        yield match.group(1), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def lex_serve(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", "serve", "--port", "0", "--workers", "2", "--client-rate", "0",
            "--global-rate", "0", *args]




def readyz(url: str) -> tuple[int, dict[str, Any]]:
    """``/readyz`` on a fresh connection (the supervisor hands each one to the next worker)."""
    response = httpx.get(f"{url}readyz", timeout=10, headers={"connection": "close"})
    return response.status_code, response.json()


def raw_get(url: str, path: str) -> bytes:
    """One GET on a fresh connection, as cheap as a client can be (no client library setup)."""
    host, port = url.split("//")[1].rstrip("/").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n".encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)



def ready_workers(url: str, tries: int = 6) -> set[int]:
    seen = set()
    for _ in range(tries):
        status, body = readyz(url)
        if status == 200:
            seen.add(body["worker"])
    return seen


def test_two_workers_each_answer(small_set: Path) -> None:
    with server(lex_serve("--index-dir", str(small_set), "--unsigned-dev")) as (url, process):
        assert wait_for(lambda: ready_workers(url) == {0, 1})
        assert len(workers_of(process.pid)) == 2
        with httpx.Client(base_url=url, timeout=10) as client:
            answer = client.post("/api/v1/coverage", json={}).json()
        assert answer["outcome"] == "succeeded"


def test_a_killed_worker_is_restarted(small_set: Path) -> None:
    with server(lex_serve("--index-dir", str(small_set), "--unsigned-dev")) as (url, process):
        wait_for(lambda: ready_workers(url) == {0, 1})
        before = workers_of(process.pid)
        victim = min(before)
        os.kill(victim, signal.SIGKILL)
        after = wait_for(lambda: (w := workers_of(process.pid)) and len(w) == 2 and victim not in w and w)
        assert len(after & before) == 1
        assert wait_for(lambda: ready_workers(url) == {0, 1})
        assert process.poll() is None


def test_a_slow_operation_in_one_worker_does_not_delay_healthz(small_set: Path) -> None:
    argv = [sys.executable, "-m", "tests.serve.workers_app", str(small_set)]
    with server(argv) as (url, _process):
        wait_for(lambda: ready_workers(url) == {0, 1})
        slow_status: list[int] = []

        def pathological() -> None:
            with httpx.Client(base_url=url, timeout=20) as client:
                slow_status.append(client.post("/api/v1/diff", json={
                    "work": "eu-eurlex:32099r0001", "from_date": "2020-06-01", "to_date": "2022-06-01"}).status_code)

        thread = threading.Thread(target=pathological)
        thread.start()
        time.sleep(0.2)
        healthz: list[float] = []
        while thread.is_alive() and len(healthz) < 20:  # fresh connections: both workers answer in turn
            started = time.monotonic()
            assert raw_get(url, "/healthz").endswith(b"\r\n\r\nok")
            healthz.append(time.monotonic() - started)
        thread.join()
        assert slow_status == [504]
        assert max(healthz) < HEALTHZ_BUDGET, healthz


@pytest.mark.parametrize("told", ["one worker", "the supervisor"])
def test_a_failed_reverification_unmounts_in_every_worker(told: str, tmp_path: Path, small_set: Path) -> None:
    files = keygen(tmp_path / "keys", "ed25519", PASSPHRASE)
    signed = tmp_path / "set"
    shutil.copytree(small_set, signed)
    sign_artifact_set(signed, [load_signer(files.private_key, PASSPHRASE)], created_by="tests",
                      created_at="2026-01-02T03:04:05Z")
    args = ("--index-dir", str(signed), "--trust-root", str(files.public_key), "--reverify-interval", "0")
    with server(lex_serve(*args)) as (url, process):
        wait_for(lambda: ready_workers(url) == {0, 1})
        stamp = signed / "indexes" / "lu-legilux.stamp.json"
        stamp.write_bytes(stamp.read_bytes() + b" ")
        target = min(workers_of(process.pid)) if told == "one worker" else process.pid
        os.kill(target, signal.SIGHUP)  # one worker only, or the supervisor (which tells them all)

        def both_refused() -> bool:
            answers = [readyz(url) for _ in range(4)]
            workers = {body["worker"] for status, body in answers if status == 503 and body["status"] == "refused"}
            return workers == {0, 1}

        assert wait_for(both_refused)
        status, body = readyz(url)
        assert (status, body["reason"]["family"]) == (503, "release")


def test_sigterm_stops_the_supervisor_and_every_worker(small_set: Path) -> None:
    with server(lex_serve("--index-dir", str(small_set), "--unsigned-dev")) as (url, process):
        wait_for(lambda: ready_workers(url) == {0, 1})
        workers = workers_of(process.pid)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        for pid in workers:
            assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"{url}healthz", timeout=2)


def test_a_port_in_use_is_a_typed_error(small_set: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        argv = [sys.executable, "-m", "cli", "serve", "--index-dir", str(small_set), "--unsigned-dev",
                "--port", str(port), "--workers", "2"]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "config/cannot_listen" in done.stderr


def test_the_hybrid_hook_imports_nothing_without_a_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without LEX_HYBRID_REPORT the hook decides nothing (as hybrid.activate would) and the hybrid
    lane with its numpy is not imported into the workers."""
    from cli.serve import HYBRID_REPORT_ENV, hybrid_configured
    from hybrid.activate import REPORT_ENV

    assert HYBRID_REPORT_ENV == REPORT_ENV
    monkeypatch.delenv(REPORT_ENV, raising=False)
    assert not hybrid_configured()
    code = ("import sys; from cli.serve import hybrid_hook; "
            "assert hybrid_hook(object(), None) is None; assert 'hybrid.activate' not in sys.modules")
    env = {k: v for k, v in os.environ.items() if k != REPORT_ENV}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=Path(__file__).resolve().parents[2])
    monkeypatch.setenv(REPORT_ENV, "report.json")
    assert hybrid_configured()


def test_the_supervisor_preloads_what_every_worker_imports() -> None:
    from serve.app import WORKER_MODULES, preload

    assert preload() == list(WORKER_MODULES)
    assert all(name in sys.modules for name in WORKER_MODULES)
    assert preload(("no_such_module_here",)) == []


def test_the_supervisor_compiles_the_templates_the_workers_render() -> None:
    """warm_templates fills the same environment the pages render with (one compiled copy, shared)."""
    from cli.serve import assistant_extension
    from serve.app import template_dirs, warm_templates
    from serve.web.render import environment

    extension = assistant_extension()
    assert warm_templates((extension,)) >= 10
    env = environment(template_dirs((extension,)))
    assert env.cache is not None
    assert {key[1] for key in env.cache} >= {"base.html", "work.html", "diff.html", "assistant/ask_panel.html"}


def test_the_supervisor_can_trim_its_free_heap() -> None:
    import platform

    from legal.heap import release_free_heap

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("malloc_trim is glibc's")
    assert release_free_heap() is True


def test_the_builder_pins_the_free_blocks_before_it_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Collect, trim, pin the small-object allocator's free blocks, freeze: in that order (ADR 0159)."""
    import gc

    from legal import heap
    from serve import workers

    done: list[str] = []
    monkeypatch.setattr(heap, "release_free_heap", lambda: done.append("trim") or True)
    monkeypatch.setattr(heap, "pin_free_blocks", lambda: done.append("pin") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: done.append("freeze"))
    workers._settle()
    assert done == ["trim", "pin", "freeze"]


def test_a_kept_inflater_holds_what_the_text_cache_counts() -> None:
    """A block inflated in part keeps its inflater, counted as :data:`derive.index.textstore.INFLATER_BYTES`
    (ISA-L's holds more than twice zlib's 40 KiB): no more than that is traced per inflater kept, with
    the block's first bytes it gave."""
    import tracemalloc
    import zlib

    from derive.index import textstore

    dictionary = bytes(range(256)) * 64
    text = b" ".join(b"article %d of the act" % i for i in range(4000))
    packer = zlib.compressobj(zdict=dictionary)
    body = packer.compress(text) + packer.flush()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = []
        for _ in range(20):
            inflater = textstore.inflater(dictionary)
            kept.append((inflater, inflater.decompress(body, 1000)))
        each = (tracemalloc.get_traced_memory()[0] - before) / len(kept)
    finally:
        tracemalloc.stop()
    assert each <= textstore.INFLATER_BYTES + 1100
    assert (40 << 10 if textstore._INFLATE is zlib else 96 << 10) == textstore.INFLATER_BYTES


def test_a_worker_bounds_its_text_block_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker keeps a smaller per-process text-block cache; never a larger one than configured."""
    from derive.index import textstore
    from serve.app import WORKER_TEXT_CACHE_BYTES, bound_worker_caches

    monkeypatch.setattr(textstore.BLOCKS, "capacity", textstore.CACHE_BYTES)
    bound_worker_caches()
    assert textstore.BLOCKS.capacity == WORKER_TEXT_CACHE_BYTES < textstore.CACHE_BYTES
    bound_worker_caches(textstore.CACHE_BYTES * 2)
    assert textstore.BLOCKS.capacity == WORKER_TEXT_CACHE_BYTES


def test_a_worker_bounds_the_statements_its_connections_keep(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A worker's pooled connections keep fewer prepared statements (Python's default elsewhere);
    the answers do not depend on it."""
    from derive.index import textstore
    from serve.app import WORKER_STATEMENT_CACHE, bound_worker_caches
    from serve.core import mount
    from serve.core.topk import IndexConnection

    build_handmade(tmp_path / "indexes")
    path = next((tmp_path / "indexes").glob("*.sqlite"))
    monkeypatch.setattr(mount, "STATEMENT_CACHE", None)
    monkeypatch.setattr(textstore.BLOCKS, "capacity", textstore.BLOCKS.capacity)
    default = mount.MountedIndex.open(path)
    with default.session(5.0) as conn:
        assert type(conn) is IndexConnection
    bound_worker_caches()
    assert mount.STATEMENT_CACHE == WORKER_STATEMENT_CACHE
    bounded = mount.MountedIndex.open(path)
    with bounded.session(5.0) as conn:
        assert isinstance(conn, IndexConnection) and type(conn) is not IndexConnection
        assert conn.execute("SELECT COUNT(*) FROM works").fetchone()[0] > 0
    assert default.catalogue.slug_of == bounded.catalogue.slug_of
    default.close()
    bounded.close()


def test_the_served_backend_warms_each_index_at_mount(tmp_path: Path) -> None:
    """The tables the first calls would load are loaded at mount, where the calls read them from."""
    from serve.app import LegalCoreBackend
    from serve.core import LegalCore, ranking
    from serve.mount import unsigned_identity

    build_handmade(tmp_path / "indexes")
    core = LegalCoreBackend().mount(tmp_path / "indexes", unsigned_identity(tmp_path / "indexes", "test"))
    assert isinstance(core, LegalCore)
    try:
        assert core.indexes
        for index in core.indexes.values():
            assert index.ranked_cache._newest is not None
            assert "periods" in index._memo
            assert index in ranking._CACHE
    finally:
        core.close()


def test_a_pooled_connection_has_its_small_page_cache_before_the_mount_checks(tmp_path: Path) -> None:
    """The mount's checks (row counts of the large tables) already run with the bounded page cache."""
    from serve.core import mount

    build_handmade(tmp_path / "indexes")
    path = next((tmp_path / "indexes").glob("*.sqlite"))
    conn = mount._connect(path)
    try:
        assert conn.execute("PRAGMA cache_size").fetchone()[0] == -mount.CACHE_KIB
    finally:
        conn.close()
