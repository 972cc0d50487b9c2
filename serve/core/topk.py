"""The best-ranked states of a frequent FTS match, remembered per mounted index.

Ranking a very frequent word (``article``: 62,000 states of the EU corpus) computes bm25 for
every matching row: 20–50 ms of CPU each time, the same answer every time on an immutable index.
The ranked first rows of such matches come from the build's ``frequent_matches`` table for
one-word matches of very frequent words, and are kept in a small LRU shared by the pooled
connections of one index (:class:`IndexConnection`); so are all the ranked states of a match with
no more states than the window (every one of them: the same rows as the match itself, and a
repeated question computes no bm25). The search then filters and joins exactly as before, over
the same rows. The same per-index memory keeps the snippets cut for a stored text and a query's
words (:data:`SNIPPET_ENTRIES`; a snippet is a function of the two, and the index is immutable),
each kept as UTF-8 bytes (a cut holds ``…``, which makes a ``str`` two bytes a character: a
370-character cut takes ~430 bytes instead of ~820, for a decode of a few µs a remembered hit);
:meth:`RankedCache.clear` forgets both, and the match counts it keeps (:func:`match_count`: how many states
a match holds, up to a cap, as FTS5 walked them). An entry is packed (two arrays, 16 bytes a state): 512 entries of 240 states hold
about 2 MB per index.

Each index's memory also holds, loaded whole on first need (:meth:`RankedCache.newest_versions`),
the newest live version holding every lexical state (two packed arrays, 16 bytes a state, about
1 MB per full index, 0.2 s of CPU once): a ranked window without an ``as_of`` or document type
filter joins it instead of running the correlated subquery that picks the version of each state
(:func:`serve.core.ops.search.occurrences`; about 1.1 of 1.4 ms for a window of 240 states). It
is a function of the immutable index alone, not of any question, so :meth:`RankedCache.clear`
keeps it.

A search asking for at most :data:`~derive.index.serving.FREQUENT_WINDOW` rows first tries the
build's window alone (:func:`precomputed_window`; a frequent word with its Snowball forms is
stored under the same match string the search builds): when the filters leave at least as many
rows as asked, they are the exact best ones (every state outside the window scores worse), so a
cold search of a frequent word computes no bm25 at all.

A match of several words or forms the build holds no window of (a word OR-ed with its Snowball
forms and translations, ``("faire" OR "fair" OR "equitable")``) is ranked from the windows of its
parts (:func:`bounded_window`): bm25 sums one term per phrase, and a phrase's term in a row is the
row's score for that phrase alone, so a row outside every phrase's window (the build's, or every row
of a phrase held by at most :data:`BOUNDED_ALL` states) scores at most the sum of the windows' edge
scores. The match's own bm25, evaluated by FTS5 on the windows' rows only, ranks them; those scoring
strictly beyond that sum are exactly the best states of the whole match (2–3 ms instead of 6–12 ms
of bm25 over every matching row on the full Legilux index). When too few states beat that sum (the
forms of one word: ``droit`` and ``droits`` each near its window's edge in one state) or a phrase
without a window holds more than :data:`BOUNDED_ALL` states, a second try
(:func:`_bounded_shared`) scores the windows' states first and sets the bound just under the
``need``-th best of them: a state outside every window scores at most the edges of the windowed
parts it holds, so only the states holding a phrase without a window, or a set of windowed parts
whose edges sum beyond that bound, are found by FTS5 and scored besides; it is tried only where
that is at most a quarter of the match's states. The states it would score include those of the
phrases without a window whatever the bound, so those are counted first and, when they alone are
too many, it gives up before any bm25 (:func:`_hopeless`: the same ``[]``).
"""

from __future__ import annotations

import sqlite3
import threading
from array import array
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Sequence
from itertools import combinations
from operator import itemgetter
from typing import Any

