"""lat44: the search's own-subject weighing (amend36) with less work per question, the same values.

- :func:`serve.core.ranking.title_own_words`: one official title's own subject words, kept per
  process for the titles met last (a pure function of the title: the cache's key is all it reads).
- :func:`serve.core.ops.search.own_subject_candidates`: with the mounted index, the works whose
  official titles are read at all are first bounded by the name words the index remembers.

On the real fixture corpus (``LEX_FIXTURES``) where a test needs titles or an index.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from serve.core import LegalCore, ranking
from serve.core.ops import search
from tests.serve_core.test_search_amend36 import _fixture_titles

EU = "eu-eurlex"


def _own_subject_words_uncached(titles: list[str]) -> list[frozenset[str]]:
    """:func:`serve.core.ranking.own_subject_words` as it was written before the per-title cache."""
    out: list[frozenset[str]] = []
    for title in titles:
        if ranking.truncated(title):
            continue
        own = ranking.own_subject(title)
        if own is None:
            continue
        words = ranking._own_words(own)
        if len(words) >= ranking.OWN_SUBJECT_MIN_WORDS and words not in out:
            out.append(words)
    return out


def test_a_titles_kept_own_subject_words_are_its_parse() -> None:
    titles = [*_fixture_titles("32003r2273"), *_fixture_titles("32020d1071"), *_fixture_titles("32015r0233"),
              "Commission Regulation (EC) No 2273/2003 of 22 December 2003 implementing Directive 2003/6/EC",
              "Commission Delegated Regulation (EU) 2019/815 of 17 December 2018 supplementing …",
              "Council Directive 2004/15/EC of 10 February 2004 amending Directive 77/388/EEC as regards Croatia"]
    ranking.title_own_words.cache_clear()
    for _ in range(2):  # parsed, then kept: the same values both times
        assert ranking.own_subject_words(titles) == _own_subject_words_uncached(titles)
        for title in titles:
            expected = _own_subject_words_uncached([title])
            assert ranking.title_own_words(title) == (expected[0] if expected else None)
    # the same list in another order: the same distinct subjects, first met first
    assert ranking.own_subject_words(titles[::-1]) == _own_subject_words_uncached(titles[::-1])


def test_a_titles_own_subject_words_are_kept_per_title_and_bounded() -> None:
    title = ("Commission Delegated Decision (EU) 2020/1071 of 18 May 2020 amending Directive 2003/87/EC as regards "
             "the exclusion of incoming flights from Switzerland from the EU emissions trading system")
    ranking.title_own_words.cache_clear()
    first = ranking.title_own_words(title)
    again = ranking.title_own_words(title)
    info = ranking.title_own_words.cache_info()
    assert first is again and (info.hits, info.misses) == (1, 1)
    assert info.maxsize == ranking.OWN_SUBJECT_TITLES


def _held(groups: list[list[str]]) -> Any:
    def held(words: frozenset[str]) -> int:
        return sum(1 for g in groups if not words.isdisjoint(g))
    return held


def test_no_works_are_candidates_when_no_names_hold_the_own_subject_share() -> None:
    groups = [["renewable"], ["energy"], ["financing"], ["mechanism"], ["union"]]
    names = {1: frozenset({"renewable", "energy"}), 2: frozenset({"energy", "union"})}  # 2 of 5: under 0.6
    assert search.own_subject_candidates(names, _held(groups), len(groups)) == []
    assert search.own_subject_candidates({}, _held(groups), len(groups)) == []


def test_candidates_are_the_works_within_the_margin_of_the_share() -> None:
    groups = [["renewable"], ["energy"], ["financing"], ["mechanism"], ["union"]]
    names = {1: frozenset({"renewable", "energy", "financing", "mechanism"}),  # 0.8: holds the share
             2: frozenset({"renewable", "energy"}),  # 0.4: under 0.6 - 0.15, none of its titles can weigh
             3: frozenset({"energy", "union", "mechanism"})}  # 0.6
    assert search.own_subject_candidates(names, _held(groups), len(groups)) == [1, 3]


def _subordinate_works(conn: sqlite3.Connection, profiles: dict[int, ranking.WorkProfile]) -> list[int]:
    return sorted(w for w, p in profiles.items() if p.role in ranking.OWN_SUBJECT_ROLES)


def test_the_index_bound_gives_the_own_subject_values_of_every_title(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    questions = [
        ["currencies", "extremely", "narrow", "definition", "central", "bank", "eligibility"],
        ["exclusion", "incoming", "flights", "switzerland"],
        ["exemptions", "buy", "back", "programmes"],
        ["derogations", "rachat", "stabilisation"],
        ["text", "directive"],
        ["renewable", "energy"],
        ["emissions", "trading", "system", "aviation"],
    ]
    with index.session(30.0) as conn:
        profiles = ranking.load_profiles(conn)
        works = _subordinate_works(conn, profiles)
        assert works
        weighed = 0
        phrased = [[["emissions trading", "emissions"], ["system"], ["aviation"]],
                   [["buy back", "programmes"], ["exemptions"], ["stabilisation"]]]
        for groups in [*([[w] for w in words] for words in questions), *phrased]:
            bounded = search.works_own_subject_precision(conn, works, groups, profiles, index)
            assert bounded == search.works_own_subject_precision(conn, works, groups, profiles)
            weighed += bool(bounded)
        assert weighed >= 2  # some questions weigh an own subject: the bound is not vacuous


def test_a_window_row_is_its_columns_zipped() -> None:
    row = tuple(f"value {i}" if i % 3 else i for i in range(len(search._WINDOW_COLUMNS)))
    shaped = search._window_row(row)
    assert shaped == dict(zip(search._WINDOW_COLUMNS, row, strict=True))
    assert list(shaped) == list(search._WINDOW_COLUMNS)  # the same keys in the same order


def test_ranked_window_rows_are_those_of_the_occurrences_join(fixture_core: LegalCore) -> None:
    # the window's rows through the index's memory equal the correlated join's (serve.core.ops.search.occurrences)
    answer = fixture_core.call("search", {"query": "directive"})
    assert any(section.get("hits") for section in answer["publishers"])
    index = fixture_core.indexes[EU]
    with index.session(30.0) as conn:
        window = search.ranked_rows(conn, "directive", search._BM25, 40)
        filters = search.Filters()
        fast = search.window_occurrences(conn, window, filters, 20)
        slow = search.occurrences(conn, *search.values_source(window), filters, 20)
    assert fast and fast == slow
    assert all(list(row) == list(search._WINDOW_COLUMNS) for row in fast)
