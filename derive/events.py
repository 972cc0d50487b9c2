"""Transaction time in the dataset (docs/derive.md §6.6): what the evidence store held, and since when.

The version records carry their own transaction time: append-only events (``first_sighting``,
``metadata_revised``, ``expression_added``, ``interval_closed``, ``validity_revised``,
``withdrawn_from_source``, ``resighted``), each with the instant ``observed_from`` it was
recorded, and observations with the instant their body was seen. Three things carry it into the
dataset, so that "as known on" queries are plain filters:

- ``first_observed`` on every provisions row (:func:`first_observed`): the first instant the
  store held both the version and the body the row was derived from (the later of the version's
  ``first_sighting`` and that observation's ``retrieved_at``, else ``observed_from``);
- ``version_events.parquet`` (:data:`EVENTS_SCHEMA`): one row per event of every version
  record, verbatim, in record order (``seq``);
- ``version_visibility.parquet`` (:data:`VISIBILITY_SCHEMA`): per version, the intervals of
  transaction time ``[known_from, known_to)`` during which it was held as a current publisher
  version (opened by ``first_sighting`` and ``resighted``, closed by ``withdrawn_from_source``;
  ``known_to`` null = still held), each with the version's valid time *as known then*: an
  ``interval_closed`` or ``validity_revised`` that changed ``valid_to`` ends one interval and
  starts the next (the old end is read from the event's ``detail``, in the writer's form or the
  exported corpora's).

Rows are built as plain JSON-able dicts (instants as ``YYYY-MM-DDTHH:MM:SSZ`` strings) — the
per-work cache holds them as they are — and typed when a table is made (:func:`events_table`,
:func:`visibility_table`): instants become ``timestamp[ms, UTC]``, dates ``date32``,
low-cardinality strings dictionaries.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from corpus_tree import Observation, VersionRecord
from corpus_tree.records import Event
from derive.parquet import DICT, TIMESTAMP
from legal.canonical import canonical_bytes
from legal.record_events import VALIDITY_EVENTS
from legal.record_events import valid_to_change as record_valid_to_change

OPENS = frozenset({"first_sighting", "resighted"})
CLOSES = frozenset({"withdrawn_from_source"})

EVENT_COLUMNS = ("work_id", "publisher", "lex_id", "version_key", "seq", "event", "observed_from", "scope",
                 "detail")
VISIBILITY_COLUMNS = ("work_id", "publisher", "lex_id", "version_key", "interval", "known_from", "known_to",
                      "opened_by", "closed_by", "valid_from", "valid_to", "valid_to_exclusive")

EVENTS_SCHEMA = pa.schema([
    ("work_id", pa.string()), ("publisher", DICT), ("lex_id", pa.string()), ("version_key", pa.string()),
    ("seq", pa.int32()), ("event", DICT), ("observed_from", TIMESTAMP), ("scope", pa.string()),
    ("detail", pa.string()),
])
VISIBILITY_SCHEMA = pa.schema([
    ("work_id", pa.string()), ("publisher", DICT), ("lex_id", pa.string()), ("version_key", pa.string()),
    ("interval", pa.int32()), ("known_from", TIMESTAMP), ("known_to", TIMESTAMP), ("opened_by", DICT),
    ("closed_by", DICT), ("valid_from", pa.date32()), ("valid_to", pa.date32()), ("valid_to_exclusive", pa.date32()),
])


def plain(schema: pa.Schema) -> pa.Schema:
    """The schema rows are built in: dictionaries, instants and dates as strings."""
    return pa.schema([pa.field(f.name, pa.string()) if f.type in (DICT, TIMESTAMP, pa.date32()) else f
                      for f in schema])


def instant(text: str | None) -> str | None:
    """A record's instant as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC), or ``None`` when it is not one."""
    if not text:
        return None
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def first_sighting(version: VersionRecord) -> str | None:
    """When the store first held the version: its ``first_sighting`` (else its earliest event)."""
    stamps = [instant(e.observed_from) for e in version.events if e.event.value == "first_sighting"]
    if not any(stamps):
        stamps = [instant(e.observed_from) for e in version.events]
    found = [s for s in stamps if s]
    return min(found) if found else None


def first_observed(version: VersionRecord, observation: Observation) -> str | None:
    """When the store first held this version *and* this body: the later of the version's first
    sighting and the observation's ``retrieved_at`` (the run that fetched it wrote it; else its
    ``observed_from``). Rows derive from the latest observation of their file, so from this instant
    on the body held for the file has been this one."""
    seen = [s for s in (first_sighting(version), instant(observation.retrieved_at or observation.observed_from)) if s]
    return max(seen) if seen else None


def event_rows(version: VersionRecord) -> list[dict[str, Any]]:
    """One row per event of ``version``, verbatim, ``seq`` in record order (0-based)."""
    base = {"work_id": str(version.work_id), "publisher": version.publisher.value, "lex_id": version.lex_id,
            "version_key": str(version.version_key)}
    return [{**base, "seq": seq, "event": e.event.value, "observed_from": instant(e.observed_from),
             "scope": e.scope, "detail": e.detail} for seq, e in enumerate(version.events)]


