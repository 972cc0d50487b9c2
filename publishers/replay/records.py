"""Record-level helpers of the replay: plain dicts of the current records, and the faults that
change *what the publisher says* (withdrawn records, a same-day state added, shuffled order).

Projections work on plain record dicts (``VersionRecord.to_dict()``) so that a fault can
clone or drop records without touching the source tree. How a same-day twin's official URIs
follow its identifier is the publisher's rule (its replay projection's ``clone``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from legal.ids import Publisher
from publishers.replay.projection import Record, alt_observations, primary_observation


def state_records(records: Iterable[Mapping[str, Any]], *, withdrawn: Iterable[str] = (),
                  same_day: Sequence[Mapping[str, str]] = (), shuffle_seed: int | None = None,
                  publisher: Publisher) -> list[Record]:
    """The records the replay publishes after the record-level faults."""
    gone = set(withdrawn)
    out = [dict(r) for r in records if r["publisher_version_identifier"] not in gone]
    by_pvid = {r["publisher_version_identifier"]: r for r in out}
    for twin in same_day:
        original = by_pvid.get(twin["of"])
        if original is not None and twin["identifier"] not in by_pvid:
            out.append(clone(original, twin["identifier"], publisher))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(out)
    return out


def clone(record: Mapping[str, Any], identifier: str, publisher: Publisher) -> Record:
    """A same-day twin of ``record`` under another publisher version identifier.

    Official URIs derived from the identifier follow it (the publisher's replay projection
    says which); bodies are shared. A publisher without a replay projection is
    ``replay_unsupported_publisher``.
    """
    from publishers.registry import replay_projection

    return replay_projection(publisher).clone(record, identifier)


__all__ = ["Record", "alt_observations", "clone", "primary_observation", "state_records"]
