"""Verify, then mount: what the server serves from, and the one way to call it.

The server is configured with an index directory *or* a release root (whose ``current``
pointer names the artifact set) and with pinned trust-root public keys taken from
configuration, never from the artifact directory. :func:`verify_then_mount` verifies the
whole artifact set (:func:`release.verify_artifact_set`: signature by a pinned key, then
every file's size and SHA-256, nothing missing, nothing extra) *before* the legal core opens
anything. A refusal mounts nothing and keeps its typed reason, which ``/readyz`` reports.

``--unsigned-dev`` skips verification for a local index directory; the artifact identity then
says ``signed: false`` everywhere it is shown.

:class:`ServeState` holds what is mounted now and runs every legal-core call through the
admission :class:`serve.admission.Gate` on a small thread pool; the steps of one page (its core
calls, its word diff, its rendering) share one slot (:meth:`ServeState.admitted`). With an answer cache
(``answer_cache`` bytes, :mod:`serve.answers`; ``lex serve --answer-cache``) a call asked before
of the same mounted set is answered from the bytes of its first answer, without a slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import hashlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from legal.errors import ConfigError, LexError
from serve.admission import AdmissionLimits, Gate
from serve.answers import AnswerCache
from serve.http.encoding import compact, exact, loads

log = logging.getLogger("serve")
_T = TypeVar("_T")

MountStatus = Literal["pending", "mounted", "refused"]


class Core(Protocol):
    """The legal core as the shells use it."""

    def call(self, operation: str, arguments: Mapping[str, Any]) -> Any: ...


@runtime_checkable
class DiffPageCore(Protocol):
    """A core that also answers what the web diff page needs and nothing more
    (:class:`serve.core.LegalCore`): a ``diff`` without word spans, and stored texts read by their
    hash (the changed provisions' wordings, from the hashes the ``diff`` answer carries). A core
    without these is asked ``diff`` and ``as_of`` instead."""

    def diff_without_word_spans(self, args: Mapping[str, Any]) -> Any: ...

    def stored_texts(self, publisher: str, shas: Sequence[str]) -> Mapping[str, str]: ...


class CoreBackend(Protocol):
    """How to obtain a legal core: empty (nothing mounted) or over a verified directory."""

    def empty(self) -> Core: ...

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> Core: ...

    def publishers(self, core: Core) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class MountConfig:
    """Where the artifact set is and which keys may sign it (all from configuration)."""

    index_dir: Path | None = None
    release_root: Path | None = None
    trust_roots: tuple[Path, ...] = ()
    unsigned_dev: bool = False
    required_publishers: tuple[str, ...] = ()


@dataclass(frozen=True)
class ArtifactIdentity:
    """The identity of the mounted artifact set, shown in envelopes, pages and ``/readyz``."""

    set_id: str
    signed: bool
    key_ids: tuple[str, ...] = ()
    source: str = "index_dir"
    name: str = ""
    files: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"set_id": self.set_id, "signed": self.signed, "key_ids": list(self.key_ids),
                "source": self.source, "name": self.name}

    @property
    def short(self) -> str:
        prefix = "" if self.signed else "unsigned-dev "
        return f"{prefix}{self.set_id[:16]}"


@dataclass(frozen=True)
class Refusal:
    """Why nothing is mounted: a typed reason (family, code, message, subject)."""

    family: str
    code: str
    message: str
    subject: str | None = None

    @classmethod
    def of(cls, error: LexError) -> Refusal:
        return cls(error.family, error.code, error.message, _safe_subject(error.subject))

    def to_dict(self) -> dict[str, str]:
        out = {"family": self.family, "code": self.code, "message": self.message}
        if self.subject is not None:
            out["subject"] = self.subject
        return out


def _safe_subject(subject: str | None) -> str | None:
    """Never hand out a machine-absolute path: keep only its last component."""
    if subject is None:
        return None
    return Path(subject).name if subject.startswith("/") else subject


@dataclass(frozen=True)
class Mounted:
    """What is served now: a core (possibly empty) and either an identity or a refusal."""

    core: Core
    status: MountStatus
    artifact: ArtifactIdentity | None = None
    refusal: Refusal | None = None
    publishers: tuple[str, ...] = ()
    required: tuple[str, ...] = ()

    @property
    def missing_publishers(self) -> tuple[str, ...]:
        return tuple(p for p in self.required if p not in self.publishers)

    @property
    def ready(self) -> bool:
        return self.status == "mounted" and bool(self.publishers) and not self.missing_publishers

    def readiness(self) -> dict[str, Any]:
        """The ``/readyz`` document."""
        issues = [f"{p}:not_mounted" for p in self.missing_publishers]
        if self.status == "mounted" and not self.publishers:
            issues.append("no_index_mounted")
        if self.artifact is not None and not self.artifact.signed:
            issues.append("artifact_unsigned_dev")
        return {
            "ready": self.ready,
            "status": self.status,
            "reason": self.refusal.to_dict() if self.refusal else None,
            "artifact": self.artifact.to_dict() if self.artifact else None,
            "mounted_publishers": list(self.publishers),
            "required_publishers": list(self.required),
            "issues": issues,
        }


PENDING = Refusal("serve", "mount_pending", "the artifact set is being verified")


def artifact_directory(config: MountConfig) -> tuple[Path, str]:
    """The directory to verify and mount, and which setting named it."""
    if (config.index_dir is None) == (config.release_root is None):
        raise ConfigError("configure exactly one of an index directory or a release root",
                          code="no_artifact_source")
    if config.index_dir is not None:
        return Path(config.index_dir), "index_dir"
    from release import current_set

    assert config.release_root is not None
    if not Path(config.release_root).is_dir():
        raise ConfigError("the release root does not exist", code="release_root_missing",
                          subject=Path(config.release_root).name)
    current = current_set(Path(config.release_root))
    if current is None:
        raise ConfigError("the release root has no current artifact set", code="no_current_set")
    return current, "release_root"


def verify(directory: Path, source: str, config: MountConfig) -> ArtifactIdentity:
    """Verify the artifact set (or, with ``unsigned_dev``, only describe it)."""
    if config.unsigned_dev:
        return unsigned_identity(directory, source)
    if not config.trust_roots:
        raise ConfigError("no trust roots configured; pass --trust-root (or --unsigned-dev)",
                          code="no_trust_roots")
    from release import verify_artifact_set

    verified = verify_artifact_set(directory, config.trust_roots)
    return ArtifactIdentity(verified.set_id, True, tuple(verified.key_ids), source, directory.name,
                            tuple(sorted(verified.subjects)))


def unsigned_identity(directory: Path, source: str) -> ArtifactIdentity:
    """An identity for an unverified development directory: a digest of its listing."""
    if not directory.is_dir():
        raise ConfigError("the index directory does not exist", code="not_a_directory", subject=directory.name)
    listing = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())
    lines = "".join(f"{name}\t{(directory / name).stat().st_size}\n" for name in listing)
    digest = hashlib.sha256(lines.encode("utf-8")).hexdigest()
    return ArtifactIdentity(f"unsigned-{digest}", False, (), source, directory.name, tuple(listing))


INDEXES_SUBDIR = "indexes"


def index_directory(directory: Path) -> Path:
    """Where the publisher indexes of a set are: ``<set>/indexes/`` when present, else the set."""
    nested = directory / INDEXES_SUBDIR
    return nested if nested.is_dir() else directory


def verify_then_mount(config: MountConfig, backend: CoreBackend) -> Mounted:
    """Verify the configured artifact set, then mount it; a refusal mounts nothing."""
    try:
        directory, source = artifact_directory(config)
        artifact = verify(directory, source, config)
    except LexError as error:
        return Mounted(backend.empty(), "refused", refusal=Refusal.of(error), required=config.required_publishers)
    try:
        core = backend.mount(index_directory(directory), artifact)
    except LexError as error:
        return Mounted(backend.empty(), "refused", artifact=artifact, refusal=Refusal.of(error),
                       required=config.required_publishers)
    return Mounted(core, "mounted", artifact=artifact, publishers=backend.publishers(core),
                   required=config.required_publishers)


def settle_heap() -> None:
    """Collect, then freeze what is alive (``gc.freeze``): the mounted tables of a full release
    (tens of thousands of objects that live as long as the mount) are no longer traversed by each
    full collection of a worker (measured 43–79 ms of CPU per collection under load before, a
    request's worth of latency each time). Frozen objects are still freed by reference counting;
    only cycles among them wait, until the next mount unfreezes them (:meth:`ServeState.mount`)."""
    gc.collect()
    gc.freeze()


@dataclass
class ServeState:
    """What the server serves now, and the admitted way to call the legal core."""

    config: MountConfig
    backend: CoreBackend
    limits: AdmissionLimits = field(default_factory=AdmissionLimits)
    #: this process's worker number under ``lex serve --workers N`` (``None``: a single process)
    worker: int | None = None
    #: called when this process's set becomes refused (a refused mount, or a re-verification that
    #: unmounted it); under several workers it asks the supervisor to make every worker re-verify
    on_refusal: Callable[[], None] | None = None
    #: bytes of compressed answers kept per mounted set (:mod:`serve.answers`; 0: none kept)
    answer_cache: int = 0
    mounted: Mounted = field(init=False)
    gate: Gate = field(init=False)
    _pool: ThreadPoolExecutor = field(init=False, repr=False)

    _reverify_requested: threading.Event = field(init=False, repr=False)
    _verified_at: float = field(init=False, default=0.0)

    def __post_init__(self) -> None:
        self.mounted = Mounted(self.backend.empty(), "pending", refusal=PENDING,
                               required=self.config.required_publishers)
        self.gate = Gate(self.limits.executing, self.limits.queued, self.limits.queue_deadline)
        self._pool = ThreadPoolExecutor(self.limits.executing, thread_name_prefix="lex-core")
        self._reverify_requested = threading.Event()
        self._answers = AnswerCache(0)

    def answers(self, mounted: Mounted | None = None) -> AnswerCache | None:
        """The answer cache of ``mounted`` (default: what is mounted now): a new one whenever what
        is served changed; None when nothing is kept (no budget, or no set mounted)."""
        mounted = mounted or self.mounted
        if self.answer_cache <= 0 or mounted.status != "mounted":
            return None
        if self._answers.owner is not mounted.core:
            self._answers = AnswerCache(self.answer_cache, owner=mounted.core)
        return self._answers

    def answer_stats(self) -> dict[str, int] | None:
        """The counters of the mounted set's answer cache (``/readyz``); None without a budget."""
        if self.answer_cache <= 0:
            return None
        cache = self.answers()
        return (cache or AnswerCache(self.answer_cache)).stats()  # nothing mounted: nothing kept

    def mount(self) -> Mounted:
        """Verify then mount now (blocking); the new state replaces the old one atomically. In a
        worker of ``lex serve --workers N`` the mounted set's objects are then frozen out of the
        collector (:func:`settle_heap`)."""
        before = self.mounted.status
        if self.worker is not None and before == "mounted":
            gc.unfreeze()  # the set being replaced goes back to the collector: once dropped, its cycles are freed
        self.mounted = verify_then_mount(self.config, self.backend)
        self._verified_at = time.monotonic()
        if self.worker is not None:
            settle_heap()
        if self.mounted.status == "refused" and before != "refused":
            self._refused()
        return self.mounted

    def _refused(self) -> None:
        if self.on_refusal is not None:
            try:
                self.on_refusal()
            except Exception:  # telling others must never break this process's state
                log.exception("could not report the refusal")

    # -- re-verification (on a schedule and on SIGHUP) -------------------------------------

    def request_reverify(self) -> None:
        """Ask for a re-verification at the next scheduler tick (the SIGHUP handler calls this)."""
        self._reverify_requested.set()

    def reverify_due(self, interval: float | None) -> bool:
        """True when a re-verification was requested, or ``interval`` seconds have passed."""
        if self._reverify_requested.is_set():
            return True
        return bool(interval) and time.monotonic() - self._verified_at >= float(interval or 0)

    def reverify(self) -> Mounted:
        """Verify the mounted set again (signature and every file; for a release root, that the
        ledger still names it current). A mismatch unmounts it: every answer is then
        ``no_corpus_mounted`` with the reason, and ``/readyz`` 503. A set that was refused, or
        that the ledger has replaced (promotion, rollback), is verified and mounted afresh."""
        self._reverify_requested.clear()
        before = self.mounted
        if self.config.unsigned_dev and before.status == "mounted":
            self._verified_at = time.monotonic()
            return before
        if before.status != "mounted" or before.artifact is None:
            return self.mount()
        try:
            directory, source = artifact_directory(self.config)
            artifact = verify(directory, source, self.config)
        except LexError as error:
            return self._unmount(error)
        self._verified_at = time.monotonic()
        if artifact.set_id != before.artifact.set_id:
            log.warning("the current artifact set changed (%s -> %s): mounting it", before.artifact.set_id,
                        artifact.set_id)
            return self.mount()
        return before

    def _unmount(self, error: LexError) -> Mounted:
        refusal = Refusal.of(error)
        previous = self.mounted
        self.mounted = Mounted(self.backend.empty(), "refused", artifact=None, refusal=refusal,
                               required=self.config.required_publishers)
        self._verified_at = time.monotonic()
        log.error("re-verification refused the mounted artifact set %s: %s/%s %s; unmounted",
                  previous.artifact.set_id if previous.artifact else "?", refusal.family, refusal.code,
                  refusal.message)
        self._refused()
        # the previous core is not closed here: calls admitted before the switch may still use it;
        # it is released (and its read-only connections closed) when the last of them finishes.
        return self.mounted

    def adopt(self, mounted: Mounted) -> None:
        """Serve an already mounted state (tests, embedding)."""
        self.mounted = replace(mounted)

    async def call(self, operation: str, arguments: Mapping[str, Any], *, keep: bool = True) -> Any:
        """Call the legal core through the gate; the slot is held until the thread finishes. A call
        answered before (the answer cache) is decoded from its kept bytes: a fresh value each time.
        With ``keep`` False a new answer is not kept (a kept page's own calls: the page is kept)."""
        key, kept = self._remembered(operation, arguments)
        if kept is not None:
            return loads(kept)
        answer, mounted = await self._answer(operation, arguments)
        if keep and key is not None and (cache := self.answers(mounted)) is not None \
                and (encoded := exact(answer)) is not None:
            cache.put(key, encoded)
        return answer

    async def call_encoded(self, operation: str, arguments: Mapping[str, Any]) -> bytes:
        """:meth:`call`, as the answer's compact JSON bytes (:func:`serve.http.encoding.compact`)."""
        key, kept = self._remembered(operation, arguments)
        if kept is not None:
            return kept
        answer, mounted = await self._answer(operation, arguments)
        encoded = exact(answer)
        if encoded is None:  # not to be kept: its bytes would not read back as the same answer
            return compact(answer)
        if key is not None and (cache := self.answers(mounted)) is not None:
            cache.put(key, encoded)
        return encoded

    async def call_with_bytes(self, operation: str, arguments: Mapping[str, Any]) -> tuple[Any, bytes]:
        """:meth:`call`'s answer together with its compact JSON bytes (:meth:`call_encoded`'s), encoded
        once: a kept answer's bytes are the kept ones (decoded once for the answer), a new answer's are
        the bytes the cache keeps (the MCP tool result's text and structured content)."""
        key, kept = self._remembered(operation, arguments)
        if kept is not None:
            return loads(kept), kept
        answer, mounted = await self._answer(operation, arguments)
        encoded = exact(answer)
        if encoded is None:  # not to be kept: its bytes would not read back as the same answer
            return answer, compact(answer)
        if key is not None and (cache := self.answers(mounted)) is not None:
            cache.put(key, encoded)
        return answer, encoded

    async def call_then(self, operation: str, arguments: Mapping[str, Any], then: Callable[[Any], _T]) -> _T:
        """``then(answer)`` of :meth:`call`'s answer (a new answer is not kept), run in the same step on
        the worker pool as the core's call: a page shaped and rendered from one answer is one hand-off
        between the event loop and the pool, not two. An answer kept before is decoded here and
        ``then`` runs in a step of its own."""
        _, kept = self._remembered(operation, arguments)
        if kept is not None:
            return await self.run(then, loads(kept))

        def step() -> _T:
            answer = self.mounted.core.call(operation, dict(arguments))
            return then(with_refusal(answer, self.mounted.refusal))

        return await self.run(step)

    def _remembered(self, operation: str, arguments: Mapping[str, Any]) -> tuple[bytes | None, bytes | None]:
        """The cache key of a call (None: nothing is kept) and the bytes kept under it, if any."""
        cache = self.answers()
        if cache is None:
            return None, None
        key = cache.key(operation, arguments)
        return key, (None if key is None else cache.get(key))

    async def _answer(self, operation: str, arguments: Mapping[str, Any]) -> tuple[Any, Mounted]:
        """The core's answer through the gate, and the mounted state whose core gave it."""
        future, mounted = await self._submit(None, operation, dict(arguments))
        answer = await asyncio.wrap_future(future)
        return with_refusal(answer, self.mounted.refusal), mounted

    async def run(self, function: Callable[..., _T], *args: Any) -> _T:
        """Run CPU-bound page shaping (a word diff) through the same gate, on the worker pool."""
        future, _ = await self._submit(function, *args)
        result: _T = await asyncio.wrap_future(future)
        return result

    async def _submit(self, function: Callable[..., Any] | None, *args: Any) -> tuple[Future[Any], Mounted]:
        """``function(*args)`` (None: the mounted core's ``call``) submitted to the pool with a slot
        of the gate: the slot of the page this runs for (:meth:`admitted`), taken on its first step
        and kept, or one of its own, given back when the function finishes; and the mounted state
        it was submitted for."""
        held = _HELD.get()
        if held is None or not held.holding:
            await self.gate.acquire()
            if held is not None:
                held.holding = True
        mounted = self.mounted
        try:
            future = self._pool.submit(function or mounted.core.call, *args)
        except BaseException:
            if held is None:
                self.gate.release()
            raise
        if held is None:
            future.add_done_callback(_releaser(self.gate))
        else:
            held.running.append(future)
        return future, mounted

    @contextlib.asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        """One slot of the gate for every step run within the block (:meth:`call`, :meth:`run`):
        a page's core calls, its word diff and its rendering run one after the other, so the page
        waits in the gate's queue once, not before each step (a diff page took three turns). The
        slot is taken by the first step (a page answered without the core takes none) and given
        back when the block ends, or, if it ends while a step still runs (its deadline passed),
        when the last such step finishes: the core never runs more than ``executing`` calls. A
        block within a block shares the outer one's slot."""
        if _HELD.get() is not None:
            yield
            return
        held = _Held()
        token = _HELD.set(held)
        try:
            yield
        finally:
            _HELD.reset(token)
            if held.holding:
                held.release_after(self.gate)

    def close(self) -> None:
        """Stop the worker pool and close the mounted indexes."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        closer = getattr(self.mounted.core, "close", None)
        if callable(closer):
            closer()


NO_CORPUS = "no_corpus_mounted"


def with_refusal(answer: Any, refusal: Refusal | None) -> Any:
    """A ``no_corpus_mounted`` answer carries why nothing is mounted (``reason``)."""
    if refusal is None or not isinstance(answer, dict) or answer.get("outcome") != NO_CORPUS:
        return answer
    return {**answer, "reason": refusal.to_dict()}


class _Held:
    """The gate slot of one :meth:`ServeState.admitted` block: whether it is taken, and the steps
    submitted under it."""

    __slots__ = ("holding", "running")

    def __init__(self) -> None:
        self.holding = False
        self.running: list[Future[Any]] = []

    def release_after(self, gate: Gate) -> None:
        """Give the slot back once every step submitted under it has finished (now, if all have)."""
        left = [future for future in self.running if not future.done()]
        if not left:
            gate.release()
            return
        count = [len(left)]
        lock = threading.Lock()

        def finished(_future: object) -> None:
            with lock:
                count[0] -= 1
                last = count[0] == 0
            if last:
                gate.release()

        for future in left:
            future.add_done_callback(finished)


#: The slot held by the page being answered in this task (:meth:`ServeState.admitted`), if any.
_HELD: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("lex_admitted", default=None)


def _releaser(gate: Gate) -> Callable[[object], None]:
    def release(_future: object) -> None:
        gate.release()

    return release
