"""Running the replay publisher: in a background thread (tests, benchmarks) or in the
foreground (``lex replay serve``). Always on the loopback interface."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn
from starlette.types import ASGIApp

from legal.errors import ConfigError

LOOPBACK = "127.0.0.1"


@contextlib.contextmanager
def serve_in_thread(app: ASGIApp, *, port: int = 0, startup_timeout: float = 15.0) -> Iterator[str]:
    """Run ``app`` with uvicorn on ``127.0.0.1:port`` (0 = any free port) in a daemon thread;
    yield its base URL (``http://127.0.0.1:<port>``); stop it on exit."""
    config = uvicorn.Config(app, host=LOOPBACK, port=port, log_level="critical", lifespan="off",
                            access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="lex-replay", daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise ConfigError("replay server did not start", code="replay_not_started")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{LOOPBACK}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def serve_forever(app: ASGIApp, *, port: int, log_level: str = "info") -> None:
    """Run ``app`` in the foreground on ``127.0.0.1:port`` until interrupted."""
    uvicorn.run(app, host=LOOPBACK, port=port, log_level=log_level, lifespan="off")
