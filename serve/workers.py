"""Several worker processes behind one listening socket (``lex serve --workers N``).

The legal core is Python under one interpreter lock, so one process uses about one core. With
``workers > 1`` a small supervisor binds and listens on the socket *after* the imports and
*before* anything is mounted, then forks the workers. It accepts every connection and hands it to
the next live worker in turn (the descriptor over a Unix socket pair, ``SCM_RIGHTS``); each worker
builds its own app, verifies the artifact set itself and opens its own read-only SQLite connections
(none crosses the fork). The first workers are forked by a short-lived *builder*, a child of the
supervisor that verifies, mounts and warms the set once, closes its connections, forks the workers
and exits (``serve.app.prebuild_core`` via :class:`Supervisor`'s ``prepare``); a worker's first
mount adopts those tables when its own verification names the same set and the index files are
the ones they were built from, and builds its own otherwise. The supervisor is the workers' child
subreaper, so they are its children once the builder is gone, and the tables are shared by the
workers alone. Once the builder is forked, the supervisor becomes *lean*: it executes a fresh
interpreter in its own place that imports this module alone (``Supervisor(relaunch=…)``), so the
imports and what it held are shared by the builder and the workers alone, and no page both workers
copy is kept a third time in the supervisor. The imported code (and, imported before forking, what every worker would import
anyway: ``serve.app.preload``, the compiled page templates) is shared copy-on-write between the
supervisor and the workers — each process trims its free heap and freezes its objects out of the
collector before it forks, so fewer pages are copied — and the index files are read through the
shared page cache.

The supervisor holds no threads and no indexes. It

- restarts a worker that dies (a worker that dies within :data:`FAST_DEATH` seconds of its start is
  restarted after :data:`RESTART_DELAY`, so a worker that cannot start does not spin): the lean
  supervisor runs the program's command line again as that worker (:data:`WORKER_ENV`,
  :func:`relaunched_worker`), any other forks it;
- forwards ``SIGHUP`` to every worker (each re-verifies the mounted set);
- on ``SIGUSR1`` — sent by a worker whose mount was refused or whose re-verification unmounted
  the set — sends ``SIGHUP`` to every worker, so a refusal unmounts the set in all of them;
- on ``SIGINT``/``SIGTERM`` sends ``SIGTERM`` to every worker (uvicorn's graceful shutdown:
  requests in flight finish within the grace period), waits, kills what is left and exits.

A worker asks the kernel for ``SIGTERM`` when the supervisor dies (``PR_SET_PDEATHSIG``), so no
orphaned worker keeps the port; one the builder forked asks only once it is the supervisor's child
(the builder's exit would fire it).
"""

from __future__ import annotations

import gc
import os
import select
import signal
import socket
import sys
import time

TYPE_CHECKING = False  # not ``typing``'s: importing it costs the lean supervisor ~1.5 MB (``re``, ...)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# The lean supervisor (see :class:`Supervisor`, ``relaunch``) runs this module in an interpreter of
# its own that imports nothing else of the project: this module imports only what a bare
# interpreter has loaded anyway or costs little (no ``logging``, ``dataclasses``, ``contextlib`` or
# ``ctypes.util``: together ~4 MB of private memory in that process).

#: logging's levels (``logging.INFO``, ...): ``logging`` is imported only to write a message
INFO, WARNING, ERROR = 20, 30, 40
#: the lowest level the lean supervisor writes (the ``serve`` logger's level when it was started);
#: 0 in any other process, where ``logging`` decides
_LEAN_LEVEL = [0]


class _Log:
    """``logging.getLogger("serve")``, imported on the first message written; in the lean
    supervisor a message below the level it was started with is dropped without importing it."""

    def _write(self, level: int, message: str, *args: object, exc_info: bool = False) -> None:
        if level < _LEAN_LEVEL[0]:
            return
        import logging

        logging.getLogger("serve").log(level, message, *args, exc_info=exc_info)

    def info(self, message: str, *args: object) -> None:
        self._write(INFO, message, *args)

    def warning(self, message: str, *args: object) -> None:
        self._write(WARNING, message, *args)

    def exception(self, message: str, *args: object) -> None:
        self._write(ERROR, message, *args, exc_info=True)


log = _Log()

