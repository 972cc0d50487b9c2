"""What a version record's validity events say about its ``valid_to`` — one reading for every package.

``interval_closed`` and ``validity_revised`` state the end they replaced in their ``detail``, in the
corpus writer's words (``valid_to=<new>``; ``valid_to: <old|null> -> <new|null>``) or in the exported
corpora's (``field=valid_to;old=<old>;new=<new>``). The dataset's transaction-time tables
(``derive.events``) and the serving core's ``known_on`` view (``serve.core.known``) both read them
through :func:`valid_to_change`, so the two answer "as known on" from the same facts.
"""

from __future__ import annotations

import datetime as _dt
import re

from legal.outcomes import RecordEvent

VALIDITY_EVENTS = frozenset({RecordEvent.INTERVAL_CLOSED.value, RecordEvent.VALIDITY_REVISED.value})

_END = r"\d{4}-\d{2}-\d{2}|null"
_VALID_TO_CHANGE = re.compile(
    rf"field=valid_to;(?:old=(?P<old1>{_END}|);)?new=(?P<new1>{_END}|)"   # as the exported corpora state it
    rf"|valid_to=(?P<new2>{_END})"                                        # the writer's interval_closed
    rf"|valid_to: (?P<old3>{_END}) -> (?P<new3>{_END})")                   # the writer's validity_revised


def _end(text: str | None) -> str | None:
    """An end as stated in an event (``null``/empty: none); raises ValueError when not a date."""
    if text in (None, "", "null"):
        return None
    assert text is not None
    return _dt.date.fromisoformat(text).isoformat()


def valid_to_change(event: str, detail: str | None) -> tuple[str | None, str | None] | None:
    """``(old, new)`` ``valid_to`` of an ``interval_closed``/``validity_revised`` event (before an
    ``interval_closed`` the end was open, whatever its detail), or ``None`` when the event is not
    one or a ``validity_revised`` detail does not state the old end as a date (``new`` is ``None``
    when the detail does not state it)."""
    if event not in VALIDITY_EVENTS:
        return None
    found = _VALID_TO_CHANGE.fullmatch(detail or "")
    try:
        new = None if found is None else _end(found["new1"] if found["new1"] is not None
                                               else found["new2"] or found["new3"])
    except ValueError:
        new = None
    if event == RecordEvent.INTERVAL_CLOSED.value:
        return None, new
    old = None if found is None else found["old1"] if found["old1"] is not None else found["old3"]
    try:
        return None if old is None else (_end(old), new)
    except ValueError:
        return None
