"""Issue #15, eighth pass: the act that treats a subject most broadly. Per work, the provisions
holding every word are counted over the whole match (:func:`serve.core.ops.search.work_breadth`);
a principal act holding at least twice the provisions of every other principal act is weighed as
if its names held the words (:func:`serve.core.ops.search.dominant_work`): a code's title names
none of its subjects and its long provisions score low by BM25. On the real fixture corpus
(``LEX_FIXTURES``) where it covers the rule.
"""

from __future__ import annotations

import pytest

from derive.index.text import fts_query
from serve.core import LegalCore, ranking
from serve.core.ops import search

LU = "lu-legilux"


def _profile(role: str) -> ranking.WorkProfile:
    return ranking.WorkProfile("in_force", role, "law", "…")


def test_a_principal_act_with_twice_the_provisions_of_every_other_dominates() -> None:
    profiles = {1: _profile("principal"), 2: _profile("principal"), 3: _profile("compilation"),
                4: _profile("amending")}
    assert search.dominant_work({1: 10, 2: 5}, profiles) == 1
    assert search.dominant_work({1: 9, 2: 5}, profiles) is None  # less than twice
    assert search.dominant_work({1: search.BREADTH_MIN - 1}, profiles) is None  # too few
    assert search.dominant_work({1: search.BREADTH_MIN}, profiles) == 1
    # a compilation restating the act, or an act amending it, neither dominates nor competes
    assert search.dominant_work({3: 40, 4: 30, 1: 10, 2: 2}, profiles) == 1
    assert search.dominant_work({3: 40, 2: 2}, profiles) is None
    assert search.dominant_work({}, profiles) is None


def test_the_breadth_counts_distinct_provisions_over_the_whole_match(fixture_core: LegalCore,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    index = fixture_core.indexes[LU]
    match = fts_query([["loyer"]])
    assert match is not None
    with index.session(60.0) as conn:
        counts = search.work_breadth(conn, match)
        slug = index.catalogue.slug_of
        by_slug = {slug[w]: n for w, n in counts.items()}
        # the 2022 housing-aid law holds the word in 19 of its provisions, a regulation in 1
        assert by_slug["loi-2022-07-22-a396"] == 19
        assert by_slug["rgd-1998-08-03-n4"] == 1
        total = conn.execute("SELECT COUNT(*) FROM provision_fts WHERE provision_fts MATCH ?", (match,)).fetchone()[0]
        assert sum(counts.values()) <= total  # one per provision, not per wording or language
        principal = search.dominant_work(counts, ranking.profiles(conn, index))
        assert principal is not None and slug[principal] == "loi-2022-07-22-a396"
        monkeypatch.setattr(search, "BREADTH_MATCHED_MAX", total - 1)
        assert search.work_breadth(conn, match) == {}  # too frequent to count


def test_the_dominant_act_leads_a_subject_question(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "loyer", "limit": 10, "publisher": LU})
    works = [h["work"].split(":")[1] for s in answer["publishers"] for h in s.get("hits") or []]
    assert works[0] == "loi-2022-07-22-a396"
