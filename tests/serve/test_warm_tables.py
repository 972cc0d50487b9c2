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


def test_the_warmed_name_tables_are_those_a_question_would_read(dev_index: Path) -> None:
    """The spaceless names, the acronyms' initials and the untexted works' name words (pss43): built
    at warm-up, before the workers fork — reading them lazily in each worker read every name of the
    catalogue there, which wrote to the pages holding them in each worker — and equal to what a
    question reads lazily."""
    from serve.core.resolve import name_initials
    from serve.core.searchplan import compact_names, spaced_names

    core = LegalCore.mount(dev_index / "indexes")
    try:
        for index in core.indexes.values():
            assert "compact_names" not in index._memo and "name_initials" not in index._memo
            assert index not in search._UNTEXTED_WORKS
            with index.session(60.0) as conn:
                spaceless = compact_names(index.catalogue, conn)
                initials = name_initials(conn)
                profiles = search.ranking.profiles(conn, index)
                untexted = search.untexted_word_works(conn, profiles)  # no index: nothing remembered
            index.warm()
            assert index._memo["compact_names"] == spaceless
            assert spaced_names(index) is index._memo["compact_names"]
            assert index._memo["name_initials"] == initials
            assert search._UNTEXTED_WORKS[index] == untexted
    finally:
        core.close()


def test_subject_labels_match_as_a_read_of_every_label_would() -> None:
    """:meth:`subjects.SubjectLabels.matched` reads only the labels a question's word begins (pss43),
    and answers as reading every label in order did: the same works, order and labels."""
    rows = [(1, "dominant position", "en"), (2, "dominant position", "en"), (2, "position dominante", "fr"),
            (3, "control of restrictive practices", "en"), (3, "restrictive practices", "en"),
            (4, "restrictive practices", "en"), (5, "position of women", "en"), (6, "women", "en")]
    labels = subjects.subject_labels(rows)

    def every_label(words: list[str]) -> list[tuple[int, str]]:
        held = subjects.query_stems(words)
        found: dict[int, list[tuple[str, ...]]] = {}
        for key, works in labels.works.items():
            if key[0] in held and all(w in held for w in key[1:]):
                for work in works:
                    found.setdefault(work, []).append(key)
        ordered = sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        return [(work, labels.labels[max(keys, key=len)]) for work, keys in ordered]

    for words in (["dominant", "position"], ["position", "dominante"], ["restrictive", "practices", "control"],
                  ["practices", "restrictive"], ["women", "position", "dominant"], ["nothing"], []):
        assert labels.matched(words) == every_label(words), words
    assert labels.matched(["restrictive", "practices", "control"])[0][0] == 3
    assert labels.named_by(["dominant", "position"]) == frozenset({1, 2})
