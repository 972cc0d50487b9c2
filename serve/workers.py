"""Several worker processes behind one listening socket (``lex serve --workers N``).

The legal core is Python under one interpreter lock, so one process uses about one core. With
``workers > 1`` a small supervisor binds and listens on the socket *after* the imports and
*before* anything is mounted, then forks the workers. It accepts every connection and hands it to
the next live worker in turn (the descriptor over a Unix socket pair, ``SCM_RIGHTS``); each worker
builds its own app, verifies the artifact set itself and opens its own read-only SQLite connections
(none crosses the fork). Before forking, the composition (``serve.app.run_workers``) verifies, mounts
and warms the set once and closes its connections; a worker's first mount adopts those tables when
its own verification names the same set and the index files are the ones they were built from, and
builds its own otherwise (``serve.app.prebuild_core``). The imported code (and, imported before forking,
what every worker would import anyway: ``serve.app.preload``, the compiled page templates) is
shared copy-on-write between the supervisor and the workers — the supervisor trims its free heap
and freezes its objects out of the collector first, so fewer pages are copied — and the index files
are read through the shared page cache.

The supervisor holds no threads and no indexes. It

- restarts a worker that dies (a worker that dies within :data:`FAST_DEATH` seconds of its start is
  restarted after :data:`RESTART_DELAY`, so a worker that cannot start does not spin);
- forwards ``SIGHUP`` to every worker (each re-verifies the mounted set);
- on ``SIGUSR1`` — sent by a worker whose mount was refused or whose re-verification unmounted
  the set — sends ``SIGHUP`` to every worker, so a refusal unmounts the set in all of them;
- on ``SIGINT``/``SIGTERM`` sends ``SIGTERM`` to every worker (uvicorn's graceful shutdown:
  requests in flight finish within the grace period), waits, kills what is left and exits.

A worker asks the kernel for ``SIGTERM`` when the supervisor dies (``PR_SET_PDEATHSIG``), so no
orphaned worker keeps the port.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import os
import select
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("serve")

#: a worker that dies this soon after its start is restarted only after RESTART_DELAY
FAST_DEATH = 2.0
RESTART_DELAY = 1.0
#: the signals the supervisor waits for (blocked in the supervisor, unblocked in each worker)
SUPERVISED = (signal.SIGCHLD, signal.SIGHUP, signal.SIGUSR1, signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1


def default_workers() -> int:
    """The default number of workers: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def listen(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0 picks a free one), shared by the workers."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def bound_url(sock: socket.socket) -> str:
    """The base URL of a bound socket (``http://host:port/``; IPv6 hosts in brackets)."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in str(host) else str(host)
    return f"http://{shown}:{port}/"


def notify_supervisor() -> None:
    """From a worker: ask the supervisor to make every worker re-verify (a refusal was seen)."""
    parent = os.getppid()
    if parent > 1:
        with contextlib.suppress(OSError):  # the supervisor is gone
            os.kill(parent, signal.SIGUSR1)


def _die_with_parent() -> None:
    name = ctypes.util.find_library("c")
    try:
        if name:
            ctypes.CDLL(name).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the kernel (glibc's ``malloc_trim``); False elsewhere.

    Called in the supervisor just before forking: a free heap page still resident would be shared
    with every worker and copied into each as soon as it allocates there, while the supervisor kept
    its own copy of a page it no longer uses."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return False
    if trim is None:
        return False
    trim(0)
    return True


@dataclass
class Supervisor:
    """Accepts connections on ``listener`` and hands them round-robin to ``workers`` processes, each
    running ``serve_worker(index, handoff)`` (``handoff``: the worker's end of a Unix socket pair the
    accepted connections arrive on, see :func:`receive_connections`); keeps the workers running."""

    workers: int
    serve_worker: Callable[[int, socket.socket], int]
    listener: socket.socket
    #: seconds the workers get to finish in-flight requests on shutdown before they are killed
    grace: float = 10.0
    children: dict[int, int] = field(default_factory=dict)  # pid -> worker index
    started: dict[int, float] = field(default_factory=dict)  # worker index -> monotonic start
    handoffs: dict[int, socket.socket] = field(default_factory=dict)  # worker index -> our end
    handed: dict[int, int] = field(default_factory=dict)  # worker index -> connections handed over
    restarts: int = 0
    _due: dict[int, float] = field(default_factory=dict)  # worker index -> restart time
    _signals: list[int] = field(default_factory=list)
    _next: int = 0
    _wake: tuple[int, ...] = ()

    def run(self) -> int:
        """Start the workers and supervise them until SIGINT or SIGTERM; the exit status."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self._wake = (wake_r, wake_w)
        previous_fd = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        previous = {signum: signal.signal(signum, self._on_signal) for signum in SUPERVISED}
        gc.collect()
        release_free_heap()  # freed heap pages leave now: a worker's allocations then copy none of ours
        gc.freeze()  # the imported objects stay out of the workers' collections: fewer pages copied on write
        try:
            for index in range(self.workers):
                self._spawn(index)
            return self._supervise(wake_r)
        finally:
            self._stop()
            signal.set_wakeup_fd(previous_fd)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            os.close(wake_r)
            os.close(wake_w)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._signals.append(signum)

    def _spawn(self, index: int) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the supervisor's stack
            code = 1
            try:
                for signum in SUPERVISED:
                    signal.signal(signum, signal.SIG_DFL)
                signal.set_wakeup_fd(-1)
                _die_with_parent()
                self.listener.close()
                for fd in self._wake:
                    os.close(fd)
                ours.close()
                for other in self.handoffs.values():
                    other.close()
                code = self.serve_worker(index, theirs)
            except BaseException:  # a worker's crash is logged; its exit status tells the supervisor
                log.exception("worker %d failed", index)
            finally:
                os._exit(code)
        theirs.close()
        ours.setblocking(False)
        old = self.handoffs.pop(index, None)
        if old is not None:
            old.close()
        self.handoffs[index] = ours
        self.children[pid] = index
        self.started[index] = time.monotonic()
        log.info("worker %d started (pid %d)", index, pid)

    def _supervise(self, wake: int) -> int:
        while True:
            timeout = min((due - time.monotonic() for due in self._due.values()), default=1.0)
            readable, _, _ = select.select([self.listener.fileno(), wake], [], [], max(0.01, min(1.0, timeout)))
            if wake in readable:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake, 512):
                        pass
            while self._signals:
                signum = self._signals.pop(0)
                if signum in (signal.SIGINT, signal.SIGTERM):
                    return 0
                if signum in (signal.SIGHUP, signal.SIGUSR1):
                    self.signal_workers(signal.SIGHUP)
            if self.listener.fileno() in readable:
                self._accept()
            self._reap()
            now = time.monotonic()
            for index, due in list(self._due.items()):
                if due <= now:
                    del self._due[index]
                    self.restarts += 1
                    self._spawn(index)

    def _accept(self) -> None:
        """Hand every pending connection to the next live worker in turn (closed if there is none)."""
        while True:
            try:
                connection, _address = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:  # e.g. out of file descriptors: leave it queued for now
                log.warning("accept failed: %s", error)
                return
            with connection:
                self._hand(connection)

    def _hand(self, connection: socket.socket) -> bool:
        live = sorted(set(self.children.values()))
        for _ in range(len(live)):
            index = live[self._next % len(live)]
            self._next += 1
            try:
                socket.send_fds(self.handoffs[index], [b"c"], [connection.fileno()])
            except OSError:  # its queue is full or it is gone: the next one
                continue
            self.handed[index] = self.handed.get(index, 0) + 1
            return True
        return False

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            index = self.children.pop(pid, None)
            if index is None:
                continue
            lived = time.monotonic() - self.started.get(index, 0.0)
            log.warning("worker %d (pid %d) ended (%s); restarting it", index, pid, _describe(status))
            self._due[index] = time.monotonic() + (RESTART_DELAY if lived < FAST_DEATH else 0.0)

    def signal_workers(self, signum: int) -> None:
        for pid in list(self.children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signum)

    def _stop(self) -> None:
        """Stop accepting; SIGTERM to every worker, wait up to the grace period, then SIGKILL what is left."""
        self.listener.close()
        self._due.clear()
        self.signal_workers(signal.SIGTERM)
        deadline = time.monotonic() + self.grace
        while self.children and time.monotonic() < deadline:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                self.children.clear()
                break
            if pid:
                self.children.pop(pid, None)
            else:
                time.sleep(0.02)
        for pid in list(self.children):
            log.warning("worker pid %d did not stop within %.0f s; killing it", pid, self.grace)
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        self.children.clear()
        for handoff in self.handoffs.values():
            handoff.close()
        self.handoffs.clear()


def receive_connections(handoff: socket.socket, accept: Callable[[socket.socket], object],
                        closed: Callable[[], object]) -> Callable[[], None]:
    """In a worker: the reader callback of ``handoff`` — each connection handed over is passed to
    ``accept`` (non-blocking); when the supervisor's end closes, ``closed`` is called."""
    handoff.setblocking(False)

    def on_readable() -> None:
        while True:
            try:
                message, fds, _flags, _address = socket.recv_fds(handoff, 16, 16)
            except (BlockingIOError, InterruptedError):
                return
            if not message and not fds:
                closed()
                return
            for fd in fds:
                connection = socket.socket(fileno=fd)
                connection.setblocking(False)
                accept(connection)

    return on_readable


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
