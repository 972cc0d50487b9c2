"""The dataset's transaction time and the core's ``known_on`` give the same view, day by day.

Over the tree of :mod:`tests.serve_core.known_tree` (first sightings, closures, a revised end, a
withdrawal and resighting, a language added, a body replaced), for every day around the four
nights, ``timeline(known_on=K)`` of the core lists exactly the versions that the dataset's
``version_visibility.parquet`` holds on K, with the ``valid_to`` known then, and the languages
whose text was held then are those of the provisions rows with ``first_observed`` on or before K
(docs/derive.md §6.6; ADR 0013: K is a day, everything recorded during it counts).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow.parquet as pq
import pytest

from serve.core import LegalCore
from tests.serve_core.known_tree import WORK, KnownBuild

FIRST, LAST = dt.date(2026, 2, 27), dt.date(2026, 5, 3)
DAYS = [FIRST + dt.timedelta(days=n) for n in range((LAST - FIRST).days + 1)]


@pytest.fixture(scope="module")
def core(known_build: KnownBuild) -> LegalCore:
    return LegalCore.mount(known_build.index_dir, {"set_id": "known-on-dataset"})


@pytest.fixture(scope="module")
def dataset(known_build: KnownBuild) -> dict[str, list[dict[str, Any]]]:
    directory = known_build.index_dir.parent / "dataset"
    return {"visibility": pq.read_table(directory / "version_visibility.parquet").to_pylist(),
            "provisions": pq.read_table(directory / "provisions.parquet",
                                        columns=["lex_id", "language", "first_observed"]).to_pylist()}


def dataset_view(dataset: dict[str, list[dict[str, Any]]], day: dt.date) -> list[tuple[str, str | None, list[str]]]:
    """(version key, valid_to, languages with text) held on ``day`` according to the dataset."""
    midnight = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)  # all of day K counts
    held = [r for r in dataset["visibility"]
            if r["known_from"] < midnight and (r["known_to"] is None or midnight <= r["known_to"])]
    out = []
    for r in sorted(held, key=lambda r: r["valid_from"]):
        languages = sorted({p["language"] for p in dataset["provisions"]
                            if p["lex_id"] == r["lex_id"] and p["first_observed"] < midnight})
        out.append((r["version_key"], None if r["valid_to"] is None else r["valid_to"].isoformat(), languages))
    return out


def core_view(core: LegalCore, day: dt.date) -> list[tuple[str, str | None, list[str]]]:
    answer = core.call("timeline", {"work": WORK, "known_on": day.isoformat()})
    if answer["outcome"] == "not_yet_known":
        return []
    assert answer["outcome"] == "succeeded", answer
    return [(v["version_key"], v["valid_to"], sorted(v["text_languages"])) for v in answer["versions"]]


def test_the_dataset_holds_what_the_core_answers_on_every_day(core: LegalCore,
                                                              dataset: dict[str, list[dict[str, Any]]]) -> None:
    views = {day: dataset_view(dataset, day) for day in DAYS}
    assert len({repr(v) for v in views.values()}) >= 4  # the days do see different views
    for day in DAYS:
        assert dataset_view(dataset, day) == core_view(core, day), day.isoformat()
