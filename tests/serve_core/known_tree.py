"""A small Legilux tree written by the corpus-tree writer on successive days, for ``known_on`` tests.

Real fixture records and bodies (``loi-2000-08-08-n4``, read in place from ``$LEX_FIXTURES``)
are enumerated night after night, so the tree carries every kind of transaction-time event:

====================  =========================================================================
day (UTC)             what the enumeration does
====================  =========================================================================
``DAY1`` 2026-03-01   first sighting of A (2010-11-07, ``valid_to`` still open) and B
                      (2021-08-09, French only, open; its ``fr.xml`` observed with an earlier
                      body: A's French bytes)
``DAY2`` 2026-03-10   A closed at 2015-12-31 (``interval_closed``), B closed at 2022-08-12,
                      first sighting of C (2022-08-12)
``DAY3`` 2026-04-01   C absent from the enumeration: ``withdrawn_from_source``
``DAY4`` 2026-05-01   C back (``resighted``); A's end revised to 2016-01-01 (``validity_revised``);
                      B gains its English expression (``expression_added``) and its French body
                      changes to the real one (``metadata_revised``, a new observation)
====================  =========================================================================

The index is built on :data:`BUILT_AT` (the transaction-time horizon, 2026-06-01).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SLUG = "loi-2000-08-08-n4"
WORK = f"lu-legilux:{SLUG}"
BUILT_AT = "2026-06-01T00:00:00Z"
HORIZON = "2026-06-01"
DAY1 = dt.datetime(2026, 3, 1, 3, 0, tzinfo=dt.UTC)
DAY2 = dt.datetime(2026, 3, 10, 3, 0, tzinfo=dt.UTC)
DAY3 = dt.datetime(2026, 4, 1, 3, 0, tzinfo=dt.UTC)
DAY4 = dt.datetime(2026, 5, 1, 3, 0, tzinfo=dt.UTC)
A, B, C = "2010-11-07", "2021-08-09", "2022-08-12"


@dataclass(frozen=True)
class KnownBuild:
    tree: Path
    index_dir: Path
    #: sha256 of the French body B was first observed with (A's bytes) and of its real body.
    b_fr_first: str
    b_fr_now: str
    version_keys: dict[str, str]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _meta(work_dir: Path, day: str) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((work_dir / "versions" / day / "meta.json").read_text(encoding="utf-8"))
    return meta


def build_known_tree(fixtures_dir: Path, root: Path) -> KnownBuild:
    from corpus_tree import (
        CorpusTree,
        Enumeration,
        ExpressionInput,
        ObservationInput,
        VersionInput,
        WorkInput,
    )
    from corpus_tree.writer import WithdrawalGuard, apply_enumeration
    from derive import dataset
    from derive.index.build import build_from_paths
    from legal.ids import Publisher, VersionKey

    work_dir = fixtures_dir / "lex-corpus-lu-legilux" / "works" / SLUG
    work_meta = json.loads((work_dir / "meta.json").read_text(encoding="utf-8"))
    bodies: dict[str, bytes] = {}

    def body(day: str, lang: str) -> bytes:
        data = (work_dir / "versions" / day / f"{lang}.xml").read_bytes()
        bodies[_sha(data)] = data
        return data

    def expression(day: str, lang: str, data: bytes, when: dt.datetime) -> ExpressionInput:
        found = next(e for e in _meta(work_dir, day)["expressions"] if e["language"] == lang)
        return ExpressionInput(lang, found["source_uri"], title=found.get("title"),
                               observations=(ObservationInput(f"{lang}.xml", _sha(data), found["source_uri"], when),))

    def pvid(day: str) -> str:
        uri = str(_meta(work_dir, day)["expressions"][0]["source_uri"]).rsplit("/", 1)[0]
        return uri.replace("https://legilux.public.lu/", "http://data.legilux.public.lu/")

    def version(day: str, valid_to: str | None, *expressions: ExpressionInput) -> VersionInput:
        meta = _meta(work_dir, day)
        return VersionInput(slug=SLUG, publisher_version_identifier=pvid(day),
                            work_identifier=work_meta["work_identifier"], valid_from=dt.date.fromisoformat(day),
                            valid_to=dt.date.fromisoformat(valid_to) if valid_to else None,
                            document_type=meta["document_type"], in_force_status=meta.get("in_force_status"),
                            publication_date=dt.date.fromisoformat(meta["publication_date"]),
                            expressions=expressions)

    work = WorkInput(SLUG, work_meta["work_identifier"], document_type=work_meta["document_type"],
                     title=work_meta["title"], title_language="fr", source_uri=work_meta["source_uri"])

    def apply(when: dt.datetime, *versions: VersionInput) -> None:
        apply_enumeration(tree, Enumeration(Publisher.LEGILUX, True, (work,), versions), bodies, when,
                          durable=False, guard=WithdrawalGuard(allow=1))

    tree = CorpusTree.create(root / "tree")
    a_fr, b_fr, b_en, c_fr = body(A, "fr"), body(B, "fr"), body(B, "en"), body(C, "fr")
    a1 = expression(A, "fr", a_fr, DAY1)
    b_first = expression(B, "fr", a_fr, DAY1)  # B's French file first observed with other (real) bytes
    c1 = expression(C, "fr", c_fr, DAY2)
    apply(DAY1, version(A, None, a1), version(B, None, b_first))
    apply(DAY2, version(A, "2015-12-31", a1), version(B, C, b_first), version(C, None, c1))
    apply(DAY3, version(A, "2015-12-31", a1), version(B, C, b_first))
    b_now = expression(B, "fr", b_fr, DAY4)
    apply(DAY4, version(A, "2016-01-01", a1), version(B, C, b_now, expression(B, "en", b_en, DAY4)),
          version(C, None, c1))
    ds = root / "dataset"
    dataset.build_dataset(CorpusTree.open(tree.root), ds)
    index_dir = root / "index"
    build_from_paths(Publisher.LEGILUX, CorpusTree.open(tree.root), ds, index_dir, built_at=BUILT_AT)
    keys = {day: str(VersionKey.create(dt.date.fromisoformat(day), pvid(day))) for day in (A, B, C)}
    return KnownBuild(tree.root, index_dir, _sha(a_fr), _sha(b_fr), keys)