def valid_to_change(event: Event) -> tuple[str | None, str | None] | None:
    """``(old, new)`` ``valid_to`` of a version-scoped validity event
    (:func:`legal.record_events.valid_to_change`), ``None`` for any other event."""
    if event.scope not in (None, "version"):
        return None
    return record_valid_to_change(event.event.value, event.detail)


def valid_to_as_known(version: VersionRecord) -> list[str | None]:
    """The version's ``valid_to`` as known right after each of its events (record order).

    Read backwards from the record's current ``valid_to``: before each ``interval_closed`` /
    ``validity_revised`` it was that event's old end. A validity event whose detail does not
    state the old end leaves the earlier ends as they are."""
    out: list[str | None] = []
    current = version.valid_to
    for e in reversed(version.events):
        out.append(current)
        change = valid_to_change(e)
        if change is not None:
            current = change[0]
    return out[::-1]


def _exclusive(valid_to: str | None, convention: str) -> str | None:
    if valid_to is None:
        return None
    try:
        end = _dt.date.fromisoformat(valid_to)
    except ValueError:
        return None
    if convention == "inclusive":
        end += _dt.timedelta(days=1)
    return end.isoformat()


def visibility_rows(version: VersionRecord) -> list[dict[str, Any]]:
    """The intervals ``[known_from, known_to)`` during which ``version`` was held as current, each
    with the version's valid time as known then.

    A ``first_sighting`` or ``resighted`` opens an interval (when none is open), a
    ``withdrawn_from_source`` closes the open one, and an ``interval_closed`` or
    ``validity_revised`` that changes ``valid_to`` (:func:`valid_to_as_known`) closes it and opens
    the next with the new end; other events change nothing (but the record's first event opens
    the first interval whatever it is: a record starts held). The last interval stays open
    (``known_to`` null) unless the version is withdrawn now."""
    base = {"work_id": str(version.work_id), "publisher": version.publisher.value, "lex_id": version.lex_id,
            "version_key": str(version.version_key), "valid_from": version.valid_from}
    convention = version.valid_to_convention.value
    ends = valid_to_as_known(version)
    rows: list[dict[str, Any]] = []
    open_row: dict[str, Any] | None = None

    def start(stamp: str, name: str, valid_to: str | None) -> dict[str, Any]:
        row = {**base, "interval": len(rows) + 1, "known_from": stamp, "known_to": None, "opened_by": name,
               "closed_by": None, "valid_to": valid_to, "valid_to_exclusive": _exclusive(valid_to, convention)}
        rows.append(row)
        return row

    for number, e in enumerate(version.events):
        name, stamp = e.event.value, instant(e.observed_from)
        if stamp is None:
            continue
        opens = name in OPENS or (number == 0 and name not in CLOSES)  # a record starts held
        if opens and open_row is None:
            open_row = start(stamp, name, ends[number])
        elif name in CLOSES and open_row is not None:
            open_row["known_to"], open_row["closed_by"] = stamp, name
            open_row = None
        elif name in VALIDITY_EVENTS and open_row is not None and ends[number] != open_row["valid_to"]:
            if stamp == open_row["known_from"]:  # revised in the run that opened it: one interval
                open_row["valid_to"], open_row["valid_to_exclusive"] = ends[number], _exclusive(ends[number], convention)
                continue
            open_row["known_to"], open_row["closed_by"] = stamp, name
            open_row = start(stamp, name, ends[number])
    return [{k: row[k] for k in VISIBILITY_COLUMNS} for row in rows]


def work_transaction_rows(versions: Sequence[VersionRecord]) -> dict[str, list[dict[str, Any]]]:
    """Both tables' rows of one work (versions in :func:`derive.dataset.load_versions` order)."""
    return {"events": [r for v in versions for r in event_rows(v)],
            "visibility": [r for v in versions for r in visibility_rows(v)]}


def _table(rows: Iterable[Mapping[str, Any]], schema: pa.Schema) -> tuple[pa.Table, int]:
    listed = list(rows)
    return pa.Table.from_pylist(listed, schema=plain(schema)), len(canonical_bytes(listed))


def events_table(rows: Iterable[Mapping[str, Any]]) -> tuple[pa.Table, int]:
    """Event rows as a table of ``plain(EVENTS_SCHEMA)`` and a size for the sink's row-group bound."""
    return _table(rows, EVENTS_SCHEMA)


def visibility_table(rows: Iterable[Mapping[str, Any]]) -> tuple[pa.Table, int]:
    """Visibility rows as a table of ``plain(VISIBILITY_SCHEMA)`` and a size for the row-group bound."""
    return _table(rows, VISIBILITY_SCHEMA)
