"""Serving tables: what is expensive at query time, computed once when the index is built.

Derived from the content tables of the same file (so outside the content digest, like the FTS
tables) and rebuilt by every full or incremental build (whole, but for ``word_diffs``: an
incremental build computes only the pairs it does not hold yet, and with the previous build's pair
counts, :mod:`derive.index.succession`, walks only the rewritten works' time lines; the frequent
groups of the terms a change does not affect are taken from :mod:`derive.index.terms`):

- ``serving_states`` — one compact row per **live** state (``withdrawn = 0``): work, interval,
  version key, document type and a summary of its expressions (language, text held, provisions
  digest, profile). ``in_force_on`` and ``changes_in_period`` read this period index instead of
  the full ``versions``/``expressions`` rows, and fetch those only for the page they return.
- ``serving_coverage`` — the ``coverage`` counts of the index (JSON), which otherwise take
  several aggregate scans of the largest tables.
- ``frequent_matches`` — for every word held by at least :data:`FREQUENT_DOCS` searchable states,
  the ranked window (:data:`FREQUENT_WINDOW` best bm25 scores) its one-word FTS match starts from,
  and the window of the match the search asks for that word with its Snowball forms
  (``("directive" OR "directives")``, :func:`derive.index.analysis.word_forms`, no language
  filter) whenever those forms are that frequent together (also for a word of at least
  :data:`FORMS_MIN_DOCS` states, such as ``direct`` with ``directive``): ranking ``article`` over the 62,000 EU states it occurs in takes 45 ms at query time.
  One row per match string; its window is packed in one blob (:func:`pack_window`: zlib of
  the int64 row ids, then the exact bm25 doubles), a fifth of the space of one row per ranked state.
  An incremental build brings the windows up to date from each match's bm25 inputs kept beside the
  index where that is provably exact (:mod:`derive.index.windows`), else ranks the match again.
- ``word_diffs`` — the word-level change spans of every pair of wordings that follow each other in
  the time line of one anchor (consecutive states of a work with text in one language), keyed by
  the two text hashes (32-byte blobs). Every pair is stored as its changes (``encoding``
  ``utf8``/``zlib``, like ``texts``), read without the texts (format 8; up to format 7 a pair whose
  changes and context repeated more than its two texts kept only its word offsets, and a cold diff
  read and split both texts to cut them). ``diff`` between any two dates looks a
  changed provision's pair up here (an article amended once between the two dates is such a pair)
  and only computes, within its budget, the pairs that never followed each other. ``word_changes``
  is a pure function of the two texts, so the answer is the same.
  Pairs too large for the query-time budget (:data:`MAX_PAIR_WORDS`) are not stored either.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import zlib
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Any, NamedTuple

from derive.index import succession, windows
from derive.index.terms import Group, Terms
from derive.index.textstore import LEVEL, decode, encode, inflate, locate, read_located
from derive.index.textstore import key as textstore_key
from derive.index.worddiff import bounded_opcodes, changes_of
from legal.canonical import json_loads
from legal.errors import IndexError_

#: A pair of wordings whose word diff would compare more words, or walk more matching word pairs
#: (:class:`derive.index.worddiff.DiffCost`), than this is not precomputed (``diff`` elides it too
#: when it is asked for: ``provision_too_large`` in ``diff_truncated``).
MAX_PAIR_WORDS = 40_000
#: Words held by at least this many searchable states get their ranked window precomputed
#: (``frequent_matches``): ranking them costs 3–50 ms of bm25 at query time.
FREQUENT_DOCS = 3_000
#: A word held by at least this many states whose Snowball forms (with it) are held by at least
#: :data:`FREQUENT_DOCS` states gets the window of that match too (``direct`` with ``directive``…).
FORMS_MIN_DOCS = 100
#: The ranked window the search filters first: its 120 rows (``serve.core.ops.search.RANK_FIRST``)
#: and a margin, so that the 120th best state can be told to score strictly better than every
#: state outside the window (a tie at the window's edge could rank either way).
FREQUENT_WINDOW = 128
MAX_PAIR_MATCHES = 5_000_000
#: Inflated bytes the word diffs keep at hand while they take the pairs in block order.
PAIR_BLOCK_BYTES = 4 << 20

DDL: tuple[str, ...] = (
    """CREATE TABLE serving_states(
        version_rowid INTEGER PRIMARY KEY,
        work_rowid INTEGER NOT NULL,
        valid_from TEXT NOT NULL,
        end_exclusive TEXT,
        version_key TEXT NOT NULL,
        document_type TEXT,
        expressions TEXT NOT NULL
    )""",
    "CREATE INDEX ix_serving_states_from ON serving_states(valid_from, work_rowid)",
    """CREATE TABLE serving_coverage(
        k TEXT PRIMARY KEY,
        v TEXT NOT NULL
    ) WITHOUT ROWID""",
    # A rowid table (format 5): a body up to about 4 KB stays on its leaf page; in a WITHOUT ROWID
    # table every body over about 1 KB overflowed onto a page of its own, mostly empty.
    """CREATE TABLE word_diffs(
        from_sha256 BLOB NOT NULL,
        to_sha256 BLOB NOT NULL,
        encoding TEXT NOT NULL,
        body BLOB NOT NULL,
        UNIQUE (from_sha256, to_sha256)
    )""",
    # A rowid table: a window (about 1.2 KB once packed) stays on its leaf page; in a WITHOUT ROWID
    # table every row would overflow onto a page of its own.
    """CREATE TABLE frequent_matches(
        match TEXT PRIMARY KEY,
        body BLOB NOT NULL
    )""",
)

TABLES: tuple[str, ...] = ("serving_states", "serving_coverage", "word_diffs", "frequent_matches")


def coverage_counts(conn: sqlite3.Connection) -> dict[str, Any]:
    """The counts ``coverage`` answers with (withdrawn states excluded), in answer order."""
    def one(sql: str) -> int:
        return int(conn.execute(sql).fetchone()[0])

    live = "FROM expressions e JOIN versions v USING (version_rowid) WHERE v.withdrawn = 0"
    states = {r[0]: r[1] for r in conn.execute(f"SELECT e.text_state, COUNT(*) {live} GROUP BY 1 ORDER BY 1")}
    doc_types = [{"code": r[0], "versions": r[1], "versions_with_text": r[2]} for r in conn.execute(
        "SELECT COALESCE(v.document_type, ''), COUNT(DISTINCT v.version_rowid), "
        "COUNT(DISTINCT CASE WHEN e.text_state = 'provisions' THEN v.version_rowid END) "
        "FROM versions v LEFT JOIN expressions e USING (version_rowid) WHERE v.withdrawn = 0 GROUP BY 1 ORDER BY 2 DESC, 1")]
    languages = [{"code": r[0], "works": r[1], "versions": r[2], "versions_with_text": r[3]} for r in conn.execute(
        f"SELECT e.language, COUNT(DISTINCT v.work_rowid), COUNT(DISTINCT v.version_rowid), "
        f"COUNT(DISTINCT CASE WHEN e.text_state = 'provisions' THEN v.version_rowid END) {live} GROUP BY 1 ORDER BY 1")]
    return {
        "works": one("SELECT COUNT(DISTINCT work_rowid) FROM versions WHERE withdrawn = 0"),
        "works_held": one("SELECT COUNT(*) FROM works"),
        "versions": one("SELECT COUNT(*) FROM versions WHERE withdrawn = 0"),
        "withdrawn_versions": one("SELECT COUNT(*) FROM versions WHERE withdrawn = 1"),
        "expressions": one(f"SELECT COUNT(*) {live}"),
        "expression_text_states": states,
        "versions_with_text": one(f"SELECT COUNT(DISTINCT v.version_rowid) {live} AND e.text_state = 'provisions'"),
        "provisions": one("SELECT COUNT(*) FROM provisions"),
        "distinct_texts": one("SELECT COUNT(*) FROM texts"),
        "gaps": {r[0]: r[1] for r in conn.execute("SELECT gap, COUNT(*) FROM gaps GROUP BY 1 ORDER BY 1")},
        "document_types": doc_types[:100],
        "languages": languages,
    }


def _states(conn: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    exprs: dict[int, list[list[Any]]] = defaultdict(list)
    for vid, language, state, count, digest, profile in conn.execute(
            "SELECT e.version_rowid, e.language, e.text_state, e.provision_count, e.provisions_digest, e.profile "
            "FROM expressions e JOIN versions v USING (version_rowid) WHERE v.withdrawn = 0 "
            "ORDER BY e.version_rowid, e.language"):
        exprs[vid].append([language, int(state == "provisions" and count > 0), digest, profile])
    for vid, work, start, end, key, doc_type in conn.execute(
            "SELECT version_rowid, work_rowid, valid_from, end_exclusive, version_key, document_type "
            "FROM versions WHERE withdrawn = 0 ORDER BY version_rowid"):
        yield vid, work, start, end, key, doc_type, json.dumps(exprs.get(vid, []), separators=(",", ":"))


def _successive_pairs(conn: sqlite3.Connection, work_rowid: int | None = None) -> Iterator[tuple[int, str, str]]:
    """(work, before, after): the text hashes of every anchor whose wording changes between two
    consecutive live states with text of one work in one language (of ``work_rowid`` only, when given)."""
    last: dict[tuple[int, str], dict[str, str]] = {}
    one = "" if work_rowid is None else "AND v.work_rowid = ? "
    query = ("SELECT v.work_rowid, e.language, e.expression_rowid FROM versions v JOIN expressions e USING (version_rowid) "
             f"WHERE v.withdrawn = 0 AND e.text_state = 'provisions' AND e.provision_count > 0 {one}"
             "ORDER BY v.work_rowid, e.language, v.valid_from, v.version_key")
    for work, language, expression in conn.execute(query, () if work_rowid is None else (work_rowid,)).fetchall():
        current = dict(conn.execute("SELECT anchor, text_sha256 FROM provisions WHERE expression_rowid = ?",
                                    (expression,)).fetchall())
        previous = last.get((work, language))
        if previous is not None:
            for anchor, sha in current.items():
                before = previous.get(anchor)
                if before is not None and before != sha:
                    yield work, before, sha
        last[(work, language)] = current


def _pair_texts(conn: sqlite3.Connection, pairs: list[tuple[str, str]]) -> Iterator[tuple[str, str, str, str]]:
    """``(before_sha, after_sha, before, after)`` of every pair, in block order: the pairs are
    taken by the blocks their texts lie in, so each block is inflated about once (a small cache of
    the blocks read lately) instead of once per text. A text not stored is refused (the first in
    the pairs' own order), as a one-text read would."""
    located = locate(conn, {sha for pair in pairs for sha in pair})
    for pair in pairs:
        for sha in pair:
            if sha not in located:
                raise IndexError_("text not stored in the index", code="text_missing", subject=sha)
    raws: OrderedDict[int, bytes] = OrderedDict()
    for before_sha, after_sha in sorted(pairs, key=lambda p: (located[p[0]].block, located[p[1]].block, p)):
        wanted = {sha: located[sha] for sha in (before_sha, after_sha)}
        for where in wanted.values():
            if where.block in raws:
                raws.move_to_end(where.block)
        texts = read_located(conn, wanted, raws)
        while len(raws) > 1 and sum(map(len, raws.values())) > PAIR_BLOCK_BYTES:
            raws.popitem(last=False)
        yield before_sha, after_sha, texts[before_sha], texts[after_sha]


def work_pairs(conn: sqlite3.Connection, work_rowid: int) -> list[succession.Pair]:
    """The successive pairs of one work's time lines, in order (:func:`_successive_pairs`)."""
    return [(before, after) for _, before, after in _successive_pairs(conn, work_rowid)]


def _pairs_and_gone(conn: sqlite3.Connection, update: WindowUpdate | None
                    ) -> tuple[list[succession.Pair], set[succession.Pair], set[succession.Pair]]:
    """The successive pairs a build may have to store, first met first, each once; those of them
    ``word_diffs`` holds already; the stored pairs no work holds any more. Every pair of every work,
    unless ``update`` holds the previous build's counts (:mod:`derive.index.succession`) and the
    rewritten works' old pairs: then only the rewritten works' time lines are walked (an unchanged
    work's pairs are stored already, or too large to be). ``update.pairs_result`` receives the counts."""
    if update is not None and update.pairs_previous is not None and update.pairs_old is not None:
        new = {w: work_pairs(conn, w) for w in sorted(update.pairs_old)}
        counts, gone = succession.recount(update.pairs_previous, update.pairs_old.values(), new.values())
        pairs = list(dict.fromkeys(p for w in sorted(new) for p in new[w]))
        stored = set(stored_pairs(conn, pairs))
    else:
        per_work: dict[int, list[succession.Pair]] = {}
        for work, before, after in _successive_pairs(conn):
            per_work.setdefault(work, []).append((before, after))
        counts = succession.count(per_work.values())
        pairs = list(dict.fromkeys(p for w in sorted(per_work) for p in per_work[w]))  # first met first, each once
        stored = {(bytes(f).hex(), bytes(t).hex()) for f, t in conn.execute("SELECT from_sha256, to_sha256 FROM word_diffs")}
        gone = stored.difference(pairs)
    if update is not None:
        update.pairs_result = counts
    return pairs, stored, gone


def _word_diff_rows(conn: sqlite3.Connection, update: WindowUpdate | None = None) -> Iterator[tuple[bytes, bytes, str, bytes]]:
    """The rows of every successive pair not stored yet, in the pairs' order: that of the works'
    time lines (work, language, then date), so a diff's stored pairs lie on a few neighbouring
    pages instead of one random page each; the stored pairs that no longer follow each other are
    removed (an incremental build keeps the others: a pair's row is a function of its two texts).
    The texts are read block by block (:func:`_pair_texts`). ``update``: :func:`_pairs_and_gone`."""
    pairs, stored, gone = _pairs_and_gone(conn, update)
    conn.executemany("DELETE FROM word_diffs WHERE from_sha256 = ? AND to_sha256 = ?",
                     sorted((bytes.fromhex(f), bytes.fromhex(t)) for f, t in gone))
    rows: dict[tuple[str, str], tuple[str, bytes]] = {}
    for before_sha, after_sha, before, after in _pair_texts(conn, [p for p in pairs if p not in stored]):
        a, b = before.split(), after.split()  # each text split once for the cost, the opcodes and the changes
        opcodes = bounded_opcodes(a, b, MAX_PAIR_WORDS, MAX_PAIR_MATCHES)
        if opcodes is None:
            continue
        encoding, _, body = encode(json.dumps(changes_of(a, b, opcodes), ensure_ascii=False, separators=(",", ":")))
        rows[before_sha, after_sha] = (encoding, body)
    for before_sha, after_sha in pairs:
        row = rows.get((before_sha, after_sha))
        if row is not None:
            yield bytes.fromhex(before_sha), bytes.fromhex(after_sha), row[0], row[1]


def groups_recipe() -> str:
    """The digest of what a term's frequent groups depend on besides the index's rows
    (:func:`derive.index.terms.recipe`): the thresholds, the forms' rule and the stop words."""
    from derive.index import analysis, relax, terms

    return terms.recipe(FREQUENT_DOCS, FORMS_MIN_DOCS, analysis.MAX_FORMS, analysis.MIN_STEM_WORD, analysis.MIN_STEM,
                        sorted(analysis.SNOWBALL.items()), set(relax.INDEX_STOP_WORDS), relax._YEAR.pattern)


def least_docs() -> int:
    """The fewest rows a term of a frequent group holds (:func:`_frequent_groups` reads no other)."""
    return min(FREQUENT_DOCS, FORMS_MIN_DOCS)


def _term_groups(conn: sqlite3.Connection, term: str, docs: Mapping[str, int]) -> list[Group]:
    """``term``'s match groups (its one-word match when frequent; with its Snowball forms when they
    are frequent together), before the build drops a match string met already."""
    from derive.index import analysis
    from derive.index.text import fts_query

    forms = analysis.word_forms(conn, term, None) if analysis.expandable(term) else []
    groups = [[term]] if docs[term] >= FREQUENT_DOCS else []
    if forms and docs[term] + sum(docs.get(f, 0) for f in forms) >= FREQUENT_DOCS:
        groups.append([term, *forms])
    out: list[Group] = []
    for group in groups:
        match = fts_query([group])
        if match is not None:
            out.append((match, tuple(t for t in group if t.strip())))
    return out


def _frequent_groups(conn: sqlite3.Connection, terms: Iterable[tuple[str, int]] | None = None,
                     previous: Terms | None = None, affected: Set[str] = frozenset()
                     ) -> tuple[list[tuple[str, list[str]]], dict[str, int], dict[str, list[Group]]]:
    """Every frequent match ``(match string, its terms)`` in build order, the rows holding each
    term of at least :data:`FORMS_MIN_DOCS` (or :data:`FREQUENT_DOCS`) states and each such term's
    groups (:func:`_term_groups`); ``terms``: every ``provision_vocab`` term with its rows (or those
    of at least that many rows) when the caller read them already. ``previous``: the groups kept by
    the build of the index an incremental build updates (:mod:`derive.index.terms`), taken for
    every term but the ``affected`` ones (whose rows or stems' ``term_stems`` rows changed)."""
    least = least_docs()
    docs = {str(t): int(d) for t, d in (terms if terms is not None else conn.execute(
        "SELECT term, doc FROM provision_vocab WHERE doc >= ?", (least,))) if d >= least}
    per_term: dict[str, list[Group]] = {}
    done: set[str] = set()
    out: list[tuple[str, list[str]]] = []
    for term in sorted(docs):
        kept = None if previous is None or term in affected else previous.groups.get(term)
        per_term[term] = kept if kept is not None else _term_groups(conn, term, docs)
        for match, group in per_term[term]:
            if match not in done:
                done.add(match)
                out.append((match, list(group)))
    return out, docs, per_term


@dataclass
class WindowUpdate:
    """A build's frequent windows' inputs: ``previous`` (:class:`derive.index.windows.Windows` of the
    index an incremental build copied) and ``changes`` (the works it rebuilt) in, ``result`` out."""

    previous: windows.Windows | None = None
    changes: windows.Changes | None = None
    result: windows.Windows | None = None
    #: every ``provision_vocab`` term and its rows, as the build read them after the last FTS write
    #: (or every term of at least :data:`FORMS_MIN_DOCS` rows, when ``terms_previous`` gave them)
    terms: Iterable[tuple[str, int]] | None = None
    #: the frequent terms and groups kept beside the index an incremental build copied, when it
    #: read only the changed rows' terms (:mod:`derive.index.terms`), and the terms whose groups
    #: may have changed (their rows, or their stems' ``term_stems`` rows); ``terms_result`` out
    terms_previous: Terms | None = None
    affected: Set[str] = frozenset()
    terms_result: Terms | None = None
    #: the successive pairs' counts kept beside the index an incremental build copied and the
    #: rewritten works' pairs in it (:mod:`derive.index.succession`); ``pairs_result`` out
    pairs_previous: dict[succession.Pair, int] | None = None
    pairs_old: dict[int, list[succession.Pair]] | None = None
    pairs_result: dict[succession.Pair, int] | None = None


def _frequent_rows(conn: sqlite3.Connection, update: WindowUpdate | None = None) -> Iterator[tuple[str, bytes]]:
    """One row per match: its ranked window packed by :func:`pack_window`. With an ``update``, each
    match's kept bm25 inputs (:mod:`derive.index.windows`) go to ``update.result``, and a match the
    previous index kept inputs of is brought up to date from them when that is provably exact."""
    from derive.index.schema import (  # schema imports this module
        FTS_TOKENIZER,
        PROVISION_FTS_WEIGHTS,
    )

    bm25 = "bm25(provision_fts, " + ", ".join(str(w) for w in PROVISION_FTS_WEIGHTS) + ")"
    if update is None:
        groups, docs, _ = _frequent_groups(conn)
    else:
        groups, docs, per_term = _frequent_groups(conn, update.terms, update.terms_previous, update.affected)
        update.terms_result = Terms(groups_recipe(), dict(docs), per_term)
    if update is None:
        for match, _ in groups:
            rows = conn.execute(f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
                                f"ORDER BY score, rowid LIMIT {FREQUENT_WINDOW}", (match,)).fetchall()
            if rows:
                yield match, pack_window([(int(rowid), float(score)) for rowid, score in rows])
        return
    totals = windows.fts_totals(conn)

    def hits(term: str) -> int:
        if term not in docs:
            found = conn.execute("SELECT doc FROM provision_vocab WHERE term = ?", (term,)).fetchone()
            docs[term] = int(found[0]) if found else 0
        return docs[term]

    result = windows.Windows(totals)
    previous, changes = update.previous, update.changes
    out: dict[str, bytes] = {}
    redo: list[tuple[str, list[str]]] = []
    if previous is not None and changes is not None:
        columns = dict(zip(("title", "number", "heading", "text"), PROVISION_FTS_WEIGHTS, strict=True))
        fresh = windows.changed_freqs(conn, changes, {t for m, ts in groups if m in previous.matches for t in ts},
                                      FTS_TOKENIZER, columns)
        sizes = windows.doc_sizes(conn, {r for per in fresh.values() for r in per})
        for match, terms in groups:
            kept = previous.matches.get(match)
            got = None if kept is None or kept.terms != tuple(terms) else windows.update(
                kept, previous.totals, totals, [hits(t) for t in terms], changes, fresh, sizes, FREQUENT_WINDOW)
            if got is None:
                result.facts["fallback_new" if kept is None else "fallback_bound"] = \
                    result.facts.get("fallback_new" if kept is None else "fallback_bound", 0) + 1
                redo.append((match, terms))
                continue
            window, result.matches[match] = got
            result.facts["updated"] = result.facts.get("updated", 0) + 1
            out[match] = pack_window(window)
    else:
        redo = groups
    ranked, phrase_scores = _rank_groups(conn, redo, bm25, hits)
    for match, _ in redo:
        if ranked[match]:
            out[match] = pack_window(ranked[match][:FREQUENT_WINDOW])
    result.facts["ranked"] = len(redo)
    sizes = windows.doc_sizes(conn, {r for rows in ranked.values() for r, _ in rows})
    for match, terms in redo:
        rows = ranked[match]
        kept = windows.inputs(rows, len(rows) < windows.KEEP, terms, [hits(t) for t in terms], totals, sizes,
                              phrase_scores) if rows else None
        if kept is not None:
            result.matches[match] = kept
        else:
            result.facts["no_inputs"] = result.facts.get("no_inputs", 0) + 1
    update.result = result
    for match, _ in groups:
        if match in out:
            yield match, out[match]


@dataclass
class _TermRows:
    """One term's rows as its one-phrase match scores them: ``ids`` ascending (every row holding the
    term when ``complete``), ``shares`` minus their bm25 (the term's share of a match naming it),
    ``best`` the first :data:`derive.index.windows.KEEP` in bm25 order."""

    ids: Any
    shares: Any
    best: list[tuple[int, float]]

    def scores_of(self, rows: Any) -> dict[int, float]:
        """``row id → bm25`` of those of ``rows`` (ascending ids) that hold the term."""
        np = windows._np()
        if not len(self.ids):
            return {}
        at = np.minimum(np.searchsorted(self.ids, rows), len(self.ids) - 1)
        found = self.ids[at] == rows
        return {int(r): -float(c) for r, c in zip(rows[found], self.shares[at[found]], strict=True)}


def _term_rows(conn: sqlite3.Connection, term: str, bm25: str, complete: bool) -> _TermRows:
    """A term's one-phrase FTS5 match: every row scored (``complete``), else only its best ranked."""
    from derive.index.text import fts_string

    np = windows._np()
    sql = f"SELECT rowid, {bm25} AS score FROM provision_fts WHERE provision_fts MATCH ?"
    if not complete:
        return _TermRows(np.zeros(0, dtype=np.int64), np.zeros(0), [(int(r), float(v)) for r, v in conn.execute(
            sql + f" ORDER BY score, rowid LIMIT {windows.KEEP}", (fts_string(term),))])
    rows = conn.execute(sql, (fts_string(term),)).fetchall()
    ids = np.fromiter((r for r, _ in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((v for _, v in rows), dtype=np.float64, count=len(rows))
    order = np.argsort(ids, kind="stable")
    ids, scores = ids[order], scores[order]
    return _TermRows(ids, -scores, _best(ids, scores, windows.KEEP))


def _best(ids: Any, scores: Any, keep: int) -> list[tuple[int, float]]:
    """The ``keep`` first ``(id, score)`` pairs by score then id (``ORDER BY score, rowid LIMIT keep``)."""
    np = windows._np()
    if len(ids) > keep:
        edge = np.partition(scores, keep - 1)[keep - 1]
        inside = np.nonzero(scores <= edge)[0]
        ids, scores = ids[inside], scores[inside]
    order = np.lexsort((ids, scores))[:keep]
    return [(int(ids[i]), float(scores[i])) for i in order]


def _union_sorted(arrays: Sequence[Any]) -> Any:
    """The distinct values of ascending integer arrays, ascending: ``np.unique`` of their concatenation,
    without its hashing (a stable sort merges the sorted runs, then each value is kept once)."""
    np = windows._np()
    values = np.sort(np.concatenate(arrays), kind="stable")
    if not len(values):
        return values
    return values[np.concatenate(([True], values[1:] != values[:-1]))]


def _rank_groups(conn: sqlite3.Connection, groups: Sequence[tuple[str, list[str]]], bm25: str,
                 hits: Callable[[str], int]
                 ) -> tuple[dict[str, list[tuple[int, float]]], dict[str, dict[int, float]]]:
    """Each match's :data:`derive.index.windows.KEEP` best ``(row id, bm25)`` pairs, as FTS5 gives them
    for ``ORDER BY bm25, rowid LIMIT KEEP``, and each term's one-phrase bm25 of the rows
    :func:`derive.index.windows.inputs` reads (a several-term match's window, for each of its terms but
    its :func:`derive.index.windows.residual_term`).

    bm25 of ``t₁ OR … OR tₖ`` is ``-(0.0 + c₁ + … + cₖ)`` summed in phrase order, ``cᵢ`` (nothing when
    the row lacks ``tᵢ``) minus the row's bm25 for ``tᵢ`` alone: the same ``N``, ``avgdl``, ``nᵢ`` and
    weighted hits give the same double, and numpy adds doubles as FTS5 does. So each term of a
    several-term match is scored once by FTS5 over all its rows, and its matches are summed from those
    scores instead of ranking each match (whose terms share rows: ``directive`` with ``directives``…)."""
    np = windows._np()
    keep = windows.KEEP
    several = {t for _, ts in groups if len(ts) > 1 for t in ts}
    last = {t: i for i, (_, ts) in enumerate(groups) for t in ts}  # a term's rows are dropped after its last match
    terms: dict[str, _TermRows] = {}
    ranked: dict[str, list[tuple[int, float]]] = {}
    phrase_scores: dict[str, dict[int, float]] = {}
    for i, (match, ts) in enumerate(groups):
        for t in ts:
            if t not in terms:
                terms[t] = _term_rows(conn, t, bm25, t in several)
        if len(ts) == 1:
            ranked[match] = terms[ts[0]].best
        else:
            every = _union_sorted([terms[t].ids for t in ts])
            total = np.zeros(len(every), dtype=np.float64)
            for t in ts:  # phrase order: one IEEE addition per phrase, as bm25's loop
                at = np.searchsorted(every, terms[t].ids)
                total[at] = total[at] + terms[t].shares
            ranked[match] = _best(every, -total, keep)
            rows = np.array(sorted(r for r, _ in ranked[match]), dtype=np.int64)
            rest = windows.residual_term([hits(t) for t in ts])
            for j, t in enumerate(ts):
                if j != rest:
                    phrase_scores.setdefault(t, {}).update(terms[t].scores_of(rows))
        for t in ts:
            if last[t] == i:
                terms.pop(t, None)
    return ranked, phrase_scores


def pack_window(rows: Sequence[tuple[int, float]]) -> bytes:
    """A ranked window as bytes: zlib (level :data:`derive.index.textstore.LEVEL`) of the states'
    row ids (int64 little-endian), then their scores (IEEE doubles, the exact values bm25 gave)."""
    n = len(rows)
    return zlib.compress(struct.pack(f"<{n}q{n}d", *(r for r, _ in rows), *(s for _, s in rows)), LEVEL)


def unpack_window(body: bytes, window: int) -> list[tuple[int, float]]:
    """The first ``window`` ``(state_rowid, score)`` pairs of a packed window, best first."""
    try:
        body = zlib.decompress(body)
    except zlib.error as exc:
        raise IndexError_("frequent_matches row is not a packed window", code="bad_frequent_window") from exc
    n = len(body) // 16
    if n * 16 != len(body):
        raise IndexError_("frequent_matches row of the wrong size", code="bad_frequent_window")
    values = struct.unpack(f"<{n}q{n}d", body)
    take = min(n, window)
    return [(int(values[i]), float(values[n + i])) for i in range(take)]


def frequent_window(conn: sqlite3.Connection, match: str, window: int) -> list[tuple[int, float]] | None:
    """The precomputed ranked window of a frequent one-word match, or ``None``."""
    if window > FREQUENT_WINDOW:
        return None
    row = conn.execute("SELECT body FROM frequent_matches WHERE match = ?", (match,)).fetchone()
    if row is None:
        return None
    return unpack_window(bytes(row[0]), window) or None


def write_serving_tables(conn: sqlite3.Connection, update: WindowUpdate | None = None) -> dict[str, int]:
    """(Re)fill the serving tables from the content tables; returns their row counts. ``word_diffs``
    is brought up to date (pairs computed only when new), the others are refilled whole
    (``frequent_matches`` from the previous windows' inputs where ``update`` holds them)."""
    for table in TABLES:
        if table != "word_diffs":
            conn.execute(f"DELETE FROM {table}")
    conn.executemany("INSERT INTO serving_states VALUES (?,?,?,?,?,?,?)", _states(conn))
    conn.execute("INSERT INTO serving_coverage(k, v) VALUES ('counts', ?)",
                 (json.dumps(coverage_counts(conn), ensure_ascii=False, separators=(",", ":")),))
    conn.executemany("INSERT INTO word_diffs VALUES (?,?,?,?)", list(_word_diff_rows(conn, update)))
    conn.executemany("INSERT INTO frequent_matches VALUES (?,?)", list(_frequent_rows(conn, update)))
    return {t: int(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]) for t in TABLES}


_loads = json_loads()  # the same values as json.loads on the JSON the build wrote


class StoredPair(NamedTuple):
    """A ``word_diffs`` row: the pair's word changes as JSON (``encoding`` ``utf8``/``zlib``, format 8:
    every stored pair holds its changes)."""

    encoding: str
    body: bytes

    def changes(self) -> list[dict[str, Any]]:
        """The pair's :func:`derive.index.worddiff.word_changes`."""
        value: list[dict[str, Any]] = _loads(self.changes_json())
        return value

    def changes_json(self) -> bytes:
        """The JSON of the changes, as stored: what :meth:`changes` decodes."""
        if self.encoding == "utf8":
            return bytes(self.body)
        if self.encoding == "zlib":
            return inflate(self.body)
        return decode(self.encoding, self.body).encode("utf-8")  # refused: not an encoding of changes


def stored_pairs(conn: sqlite3.Connection, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], StoredPair]:
    """``(before_sha, after_sha) → its row`` of the pairs of wordings ``word_diffs`` holds (one
    statement per 500 from-texts; a string that is not a lowercase hash is left out: the rows are
    matched as stored bytes, and a hash in capitals finds no row)."""
    asked: dict[tuple[bytes, bytes], tuple[str, str]] = {}
    for pair in pairs:
        kb, ka = textstore_key(pair[0]), textstore_key(pair[1])
        if kb is not None and ka is not None and kb.hex() == pair[0] and ka.hex() == pair[1]:
            asked[kb, ka] = pair
    froms = sorted({kb for kb, _ in asked})
    out: dict[tuple[str, str], StoredPair] = {}
    cursor = conn.cursor()
    cursor.row_factory = None  # plain tuples whatever the connection's
    for first in range(0, len(froms), 500):
        chunk = froms[first:first + 500]
        for f, t, encoding, body in cursor.execute(
                f"SELECT from_sha256, to_sha256, encoding, body FROM word_diffs "
                f"WHERE from_sha256 IN ({','.join('?' * len(chunk))})", chunk):
            found = asked.get((f, t))  # None: a row of a wanted from-text to another wording
            if found is not None:
                out[found] = StoredPair(encoding, body)
    return out


def stored_word_changes(conn: sqlite3.Connection, before_sha: str, after_sha: str) -> list[dict[str, Any]] | None:
    """The precomputed word changes of a pair of wordings (:func:`derive.index.worddiff.word_changes`
    exactly), or ``None`` when not stored."""
    row = stored_pairs(conn, [(before_sha, after_sha)]).get((before_sha, after_sha))
    return None if row is None else row.changes()
