"""A corpus tree with a withdrawn and a resighted version, from real fixture records.

The records of one real EUR-Lex work (Regulation (EU) 2019/401: the original of 2018-12-19 and
the consolidated state of 2019-03-14, both with English and French bodies) are turned back into
the writer's inputs and applied as the publisher's enumerations of four successive nights
(:data:`NIGHTS`), so the tree records its own transaction time through
:func:`corpus_tree.writer.apply_enumeration`:

- night 1 lists the original only, still open-ended (``first_sighting``);
- night 2 lists both, the original now ending on 2019-03-13 (its ``interval_closed``, the
  consolidated state's ``first_sighting``);
- night 3 lists the original only (the consolidated state is ``withdrawn_from_source``);
- night 4 lists both again (``resighted``).

Bodies are the fixture tree's evidence files, read in place.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

from corpus_tree import CorpusTree, VersionRecord
from corpus_tree.model import (
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
)
from corpus_tree.records import WorkRecord
from corpus_tree.writer import apply_enumeration
from legal.ids import Publisher

SLUG = "32019r0401"
WORK_ID = f"eu-eurlex:{SLUG}"
ORIGINAL, CONSOLIDATED = "2018-12-19", "2019-03-14"
OPEN_ON_NIGHT_1 = ORIGINAL  # listed without its end on the first night
NIGHTS = (
    (_dt.datetime(2026, 9, 1, 6, tzinfo=_dt.UTC), (ORIGINAL,)),
    (_dt.datetime(2026, 9, 8, 6, tzinfo=_dt.UTC), (ORIGINAL, CONSOLIDATED)),
    (_dt.datetime(2026, 9, 15, 6, tzinfo=_dt.UTC), (ORIGINAL,)),
    (_dt.datetime(2026, 9, 22, 6, tzinfo=_dt.UTC), (ORIGINAL, CONSOLIDATED)),
)


def _date(text: str | None) -> _dt.date | None:
    return None if text is None else _dt.date.fromisoformat(text)


def _work_input(work: WorkRecord) -> WorkInput:
    return WorkInput(work.slug, work.work_identifier, work.document_type, work.title, work.title_language,
                     work.source_uri)


def _version_input(version: VersionRecord, slug: str, seen: _dt.datetime, open_ended: bool = False) -> VersionInput:
    """The writer's input that lists ``version`` as its publisher gives it (without its end when
    ``open_ended``); bodies retrieved at ``seen``."""
    expressions = tuple(
        ExpressionInput(
            language=e.language, source_uri=e.source_uri, title=e.title, title_short=e.title_short,
            valid_from=_date(e.valid_from), valid_to=None if open_ended else _date(e.valid_to),
            observations=tuple(ObservationInput(o.file, o.sha256, o.source_uri, seen, o.format, o.size,
                                                o.held_elsewhere) for o in e.observations),
            text_reason=e.text.reason, text_url=e.text.url)
        for e in version.expressions)
    valid_from = _date(version.valid_from)
    assert valid_from is not None
    return VersionInput(
        slug=slug, publisher_version_identifier=version.publisher_version_identifier,
        work_identifier=version.work_identifier, valid_from=valid_from,
        valid_to=None if open_ended else _date(version.valid_to),
        document_type=version.document_type, in_force_status=version.in_force_status,
        publication_date=_date(version.publication_date), valid_time_source=version.valid_time_source,
        expressions=expressions, relations=tuple(version.relations),
        raw={k: str(v) for k, v in version.raw.items()}, publisher_metadata=tuple(version.publisher_metadata),
        document_roles=tuple(version.document_roles))


def build_transaction_tree(source: CorpusTree, dest: Path) -> CorpusTree:
    """The tree of the four nights (see the module docstring) at ``dest``."""
    tree = CorpusTree.create(dest)
    work = source.work(SLUG)
    by_day = {v.valid_from: v for v in source.versions(SLUG)}
    first_seen: dict[str, _dt.datetime] = {}
    for number, (night, days) in enumerate(NIGHTS):
        versions = []
        for day in days:
            seen = first_seen.setdefault(day, night)
            versions.append(_version_input(by_day[day], SLUG, seen, open_ended=number == 0 and day == OPEN_ON_NIGHT_1))
        bodies = {o.sha256: source.evidence.path_of(o.sha256) for day in days
                  for e in by_day[day].expressions for o in e.observations if not o.held_elsewhere}
        enumeration = Enumeration(Publisher.EURLEX, complete=True, works=(_work_input(work),),
                                  versions=tuple(versions), scoped=True)
        apply_enumeration(tree, enumeration, bodies, night, durable=False)
    return tree