from derive.index import windows
from derive.index.serving import FREQUENT_WINDOW, frequent_window
from derive.index.text import fts_string

#: Frequent matches remembered per index (each: at most the ranked window, 120 rows by default).
CACHE_ENTRIES = 512
#: A phrase of a match without a window of its own is read whole when it matches at most this many
#: states (:func:`bounded_window`); a phrase matching more without a build's window gives up.
BOUNDED_ALL = 400
#: :func:`bounded_window`'s second try (:func:`_bounded_shared`): at most this many states found
#: beyond the windows', of a match holding more than :data:`BOUNDED_SPARE` times the states it
#: scores and more than :data:`BOUNDED_MIN_STATES` (fewer: ranked whole in a few ms), of at most
#: :data:`BOUNDED_PARTS` windowed parts; its bound is set this far (relative) under what the
#: windows' states score.
BOUNDED_SHARED = 6000
BOUNDED_SPARE = 4
BOUNDED_MIN_STATES = 2000
BOUNDED_PARTS = 8
BOUNDED_REACH = 1e-6
#: Phrases in a match :func:`bounded_window` tries (more: the full ranking).
BOUNDED_PHRASES = 12
#: Relative margin on :func:`bounded_window`'s bound, far above the rounding of a sum of a dozen doubles.
BOUNDED_SAFETY = 1e-9
#: The :class:`RankedCache` key's window of a match's :func:`bounded_window` (never a LIMIT).
BOUNDED_KEY = 0
#: Snippets remembered per index, by stored text and query words (each about 300 characters,
#: kept as UTF-8: a cut holds ``…``, which makes a ``str`` two bytes a character).
SNIPPET_ENTRIES = 4096


class RankedCache:
    """A thread-safe LRU of ``(match, window) -> [(state_rowid, score), …]``, each entry packed in
    two arrays (16 bytes a row instead of a tuple, an int and a float: about 100)."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self.entries = entries
        self._items: OrderedDict[tuple[str, int], tuple[array[int], array[float]]] = OrderedDict()
        self._snippets: OrderedDict[tuple[str, tuple[str, ...]], bytes] = OrderedDict()
        self._counts: OrderedDict[str, tuple[int, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._newest: tuple[array[int], array[int]] | None = None

    def newest_versions(self, conn: sqlite3.Connection) -> NewestVersions:
        """The newest live version of every state of the index ``conn`` reads (loaded once)."""
        with self._lock:
            if self._newest is None:
                self._newest = load_newest_versions(conn)
            return NewestVersions(*self._newest)

    def get(self, key: tuple[str, int]) -> list[tuple[int, float]] | None:
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            self._items.move_to_end(key)
        return list(zip(found[0], found[1], strict=True))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._snippets.clear()
            self._counts.clear()

    def counted(self, match: str, cap: int) -> int | None:
        """:func:`_count` of ``match`` up to ``cap`` as an earlier walk told it (:meth:`put_count`),
        or ``None`` when none walked far enough: a walk that counted every state, or went beyond
        ``cap``, answers (:class:`_Counts`' rule)."""
        with self._lock:
            walked = self._counts.get(match)
            if walked is None:
                return None
            self._counts.move_to_end(match)
        return _walked_count(walked, cap)

    def put_count(self, match: str, counted: int, cap: int) -> None:
        """Remember that a walk of ``match`` up to ``cap + 1`` states counted ``counted``."""
        with self._lock:
            self._counts[match] = (counted, cap)
            self._counts.move_to_end(match)
            while len(self._counts) > self.entries:
                self._counts.popitem(last=False)

    def snippet(self, key: tuple[str, tuple[str, ...]]) -> str | None:
        """A snippet cut before from text ``key[0]`` for words ``key[1]`` (:func:`put_snippet`)."""
        with self._lock:
            found = self._snippets.get(key)
            if found is None:
                return None
            self._snippets.move_to_end(key)
        return found.decode()

    def put_snippet(self, key: tuple[str, tuple[str, ...]], value: str) -> None:
        kept = value.encode()  # ~half the bytes of the str (two a character once it holds ``…``)
        with self._lock:
            self._snippets[key] = kept
            self._snippets.move_to_end(key)
            while len(self._snippets) > SNIPPET_ENTRIES:
                self._snippets.popitem(last=False)

    def put(self, key: tuple[str, int], rows: list[tuple[int, float]]) -> None:
        packed = (array("q", (r[0] for r in rows)), array("d", (r[1] for r in rows)))
        with self._lock:
            self._items[key] = packed
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)