#: a worker that dies this soon after its start is restarted only after RESTART_DELAY
FAST_DEATH = 2.0
RESTART_DELAY = 1.0
#: the signals the supervisor waits for (blocked in the supervisor, unblocked in each worker)
SUPERVISED = (signal.SIGCHLD, signal.SIGHUP, signal.SIGUSR1, signal.SIGINT, signal.SIGTERM)
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: seconds a worker forked by the builder waits to be handed to the supervisor (the builder exits at once)
REPARENT_WAIT = 10.0


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
        _kill(parent, signal.SIGUSR1)  # False: the supervisor is gone


def _kill(pid: int, signum: int) -> bool:
    """``os.kill``; False when there is no such process (any more)."""
    try:
        os.kill(pid, signum)
    except OSError:
        return False
    return True


def _prctl(option: int, value: int) -> bool:
    import ctypes  # the process's own symbols hold the C library's (not ctypes.util: ~2 MB)

    try:
        return bool(ctypes.CDLL(None).prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False


def _die_with_parent(supervisor: int) -> bool:
    """Ask for ``SIGTERM`` when the supervisor (pid ``supervisor``) dies; False when it is gone already.

    A worker the builder forked is the builder's child until the builder exits and the kernel hands
    it to the supervisor (a child subreaper); the request is made only then, since the builder's
    exit would fire it."""
    builder = os.getppid()
    deadline = time.monotonic() + REPARENT_WAIT
    while builder != supervisor and os.getppid() == builder and time.monotonic() < deadline:
        time.sleep(0.001)
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    return os.getppid() == supervisor  # checked after the request: a supervisor that died just before


def _settle() -> None:
    """Before forking: collect, give the free heap back (:func:`legal.heap.release_free_heap`: a free
    page still resident would be copied into each child as soon as it allocates there), fill the
    small-object allocator's scattered free blocks (:func:`legal.heap.pin_free_blocks`: a child's
    new objects would go there first, copying a shared page for each) and freeze
    what is alive out of the collector (``gc.freeze``: a child's collections then write to none of it)."""
    from legal.heap import pin_free_blocks, release_free_heap

    gc.collect()
    release_free_heap()
    pin_free_blocks()
    gc.freeze()


class Supervisor:
    """Accepts connections on ``listener`` and hands them round-robin to ``workers`` processes, each
    running ``serve_worker(index, handoff)`` (``handoff``: the worker's end of a Unix socket pair the
    accepted connections arrive on, see :func:`receive_connections`); keeps the workers running.

    With ``prepare`` (on Linux), the first workers are forked by a short-lived *builder*: a child
    of the supervisor that runs ``prepare()`` (e.g. mounts and warms the set the workers then adopt,
    :func:`serve.app.prebuild_core`), forks the workers, reports their pids on a pipe and exits
    without writing to what it built. The supervisor is their child subreaper
    (``PR_SET_CHILD_SUBREAPER``), so they become its children once the builder is gone. What the
    builder built is then shared by the workers alone: a page both of them write to is freed in
    the builder's place, where a supervisor that built it would keep its copy for as long as it
    runs. A worker restarted later is forked by the supervisor itself (and builds its own).

    With ``relaunch`` as well (the command line that started this process, e.g. ``sys.orig_argv``),
    the supervisor becomes *lean* once the builder is forked: it executes a fresh interpreter in its
    own place (same pid, the listening socket, the handoff sockets and the builder's pipe kept
    open, the supervised signals blocked across the exec) that imports this module alone and
    supervises from there. The imports and whatever it held before are then the builder's and the
    workers' alone: a page both workers copy is not kept a third time in the supervisor. A worker
    restarted later is started by running ``relaunch`` again with :data:`WORKER_ENV` naming its
    index and handoff socket (:func:`relaunched_worker`): it imports, verifies and builds its own."""

    def __init__(self, workers: int, serve_worker: Callable[[int, socket.socket], int] | None,
                 listener: socket.socket, grace: float = 10.0, prepare: Callable[[], object] | None = None,
                 relaunch: Sequence[str] | None = None) -> None:
        self.workers = workers
        self.serve_worker = serve_worker
        self.listener = listener
        #: seconds the workers get to finish in-flight requests on shutdown before they are killed
        self.grace = grace
        #: run before the first workers are forked, in the builder (or here, without a subreaper)
        self.prepare = prepare
        #: the command that starts a worker from scratch (:func:`relaunched_worker`); the lean supervisor's
        self.relaunch = list(relaunch) if relaunch else None
        self.children: dict[int, int] = {}  # pid -> worker index
        self.started: dict[int, float] = {}  # worker index -> monotonic start
        self.handoffs: dict[int, socket.socket] = {}  # worker index -> our end
        self.handed: dict[int, int] = {}  # worker index -> connections handed over
        self.restarts = 0
        self.lean = False  # this process is the lean supervisor (it forks no worker: it relaunches)
        self._due: dict[int, float] = {}  # worker index -> restart time
        self._signals: list[int] = []
        self._next = 0
        self._wake: tuple[int, ...] = ()
        self._pid = 0
        self._builder: int | None = None  # the read end of the builder's report pipe while it runs
        self._builder_pid = 0
        self._report = b""
        self._pending: set[int] = set()  # worker indexes the builder has not reported yet
        self._ended: set[int] = set()  # pids reaped before the builder reported them

    def run(self) -> int:
        """Start the workers and supervise them until SIGINT or SIGTERM; the exit status. In a
        relaunched worker (:func:`relaunched_worker`), serve as that worker instead."""
        found = relaunched_worker()
        if found is not None:
            self._pid = found[2]
            self._work(found[0], found[1])
        subreaper = self.prepare is not None and _prctl(PR_SET_CHILD_SUBREAPER, 1)
        previous_fd, previous = self._install()
        if self.prepare is not None and not subreaper:
            self.prepare()
        _settle()
        try:
            if subreaper:
                self._build(list(range(self.workers)))
                if self.relaunch:
                    self._become_lean()
            else:
                for index in range(self.workers):
                    self._spawn(index)
            return self._supervise(self._wake[0])
        finally:
            self._stop()
            if subreaper:
                _prctl(PR_SET_CHILD_SUBREAPER, 0)
            self._uninstall(previous_fd, previous)

    def _install(self) -> tuple[int, dict[int, object]]:
        """The wake-up pipe and the supervised signals' handlers; what they replaced."""
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        self._wake = (wake_r, wake_w)
        self._pid = os.getpid()
        previous_fd = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        previous: dict[int, object] = {signum: signal.signal(signum, self._on_signal) for signum in SUPERVISED}
        return previous_fd, previous

    def _uninstall(self, previous_fd: int, previous: dict[int, object]) -> None:
        signal.set_wakeup_fd(previous_fd)
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        for fd in self._wake:
            os.close(fd)
        self._wake = ()

    def _become_lean(self) -> None:
        """Execute the lean supervisor in this process's place (see the class); returns only if the
        exec fails (this process then goes on supervising)."""
        assert self.relaunch is not None
        fds = [self.listener.fileno(), *(end.fileno() for end in self.handoffs.values())]
        if self._builder is not None:
            fds.append(self._builder)
        level = 0
        if "logging" in sys.modules:  # the level this process's ``serve`` logger writes from
            import logging

            level = logging.getLogger("serve").getEffectiveLevel()
        state = [f"workers={self.workers}", f"grace={self.grace!r}", f"listener={self.listener.fileno()}",
                 f"builder={-1 if self._builder is None else self._builder}", f"builder_pid={self._builder_pid}",
                 f"level={level}", f"restarts={self.restarts}",
                 *(f"handoff={index}:{end.fileno()}" for index, end in self.handoffs.items()),
                 *(f"pending={index}" for index in sorted(self._pending)),
                 *(f"started={index}:{at!r}" for index, at in self.started.items()),
                 *(f"child={pid}:{index}" for pid, index in self.children.items()),
                 *(f"ended={pid}" for pid in sorted(self._ended)),
                 *(f"signal={signum}" for signum in self._signals), "--", *self.relaunch]
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        argv = [sys.executable, "-I", "-S", "-c", LEAN_MAIN.format(root=root), *state]
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, SUPERVISED)  # pending across the exec
        try:
            for fd in fds:
                os.set_inheritable(fd, True)
            os.execv(sys.executable, argv)
        except OSError as error:
            log.warning("the lean supervisor could not start (%s); supervising from here", error)
            for fd in fds:
                os.set_inheritable(fd, False)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    @classmethod
    def lean_from(cls, args: Sequence[str]) -> Supervisor:
        """The lean supervisor's state as :meth:`_become_lean` passed it on its command line."""
        split = list(args).index("--")
        values: dict[str, list[str]] = {}
        for item in args[:split]:
            key, _, value = item.partition("=")
            values.setdefault(key, []).append(value)
        one = {key: found[0] for key, found in values.items()}
        found = cls(int(one["workers"]), None, socket.socket(fileno=int(one["listener"])), grace=float(one["grace"]),
                    relaunch=args[split + 1:])
        found.lean = True
        found.listener.setblocking(False)
        found.restarts = int(one["restarts"])
        _LEAN_LEVEL[0] = int(one["level"])
        for pair in values.get("handoff", []):
            index, fd = pair.split(":")
            found.handoffs[int(index)] = end = socket.socket(fileno=int(fd))
            end.setblocking(False)
        if int(one["builder"]) >= 0:
            found._builder, found._builder_pid = int(one["builder"]), int(one["builder_pid"])
        found._pending = {int(index) for index in values.get("pending", [])}
        found._ended = {int(pid) for pid in values.get("ended", [])}
        found._signals = [int(signum) for signum in values.get("signal", [])]
        for pair in values.get("started", []):
            index, at = pair.split(":")
            found.started[int(index)] = float(at)
        for pair in values.get("child", []):
            pid, index = pair.split(":")
            found.children[int(pid)] = int(index)
        for fd in (found.listener.fileno(), *(end.fileno() for end in found.handoffs.values()),
                   *(() if found._builder is None else (found._builder,))):
            os.set_inheritable(fd, False)
        return found

    def run_lean(self) -> int:
        """The lean supervisor's life: supervise until SIGINT or SIGTERM; the exit status."""
        previous_fd, previous = self._install()
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SUPERVISED)  # those pending across the exec arrive now
        try:
            return self._supervise(self._wake[0])
        finally:
            self._stop()
            self._uninstall(previous_fd, previous)

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._signals.append(signum)

    def _handoff(self, index: int) -> socket.socket:
        """A new socket pair for worker ``index``: ours is kept (the old one closed), theirs returned."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        old = self.handoffs.pop(index, None)
        if old is not None:
            old.close()
        self.handoffs[index] = ours
        return theirs

    def _in_child(self) -> None:
        """In a freshly forked child: default signal handling, none of the supervisor's descriptors."""
        for signum in SUPERVISED:
            signal.signal(signum, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        self.listener.close()
        for fd in self._wake:
            os.close(fd)
        for ours in self.handoffs.values():
            ours.close()
        if self._builder is not None:
            os.close(self._builder)

    def _work(self, index: int, theirs: socket.socket) -> None:
        """Worker ``index`` in its forked process: never returns."""
        assert self.serve_worker is not None
        work(index, theirs, self._pid, self.serve_worker)

    def _build(self, indexes: list[int]) -> None:
        """Fork the builder, which prepares and forks workers ``indexes`` (see the class)."""
        theirs = {index: self._handoff(index) for index in indexes}
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the builder: never returns into the supervisor's stack
            code = 1
            try:
                os.close(report_r)
                self._in_child()
                try:
                    if self.prepare is not None:
                        self.prepare()
                except Exception:  # the workers then build their own
                    log.exception("the builder could not prepare the workers")
                _settle()
                for index, end in theirs.items():
                    worker = os.fork()
                    if worker == 0:
                        os.close(report_w)
                        for other in theirs.values():
                            if other is not end:
                                other.close()
                        self._work(index, end)
                    os.write(report_w, f"{index} {worker}\n".encode())
                code = 0
            except BaseException:
                log.exception("the builder failed")
            finally:
                os._exit(code)  # nothing it built is freed, so no page it shares is written
        os.close(report_w)
        for end in theirs.values():
            end.close()
        os.set_blocking(report_r, False)
        self._builder, self._builder_pid = report_r, pid
        self._pending = set(indexes)
        for index in indexes:
            self.started[index] = time.monotonic()
        log.info("builder started (pid %d) for workers %s", pid, indexes)

    def _read_builder(self, block: bool = False) -> None:
        """Take the worker pids the builder reported; at its end, restart what it did not fork."""
        if self._builder is None:
            return
        os.set_blocking(self._builder, block)
        while True:
            try:
                data = os.read(self._builder, 4096)
            except BlockingIOError:
                return
            if not data:
                break
            self._report += data
            *lines, self._report = self._report.split(b"\n")
            for line in lines:
                index, pid = (int(x) for x in line.split())
                self._register(index, pid)
        os.close(self._builder)
        self._builder = None
        for index in sorted(self._pending):
            log.warning("the builder did not start worker %d; starting it", index)
            self._due[index] = time.monotonic() + RESTART_DELAY
        self._pending.clear()

    def _register(self, index: int, pid: int) -> None:
        self._pending.discard(index)
        log.info("worker %d started (pid %d)", index, pid)
        if pid in self._ended:  # it ended before it was reported
            self._ended.discard(pid)
            self._due[index] = time.monotonic() + RESTART_DELAY
            return
        self.children[pid] = index

    def _spawn(self, index: int) -> None:
        theirs = self._handoff(index)
        pid = os.fork()
        if pid == 0:  # the worker: never returns into the supervisor's stack
            self._in_child()
            if self.lean:
                _relaunch(self.relaunch or [], index, theirs, self._pid)
            self._work(index, theirs)
        theirs.close()
        self.children[pid] = index
        self.started[index] = time.monotonic()
        log.info("worker %d started (pid %d)", index, pid)

    def _supervise(self, wake: int) -> int:
        while True:
            timeout = min((due - time.monotonic() for due in self._due.values()), default=1.0)
            watched = [self.listener.fileno(), wake, *(() if self._builder is None else (self._builder,))]
            readable, _, _ = select.select(watched, [], [], max(0.01, min(1.0, timeout)))
            if wake in readable:
                try:
                    while os.read(wake, 512):
                        pass
                except BlockingIOError:
                    pass
            while self._signals:
                signum = self._signals.pop(0)
                if signum in (signal.SIGINT, signal.SIGTERM):
                    return 0
                if signum in (signal.SIGHUP, signal.SIGUSR1):
                    self.signal_workers(signal.SIGHUP)
            if self._builder is not None and self._builder in readable:
                self._read_builder()
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
        live = sorted(set(self.children.values()) | self._pending)  # the builder's are on their way
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
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            index = self.children.pop(pid, None)
            if index is None:  # the builder, or one of its workers not reported yet
                if self._builder is not None:
                    self._ended.add(pid)
                continue
            lived = time.monotonic() - self.started.get(index, 0.0)
            log.warning("worker %d (pid %d) ended (%s); restarting it", index, pid, _describe(status))
            self._due[index] = time.monotonic() + (RESTART_DELAY if lived < FAST_DEATH else 0.0)

    def signal_workers(self, signum: int) -> None:
        for pid in list(self.children):
            _kill(pid, signum)

    def _stop(self) -> None:
        """Stop accepting; SIGTERM to every worker, wait up to the grace period, then SIGKILL what is left."""
        self.listener.close()
        if self._builder is not None:  # stop the builder; take what it forked so far
            _kill(self._builder_pid, signal.SIGKILL)
            self._read_builder(block=True)
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
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.children.clear()
        for handoff in self.handoffs.values():
            handoff.close()
        self.handoffs.clear()


#: the environment variable that tells a process started by the lean supervisor which worker it is:
#: ``index:fd:supervisor`` (its index, the descriptor of its handoff socket, the supervisor's pid)
WORKER_ENV = "LEX_SERVE_WORKER"

#: the lean supervisor's program (``python -I -S -c``): this module alone, from the project's root
LEAN_MAIN = ("import sys; sys.path.insert(0, {root!r}); from serve.workers import Supervisor; "
             "sys.exit(Supervisor.lean_from(sys.argv[1:]).run_lean())")


def work(index: int, handoff: socket.socket, supervisor: int,
         serve_worker: Callable[[int, socket.socket], int]) -> None:
    """Serve as worker ``index`` of the supervisor ``supervisor`` until it ends; never returns."""
    code = 1
    try:
        if _die_with_parent(supervisor):
            code = serve_worker(index, handoff)
    except BaseException:  # a worker's crash is logged; its exit status tells the supervisor
        log.exception("worker %d failed", index)
    finally:
        os._exit(code)


def _relaunch(command: Sequence[str], index: int, handoff: socket.socket, supervisor: int) -> None:
    """In a child of the lean supervisor: run ``command`` as worker ``index``; never returns."""
    try:
        os.set_inheritable(handoff.fileno(), True)
        environment = {**os.environ, WORKER_ENV: f"{index}:{handoff.fileno()}:{supervisor}"}
        os.execve(sys.executable, list(command), environment)  # command[0] may name no path
    except BaseException:
        log.exception("worker %d could not be started", index)
    finally:
        os._exit(1)


def relaunched_worker() -> tuple[int, socket.socket, int] | None:
    """In a process the lean supervisor started as a worker (:data:`WORKER_ENV`): its index, its
    handoff socket and the supervisor's pid (the variable is removed, so its own children do not
    see it); None in any other process."""
    given = os.environ.pop(WORKER_ENV, None)
    if not given:
        return None
    index, fd, supervisor = (int(part) for part in given.split(":"))
    handoff = socket.socket(fileno=fd)
    os.set_inheritable(fd, False)
    return index, handoff, supervisor


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
