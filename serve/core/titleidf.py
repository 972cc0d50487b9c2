"""A work's title coverage weighed by how rare each of the question's words is among the works' names.

:func:`serve.core.ops.search.works_title_coverage` counts the share of a question's content words
(each word with its forms and translations: a *group*) that a work's names hold, every word alike.
Ranking multiplies a hit's relevance by ``1 + TITLE_BOOST × coverage``
(:func:`serve.core.ops.search.rank_hits`), so a title holding one frequent word of the question
("public", "services", "travail", "État") is weighed up exactly as much as a title holding one
rare word of it ("chasse", "inclusion", "kirchberg").

:func:`weighted_coverage` gives the ranking prior a share that is :data:`IDF_SHARE` (half) the same
share with each group weighed by its
inverse document frequency over the works' names of the section's index (``log((N + 1) / (df + 1))``,
``N`` the works holding names, ``df`` the works whose names hold the group: the largest count of its
terms, a phrase term counted by its rarest word). A work whose names hold every group or none keeps
its coverage (1 or 0): only a partial coverage moves, up when the held words are the question's rare
ones, down when they are its common ones; the rest is the plain share. Works without a BM25 score
(metadata or name rows, ranked by the prior alone) keep the plain share, and so do routing and the
other stages: only the ranking prior of text hits reads this one (:data:`TITLE_IDF`; ADR 0080).
"""

from __future__ import annotations

import math
import sqlite3
import sys
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Whether :func:`serve.core.ops.search.rank_hits` weighs title coverage by the words' rarity.
TITLE_IDF = True
#: The part of the ranking's title share that is the IDF-weighted one (the rest is the plain share).
IDF_SHARE = 0.5

_DF: weakref.WeakKeyDictionary[Any, tuple[int, Counter[str]]] = weakref.WeakKeyDictionary()


def name_df(conn: sqlite3.Connection, index: Any | None = None) -> tuple[int, Counter[str]]:
    """``(N, df)``: the number of works holding names (every ``work_names`` row but identifiers) and,
    per word, the number of works whose names hold it; remembered per mounted ``index``."""
    if index is not None and index in _DF:
        return _DF[index]
    # One work's words at a time (rows in work order), each word's first string kept as the key: the
    # works' sets held together weighed 6-9 MB at their peak on the full indexes, the table itself 0.3-0.4.
    df: Counter[str] = Counter()
    works, current = 0, None
    held: set[str] = set()
    for work, normalized in conn.execute(
            "SELECT work_rowid, normalized FROM work_names WHERE kind != 'official_identifier' ORDER BY work_rowid"):
        if work != current:
            df.update(held)
            works, current, held = works + 1, work, set()
        held.update(map(sys.intern, str(normalized).split()))  # the name-word table's strings
    df.update(held)
    found = (works, df)
    if index is not None:
        _DF[index] = found
    return found


def group_weights(groups: Sequence[Sequence[str]], n: int, df: Mapping[str, int]) -> list[float]:
    """Per group, ``log((n + 1) / (df + 1))``: ``df`` the largest count of its terms, a phrase term's
    count that of its rarest word (the works holding every word are at most that many). Pure."""
    out = []
    for group in groups:
        count = max((min((df.get(w, 0) for w in term.split()), default=0) for term in group), default=0)
        out.append(math.log((n + 1) / (count + 1)))
    return out


def held(words: frozenset[str], group: Sequence[str]) -> bool:
    """Whether a work's name words hold a group: one of its words, or every word of one of its phrases."""
    return any(t in words or (" " in t and all(w in words for w in t.split())) for t in group)


def weighted_coverage(coverage: Mapping[int, float], names: Mapping[int, frozenset[str]],
                      groups: Sequence[Sequence[str]], n: int, df: Mapping[str, int]) -> dict[int, float]:
    """``coverage`` with each partial share replaced by the IDF-weighted share of the groups the
    work's ``names`` hold (a share of 0 or 1 is kept). Pure."""
    if not groups:
        return dict(coverage)
    weights = group_weights(groups, n, df)
    total = sum(weights)
    out = {}
    for work, share in coverage.items():
        if share <= 0.0 or share >= 1.0 or total <= 0.0 or work not in names:
            out[work] = share
            continue
        words = names[work]
        rare = sum(wt for g, wt in zip(groups, weights, strict=True) if held(words, g)) / total
        out[work] = round((1.0 - IDF_SHARE) * share + IDF_SHARE * rare, 4)
    return out


def ranking_coverage(conn: sqlite3.Connection, index: Any | None, coverage: Mapping[int, float],
                     groups: Sequence[Sequence[str]],
                     names_of: Any, texted: Iterable[int] | None = None) -> dict[int, float]:
    """:func:`weighted_coverage` of the works of ``coverage`` whose share is partial, their name words
    read with ``names_of(conn, works, index)`` (:func:`serve.core.ops.search.name_words`); given
    ``texted``, only of those works (the works of text hits, BM25-scored)."""
    kept = None if texted is None else set(texted)
    partial = [w for w, share in coverage.items() if 0.0 < share < 1.0 and (kept is None or w in kept)]
    if not partial or not groups:
        return dict(coverage)
    n, df = name_df(conn, index)
    return weighted_coverage(coverage, names_of(conn, partial, index), groups, n, df)
