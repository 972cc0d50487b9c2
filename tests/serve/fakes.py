"""Failure injection around the *real* legal core: slow or held calls (admission and deadlines).

There is no stand-in core with its own schemas: :class:`DelayedBackend` mounts the real
:class:`serve.core.LegalCore` (whose ``OPERATIONS`` are the only schemas) and only delays or
holds each call, so saturation and deadline behaviour can be provoked deterministically.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from serve.app import LegalCoreBackend
from serve.mount import ArtifactIdentity, Core


class DelayedCore:
    """The real core, each call delayed by ``delay`` seconds and/or held until ``hold`` is set."""

    def __init__(self, core: Any, delay: float = 0.0, hold: threading.Event | None = None) -> None:
        self.core = core
        self.delay = delay
        self.hold = hold
        self.publishers = tuple(getattr(core, "publishers", ()))

    def call(self, operation: str, arguments: Mapping[str, Any]) -> Any:
        if self.delay:
            time.sleep(self.delay)
        if self.hold is not None:
            self.hold.wait(10.0)
        return self.core.call(operation, arguments)

    def close(self) -> None:
        self.core.close()


class DelayedBackend(LegalCoreBackend):
    """:class:`serve.app.LegalCoreBackend` whose cores are :class:`DelayedCore`."""

    def __init__(self, delay: float = 0.0, hold: threading.Event | None = None) -> None:
        super().__init__()
        self.delay = delay
        self.hold = hold

    def empty(self) -> Core:
        return DelayedCore(super().empty(), self.delay, self.hold)

    def mount(self, directory: Path, artifact: ArtifactIdentity) -> Core:
        return DelayedCore(super().mount(directory, artifact), self.delay, self.hold)