#: The newest live version holding a state: the one ``occurrences``' correlated subquery picks
#: without filters on versions (``withdrawn = 0``; latest ``valid_from``, then ``version_key``).
#: (The definition; :func:`load_newest_versions` computes the same pairs without sorting every row.)
NEWEST_VERSIONS_SQL = (
    "SELECT r.state_rowid, v.version_rowid FROM provision_rows r "
    "JOIN expressions e ON e.expression_rowid = r.expression_rowid "
    "JOIN versions v ON v.version_rowid = e.version_rowid WHERE v.withdrawn = 0 "
    "ORDER BY r.state_rowid, v.valid_from DESC, v.version_key DESC")
#: The expressions of the live versions, oldest version first (``valid_from``, then ``version_key``).
LIVE_EXPRESSIONS_SQL = (
    "SELECT e.expression_rowid, v.version_rowid FROM versions v "
    "JOIN expressions e ON e.version_rowid = v.version_rowid WHERE v.withdrawn = 0 "
    "ORDER BY v.valid_from, v.version_key, e.expression_rowid")
#: The states of one expression (the primary key's order: no sort).
EXPRESSION_STATES_SQL = "SELECT state_rowid FROM provision_rows WHERE expression_rowid = ?"


def load_newest_versions(conn: sqlite3.Connection) -> tuple[array[int], array[int]]:
    """``(states, versions)``: the states held by a live version, ascending, and the newest live
    version holding each (:data:`NEWEST_VERSIONS_SQL`). The live versions' expressions are read
    oldest version first and each one's states (its primary key range) mark them as held by its
    version, so a newer version overwrites an older one: the rows are read once in the index's
    own order instead of all sorted by state (about 0.3 s → 0.2 s of CPU on a full index)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    first = itemgetter(0)
    newest: dict[int, int] = {}
    for expression, version in cursor.execute(LIVE_EXPRESSIONS_SQL).fetchall():
        held = cursor.execute(EXPRESSION_STATES_SQL, (expression,)).fetchall()
        newest.update(dict.fromkeys(map(first, held), int(version)))
    states = array("q", sorted(newest))
    return states, array("q", map(newest.__getitem__, states))


class NewestVersions:
    """A read-only view of :func:`load_newest_versions`' arrays."""

    __slots__ = ("_states", "_versions")

    def __init__(self, states: array[int], versions: array[int]) -> None:
        self._states = states
        self._versions = versions

    def get(self, state: int) -> int | None:
        """The newest live version holding ``state``, or ``None`` when no live version holds it."""
        i = bisect_left(self._states, state)
        return self._versions[i] if i < len(self._states) and self._states[i] == state else None

    def joined(self, window: Sequence[tuple[int, float]]) -> list[tuple[int, float, int]]:
        """``(state, score, version)`` of the ``window``'s states a live version holds, in the
        window's order (:meth:`get` of each, in one loop)."""
        states, versions, n = self._states, self._versions, len(self._states)
        out: list[tuple[int, float, int]] = []
        for state, score in window:
            i = bisect_left(states, state)
            if i < n and states[i] == state:
                out.append((state, score, versions[i]))
        return out


class IndexConnection(sqlite3.Connection):
    """A pooled read-only connection carrying its index's shared :class:`RankedCache`."""

    ranked_cache: RankedCache | None = None


