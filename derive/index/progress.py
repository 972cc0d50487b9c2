"""Progress of an index build: phases, works done of total, MB/s, ETA — and the same figures as metadata.

The builder reports :class:`Progress` snapshots to an optional callback (the CLI draws them on a
terminal or logs them; the pipeline logs them) and returns :meth:`BuildMeter.metrics` in
:class:`derive.index.build.BuildResult`. Phases: ``dataset`` (rows read and validated; units are
characters of dataset rows), ``works`` (works assembled; units are works, with the characters of
provision text), ``finish`` (FTS merge, vocabulary, digest, ``ANALYZE``, ``VACUUM``; no total).
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Progress:
    publisher: str
    phase: str
    done: int
    total: int
    mb: float
    seconds: float

    @property
    def mb_per_s(self) -> float:
        return self.mb / self.seconds if self.seconds > 0 else 0.0

    @property
    def eta_seconds(self) -> float | None:
        if self.total <= 0 or self.done <= 0 or self.done >= self.total:
            return None
        return self.seconds * (self.total - self.done) / self.done

    def line(self) -> str:
        """``lu-legilux works 812/1399  58%  41.2 MB  9.8 MB/s  ETA 31 s``."""
        parts = [f"{self.publisher} {self.phase}"]
        if self.total > 0:
            parts.append(f"{self.done}/{self.total} {100 * self.done / self.total:3.0f}%")
        parts.append(f"{self.mb:.1f} MB {self.mb_per_s:.1f} MB/s")
        eta = self.eta_seconds
        parts.append(f"ETA {eta:.0f} s" if eta is not None else f"{self.seconds:.0f} s")
        return "  ".join(parts)


ProgressFn = Callable[[Progress], None]


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class BuildMeter:
    """Counts one build's phases; reports to ``report`` at most every ``every`` seconds per phase."""

    publisher: str
    report: ProgressFn | None = None
    every: float = 0.5
    _phase: str = ""
    _started: float = 0.0
    _last: float = 0.0
    _done: int = 0
    _total: int = 0
    _chars: int = 0
    _t0: float = field(default_factory=time.perf_counter)
    _cpu0: float = field(default_factory=_cpu_seconds)
    _phases: dict[str, dict[str, float]] = field(default_factory=dict)
    facts: dict[str, object] = field(default_factory=dict)

    def phase(self, name: str, total: int = 0) -> None:
        self._close()
        self._phase, self._total, self._done, self._chars = name, total, 0, 0
        self._started = self._last = time.perf_counter()
        self._emit(force=True)

    def advance(self, units: int = 0, chars: int = 0, *, done: int | None = None) -> None:
        self._done = done if done is not None else self._done + units
        self._chars += chars
        self._emit()

    def _snapshot(self) -> Progress:
        return Progress(self.publisher, self._phase, self._done, self._total, self._chars / 1e6,
                        time.perf_counter() - self._started)

    def _emit(self, force: bool = False) -> None:
        now = time.perf_counter()
        if self.report is None or not self._phase or (not force and now - self._last < self.every):
            return
        self._last = now
        self.report(self._snapshot())

    def _close(self) -> None:
        if not self._phase:
            return
        snap = self._snapshot()
        if self.report is not None:
            self.report(snap)
        self._phases[self._phase] = {"seconds": round(snap.seconds, 3), "units": snap.done,
                                     "mb": round(snap.mb, 3), "mb_per_s": round(snap.mb_per_s, 3)}
        self._phase = ""

    def metrics(self) -> dict[str, object]:
        """Wall and CPU seconds, per-phase figures, and the build's own facts (mode, works changed)."""
        self._close()
        return {"seconds": round(time.perf_counter() - self._t0, 3), "cpu_seconds": round(_cpu_seconds() - self._cpu0, 3),
                "phases": dict(self._phases), **self.facts}
