"""What the warm-up loads before a served worker forks is what the calls would remember lazily."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from serve.core import subjects, titleidf
from serve.core.core import LegalCore
from serve.core.ops import search


def test_the_warmed_name_words_are_those_each_call_would_read(dev_index: Path) -> None:
    core = LegalCore.mount(dev_index / "indexes")
    try:
        for index in core.indexes.values():
            works = sorted(index.catalogue.rowid_of.values())
            assert works
            with index.session(60.0) as conn:
                one_by_one = search.name_words(conn, works)  # no index: nothing remembered
                assert index not in search._NAME_WORDS
                index.warm()
                assert search._NAME_WORDS[index] == one_by_one
                assert search.name_words(conn, works, index) == one_by_one
            assert any(one_by_one.values())
    finally:
        core.close()


def test_the_warmed_subject_words_are_those_each_search_would_read(dev_index: Path) -> None:
    core = LegalCore.mount(dev_index / "indexes")
    try:
        for index in core.indexes.values():
            works = sorted(index.catalogue.rowid_of.values())
            with index.session(60.0) as conn:
                assert index not in search._SUBJECT_WORDS
                for first in range(0, len(works), 3):  # as searches ask: a few works at a time
                    search.works_subject_precision(conn, works[first : first + 3], [["x"]], index)
                one_by_one = dict(search._SUBJECT_WORDS.pop(index))
                index.warm()
                assert search._SUBJECT_WORDS[index] == one_by_one
                groups = [["loi"], ["directive", "protection"]]
                warmed = search.works_subject_precision(conn, works, groups, index)
                search._SUBJECT_WORDS.pop(index)
                assert search.works_subject_precision(conn, works, groups, index) == warmed
            # every work, with its subject words or none (an untitled work)
            assert sorted(one_by_one) == works
    finally:
        core.close()


@pytest.mark.parametrize(("table", "lazily", "remembered"), [
    # the EuroVoc subject labels (search's off-subject relaxation)
    ("subject labels", subjects.labels_of, lambda: subjects._LABELS),
    # rank29's name-word document frequencies (search's title share weighed by rarity)
    ("name-word frequencies", titleidf.name_df, lambda: titleidf._DF),
])
def test_a_warmed_table_is_the_one_a_search_would_read(dev_index: Path, table: str, lazily: Any,
                                                       remembered: Any) -> None:
    """Built before the workers fork, not in each worker's first search, and what a search reads lazily."""
    core = LegalCore.mount(dev_index / "indexes")
    try:
        for index in core.indexes.values():
            with index.session(60.0) as conn:
                expected = lazily(conn, None)  # no index: nothing remembered
                assert expected, table
                assert index not in remembered(), table
                index.warm()
                assert remembered()[index] == expected, table
    finally:
        core.close()