def ranked_window(conn: sqlite3.Connection, match: str, bm25: str, window: int) -> tuple[str, list[Any]]:
    """A ``(state_rowid, score)`` source of the ``window`` best-ranked states of ``match``, as SQL
    and parameters for :func:`serve.core.ops.search.occurrences` (remembered when the connection
    has a cache)."""
    return values_source(ranked_rows(conn, match, bm25, window))


def ranked_rows(conn: sqlite3.Connection, match: str, bm25: str, window: int) -> list[tuple[int, float]]:
    """The ``window`` best-ranked ``(state_rowid, score)`` of ``match``, best first (remembered
    when the connection has a cache; the build's window when it stored one that large)."""
    cache = getattr(conn, "ranked_cache", None)
    key = (match, window)
    rows = cache.get(key) if cache is not None else None
    if rows is None:
        rows = frequent_window(conn, match, window)  # precomputed by the build for very frequent words
    if rows is None:
        cursor = conn.cursor()
        cursor.row_factory = None
        # (rowid, bm25): an int and a float as SQLite gives them, no conversion per row
        rows = cursor.execute(
            f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ? ORDER BY score LIMIT {window}",
            (match,)).fetchall()
        if cache is not None:
            cache.put(key, rows)
    return rows


def bounded_window(conn: sqlite3.Connection, groups: Sequence[Sequence[str]], match: str, bm25: str,
                   window: int, need: int = 1) -> list[tuple[int, float]] | None:
    """The best states of ``match`` (``groups`` joined by AND, each group's words by OR:
    :func:`derive.index.text.fts_query`), best first, ranked from the windows of its phrases; at most
    ``window`` rows, every state outside them scoring strictly worse; ``None`` when a phrase has no
    window or fewer than ``need`` of the match's states can be told to be among its best
    (remembered per index).

    A phrase's term in bm25 (:mod:`derive.index.windows`: ``idfᵢ`` and the row's hits of that
    phrase) is the phrase's own one-phrase score of the row. A row outside a phrase's window scores
    at most the window's last score for that phrase alone (the build's window:
    :data:`FREQUENT_WINDOW` rows), or nothing when the window is every row of the phrase (read here
    when it holds at most :data:`BOUNDED_ALL`); so a row outside all of them scores at most
    ``bound``, their edges summed. Each candidate's own most (its windows' terms, the other
    windows' edges, ``idf · (k1 + 1)`` for a phrase read whole) leaves out those that cannot beat
    ``bound``; FTS5's bm25 of ``match`` on the others gives the exact doubles a full ranking gives
    them (the IDFs are the match's, a row's terms its own), and those scoring beyond ``bound`` are
    the best states of the whole match."""
    cache = getattr(conn, "ranked_cache", None)
    key = (match, BOUNDED_KEY)
    remembered = cache.get(key) if cache is not None else None
    if remembered is not None:
        return remembered[:window] or None
    best = _bounded(conn, groups, match, bm25, window, need)
    if cache is not None:
        cache.put(key, best)
    return best or None


