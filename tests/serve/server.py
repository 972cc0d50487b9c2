"""Run an ASGI app on a loopback port in a background thread (for MCP, browser and load tests), and wait
for a condition of a served process to hold."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn


@contextmanager
def running(app: Any, *, host: str = "127.0.0.1", timeout: float = 20.0,
            config: uvicorn.Config | None = None) -> Iterator[str]:
    """Serve ``app`` on ``host`` and an ephemeral port (or with ``config``); yield its base URL."""
    config = config or uvicorn.Config(app, host=host, port=0, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            server.should_exit = True
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


def wait_for(condition: Any, timeout: float = 30.0, poll: float = 0.05) -> Any:
    """``condition()``'s first true value, polled every ``poll`` seconds; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError("the condition did not hold in time")


def children_of(pid: int) -> set[int]:
    """The live child processes of ``pid`` (Linux ``/proc``)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found |= {int(x) for x in task.read_text().split()}
    return found
