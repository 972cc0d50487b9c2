"""The run-failure notification hook: a command fed the JSON on stdin, a loopback HTTP receiver,
and the ``notify_on_run_failure`` sensor on a real failed run."""

from __future__ import annotations

import http.server
import json
import shlex
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import dagster as dg
import pytest

from pipelines.definitions import build_definitions
from pipelines.operations import failure_payload, notify
from pipelines.settings import LexSettings

HOOK = "import sys; open(sys.argv[1], 'wb').write(sys.stdin.buffer.read())"


def _command(out: Path) -> str:
    return shlex.join([sys.executable, "-c", HOOK, str(out)])


class _Receiver(http.server.BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, bytes]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.received.append((self.path, self.headers.get("content-type", ""), body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, str, bytes]]]]:
    """An HTTP endpoint on 127.0.0.1 recording every POST."""
    received: list[tuple[str, str, bytes]] = []
    handler = type("Receiver", (_Receiver,), {"received": received})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/lex", received
    finally:
        server.shutdown()
        server.server_close()


def test_no_hook_configured_does_nothing() -> None:
    assert notify(failure_payload("r1", "evidence", "boom"), environ={}) == []


def test_command_hook_receives_the_json_on_stdin(tmp_path: Path) -> None:
    out = tmp_path / "notified.json"
    payload = failure_payload("r1", "evidence", "step corpus_tree failed")
    done = notify(payload, environ={"LEX_NOTIFY_COMMAND": _command(out)})
    assert done == [f"ran {sys.executable}"]
    assert json.loads(out.read_bytes()) == {"event": "run_failed", "run_id": "r1", "job": "evidence",
                                            "message": "step corpus_tree failed"}


def test_url_hook_posts_the_json(receiver: tuple[str, list[tuple[str, str, bytes]]]) -> None:
    url, received = receiver
    payload = failure_payload("r2", "release", "x" * 5000)
    assert notify(payload, environ={"LEX_NOTIFY_URL": url}) == [f"posted to {url}"]
    ((path, content_type, body),) = received
    assert path == "/hooks/lex" and content_type == "application/json"
    sent = json.loads(body)
    assert sent["run_id"] == "r2" and sent["job"] == "release" and len(sent["message"]) == 2000


def test_both_hooks_fire(tmp_path: Path, receiver: tuple[str, list[tuple[str, str, bytes]]]) -> None:
    url, received = receiver
    out = tmp_path / "notified.json"
    done = notify(failure_payload("r3", "evidence", "m"), environ={"LEX_NOTIFY_URL": url,
                                                                  "LEX_NOTIFY_COMMAND": _command(out)})
    assert len(done) == 2 and len(received) == 1 and json.loads(out.read_bytes())["run_id"] == "r3"


def test_failure_sensor_notifies_a_failed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              receiver: tuple[str, list[tuple[str, str, bytes]]],
                                              dagster_instance: dg.DagsterInstance) -> None:
    """A real run fails (source ``fixtures`` without a fixtures directory); the sensor, given
    that run's failure event, delivers it through both hooks."""
    url, received = receiver
    out = tmp_path / "notified.json"
    monkeypatch.setenv("LEX_NOTIFY_URL", url)
    monkeypatch.setenv("LEX_NOTIFY_COMMAND", _command(out))
    broken = LexSettings(workdir=str(tmp_path / "work"), source="fixtures", fixtures_dir="")
    defs = build_definitions("in_process", settings=broken)
    result = defs.resolve_job_def("ingest").execute_in_process(
        partition_key="lu-legilux", instance=dagster_instance, raise_on_error=False)
    assert not result.success
    sensor = defs.resolve_sensor_def("notify_on_run_failure")
    context = dg.build_run_status_sensor_context(
        sensor_name=sensor.name, dagster_event=result.get_run_failure_event(),
        dagster_instance=dagster_instance, dagster_run=result.dagster_run).for_run_failure()
    sensor(context)
    delivered = json.loads(out.read_bytes())
    assert delivered["event"] == "run_failed" and delivered["run_id"] == result.run_id
    assert delivered["job"] == "ingest"
    assert json.loads(received[0][2]) == delivered