def _bounded(conn: sqlite3.Connection, groups: Sequence[Sequence[str]], match: str, bm25: str,
             window: int, need: int) -> list[tuple[int, float]]:
    """:func:`bounded_window` computed (``[]`` when it gives up)."""
    words = [[t for t in g if t.strip()] for g in groups]
    if not any(words) or sum(map(len, words)) > BOUNDED_PHRASES:
        return []
    found: dict[str, list[tuple[int, float]] | None] = {}

    def stored(key: str) -> list[tuple[int, float]] | None:
        if key not in found:
            found[key] = frequent_window(conn, key, FREQUENT_WINDOW)
        return found[key]

    # per group, its parts: the longest head the build ranked as one match (a word with its Snowball
    # forms, before the translations the plan added), then each other phrase
    parts: list[list[str]] = []
    for g in words:
        head = next((k for k in range(len(g), 1, -1)
                     if stored("(" + " OR ".join(fts_string(t) for t in g[:k]) + ")") is not None), 0)
        parts.append((["(" + " OR ".join(fts_string(t) for t in g[:head]) + ")"] if head else [])
                     + [fts_string(t) for t in g[head:]])
    # worth it only when a part has a window (else every row is read anyway); of several words,
    # only when one word's parts do (two frequent words' best rows are seldom each other's)
    if sum(any(stored(p) is not None for p in ps) for ps in parts) != 1:
        return []
    phrases = [p for ps in parts for p in ps]  # a repeated one: a term per time
    alone = sum(1 for g in words if g) == 1  # one group: every state of a phrase's window matches the match
    cursor = conn.cursor()
    cursor.row_factory = None
    known: dict[str, dict[int, float]] = {}  # per windowed phrase: its window's rows' terms
    held: dict[str, tuple[set[int], float]] = {}  # per phrase read whole: its rows, the most of its term
    edges: dict[str, float] = {}
    rows_total: int | None = None
    many = False  # a phrase with no window holds more than BOUNDED_ALL states
    for phrase in dict.fromkeys(phrases):
        rows = stored(phrase)
        if rows is not None:
            known[phrase] = {r: -v for r, v in rows}
            edges[phrase] = -rows[-1][1] if len(rows) >= FREQUENT_WINDOW else 0.0
            continue
        ids = {int(r) for (r,) in cursor.execute(
            f"SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT {BOUNDED_ALL + 1}", (phrase,))}
        if len(ids) > BOUNDED_ALL:
            many = True
            continue
        if rows_total is None:
            rows_total = windows.fts_totals(conn)[0]
        held[phrase] = (ids, windows.idf(rows_total, len(ids)) * (windows.K1 + 1.0))
        edges[phrase] = 0.0
    if many:
        return _bounded_shared(conn, phrases, known, held, match, bm25, window, need, alone)
    margin = 1.0 + BOUNDED_SAFETY
    bound = sum(edges[p] for p in phrases) * margin
    least: dict[int, float] = {}  # a row's windows' terms: no more than its score
    extra: dict[int, float] = {}  # what its score may add: its terms beyond the windows' edges, its held parts' most
    for p in phrases:
        if p in known:
            edge = edges[p]
            for r, term in known[p].items():
                least[r] = least.get(r, 0.0) + term
                extra[r] = extra.get(r, 0.0) + term - edge
        else:
            ids, most = held[p]
            for r in ids:
                extra[r] = extra.get(r, 0.0) + most
    read_whole = {r for ids, _ in held.values() for r in ids}
    # (a guess: it only spares a bm25 pass that would not find enough) the rows whose windows' terms
    # alone beat the bound, or holding a phrase read whole
    if sum(1 for r, v in least.items() if v > bound and r not in read_whole) + len(read_whole) < need:
        return _bounded_shared(conn, phrases, known, held, match, bm25, window, need, alone)
    base = sum(edges[p] for p in phrases if p in known)
    hopeful = sorted(r for r, v in extra.items() if (base + v) * margin > bound)  # rows whose most beats it
    best = _beyond(conn, match, bm25, hopeful, bound)
    if len(best) >= need:
        return best[:window]
    return _bounded_shared(conn, phrases, known, held, match, bm25, window, need, alone)


