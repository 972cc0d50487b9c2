"""A work's body coverage of a question: which of its content words the work holds in any provision.

The search ranks provisions and rolls them up to works (:func:`serve.core.ops.search.rank_hits`). A
conceptual question's content words are often spread over several articles of the act that answers
it (one article says « congé », another « maternité », a third « semaines »): no single provision
holds them all, and a narrower act with one chance provision holding most of them can come first.

:func:`body_coverage` reads, for the first :data:`COVERAGE_TOP` candidate works of a ranking only,
which of the question's term groups (a content word with its forms and translations, as the lanes
searched it) each work holds in the heading or text of any of its provisions, and gives each work the
share of the groups' IDF mass (:func:`serve.core.ops.search.idf_weights`) it holds.
:func:`factor` turns the share into a multiplier of the work's ranking prior,
``1 + COVERAGE_WEIGHT × share``; a work outside the candidates read gets the lowest factor read
(it cannot rise by not being read) and a work whose text the index does not hold the highest (its
silence says nothing). Coverage only reorders works some stage already proposed; it never adds one.

Cost (per section of a question it applies to): one statement for the candidates' state bounds, then
one statement per term group (at most :data:`COVERAGE_MAX_GROUPS`), each a ``UNION ALL`` of at most
:data:`COVERAGE_TOP` FTS5 look-ups bounded to one work's states (``rowid BETWEEN``) and ``LIMIT 1``;
the IDF weights are the vocabulary look-ups the lanes make (one per term form). Nothing is kept in
memory between questions. ADR 0082; docs/search.md "A work's body coverage of the question".
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Mapping, Sequence

from derive.index.text import fts_query

#: Whether :func:`serve.core.ops.search.lexical_lanes` weighs works by their body coverage.
COVERAGE = False
#: The weight of the body coverage share in a work's ranking prior (``1 + weight × share``).
COVERAGE_WEIGHT = 0.5
#: Whether a held group counts beyond the chance that a work of that many provisions holds it
#: (:func:`chance`): the share is then ``Σ w·(held − chance) / Σ w``, between −1 and 1.
BEYOND_CHANCE = False
#: Whether only a work holding every group counts (share 1, every other 0).
FULL_ONLY = False
#: Whether coverage applies only to a section no provision of which holds every word (its hits are
#: majority-of-words, relaxed or name hits): where the words are spread over an act's articles.
NO_STRICT_ONLY = False
#: How many candidate works (the ranking's first distinct works) are read.
COVERAGE_TOP = 20
#: At most this many term groups are read (a longer question: the first ones).
COVERAGE_MAX_GROUPS = 8
#: The fewest term groups for coverage to apply (one word: every candidate holds it).
COVERAGE_MIN_GROUPS = 2
#: The provision columns read: a provision's heading and text (not the work's title, which every
#: provision of the work carries and the title factor already weighs).
_COLUMNS = "{heading text}"


def state_bounds(conn: sqlite3.Connection, works: Sequence[int]) -> dict[int, tuple[int, int, int]]:
    """Per work holding text, the lowest and highest rowid of its lexical states and their number
    (one statement)."""
    if not works:
        return {}
    marks = ",".join("?" * len(works))
    rows = conn.execute(f"SELECT work_rowid, MIN(state_rowid), MAX(state_rowid), COUNT(*) FROM lexical_states "
                        f"WHERE work_rowid IN ({marks}) GROUP BY work_rowid", list(works)).fetchall()
    return {int(w): (int(lo), int(hi), int(n)) for w, lo, hi, n in rows}


def chance(weight: float, states: int) -> float:
    """The probability that a work of ``states`` lexical states holds a term group of IDF ``weight``
    (``ln(1 + N / df)``, :func:`serve.core.ops.search.idf_weights`) in one of them by chance: with
    ``p = df / N = 1 / (e^weight − 1)``, ``1 − (1 − p)^states``. Pure."""
    p = min(1.0, 1.0 / max(math.expm1(weight), 1e-9))
    return 1.0 - (1.0 - p) ** max(states, 0)


def holders(conn: sqlite3.Connection, bounds: Mapping[int, tuple[int, int, int]], group: Sequence[str]) -> set[int]:
    """The works of ``bounds`` one of whose provisions holds one of ``group``'s terms in its heading
    or text (one statement: per work, an FTS5 look-up inside its states' rowids, checked to be its own
    states, ``LIMIT 1``)."""
    match = fts_query([list(group)])
    if match is None or not bounds:
        return set()
    expression = f"{_COLUMNS} : ({match})"
    each = ("SELECT * FROM (SELECT ? FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
            "WHERE provision_fts MATCH ? AND f.rowid BETWEEN ? AND ? AND s.work_rowid = ? LIMIT 1)")
    params: list[object] = []
    for work, (lo, hi, _) in bounds.items():
        params += [work, expression, lo, hi, work]
    return {int(r[0]) for r in conn.execute(" UNION ALL ".join([each] * len(bounds)), params)}


def body_coverage(conn: sqlite3.Connection, works: Sequence[int], groups: Sequence[Sequence[str]],
                  weights: Sequence[float]) -> dict[int, float | None]:
    """Per work of ``works`` (the first :data:`COVERAGE_TOP`), the share of the IDF mass of the first
    :data:`COVERAGE_MAX_GROUPS` ``groups`` (``weights``, one per group read) that its provisions hold; ``None`` for a work whose text the index
    does not hold. Empty with fewer than :data:`COVERAGE_MIN_GROUPS` groups."""
    first = groups[:COVERAGE_MAX_GROUPS]
    pairs = [(list(g), w) for g, w in zip(first, weights, strict=True) if fts_query([list(g)]) is not None]
    total = sum(w for _, w in pairs)
    read = list(dict.fromkeys(works))[:COVERAGE_TOP]
    if len(pairs) < COVERAGE_MIN_GROUPS or total <= 0 or not read:
        return {}
    bounds = state_bounds(conn, read)
    held = dict.fromkeys(bounds, 0.0)
    for group, weight in pairs:
        found = holders(conn, bounds, group)
        for work, (_, _, states) in bounds.items():
            # held beyond chance: a work of many provisions holds a common word anyway
            held[work] += weight * ((work in found) - (chance(weight, states) if BEYOND_CHANCE else 0.0))
    shares = {work: (round(held[work] / total, 6) if work in held else None) for work in read}
    if FULL_ONLY:  # only a work holding every group counts
        return {work: (None if share is None else float(share >= 1.0)) for work, share in shares.items()}
    return shares


def factor(shares: Mapping[int, float | None], work: int) -> float:
    """A work's ranking-prior multiplier ``1 + COVERAGE_WEIGHT × share`` (:func:`body_coverage`): a work
    not read gets the lowest share read, a work without text the highest. 1.0 without shares. Pure."""
    known = [s for s in shares.values() if s is not None]
    if not known:
        return 1.0
    share = shares.get(work, min(known))
    return 1.0 + COVERAGE_WEIGHT * (max(known) if share is None else share)


def moves_order(shares: Mapping[int, float | None]) -> bool:
    """Whether the shares read differ (equal shares multiply every work alike: nothing to re-rank). Pure."""
    return len({s for s in shares.values() if s is not None}) > 1