def _beyond(conn: sqlite3.Connection, match: str, bm25: str, rows: Sequence[int], bound: float) -> list[tuple[int, float]]:
    """FTS5's bm25 of ``match`` on the states ``rows`` (those matching it), the ones scoring beyond
    ``bound`` in absolute value, best first (row id among equal scores)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    scored = cursor.execute(
        f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
        "AND +rowid IN (SELECT value FROM json_each(?))", (match, "[" + ",".join(map(str, rows)) + "]"))
    return sorted(((int(r), float(v)) for r, v in scored if -v > bound), key=lambda rv: (rv[1], rv[0]))


def _count(conn: sqlite3.Connection, match: str, cap: int) -> int:
    """The states ``match`` holds, counted up to ``cap + 1`` (FTS5 walks the postings alone)."""
    return int(conn.execute("SELECT COUNT(*) FROM (SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT ?)",
                            (match, cap + 1)).fetchone()[0])


def _walked_count(walked: tuple[int, int], cap: int) -> int | None:
    """:func:`_count` up to ``cap`` told by an earlier walk ``(its count, its cap)``: every state
    when it counted no more than its cap, more than ``cap`` when it counted beyond a cap at least
    ``cap``; else ``None``. Pure."""
    counted, reach = walked
    if counted <= reach:  # every state counted
        return min(counted, cap + 1)
    if cap <= reach:  # more than reach ≥ cap
        return cap + 1
    return None


def match_count(conn: sqlite3.Connection, match: str, cap: int) -> int:
    """:func:`_count`, remembered per index when the connection has a cache (:meth:`RankedCache.counted`:
    the same numbers; a count is a function of the immutable index)."""
    cache = getattr(conn, "ranked_cache", None)
    if not isinstance(cache, RankedCache):
        return _count(conn, match, cap)
    known = cache.counted(match, cap)
    if known is None:
        known = _count(conn, match, cap)
        cache.put_count(match, known, cap)
    return known


class _Counts:
    """:func:`_count` of the matches of one :func:`_bounded_shared` call, each match walked again only
    when asked beyond the cap an earlier walk stopped at (the same answers)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._walked: dict[str, tuple[int, int]] = {}  # match -> (its count up to cap + 1, cap)

    def __call__(self, match: str, cap: int) -> int:
        walked = self._walked.get(match)
        if walked is not None:
            known = _walked_count(walked, cap)
            if known is not None:
                return known
        counted = _count(self.conn, match, cap)
        self._walked[match] = (counted, cap)
        return counted


def _too_few(tally: _Counts, read: str, rows: int, match: str) -> bool:
    """Whether scoring the ``rows`` windows' states and those ``read`` finds is not worth it: more than
    :data:`BOUNDED_SHARED` found, or ``match`` holding no more than :data:`BOUNDED_SPARE` times them all."""
    found = tally(read, BOUNDED_SHARED)
    spare = (rows + found) * BOUNDED_SPARE
    return found > BOUNDED_SHARED or tally(match, spare) <= spare


def _hopeless(tally: _Counts, unwindowed: Sequence[str], rows: int, match: str) -> bool:
    """Whether :func:`_bounded_shared` would give up whatever its bound, told before any bm25: the
    states either try scores beyond the ``rows`` windows' states hold at least those of the phrases
    without a window (``unwindowed``), whatever the bound, so when those alone are too many (or
    leave the match too small: :func:`_too_few`) both tries give up at their last test. The same
    answer (``[]``) without the 2–5 ms of bm25 they spend first (``competences``: 8 → 2 ms)."""
    return bool(unwindowed) and _too_few(tally, " OR ".join(unwindowed), rows, match)


def _scored(conn: sqlite3.Connection, match: str, bm25: str, rows: Sequence[int] = (),
            read: str | None = None) -> dict[int, float]:
    """FTS5's bm25 of ``match`` (absolute) on its states among ``rows`` or, given ``read``, among the
    states ``read`` matches."""
    cursor = conn.cursor()
    cursor.row_factory = None
    if read is None:
        scored = cursor.execute(
            f"SELECT rowid, {bm25} FROM provision_fts WHERE provision_fts MATCH ? "
            "AND +rowid IN (SELECT value FROM json_each(?))", (match, "[" + ",".join(map(str, rows)) + "]"))
    else:
        scored = cursor.execute(
            f"SELECT rowid, {bm25} FROM provision_fts WHERE provision_fts MATCH ? "
            "AND +rowid IN (SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?)", (match, read))
    return {int(r): -float(v) for r, v in scored}


def _bounded_shared(conn: sqlite3.Connection, phrases: Sequence[str], known: dict[str, dict[int, float]],
                    held: dict[str, tuple[set[int], float]], match: str, bm25: str, window: int,
                    need: int, alone: bool = False) -> list[tuple[int, float]]:
    """:func:`_bounded`'s second try, when too few states beat the sum of the windows' edges (the
    parts of one word: a state holding ``droit`` and ``droits`` may score up to both edges, more
    than the best states of either score) or a phrase without a window holds more than
    :data:`BOUNDED_ALL` states.

    The windows' states (and those of the phrases read whole) are scored first; the bound is set
    just under ``reach``, the ``need``-th best of them. A state outside every window holding only
    the windowed parts ``S`` scores at most their edges summed, so the states left to score are
    those holding a phrase without a window, or a set of windowed parts whose edges sum beyond the
    bound (FTS5 finds them: ``(a AND b) OR …``, the least such sets). Of all the states scored,
    those scoring beyond the bound are the best states of the whole match. ``[]`` when one part's
    edge alone reaches the bound, when more than :data:`BOUNDED_SHARED` states are left to score,
    or when the match holds no more than :data:`BOUNDED_SPARE` times the states to score (each
    costs about what a state of the full ranking does; the counts walk the postings alone, about
    0.04 µs a state against 1.2 µs for bm25) or :data:`BOUNDED_MIN_STATES`."""
    counts: dict[str, int] = {}
    for p in phrases:
        counts[p] = counts.get(p, 0) + 1
    rows = sorted({r for terms in known.values() for r in terms} | {r for ids, _ in held.values() for r in ids})
    spare = max(BOUNDED_MIN_STATES, len(rows) * BOUNDED_SPARE)
    tally = _Counts(conn)
    if len(rows) < need or tally(match, spare) <= spare:
        return []  # a small match: ranking it whole costs no more
    unwindowed = [p for p in counts if p not in known and p not in held]  # phrases read whole
    if _hopeless(tally, unwindowed, len(rows), match):
        return []
    if alone:
        best = _shared_in_one_pass(conn, counts, known, set(held), rows, match, bm25, need, tally)
        if best is not None:
            return best[:window] if len(best) >= need else []
    scored = _scored(conn, match, bm25, rows)
    if len(scored) < need:
        return []
    margin = 1.0 + BOUNDED_SAFETY
    bound = sorted(scored.values(), reverse=True)[need - 1] * (1.0 - BOUNDED_REACH)
    edges = {p: min(terms.values()) * counts[p] for p, terms in known.items() if len(terms) >= FREQUENT_WINDOW}
    if len(edges) > BOUNDED_PARTS or any(e * margin > bound for e in edges.values()):
        return []
    read = " OR ".join([*unwindowed, *("(" + " AND ".join(b) + ")" for b in _beyond_sets(edges, bound))])
    if read:
        if _too_few(tally, read, len(rows), match):
            return []
        scored.update(_scored(conn, match, bm25, read=read))
    best = sorted(((r, -v) for r, v in scored.items() if v > bound), key=lambda rv: (rv[1], rv[0]))
    return best[:window] if len(best) >= need else []


def _beyond_sets(edges: dict[str, float], bound: float) -> list[tuple[str, ...]]:
    """The least sets (two parts or more) of windowed parts whose ``edges`` sum beyond ``bound``."""
    margin = 1.0 + BOUNDED_SAFETY
    beyond: list[tuple[str, ...]] = []
    for size in range(2, len(edges) + 1):
        for parts in combinations(sorted(edges), size):
            if sum(edges[p] for p in parts) * margin > bound and not any(set(b) <= set(parts) for b in beyond):
                beyond.append(parts)
    return beyond


def _shared_in_one_pass(conn: sqlite3.Connection, counts: dict[str, int], known: dict[str, dict[int, float]],
                        held: set[str], rows: Sequence[int], match: str, bm25: str,
                        need: int, tally: _Counts | None = None) -> list[tuple[int, float]] | None:
    """:func:`_bounded_shared`'s answer for a match of one group (its phrases OR-ed: every state of a
    window or of a phrase read whole is one of its states) from one bm25 statement instead of two,
    or ``None`` when that cannot be told (the two statements then run as before).

    Each FTS5 statement with bm25 walks the whole match and each phrase's postings (its IDF) before
    it scores a state: about 4–6 ms on a full index for ``concernant`` or ``right`` however few states
    it scores. So the bound is first guessed from what the windows already say: a state's terms of
    the windows holding it (each the state's own term of those phrases, every term ≥ 0) are no more
    than its score, so the ``need``-th best of those sums, lowered by :data:`BOUNDED_REACH`, is no
    more than the bound :func:`_bounded_shared` sets from the scores. The states left to find under
    that lower bound include those it would find; all are scored with the windows' states in one
    statement, then the bound is set from the windows' states' scores exactly as there and the
    states beyond it kept: the same states, the same doubles."""
    least: dict[int, float] = {}
    for p, terms in known.items():
        for r, term in terms.items():
            least[r] = least.get(r, 0.0) + term * counts[p]
    if len(least) < need:
        return None
    margin = 1.0 + BOUNDED_SAFETY
    guess = sorted(least.values(), reverse=True)[need - 1] * (1.0 - BOUNDED_REACH)
    edges = {p: min(terms.values()) * counts[p] for p, terms in known.items() if len(terms) >= FREQUENT_WINDOW}
    if len(edges) > BOUNDED_PARTS or any(e * margin > guess for e in edges.values()):
        return None
    read = " OR ".join([*(p for p in counts if p not in known and p not in held),
                        *("(" + " AND ".join(b) + ")" for b in _beyond_sets(edges, guess))])
    if read and _too_few(tally or _Counts(conn), read, len(rows), match):
        return None
    # one IN list (the windows' states, then those ``read`` finds): the rows tested against one
    # ephemeral index instead of two IN tests OR-ed (about 30 % of the statement for ``right``)
    found_too = " UNION ALL SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?" if read else ""
    where = f"+rowid IN (SELECT value FROM json_each(?){found_too})"
    cursor = conn.cursor()
    cursor.row_factory = None
    scored = {int(r): -float(v) for r, v in cursor.execute(
        f"SELECT rowid, {bm25} FROM provision_fts WHERE provision_fts MATCH ? AND {where}",
        (match, "[" + ",".join(map(str, rows)) + "]", *([read] if read else [])))}
    windowed = sorted((scored[r] for r in rows if r in scored), reverse=True)
    if len(windowed) < need:
        return None
    bound = windowed[need - 1] * (1.0 - BOUNDED_REACH)
    return sorted(((r, -v) for r, v in scored.items() if v > bound), key=lambda rv: (rv[1], rv[0]))


def precomputed_window(conn: sqlite3.Connection, match: str) -> list[tuple[int, float]] | None:
    """The build's ranked window of ``match`` (its :data:`FREQUENT_WINDOW` best states), or ``None``
    when the build stored none."""
    return frequent_window(conn, match, FREQUENT_WINDOW)


def values_source(rows: Sequence[tuple[int, float]]) -> tuple[str, list[Any]]:
    """``(state_rowid, score)`` rows as an SQL source and its parameters."""
    if not rows:
        return "(SELECT NULL AS state_rowid, NULL AS score WHERE 0)", []
    values = ",".join("(?,?)" for _ in rows)
    source = f"(SELECT column1 AS state_rowid, column2 AS score FROM (VALUES {values}))"
    return source, [v for row in rows for v in row]
