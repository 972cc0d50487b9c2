"""``search``: provisions and works matching a query, per publisher, filters applied before ranking.

Lanes, in order of evidence strength: an exact anchor named by a provision id; the article
lane (an article number, within the named works, or matching the remaining words); the
keyword lane (FTS5 BM25 with column weights title 10, number 4, heading 6, text 1); work rows
for a named work when nothing else is asked (a work named by its identifier is followed by its
held corrigenda); then, only when direct hits are few, a fuzzy expansion of unknown words (no
work named) and light-stem prefix variants (:mod:`serve.core.relax`), and, when nothing
matched, the relaxed query (stop words dropped, then any word; a translated question's words
nothing translates dropped with them: :func:`translated_fillers`; when that found nothing, again
with its held French cognates kept, :func:`held_cognates`; a translated phrase no provision holds
searched as its French words, :func:`phrase_words`); a synonym or translation
alternative is also searched in the grammatical number the text uses (:func:`alternative_forms`);
beside keyword hits (or instead of none at the last stage: :func:`empty_at_last_stage`), the works
whose text is not held and whose titles hold most of the words (:func:`untexted_title_rows`), and beside all-words provisions held by chance, the works whose titles
hold most of the subject words (:func:`majority_titled_rows`); a dated citation whose held acts of
that day hold none of its subject words answers no hits (:func:`dated_subject_not_held`); a
section withheld for a word no provision holds is answered by the works EUR-Lex's thesaurus files
under that word when it is a narrow one-word EuroVoc label and their text holds most of the other
words (:func:`_reach_word_labels`); at the relaxed stage, a Legilux section holding
no provision with every word also answers with the acts whose names hold three or more of the question's
subject words, after its hits on acts titled by two of them (:func:`share_titled_rows`,
:data:`LEGILUX_TITLED_SHARE`);
last, with no work named, the weak metadata lane (EuroVoc / subject labels, with the matched
label as the reason). A typed reference ("la loi de 1968 sur la nationalité") ranks the one act of
that form and year on that subject first (:func:`typed_references`). Every
expansion and relaxation is reported. One hit per distinct wording: its newest occurrence that
passes the filters (or the one valid on ``as_of``); at most ``per_work_limit`` hits per work
unless works are named. Works are ranked by tier, then relevance × priors × title factors
(:func:`rank_hits`; for a question naming no work, a provision holding a majority of its words ranks
among those holding every word at :data:`PARTIAL_WEIGHT` of its relevance; the principal act holding the words in twice the provisions of any other is
weighed as if its names held them: :func:`work_breadth`, :func:`dominant_work`); a subordinate
work's principal act comes before it when the query names its subject (:func:`parents_first`); an
act named alone is followed by the acts in force that repealed it, the acts it repealed (in its title's
order), the acts of
its name or title and the acts around it; a name several acts bear answers those acts when the
words found nothing (:func:`ambiguous_rows`); an answer no section answered is relaxed, last, to the
legal terms the reviewed lexicon gives its everyday words (:func:`_reach_legal_terms`). The fan-out answer lists its publisher sections in order of evidence
(:func:`order_sections`) and adds ``merged`` (:mod:`serve.core.merge`), led by the first section's
head (``docs/search.md``). ``limit`` cuts the answer and never reorders it: the search is ranked at
the fixed depths :data:`SEARCH_DEPTHS` and stitched (:func:`run`, :func:`stitched`), so the first
``k`` hits of a ``limit`` ``n`` answer are the ``limit`` ``k`` answer.
"""

from __future__ import annotations

import datetime
import functools
import itertools
import math
import re
import sqlite3
import sys
import types
import weakref
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar, cast

from derive.index import analysis, everyday, relax, xlang
from derive.index.query import MONTH_NUMBERS, parse_query
from derive.index.rows import WORK_SPAN
from derive.index.schema import PROVISION_FTS_WEIGHTS, VOCABULARY_MIN_LENGTH
from derive.index.serving import FREQUENT_WINDOW
from derive.index.text import fts_query, fts_string, levenshtein_within, normalize
from derive.index.textstore import read_heads
from legal.outcomes import Outcome
from serve.core import actterms, dated, lanes, merge, ranking, reorder, siblings, subjects, titleidf
from serve.core.actyears import asked_year, dated_first, slug_year
from serve.core.envelope import Answer, CallContext, answer, fanout, is_provisional
from serve.core.formnames import (
    FORM_DOCUMENT_TYPES,
    LAW,
    FormSubject,
    compound_terms,
    form_subject,
    is_name_number,
)
from serve.core.impossible import impossible_citation
from serve.core.jurisdiction import foreign_law, luxembourg_alone
from serve.core.known_index import IndexAt, index_at
from serve.core.mount import Catalogue, MountedIndex
from serve.core.ops import absent_subject as absent
from serve.core.ops import empty_titled, rare_body
from serve.core.ops import unheld_name as unheld
from serve.core.places import FOREIGN_PLACES, PLACE_FIRST_WORDS
from serve.core.resolve import acronym_tokens, enacted_by, mounted_publisher, named_acronyms
from serve.core.searchplan import (
    FREQUENT_PHRASE_WORKS,
    POPULAR_TAIL_FORMS,
    ActName,
    Mention,
    Plan,
    act_name,
    build_plan,
    text_languages,
)
from serve.core.snippet import HEAD, head_snippet, snippet
from serve.core.store import Work, texts, works_by_rowid
from serve.core.topk import (
    RankedCache,
    bounded_window,
    match_count,
    precomputed_window,
    ranked_rows,
    values_source,
)

OVERSAMPLE = 6
#: States ranked before filters are joined, at least (see :func:`ranked_occurrences`).
RANK_FIRST = 120
#: States ranked beyond the rows asked for in the first window, so that the last row asked for
#: can score strictly better than the window's edge (:func:`_window_enough`).
WINDOW_MARGIN = 8
#: Bytes of a stored text inflated first for its snippet (:func:`text_snippets`): the characters
#: scanned and a window, with room for multi-byte characters (``’`` is three bytes).
FIRST_HEAD_BYTES = 32_768
#: Rows of a ranked window's VALUES list are padded to a multiple of this (:func:`_window_rows`).
VALUES_STEP = 32
FUZZY_MIN_EXACT_HITS = 5
FUZZY_MAX_TOKENS = 8
FUZZY_MAX_EXPANSIONS = 6
FUZZY_PER_TOKEN = 2
#: A metadata label must hold this many query words (or all of them, if fewer) to be a weak hit.
MIN_METADATA_TOKENS = 2
#: The subject evidence of a work the question names by a EuroVoc label (:func:`with_subject_labels`):
#: above 0, so :func:`_keep_on_subject` keeps its any-word hits; never used to rank.
SUBJECT_LABEL_COVERAGE = 0.01
#: The subject evidence of an untitled work one of whose any-word hits is headed by a subject word of
#: the question (:func:`with_headings`): above 0, so :func:`_keep_on_subject` keeps it; never used to rank.
HEADING_COVERAGE = 0.01
#: Distinct subject words of the question the headings of an untitled work's any-word hits must hold together.
HEADING_MIN_WORDS = 2
#: Held word forms added per query word from its Snowball stem (most frequent first).
SNOWBALL_MAX_VARIANTS = analysis.MAX_FORMS
#: Candidate provisions fetched per requested row when results are grouped by work.
WORK_OVERSAMPLE = 12
#: The depths a search is ranked at, whatever its ``limit`` (:func:`run`): the answer's first 10 hits
#: per section are those of the search ranked at 10, the next 10 those ranked at 20, the rest those
#: ranked at 50 (the largest ``limit``, :mod:`serve.core.registry`), so the first ``k`` hits of a
#: ``limit`` ``n`` answer are the ``limit`` ``k`` answer (docs/search.md, ADR 0055).
SEARCH_DEPTHS = (10, 20, 50)
#: Ranking tiers: hits inside the work the query names; direct keyword hits; weaker lanes.
TIER_NAMED, TIER_DIRECT, TIER_WEAK = 0, 1, 2
_WEAK_REASONS = frozenset({"partial_terms", "any_term", "relaxed", "title_words", "work_metadata"})
#: Work-level title field weight: a work whose names hold every query word weighs ``1 + TITLE_BOOST``.
TITLE_BOOST = 1.0
#: A work whose shortest title is about nothing but the query's words weighs ``1 + SUBJECT_BOOST`` more.
SUBJECT_BOOST = 1.0
#: A Legilux principal act whose title subject is the whole question and whose names hold every one
#: of its words ("titrisation" → the loi relative à la titrisation) weighs this much more again: the
#: question names it by its subject (:func:`exact_subject`).
EXACT_SUBJECT_BOOST = 2.0
#: Share of the query words' IDF mass a partially matching provision must hold.
IDF_QUORUM = 0.65
#: Whether the any-word quorum excuses a missing everyday word rare in law to a provision holding
#: another of them (:func:`everyday_words`, ADR 0128).
EXCUSE_EVERYDAY = True
#: An everyday word is rare in law when its IDF weight in the searched index is at least this: about
#: 100 provisions of either full index (67,739 and 69,530 provision states: 102 and 105), the count
#: the list itself, ``derive/index/everyday_words.json``, is selected with. A weight, not a count, so
#: a smaller index (the fixtures' 3,302 states: 5 provisions) asks as much rarity of a word.
EVERYDAY_MIN_IDF = 6.5
#: Publisher routing: a section whose best works' titles hold this much less of the query than another
#: section's is left out of a fan-out answer (:func:`route_sections`).
ROUTING_MARGIN = 0.5
#: How well (``top_title_match``, strictly more) the first work of a section of weaker matches must fit
#: the question for sections holding every word not to route it out (:func:`fits_over`): at exactly
#: 0.5 a corrigendum found by its metadata ("Corrigendum to Directive 2014/41/EU", "mutual
#: assistance in criminal matters") would come back before the Luxembourg law holding the words.
FIT_OVER = 0.5
#: A section's works are titled by the query when their :func:`title_coverage` is at least this
#: (:func:`translated_titled_over`; the bar :func:`titled_over` and :func:`route_sections` write as 0.5).
TITLED_BAR = 0.5
#: Provisions sampled when counting the works whose text holds a name as a phrase.
PHRASE_SAMPLE = 5000
#: Relevance multiplier of a work a soft (ordinary-phrase) name mention points at.
SOFT_MENTION_BOOST = 2.0
#: Share of its BM25 relevance with which a provision holding a majority of an unnamed question's
#: words (reason ``partial_terms``) competes with the provisions holding every word (:func:`rank_hits`,
#: :func:`partial_competes`): a question in a lawyer's words ("durée maximale de la période d'essai
#: d'un nouveau salarié") is held whole, by chance, by long texts off its subject (collective
#: agreements, budget laws, assembly rules), while the act that answers it holds most of its words
#: far more densely. Tuned on the tuning split and ``concept-tuning`` (flat from 0.4 to 0.8; 1.0
#: lets a five-of-seven provision outscore a seven-of-seven one, ``docs/search.md``).
PARTIAL_WEIGHT = 0.7
#: Breadth of a work's treatment of the question (:func:`rank_hits`): a work with ``n`` direct
#: keyword rows among the candidates is weighed ``1 + BREADTH_BOOST × min(1, log n / log BREADTH_FULL)``.
BREADTH_BOOST = 1.0
BREADTH_FULL = 64
#: Work-level evidence (:func:`work_breadth`): per work, the distinct provisions holding every word
#: of the lane that found the direct hits, counted over the whole match when it holds at most
#: :data:`BREADTH_MATCHED_MAX` states (an index lookup per matched state). A work holding at least
#: :data:`BREADTH_DOMINANCE` times the provisions of any other work, and at least
#: :data:`BREADTH_MIN`, is the subject's principal treatment: it is weighed as if its names held
#: the query's words (:func:`dominant_work`; a code's title names none of its subjects, and its long
#: provisions score low by BM25).
BREADTH_MATCHED_MAX = 1000
BREADTH_MIN = 5
BREADTH_DOMINANCE = 2.0
BREADTH_REMEMBERED = 2048
#: Work-level evidence over the majority of the words (:func:`quorum_breadth`): for a Legilux
#: question of three or more subject words with no dominant all-words treatment (:func:`work_breadth`),
#: a code holding the majority in the most provisions, :func:`dominant_work`'s way, is weighed as if
#: named by the words (:func:`dominant_code`; ADR 0067).
#: Off by default: measured and not adopted (six readable cases up, none down, but one case of the
#: held-out concept12 down; ADR 0067).
QUORUM_BREADTH = False
#: A Legilux section whose provisions hold no question's every word answers, beside its weaker hits, with the
#: acts whose names hold three or more of its subject words (:func:`share_titled_rows`; issue #15, everylu28).
LEGILUX_TITLED_SHARE = True
#: A Legilux code (the Code du travail, civil, pénal …) is the principal act of its field and its title
#: names none of its subjects, while its long provisions score low by BM25: it is the question's
#: principal treatment (:func:`dominant_work`) when it holds the words in more provisions than any
#: other principal act — this many times as many (issue #15, class 3: "congé de maternité", 14
#: provisions of the Code du travail against 8 of a règlement on the communal civil servants'
#: leave, ranked third behind shorter texts).
CODE_DOMINANCE = 1.0
_BM25 = "bm25(provision_fts, " + ", ".join(str(w) for w in PROVISION_FTS_WEIGHTS) + ")"
_FTS_SOURCE = f"(SELECT rowid AS state_rowid, {_BM25} AS score FROM provision_fts WHERE provision_fts MATCH ?)"
T = TypeVar("T")


@dataclass(frozen=True)
class Filters:
    works: tuple[int, ...] = ()
    language: str | None = None
    document_type: str | None = None
    as_of: str | None = None
    #: Works allowed by the hierarchy / domain filters (``None``: every work).
    allowed: frozenset[int] | None = None

    def state_sql(self) -> tuple[str, list[Any]]:
        """Predicates on the lexical state ``s`` (work, language)."""
        clauses: list[str] = ["1"]
        params: list[Any] = []
        if self.works:
            clauses.append(f"s.work_rowid IN ({','.join('?' * len(self.works))})")
            params.extend(self.works)
        if self.allowed is not None:
            clauses.append(f"s.work_rowid IN ({','.join(str(int(w)) for w in sorted(self.allowed)) or 'NULL'})")
        if self.language:
            clauses.append("s.language = ?")
            params.append(self.language)
        return " AND ".join(clauses), params

    def version_sql(self) -> tuple[str, list[Any]]:
        """Predicates on the occurrence's version ``v`` (never withdrawn; type; valid on ``as_of``)."""
        clauses: list[str] = ["v.withdrawn = 0"]
        params: list[Any] = []
        if self.document_type:
            clauses.append("v.document_type = ?")
            params.append(self.document_type)
        if self.as_of:
            clauses.append("v.valid_from <= ? AND (v.end_exclusive IS NULL OR v.end_exclusive > ?)")
            # the state ``as_of`` answers with (serve.core.resolve.resolve_on): no live state of the work
            # covering the day starts later, so an older state whose interval overlaps a newer one (a
            # publisher's overlapping consolidations) never answers for a day the newer one governs
            clauses.append("NOT EXISTS (SELECT 1 FROM versions v2 WHERE v2.work_rowid = v.work_rowid "
                           "AND v2.withdrawn = 0 AND v2.valid_from > v.valid_from AND v2.valid_from <= ? "
                           "AND (v2.end_exclusive IS NULL OR v2.end_exclusive > ?))")
            params.extend([self.as_of, self.as_of, self.as_of, self.as_of])
        return " AND ".join(clauses), params


@dataclass(slots=True)  # made per candidate row: slots make it a third cheaper to build
class Hit:
    row: dict[str, Any]
    reasons: list[str]
    extra: dict[str, Any] = field(default_factory=dict)
    #: More provisions of the same work (works grain), best first.
    nested: list[Hit] = field(default_factory=list)
    tier: int = TIER_DIRECT


def occurrences(conn: sqlite3.Connection, source: str, source_params: Sequence[Any], filters: Filters,
                limit: int) -> list[dict[str, Any]]:
    """Newest eligible occurrence of each matched lexical state, best score first.

    ``source`` yields ``(state_rowid, score)``; states failing the state filters drop out first,
    then for each remaining state a correlated subquery picks the newest version holding it that
    passes the version filters (states without one drop out), and only then are rows ranked.
    """
    state_where, state_params = filters.state_sql()
    version_where, version_params = filters.version_sql()
    # ``m`` materialised: the correlated subquery picking each state's version runs once per state
    # (inlined, SQLite ran it twice: for the join and for the output column)
    query = (
        "WITH m AS MATERIALIZED (SELECT s.state_rowid, s.work_rowid, s.language, s.anchor, s.text_sha256, s.num, s.heading, s.type, "
        "mm.score AS score, (SELECT e.version_rowid FROM provisions p "
        "JOIN expressions e ON e.expression_rowid = p.expression_rowid "
        "JOIN versions v ON v.version_rowid = e.version_rowid "
        f"WHERE p.state_rowid = s.state_rowid AND {version_where} "
        "ORDER BY v.valid_from DESC, v.version_key DESC LIMIT 1) AS version_rowid "
        f"FROM {source} mm JOIN lexical_states s ON s.state_rowid = mm.state_rowid WHERE {state_where}) "
        "SELECT m.*, v.lex_id, v.version_key, v.valid_from, v.valid_to, v.end_exclusive, v.document_type "
        "FROM m JOIN versions v ON v.version_rowid = m.version_rowid "
        "ORDER BY m.score, v.valid_from DESC, m.state_rowid LIMIT ?"
    )
    return _dicts(conn, query, [*version_params, *source_params, *state_params, limit])


def _dicts(conn: sqlite3.Connection, query: str, params: Sequence[Any]) -> list[dict[str, Any]]:
    """The rows of ``query`` as dicts by column name (what ``dict(sqlite3.Row)`` gives, built from
    plain tuples: about a third of the cost per row)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    rows = cursor.execute(query, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in rows]


def at_most(rows: Sequence[tuple[int, float, int]], limit: int) -> list[tuple[int, float, int]]:
    """The ``(state, score, version)`` ``rows`` scoring no worse than the ``limit``-th best: with no
    filter on states, the only ones that can be among the best ``limit`` (ties at the edge kept)."""
    if not 0 < limit < len(rows):
        return list(rows)
    edge = sorted(r[1] for r in rows)[limit - 1]
    return [r for r in rows if r[1] <= edge]


def window_occurrences(conn: sqlite3.Connection, window: Sequence[tuple[int, float]], filters: Filters,
                       limit: int) -> list[dict[str, Any]]:
    """:func:`occurrences` of a ranked window of ``(state_rowid, score)``, the same rows.

    Without an ``as_of`` or document type filter the version of each state is the newest live one
    holding it, a function of the index alone: it is taken from the index's memory
    (:meth:`serve.core.topk.RankedCache.newest_versions`) and joined, instead of the correlated
    subquery :func:`occurrences` runs per state (a state no live version holds drops out as there).
    """
    cache = getattr(conn, "ranked_cache", None)
    if cache is None or filters.as_of or filters.document_type or not window:
        return occurrences(conn, *values_source(window), filters, limit)
    rows = cache.newest_versions(conn).joined(window)
    if not rows:
        return []
    state_where, state_params = filters.state_sql()
    if state_where == "1" and 0 < limit < len(rows):
        # no filter on states: only the states scoring no worse than the limit-th best can answer;
        # had one of them no lexical state (never in a built index), the whole window answers
        found = _window_rows(conn, at_most(rows, limit), state_where, state_params, limit)
        if len(found) >= limit:
            return found
    return _window_rows(conn, rows, state_where, state_params, limit)


#: The columns of a ranked row, in order (:func:`occurrences`' and :func:`_window_rows`' rows).
_WINDOW_COLUMNS = ("state_rowid", "work_rowid", "language", "anchor", "text_sha256", "num", "heading", "type",
                   "score", "version_rowid", "lex_id", "version_key", "valid_from", "valid_to", "end_exclusive",
                   "document_type")
_BY_STATE, _BY_SCORE, _BY_VERSION, _BY_VALID_FROM = itemgetter(0), itemgetter(8), itemgetter(9), itemgetter(12)


def _window_row(row: Sequence[Any]) -> dict[str, Any]:
    """A joined row of :func:`_window_rows` as its dict, keyed by :data:`_WINDOW_COLUMNS` in order
    (``dict(zip(_WINDOW_COLUMNS, row))``: the same keys, order and values, written out as one dict
    display; a fifth of the CPU of ``dict(zip(…, strict=True))`` per row, a ranked window building
    120 of them)."""
    return {"state_rowid": row[0], "work_rowid": row[1], "language": row[2], "anchor": row[3],
            "text_sha256": row[4], "num": row[5], "heading": row[6], "type": row[7], "score": row[8],
            "version_rowid": row[9], "lex_id": row[10], "version_key": row[11], "valid_from": row[12],
            "valid_to": row[13], "end_exclusive": row[14], "document_type": row[15]}


def _window_rows(conn: sqlite3.Connection, rows: Sequence[tuple[int, float, int]], state_where: str,
                 state_params: Sequence[Any], limit: int) -> list[dict[str, Any]]:
    """:func:`window_occurrences`' rows of ``(state, score, version)`` ``rows``: each row's lexical
    state passing ``state_where`` joined with its version, ordered by ``(score, valid_from DESC,
    state)`` (each state once: a total order), at most ``limit`` (all when negative, as SQL's ``LIMIT``).

    The states are read in one statement by row id (``IN`` over the rows' states, each once, padded
    with ``NULL`` to a multiple of :data:`VALUES_STEP`: a few statement texts, each compiled once per
    connection), and the versions in a second one, each version once (a window's rows share a few
    versions), then joined with the rows' scores and versions, ordered and cut here: every column
    read from SQLite costs a call guarded by the connection's mutex, and reading the six version
    columns once per version instead of once per row, without SQL's sorter, took about a ninth of
    the instructions of the single ordered join (``VALUES ⋈ lexical_states ⋈ versions ORDER BY …
    LIMIT``) this replaces, with the same rows; binding only the states (not a ``VALUES`` table of
    ``(state, score, version)``: ``IN`` visits them in row id order) and joining the scores here
    took a further 6 % fewer instructions over the windows of the full corpora's bench searches."""
    cursor = conn.cursor()
    cursor.row_factory = None
    asked = list(dict.fromkeys(row[0] for row in rows))
    pad = -len(asked) % VALUES_STEP
    held = {state[0]: state for state in cursor.execute(
        "SELECT s.state_rowid, s.work_rowid, s.language, s.anchor, s.text_sha256, s.num, s.heading, s.type "
        f"FROM lexical_states s WHERE s.state_rowid IN ({','.join('?' * (len(asked) + pad))}) AND {state_where}",
        [*asked, *(None,) * pad, *state_params])}
    # each row of the window joined with its state (one joined row per window row, as a join gives)
    states = [(*state, score, version) for rowid, score, version in rows if (state := held.get(rowid)) is not None]
    if not states:
        return []
    versions = _version_columns(conn, list(dict.fromkeys(map(_BY_VERSION, states))))
    joined = [state + versions[state[9]] for state in states if state[9] in versions]
    # (score, valid_from DESC, state): stable sorts from the last key to the first
    joined.sort(key=_BY_STATE)
    joined.sort(key=_BY_VALID_FROM, reverse=True)
    joined.sort(key=_BY_SCORE)
    return [_window_row(row) for row in (joined if limit < 0 else joined[:limit])]


#: The versions whose shown columns (:func:`_version_columns`) are remembered per index, at most (a
#: full index holds a few thousand versions).
VERSIONS_REMEMBERED = 65_536
_VERSION_COLUMNS: weakref.WeakKeyDictionary[RankedCache, dict[int, tuple[Any, ...]]] = weakref.WeakKeyDictionary()


def _version_columns(conn: sqlite3.Connection, ids: Sequence[int]) -> Mapping[int, tuple[Any, ...]]:
    """``version_rowid -> (lex_id, version_key, valid_from, valid_to, end_exclusive, document_type)``
    of the versions ``ids`` that exist (the result may hold more), each read once per index: kept
    beside the index's ranked windows (the connection's :class:`serve.core.topk.RankedCache`, kept
    by :meth:`~serve.core.topk.RankedCache.clear` as a function of the immutable index alone, as
    the newest versions are), at most :data:`VERSIONS_REMEMBERED`. The ids read are padded with
    ``NULL`` to a multiple of :data:`VALUES_STEP` (few statement texts)."""
    cache = getattr(conn, "ranked_cache", None)
    known = _VERSION_COLUMNS.setdefault(cache, {}) if isinstance(cache, RankedCache) else {}
    missing = [v for v in ids if v not in known]
    if not missing:
        return known
    if len(known) + len(missing) > VERSIONS_REMEMBERED:
        known.clear()  # every id read again
        missing = list(ids)
    cursor = conn.cursor()
    cursor.row_factory = None
    pad = -len(missing) % VALUES_STEP
    known.update((r[0], r[1:]) for r in cursor.execute(
        "SELECT version_rowid, lex_id, version_key, valid_from, valid_to, end_exclusive, document_type "
        f"FROM versions WHERE version_rowid IN ({','.join('?' * (len(missing) + pad))})", [*missing, *(None,) * pad]))
    return known


def _groups(terms: Sequence[str], expansions: dict[str, list[str]] | None = None) -> list[list[str]]:
    return [[t, *(expansions or {}).get(t, [])] for t in terms]


def ranked_occurrences(conn: sqlite3.Connection, match: str, filters: Filters, limit: int,
                       groups: Sequence[Sequence[str]] | None = None) -> list[dict[str, Any]]:
    """Occurrences of the best-ranked states; exact under every filter.

    The filtered join first runs over the best-scored states only (cheap for frequent words): the
    build's precomputed window when it holds one for ``match`` (:mod:`serve.core.topk`), else the
    best ``max(RANK_FIRST, limit)`` states, then ``RANK_FIRST`` or twice ``limit``; a window is
    enough when the filters leave at least ``limit`` rows of it (every state outside it scores
    worse). A match the build holds no window of is first ranked from the windows of its phrases
    (:func:`serve.core.topk.bounded_window`, given the ``groups`` ``match`` was built from). When
    none is, the filters may have removed better-ranked eligible states, so the full match set is
    filtered and ranked instead.
    """
    first = max(RANK_FIRST, 2 * limit)
    precomputed = precomputed_window(conn, match) if limit <= FREQUENT_WINDOW else None
    # the build's window holds only states of the match: one of more than ``first`` states says the
    # match holds more, without counting its postings
    if precomputed is None or len(precomputed) <= first:
        matched = match_count(conn, match, first)  # remembered per index
        if matched <= first:  # every matched state, ranked once and remembered per index
            return window_occurrences(conn, ranked_rows(conn, match, _BM25, first), filters, limit)
    head = max(RANK_FIRST, limit + WINDOW_MARGIN)
    if precomputed is not None:
        rows = window_occurrences(conn, precomputed, filters, limit)
        if _window_enough(rows, precomputed, limit):
            return rows
    bounded = bounded_window(conn, groups, match, _BM25, first, limit) if groups and precomputed is None else None
    if bounded is not None:
        rows = window_occurrences(conn, bounded, filters, limit)
        if _window_enough(rows, bounded, limit):
            return rows
    ranked = ranked_rows(conn, match, _BM25, first)  # remembered per index: a frequent match
    heads = [ranked[:head]] if len(ranked) > head and precomputed is None else []
    for window in [*heads, ranked]:
        rows = window_occurrences(conn, window, filters, limit)
        if _window_enough(rows, window, limit):
            return rows
    return occurrences(conn, _FTS_SOURCE, [match], filters, limit)


def _window_enough(rows: Sequence[dict[str, Any]], window: Sequence[tuple[int, float]], limit: int) -> bool:
    """Whether the ``rows`` a ranked ``window`` of states left are the best ``limit``: as many as
    asked, the last scoring no worse than the window's worst (a state outside the window scores no
    better than that). Rows that tie with the window's worst are taken from the window: a state
    outside it with the same score is as relevant, and finding it would rank every posting again
    (Legilux boilerplate such as ``point`` ties across the edge). So the answer is the full
    ranking's up to the order among states tied at the edge score."""
    return len(rows) >= limit and bool(window) and rows[limit - 1]["score"] <= window[-1][1]


def keyword_lane(conn: sqlite3.Connection, terms: Sequence[str], filters: Filters, limit: int,
                 expansions: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    match = fts_query(_groups(terms, expansions))
    if match is None:
        return []
    return ranked_occurrences(conn, match, filters, limit)


def article_lane(conn: sqlite3.Connection, key: str, terms: Sequence[str], filters: Filters, limit: int,
                 primary: dict[int, str | None], match: str | None = None) -> tuple[list[dict[str, Any]], bool]:
    """Provisions numbered ``key``: joined with the words' FTS match when no work is named
    (``match`` overrides the words' strict query), else every such provision of the works."""
    if match is None:
        match = fts_query(_groups(terms)) if terms and not filters.works else None
    if match is not None:
        source = (f"(SELECT ls.state_rowid, f.score FROM lexical_states ls JOIN {_FTS_SOURCE} f "
                  "ON f.state_rowid = ls.state_rowid WHERE ls.article_key = ?)")
        return occurrences(conn, source, [match, key], filters, limit), True
    source = "(SELECT state_rowid, 0.0 AS score FROM lexical_states WHERE article_key = ?)"
    rows = occurrences(conn, source, [key], filters, limit)
    rows.sort(key=lambda r: (r["language"] != primary.get(r["work_rowid"]), _desc(r["valid_from"])))
    return rows, False


def anchor_lane(conn: sqlite3.Connection, anchor: str, filters: Filters, limit: int) -> list[dict[str, Any]]:
    source = "(SELECT state_rowid, 0.0 AS score FROM lexical_states WHERE anchor = ?)"
    rows = occurrences(conn, source, [anchor], filters, limit)
    rows.sort(key=lambda r: _desc(r["valid_from"]))
    return rows


def _desc(day: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in day)


def _bigrams(word: str) -> set[str]:
    return {word[i:i + 2] for i in range(len(word) - 1)}


def fuzzy_candidates(terms: Sequence[str]) -> list[str]:
    """Words eligible for fuzzy expansion: single words of 4+ letters, no digits."""
    return [t for t in terms if " " not in t and len(t) >= VOCABULARY_MIN_LENGTH and t.isalpha()][:FUZZY_MAX_TOKENS]


def known_terms(conn: sqlite3.Connection, terms: Sequence[str]) -> set[str]:
    return {t for t in terms if conn.execute("SELECT 1 FROM vocabulary WHERE term = ?", (t,)).fetchone()}


def swapped_neighbours(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with two neighbouring letters swapped ("socaile" / "sociale")."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def typo_distance(token: str, term: str, limit: int) -> int | None:
    """The typing distance of ``token`` from ``term`` if at most ``limit``: Levenshtein, with a swap of
    two neighbouring letters — the commonest typing slip — one edit (Levenshtein counts it two)."""
    distance = levenshtein_within(token, term, limit)
    if distance is None and limit >= 1 and swapped_neighbours(token, term):
        return 1
    return distance


def fuzzy_expansions(conn: sqlite3.Connection, terms: Sequence[str], known: set[str]) -> dict[str, list[str]]:
    """Vocabulary neighbours of words no mounted index holds (Levenshtein 1, or 2 from 8 letters; a swap
    of two neighbouring letters counts as one edit)."""
    out: dict[str, list[str]] = {}
    budget = FUZZY_MAX_EXPANSIONS
    for token in fuzzy_candidates(terms):
        if budget <= 0 or token in known:
            continue
        limit = 2 if len(token) >= 8 else 1
        rows = conn.execute("SELECT term, docs FROM vocabulary WHERE term >= ? AND term < ? "
                            "AND length(term) BETWEEN ? AND ?",
                            (token[0], chr(ord(token[0]) + 1), len(token) - limit, len(token) + limit))
        letters, pairs = set(token), _bigrams(token)
        # Exact pre-filters: an edit changes the letter set by at most two letters and destroys at
        # most two of the token's bigrams (a swap of two neighbours, three).
        near = [(str(t), int(doc)) for t, doc in rows if len(letters.symmetric_difference(t)) <= 2 * limit
                and len(pairs & _bigrams(t)) >= len(pairs) - 2 * limit - 1]
        scored = sorted((d, -doc, term) for term, doc in near
                        if (d := typo_distance(token, term, limit)) is not None)
        chosen = [term for _, _, term in scored[:min(FUZZY_PER_TOKEN, budget)]]
        if chosen:
            out[token] = chosen
            budget -= len(chosen)
    return out


def stem_variants(conn: sqlite3.Connection, terms: Sequence[str], groups: Sequence[Sequence[str]],
                  language: str | None) -> dict[str, list[str]]:
    """The held inflections of each stemmable query word (:func:`serve.core.relax.variants`).
    A word already replaced by fuzzy expansion (a typo) is not stemmed as well: two
    approximations are not stacked."""
    group_of = dict(zip(terms, groups, strict=True))
    out: dict[str, list[str]] = {}
    for term, stem in relax.stems(terms, language).items():
        if len(group_of[term]) > 1:
            continue
        held = [(str(t), int(d)) for t, d in conn.execute(
            "SELECT term, docs FROM vocabulary WHERE term >= ? AND term < ? AND length(term) <= ?",
            (stem, stem + chr(0x10FFFF), max(len(stem) + relax.STEM_MAX_ENDING, len(term) + relax.WORD_MAX_ENDING)))]
        found = [v for v in relax.variants(term, stem, held) if v not in group_of[term]]
        if found:
            out[term] = found
    return out


#: Words whose held Snowball forms are remembered per mounted index (:func:`held_forms`).
FORMS_REMEMBERED = 4096
_FORMS: weakref.WeakKeyDictionary[MountedIndex, dict[tuple[str, str | None], tuple[str, ...]]] = \
    weakref.WeakKeyDictionary()


def held_forms(conn: sqlite3.Connection, term: str, language: str | None,
               index: MountedIndex | None = None) -> list[str]:
    """:func:`derive.index.analysis.word_forms` of ``term``, remembered per mounted ``index`` (an
    immutable file; at most :data:`FORMS_REMEMBERED` words, then forgotten all at once)."""
    if index is None:
        return analysis.word_forms(conn, term, language)
    known = _FORMS.setdefault(index, {})
    found = known.get((term, language))
    if found is None:
        if len(known) >= FORMS_REMEMBERED:
            known.clear()
        found = known[term, language] = tuple(analysis.word_forms(conn, term, language))
    return list(found)


def snowball_variants(conn: sqlite3.Connection, terms: Sequence[str], language: str | None,
                      index: MountedIndex | None = None) -> dict[str, list[str]]:
    """The held word forms sharing each query word's Snowball stem (``term_stems``,
    :func:`derive.index.analysis.word_forms`): in the ``language`` filter's language, or in EN, FR
    and DE (remembered per mounted ``index``: :func:`held_forms`); an English adverb in ``-ily``
    also its adjective in ``-y`` when the index holds it (:func:`derive.index.relax.adverb_adjective`;
    issue #15, concept35)."""
    out: dict[str, list[str]] = {}
    expandable = [t for t in terms if analysis.expandable(t)][:relax.STEM_MAX_WORDS]
    # an English adverb in -ily is searched with its adjective in -y when the index holds it
    # (relax.adverb_adjective: one vocabulary look-up for all such words of the question)
    adjectives = {t: a for t in expandable if language in (None, "en") and (a := relax.adverb_adjective(t))}
    held = held_docs(conn, sorted(set(adjectives.values()))) if adjectives else {}
    for term in expandable:
        try:
            chosen = held_forms(conn, term, language, index)
        except sqlite3.OperationalError:  # an index built before term_stems
            return {}
        adjective = adjectives.get(term)
        if adjective is not None and held.get(adjective, 0) and adjective not in chosen:
            chosen = [*chosen, adjective]
        if chosen:
            out[term] = chosen
    return out


#: A synonym or translation alternative is also searched in its other grammatical number when the
#: index holds that form in more than this many times as many provisions (:func:`alternative_forms`).
NUMBER_FORM_RATIO = 10


def alternative_forms(conn: sqlite3.Connection, synonyms: Mapping[str, Sequence[str]]) -> dict[str, list[str]]:
    """Each question word's synonym and translation alternatives (``Plan.synonyms``), a one-word
    alternative followed by its form in the other grammatical number (:func:`number_pair`) when the
    text says it that way far more often (:data:`NUMBER_FORM_RATIO`): the lexicon renders
    "advertising" as « publicités », held by 14 Legilux provisions, where the acts say « publicité »
    (976; issue #15, lurank24). An alternative the text holds in its own form is searched as written."""
    words = {a for alternatives in synonyms.values() for a in alternatives if analysis.expandable(a)}
    forms = {f for a in words for f in number_forms(a)}
    docs = held_docs(conn, sorted(words | forms))
    out: dict[str, list[str]] = {}
    for term, alternatives in synonyms.items():
        found = list(alternatives)
        for alternative in alternatives:
            if docs.get(alternative, 0):
                found += [f for f in number_forms(alternative)
                          if docs.get(f, 0) > NUMBER_FORM_RATIO * docs[alternative]]
        out[term] = list(dict.fromkeys(a for a in found if a != term))
    return out


def number_forms(word: str) -> list[str]:
    """The spellings ``word`` may have in the other grammatical number: less a final ``s`` or ``x``,
    or with a final ``s`` (« publicités » / « publicité », « réseaux » / « réseau »); none for a word
    shorter than :data:`VOCABULARY_MIN_LETTERS` + 1 letters (``vocabulary`` does not count the
    shorter form: « loi » / « lois », "pay" / « pays ») or ending in ``ss`` ("process"). Pure."""
    if len(word) <= VOCABULARY_MIN_LETTERS or word.endswith("ss"):
        return []
    return [word[:-1]] if word[-1] in "sx" else [word + "s"]


def held_docs(conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, int]:
    """How many provisions hold each of ``words`` (``vocabulary``; a word it does not list: absent)."""
    if not words:
        return {}
    return {str(t): int(n) for t, n in conn.execute(
        f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", list(words))}


def work_rows(conn: sqlite3.Connection, plan: Plan, filters: Filters, index: MountedIndex | None = None) -> list[Hit]:
    """A row per named work (its newest eligible state); a work named by an identifier is
    followed by its held corrigenda (CELEX ``…R(NN)``, same reason, ``corrigendum_of``), never
    preceded by them (index_ops.md §9.2 C15)."""
    catalogue: Catalogue | None = index.catalogue if index is not None else None
    hits: list[Hit] = []
    done: set[int] = set()
    for mention in plan.mentions:
        if mention.status != "resolved":
            continue
        for rowid in mention.works:
            related = catalogue.corrigenda.get(rowid, []) if catalogue and mention.reason.endswith("identifier") else []
            for work in [rowid, *related]:
                if work in done:
                    continue
                done.add(work)
                hit = _work_row(conn, work, filters, [mention.reason])
                if hit is not None:
                    if work != rowid and index is not None and catalogue is not None:
                        hit.extra["corrigendum_of"] = f"{index.publisher.value}:{catalogue.slug_of[rowid]}"
                    hits.append(hit)
    return hits


def newest_work_row(conn: sqlite3.Connection, rowid: int, as_of: str | None,
                    document_type: str | None = None) -> dict[str, Any] | None:
    """The work row of ``rowid``'s newest version (by ``valid_from``, then ``version_key``) never
    withdrawn, valid on ``as_of`` (``valid_from <= as_of < end_exclusive``) and of ``document_type``
    when given: the last such of :func:`serve.core.store.versions_of`, read as the six columns a
    work row shows (not every version's whole record)."""
    clauses: list[str] = ["work_rowid = ?", "withdrawn = 0"]
    params: list[Any] = [rowid]
    if as_of is not None:
        clauses.append("valid_from <= ? AND (end_exclusive IS NULL OR end_exclusive > ?)")
        params += [as_of, as_of]
    if document_type is not None:
        clauses.append("document_type = ?")
        params.append(document_type)
    found = conn.execute(
        "SELECT lex_id, version_key, valid_from, valid_to, end_exclusive, document_type FROM versions "
        f"WHERE {' AND '.join(clauses)} ORDER BY valid_from DESC, version_key DESC LIMIT 1", params).fetchone()
    if found is None:
        return None
    lex_id, version_key, valid_from, valid_to, end_exclusive, kind = tuple(found)
    return {"work_rowid": rowid, "lex_id": lex_id, "version_key": version_key, "valid_from": valid_from,
            "valid_to": valid_to, "end_exclusive": end_exclusive, "document_type": kind, "anchor": None,
            "language": None}


def _work_row(conn: sqlite3.Connection, rowid: int, filters: Filters, reasons: list[str]) -> Hit | None:
    row = newest_work_row(conn, rowid, filters.as_of, filters.document_type)
    return Hit(row, reasons) if row is not None else None


def title_lane(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters, limit: int) -> list[Hit]:
    """Works whose official titles or short titles hold every query word (``title_words``): the
    answer for a question naming a work whose text is not held (reference §2.6, identifier/title
    fallback). A work row, never a provision."""
    match = fts_query(groups)
    if match is None:
        return []
    rows = conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? ORDER BY bm25(work_fts, 0, 8, 10, 0, 0) "
                        "LIMIT ?", (f"{{titles short_titles}} : ({match})", limit)).fetchall()
    return title_rows(conn, [int(rowid) for (rowid,) in rows], groups, filters)


def title_rows(conn: sqlite3.Connection, works: Iterable[int], groups: Sequence[Sequence[str]], filters: Filters,
               limit: int | None = None) -> list[Hit]:
    """The work rows (``title_words``) of ``works``, in order, that pass the filters: the works
    filter, the allowed set, a title in the language filter's language (:func:`_titled_in`), a
    version passing the date and document-type filters (:func:`_work_row`); at most ``limit``.
    The one per-work loop of the title lanes (:func:`title_lane`, :func:`untexted_title_rows`,
    :func:`untexted_subject_rows`)."""
    hits: list[Hit] = []
    for work in works:
        if filters.works and work not in filters.works:
            continue
        if filters.allowed is not None and work not in filters.allowed:
            continue
        if filters.language and not _titled_in(conn, work, groups, filters.language):
            continue
        hit = _work_row(conn, work, filters, ["title_words"])
        if hit is not None:
            hits.append(hit)
            if limit is not None and len(hits) >= limit:
                break
    return hits


#: Work-row candidates read from the title index for :func:`untexted_title_rows`.
UNTEXTED_CANDIDATES = 200


def title_candidates(conn: sqlite3.Connection, match: str, filters: Filters, limit: int) -> list[int]:
    """The works (at most ``limit``, best BM25 first) whose official titles or short titles match the
    FTS5 ``match``, less those the works filter or the allowed set leaves out: the candidates of the
    title lanes (:func:`untexted_title_rows`, :func:`untexted_subject_rows`, :func:`majority_titled_rows`)."""
    found = [int(r[0]) for r in conn.execute(
        "SELECT rowid FROM work_fts WHERE work_fts MATCH ? ORDER BY bm25(work_fts, 0, 8, 10, 0, 0) LIMIT ?",
        (f"{{titles short_titles}} : ({match})", limit))]
    return [w for w in found if (filters.allowed is None or w in filters.allowed)
            and (not filters.works or w in filters.works)]


def texted_works(conn: sqlite3.Connection, works: Iterable[int]) -> set[int]:
    """The works among ``works`` whose text the index holds (a searchable state in ``lexical_states``)."""
    listed = ",".join(map(str, works))
    if not listed:
        return set()
    return {int(r[0]) for r in conn.execute(
        f"SELECT DISTINCT work_rowid FROM lexical_states WHERE work_rowid IN ({listed})")}


def untexted_title_rows(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters, limit: int,
                        index: MountedIndex | None = None) -> list[Hit]:
    """Works whose text is not held (no searchable state: only their names can find them) whose
    official titles or short titles hold a strict majority of the query's words, as work rows
    (``title_words``, a weak lane) beside the keyword hits: "secteur financier agrément" finds the
    loi relative au secteur financier of 1993, whose text the corpus lacks."""
    match = fts_query(groups, any_of=True)
    if match is None or len(groups) < 2:
        return []
    found = title_candidates(conn, match, filters, UNTEXTED_CANDIDATES)
    if not found:
        return []
    texted = texted_works(conn, found)
    candidates = [w for w in found if w not in texted]
    coverage = works_title_coverage(conn, candidates, groups, index)
    return title_rows(conn, (w for w in candidates if coverage.get(w, 0.0) > 0.5), groups, filters, limit)


#: Subject words an act's names must hold (a strict majority of the question's) to be brought beside
#: provisions holding every word by chance (:func:`majority_titled_rows`).
MAJORITY_TITLED_MIN = 3
#: … and the question must say at least this share of that act's title subject
#: (:func:`works_subject_precision`): a title that cites another act's title ("… et à la modification de
#: la loi modifiée du 10 mai 1995 relative à la gestion de l'infrastructure ferroviaire") or an omnibus
#: law's is about more than the words it shares with the question.
MAJORITY_TITLED_PRECISION = 1 / 3


def chance_provisions(conn: sqlite3.Connection, index: MountedIndex | None, hits: Sequence[Hit],
                      groups: Sequence[Sequence[str]]) -> bool:
    """Whether a section's provisions holding every word hold them by chance: fewer than
    :data:`FUZZY_MIN_EXACT_HITS` of them, on works whose names hold none of the question's subject
    words (:func:`direct_titled` 0; :func:`chance_hits` over a finished section)."""
    strict = sum(1 for h in hits if strict_hit(h) and h.row.get("anchor"))
    return 0 < strict < FUZZY_MIN_EXACT_HITS and direct_titled(conn, index, hits, groups) == 0.0


def majority_titled_rows(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters, limit: int,
                         index: MountedIndex | None = None) -> list[Hit]:
    """Works whose official titles or short titles hold a strict majority of the question's subject
    words (:func:`serve.core.ranking.says_subject`; at least :data:`MAJORITY_TITLED_MIN` of them), as
    work rows (``title_words``): "avance par l'Etat des pensions alimentaires impayées" names the
    Loi du 26 juillet 1980 concernant l'avance et le recouvrement de pensions alimentaires, while the
    provisions holding all six words are an EU banking regulation's and a patent law's annex
    (issue #15, lurank24). :func:`untexted_title_rows` does this for works whose text is not held."""
    subject = [g for g in groups if ranking.says_subject(g[0])]
    match = fts_query(subject, any_of=True)
    if match is None or len(subject) < MAJORITY_TITLED_MIN:
        return []
    candidates = title_candidates(conn, match, filters, UNTEXTED_CANDIDATES)
    coverage = works_title_coverage(conn, candidates, subject, index)
    held = [w for w in candidates if coverage.get(w, 0.0) > 0.5
            and round(coverage.get(w, 0.0) * len(subject)) >= MAJORITY_TITLED_MIN]
    precision = works_subject_precision(conn, held, subject, index)
    return title_rows(conn, (w for w in held if precision.get(w, 0.0) >= MAJORITY_TITLED_PRECISION),
                      groups, filters, limit)


_UNTEXTED_WORKS: weakref.WeakKeyDictionary[MountedIndex, dict[str, frozenset[int]]] = weakref.WeakKeyDictionary()


def untexted_word_works(conn: sqlite3.Connection, profiles: dict[int, ranking.WorkProfile],
                        index: MountedIndex | None = None) -> dict[str, frozenset[int]]:
    """Per name word, the works :func:`untexted_subject_rows` may answer whose names hold it: no
    text held, and a Legilux principal act (or budget law) not repealed (:func:`exact_subject`'s
    profile); read once per mounted ``index`` (empty for EUR-Lex: none qualifies)."""
    known = _UNTEXTED_WORKS.get(index) if index is not None else None
    if known is None:
        eligible = [w for w, p in profiles.items() if exact_subject(p, 1.0, 1.0)]
        texted = texted_works(conn, eligible)
        untexted = [w for w in eligible if w not in texted]
        by_word: dict[str, set[int]] = {}
        for work, words in name_words(conn, untexted, index).items():
            for word in words:
                by_word.setdefault(word, set()).add(work)
        known = {word: frozenset(works) for word, works in by_word.items()}
        if index is not None:
            _UNTEXTED_WORKS[index] = known
    return known


def untexted_name_words(conn: sqlite3.Connection, profiles: dict[int, ranking.WorkProfile],
                        index: MountedIndex | None = None) -> frozenset[str]:
    """The name words of the works :func:`untexted_subject_rows` may answer (:func:`untexted_word_works`)."""
    return frozenset(untexted_word_works(conn, profiles, index))


def names_holding_all(by_word: Mapping[str, frozenset[int]], groups: Sequence[Sequence[str]]) -> frozenset[int]:
    """The works of ``by_word`` (word -> works whose names hold it) whose names hold a term of every
    group: a word, or every word of a phrase term (:func:`name_holds`; a work
    :func:`works_title_coverage` gives 1.0). Pure."""
    found: frozenset[int] | None = None
    for group in groups:
        holders: set[int] = set()
        for term in group:
            if " " in term:
                parts = [by_word.get(word, frozenset()) for word in term.split()]
                holders.update(frozenset.intersection(*parts) if parts else ())
            else:
                holders.update(by_word.get(term, ()))
        found = frozenset(holders) if found is None else found & holders
        if not found:
            return frozenset()
    return found or frozenset()


def untexted_subjects(conn: sqlite3.Connection, by_word: Mapping[str, frozenset[int]],
                      groups: Sequence[Sequence[str]], profiles: dict[int, ranking.WorkProfile],
                      index: MountedIndex | None = None) -> list[int]:
    """The works of ``by_word`` (:func:`untexted_word_works`) whose whole title subject the question
    is (:func:`exact_subject` of their title coverage and subject precision): the only works
    :func:`untexted_subject_rows` can keep, found without ranking the title index."""
    held = sorted(names_holding_all(by_word, groups))
    if not held:
        return []
    coverage = works_title_coverage(conn, held, groups, index)
    precision = works_subject_precision(conn, held, groups, index)
    return [w for w in held if exact_subject(profiles.get(w), coverage.get(w, 0.0), precision.get(w, 0.0))]


#: Work-row candidates read from the title index for :func:`untexted_subject_rows`.
UNTEXTED_SUBJECT_CANDIDATES = 50


def untexted_subject_rows(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters,
                          profiles: dict[int, ranking.WorkProfile], index: MountedIndex | None = None) -> list[Hit]:
    """Works whose text is not held and whose names hold every word of the question, kept when the
    question is their whole title subject (:func:`exact_subject`), as work rows (``title_words``):
    "impôt sur le revenu" finds the Loi du 4 décembre 1967 concernant l'impôt sur le revenu, whose
    text the corpus lacks, even when a hundred provisions of other acts hold both words (issue #15;
    :func:`untexted_title_rows` looks only when the keyword lanes found fewer works than asked)."""
    by_word = untexted_word_works(conn, profiles, index)
    match = fts_query(groups)
    if match is None or not all(any(t in by_word for t in g) for g in groups) \
            or not untexted_subjects(conn, by_word, groups, profiles, index):
        # no such work's names hold a word of every group, or none is the question's whole title
        # subject (every work kept below is one of untexted_subjects): nothing to look up
        return []
    candidates = title_candidates(conn, match, filters, UNTEXTED_SUBJECT_CANDIDATES)
    if not candidates:
        return []
    texted = texted_works(conn, candidates)
    candidates = [w for w in candidates if w not in texted]
    coverage = works_title_coverage(conn, candidates, groups, index)
    precision = works_subject_precision(conn, candidates, groups, index)
    return title_rows(conn, (w for w in candidates
                             if exact_subject(profiles.get(w), coverage.get(w, 0.0), precision.get(w, 0.0))),
                      groups, filters)


def works_title_held(conn: sqlite3.Connection, works: Sequence[int], groups: Sequence[Sequence[str]],
                     index: MountedIndex | None = None) -> dict[int, int]:
    """Per work, how many of the word ``groups`` its names hold (:func:`works_title_coverage` as a count)."""
    return {w: round(c * len(groups)) for w, c in works_title_coverage(conn, works, groups, index).items()}


def share_titled_rows(conn: sqlite3.Connection, groups: Sequence[list[str]], filters: Filters,
                      index: MountedIndex | None = None) -> list[Hit]:
    """Works whose names hold at least :data:`serve.core.ranking.TITLED_SHARE_MIN` distinct subject words of
    the question and whose title subject it says for a third (:func:`serve.core.ranking.titled_by_share`),
    as work rows (``title_words``): the acts a Legilux section answers with when no provision holds every
    word of an everyday question (:data:`LEGILUX_TITLED_SHARE`; issue #15, everylu28)."""
    subject = [g for g in groups if ranking.says_subject(g[0])]
    match = fts_query(subject, any_of=True)
    if match is None or len(subject) < ranking.TITLED_SHARE_MIN:
        return []
    candidates = title_candidates(conn, match, filters, UNTEXTED_CANDIDATES)
    held = works_title_held(conn, candidates, subject, index)
    enough = [w for w in candidates if held.get(w, 0) >= ranking.TITLED_SHARE_MIN]
    if not enough:
        return []
    precision = works_subject_precision(conn, enough, subject, index)
    return title_rows(conn, ranking.titled_by_share(held, precision, enough), groups, filters)


def _after_titled(conn: sqlite3.Connection, index: MountedIndex | None, hits: Sequence[Hit], share: frozenset[int],
                  groups: Sequence[Sequence[str]]) -> list[Hit]:
    """``hits`` (one per work, rank order) with the works found by their names alone (``share``) after the
    works whose provisions answer and whose names hold two subject words (:func:`serve.core.ranking.after_titled`)."""
    subject = [g for g in groups if ranking.says_subject(g[0])]
    works = [h.row["work_rowid"] for h in hits]
    held = works_title_held(conn, works, subject, index)
    by_work = {h.row["work_rowid"]: h for h in hits}
    return [by_work[w] for w in ranking.after_titled(works, share, held)]


def _reach_titled_share(conn: sqlite3.Connection, index: MountedIndex | None, out: Lexical, hits: list[Hit],
                        filters: Filters, once: _Once) -> None:
    """Beside a Legilux section's weaker hits (or none), the acts whose names say a share of the
    question (:func:`share_titled_rows`); a relaxation withheld as off-subject is answered by them."""
    listed = {h.row["work_rowid"] for h in hits}
    groups = out.groups
    found = [h for h in once("titled_share", lambda: share_titled_rows(conn, groups, filters, index))
             if h.row["work_rowid"] not in listed]
    if found:
        hits.extend(found)
        out.relaxation_withheld = None
        out.titled_share = frozenset(h.row["work_rowid"] for h in found)


def _titled_in(conn: sqlite3.Connection, rowid: int, groups: Sequence[Sequence[str]], language: str) -> bool:
    """Whether one of the work's titles or names *in* ``language`` holds a word of every group."""
    for (normalized,) in conn.execute("SELECT normalized FROM work_names WHERE work_rowid = ? AND language = ? "
                                      "AND kind IN ('official_title', 'publisher_short_title', 'alias')",
                                      (rowid, language)):
        words = set(str(normalized).split())
        if all(any(t in words for t in group) for group in groups if group):
            return True
    return False


def metadata_lane(conn: sqlite3.Connection, terms: Sequence[str], filters: Filters, limit: int) -> list[Hit]:
    tokens = [t for t in terms if " " not in t and len(t) >= 3]
    match = fts_query([[t] for t in tokens], any_of=True)
    if match is None:
        return []
    rows = conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? ORDER BY bm25(work_fts, 0, 0, 0, 0, 1) "
                        "LIMIT ?", (f"metadata : ({match})", limit)).fetchall()
    hits = []
    cursor = conn.cursor()
    cursor.row_factory = None
    # only the labels holding a query word can be the best one: a work whose labels hold none is left
    # out whichever comes first (tokens hold a word: at least one must be held), so the others are
    # not read; the labels kept stay in their order (no two labels of a work share the sort key)
    holding = " OR ".join("instr(normalized, ?) > 0" for _ in tokens)
    for (rowid,) in rows:
        if filters.works and rowid not in filters.works:
            continue
        if filters.allowed is not None and rowid not in filters.allowed:
            continue
        meta = [r for r in cursor.execute(
            f"SELECT {', '.join(_METADATA_COLUMNS)} FROM work_metadata WHERE work_rowid = ? AND ({holding}) "
            f"AND kind != '{actterms.KIND}' ORDER BY kind, identifier, label, language", (rowid, *tokens))
            if not filters.language or r[3] in ("", filters.language)]
        best, best_overlap = best_label(meta, tokens)
        if best is None or best_overlap < min(MIN_METADATA_TOKENS, len(tokens)):
            continue
        matched = dict(zip(_METADATA_COLUMNS, meta[best], strict=True))
        row = newest_work_row(conn, rowid, filters.as_of)
        if row is None:
            continue
        matched.pop("normalized")
        hits.append(Hit(row, ["work_metadata"], {"matched_metadata": matched}))
    return hits


#: The columns of a work's metadata label read by :func:`metadata_lane` (``normalized`` last).
_METADATA_COLUMNS = ("kind", "identifier", "label", "language", "normalized")


def best_label(labels: Sequence[tuple[Any, ...]], tokens: Sequence[str]) -> tuple[int | None, int]:
    """The position of the first of ``labels`` (rows ending with their normalized text) holding the
    most of ``tokens`` as words, and how many it holds (``(None, -1)``: no label). A label whose
    text holds none of them even as a substring holds none as a word: not split; and once a label
    holds every token none can hold more (the same answer as splitting every label). Pure."""
    best, best_overlap = None, -1
    for i, label in enumerate(labels):
        text = label[-1]
        if best is not None and not any(t in text for t in tokens):
            continue  # holds none: 0, never more than the first label's
        words = set(text.split())
        overlap = sum(1 for t in tokens if t in words)
        if overlap > best_overlap:
            best, best_overlap = i, overlap
            if overlap >= len(tokens):
                break
    return best, best_overlap


def _merge(hits: list[Hit], rows: Sequence[dict[str, Any]], reasons: list[str], seen: set[tuple[Any, ...]],
           newest: bool = False) -> None:
    """Append one hit per (work, anchor) in rank order; with ``newest`` the group's newest wording stands for it."""
    if not newest:  # the first row of each (work, anchor) stands for it: no groups to gather
        for row in rows:
            key = (row["work_rowid"], row["anchor"])
            if key not in seen:
                seen.add(key)
                hits.append(Hit(row, list(reasons)))
        return
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = (row["work_rowid"], row["anchor"])
        if key not in seen:
            groups.setdefault(key, []).append(row)
    for key, group in groups.items():
        seen.add(key)
        chosen = max(group, key=lambda r: (r["valid_from"], r["version_key"]))
        hits.append(Hit(chosen, list(reasons)))


def shape_hits(conn: sqlite3.Connection, index: MountedIndex, hits: Sequence[Hit], words: Sequence[str],
               later: list[LaterSnippets] | None = None, works: dict[int, Work] | None = None) -> list[dict[str, Any]]:
    """The public rows of ``hits``; a work row's more provisions (works grain) are nested in
    ``provisions`` with the same fields, without ``rank``. With ``later``, the snippets cut from
    stored texts are left to :func:`cut_later` (the rows hold their fallback until then), and what
    it needs is appended to ``later``. ``works``: the works of the index read before (by the earlier
    stages of one search, :func:`works_read`), added to."""
    flat = [*hits, *(n for h in hits for n in h.nested)]
    pending = LaterSnippets(index, tuple(words), []) if later is not None else None
    shaped = _shape(conn, flat, words, pending, works)
    out = shaped[:len(hits)]
    position = len(hits)
    copies: dict[int, dict[str, Any]] = {}
    for row, hit in zip(out, hits, strict=True):
        if hit.nested:
            row["provisions"] = [{k: v for k, v in r.items() if k != "rank"}
                                 for r in shaped[position:position + len(hit.nested)]]
            copies.update((id(r), c) for r, c in zip(shaped[position:], row["provisions"], strict=False))
            position += len(hit.nested)
    if pending is not None and later is not None:
        pending.rows = [(copies.get(id(row), row), sha, fallback) for row, sha, fallback in pending.rows]
        later.append(pending)
    return out


@dataclass
class LaterSnippets:
    """Shaped rows of one index whose snippets are cut from stored texts once the answer keeps
    them (:func:`cut_later`): a publisher section routed out, or a search stage replaced by a
    weaker one, cuts none. ``rows``: ``(row, text sha, the row's snippet when the text is not stored)``."""

    index: MountedIndex
    words: tuple[str, ...]
    rows: list[tuple[dict[str, Any], str, str]]


#: Whether ``search`` cuts its hits' snippets from their stored texts (on by default). A caller that
#: scores ranked works and provisions only (the release gate's retrieval run) turns it off around
#: its calls (:func:`without_snippets`): not an argument, so the catalogue, OpenAPI and MCP schemas
#: are unchanged, and served answers are as before.
_SNIPPETS: ContextVar[bool] = ContextVar("search_snippets", default=True)


@contextmanager
def without_snippets() -> Iterator[None]:
    """``search`` calls in this block (this thread / context) cut no snippet from a stored text: a
    hit's ``snippet`` is its fallback (title, number or heading), no text is read or remembered for
    it; the hits, their order and every other field are those of the same call outside the block."""
    token = _SNIPPETS.set(False)
    try:
        yield
    finally:
        _SNIPPETS.reset(token)


def cut_later(deadline_seconds: float, pending: Sequence[LaterSnippets]) -> None:
    """The snippets :func:`shape_hits` left for later, cut and set in their rows (in place): the
    same snippets, remembered the same way, as when cut at once."""
    for group in pending:
        if not group.rows:
            continue
        with group.index.session(deadline_seconds) as conn:
            cuts = _cuts(conn, [sha for _, sha, _ in group.rows], group.words)
        for row, sha, fallback in group.rows:
            cut = cuts.get(sha)
            row["snippet"] = fallback if cut is None else str(cut)


def _from_text(hit: Hit) -> bool:
    """Whether a hit's snippet is cut from its stored text (not its title, number or heading)."""
    return hit.row["anchor"] is not None and bool(hit.row.get("text_sha256")) \
        and not ("article_intent" in hit.reasons and "keyword" not in hit.reasons)


def _cuts(conn: sqlite3.Connection, shas: Sequence[str], words: Sequence[str]) -> dict[str, str | None]:
    """``sha -> snippet`` of the texts ``shas`` for ``words`` (``None``: not stored): remembered
    ones from the index's memory, the others cut (:func:`text_snippets`) and remembered."""
    memory: RankedCache | None = getattr(conn, "ranked_cache", None)
    asked = tuple(words)
    cuts: dict[str, str | None] = {sha: memory.snippet((sha, asked)) if memory is not None else None
                                   for sha in shas}
    fresh = text_snippets(conn, [sha for sha, cut in cuts.items() if cut is None], words)
    if memory is not None:
        for sha, cut in fresh.items():
            memory.put_snippet((sha, asked), cut)
    cuts.update(fresh)
    return cuts


def works_read(conn: sqlite3.Connection, rowids: Iterable[int], known: dict[int, Work] | None = None) -> dict[int, Work]:
    """:func:`serve.core.store.works_by_rowid` of ``rowids``, those already in ``known`` not read
    again (``known``, added to and returned, may hold more)."""
    if known is None:
        return works_by_rowid(conn, rowids)
    missing = [w for w in rowids if w not in known]
    if missing:
        known.update(works_by_rowid(conn, missing))
    return known


def _shape(conn: sqlite3.Connection, hits: Sequence[Hit], words: Sequence[str],
           later: LaterSnippets | None = None, known: dict[int, Work] | None = None) -> list[dict[str, Any]]:
    works = works_read(conn, [h.row["work_rowid"] for h in hits], known)
    from_text = [_from_text(h) for h in hits]
    texted = [h.row["text_sha256"] for h, texts_it in zip(hits, from_text, strict=True) if texts_it]
    cuts = _cuts(conn, texted, words) if later is None else {}
    out = []
    for rank, (hit, texts_it) in enumerate(zip(hits, from_text, strict=True), 1):
        row, work = hit.row, works[hit.row["work_rowid"]]
        sha = row.get("text_sha256") or ""
        if row["anchor"] is None:
            cut = work.title or ""
        elif not texts_it or cuts.get(sha) is None:
            cut = " — ".join(p for p in (row.get("num"), row.get("heading")) if p) or row["anchor"]
        else:
            cut = str(cuts[sha])
        out.append({
            "rank": rank, "work": work.work_id, "title": work.title, "lex_id": row["lex_id"],
            "version_key": row["version_key"], "language": row["language"], "anchor": row["anchor"],
            "provision_id": f"{row['lex_id']}#{row['anchor']}" if row["anchor"] else None,
            "num": row.get("num"), "heading": row.get("heading"), "valid_from": row["valid_from"],
            "valid_to": row["valid_to"], "end_exclusive": row["end_exclusive"],
            "document_type": row.get("document_type") or work.document_type,
            "text_sha256": row.get("text_sha256"), "snippet": cut, "match_reasons": hit.reasons,
            "bm25": _bm25_of(row), **hit.extra,
        })
        if later is not None and texts_it and "snippet" not in hit.extra:
            later.rows.append((out[-1], sha, cut))
    return out


def text_heads(conn: sqlite3.Connection, shas: Sequence[str], chars: int = HEAD) -> dict[str, tuple[str, bool]]:
    """``sha -> (head, complete)``: at least the first ``chars`` characters of each stored text, enough
    for its snippet (:func:`derive.index.textstore.read_heads`); a long body is not decoded whole."""
    return read_heads(conn, shas, chars)


def text_snippets(conn: sqlite3.Connection, shas: Sequence[str], words: Sequence[str]) -> dict[str, str]:
    """``sha -> snippet`` of the stored texts among ``shas``: :func:`serve.core.snippet.snippet` of
    each whole text, cut from as little of it as decides it. First the heads of
    :data:`FIRST_HEAD_BYTES` bytes (a text no longer is read whole; a longer one's head decides its
    snippet when it holds the :data:`~serve.core.snippet.SCAN` characters and the window closes
    inside it: :func:`serve.core.snippet.head_snippet`), then
    :data:`~serve.core.snippet.HEAD` characters of the undecided (the block's inflater goes on where
    it stopped), then the whole text."""
    out: dict[str, str] = {}
    undecided = list(dict.fromkeys(shas))
    for chars in (FIRST_HEAD_BYTES // 4, HEAD):
        if not undecided:
            return out
        for sha, (head, complete) in text_heads(conn, undecided, chars).items():
            found = snippet(head, words) if complete else head_snippet(head, words)
            if found is not None:
                out[sha] = found
        undecided = [sha for sha in undecided if sha not in out]
    if undecided:
        out.update((sha, snippet(text, words)) for sha, text in texts(conn, undecided).items())
    return out


def _bm25_of(row: dict[str, Any]) -> float | None:
    """The row's BM25 (negative; lower is better) when a full-text match ranked it."""
    value = row.get("score")
    return round(value, 6) if isinstance(value, float) and value < 0 else None


def _scored(row: dict[str, Any]) -> bool:
    """Whether a full-text match ranked the row: ``_bm25_of(row) is not None``, without rounding."""
    value = row.get("score")
    return isinstance(value, float) and value < 0


@dataclass(frozen=True)
class LaneOptions:
    """The search arguments the lexical lanes read."""

    limit: int
    fuzzy: bool = True
    stem: bool = False
    relax: bool = False
    per_work_limit: int | None = None
    language: str | None = None
    #: ``works``: one row per work, its best provisions nested; ``provisions``: one row per provision.
    grain: str = "works"
    #: Add provisions holding a majority of the words when all-words hits are fewer than ``limit`` works.
    partial: bool = True
    #: Apply the status prior (not with ``as_of``).
    status_prior: bool = True
    #: Add Snowball stem forms to every word (``relax: auto``).
    relax_words: bool = True
    #: The last stage of a question no section answered: the lexicon's legal terms for its everyday
    #: words may answer (:func:`_reach_legal_terms`).
    legal_terms: bool = False
    #: The stage after every other, when no section answered: the acts whose names hold the
    #: question's held words (:mod:`serve.core.ops.empty_titled`, ADR 0078).
    empty_titled: bool = False


@dataclass
class Lexical:
    """What the lexical lanes found, with every expansion and relaxation they used."""

    hits: list[Hit]
    expansions: list[str] = field(default_factory=list)
    relaxed: dict[str, Any] | None = None
    words: list[str] = field(default_factory=list)
    #: Candidate hits left out because their work already had ``per_work_limit`` hits.
    held_back: int = 0
    #: Why nothing was relaxed although nothing matched (``unknown_terms`` / ``filters``), or why
    #: the any-word relaxation's hits were all left out (``off_subject``: :func:`_keep_on_subject`).
    relaxation_withheld: dict[str, Any] | None = None
    #: The content words' term groups (with their Snowball forms), for the title coverage.
    groups: list[list[str]] = field(default_factory=list)
    #: Share of the content words the titles of the best works hold (:func:`title_coverage`).
    title_coverage: float | None = None
    #: How well the first work's title fits the query (:func:`title_match`, :func:`order_sections`).
    top_title_match: float | None = None
    #: Per work, its provisions holding every word over the whole match (:func:`work_breadth`), for
    #: :func:`dominant_work`.
    breadth: dict[int, int] = field(default_factory=dict)
    #: The largest share of the question's subject words that the names of a work holding a strict
    #: hit hold (:func:`direct_titled`); ``None`` without one. 0: every provision holding all the
    #: words is on a work named by none of them (:func:`chance_hits`).
    direct_titled: float | None = None
    #: The branches reached whose course the stage's options ``stem`` and ``relax`` decide
    #: (:meth:`gate`); none: the lanes found the same whatever the stage (:func:`run` keeps the section).
    gates: set[str] = field(default_factory=set)
    #: The works answered by their names' share of the question alone (:func:`_reach_titled_share`).
    titled_share: frozenset[int] = frozenset()
    #: The first works (one hit each, hand-set order) and their vectors (:func:`reorder_candidates`),
    #: when :func:`serve.core.reorder.wanted` and the question may be reordered (:func:`reorderable`).
    candidates: list[tuple[Hit, tuple[float, ...]]] = field(default_factory=list)
    #: The first ``limit`` works as the learnt weights order them, when that differs from :attr:`hits`
    #: (:data:`serve.core.reorder.REORDER`); the hand-set :attr:`hits` decide every stage and routing.
    reordered: list[Hit] | None = None

    def gate(self, name: str, reached: bool) -> bool:
        """``reached``, noted in :attr:`gates` under ``name`` when true: a branch that the stage's
        ``stem`` or ``relax`` option decides is reached (called before the option is read, so that a
        stage without the option notes what a stage with it would do differently)."""
        if reached:
            self.gates.add(name)
        return reached


def _ranked_groups(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters, limit: int) -> list[dict[str, Any]]:
    match = fts_query(groups)
    return ranked_occurrences(conn, match, filters, limit, groups) if match is not None else []


def quorum_occurrences(conn: sqlite3.Connection, groups: list[list[str]], min_terms: int, filters: Filters,
                       limit: int, article_key: str | None = None, phrase_df: bool = False,
                       excuse: bool = True) -> list[dict[str, Any]]:
    """Occurrences of the states holding at least ``min_terms`` of the term ``groups``, ranked
    by the BM25 of the groups OR-ed (optionally only provisions numbered ``article_key``; a phrase
    weighed by its rarest word with ``phrase_df``, :func:`idf_weights`). With ``excuse`` (the
    any-word relaxation; not the majority-of-words lane beside all-words hits), a provision holding one
    of the question's everyday words rare in law may lack the others (:func:`everyday_words`, ADR 0128)."""
    groups = [g for g in groups if fts_query([g]) is not None]
    parts = [str(fts_query([g])) for g in groups]
    match = fts_query(groups, any_of=True)
    if not parts or match is None:
        return []
    weights = idf_weights(conn, groups, phrase_df)
    # (not in the article lane: the article number the question names is itself the rare part)
    share = IDF_QUORUM if article_key is None else 0.0
    threshold = round(share * sum(weights), 6)
    excused = everyday_words(groups, weights) if excuse and share > 0 else None
    if excused is None:
        parts = pivot_parts(parts, weights, threshold)
        each = " UNION ALL ".join(f"SELECT rowid, {w!r} AS w FROM provision_fts WHERE provision_fts MATCH ?"
                                  for w in weights)
        having = "COUNT(*) >= ? AND SUM(w) >= ?"
        quorum_params: list[Any] = [min_terms, threshold]
    else:
        # ADR 0128: or the row holds one of the question's everyday words rare in law and reaches
        # the share of the mass counted without the everyday words it lacks — held + everyday held
        # >= share x (other words + everyday held), i.e. each everyday word it holds counts
        # (1 - share) of its weight against the share of the other words' mass
        others = round(share * sum(w for w, e in zip(weights, excused, strict=True) if not e), 6)
        counted = [round((1 - share) * w, 4) if e else w for w, e in zip(weights, excused, strict=True)]
        parts = pivot_parts(parts, weights, threshold, (counted, others))
        each = " UNION ALL ".join(f"SELECT rowid, {w!r} AS w, {r!r} AS r, {int(e)} AS e FROM provision_fts "
                                  "WHERE provision_fts MATCH ?" for w, r, e in zip(weights, counted, excused, strict=True))
        having = "COUNT(*) >= ? AND (SUM(w) >= ? OR (SUM(e) >= 1 AND SUM(r) >= ?))"
        quorum_params = [min_terms, threshold, others]
    # ``+rowid``: a plain filter over the OR match; a bare ``rowid IN`` would make FTS5 re-run the
    # match once per quorum row (6x slower on the fixtures). Coverage-aware: a provision must hold
    # ``min_terms`` of the words *and* at least IDF_QUORUM of their IDF mass, so the rare word a
    # question is about cannot be dropped for two common ones.
    ranked = (f"SELECT rowid AS state_rowid, {_BM25} AS score FROM provision_fts WHERE provision_fts MATCH ? "
              f"AND +rowid IN (SELECT rowid FROM ({each}) GROUP BY rowid HAVING {having})")
    params: list[Any] = [match, *parts, *quorum_params]
    if article_key is not None:
        ranked = (f"SELECT ls.state_rowid, f.score FROM lexical_states ls JOIN ({ranked}) f "
                  "ON f.state_rowid = ls.state_rowid WHERE ls.article_key = ?")
        params.append(article_key)
    # As in ranked_occurrences: join the filters over the best-scored states first, and over
    # all of them only when that leaves fewer rows than asked.
    first = max(RANK_FIRST, 2 * limit)
    cursor = conn.cursor()
    cursor.row_factory = None
    window = [(int(r[0]), float(r[1])) for r in cursor.execute(f"{ranked} ORDER BY score LIMIT {first}", params)]
    rows = window_occurrences(conn, window, filters, limit)
    if len(rows) >= limit or len(window) < first:
        # a window short of its ``LIMIT`` holds every state of the quorum: the filtered join over
        # the whole quorum (run again below) would give these same rows
        return rows
    return occurrences(conn, f"({ranked})", params, filters, limit)


def everyday_words(groups: Sequence[Sequence[str]], weights: Sequence[float]) -> list[bool] | None:
    """Which term ``groups`` (IDF ``weights``, :func:`idf_weights`) are everyday words rare in law, or
    ``None`` when none is (or :data:`EXCUSE_EVERYDAY` is off; ADR 0128).

    A group is one when its question word is listed by :func:`derive.index.everyday.is_everyday`
    (common in general language: « fauteuil », « pommier », « colis ») and its IDF weight in the
    searched index is at least :data:`EVERYDAY_MIN_IDF` (about 100 provisions of a full index). The act that answers a plain-word question in its own words lacks such a word (« fauteuil
    roulant » / « aides techniques »), which carried enough of the IDF mass to keep it under the
    any-word quorum's share; :func:`quorum_occurrences` excuses it to a provision holding another of
    the question's everyday words."""
    if not EXCUSE_EVERYDAY:
        return None
    excused = [bool(g) and w >= EVERYDAY_MIN_IDF and everyday.is_everyday(g[0])
               for g, w in zip(groups, weights, strict=True)]
    return excused if any(excused) else None


def pivot_parts(parts: Sequence[str], weights: Sequence[float], threshold: float,
                also: tuple[Sequence[float], float] | None = None) -> list[str]:
    """The per-group matches of a quorum, the common groups' restricted to the rows holding a rarer one.

    The most common groups (lowest IDF weight first) whose weights together stay under
    ``threshold`` can never make the quorum on their own, so a qualifying row holds one of the
    other groups: each common group's match becomes ``(group) AND (any rarer group)``, which FTS5
    answers by skipping through the common word's postings instead of reading them all. The rows
    counted, hence the quorum, are the same.
    """
    common = common_groups(weights, threshold)
    if also is not None:
        common &= common_groups(*also)
    rare = [parts[i] for i in range(len(parts)) if i not in common]
    if not common or not rare:
        return list(parts)
    restrict = " OR ".join(rare)
    return [f"({part}) AND ({restrict})" if i in common else part for i, part in enumerate(parts)]


def common_groups(weights: Sequence[float], threshold: float) -> set[int]:
    """The most common groups (lowest weight first) whose weights together stay under ``threshold``."""
    order = sorted(range(len(weights)), key=lambda i: (weights[i], i))
    common: set[int] = set()
    mass = 0.0
    for i in order:
        if mass + weights[i] >= threshold:
            break
        common.add(i)
        mass += weights[i]
    return common


def provision_count(conn: sqlite3.Connection, default: int) -> int:
    """The number of provision states the index holds (its stamp's ``count.lexical_states``), ``default`` when the
    stamp does not say."""
    row = conn.execute("SELECT v FROM stamp WHERE k = 'count.lexical_states'").fetchone()
    return int(row[0]) if row else default


def idf_weights(conn: sqlite3.Connection, groups: Sequence[Sequence[str]], phrase_df: bool = False) -> list[float]:
    """``ln(1 + N / df)`` per term group (``df``: provisions holding any of its words, from
    ``vocabulary``; a word it does not list, such as a number, counts as rare — except a word
    too short for it to list (:func:`short_word_docs`), and, with ``phrase_df``, a phrase
    (:func:`phrase_docs`))."""
    total = provision_count(conn, 1)
    out = []
    for group in groups:
        df = 0
        for term in group:
            row = conn.execute("SELECT docs FROM vocabulary WHERE term = ?", (term,)).fetchone()
            df += int(row[0]) if row else phrase_docs(conn, term) if phrase_df and " " in term \
                else short_word_docs(conn, term)
        out.append(round(math.log(1 + total / max(df, 1)), 4))
    return out


def phrase_docs(conn: sqlite3.Connection, phrase: str) -> int:
    """The provisions a ``phrase`` may be held by, bounded by its rarest content word's count
    (``vocabulary``; :func:`short_word_docs` for a short one): ``vocabulary`` lists no phrase, and
    counted as held by one provision a phrase carried the any-word quorum's IDF share alone
    ("state aid" « aide de l'État » over « journalisme professionnel »; issue #15)."""
    words = [w for w in phrase.split() if not relax.index_stop_word(w)] or phrase.split()
    docs = held_docs(conn, words)
    return max(1, min(docs.get(w) or short_word_docs(conn, w) for w in words))


#: Document counts of words too short for ``vocabulary``, per index content (see :func:`short_word_docs`).
_SHORT_DOCS: dict[tuple[str, str], int] = {}
_SHORT_DOCS_MAX = 4096


def short_word_docs(conn: sqlite3.Connection, term: str) -> int:
    """The provisions holding ``term`` when ``vocabulary`` cannot list it (a word of fewer than
    ``VOCABULARY_MIN_LENGTH`` letters: ``loi``, ``act``, ``law``, ``vat``), read from the FTS5
    vocabulary and kept per index content (its digest); 1 (rare) for anything else it does not
    list (a number).

    Counting such a word as rare made it carry the any-word quorum: "loi sur les taxis volants"
    reached the IDF share with ``loi`` + ``taxis`` alone (``loi`` is in half the Legilux
    provisions), so the taxi law answered a question about flying taxis."""
    if not term.isalpha() or len(term) >= VOCABULARY_MIN_LENGTH:
        return 1
    # the FTS tables are a function of the indexed content, so its digest names the counts
    row = conn.execute("SELECT v FROM stamp WHERE k = 'content_digest'").fetchone()
    key = (str(row[0]) if row else str(conn.execute("PRAGMA database_list").fetchone()[2]), term)
    if key not in _SHORT_DOCS:
        if len(_SHORT_DOCS) >= _SHORT_DOCS_MAX:
            _SHORT_DOCS.clear()
        row = conn.execute("SELECT doc FROM provision_vocab WHERE term = ?", (term,)).fetchone()
        _SHORT_DOCS[key] = int(row[0]) if row else 1
    return _SHORT_DOCS[key]


def _relaxed_rows(conn: sqlite3.Connection, relaxation: relax.Relaxation, filters: Filters, limit: int,
                  article_key: str | None = None, phrase_df: bool = False) -> list[dict[str, Any]]:
    if not relaxation.any_of and article_key is None:
        return _ranked_groups(conn, relaxation.groups, filters, limit)
    return quorum_occurrences(conn, relaxation.groups, relaxation.min_terms, filters, limit, article_key, phrase_df)


def _held(conn: sqlite3.Connection, group: list[str]) -> bool:
    match = fts_query([group])
    return match is not None and conn.execute(
        "SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1", (match,)).fetchone() is not None


def relaxation_withheld(conn: sqlite3.Connection, terms: Sequence[str], groups: list[list[str]], filters: Filters,
                        article_key: str | None = None) -> dict[str, Any] | None:
    """Why a query that found nothing must not be relaxed, or ``None``.

    Relaxing answers the same question less strictly; it must not answer another one:
    ``unknown_terms`` — a content word this index does not hold at all is what the question
    is about, so the corpus has nothing on it; ``filters`` — the words do match provisions of
    the same works once ``as_of``/``language``/``document_type`` are lifted, so the filters,
    not the words, emptied the answer.
    """
    unknown = [t for t, g in zip(terms, groups, strict=True) if not relax.relaxable_term(t) and not _held(conn, g)]
    if unknown:
        return {"reason": "unknown_terms", "terms": unknown}
    if filters.as_of or filters.language or filters.document_type:
        lifted = Filters(works=filters.works)
        if article_key is not None:
            match = fts_query(groups)
            source = (f"(SELECT ls.state_rowid, f.score FROM lexical_states ls JOIN {_FTS_SOURCE} f "
                      "ON f.state_rowid = ls.state_rowid WHERE ls.article_key = ?)")
            found = bool(match) and bool(occurrences(conn, source, [match, article_key], lifted, 1))
        else:
            found = bool(_ranked_groups(conn, groups, lifted, 1))
        if found:
            return {"reason": "filters", "filters": {k: v for k, v in (("as_of", filters.as_of),
                    ("language", filters.language), ("document_type", filters.document_type)) if v}}
    return None


def lexical_lanes(conn: sqlite3.Connection, plan: Plan, filters: Filters, options: LaneOptions, known: set[str],
                  index: MountedIndex | None = None, memo: dict[str, Any] | None = None) -> Lexical:
    """Every keyword-mode lane of one publisher, in order (see the module docstring), then the
    ranking of works (:func:`rank_hits`).

    ``memo`` keeps lane results between the calls of one search (strict, then with stems,
    then relaxed: :func:`run`), so a weaker stage only adds its own queries.
    """
    cache: dict[str, Any] = {} if memo is None else memo

    def once(key: str, compute: Callable[[], T]) -> T:
        if key not in cache:
            cache[key] = compute()
        return cast(T, cache[key])

    out = Lexical([], words=list(plan.terms))
    hits, seen = out.hits, set[tuple[Any, ...]]()
    budget = options.limit * (WORK_OVERSAMPLE if options.grain == "works" else OVERSAMPLE)
    profiles = ranking.profiles(conn, index) if index is not None else {}
    if plan.intent and plan.constraints and index is not None:
        hits.extend(once("intent", lambda: _intent_rows(conn, index, plan, filters, profiles)))
        if hits:
            out.hits = hits[:options.limit]
            return out
    if plan.anchor and plan.constraints:
        rows = once("anchor", lambda: anchor_lane(conn, plan.anchor or "", filters, budget))
        _merge(hits, rows, ["exact_identifier"], seen, newest=True)
    elif plan.article_key:
        _article_lanes(conn, plan, filters, options, out, seen, once)
        if not hits and plan.terms and not plan.constraints and not plan.boost and plan.article_key.isdigit():
            # no act named and no provision of that number holds the words: the article is one the
            # named act's own text cites ("derogating from Article 193 of Directive 2006/112/EC"),
            # so its number is one of the words (one more search, only when the first is empty, of
            # the provisions holding every word: neither relaxed nor partial, the answers after it stay)
            cited = replace(plan, article_key=None, terms=[*plan.terms, plan.article_key])
            _keyword_lanes(conn, cited, filters, replace(options, relax=False, partial=False), known, out, seen,
                           lambda key, compute: once("cited_article:" + key, compute), index)
    elif plan.terms:
        _keyword_lanes(conn, plan, filters, options, known, out, seen, once, index)
    named = bool(plan.constraints) and not plan.explicit_works
    if named:
        for hit in hits:
            hit.tier = TIER_NAMED
    for hit in hits:  # a work named by an ordinary phrase comes first too, without restricting the rest
        if hit.row["work_rowid"] in plan.boost:
            hit.tier = TIER_NAMED
    if plan.strong and (not hits or (not plan.article_key and not plan.terms and not plan.anchor)):
        # a named work is never lost: its row answers when its text holds none of the other words
        named_rows = once("works", lambda: work_rows(conn, plan, filters, index))
        residual = ["residual_unmatched"] if plan.terms or plan.article_key else []
        hits.extend(Hit(dict(r.row), [*r.reasons, *residual], dict(r.extra), tier=TIER_NAMED) for r in named_rows)
        if not residual and not plan.anchor and named and len(plan.constraints) == 1 and index is not None:
            # a query that is only the name of one act: the other acts of that name, then the acts
            # around it follow it
            listed = {h.row["work_rowid"] for h in hits}
            same = [h for h in once("same_name", lambda: _same_name_rows(conn, index, plan, filters))
                    if h.row["work_rowid"] not in listed]
            hits.extend(same)
            listed |= {h.row["work_rowid"] for h in same}
            hits.extend(h for h in once("related", lambda: _related_rows(conn, index, plan, filters, profiles))
                        if h.row["work_rowid"] not in listed)
    elif plan.strong and len(plan.constraints) >= 2 and not plan.anchor and not plan.article_key:
        # several acts named and the words found in some of them only ("Regulation 1216/1999 amending
        # Regulation No 17 implementing Articles 81 and 82"): a named act whose text holds none of the
        # words is not lost either; its row follows the named acts that hold them (de37)
        listed = {h.row["work_rowid"] for h in hits}
        lost = [replace(m, works=[w for w in m.works if w not in listed]) for m in plan.mentions
                if m.status == "resolved" and not m.soft and any(w not in listed for w in m.works)]
        if lost:
            hits.extend(Hit(dict(r.row), [*r.reasons, "residual_unmatched"], dict(r.extra), tier=TIER_NAMED)
                        for r in once("lost_works", lambda: work_rows(conn, replace(plan, mentions=lost), filters, index)))
    missing = [w for w in plan.boost if w not in {h.row["work_rowid"] for h in hits}]
    if missing and not plan.explicit_works:
        # the rows of the boosted works not found by the words (the acts of one cited date are all
        # fetched); after the named works' rows, which a boosted row must not stand in for
        # ("EMIR vs MiFIR": MiFIR named softly, EMIR by constraint)
        soft = replace(plan, mentions=[replace(m, works=[w for w in m.works if w in missing], soft=False,
                                               status="resolved") for m in plan.mentions if m.soft])
        hits.extend(Hit(dict(r.row), [*r.reasons, "residual_unmatched"], dict(r.extra), tier=TIER_NAMED)
                    for r in once("soft_works", lambda: work_rows(conn, soft, filters, index)))
    if named and plan.terms and not plan.anchor and not plan.article_key:
        # … and the other words are also searched everywhere, after the named work
        wider = replace(plan, constraints=[], mentions=[m for m in plan.mentions if m.soft])
        extra = Lexical([], words=[])
        _keyword_lanes(conn, wider, replace(filters, works=()), options, known, extra, seen,
                       lambda key, compute: once("wide:" + key, compute), index)
        hits.extend(extra.hits)
        out.gates |= extra.gates
        out.expansions += [e for e in extra.expansions if e not in out.expansions]
    if not plan.strong and (hits or empty_at_last_stage(out, options)) and len(out.groups) >= 2 \
            and options.grain == "works" and len({h.row["work_rowid"] for h in hits}) < options.limit:
        # beside the keyword hits, the acts only their names can find; and instead of no hits at all
        # (the last stage found none: empty_at_last_stage)
        listed = {h.row["work_rowid"] for h in hits}
        titled = once("untexted", lambda: untexted_title_rows(conn, out.groups, filters, options.limit, index))
        hits.extend(h for h in titled if h.row["work_rowid"] not in listed)
    if not plan.strong and not plan.constraints and hits and out.groups and options.grain == "works":
        # … and the act whose whole title subject the question is, though its text is not held
        listed = {h.row["work_rowid"] for h in hits}
        exact = once("untexted_subject", lambda: untexted_subject_rows(conn, out.groups, filters, profiles, index))
        hits.extend(h for h in exact if h.row["work_rowid"] not in listed)
    if not plan.strong and not plan.act_reference_only and plan.terms \
            and len({h.row["work_rowid"] for h in hits}) < options.limit \
            and (hits or (out.relaxation_withheld or {}).get("reason") != "unresolved_act_number"):
        # (an act number this publisher does not hold, and nothing else asked: its frame words —
        # "du Parlement européen et du Conseil" — are no subject a EuroVoc label may answer; nor,
        # where no text answered a question citing such a number beside its subject, may a label
        # holding the subject's words: the question is about that act; issue #15, neg35)
        listed = {h.row["work_rowid"] for h in hits if h.row["anchor"] is None}
        weak = once("metadata", lambda: metadata_lane(conn, plan.terms, filters, options.limit))
        hits.extend(h for h in weak if h.row["work_rowid"] not in listed)
    out.expansions = list(dict.fromkeys(out.expansions))
    if not hits and not plan.strong and index is not None and any(m.status == "ambiguous" for m in plan.mentions):
        # a name several acts bear answers those acts, not nothing (:func:`ambiguous_rows`)
        bearers = once("ambiguous", lambda: ambiguous_rows(conn, index, plan, filters, profiles))
        if bearers:
            out.hits = bearers[:options.limit]
            out.relaxation_withheld = out.relaxed = None
            top = out.hits[0].row["work_rowid"]
            out.title_coverage = title_coverage(
                works_title_coverage(conn, [h.row["work_rowid"] for h in out.hits], out.groups, index),
                [h.row["work_rowid"] for h in out.hits])
            out.top_title_match = title_match(works_subject_precision(conn, [top], out.groups, index).get(top, 0.0),
                                              works_title_coverage(conn, [top], out.groups, index).get(top, 0.0))
            return out
    if not plan.strong and not plan.mentions and options.grain == "works" and out.groups \
            and chance_provisions(conn, index, hits, out.groups):
        # beside provisions holding every word by chance, the acts the words name (majority_titled_rows)
        listed = {h.row["work_rowid"] for h in hits}
        titled = once("majority_titled", lambda: majority_titled_rows(conn, out.groups, filters, options.limit, index))
        hits.extend(h for h in titled if h.row["work_rowid"] not in listed)
    coverage = works_title_coverage(conn, [h.row["work_rowid"] for h in hits], out.groups, index)
    if out.relaxed is not None and out.relaxed.get("reason") == "any_term" and out.groups and not plan.article_key:
        subject = [g for g in out.groups if ranking.says_subject(g[0])] or out.groups
        on_subject = coverage if len(subject) == len(out.groups) else \
            works_title_coverage(conn, [h.row["work_rowid"] for h in hits], subject, index)
        framed = [g for g in subject if not ranking.frames(g[0])]
        of_acts = [h.row["work_rowid"] for h in hits if ranking.object_is_act(profiles.get(h.row["work_rowid"]))]
        if framed and len(framed) < len(subject) and of_acts:
            on_subject = {**on_subject, **works_title_coverage(conn, of_acts, framed, index)}
        on_subject = with_headings(hits, subject, on_subject)
        if plan.translations is None:  # the question's own words (with_code_parts, with_rarest_near)
            on_subject = with_code_parts(conn, hits, subject, on_subject, profiles)
            on_subject = with_rarest_near(conn, hits, subject, on_subject)
        elif PART_HEADINGS_TRANSLATED:  # a translated question: an ordinary act's parts, two words (no code's)
            on_subject = with_code_parts(conn, hits, subject, on_subject, profiles, codes=False)
        on_subject = with_subject_labels(conn, index, out.groups, hits, on_subject)
        _keep_on_subject(out, hits, with_termed_works(conn, index, plan.terms, hits, on_subject))
        if out.relaxation_withheld is not None:
            _reach_subject(conn, index, out, hits, filters)
    if out.gate("legal_terms", not hits and options.grain == "works" and bool(plan.synonyms) and not plan.strong
                and not plan.constraints and not plan.article_key and not plan.act_number) and options.legal_terms:
        _reach_legal_terms(conn, plan, filters, budget, out, hits, seen, once)
    if out.gate("empty_titled", not hits and options.grain == "works" and not plan.strong and not plan.constraints
                and not plan.article_key and not plan.act_number and bool(out.groups)) and options.empty_titled:
        titled_rows = once("empty_titled", lambda: _empty_titled_rows(conn, out.groups, filters, index))
        if titled_rows:
            hits.extend(titled_rows)
            out.relaxation_withheld = None
    if LEGILUX_TITLED_SHARE and index is not None and index.publisher.value == "lu-legilux" \
            and options.grain == "works" and not plan.strong and not plan.mentions and not plan.constraints \
            and not plan.article_key and not plan.act_number and out.groups and not any(strict_hit(h) for h in hits) \
            and (out.relaxation_withheld or {}).get("reason") != "unknown_terms" \
            and out.gate("titled_share", True) and options.relax:  # beside the relaxation, never before it
        _reach_titled_share(conn, index, out, hits, filters, once)
    out.direct_titled = direct_titled(conn, index, hits, out.groups)
    precision = works_subject_precision(conn, [h.row["work_rowid"] for h in hits], out.groups, index)
    principal = dominant_work(out.breadth, profiles)  # weighed as if named by the words
    if principal is None and QUORUM_BREADTH and index is not None and index.publisher.value == "lu-legilux" \
            and options.grain == "works" and not plan.strong and not plan.mentions and not filters.works \
            and options.relax_words and any(getattr(profiles.get(h.row["work_rowid"]), "code", False) for h in hits):
        # counted only when a code is among the hits: weighing another work changes nothing
        principal = dominant_code(once("quorum_breadth", lambda: quorum_breadth(conn, out.groups, index)), profiles)
    named_by = titleidf.ranking_coverage(conn, index, coverage, out.groups, name_words,
                                                [h.row["work_rowid"] for h in hits if _scored(h.row)]) \
        if titleidf.TITLE_IDF \
        else coverage  # the words' rarity weighs the ranking prior only (serve.core.titleidf)
    named_by = named_by if principal is None else {**named_by, principal: 1.0}
    own = own_over_principal(works_own_subject_precision(conn, [h.row["work_rowid"] for h in hits], out.groups,
                                                         profiles, index), precision, profiles)
    values: dict[int, float] | None = {} if reorder.wanted() and reorderable(plan, options) else None
    direct_rows = breadth(hits)
    ranked = rank_hits(hits, profiles, plan, options, named_by, precision, direct_rows, own, values)
    out.title_coverage = title_coverage(coverage, [h.row["work_rowid"] for h in ranked
                                                   if "work_metadata" not in h.reasons])
    if options.grain == "works":
        grouped = group_by_work(ranked, options.per_work_limit)
        ranked_places = {id(h): place for place, h in enumerate(grouped)} if values is not None else {}
        if index is not None and plan.terms and not plan.constraints and not plan.intent:
            grouped = parents_first(conn, index, grouped, profiles, filters, out.groups, options.limit,
                                    pinned=frozenset(plan.boost))
        out.held_back = 0
        if out.titled_share:
            grouped = _after_titled(conn, index, grouped, out.titled_share, out.groups)
        out.hits = grouped[:options.limit]
        if values is not None and index is not None:
            depth = reorder.default_weights().depth if reorder.REORDER else CAPTURE_DEPTH
            out.candidates = reorder_candidates(grouped[:depth], hits, values, profiles, coverage, named_by,
                                                precision, own, direct_rows, principal, ranked_places,
                                                word_places(conn, index, grouped[:depth], hits, out.groups,
                                                            bool(plan.translations))
                                                if reorder.CAPTURE.get() is not None
                                                or reorder.default_weights().words else None)
            if reorder.REORDER:
                moved = reorder.reordered(grouped, [v for _, v in out.candidates], reorder.default_weights(),
                                          index.publisher.value)[:options.limit]
                if [id(h) for h in moved] != [id(h) for h in out.hits]:
                    out.reordered = moved
    else:
        cap = None if plan.constraints else options.per_work_limit
        capped = merge.cap_per_work(ranked, lambda h: h.row["work_rowid"], cap)
        out.held_back = len(ranked) - len(capped)
        out.hits = capped[:options.limit]
    if out.hits and out.groups:
        top = out.hits[0].row["work_rowid"]
        out.top_title_match = 0.0 if top in out.titled_share else \
            title_match(works_subject_precision(conn, [top], out.groups, index).get(top, 0.0),
                        works_title_coverage(conn, [top], out.groups, index).get(top, 0.0))
        # an act found by its names alone is no evidence that the section answers first (order_sections)
    return out


def empty_at_last_stage(out: Lexical, options: LaneOptions) -> bool:
    """Whether the lanes' last stage (relaxed: :attr:`LaneOptions.relax`) found nothing for words
    this index holds (relaxation not withheld as ``unknown_terms``): then the acts whose names alone
    hold a strict majority of the words (:func:`untexted_title_rows`: their text is not held) answer
    rather than nothing. « durée du congé annuel payé d'un salarié du privé » asked as of 1975-06-01:
    no text of that day holds the words, and the Loi du 22 avril 1966 … du congé annuel payé des
    salariés du secteur privé, in force then, is held by its title only (issue #15, titles28). Pure."""
    return not out.hits and options.relax and (out.relaxation_withheld or {}).get("reason") != "unknown_terms"


def strict_hit(hit: Hit) -> bool:
    """Whether a hit holds every word of the query as searched: a provision of the keyword, stem or
    fuzzy lane (not a weaker match: some of the words, a relaxed query, metadata), or a work whose
    names hold every word (``title_words``), as :func:`_strict_hits` counts them. Pure."""
    return (bool(hit.row.get("anchor")) and not _WEAK_REASONS.intersection(hit.reasons)) \
        or "title_words" in hit.reasons


def direct_titled(conn: sqlite3.Connection, index: MountedIndex | None, hits: Sequence[Hit],
                  groups: Sequence[Sequence[str]]) -> float | None:
    """The largest share of the question's subject words (:func:`serve.core.ranking.says_subject`;
    every content word when none says one) that the names of a work holding a strict hit
    (:func:`strict_hit`) hold; ``None`` when no hit is strict or the question has no content word."""
    works = sorted({h.row["work_rowid"] for h in hits if strict_hit(h)})
    if not works or not groups:
        return None
    subject = [g for g in groups if ranking.says_subject(g[0])] or list(groups)
    return max(works_title_coverage(conn, works, subject, index).values(), default=0.0)


def heading_groups(heading: str | None, groups: Sequence[Sequence[str]]) -> set[int]:
    """The positions of the term ``groups`` one of whose terms a provision's own ``heading``
    ("Provider switching and number portability", "Prêts", "Notification à l'autorité de contrôle
    …") holds (a word, or every word of a phrase term: :func:`name_holds`). Pure."""
    if not heading:
        return set()
    held = frozenset(normalize(heading).split())
    return {k for k, group in enumerate(groups) if any(name_holds(held, term) for term in group)}


def with_headings(hits: Sequence[Hit], groups: Sequence[Sequence[str]], coverage: dict[int, float]) -> dict[int, float]:
    """``coverage`` with the works of the any-word hits whose names hold none of the question's
    ``groups`` (its subject words) but the headings of whose hit provisions together hold at least
    :data:`HEADING_MIN_WORDS` of them (:func:`heading_groups`; a frame word such as "rules" /
    "règles" does not count, :func:`serve.core.ranking.frames`) counted as titled by part of the
    question (:data:`HEADING_COVERAGE`), so that :func:`_keep_on_subject` keeps them: the act's own
    articles on the subject are the evidence its title lacks ("can I keep my phone number when I
    switch to another mobile operator": the European Electronic Communications Code's article headed
    "Provider switching and number portability"; "bourse et prêt étudiant pour étudier à
    l'université": the articles headed "Bourses" and "Prêts" of the law on State financial aid for
    higher studies). One word is not enough: a heading holds a common word of a question by chance
    ("Feasibility report on the integrated reporting system" for "… incident be reported to the
    authority"). Never used to rank."""
    words = [g for g in groups if not ranking.frames(g[0])]
    held: dict[int, set[int]] = {}
    for hit in hits:
        work = hit.row["work_rowid"]
        if "any_term" in hit.reasons and coverage.get(work, 0.0) <= 0:
            held.setdefault(work, set()).update(heading_groups(hit.row.get("heading"), words))
    headed = [work for work, found in held.items() if len(found) >= HEADING_MIN_WORDS]
    return {**coverage, **dict.fromkeys(headed, HEADING_COVERAGE)} if headed else coverage


def code_part_groups(paths: Iterable[str], groups: Sequence[Sequence[str]]) -> set[int]:
    """The positions of the term ``groups`` one of whose terms a heading of ``paths`` holds (each path
    a provision's headings above it, « LIVRE III. — Des faillites et de la réhabilitation », « TITRE IV.
    — Des sursis de paiement », joined as stored; a word, or every word of a phrase term:
    :func:`name_holds`). Pure."""
    found: set[int] = set()
    for path in paths:
        found |= heading_groups(path, groups)
    return found


def _paths_of_states(conn: sqlite3.Connection, states: Sequence[int]) -> dict[int, list[str]]:
    """Per lexical state, the stored paths (the headings above the provision) of the provision rows
    holding it (one statement over the states, each once)."""
    ids = sorted(set(states))
    out: dict[int, list[str]] = {}
    if not ids:
        return out
    for state, path in conn.execute(
            "SELECT r.state_rowid, h.path FROM provision_rows r JOIN paths h ON h.path_rowid = r.path_rowid "
            f"WHERE r.state_rowid IN ({','.join('?' * len(ids))})", ids):
        if path and path != "[]":
            out.setdefault(int(state), []).append(str(path))
    return out


def with_code_parts(conn: sqlite3.Connection, hits: Sequence[Hit], groups: Sequence[Sequence[str]],
                    coverage: dict[int, float], profiles: Mapping[int, Any], codes: bool = True) -> dict[int, float]:
    """``coverage`` with the Legilux codes (:attr:`serve.core.ranking.WorkProfile.code`) one of whose
    any-word hits sits under a part of the code whose heading holds a subject word of the question, and
    the other works whose any-word hits sit under parts whose headings hold two
    (:func:`code_part_groups`; a frame word does not count) counted as titled by part of it
    (:data:`HEADING_COVERAGE`), so that :func:`_keep_on_subject` keeps them. A code's title names its
    field ("Code de commerce", "Code pénal"), none of its subjects; its books, titles and chapters
    name them as an act's title does — « Des faillites », « Des sursis de paiement » were laws of
    their own before the code gathered them — so one word held there is the evidence one word of a
    title is for any other act (« dans une faillite, qui vend les immeubles et les marchandises du
    failli ? »: art. 528 under « TITRE Ier. — De la faillite »). An ordinary act (with
    :data:`PART_HEADINGS`) needs :data:`HEADING_MIN_WORDS` subject words over the parts above its
    hits, as :func:`with_headings` asks of article headings: one word of its chapter headings
    ("Dispositions générales", "Organisation") is no name of it, two are its subject as the act says
    it (« protection des sources des journalistes »: the 2004 law on freedom of expression in the
    media, art. 7 under « Section 2. — De la protection des sources »; a Legilux article has no
    heading of its own, its section has; issue #15, recall44). ``codes=False`` reads ordinary acts
    only: the caller weighs a translated question so (:data:`PART_HEADINGS_TRANSLATED`), never a code
    by a translated question's words: a translated question's words are the
    lexicon's, and one of the hundreds of part headings of a code holds one of them by chance (« Verfahren in Zivil- und Handelssachen »: the consumer
    code, above the acts on civil procedure). One statement over the dropped hits' states, only when
    a hit would be dropped. Never used to rank."""
    words = [g for g in groups if not ranking.frames(g[0])]
    dropped = [h for h in hits if "any_term" in h.reasons and h.row.get("state_rowid") is not None
               and coverage.get(h.row["work_rowid"], 0.0) <= 0
               and (PART_HEADINGS or getattr(profiles.get(h.row["work_rowid"]), "code", False))
               and (codes or not getattr(profiles.get(h.row["work_rowid"]), "code", False))]
    if not dropped or not words:
        return coverage
    paths = _paths_of_states(conn, [h.row["state_rowid"] for h in dropped])
    found: dict[int, set[int]] = {}
    for h in dropped:
        found.setdefault(h.row["work_rowid"], set()).update(code_part_groups(paths.get(h.row["state_rowid"], ()), words))
    named = {work for work, held in found.items()
             if len(held) >= (1 if getattr(profiles.get(work), "code", False) else HEADING_MIN_WORDS)}
    return {**coverage, **dict.fromkeys(named, HEADING_COVERAGE)} if named else coverage


#: Whether an ordinary act's part headings are subject evidence too (:func:`with_code_parts`: at least
#: :data:`HEADING_MIN_WORDS` subject words over the headings above its any-word hits; issue #15, recall44).
PART_HEADINGS = True
#: … and for a translated question too (its lexicon words), on ordinary acts only: a code's hundreds of part
#: headings hold one of a translated question's words by chance (concept36), two words of an act's parts are
#: its subject whichever language asked (issue #15, recall44).
PART_HEADINGS_TRANSLATED = True


#: The subject evidence of an untitled work one of whose any-word hits holds the question's two rarest
#: subject words together (:func:`with_rarest_near`): above 0, so :func:`_keep_on_subject` keeps it.
NEAR_COVERAGE = 0.01
#: Words at most between the question's two rarest subject words in an article for :func:`with_rarest_near`
#: (FTS5 ``NEAR``: 0, side by side in either order). 2 (a term of two nouns and its links, « construire un
#: quartier ») was measured and dropped: concept35 ``conceptual-3909`` fell 0.83 → 0.28 (§8.71).
RAREST_NEAR = 0


def with_rarest_near(conn: sqlite3.Connection, hits: Sequence[Hit], groups: Sequence[Sequence[str]],
                     coverage: dict[int, float]) -> dict[int, float]:
    """``coverage`` with the works of the any-word hits whose names hold none of the question's subject
    words but whose article (an article: an annex's lists and tables put words side by side by layout)
    holds the question's two rarest subject words (:func:`rarest_words` over this index, the pair
    :func:`words_apart` weighs) side by side (:data:`RAREST_NEAR`), counted as titled by part of the
    question (:data:`NEAR_COVERAGE`), so that :func:`_keep_on_subject` keeps them. Two rare words of a
    question said together as a term are its subject as the article says it — « dénonciation
    calomnieuse » (Code pénal art. 445), « habitations agglomérées » — not words a provision holds by
    chance; the names of a code or of an act on a wider subject hold neither. Within
    :data:`SUBJECT_NEAR` words (:func:`words_near`' reach) was measured and dropped: « loi sur les
    voitures volantes » (a negative) kept an article listing « voitures » a few words from « volantes »,
    « bourse et prêt étudiant … » a règlement on residence resources above the law on student aid.
    One vocabulary look-up and one FTS statement over the dropped hits' articles, only when a hit would
    be dropped. Never used to rank."""
    states = sorted({h.row["state_rowid"] for h in hits if "any_term" in h.reasons and h.row.get("type") == "article"
                     and h.row.get("state_rowid") is not None and coverage.get(h.row["work_rowid"], 0.0) <= 0})
    words = [g[0] for g in groups if not ranking.frames(g[0]) and " " not in g[0] and not g[0].isdigit()
             and len(g[0]) >= VOCABULARY_MIN_LETTERS]
    if not states or len(words) < APART_WORDS:
        return coverage
    vocab = {str(t): int(n) for t, n in conn.execute(
        f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", words)}
    rarest = rarest_words([vocab], words)
    if rarest is None:
        return coverage
    near = f"text : NEAR({' '.join(_fts_word(w) for w in rarest)}, {RAREST_NEAR})"
    found = {int(r[0]) for r in conn.execute(
        f"SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? AND rowid IN ({','.join('?' * len(states))})",
        [near, *states])}
    named = {h.row["work_rowid"] for h in hits if "any_term" in h.reasons and h.row.get("state_rowid") in found}
    return {**coverage, **dict.fromkeys(named, NEAR_COVERAGE)} if named else coverage


def with_subject_labels(conn: sqlite3.Connection, index: MountedIndex | None, groups: Sequence[Sequence[str]],
                        hits: Sequence[Hit], coverage: dict[int, float]) -> dict[int, float]:
    """``coverage`` with the any-word hits' works that the question names by a EuroVoc subject
    label (:func:`serve.core.subjects.subject_works`) counted as titled by part of it
    (:data:`SUBJECT_LABEL_COVERAGE`); the labels are read only when such a hit would be dropped."""
    untitled = {h.row["work_rowid"] for h in hits if "any_term" in h.reasons and coverage.get(h.row["work_rowid"], 0.0) <= 0}
    if not untitled:
        return coverage
    named = subjects.subject_works(conn, index, groups) & untitled
    return {**coverage, **dict.fromkeys(named, SUBJECT_LABEL_COVERAGE)} if named else coverage


def subject_rows(conn: sqlite3.Connection, index: MountedIndex | None, groups: Sequence[Sequence[str]],
                 filters: Filters) -> list[Hit]:
    """A row per work the question names by a EuroVoc subject label (:func:`serve.core.subjects.subject_matches`;
    its newest eligible state; reason ``work_metadata`` with the label, as the metadata lane's)."""
    rows = []
    for work, label in subjects.subject_matches(conn, index, groups):
        if (filters.works and work not in filters.works) or (filters.allowed is not None and work not in filters.allowed):
            continue
        hit = _work_row(conn, work, filters, ["work_metadata"])
        if hit is not None:
            hit.extra["matched_metadata"] = {"kind": "eurovoc_subject", "label": label}
            rows.append(hit)
    return rows


def _reach_subject(conn: sqlite3.Connection, index: MountedIndex | None, out: Lexical, hits: list[Hit],
                   filters: Filters) -> None:
    """When the any-word relaxation was withheld as off-subject, the acts the question names by a
    EuroVoc subject label answer instead (:func:`subject_rows`): the question is on their subject,
    though their titles hold none of its words. Nothing changes when no label is named."""
    listed = {h.row["work_rowid"] for h in hits}
    found = [h for h in subject_rows(conn, index, out.groups, filters) if h.row["work_rowid"] not in listed]
    if found:
        hits.extend(found)
        out.relaxation_withheld = None


def word_label_works(labels: subjects.SubjectLabels, unknown: Sequence[str]) -> tuple[list[int], list[str]]:
    """The works every ``unknown`` word names as a narrow one-word EuroVoc label
    (:meth:`serve.core.subjects.SubjectLabels.word_works`), in row order, with those labels; none when a
    word is no such label. Pure."""
    named: frozenset[int] | None = None
    said: list[str] = []
    for word in unknown:
        found = labels.word_works(word)
        if found is None:
            return [], []
        named = found[0] if named is None else named & found[0]
        said.append(found[1])
    return sorted(named or ()), said


def word_label_evidence(others: int, held: int) -> bool:
    """Whether a work a question's unknown word names as a EuroVoc label (:func:`_reach_word_labels`) is
    on the question's subject by its own text: its provisions hold more than half of the question's other
    subject words (``held`` of ``others``: frame words, act forms and the unknown words left out). A thesaurus
    term has senses of its own: EuroVoc's "unicorn" (« licorne ») is a start-up valued over a billion, and the
    crowdfunding regulation filed under it holds "permit" but not « chasse » (« permis de chasse aux
    licornes »), nor "hygiene" and "stables" together. Pure."""
    return 2 * held > others


def _reach_word_labels(conn: sqlite3.Connection, index: MountedIndex | None, out: Lexical, hits: list[Hit],
                       filters: Filters) -> None:
    """A question withheld because a word of it is in no provision (``unknown_terms``: "musiciens",
    « désinfectant », "Cleantech") is answered by the works the publisher's thesaurus indexes under that
    word, when every such word is a one-word EuroVoc label — a descriptor or one of its non-preferred
    "used for" terms — that at most :data:`serve.core.subjects.WORD_LABEL_MAX_WORKS` works carry: the acts
    say "artistes interprètes ou exécutants", EuroVoc files the act under *artistic profession*, used for
    "musician". Rows as the EuroVoc subject rows (:func:`subject_rows`: reason ``work_metadata``,
    ``matched_metadata`` naming the label); nothing changes for a word no narrow label is."""
    unknown = (out.relaxation_withheld or {}).get("terms") or []
    if not unknown:
        return
    works, said = word_label_works(subjects.labels_of(conn, index), unknown)
    other = [g for g in out.groups if g[0] not in unknown and ranking.says_subject(g[0]) and not ranking.frames(g[0])]
    for work in works:
        if (filters.works and work not in filters.works) or (filters.allowed is not None and work not in filters.allowed):
            continue
        if not word_label_evidence(len(other), sum(
                1 for g in other if _ranked_groups(conn, [g], replace(filters, works=(work,)), 1))):
            continue
        hit = _work_row(conn, work, filters, ["work_metadata"])
        if hit is not None:
            hit.extra["matched_metadata"] = {"kind": "eurovoc_subject", "label": " / ".join(said)}
            hits.append(hit)
    if hits:
        out.relaxation_withheld = None


def _empty_titled_rows(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters,
                       index: MountedIndex | None) -> list[Hit]:
    """The work rows (``title_words``) of :func:`serve.core.ops.empty_titled.titled_works`."""
    works = empty_titled.titled_works(conn, groups, filters.allowed, index)
    return title_rows(conn, works, groups, filters)


def _reach_legal_terms(conn: sqlite3.Connection, plan: Plan, filters: Filters, limit: int, out: Lexical,
                       hits: list[Hit], seen: set[tuple[Any, ...]], once: _Once) -> None:
    """The last stage of a question no section of the answer answered (:func:`ranked_answer`): the
    provisions holding a legal term the reviewed lexicon gives for one of its everyday words
    (:func:`serve.core.subjects.legal_terms`: a phrase of two content words or more, "group lawsuit"
    → "representative action", "hacked" → "personal data breach") answer, as a relaxation of the
    question to the law's name for its subject (reason ``relaxed``; ``query_relaxed`` reports
    ``{"reason": "legal_term", "from", "to"}``). The other words of an everyday question ("suing",
    "together", "how fast") are in no provision beside the term; the term alone names the subject
    as the act does. A question holding a word this index holds in no form and no entry gives terms
    for ("holiday rules for garden gnomes") is about something else: it keeps its empty answer, as
    does one whose lexicon terms are single words."""
    terms = subjects.legal_terms(plan.synonyms)
    match = fts_query([terms]) if terms else None
    if match is None or any(g[0] not in plan.synonyms and not _held(conn, g) for g in out.groups):
        return
    _merge(hits, once("legal_terms", lambda: ranked_occurrences(conn, match, filters, limit)), ["relaxed"], seen)
    if hits:
        out.relaxed = {"reason": "legal_term", "from": " ".join(plan.terms), "to": match}
        out.relaxation_withheld = None
        out.words = [w for t in terms for w in t.split()]


#: Whether :func:`with_termed_works` counts the act terms as subject evidence for an any-word relaxation whose every
#: hit would otherwise be withheld (issue #15, zh49).
RELAXED_TERMED = True


def termed_works(conn: sqlite3.Connection, index: MountedIndex | None, terms: Sequence[str]) -> dict[int, float]:
    """Per work, the coverage of the acts this index's act terms rank for the question's ``terms``
    (:func:`serve.core.actterms.matches`, as :func:`act_term_matches` ranks them) that are firm evidence
    (:func:`serve.core.actterms.firm`: a term said whole, two words covered)."""
    words = list(dict.fromkeys(actterms.folded(t) for term in terms for t in normalize(term).split()))
    found = actterms.terms_of(conn, index)
    return {m.work: m.coverage for m in actterms.matches(found, words) if actterms.firm(m, words)}


def with_termed_works(conn: sqlite3.Connection, index: MountedIndex | None, terms: Sequence[str], hits: Sequence[Hit],
                      coverage: dict[int, float]) -> dict[int, float]:
    """``coverage`` (the subject evidence :func:`_keep_on_subject` weighs) with, when it would keep no hit of the any-word
    relaxation, the works of those hits whose reviewed act terms firmly say the question (:func:`termed_works`): a
    provision holding a majority of the words in an act whose terms say its subject — « notaire », « actes » in the
    notaries' law, whose title says « notariat » — is on the subject, not a text sharing the words by chance. The
    relaxation is then kept for those works only; an answer some subject evidence already keeps is left as it was."""
    relaxed = [h.row["work_rowid"] for h in hits if "any_term" in h.reasons]
    if not RELAXED_TERMED or not relaxed or any(coverage.get(w, 0.0) > 0 for w in relaxed):
        return coverage
    termed = termed_works(conn, index, terms)
    found = {w: termed[w] for w in relaxed if w in termed}
    return {**coverage, **found} if found else coverage


def _keep_on_subject(out: Lexical, hits: list[Hit], coverage: dict[int, float]) -> None:
    """Drop (in place) the hits of the any-word relaxation on works whose names hold none of the
    query's subject words (``coverage``: over the words that can say a subject,
    :func:`serve.core.ranking.says_subject`; an act form such as ``loi`` or ``regulation`` is in
    almost every title and counts only when the query has no other word). Such a provision shares
    a majority of the words with the question by chance ("submarine parking permit": an energy
    programme's provision on a permit and a submarine cable): relaxing must answer the same
    question less strictly, not another one. A comparison of two acts keeps its hits, each act
    being titled by its half of the question. With no hit left, the relaxation is reported
    withheld (``off_subject``)."""
    kept = [h for h in hits if "any_term" not in h.reasons or coverage.get(h.row["work_rowid"], 0.0) > 0]
    if len(kept) == len(hits):
        return
    hits[:] = kept
    if not any("any_term" in h.reasons for h in hits):
        out.relaxation_withheld = {"reason": "off_subject", "relaxed": out.relaxed}
        out.relaxed = None


def works_title_coverage(conn: sqlite3.Connection, works: Sequence[int], groups: Sequence[Sequence[str]],
                         index: MountedIndex | None = None) -> dict[int, float]:
    """Per work, the share of the query's content words (a word or one of its forms) that its names
    hold (official titles, short titles, aliases); each work's name words are read once per mounted
    ``index`` (:func:`name_words`)."""
    ids = sorted(set(works))
    if not groups or not ids:
        return {}
    words = name_words(conn, ids, index)
    # :func:`name_holds` of a group's terms, the group split once: its words (held as a set) and its
    # phrases (every word held)
    split = [(frozenset(t for t in g if " " not in t), [t.split() for t in g if " " in t]) for g in groups]
    return {w: round(sum(1 for single, phrases in split
                         if not held.isdisjoint(single) or any(all(x in held for x in p) for p in phrases))
                     / len(groups), 4)
            for w, held in words.items()}


def name_holds(held: frozenset[str], term: str) -> bool:
    """Whether a work's name words hold ``term``: a word, or every word of a phrase term (a
    translated question's French rendering, ``minimum wage`` → ``salaire social minimum``, or a
    quoted phrase); issue #15: a phrase was never held, so the Legilux acts titled by a translated
    question's subject had no title coverage and an EU section of any-word hits routed them out.
    Pure."""
    return term in held or (" " in term and all(word in held for word in term.split()))


_NAME_WORDS: weakref.WeakKeyDictionary[MountedIndex, dict[int, frozenset[str]]] = weakref.WeakKeyDictionary()


def name_words(conn: sqlite3.Connection, works: Sequence[int], index: MountedIndex | None = None) -> dict[int, frozenset[str]]:
    """The words of each work's names (every ``work_names`` row but identifiers), remembered per
    mounted index (an immutable file: at most one entry per work)."""
    known = _NAME_WORDS.setdefault(index, {}) if index is not None else {}
    missing = [w for w in works if w not in known]
    if missing:
        found: dict[int, set[str]] = {w: set() for w in missing}
        for work, normalized in conn.execute(
                f"SELECT work_rowid, normalized FROM work_names WHERE work_rowid IN ({','.join(map(str, missing))}) "
                "AND kind != 'official_identifier'"):
            found[int(work)].update(str(normalized).split())
        known.update({w: frozenset(v) for w, v in found.items()})
    return {w: known[w] for w in works}


def load_name_words(conn: sqlite3.Connection, index: MountedIndex) -> int:
    """Remember now the name words of every work of ``index`` (what :func:`name_words` remembers
    work by work as queries ask), each distinct word one string; the number of works. Called while
    an index is warmed (:func:`serve.core.mount.warm_index`): under ``lex serve --workers N`` the
    table is then built once before the workers fork and shared by them, instead of filled again
    in each worker as it serves."""
    found: dict[int, set[str]] = {int(w): set() for w in index.catalogue.rowid_of.values()}
    for work, normalized in conn.execute(
            "SELECT work_rowid, normalized FROM work_names WHERE kind != 'official_identifier'"):
        found.setdefault(int(work), set()).update(map(sys.intern, str(normalized).split()))
    _NAME_WORDS[index] = {w: frozenset(v) for w, v in found.items()}
    return len(found)


_SUBJECT_WORDS: weakref.WeakKeyDictionary[MountedIndex, dict[int, ranking.TitleSubjects]] = \
    weakref.WeakKeyDictionary()


_ASKED_LANGUAGES = frozenset(language for asked in ranking.TITLE_LANGUAGES.values() for language in asked)
_NO_LANGUAGES: Mapping[str, Collection[str]] = types.MappingProxyType({})


def _packed(words: Collection[str]) -> tuple[str, ...]:
    """Distinct words as a sorted tuple of interned strings: what :func:`serve.core.ranking.title_precision`
    reads of a set, at a fifth of a set's bytes (a six-word subject: 88 bytes, not 472)."""
    return tuple(sorted(set(map(sys.intern, words))))


def _interned(subjects: ranking.TitleSubjects) -> ranking.TitleSubjects:
    """``subjects`` kept for the table: each subject packed (:func:`_packed`), one object shared by the
    shortest subject and a language's equal one, and only the languages a question is weighed against
    (:data:`serve.core.ranking.TITLE_LANGUAGES`), none when each of them is weighed against the shortest
    subject anyway (a Legilux act titled in French): the same answers at ≈ 2 MB less per serving process
    than the sets of every language (issue #14, worker memory)."""
    shortest = _packed(subjects.shortest)
    kept = {language: shortest if set(words) == set(subjects.shortest) else _packed(words)
            for language, words in subjects.by_language.items() if language in _ASKED_LANGUAGES}
    weighed = ranking.TitleSubjects(shortest, kept)
    if all(ranking.title_language_subject(weighed, asked) == shortest for asked in ranking.TITLE_LANGUAGES):
        return ranking.TitleSubjects(shortest, _NO_LANGUAGES)  # every question weighed as by the shortest
    return weighed


def load_subject_words(conn: sqlite3.Connection, index: MountedIndex) -> int:
    """Remember now the title subject words of every work of ``index`` (what
    :func:`works_subject_precision` remembers work by work as queries ask; the same values), each
    distinct word one string; the number of works. Called while an index is warmed
    (:func:`serve.core.mount.warm_index`), like :func:`load_name_words`: the table is built once
    before the workers fork and shared by them."""
    titles: dict[int, list[tuple[str, str]]] = {int(w): [] for w in index.catalogue.rowid_of.values()}
    for work, value, language in conn.execute(
            "SELECT work_rowid, value, language FROM work_names WHERE kind = 'official_title'"):
        titles.setdefault(int(work), []).append((str(value), str(language)))
    legilux = index.publisher.value == "lu-legilux"
    _SUBJECT_WORDS[index] = {w: _interned(ranking.title_subjects(t, legilux)) for w, t in titles.items()}
    return len(titles)


def works_title_subjects(conn: sqlite3.Connection, works: Sequence[int],
                         index: MountedIndex | None = None) -> Mapping[int, ranking.TitleSubjects]:
    """The title subjects (:func:`serve.core.ranking.title_subjects`) of ``works`` — and of every work
    read before on the mounted ``index``: its official titles read once per mounted index."""
    known = _SUBJECT_WORDS.setdefault(index, {}) if index is not None else {}
    missing = sorted({w for w in works if w not in known})
    if missing:
        titles: dict[int, list[tuple[str, str]]] = {w: [] for w in missing}
        for work, value, language in conn.execute(
                f"SELECT work_rowid, value, language FROM work_names WHERE work_rowid IN "
                f"({','.join(map(str, missing))}) AND kind = 'official_title'"):
            titles[int(work)].append((str(value), str(language)))
        legilux = index is not None and index.publisher.value == "lu-legilux"
        known.update({w: _interned(ranking.title_subjects(t, legilux)) for w, t in titles.items()})
    return known


def works_subject_precision(conn: sqlite3.Connection, works: Sequence[int], groups: Sequence[Sequence[str]],
                            index: MountedIndex | None = None, languages: bool = True) -> dict[int, float]:
    """Per work, the share of its title subject's words that the query holds
    (:func:`serve.core.ranking.title_precision`): the subject of its titles in the question's language
    (:func:`groups_language`, :func:`serve.core.ranking.title_language_subject`), or without ``languages``
    the shortest subject of all (``top_title_match``, which compares publishers); subjects read once per
    mounted ``index``."""
    ids = sorted(set(works))
    if not groups or not ids:
        return {}
    known = works_title_subjects(conn, ids, index)
    asked = frozenset(word for g in groups for t in g for word in t.split())  # a phrase term: its words
    # the title in the question's language (ranking.title_language_subject, xeu29); the section order
    # (``languages`` off) compares publishers, and keeps the shortest subject of all
    language = groups_language(groups) if languages else None
    return {w: ranking.title_precision(ranking.title_language_subject(known[w], language), asked) for w in ids}


def groups_language(groups: Sequence[Sequence[str]]) -> str | None:
    """The language of a question's own words — the first term of each of its term groups, the others
    being their forms, synonyms and translations — as :func:`derive.index.xlang.query_language` tells
    it (``None`` when it does not). Pure (the lexicon is read once)."""
    return _words_language(tuple(w for g in groups if g for w in g[0].split()))


@functools.lru_cache(maxsize=4096)
def _words_language(words: tuple[str, ...]) -> str | None:
    return xlang.query_language(words)


def title_coverage(coverage: dict[int, float], works: Sequence[int], top: int = 3) -> float | None:
    """The largest :func:`works_title_coverage` among the ``top`` best works; ``None`` without words."""
    if not coverage or not works:
        return None
    return max(coverage.get(w, 0.0) for w in list(dict.fromkeys(works))[:top])


def route_sections(sections: list[Answer]) -> None:
    """Publisher routing of a fan-out answer (in place). A publisher whose hits are all weaker
    matches (some of the words, metadata) yields to one that holds every word, unless its works are
    titled by the query over it (:func:`titled_over`) or its first work fits the query over the
    holders' (:func:`fits_over`); and when the best works of one publisher are
    titled by the query (:func:`title_coverage` at least 0.5) and another publisher's are titled by
    at least :data:`ROUTING_MARGIN` less of it, the other publisher's hits are left out and it says
    why (``routed``); a section of metadata hits only weighs title coverage 0.0
    (:func:`routing_coverage`). A French question on the Luxembourg law of that name is not answered
    first by an EU act that merely uses its words."""
    # a section searched in translation without the words nothing translates answers a shorter
    # question: it holds every word of that one, not of the query, and routes no other section out
    direct = [s for s in sections if _direct(s) and not _untranslated(s)]
    if direct:
        for section in sections:
            if section.get("hits") and not _direct(section) and not titled_over(section, direct) \
                    and not fits_over(section, direct) and not translated_titled_over(section, direct) \
                    and not fits_better(section, direct):
                _route_out(section, "another publisher holds every word of the query", None, None)
    covers = [routing_coverage(s) for s in sections]
    known = [c for c in covers if isinstance(c, float | int)]
    if len(known) < 2:
        return
    best = max(known)
    if best < 0.5:
        return
    for section, cover in zip(sections, covers, strict=True):
        if isinstance(cover, float | int) and best - cover >= ROUTING_MARGIN and section.get("hits") \
                and not weaker_titled(section, sections, covers):
            _route_out(section, "another publisher's works are titled by the query", cover, best)


def translated_titled_over(section: Answer, holders: Sequence[Answer]) -> bool:
    """Whether a section searched in translation (``query_plan.translations``: an English or German
    question on French-only Legilux text) answers the question by its titles better than every section
    holding its words (``holders``): its works are titled by the query (:func:`title_coverage` at least
    0.5, the bar of :func:`titled_over`) and by more of it than each holder's (:func:`routing_coverage`),
    and its first work fits the query (``top_title_match``, :func:`title_match`) better than each
    holder's first work. A translated section never holds the question's own words — only their
    French terms, which a relaxation may have cut — so "another publisher holds every word" is no
    evidence against it: "state participation in a new natural gas distribution company" is held word
    for word by EU provisions on the gas market, while the Luxembourg law « autorisant l'Etat à participer
    à une nouvelle société pour la distribution de gaz naturel » is titled by it (issue #15, xlu28). It is not routed out; it still comes
    after the sections answered in the question's words (:func:`order_sections`). Pure."""
    if not (section.get("query_plan") or {}).get("translations"):
        return False
    cover = section.get("title_coverage")
    if not isinstance(cover, float | int) or cover < TITLED_BAR:
        return False
    fit = float(section.get("top_title_match") or 0.0)
    return all(float(routing_coverage(h) or 0.0) < cover and float(h.get("top_title_match") or 0.0) < fit
               for h in holders)


def routing_coverage(section: Answer) -> float | None:
    """The title coverage :func:`route_sections` weighs for a section: its ``title_coverage``, or
    0.0 when every hit is a ``work_metadata`` hit (a EuroVoc label, a subject term): such a section
    has no title coverage of its own (:func:`title_coverage` is over the works of its text hits, so
    ``None``), and without one another publisher's works titled by the question did not route it
    out (issue #15: "compensation of war damage to houses in Luxembourg" answered by the EuroVoc
    label "compensation for damage" beside the Luxembourg law on war damage). Pure."""
    hits = section.get("hits") or []
    if hits and all("work_metadata" in (h.get("match_reasons") or ()) for h in hits):
        return 0.0
    return section.get("title_coverage")


#: Match reasons of provisions holding only some of the question's words (the any-word relaxation,
#: the majority-of-words lane) or of works found by their metadata.
_SOME_WORDS_REASONS = frozenset({"any_term", "partial_terms", "work_metadata"})


def weaker_titled(section: Answer, sections: Sequence[Answer], covers: Sequence[Any]) -> bool:
    """Whether every section titled :data:`ROUTING_MARGIN` more than ``section`` holds only
    provisions with some of the question's words (:func:`some_words_only`) while ``section`` holds
    every word (:func:`_direct`): then its better title coverage does not route ``section`` out
    (issue #15: "minimum wage Luxembourg" — the EU section, relaxed to any word, is titled by
    "minimum wage"; the Legilux one holds the Code du travail's provisions on the salaire social
    minimum). A section relaxed only by its stop words still routes (:func:`titled_over`). Pure."""
    cover = section.get("title_coverage")
    if not _direct(section) or not isinstance(cover, float | int):
        return False
    over = [s for s, c in zip(sections, covers, strict=True)
            if s is not section and isinstance(c, float | int) and c - cover >= ROUTING_MARGIN]
    return bool(over) and all(some_words_only(s) for s in over)


def some_words_only(section: Answer) -> bool:
    """Whether every hit of a section holds only some of the question's words (any word, a
    majority) or was found by its metadata. Pure."""
    hits = section.get("hits") or []
    return bool(hits) and all(_SOME_WORDS_REASONS & set(h.get("match_reasons") or ()) for h in hits)


def titled_over(section: Answer, others: Sequence[Answer]) -> bool:
    """Whether a section of weaker matches is titled by the query (:func:`title_coverage` at least
    0.5) and every one of ``others`` at least :data:`ROUTING_MARGIN` less: their provisions hold
    every word by chance (a long provision on another subject), this section's works are about the
    question ("bail à ferme et bail d'habitation : quelles différences": one EU provision holds the
    words, the two Luxembourg laws are titled by them). Issue #15."""
    cover = section.get("title_coverage")
    if not isinstance(cover, float | int) or cover < 0.5:
        return False
    return all(isinstance(c := o.get("title_coverage"), float | int) and cover - c >= ROUTING_MARGIN for o in others)


def fits_over(section: Answer, holders: Sequence[Answer]) -> bool:
    """Whether a section of weaker matches answers the question better than the ``holders``
    (sections holding every word) by its first work: that work's title fits the question
    (``top_title_match``, :func:`title_match`, more than :data:`FIT_OVER`) and the first work of each holder fits
    it at least :data:`ROUTING_MARGIN` less, while the holders' best works are titled by no more of
    the question (:func:`routing_coverage`). Their provisions hold the words in passing (two EU
    directives' articles on the exchange of information), the section's first act is about them
    (« déclaration des dispositifs transfrontières de planification fiscale »: the Luxembourg law
    « relative aux dispositifs transfrontières devant faire l'objet d'une déclaration »). Issue #15.
    Pure."""
    fit = section.get("top_title_match")
    if not isinstance(fit, float | int) or fit <= FIT_OVER:
        return False
    cover = routing_coverage(section) or 0.0
    return all(fit - float(h.get("top_title_match") or 0.0) >= ROUTING_MARGIN
               and float(routing_coverage(h) or 0.0) <= cover for h in holders)


def fits_better(section: Answer, holders: Sequence[Answer]) -> bool:
    """Whether a section of weaker matches is not dominated by the ``holders`` (sections holding every
    word): its first work fits the question better (``top_title_match``, strictly more than each
    holder's, and more than nothing) and its best works are titled by at least as much of it
    (:func:`routing_coverage`). Holding every word is then no evidence that a holder answers better:
    its provisions hold the words by chance — long annexes, articles on another subject — while this
    section's first act is titled by the question (issue #15, concept33: « comment une commune obtient
    des points pour ses mesures de protection de la nature et de la biodiversité » — EU annexes on
    environmental objectives hold every word, titled by none of them; the règlement grand-ducal on the
    pacte nature's catalogue of measures was left out with the Legilux section). The section is kept,
    and :func:`order_sections` decides which comes first. A section searched in translation is weighed
    by :func:`translated_titled_over` instead (its words are the lexicon's, not the question's). Pure."""
    fit = section.get("top_title_match")
    if not isinstance(fit, float | int) or fit <= 0 or (section.get("query_plan") or {}).get("translations"):
        return False
    cover = float(routing_coverage(section) or 0.0)
    return all(float(fit) > float(h.get("top_title_match") or 0.0) and float(routing_coverage(h) or 0.0) <= cover
               for h in holders)


def title_match(precision: float, coverage: float) -> float:
    """How well a work's title fits a query: the harmonic mean of the share of its title-subject
    words the query holds (``precision``: the title is about the question) and the share of the
    query's words its names hold (``coverage``: the question is about the title)."""
    return round(2 * precision * coverage / (precision + coverage), 4) if precision + coverage else 0.0


#: The act forms only EUR-Lex holds ("directive sur …", "Richtlinie über …", "… directive"): Legilux
#: transposes directives by its own laws and règlements, it publishes none.
EU_ONLY_FORMS = frozenset({"directive", "directives", "richtlinie", "richtlinien"})
#: Words asking for Luxembourg's own law beside such a form ("loi transposant la directive …").
LU_ASKED_WORDS = frozenset({"loi", "lois", "law", "laws", "gesetz", "grand", "ducal", "luxembourg", "luxemburg",
                            "luxembourgeois", "luxembourgeoise", "luxemburger", "luxembourgish", "transposing",
                            "transposant", "transposition", "umsetzung"})


def asks_eu_form(query: str) -> bool:
    """Whether a question opens or ends with an act form only EUR-Lex holds (:data:`EU_ONLY_FORMS`)
    and asks nothing of Luxembourg's own law (:data:`LU_ASKED_WORDS`): the EUR-Lex section answers
    it first (:func:`order_sections`; issue #15: "directive sur la publicité trompeuse et la publicité
    comparative" was answered first by the Luxembourg law transposing it, whose French title holds the
    same words). Pure."""
    words = normalize(query).split()
    return bool(words) and (words[0] in EU_ONLY_FORMS or words[-1] in EU_ONLY_FORMS) \
        and not LU_ASKED_WORDS & set(words)


#: Whether :func:`eu_act_unanswered` runs (neg51, ADR 0176).
EU_ACT_UNANSWERED = True
#: The act forms an EU act has (normalised; FR/EN/DE) and the words that make one the Union's right beside it.
EU_ACT_FORMS = frozenset({"reglement", "reglements", "regulation", "regulations", "directive", "directives",
                          "verordnung", "verordnungen", "richtlinie", "richtlinien"})
EU_ACT_ADJECTIVES = frozenset({"europeen", "europeenne", "europeens", "europeennes", "ue", "eu", "european",
                               "europaische", "europaischen", "europaischer", "europaisches"})
#: The match reasons of rows an EUR-Lex section answers with that do not hold the act asked for: its EuroVoc labels
#: alone. (The any-word lane is the Union's answer to a question about its acts in plain words: "changes made to EU
#: regulations because Bulgaria and Romania joined the Union" is answered by the accession's adaptation regulation so.)
EU_WEAK_REASONS = frozenset({"work_metadata"})
#: The match reasons of rows another section answers with that do not hold the act asked for: its EuroVoc labels,
#: some of the question's words (the any-word and majority-of-words lanes, the cross-language marker, the words left
#: once those no text holds were dropped) or its name's words alone (an act titled by the question's ordinary words,
#: « liberté d'expression dans les médias »).
OTHER_WEAK_REASONS = frozenset({"work_metadata", "any_term", "partial_terms", "translated", "title_words", "relaxed"})
#: The publishers whose acts an EU form asks for.
EU_PUBLISHERS = frozenset({"eu-eurlex"})
#: The words of an EU act's name the Union's adjective comes before ("European Media Freedom Act", "EU AI Act").
EU_NAME_WORDS = frozenset({"act", "acts"})
#: How many words before :data:`EU_NAME_WORDS` the Union's adjective may stand.
EU_NAME_REACH = 4


#: Whether :func:`asks_eu_act` also reads a form only the Union's acts have, with no adjective (« directive »,
#: « Richtlinie »; "regulation" in a question told English: Luxembourg's are "grand-ducal regulations"; neg51).
EU_FORM_ALONE = True
#: The English forms of the Union's regulations (in a question told English, :func:`derive.index.xlang.query_language`:
#: the French « régulation » of a body folds to "regulation").
EN_REGULATION_WORDS = frozenset({"regulation", "regulations"})


def asks_eu_act(words: Sequence[str]) -> bool:
    """Whether a question's normalised ``words`` ask for an act *of the Union*: an act form (:data:`EU_ACT_FORMS`)
    with the Union's adjective right before or within two words after it (« règlement européen sur … », « directive
    (UE) », "EU regulation on …", « europäische Richtlinie »), or an act's name the Union's adjective opens
    ("European Media Freedom Act": :data:`EU_NAME_WORDS` within :data:`EU_NAME_REACH` words after it), or a form only
    the Union's acts have (:data:`EU_FORM_ALONE`: :data:`EU_ONLY_FORMS`, "regulation" in a question told English:
    "Chat Control regulation scanning private messages"); never beside a word asking for Luxembourg's own law
    (:data:`LU_ASKED_WORDS`, « grand-ducal »: « loi transposant la directive … »;
    :func:`serve.core.ranking.asks_own_law`). Pure."""
    held = set(words)
    if LU_ASKED_WORDS & held or "ducal" in held or ranking.asks_own_law(list(words)):
        return False
    if EU_FORM_ALONE and (EU_ONLY_FORMS & held or (EN_REGULATION_WORDS & held
                                                    and xlang.query_language(list(words)) == "en")):
        return True
    if de_regulation_alone(words):
        return True
    return any((w in EU_ACT_FORMS and EU_ACT_ADJECTIVES & set(words[max(0, i - 1):i + 3]))
               or (w in EU_NAME_WORDS and EU_ACT_ADJECTIVES & set(words[max(0, i - EU_NAME_REACH):i]))
               for i, w in enumerate(words))


#: Whether :func:`asks_eu_act` also reads the German « Verordnung » with no adjective in a question told German
#: (:func:`de_regulation_alone`; neg52, ADR 0183).
EU_FORM_ALONE_DE = True
#: The German forms of a regulation (normalised).
DE_REGULATION_WORDS = frozenset({"verordnung", "verordnungen"})
#: The German words that make a « Verordnung » Luxembourg's: the grand-ducal and ministerial regulations
#: (normalised, with « ß » and spelled out).
DE_LU_REGULATION_WORDS = frozenset({
    f"{stem}{ending}" for stem in ("großherzoglich", "grossherzoglich", "ministeriell")
    for ending in ("", "e", "en", "er", "es")})


def de_regulation_alone(words: Sequence[str]) -> bool:
    """Whether a question's normalised ``words`` ask for a « Verordnung » with no word making it Luxembourg's
    (:data:`DE_LU_REGULATION_WORDS`: « großherzogliche Verordnung ») in a question
    :func:`derive.index.xlang.query_language` tells German: the Union's regulations are « Verordnungen » in German,
    Luxembourg's are grand-ducal or ministerial ones (« Verordnung über Verbot von in Zwangsarbeit hergestellten
    Produkten »). Off with :data:`EU_FORM_ALONE_DE`. Pure."""
    held = set(words)
    return EU_FORM_ALONE_DE and bool(DE_REGULATION_WORDS & held) and not DE_LU_REGULATION_WORDS & held \
        and xlang.query_language(list(words)) == "de"


def weak_rows_only(section: Answer, reasons: Collection[str]) -> bool:
    """Whether every hit of ``section`` (and every provision under it) was found only for ``reasons``; ``True`` for a
    section with no hits. Pure."""
    return all(bool(found) and found <= set(reasons)
               for hit in section.get("hits") or [] for row in (hit, *(hit.get("provisions") or ()))
               for found in [set(row.get("match_reasons") or ())])


def eu_act_unanswered(plans: Mapping[str, Plan], sections: Sequence[Answer], query: str,
                      held_dated: Callable[[], bool] | None = None) -> bool:
    """A question asking for an act of the Union (:func:`asks_eu_act`: « règlement européen sur les produits
    cosmétiques pour animaux de compagnie », "European Media Freedom Act protection of journalists' sources") that
    EUR-Lex answers with nothing, or only by EuroVoc labels (:data:`EU_WEAK_REASONS`), and that the other sections
    answer only so, by some of its words or by their names' words (:data:`OTHER_WEAK_REASONS`: the Luxembourg acts
    holding « produits », « animaux » or « compagnie » apart, a law titled « liberté d'expression dans les médias »)
    asks for an EU act no index holds: every section answers no hits, typed ``eu_act_not_held`` (plans, in place;
    neg51, ADR 0176). A section holding every word of the question, or the act's name, is left alone: it may hold
    the act asked or carry it out. Never for a question naming, citing or resolving an act. Whether the plans
    changed. A question whose form word is also Luxembourg's and whose year a held act of that form bears
    (``held_dated``: :func:`dated_own_act`, asked last) is left alone. Pure (``held_dated`` aside)."""
    if not EU_ACT_UNANSWERED or any(p.mentions or p.constraints or p.act_number or p.anchor or p.article_key
                                    or p.name_not_held for p in plans.values()):
        return False
    eu = [s for s in sections if str(s.get("publisher")) in EU_PUBLISHERS]
    if not eu or not any(s.get("hits") for s in sections):
        return False
    if not all(weak_rows_only(s, EU_WEAK_REASONS if str(s.get("publisher")) in EU_PUBLISHERS else OTHER_WEAK_REASONS)
               for s in sections):
        return False
    if not asks_eu_act(normalize(parse_query(query).raw).split()):
        return False
    if held_dated is not None and held_dated():
        return False
    for plan in plans.values():
        plan.name_not_held = {"reason": "eu_act_not_held"}
    return True


#: Whether :func:`eu_act_unanswered` leaves an answer holding the act of the year the question names
#: (:func:`dated_own_act`; issue #15, zh53).
EU_ACT_DATED_OWN = True


def dated_own_act(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], args: dict[str, Any]) -> bool:
    """Whether a section holds the act of the year the question names, its names holding the question's words
    (:func:`dated_pick`, as :func:`dated_step` would put it first): "2023 regulation changing road traffic, vehicle registration,
    roadworthiness test and tachograph rules" reads as a Union act by its English form alone (:func:`asks_eu_act`),
    yet Luxembourg's grand-ducal regulations are regulations in English too, and the grand-ducal regulation of 2023
    whose title names the road traffic, registration and technical inspection rules it amends is the act asked. A
    question on a Union act no index holds names no year a held Luxembourg act of its words bears. False with
    :data:`EU_ACT_DATED_OWN` off."""
    return EU_ACT_DATED_OWN and dated_pick(ctx, sections, plans, args) is not None


#: Whether :func:`sigle_unanswered` runs (neg52, ADR 0183).
SIGLE_UNANSWERED = True


def capital_sigles(raw: str) -> list[str]:
    """A question's words written in capitals only that may be an act's sigle (:func:`serve.core.resolve.acronym_tokens`:
    four capitals or more, three before a form word: « PPWR », "HIPAA", « BGB-Kommentar »), normalised, in order. A
    word with a small letter (« RoHS », « LKWs ») is not read: it is a word or a name the search may hold otherwise.
    Pure."""
    return list(dict.fromkeys(token.lower() for token, _ in acronym_tokens(raw) if token.isupper()))


def sigle_unanswered(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                     sections: Sequence[Answer], raw: str) -> bool:
    """A question naming an act by a sigle no mounted index holds (:func:`capital_sigles`: no provision, no work's name,
    no label holds it, :func:`held_anywhere`; no name resolves it, :func:`serve.core.resolve.named_acronyms` ran before)
    whose every section answers only by labels, some of its words, the words left once those no text holds were
    dropped, or names' words (:data:`OTHER_WEAK_REASONS`) asks for an act no index holds: « règlement emballages et
    déchets d'emballages PPWR objectifs de réemploi 2030 » was answered by Luxembourg's packaging law through its
    title's words. Every plan is marked ``{"reason": "sigle_not_held", "words": [...]}`` (in place; neg52, ADR 0183).
    Never for a question naming, citing or resolving an act, or one another rule already answered with no hits. The
    look-ups (two FTS statements per index and sigle) run only for a question holding a sigle and answered weakly.
    Whether the plans changed."""
    if not SIGLE_UNANSWERED or any(p.mentions or p.constraints or p.act_number or p.anchor or p.article_key or p.boost
                                   or p.strong or p.name_not_held for p in plans.values()):
        return False
    sigles = capital_sigles(raw)
    if not sigles or not any(s.get("hits") for s in sections) \
            or not all(weak_rows_only(s, OTHER_WEAK_REASONS) for s in sections):
        return False
    if any(sigle in index.catalogue.names for index in indexes for sigle in sigles):
        return False
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            sigles = [w for w in sigles if not held_anywhere(conn, w)]
        if not sigles:
            return False
    for plan in plans.values():
        plan.name_not_held = {"reason": "sigle_not_held", "words": sigles}
    return True


#: Whether :func:`own_country_unanswered` runs (neg53, ADR 0192).
OWN_COUNTRY_UNANSWERED = True
#: The publishers whose acts say how a thing is in Luxembourg.
OWN_PUBLISHERS = frozenset({"lu-legilux"})
#: The match reasons of the other sections' rows that do not say how a thing is in Luxembourg: EuroVoc labels alone
#: (:data:`EU_WEAK_REASONS`). A row holding some of the question's words is left alone: the Union's act on the
#: subject holds every word but the country's name ("Luxembourg ship recycling", "Luxembourg short selling
#: disclosure", answered by the any-word and majority-of-words lanes) and applies in Luxembourg.
OWN_COUNTRY_WEAK_REASONS = EU_WEAK_REASONS


#: Whether :func:`listed_only` also takes a row standing in an annex of the Union's acts for one that does not say how a
#: thing is in Luxembourg (neg53, ADR 0192).
OWN_COUNTRY_ANNEXES = False
#: Whether a Legilux section routing left out (:func:`route_sections`: "another publisher holds every word of the
#: query", the words standing in a Union list) counts as one answering nothing for :func:`own_country_unanswered`
#: (neg53, ADR 0192).
OWN_COUNTRY_ROUTED = False
#: The anchors' opening of the Union's annexes (« anx », « anx_I », « anx_VIII »).
ANNEX_ANCHOR_PREFIX = "anx"


def annex_row(row: Mapping[str, Any]) -> bool:
    """Whether a hit or provision ``row`` stands in an annex (its anchor opens with :data:`ANNEX_ANCHOR_PREFIX`).
    Pure."""
    return str(row.get("anchor") or "").startswith(ANNEX_ANCHOR_PREFIX)


def listed_only(section: Answer) -> bool:
    """Whether every hit of ``section`` (and every provision under it) was found only by EuroVoc labels
    (:data:`OWN_COUNTRY_WEAK_REASONS`) or, with :data:`OWN_COUNTRY_ANNEXES`, stands in an annex (:func:`annex_row`:
    the Union's lists of aircraft operators, contracting entities, bodies governed by public law, where a Luxembourg
    body's or ministry's name stands among every member state's); ``True`` for a section with no hits. Pure."""
    return all((bool(found) and found <= OWN_COUNTRY_WEAK_REASONS) or (OWN_COUNTRY_ANNEXES and annex_row(row))
               for hit in section.get("hits") or [] for row in (hit, *(hit.get("provisions") or ()))
               for found in [set(row.get("match_reasons") or ())])


def own_country_unanswered(plans: Mapping[str, Plan], sections: Sequence[Answer], query: str) -> bool:
    """A question asking how a thing is in Luxembourg (:func:`serve.core.jurisdiction.luxembourg_alone`: it names
    Luxembourg and no other state, place, EU word or treaty) that Legilux answers with nothing once the act terms
    were read (or whose hits routing left out, with :data:`OWN_COUNTRY_ROUTED`), and the other sections answer only
    by EuroVoc labels (:data:`OWN_COUNTRY_WEAK_REASONS`) or in annexes (:func:`listed_only`) asks for a Luxembourg law
    or body no index holds: the Union's acts found by a label alone ("Luxembourg video game regulatory authority and
    its powers" was answered by the copyright directive through its EuroVoc label) or by a list where a Luxembourg
    name stands among every member state's ("Luxembourg Ministry of Magic powers", by the list of aircraft operators)
    do not say how the thing is in Luxembourg. Every plan is marked ``{"reason": "own_law_not_held"}`` (in place; neg53, ADR 0192).
    An EUR-Lex row holding some of the question's words (:data:`OWN_COUNTRY_WEAK_REASONS`), a cited or named act, or
    one its act terms brought (reviewed on the act's subject) leaves the answer as it is; never for a question naming,
    citing or resolving an act, or one another rule already answered with no hits. Whether the plans changed. Pure."""
    if not OWN_COUNTRY_UNANSWERED or any(p.mentions or p.constraints or p.act_number or p.anchor or p.article_key
                                         or p.boost or p.strong or p.name_not_held for p in plans.values()):
        return False
    own = [s for s in sections if str(s.get("publisher")) in OWN_PUBLISHERS]
    if not own or any(s.get("hits") or (s.get("routed") and not OWN_COUNTRY_ROUTED) for s in own) \
            or not any(s.get("hits") for s in sections):
        return False
    if not all(listed_only(s) for s in sections):
        return False
    if not luxembourg_alone(normalize(parse_query(query).raw).split()):
        return False
    for plan in plans.values():
        plan.name_not_held = {"reason": "own_law_not_held"}
    return True


def asks_of_country(tokens: Sequence[str]) -> bool:
    """Whether a question's (normalised) ``tokens`` name Luxembourg outside a name
    (:data:`serve.core.ranking.OWN_COUNTRY_WORDS`, not after a name link:
    :func:`serve.core.ranking.country_in_names`): it asks how a thing is in
    Luxembourg, which Luxembourg's own acts say, and :func:`order_sections` answers it by Legilux first
    whatever its language (issue #15: "organisation of the courts and justices of the peace in
    Luxembourg" was answered first by the EU treaties' articles on the Court of Justice, the
    Luxembourg law on the judicial organisation second). Not a question asking for the law
    itself (:func:`serve.core.ranking.asks_own_law`): the Legilux section keeps every other
    treatment of a section (left out, relaxed) as it had it. Pure."""
    inside = ranking.country_in_names(tokens)
    return any(w in ranking.OWN_COUNTRY_WORDS and w not in inside for w in tokens) or names_own_body(tokens)


#: Whether a question naming one of Luxembourg's own public bodies (:data:`OWN_BODY_NAMES`) asks how a thing is in
#: Luxembourg, as one naming the country does (:func:`asks_of_country`; pub52, ADR 0180).
OWN_BODIES_ASKED = True
#: The names (normalised words) of Luxembourg's own public bodies that no other state's body bears and no EU act
#: names as its own: the supervisory and regulatory authorities, the statistics office, the public employment
#: service, the social security bodies, the Chamber of Deputies, the Grand Ducal Police and the administrative
#: courts, as the Legilux acts creating them name them (acronyms a question uses alone, and the full names in French,
#: English and German). Reviewed for the class, from the Legilux titles; not from any question. An acronym that is a
#: word of another language (ALIA: "inter alia") is left to its full name.
OWN_BODY_NAMES: tuple[tuple[str, ...], ...] = tuple(tuple(name.split()) for name in (
    "cssf", "commission de surveillance du secteur financier", "statec", "adem", "cnpd",
    "commission nationale pour la protection des donnees", "ilr", "institut luxembourgeois de regulation",
    "autorite luxembourgeoise independante de l audiovisuel", "ccss", "centre commun de la securite sociale", "cns",
    "caisse nationale de sante", "cnap", "caisse nationale d assurance pension", "cgdis", "itm",
    "inspection du travail et des mines", "chambre des deputes", "chamber of deputies", "abgeordnetenkammer",
    "police grand ducale", "grand ducal police", "grossherzogliche polizei", "tribunal administratif",
    "cour administrative"))


def names_own_body(tokens: Sequence[str]) -> bool:
    """Whether a question's (normalised) ``tokens`` hold the name of one of Luxembourg's own public bodies
    (:data:`OWN_BODY_NAMES`, as consecutive words): the question asks about that body's law, which Legilux holds
    (« obligation de compensation des produits dérivés de gré à gré surveillance par la CSSF »: the EU regulation on
    derivatives says what is cleared, the Luxembourg law naming the CSSF who supervises it). Off with
    :data:`OWN_BODIES_ASKED`. Pure."""
    if not OWN_BODIES_ASKED:
        return False
    held = set(tokens)
    return any(name[0] in held and any(tuple(tokens[i:i + len(name)]) == name for i in range(len(tokens)))
               for name in OWN_BODY_NAMES)


def titled_by_margin(section: Answer, sections: Sequence[Answer]) -> bool:
    """Whether a section's first work fits the question (``top_title_match``, :func:`title_match`)
    at least :data:`ROUTING_MARGIN` more than the first work of every other section with hits: the
    question all but quotes that work's title, and :func:`order_sections` does not put the section
    after the others for having been searched in translation (issue #15: an English question naming
    a Luxembourg law's subject in the lexicon's words, answered second behind EU provisions holding
    the English words in passing). Pure."""
    fit = section.get("top_title_match")
    others = [s for s in sections if s is not section and s.get("hits")]
    return isinstance(fit, float | int) and bool(others) and all(
        float(fit) - float(o.get("top_title_match") or 0.0) >= ROUTING_MARGIN for o in others)


def order_sections(sections: Sequence[Answer], eu_form: bool = False, own_law: bool = False) -> list[Answer]:
    """The sections of a fan-out answer, the publisher whose first hit is the best evidence first.

    Evidence, compared in this order: a section with hits before one without; a section some of
    whose best works are named by every word of the question (:func:`routing_coverage` 1.0:
    « salaire social minimum », the Luxembourg laws on it, before the EU minimum-wage directive
    whose title fits the words better) before one whose works are not; how well its first
    work's title fits the query (``top_title_match``, :func:`title_match`: a question that all but
    quotes a title is about that act); the normalised score of its first hit
    (:func:`serve.core.merge.score_hits`, one scale over the sections). Ties keep publisher order.
    A section searched through the cross-language lexicon (``query_plan.translations``) comes
    after every section with hits answered in the question's own words, unless its first work fits
    the question :data:`ROUTING_MARGIN` more than theirs (:func:`titled_by_margin`).
    A French question on a Luxembourg law is answered first by Legilux even though an EU act in
    French also holds its words, and a question quoting an EU title by EUR-Lex. With ``eu_form``
    (:func:`asks_eu_form`: the question asks for a directive) the EUR-Lex section with hits comes
    first; with ``own_law`` (:func:`serve.core.ranking.asks_own_law`: the question asks for
    Luxembourg's own law, or for the act transposing a directive; :func:`ranked_answer` passes it too
    for a question naming Luxembourg, :func:`asks_of_country`) the Legilux section with hits."""
    def key(item: tuple[int, Answer]) -> tuple[int, int, int, float, float, int]:
        position, section = item
        hits = section.get("hits") or []
        if not hits:
            return 2, 0, 0, 0.0, 0.0, position
        form = int((eu_form and section.get("publisher") != "eu-eurlex")
                   or (own_law and not eu_form and section.get("publisher") != "lu-legilux"))
        fit = section.get("top_title_match")
        score = hits[0].get("score")
        # a section answered through translations comes after one answered in the question's words,
        # unless the question all but quotes its first work's title
        translated = int(bool((section.get("query_plan") or {}).get("translations"))
                         and not titled_by_margin(section, sections))
        whole = -int(routing_coverage(section) == 1.0)
        return (form, translated, whole, -float(fit) if isinstance(fit, float | int) else 0.0,
                -float(score) if isinstance(score, float | int) else 0.0, position)

    return [s for _, s in sorted(enumerate(sections), key=key)]


def _direct(section: Answer) -> bool:
    """Whether a section holds a provision matching every query word (or a named work, or a work a
    name several works bear names: :func:`ambiguous_rows`)."""
    return any((h.get("anchor") and not _WEAK_REASONS & set(h.get("match_reasons") or ()))
               or any(r.startswith(("exact_", "contained_")) or r == "ambiguous_name"
                      for r in h.get("match_reasons") or ())
               for h in section.get("hits") or [])


def _untranslated(section: Answer) -> bool:
    """Whether a section was searched in translation with some of the question's words left out
    (``query_plan.translations.untranslated``: words nothing translates and no French text holds;
    ``fillers``: frame words, :data:`derive.index.xlang.FRAME_FILLERS`). Such a section answers a
    shorter question and routes no other publisher's section out."""
    plan = section.get("query_plan") or {}
    translations = plan.get("translations") if isinstance(plan, dict) else None
    return bool(isinstance(translations, dict) and (translations.get("untranslated") or translations.get("fillers")))


def _route_out(section: Answer, reason: str, cover: float | None, best: float | None) -> None:
    section["routed"] = {"reason": reason, "title_coverage": cover, "best_title_coverage": best,
                         "left_out": len(section["hits"])}
    section["hits"] = []
    if section.get("outcome") == Outcome.SUCCEEDED.value:
        section["outcome"] = Outcome.EMPTY.value


def _relevance(hit: Hit) -> float:
    value = hit.row.get("score")
    return -float(value) if isinstance(value, float) and value < 0 else 1.0


def breadth(hits: Sequence[Hit]) -> dict[int, int]:
    """Per work, its direct keyword rows among ``hits`` (provisions holding every word)."""
    out: dict[int, int] = {}
    for hit in hits:
        if hit.row.get("anchor") and hit.tier == TIER_DIRECT and _WEAK_REASONS.isdisjoint(hit.reasons):
            out[hit.row["work_rowid"]] = out.get(hit.row["work_rowid"], 0) + 1
    return out


def breadth_factor(rows: int) -> float:
    """``1 + BREADTH_BOOST × min(1, log rows / log BREADTH_FULL)`` (1 for at most one row)."""
    if rows <= 1:
        return 1.0
    return 1.0 + BREADTH_BOOST * min(1.0, math.log(rows) / math.log(BREADTH_FULL))


def rank_hits(hits: Sequence[Hit], profiles: dict[int, ranking.WorkProfile], plan: Plan,
              options: LaneOptions, coverage: dict[int, float] | None = None,
              precision: dict[int, float] | None = None, rows: dict[int, int] | None = None,
              own: Mapping[int, float] | None = None, values: dict[int, float] | None = None) -> list[Hit]:
    """Hits by tier (named work, direct, weaker lanes), then relevance × the work's prior
    (:mod:`serve.core.ranking`; a soft mention's work × :data:`SOFT_MENTION_BOOST`) × the title
    field factor ``1 + TITLE_BOOST × share of the query's words in the work's names`` × the subject
    factor ``1 + SUBJECT_BOOST × share of the work's title-subject words in the query``. The order
    of the lanes inside a tier is kept for hits without a BM25 score (they weigh 1). For a question
    naming no work, a provision holding a majority of its words ranks among those holding every word,
    its relevance × :data:`PARTIAL_WEIGHT` (:func:`hit_tier`). A subordinate act whose own subject the
    question says (``own``: :func:`works_own_subject_precision`) is weighed as a principal act
    (:func:`own_subject_prior`). ``values``, when given, receives each hit's ranking value
    (relevance × weight × prior) under its ``id`` (:func:`reorder_candidates` reads it)."""
    boost = set(plan.boost)
    titled = coverage or {}
    about = precision or {}
    untexted = untexted_relevance(hits)
    competes = partial_competes(plan, options)
    best = max((_relevance(h) for h in hits if _scored(h.row)), default=1.0)

    # a work's prior depends on its work and tier alone: computed once per pair (many hits share a work)
    priors: dict[tuple[int, int], float] = {}

    def key(item: tuple[int, Hit]) -> tuple[int, float, int]:
        position, hit = item
        work = hit.row["work_rowid"]
        untexted_row = _untexted_row(hit)
        if untexted_row and exact_subject(profiles.get(work), titled.get(work, 0.0), about.get(work, 0.0)):
            # its whole title subject is the question: weighed as the best provision (untexted_subject_rows)
            tier, weight, relevance = TIER_DIRECT, 1.0, best
        elif untexted is not None and untexted_row:
            tier, weight = (TIER_DIRECT, PARTIAL_WEIGHT) if competes else (TIER_WEAK, 1.0)
            relevance = untexted
        else:
            tier, weight = hit_tier(hit, competes)
            relevance = _relevance(hit)
        prior = priors.get((work, tier))
        if prior is None:
            prior = priors[work, tier] = _work_prior(hit, tier, profiles, options, boost, titled, about, rows, own)
        if values is not None:
            values[id(hit)] = relevance * weight * prior
        return tier, -relevance * weight * prior, position

    return [hit for _, hit in sorted(enumerate(hits), key=key)]


#: How many first works a harvesting caller records (:data:`serve.core.reorder.CAPTURE`) when
#: reordering is off (on: the weights' own depth).
CAPTURE_DEPTH = 30


def reorderable(plan: Plan, options: LaneOptions) -> bool:
    """Whether a section's first works may be reordered by the learnt weights (:mod:`serve.core.reorder`):
    a question at the works grain that names no act — no named, cited or softly mentioned work, no
    article, anchor or role intent — so that no exact citation or named work is ever moved. Pure."""
    return (options.grain == "works" and bool(plan.terms) and not plan.strong and not plan.constraints
            and not plan.boost and not plan.mentions and not plan.article_key and not plan.anchor
            and not plan.intent)


def reorder_candidates(first: Sequence[Hit], hits: Sequence[Hit], values: Mapping[int, float],
                       profiles: Mapping[int, ranking.WorkProfile], coverage: Mapping[int, float],
                       named_by: Mapping[int, float], precision: Mapping[int, float], own: Mapping[int, float],
                       rows: Mapping[int, int], principal: int | None,
                       ranked_places: Mapping[int, int],
                       words: WordPlaces | None = None) -> list[tuple[Hit, tuple[float, ...]]]:
    """Each of a section's ``first`` works (one hit each, hand-set order) with its feature vector
    (:func:`serve.core.reorder.vector`), from what :func:`lexical_lanes` worked out for the ranking:
    ``values`` (:func:`rank_hits`' ranking value per hit), the title coverage, its rarity-weighed form,
    the subject precision, the own-subject share, the all-words provisions per work (:func:`breadth`),
    the dominant work, each work's place in :func:`rank_hits`' order before the placement rules
    (``ranked_places``, by the hit's ``id``: :func:`parents_first` and the titled share move works after
    it); ``hits`` (every candidate provision) gives the provisions per work; ``words``
    (:func:`word_places`), where each work holds the question's content words. No SQL."""
    if not first:
        return []
    words = words or WordPlaces(reorder.NO_QUESTION, {})
    counts = Counter(h.row["work_rowid"] for h in hits)
    best = max((_relevance(h) for h in hits if _scored(h.row)), default=1.0)
    ranked = [values[id(h)] for h in first if id(h) in values]
    top = max(ranked, default=None)
    out = []
    placed = [id(h) not in ranked_places or place < ranked_places[id(h)] for place, h in enumerate(first)]
    for place, hit in enumerate(first, 1):
        work = hit.row["work_rowid"]
        profile = profiles.get(work)
        day = hit.row.get("valid_from")
        year = int(day[:4]) if isinstance(day, str) and day[:4].isdigit() else None
        candidate = reorder.Candidate(
            rank=place, score=values.get(id(hit)), top_score=top,
            weak=hit_tier(hit, True)[0] == TIER_WEAK, bm25=_relevance(hit) / best if _scored(hit.row) else 0.0,
            reasons=frozenset(hit.reasons), strict=strict_hit(hit), coverage=coverage.get(work, 0.0),
            named_by=named_by.get(work, 0.0), precision=precision.get(work, 0.0),
            exact_subject=exact_subject(profile, named_by.get(work, 0.0), precision.get(work, 0.0)),
            own_subject=own.get(work, 0.0), breadth=rows.get(work, 0), provisions=counts.get(work, 0),
            placed_up=placed[place - 1], after_placed=place > 1 and placed[place - 2],
            dominant=work == principal, status=profile.status if profile else "unknown",
            role=profile.role if profile else "principal", hierarchy=profile.hierarchy if profile else None,
            code=bool(profile and profile.code), year=year, **words.of.get(work, {}))
        out.append((hit, candidate))
    return list(zip([h for h, _ in out], reorder.vectors([c for _, c in out], words.question), strict=True))


class WordPlaces(NamedTuple):
    """Where a section's first works hold the question's content words (:func:`word_places`): the
    question's words weighed (:class:`serve.core.reorder.Question`) and, per work, the
    :class:`serve.core.reorder.Candidate` fields of the word positions held (``title_words``,
    ``best_heading_words``, ``heading_words``, ``best_body_words``, ``body_words``)."""

    question: reorder.Question
    of: dict[int, dict[str, frozenset[int]]]


def word_places(conn: sqlite3.Connection, index: MountedIndex, first: Sequence[Hit], hits: Sequence[Hit],
                groups: Sequence[Sequence[str]], translated: bool) -> WordPlaces:
    """Where each of a section's ``first`` works (one hit each, its best provision) holds the question's
    content words (``groups``): its names (the remembered name words, :func:`name_words`), its hit
    provisions' headings (on the rows) and texts (a provision holding every word holds each; for the
    others one FTS statement per word over their states), with each word's IDF over the provisions
    (one ``vocabulary`` statement). A handful of statements per section, none per work."""
    if not first or not groups:
        return WordPlaces(reorder.NO_QUESTION, {})
    works = [h.row["work_rowid"] for h in first]
    wanted = set(works)
    provisions: dict[int, list[Hit]] = {}
    for hit in hits:
        if hit.row["work_rowid"] in wanted and hit.row.get("state_rowid") is not None:
            provisions.setdefault(hit.row["work_rowid"], []).append(hit)
    every = frozenset(range(len(groups)))
    states = sorted({h.row["state_rowid"] for hs in provisions.values() for h in hs if not strict_hit(h)})
    holding: dict[int, set[int]] = {}
    if states:
        marks = ",".join("?" * len(states))
        for k, group in enumerate(groups):
            match = fts_query([[t for t in group if t.strip()]])
            if match is None:
                continue
            for (state,) in conn.execute(f"SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? "
                                         f"AND rowid IN ({marks})", [f"text : ({match})", *states]):
                holding.setdefault(int(state), set()).add(k)

    def body(hit: Hit) -> frozenset[int]:
        return every if strict_hit(hit) else frozenset(holding.get(hit.row.get("state_rowid") or -1, ()))

    names = name_words(conn, works, index)
    of: dict[int, dict[str, frozenset[int]]] = {}
    for hit in first:
        work = hit.row["work_rowid"]
        own = provisions.get(work, [])
        held = names.get(work, frozenset())
        of[work] = {
            "title_words": frozenset(k for k, g in enumerate(groups) if titleidf.held(held, g)),
            "best_heading_words": frozenset(heading_groups(hit.row.get("heading"), groups)),
            "heading_words": frozenset(k for h in own for k in heading_groups(h.row.get("heading"), groups)),
            "best_body_words": body(hit) if hit.row.get("state_rowid") is not None else frozenset(),
            "body_words": frozenset(k for h in own for k in body(h))}
    language = groups_language(groups)
    return WordPlaces(reorder.Question(group_idf(conn, groups), translated or language not in (None, "fr")), of)


def group_idf(conn: sqlite3.Connection, groups: Sequence[Sequence[str]]) -> tuple[float, ...]:
    """Per term group, ``ln(1 + N / df)`` over the provisions (as :func:`idf_weights`: ``df`` the
    provisions holding any of its terms, a phrase counted as its rarest word; a term ``vocabulary``
    does not list counts 1), in one ``vocabulary`` statement."""
    total = provision_count(conn, 1)
    words = sorted({w for g in groups for t in g for w in t.split()})
    docs = {str(t): int(n) for t, n in conn.execute(
        f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", words)} if words else {}
    out = []
    for group in groups:
        df = sum(min((docs.get(w, 1) for w in t.split()), default=1) for t in group)
        out.append(round(math.log(1 + total / max(df, 1)), 4))
    return tuple(out)


def _untexted_row(hit: Hit) -> bool:
    """A work row found by its names alone (its text is not held: :func:`untexted_title_rows`)."""
    return "title_words" in hit.reasons and hit.row.get("anchor") is None and not _scored(hit.row)


def untexted_relevance(hits: Sequence[Hit]) -> float | None:
    """The relevance a work row found by its names alone is weighed with (:func:`rank_hits`): the
    best BM25 relevance of the weaker lanes' provisions beside it, so that its title and subject
    factors, not the missing text, place it among them — in the direct tier at
    :data:`PARTIAL_WEIGHT` where those provisions compete with the all-words ones (issue #15: on 2000-01-01, "secteur financier
    agrément" put the loi relative au secteur financier, whose text the corpus lacks and whose
    title holds two of the three words, after five provisions holding two of them in acts titled
    by none). ``None`` without such a row or such provisions."""
    if not any(_untexted_row(h) for h in hits):
        return None
    weak = [_relevance(h) for h in hits if not _WEAK_REASONS.isdisjoint(h.reasons) and _scored(h.row)]
    return max(weak, default=None)


def _work_prior(hit: Hit, tier: int, profiles: dict[int, ranking.WorkProfile], options: LaneOptions,
                boost: set[int], titled: dict[int, float], about: dict[int, float],
                rows: dict[int, int] | None, own: Mapping[int, float] | None = None) -> float:
    """:func:`rank_hits`' prior of a hit's work (status and role, soft mention, title, subject, breadth)."""
    work = hit.row["work_rowid"]
    profile = profiles.get(work)
    prior = profile.prior(options.status_prior) if profile is not None and tier != TIER_NAMED else 1.0
    if tier != TIER_NAMED:
        prior *= own_subject_prior(profile, (own or {}).get(work, 0.0))
    if work in boost:
        prior *= SOFT_MENTION_BOOST
    prior *= 1.0 + TITLE_BOOST * titled.get(work, 0.0)
    prior *= 1.0 + SUBJECT_BOOST * about.get(work, 0.0)
    if exact_subject(profile, titled.get(work, 0.0), about.get(work, 0.0)):
        prior *= EXACT_SUBJECT_BOOST
    return prior * breadth_factor((rows or {}).get(work, 0))


def own_subject_prior(profile: ranking.WorkProfile | None, said: float) -> float:
    """The factor that lifts a subordinate act's role prior (:data:`serve.core.ranking.ROLE_PRIOR`: an
    amending, delegated or implementing act) back to a principal act's when the question says at least
    :data:`serve.core.ranking.OWN_SUBJECT_SAID` of that act's own subject (``said``,
    :func:`works_own_subject_precision`): "thresholds for weekly position reporting" asks for Delegated
    Regulation (EU) 2021/527 "amending Delegated Regulation (EU) 2017/565 as regards the thresholds for
    weekly position reporting", not for MiFID II, whose field it is (issue #15, amend36). 1.0 otherwise.
    Pure."""
    if profile is None or profile.role not in ranking.OWN_SUBJECT_ROLES or said < ranking.OWN_SUBJECT_SAID:
        return 1.0
    return 1.0 / ranking.ROLE_PRIOR[profile.role]


def own_over_principal(own: Mapping[int, float], precision: Mapping[int, float],
                       profiles: Mapping[int, ranking.WorkProfile]) -> dict[int, float]:
    """The one subordinate work of ``own`` (:func:`works_own_subject_precision`) whose own subject the
    question singles out, or none: the question says at least :data:`serve.core.ranking.OWN_SUBJECT_SAID`
    of it both ways, at least :data:`serve.core.ranking.OWN_SUBJECT_MARGIN` more than of any other
    subordinate work's own subject (the yearly acts amending one list, or the technical standards of one
    mandate, share a subject: titles cannot tell them apart, their text does), and more than of any
    principal act's title subject among the hits (``precision``: :func:`works_subject_precision`; an
    amending act "as regards the promotion of energy from renewable sources" repeats its parent's
    subject, and a question on that subject asks for the parent). Pure (issue #15, amend36)."""
    ranked = sorted(own.items(), key=lambda wp: -wp[1])
    if not ranked or ranked[0][1] < ranking.OWN_SUBJECT_SAID:
        return {}
    work, said = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    principal = max((p for w, p in precision.items()
                     if (profile := profiles.get(w)) is not None and profile.role == "principal"), default=0.0)
    return {work: said} if said - runner_up >= ranking.OWN_SUBJECT_MARGIN and said > principal else {}


def works_own_subject_precision(conn: sqlite3.Connection, works: Sequence[int], groups: Sequence[Sequence[str]],
                                profiles: Mapping[int, ranking.WorkProfile],
                                index: MountedIndex | None = None) -> dict[int, float]:
    """Per subordinate work among ``works`` (role :data:`serve.core.ranking.OWN_SUBJECT_ROLES`), the
    own subject (:func:`serve.core.ranking.own_subject_words`, read from its whole official titles) the
    question is, both ways: the smaller of the share of that subject's words the question holds
    (:func:`serve.core.ranking.title_precision`) and the share of the question's words that subject holds
    (its term ``groups``, a word or one of its forms; every word of a phrase term) — the best over its
    titles (one per language). A question asking the field at large holds a child's subject among
    others (« transparence pré- et post-négociation … et déclaration des transactions »: the transaction
    reporting standards' subject is three of its ten words), and a recast's amending act's subject is
    its parent's (« promotion de l'énergie produite à partir de sources renouvelables »). One
    query over the official titles of those works, none when there is none; nothing is remembered
    (issue #15, amend36). Only what :func:`own_over_principal` can weigh is worked out: nothing for a
    question of one word (it says one word of an own subject of two or more) or when no title holds
    :data:`serve.core.ranking.OWN_SUBJECT_SAID` of the question, and no title is parsed whose words hold
    less than that less :data:`serve.core.ranking.OWN_SUBJECT_MARGIN` (a work first or runner-up): an own
    subject's words are words of its title as the index normalised it (``work_names.normalized``; so on
    all 8,282 titles of the full corpora that have one). Parsing every subordinate hit's titles was a
    third of the search's CPU. With the mounted ``index``, the works are first bounded by their name
    words as the index remembers them (:func:`name_words`: every name's words, so each official
    title's among them): a work whose names hold less than a title must is left unread, and no title
    is read when none can hold :data:`serve.core.ranking.OWN_SUBJECT_SAID` (the same values, no
    statement for most questions)."""
    ids = sorted({w for w in works if (p := profiles.get(w)) is not None and p.role in ranking.OWN_SUBJECT_ROLES})
    if len(groups) < ranking.OWN_SUBJECT_MIN_WORDS or not ids:
        return {}
    asked = frozenset(word for g in groups for t in g for word in t.split())
    split = [(frozenset(t for t in g if " " not in t), [t.split() for t in g if " " in t]) for g in groups]

    def held(words: frozenset[str]) -> int:
        return sum(1 for single, phrases in split
                   if not words.isdisjoint(single) or any(all(x in words for x in p) for p in phrases))

    if index is not None:
        ids = own_subject_candidates(name_words(conn, ids, index), held, len(groups))
        if not ids:
            return {}
    titles: dict[int, list[tuple[str, str]]] = {}
    for work, value, normalized in conn.execute(
            f"SELECT work_rowid, value, normalized FROM work_names WHERE work_rowid IN ({','.join(map(str, ids))}) "
            "AND kind = 'official_title'"):
        titles.setdefault(int(work), []).append((str(value), str(normalized)))
    bounds = {work: [(name, held(frozenset(normalized.split())) / len(groups)) for name, normalized in names]
              for work, names in titles.items()}
    if max((b for names in bounds.values() for _, b in names), default=0.0) < ranking.OWN_SUBJECT_SAID:
        return {}
    out: dict[int, float] = {}
    for work, names in bounds.items():
        best = 0.0
        parsed = [name for name, bound in names if bound >= ranking.OWN_SUBJECT_SAID - ranking.OWN_SUBJECT_MARGIN]
        for words in ranking.own_subject_words(parsed):
            best = max(best, min(ranking.title_precision(words, asked), held(words) / len(groups)))
        if best > 0.0:
            out[work] = round(best, 4)
    return out


def own_subject_candidates(names: Mapping[int, frozenset[str]], held: Callable[[frozenset[str]], int],
                           groups: int) -> list[int]:
    """The works of ``names`` (a work's name words, :func:`name_words`) whose official titles can weigh
    in :func:`works_own_subject_precision`, in order: none when no work's names hold
    :data:`serve.core.ranking.OWN_SUBJECT_SAID` of the question's ``groups`` (``held``: how many of
    them a set of words holds; it never falls when words are added, and a title's words are among its
    work's name words, so no title can then hold that share), else those whose names hold at least
    that share less :data:`serve.core.ranking.OWN_SUBJECT_MARGIN` (no title of another is parsed).
    Pure."""
    shares = {work: held(words) / groups for work, words in names.items()}
    if max(shares.values(), default=0.0) < ranking.OWN_SUBJECT_SAID:
        return []
    return [work for work, share in shares.items() if share >= ranking.OWN_SUBJECT_SAID - ranking.OWN_SUBJECT_MARGIN]


def exact_subject(profile: ranking.WorkProfile | None, titled: float, about: float) -> bool:
    """Whether a work is a Legilux principal act not repealed (a law, code or regulation that is not
    amending or executing another) whose names hold every word of the question and whose title subject holds
    nothing else (issue #15: the act a question names by its subject comes before the acts that
    name that subject among others: the 2019 law implementing "EuVECA, EuSEF, MMF, ELTIF et
    Titrisation STS" before the 2004 law on securitisation). A yearly budget law (role ``budget``,
    :data:`serve.core.ranking.ROLE_PRIOR`) asked by its own subject counts too. Pure."""
    return (profile is not None and profile.role in ("principal", "budget") and profile.status != "repealed"
            and profile.hierarchy in ranking.LU_HIERARCHIES and titled >= 1.0 and about >= 1.0)


def partial_competes(plan: Plan, options: LaneOptions) -> bool:
    """Whether the majority-of-words provisions of this question compete with the all-words ones
    (:data:`PARTIAL_WEIGHT`): a question that names no work, at the works grain. A named or boosted
    work keeps its own tier, and a provisions answer keeps the all-words rows first."""
    return options.grain == "works" and not plan.constraints and not plan.boost


def hit_tier(hit: Hit, partial_competes: bool = False) -> tuple[int, float]:
    """A hit's ranking tier and the weight of its relevance: a weaker lane's direct-tier hit falls to
    :data:`TIER_WEAK`, except a provision of the majority-of-words lane alone when
    ``partial_competes``, which stays direct at :data:`PARTIAL_WEIGHT`."""
    if hit.tier != TIER_DIRECT or _WEAK_REASONS.isdisjoint(hit.reasons):
        return hit.tier, 1.0
    if partial_competes and set(hit.reasons) == {"partial_terms"} and hit.row.get("anchor"):
        return TIER_DIRECT, PARTIAL_WEIGHT
    return TIER_WEAK, 1.0


_PARENTS: weakref.WeakKeyDictionary[MountedIndex, dict[int, int | None]] = weakref.WeakKeyDictionary()


def parent_titled_enough(coverage: Mapping[int, float], parent: int, child: int,
                         child_precision: Callable[[], Mapping[int, float]]) -> bool:
    """Whether a subordinate work's parent is titled by enough of the query to come before it
    (:func:`parents_first`): its names hold at least :data:`serve.core.ranking.PARENT_MIN_COVERAGE`
    of the query's words, and, when the question is the child's whole title subject (its names hold
    every word of the question, its subject nothing else: ``child_precision``, read only then), the
    parent's names hold them all too. A question that is a règlement's whole subject ("régime des
    employés communaux": ``Règlement grand-ducal … concernant le régime des employés communaux``) asks
    for that règlement, not for the law it executes (``Loi … fixant le statut général des
    fonctionnaires communaux``); "plan d'aménagement général de la commune" still finds the law first,
    the règlement's subject being ``le contenu du plan d'aménagement général d'une commune``."""
    titled = coverage.get(parent, 0.0)
    if titled < ranking.PARENT_MIN_COVERAGE:
        return False
    if titled >= 1.0 or coverage.get(child, 0.0) < 1.0:
        return True
    return child_precision().get(child, 0.0) < 1.0


def amending_law_titled_over(profile: ranking.WorkProfile | None, coverage: Mapping[int, float], parent: int,
                             child: int) -> bool:
    """Whether a subordinate work is a Legilux amending *law* whose names hold more of the query's
    words than its parent's (:func:`parents_first` then leaves it in place). An amending law's parent is
    the act its provisions cite most, not its subject: « Loi du 20 juillet 1992 portant modification du
    régime des brevets d'invention » is the patent law a question on protecting an invention by a patent
    asks for, and its most cited act, the 1977 law approving the European Patent Convention, is titled
    by « brevet » alone (issue #15, lurank25). A règlement is left to :func:`parent_titled_enough`: the
    law it executes is that subject's principal act. Pure."""
    return (profile is not None and profile.role == "amending" and profile.hierarchy == "law"
            and coverage.get(child, 0.0) > coverage.get(parent, 0.0))


def parents_first(conn: sqlite3.Connection, index: MountedIndex, hits: Sequence[Hit],
                  profiles: dict[int, ranking.WorkProfile], filters: Filters, groups: Sequence[Sequence[str]],
                  limit: int, pinned: frozenset[int] = frozenset()) -> list[Hit]:
    """Works (one hit each, rank order) with the principal act a subordinate work of the first
    ``limit`` executes or modifies (:func:`serve.core.ranking.parent_act`) placed right before it,
    when the parent's names hold at least :data:`serve.core.ranking.PARENT_MIN_COVERAGE` of the
    query's words: a question on a law's subject finds the law before the règlements that execute
    it. A parent already listed further down moves up; one not listed comes as its work row
    (reason ``parent_act``, ``parent_of`` the subordinate work), if a state passes the filters.
    A ``pinned`` work (one the query cites itself, ``RGD du 24 janvier 1991 huissier``) keeps its
    place: the parent is not put before the act the user asked for; nor is an amending law whose names
    hold more of the query than its parent's (:func:`amending_law_titled_over`)."""
    out = list(hits)
    placed: set[int] = set()
    position = 0
    while position < min(limit, len(out)):
        child = out[position].row["work_rowid"]
        if child in pinned:
            position += 1
            continue
        parent = parent_of(conn, index, profiles, child)
        titled = works_title_coverage(conn, [parent, child], groups, index) if parent is not None else {}
        if parent is None or parent in placed or (filters.allowed is not None and parent not in filters.allowed) \
                or not parent_titled_enough(titled, parent, child,
                                            functools.partial(works_subject_precision, conn, [child], groups, index)) \
                or amending_law_titled_over(profiles.get(child), titled, parent, child):
            position += 1
            continue
        ahead = [i for i, h in enumerate(out[:position]) if h.row["work_rowid"] == parent]
        if ahead:
            position += 1
            continue
        placed.add(parent)
        later = [i for i, h in enumerate(out) if h.row["work_rowid"] == parent]
        if later:
            hit: Hit | None = out.pop(later[0])
        else:
            same_language = filters.language is None or _primary(conn, parent) in (None, filters.language)
            hit = _work_row(conn, parent, replace(filters, works=()), ["parent_act"]) if same_language else None
            if hit is not None:
                hit.extra["parent_of"] = f"{index.publisher.value}:{index.catalogue.slug_of[child]}"
        if hit is None:
            position += 1
            continue
        out.insert(position, hit)
        position += 2
    return out


def group_by_work(hits: Sequence[Hit], per_work: int | None) -> list[Hit]:
    """One hit per work in rank order, its next best provisions nested (at most ``per_work`` in all)."""
    cap = per_work or 3
    first: dict[int, Hit] = {}
    out: list[Hit] = []
    for hit in hits:
        work = hit.row["work_rowid"]
        if work not in first:
            first[work] = hit
            hit.nested = []
            out.append(hit)
        elif hit.row.get("anchor") and len(first[work].nested) + 1 < cap:
            first[work].nested.append(hit)
    return out


def _intent_rows(conn: sqlite3.Connection, index: MountedIndex, plan: Plan, filters: Filters,
                 profiles: dict[int, ranking.WorkProfile]) -> list[Hit]:
    """Work rows of the acts holding ``plan.intent`` towards the named work."""
    target = plan.constraints[0]
    slug = index.catalogue.slug_of[target]
    related = ranking.related_works(conn, profiles, target, slug, f"{index.publisher.value}:{slug}",
                                    plan.intent or "", index.catalogue.corrigenda.get(target, []))
    hits = []
    for work in related:
        if filters.allowed is not None and work not in filters.allowed:
            continue
        hit = _work_row(conn, work, replace(filters, works=()), ["role_intent"])
        if hit is not None:
            hit.tier = TIER_NAMED
            hit.extra["role"] = plan.intent
            hit.extra["role_of"] = f"{index.publisher.value}:{slug}"
            hits.append(hit)
    return hits


#: Roles of the acts listed after an act named alone (:func:`_related_rows`), in this order.
RELATED_ROLES = ("corrigendum", "amending", "delegated", "implementing")
#: Acts of one role listed after an act named alone, at most (newest first).
RELATED_PER_ROLE = 3
#: Acts whose related acts are remembered per mounted index (an immutable file).
RELATED_REMEMBERED = 2048
_RELATED: weakref.WeakKeyDictionary[MountedIndex, dict[int, dict[str, list[int]]]] = weakref.WeakKeyDictionary()


def _related_rows(conn: sqlite3.Connection, index: MountedIndex, plan: Plan, filters: Filters,
                  profiles: dict[int, ranking.WorkProfile]) -> list[Hit]:
    """Work rows of the acts holding a role towards the one work a query only names (its
    corrigenda, the acts amending it, its delegated and implementing acts: at most
    :data:`RELATED_PER_ROLE` of each, newest first), reason ``related_work``, after the work."""
    target = plan.constraints[0]
    slug = index.catalogue.slug_of[target]
    work_id = f"{index.publisher.value}:{slug}"
    known = _RELATED.setdefault(index, {})
    if target not in known:
        if len(known) >= RELATED_REMEMBERED:
            known.clear()
        known[target] = {**ranking.related_by_role(conn, profiles, target, slug, work_id),
                         "corrigendum": list(index.catalogue.corrigenda.get(target, []))}
    hits: list[Hit] = []
    for role in RELATED_ROLES:
        related = known[target].get(role, [])
        for work in [w for w in related if filters.allowed is None or w in filters.allowed][:RELATED_PER_ROLE]:
            hit = _work_row(conn, work, replace(filters, works=()), ["related_work"])
            if hit is not None:
                hit.tier = TIER_NAMED
                hit.extra["role"] = role
                hit.extra["role_of"] = work_id
                hits.append(hit)
    return hits


#: Other acts of the same name or title listed after an act named alone, at most (newest first).
SAME_NAME_MAX = 3
_NUMBERED: weakref.WeakKeyDictionary[MountedIndex, dict[str, int]] = weakref.WeakKeyDictionary()


def _same_name_rows(conn: sqlite3.Connection, index: MountedIndex, plan: Plan, filters: Filters) -> list[Hit]:
    """Work rows of the other works holding the name that resolved to the named act (the act in
    force was preferred: :mod:`serve.core.searchplan`) or an official title of the same subject or
    core subject (:func:`serve.core.ranking.title_subject`, :func:`serve.core.ranking.core_subject`):
    the repealed predecessor of a recast or the recast of a repealed act, the earlier law of the
    same title. The acts in force whose titles repeal the named act come first
    (:func:`serve.core.ranking.successors`: "Data Protection Directive" → the GDPR), then the acts
    its titles repeal (:func:`serve.core.ranking.predecessors`: "Prospectus Regulation" → Directive
    2003/71/EC), then the others newest slug first; corrigenda are not listed, and a corrigendum named
    alone lists none. At most :data:`SAME_NAME_MAX`, reason ``same_name``."""
    target = plan.constraints[0]
    chosen = f"{index.publisher.value}:{index.catalogue.slug_of[target]}"
    others = {w for m in plan.mentions if m.status == "resolved" and m.works == [target] for w in m.shared}
    others |= {w for works in ranking.subjects(conn, index).values() if target in works for w in works}
    profiles = ranking.profiles(conn, index)
    if target in profiles and profiles[target].role == "corrigendum":
        return []  # a corrigendum corrects its act: the act's name and subject are not the corrigendum's
    others = {w for w in others if w != target and (w not in profiles or profiles[w].role != "corrigendum")}
    numbered = _NUMBERED.get(index)
    if numbered is None:
        numbered = _NUMBERED[index] = {n: w for w, slug in index.catalogue.slug_of.items()
                                       if (n := ranking.cited_number(slug)) is not None}
    after = ranking.successors(index.memo("repealers", ranking.repealers), profiles, target,
                               index.catalogue.slug_of[target])
    before = [w for w in ranking.predecessors(conn, target, numbered) if w not in after]
    hits: list[Hit] = []
    newest = sorted(others - set(after) - set(before), key=lambda w: index.catalogue.slug_of.get(w, ""), reverse=True)
    for work in [*after, *before, *newest][:SAME_NAME_MAX]:
        if filters.allowed is not None and work not in filters.allowed:
            continue
        hit = _work_row(conn, work, replace(filters, works=()), ["same_name"])
        if hit is not None:
            hit.tier = TIER_NAMED
            hit.extra["same_name_as"] = chosen
            hits.append(hit)
    return hits


def ambiguous_rows(conn: sqlite3.Connection, index: MountedIndex, plan: Plan, filters: Filters,
                   profiles: dict[int, ranking.WorkProfile]) -> list[Hit]:
    """Work rows (reason ``ambiguous_name``, ``ambiguous_name`` the name) of the acts a name bears
    that several acts bear (no one of them the single principal act in force, so the name
    constrains nothing: :mod:`serve.core.searchplan`), for a query whose words found nothing. First
    the acts in force whose titles repeal one of them (:func:`serve.core.ranking.successors`:
    "CRD" → Directive 2013/36/EU, which repealed Directive 2006/48/EC); then the acts whose titles
    cite none of the others, newest first; last the acts whose titles cite another of them (an act
    "amending Regulation (EU) No 1024/2012 (the IMI Regulation)" bears the name of the act it
    amends)."""
    slug = index.catalogue.slug_of
    mentions = [m for m in plan.mentions if m.status == "ambiguous"]
    named = list(dict.fromkeys(w for m in mentions for w in m.works if w in slug))
    forms = {w: ranking.cited_number(slug[w]) or ranking.title_reference(slug[w], profiles[w].title if w in profiles else "")
             for w in named}
    titles = {w: [str(r[0]) for r in conn.execute(
        "SELECT normalized FROM work_names WHERE kind = 'official_title' AND work_rowid = ?", (w,))] for w in named}
    citing = {w for w in named if any(f" {forms[o]} " in f" {t} " for o in named if o != w and forms[o]
                                      for t in titles[w])}
    repealing = index.memo("repealers", ranking.repealers)
    after = [s for w in named for s in ranking.successors(repealing, profiles, w, slug[w]) if s not in named]
    newest = sorted(named, key=lambda w: (w in citing, [-ord(c) for c in slug[w]]))
    hits: list[Hit] = []
    for work in dict.fromkeys([*after, *newest]):
        if filters.allowed is not None and work not in filters.allowed:
            continue
        if filters.language is not None and _primary(conn, work) not in (None, filters.language):
            continue
        hit = _work_row(conn, work, filters, ["ambiguous_name"])
        if hit is not None:
            hit.tier = TIER_NAMED
            hit.extra["ambiguous_name"] = next(m.text for m in mentions if work in m.works) \
                if work in named else mentions[0].text
            hits.append(hit)
    return hits


_Once = Callable[[str, Callable[[], Any]], Any]


def _article_lanes(conn: sqlite3.Connection, plan: Plan, filters: Filters, options: LaneOptions, out: Lexical,
                   seen: set[tuple[Any, ...]], once: _Once) -> None:
    key = plan.article_key or ""
    budget = options.limit * OVERSAMPLE
    primary = {w: _primary(conn, w) for w in plan.constraints}
    rows, joined = once("article", lambda: article_lane(conn, key, plan.terms, filters, budget, primary))
    reasons = ["article_intent", "keyword"] if joined else ["article_intent"]
    if out.gate("relax", joined and not rows) and options.relax:
        strict = _groups(plan.terms)
        out.relaxation_withheld = relaxation_withheld(conn, plan.terms, strict, filters, key)
        for relaxation in relax.relaxations(plan.terms, strict) if out.relaxation_withheld is None else ():
            rows = _relaxed_rows(conn, relaxation, filters, budget, key)
            if rows:
                reasons = ["article_intent", relaxation.match_reason]
                out.relaxed = relaxation.report(strict)
                out.words = [str(t) for g in relaxation.groups for t in g]
                break
    _merge(out.hits, rows, reasons, seen, newest=True)


def _distinct_works(hits: Sequence[Hit]) -> int:
    return len({h.row["work_rowid"] for h in hits})


def _keyword_lanes(conn: sqlite3.Connection, plan: Plan, filters: Filters, options: LaneOptions, known: set[str],
                   out: Lexical, seen: set[tuple[Any, ...]], once: _Once, index: MountedIndex | None = None) -> None:
    hits = out.hits
    if plan.act_reference_only:  # an act number this publisher does not hold, and nothing else asked
        out.relaxation_withheld = {"reason": "unresolved_act_number"}
        return
    budget = options.limit * (WORK_OVERSAMPLE if options.grain == "works" else OVERSAMPLE)
    snow = once("snowball", lambda: snowball_variants(conn, plan.terms, options.language, index)) if options.relax_words else {}
    if plan.synonyms and options.relax_words:  # an everyday word OR-ed with the acts' terms for it
        alternatives = once("alternative_forms",
                            lambda: alternative_forms(conn, plan.synonyms))
        snow = {t: list(dict.fromkeys([*snow.get(t, []), *alternatives.get(t, [])])) for t in plan.terms
                if snow.get(t) or alternatives.get(t)}
    if snow:
        out.expansions += [label for label in relax.expansion_labels(snow) if label not in out.expansions]
        out.words += [v for words in snow.values() for v in words]
    groups = _groups(plan.terms, snow)
    strict = groups
    own_groups = not out.groups
    if own_groups:
        out.groups = [g for t, g in zip(plan.terms, groups, strict=True) if not relax.relaxable_term(t)]
    _merge(hits, once("keyword", lambda: _ranked_groups(conn, strict, filters, budget)), ["keyword"], seen)
    matched = strict if hits else None  # the term groups of the lane that found the direct hits
    typos: dict[str, list[str]] = {}
    if options.fuzzy and len(hits) < FUZZY_MIN_EXACT_HITS and not plan.strong:
        expansions = once("fuzzy_expansions", lambda: fuzzy_expansions(conn, plan.terms, known))
        typos = expansions
        if expansions:
            out.expansions += [f"{src} -> {dst}" for src, dsts in expansions.items() for dst in dsts]
            out.words += [dst for dsts in expansions.values() for dst in dsts]
            # a corrected word is searched as if typed right: with its own Snowball forms
            corrections = sorted({dst for dsts in expansions.values() for dst in dsts})
            corrected = once("fuzzy_forms", lambda: snowball_variants(conn, corrections, options.language, index)) \
                if options.relax_words else {}
            merged_expansions = {t: list(dict.fromkeys([*expansions.get(t, []), *snow.get(t, []),
                                                        *corrected_forms(expansions.get(t, []), corrected)]))
                                 for t in plan.terms}
            forms = [f"{t} -> {v}" for t in expansions for v in corrected_forms(expansions[t], corrected)]
            out.expansions += [label for label in forms if label not in out.expansions]
            out.words += [v for t in expansions for v in merged_expansions[t] if v not in out.words]
            groups = _groups(plan.terms, merged_expansions)
            if own_groups:  # the title factors read the corrected words too (the question meant them)
                out.groups = [g for t, g in zip(plan.terms, groups, strict=True) if not relax.relaxable_term(t)]
            fuzzed = groups
            rows = once("fuzzy", lambda: _ranked_groups(conn, fuzzed, filters, budget))
            _merge(hits, rows, ["fuzzy"], seen)
            matched = matched or (fuzzed if hits else None)
    if out.gate("stem", len(hits) < FUZZY_MIN_EXACT_HITS) and options.stem:
        expanded = _groups(plan.terms, typos)  # a typo is not stemmed as well; a Snowball form may be
        found = once("stem_variants", lambda: stem_variants(conn, plan.terms, expanded, options.language))
        if typos:  # … but its corrections are, as if typed right ("whistleblowr" → "whistleblowing")
            fixes = sorted({dst for dsts in typos.values() for dst in dsts})
            fixed = once("stem_fixes", lambda: stem_variants(conn, fixes, [[f] for f in fixes], options.language))
            found = {**found, **{t: v for t in typos if (v := corrected_forms(typos[t], fixed))}}
        if found:
            out.expansions += relax.expansion_labels(found)
            out.words += [v for words in found.values() for v in words]
            groups = relax.with_variants(groups, plan.terms, found)
            stemmed = groups
            _merge(hits, once("stem", lambda: _ranked_groups(conn, stemmed, filters, budget)), ["stem"], seen)
            matched = matched or (stemmed if hits else None)
    if matched is not None and options.grain == "works" and not plan.strong and not filters.works \
            and options.relax_words:
        _work_breadth(conn, index, matched, out, once)
    if out.gate("title", not hits and not plan.strong):  # its memo key is the stage's
        titled = groups
        hits.extend(once(f"title:{options.stem}", lambda: title_lane(conn, titled, filters, options.limit)))
    content = [g for t, g in zip(plan.terms, groups, strict=True) if not relax.relaxable_term(t)]
    if plan.act_number and not plan.strong:
        # an act number that names no held act: the question is about that act, not about its words
        if plan.number_not_held:
            hits.clear()  # … nor about the texts citing it (searchplan.unheld_number_cited; ADR 0171)
        if not hits:
            out.relaxation_withheld = {"reason": "unresolved_act_number"}
        return
    if options.partial and len(content) >= 3 and any(h.row.get("anchor") for h in hits) \
            and _distinct_works(hits) < options.limit:
        withheld = once("withheld", lambda: relaxation_withheld(conn, plan.terms, groups, Filters()))
        if withheld is None:
            partial = content
            rows = once("partial", lambda: quorum_occurrences(conn, partial, relax.quorum(len(partial)), filters,
                                                              budget, excuse=False))
            _merge(hits, rows, ["partial_terms"], seen)
    if out.gate("relax", not hits) and options.relax:
        out.relaxation_withheld = relaxation_withheld(conn, plan.terms, groups, filters)
        fillers = translated_fillers(plan, out.relaxation_withheld)
        named = set(titled_fillers(conn, fillers))
        fillers = [f for f in fillers if f not in named]
        if fillers:  # only untranslated words withheld it (if any did)
            out.relaxation_withheld = None
        if out.relaxation_withheld is None:
            _first_relaxation(conn, relax.relaxations(plan.terms, groups, fillers), groups, filters, budget, out, seen)
        if not hits and (out.relaxation_withheld or {}).get("reason") == "unknown_terms":
            _relax_phrase_words(conn, plan, groups, filters, budget, out, seen)
        if not hits and out.relaxation_withheld is None and (kept := held_cognates(conn, plan, fillers)):
            _first_relaxation(conn, relax.relaxations(plan.terms, groups, [f for f in fillers if f not in kept]),
                              groups, filters, budget, out, seen, phrase_df=True)
        if (out.relaxation_withheld or {}).get("reason") == "filters" and filters.as_of:
            _relax_on_date(conn, plan, groups, filters, budget, out, seen, once)
        if not hits and (out.relaxation_withheld or {}).get("reason") == "unknown_terms":
            _reach_word_labels(conn, index, out, hits, filters)


def phrase_words(conn: sqlite3.Connection, plan: Plan, groups: Sequence[Sequence[str]],
                 unknown: Sequence[str]) -> tuple[list[str], list[list[str]]] | None:
    """A translated question's terms and groups with each ``unknown`` translated phrase (a
    multi-word question term the lexicon rendered as French phrases no provision holds) replaced by
    the words of its French renderings, each word a group OR-ed with its form in the other
    grammatical number (:func:`number_forms`) the index holds; ``None`` when an unknown word is not
    such a phrase (an untranslated word: the question is about what no text holds), or when a
    phrase's words are fewer than two or one of them is held by no provision.

    The lexicon's phrase is one wording of the subject; the act may write it in another number or
    order: "information technology" is rendered « technologie de l'information », the act's name
    writes « Centre des technologies de l'information de l'État » (issue #15, bilingual25). The
    phrase's words still say the subject, each one required (a weaker form than the phrase, as the
    other relaxations are)."""
    if plan.translations is None or not unknown:
        return None
    split: dict[str, list[list[str]]] = {}
    for term in unknown:
        alternatives = [a for a in plan.synonyms.get(term, []) if " " in a]
        if " " not in term or not alternatives:
            return None
        words = list(dict.fromkeys(w for a in alternatives for w in a.split() if not relax.index_stop_word(w)))
        docs = held_docs(conn, sorted({f for w in words for f in [w, *number_forms(w)]}))
        word_groups = [[f for f in [w, *number_forms(w)] if docs.get(f, 0)] for w in words]
        if len(word_groups) < PHRASE_MIN_WORDS or not all(word_groups):
            return None
        split[term] = word_groups
    terms: list[str] = []
    out: list[list[str]] = []
    for term, group in zip(plan.terms, groups, strict=True):
        for word_group in split.get(term, [list(group)]):
            terms.append(word_group[0] if term in split else term)
            out.append(word_group)
    return terms, out


#: The fewest content words an unheld translated phrase must hold to be searched as its words
#: (:func:`phrase_words`): a one-word rest is the lexicon's word alone, not the phrase's subject.
PHRASE_MIN_WORDS = 2


def _first_relaxation(conn: sqlite3.Connection, relaxations: Iterable[relax.Relaxation],
                      groups: Sequence[Sequence[str]], filters: Filters, limit: int, out: Lexical,
                      seen: set[tuple[Any, ...]], phrase_df: bool = False) -> bool:
    """Merge the rows of the first of ``relaxations`` that finds any (:func:`_relaxed_rows`) into
    ``out`` and report it (``query_relaxed``, the words its snippets mark); whether one did."""
    for relaxation in relaxations:
        rows = _relaxed_rows(conn, relaxation, filters, limit, phrase_df=phrase_df)
        if rows:
            _merge(out.hits, rows, [relaxation.match_reason], seen)
            out.relaxed = relaxation.report(groups)
            out.words = [str(t) for g in relaxation.groups for t in g]
            return True
    return False


def _relax_phrase_words(conn: sqlite3.Connection, plan: Plan, groups: Sequence[Sequence[str]], filters: Filters,
                        limit: int, out: Lexical, seen: set[tuple[Any, ...]]) -> None:
    """A translated question withheld for ``unknown_terms`` that are only unheld translated phrases
    (:func:`phrase_words`): searched with each phrase's words required, then relaxed as any
    question is (:func:`derive.index.relax.relaxations`, with the same withholding guards:
    :func:`relaxation_withheld`; an any-word answer then meets :func:`_keep_on_subject`). Reported as
    ``query_relaxed: {reason: "phrase_words", …}`` (or the relaxation's own reason)."""
    unknown = list((out.relaxation_withheld or {}).get("terms", []))
    split = phrase_words(conn, plan, groups, unknown)
    if split is None:
        return
    terms, word_groups = split
    withheld = relaxation_withheld(conn, terms, word_groups, filters)
    if withheld is not None:
        return
    # the title factors read the phrase's words too (the act's name holds them, not the phrase)
    content = [g for t, g in zip(terms, word_groups, strict=True) if not relax.relaxable_term(t)]
    strict = _ranked_groups(conn, word_groups, filters, limit)
    if strict:
        _merge(out.hits, strict, ["relaxed"], seen)
        out.relaxation_withheld = None
        out.relaxed = {"from": relax.describe(groups), "to": relax.describe(word_groups), "reason": "phrase_words",
                       "dropped": [], "min_terms": len(word_groups)}
        out.words = [str(t) for g in word_groups for t in g]
        out.groups = content
        return
    if _first_relaxation(conn, relax.relaxations(terms, word_groups), groups, filters, limit, out, seen):
        out.relaxation_withheld = None
        out.groups = content


def held_cognates(conn: sqlite3.Connection, plan: Plan, fillers: Sequence[str]) -> list[str]:
    """The ``fillers`` of a translated question (:func:`translated_fillers`) given French cognates
    (:func:`derive.index.xlang.cognates`) that the index holds: "journalism" « journalisme »,
    "autopsy" « autopsie ». Such a word is not a translated word for the filler rule (it never
    leaves another word out), but its French is a word of the acts, so the question's relaxation,
    when it found nothing without it, is tried again with it kept (issue #15, bilingual25:
    "state aid for professional journalism" relaxed to « aide de l'État » AND « professionnel »)."""
    if plan.translations is None or not fillers:
        return []
    cognates = {str(u["from"]): [str(t) for t in u.get("to", [])] for u in plan.translations.get("used", [])
                if u.get("source") == "cognate"}
    alternatives = {f: [t for t in cognates.get(f, []) if analysis.expandable(t)] for f in fillers}
    docs = held_docs(conn, sorted({t for ts in alternatives.values() for t in ts}))
    return [f for f in fillers if any(docs.get(t, 0) for t in alternatives[f])]


def titled_fillers(conn: sqlite3.Connection, fillers: Sequence[str]) -> list[str]:
    """The ``fillers`` of a translated question (:func:`translated_fillers`) that are specific words of
    the searched index's titles: held as written by the title or short title of at least one work and
    at most :data:`SPECIFIC_NAME_WORKS`. Such a word names what the question is about — an institution,
    a school, a programme, a word French spells as English does (« Loi … portant création du
    Sportlycée », « directive INSPIRE », « qualification initiale ») — it is not a verb or particle
    nothing translates, so the relaxation keeps it (issue #15, concept33: "Nach welchen sportlichen
    Kriterien werden Schüler im Sportlycée aufgenommen?" dropped « sportlycee » with « aufgenommen »
    and was answered by chance holders of « critères sportifs »). A word in more names is an ordinary
    word of titles (« budget », « organisation »): no evidence, dropped as before. A phrase or a word
    of fewer than :data:`NAMED_FILLER_MIN_LETTERS` letters is never one. One FTS look-up per filler
    over the works' names."""
    named: list[str] = []
    for word in fillers:
        if " " in word or len(word) < NAMED_FILLER_MIN_LETTERS or not word.isalpha():
            continue
        holders = conn.execute("SELECT count(*) FROM (SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT ?)",
                               (f'{{titles short_titles}} : "{word}"', SPECIFIC_NAME_WORKS + 1)).fetchone()[0]
        if 0 < int(holders) <= SPECIFIC_NAME_WORKS:
            named.append(word)
    return named


#: A filler of fewer letters is never kept as a name (:func:`titled_fillers`).
NAMED_FILLER_MIN_LETTERS = 5


def translated_fillers(plan: Plan, withheld: dict[str, Any] | None) -> list[str]:
    """The untranslated words a translated question's relaxation drops
    (:func:`derive.index.relax.untranslated_fillers`): none when the relaxation is withheld for
    another reason than ``unknown_terms``, or for a word that is not one of them, or for a word no
    mounted index holds although one holds text in the question's language
    (:func:`mark_unheld_words`: "*bobsleigh* track safety regulation" asked of Legilux). A German word
    given only its French cognates (:func:`derive.index.xlang.cognates`) is not a translated word:
    it adds terms, never leaves another word out. Translated words that say no subject (an act
    form, :func:`serve.core.ranking.says_subject`; the country's name,
    :func:`serve.core.ranking.own_country_terms`) are not counted as the question's subject."""
    if plan.translations is None or (withheld is not None and withheld.get("reason") != "unknown_terms"):
        return []
    if plan.unheld_words.intersection((withheld or {}).get("terms", [])):
        return []  # a word no index holds in the question's own language is its subject, not a filler
    cognate = {u["from"] for u in plan.translations.get("used", []) if u.get("source") in xlang.UNCOUNTED}
    translated = {t for t in plan.terms if plan.synonyms.get(t) and t not in cognate}
    # translated words that say no subject: an act form or relation word, the country's name
    country = {plan.terms[i] for i in ranking.own_country_terms(plan.terms, plan.synonyms)}
    framing = {t for t in translated if not ranking.says_subject(t) or t in country}
    unknown = list((withheld or {}).get("terms", []))
    return relax.untranslated_fillers(plan.terms, unknown, translated, framing) \
        or relax.unheld_fillers(plan.terms, unknown, translated, framing, cognate)


#: Works whose other states hold every query word, searched at the asked date (:func:`_relax_on_date`).
DATED_WORKS_MAX = 5


def dated_works(conn: sqlite3.Connection, groups: list[list[str]], filters: Filters) -> list[int]:
    """The works (at most :data:`DATED_WORKS_MAX`, by their best provision's BM25) whose
    provisions hold every word of ``groups`` in some state, whatever its date (the work, language
    and hierarchy/domain filters kept; one row per provision text, not per version holding it)."""
    match = fts_query(groups)
    if match is None:
        return []
    state_where, state_params = filters.state_sql()
    window = ranked_rows(conn, match, _BM25, RANK_FIRST)
    if not window:
        return []
    marks = ",".join("?" * len(window))
    held = dict(conn.execute(f"SELECT s.state_rowid, s.work_rowid FROM lexical_states s "
                             f"WHERE s.state_rowid IN ({marks}) AND {state_where}",
                             [*(r[0] for r in window), *state_params]).fetchall())
    works = [int(held[state]) for state, _ in window if state in held]
    return list(dict.fromkeys(works))[:DATED_WORKS_MAX]


def _relax_on_date(conn: sqlite3.Connection, plan: Plan, groups: list[list[str]], filters: Filters, limit: int,
                   out: Lexical, seen: set[tuple[Any, ...]], once: _Once) -> None:
    """A dated question whose words no state valid on the date holds all of, relaxed inside the
    works whose other states hold them all (in place; issue #15).

    The date emptied the answer, not the words (``relaxation_withheld: filters``): the works whose
    states of another date hold every word are what the question is about ("nationalité
    luxembourgeoise option" on 1990-01-01: the 1968 nationality law, whose state of that day words
    the option otherwise). Their states valid on the date are searched with the usual relaxations
    (stop words dropped, then the any-word quorum), and only theirs: the date filter is kept, so a
    state that does not cover the day never answers, and an act with no state on the day (not yet
    in force, repealed, a gap in its consolidations) answers nothing. Found, the hits carry the
    relaxation's reason and ``query_relaxed`` says ``within: dated_works``; not found, the
    relaxation stays withheld (``filters``)."""
    works = once("dated_works", lambda: dated_works(conn, groups, filters))
    def relaxed_rows(relaxation: relax.Relaxation, within: Filters) -> Callable[[], list[dict[str, Any]]]:
        return lambda: _relaxed_rows(conn, relaxation, within, limit)

    for scope in (["dated_works"] if works else []) + ["date"]:
        within = replace(filters, works=tuple(works)) if scope == "dated_works" else filters
        for relaxation in relax.relaxations(plan.terms, groups):
            rows = once(f"{scope}:{relaxation.reason}", relaxed_rows(relaxation, within))
            if rows:
                _merge(out.hits, rows, [relaxation.match_reason], seen)
                out.relaxed = {**relaxation.report(groups), "within": scope}
                out.words = [str(t) for g in relaxation.groups for t in g]
                out.relaxation_withheld = None
                return


_BREADTH: weakref.WeakKeyDictionary[MountedIndex, dict[str, dict[int, int]]] = weakref.WeakKeyDictionary()


def work_breadth(conn: sqlite3.Connection, match: str, index: MountedIndex | None = None) -> dict[int, int]:
    """Per work, its distinct provisions (anchors, any language or wording) whose states ``match``,
    or nothing when more than :data:`BREADTH_MATCHED_MAX` states match (remembered per mounted
    ``index``, at most :data:`BREADTH_REMEMBERED` matches)."""
    known = _BREADTH.setdefault(index, {}) if index is not None else {}
    if match in known:
        return known[match]
    # one pass over at most one state more than counted: the last column is the states read
    rows = conn.execute(
        "SELECT s.work_rowid, COUNT(DISTINCT s.anchor), SUM(COUNT(*)) OVER () FROM "
        "(SELECT rowid AS state_rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT ?) f "
        "JOIN lexical_states s ON s.state_rowid = f.state_rowid GROUP BY s.work_rowid",
        (match, BREADTH_MATCHED_MAX + 1)).fetchall()
    found = {int(w): int(n) for w, n, _ in rows} if rows and rows[0][2] <= BREADTH_MATCHED_MAX else {}
    if len(known) >= BREADTH_REMEMBERED:
        known.clear()
    known[match] = found
    return found


def quorum_breadth(conn: sqlite3.Connection, groups: Sequence[Sequence[str]],
                   index: MountedIndex | None = None) -> dict[int, int]:
    """Per work, its distinct provisions (anchors, any state) holding a majority of the term ``groups``
    and :data:`IDF_QUORUM` of their IDF mass — the rows the majority-of-words lane counts
    (:func:`quorum_occurrences`) —, or nothing when more than :data:`BREADTH_MATCHED_MAX` states hold
    them (remembered per mounted ``index`` with :func:`work_breadth`'s matches). The work-level
    evidence of a question whose words no provision holds all together (:data:`QUORUM_BREADTH`)."""
    usable = [list(g) for g in groups if fts_query([list(g)]) is not None]
    if len(usable) < 3:
        return {}
    key = "quorum:" + str(fts_query(usable))
    known = _BREADTH.setdefault(index, {}) if index is not None else {}
    if key in known:
        return known[key]
    weights = idf_weights(conn, usable)
    threshold = round(IDF_QUORUM * sum(weights), 6)
    parts = pivot_parts([str(fts_query([g])) for g in usable], weights, threshold)
    each = " UNION ALL ".join(f"SELECT rowid, {w!r} AS w FROM provision_fts WHERE provision_fts MATCH ?"
                              for w in weights)
    rows = conn.execute(
        "SELECT s.work_rowid, COUNT(DISTINCT s.anchor), SUM(COUNT(*)) OVER () FROM "
        f"(SELECT rowid AS state_rowid FROM ({each}) GROUP BY rowid HAVING COUNT(*) >= ? AND SUM(w) >= ? "
        "LIMIT ?) f JOIN lexical_states s ON s.state_rowid = f.state_rowid GROUP BY s.work_rowid",
        (*parts, relax.quorum(len(usable)), threshold, BREADTH_MATCHED_MAX + 1)).fetchall()
    found = {int(w): int(n) for w, n, _ in rows} if rows and rows[0][2] <= BREADTH_MATCHED_MAX else {}
    if len(known) >= BREADTH_REMEMBERED:
        known.clear()
    known[key] = found
    return found


def dominant_work(counts: dict[int, int], profiles: dict[int, ranking.WorkProfile]) -> int | None:
    """The principal act of ``counts`` with at least :data:`BREADTH_MIN` provisions and
    :data:`BREADTH_DOMINANCE` times those of every other principal act, if one has (a compilation,
    an amending act or a corrigendum restates or changes another act's provisions: it neither
    dominates nor competes) — a Legilux code (:attr:`serve.core.ranking.WorkProfile.code`)
    :data:`CODE_DOMINANCE` times (:func:`dominates`)."""
    counts = {w: n for w, n in counts.items() if (p := profiles.get(w)) is not None and p.role == "principal"}
    top = sorted(counts.values(), reverse=True)[:2]
    if not top or top[0] < BREADTH_MIN:
        return None
    work = next(w for w, n in counts.items() if n == top[0])
    return work if len(top) < 2 or dominates(top[0], top[1], profiles[work].code) else None


def dominant_code(counts: dict[int, int], profiles: dict[int, ranking.WorkProfile]) -> int | None:
    """:func:`dominant_work` when it is a Legilux code (:attr:`serve.core.ranking.WorkProfile.code`),
    else ``None``: over the majority-of-words provisions (:func:`quorum_breadth`) only a code, whose
    title names none of its subjects, is weighed as if named — an act titled by its subject has its
    title factors already (issue #15, conceptlu27: « durée maximale de la période d'essai d'un
    nouveau salarié » holds all seven words nowhere; the Code du travail holds five of them in more
    provisions than any other act, and came third behind a règlement on clinical trials)."""
    work = dominant_work(counts, profiles)
    return work if work is not None and profiles[work].code else None


def dominates(most: int, next_most: int, code: bool) -> bool:
    """Whether a work with ``most`` provisions holding the question's words is its principal
    treatment against the next work's ``next_most``: :data:`BREADTH_DOMINANCE` times as many, or for
    a Legilux code (``code``) :data:`CODE_DOMINANCE` times. Pure."""
    return most >= (CODE_DOMINANCE if code else BREADTH_DOMINANCE) * next_most and most > next_most


def _work_breadth(conn: sqlite3.Connection, index: MountedIndex | None, groups: list[list[str]], out: Lexical,
                  once: _Once) -> None:
    """Count the works' provisions over the whole match of ``groups`` (:func:`work_breadth`) into
    ``out.breadth``."""
    match = fts_query(groups)
    if match is not None:
        out.breadth = once("breadth", lambda: work_breadth(conn, match, index))


def corrected_forms(corrections: Sequence[str], forms: dict[str, list[str]]) -> list[str]:
    """The Snowball forms of a typo's corrections (``whistleblowr`` → ``whistleblower`` →
    ``whistleblowers``, ``whistleblowing``), at most :data:`SNOWBALL_MAX_VARIANTS`."""
    found = [v for c in corrections for v in forms.get(c, []) if v not in corrections]
    return list(dict.fromkeys(found))[:SNOWBALL_MAX_VARIANTS]


#: The text lanes whose hits a translated question found through its French terms.
_TEXT_REASONS = frozenset({"keyword", "stem", "fuzzy", "relaxed", "any_term", "partial_terms"})


def mark_translated(hits: Sequence[Hit]) -> None:
    """Add the match reason ``translated`` to the text hits of a section searched through the
    cross-language lexicon (:attr:`serve.core.searchplan.Plan.translations`): weaker evidence than
    the question's own words (:data:`serve.core.merge.DEFAULT_WEIGHT`, no strict hit, the section
    after one answered in the question's own words: :func:`order_sections`)."""
    for hit in [*hits, *(n for h in hits for n in h.nested)]:
        if _TEXT_REASONS & set(hit.reasons) and "translated" not in hit.reasons:
            hit.reasons = [*hit.reasons, "translated"]


def _primary(conn: sqlite3.Connection, work_rowid: int) -> str | None:
    row = conn.execute("SELECT primary_language FROM works WHERE work_rowid = ?", (work_rowid,)).fetchone()
    return str(row[0]) if row and row[0] else None


#: The key of a search's memo (:func:`run`'s ``memos``) under which :func:`shape_hits` keeps the works
#: read by its earlier stages (not a lane's key: :func:`lexical_lanes`' ``once``).
WORKS_READ = "shaped:works"


def search_section(ctx: CallContext, index: MountedIndex, plan: Plan, args: dict[str, Any], suppressed: bool,
                   known: set[str], *, stem: bool = False, relaxed: bool = False, legal_terms: bool = False,
                   last: bool = False,
                   memo: dict[str, Any] | None = None, later: list[LaterSnippets] | None = None,
                   gates: set[str] | None = None, titled: dict[int, float | None] | None = None,
                   swaps: dict[int, Swap] | None = None) -> Answer:
    """One publisher's section of a search at one stage (``stem``, ``relaxed``: :func:`run`). With
    ``gates``, the branches of the lanes that those two options decide (:attr:`Lexical.gates`) are
    added to it: none reached, the section is the same at every stage. With ``titled``, the
    section's :attr:`Lexical.direct_titled` is kept there under the section's ``id`` (for
    :func:`chance_hits`; not part of the answer). With ``swaps``, the section's learnt reordering and
    captured candidates (:class:`Swap`) are kept there under its ``id`` (:func:`swapped`)."""
    as_of = args["as_of"] if args["time_scope"] == "as_of" else None
    base: dict[str, Any] = {"retrieval_mode": "keyword", "time_scope": args["time_scope"], "as_of": as_of,
                            "query_plan": {"terms": plan.terms, "article_key": plan.article_key, "anchor": plan.anchor,
                                           "work_resolution_status": plan.status,
                                           "work_mentions": [m.to_dict(index.catalogue, index.publisher.value)
                                                             for m in plan.mentions],
                                           "work_constraints": [f"{index.publisher.value}:{index.catalogue.slug_of[w]}"
                                                                for w in plan.constraints]}}
    provisional = is_provisional(index, as_of)
    if args["retrieval_mode"] == "hybrid":
        # the lane is optional, attached by the composition root (serve.core.lanes)
        refused = lanes.refusal(ctx.search_lane, index)
        if refused is not None:
            return answer(ctx, index, Outcome.RETRIEVAL_MODE_UNAVAILABLE, {
                "requested_retrieval_mode": "hybrid", "retrieval_unavailable_reason": refused[0],
                "retrieval_unavailable_details": list(refused[1]), "hits": []}, provisional=provisional)
    if plan.name_not_held is not None:
        return answer(ctx, index, Outcome.EMPTY, {**base, "hits": [], "query_expansions": [], "query_relaxed": None,
                                                  "relaxation_withheld": plan.name_not_held}, provisional=provisional)
    if suppressed or (plan.explicit_works and not plan.constraints):
        note = ("the query names a work held by another publisher" if suppressed
                else "none of the requested works is held by this publisher")
        return answer(ctx, index, Outcome.EMPTY, {**base, "hits": [], "query_expansions": [], "query_relaxed": None,
                                                  "relaxation_withheld": None, "note": note}, provisional=provisional)
    grain = args.get("result_grain") or "works"
    auto = args.get("relax", "auto") == "auto"
    # as known on a day after which something was recorded: more candidates, filtered below (ADR 0013)
    then = index_at(index, args["known_on"]) if args.get("known_on") is not None else None
    wide = then is not None and then.differs
    options = LaneOptions(50 if wide else args["limit"], fuzzy=args["fuzzy"] == "auto", stem=stem, relax=relaxed,
                          per_work_limit=50 if wide else args.get("per_work_limit"), language=args["language"],
                          grain=grain,
                          partial=auto, status_prior=as_of is None, relax_words=auto, legal_terms=legal_terms,
                          empty_titled=last)
    with index.session(ctx.deadline_seconds) as conn:
        allowed = _allowed_works(conn, index, args)
        filters = Filters(tuple(plan.constraints), args["language"], args["document_type"], as_of, allowed)
        found = lexical_lanes(conn, plan, filters, options, known, index, {} if wide else memo)
        if gates is not None:
            gates |= found.gates
        if plan.translations:
            mark_translated(found.hits)
        if then is not None and wide:  # only hits on states, languages and texts held then
            found.hits = known_hits(then, found.hits, args["limit"], args.get("per_work_limit") or 3)
        shaped = shape_hits(conn, index, found.hits, found.words, later,
                            None if memo is None else memo.setdefault(WORKS_READ, {}))
        swap = None
        if swaps is not None and found.candidates and not wide and args["retrieval_mode"] == "keyword":
            swap = Swap(None, capture_rows(index, found.candidates) if reorder.CAPTURE.get() is not None else None,
                        head_vector(found))
            if found.reordered is not None:
                rows_of = {id(h): r for h, r in zip(found.hits, shaped, strict=True)}
                extra = [h for h in found.reordered if id(h) not in rows_of]
                if extra:
                    rows_of.update(zip(map(id, extra), shape_hits(
                        conn, index, extra, found.words, later,
                        None if memo is None else memo.setdefault(WORKS_READ, {})), strict=True))
                swap = swap._replace(rows=[rows_of[id(h)] for h in found.reordered])
    base["result_grain"] = grain
    base["title_coverage"] = found.title_coverage
    base["top_title_match"] = found.top_title_match
    if plan.intent:
        base["query_plan"]["role_intent"] = plan.intent
    if plan.translations:  # an EN/DE question on French-only text: which French terms it was searched with
        base["query_plan"]["translations"] = plan.translations
    cap = None if plan.constraints and grain == "provisions" else args.get("per_work_limit")
    payload = {**base, "query_expansions": found.expansions, "query_relaxed": found.relaxed,
               "relaxation_withheld": found.relaxation_withheld, "hits": shaped,
               "row_set": {"returned": len(shaped), "limit": args["limit"],
                           "truncated": len(shaped) >= args["limit"] or found.held_back > 0,
                           "per_work_limit": cap, "held_back_by_per_work_limit": found.held_back}}
    section = answer(ctx, index, Outcome.SUCCEEDED if shaped else Outcome.EMPTY, payload, provisional=provisional)
    if titled is not None:
        titled[id(section)] = found.direct_titled
    if swaps is not None and swap is not None:
        swaps[id(section)] = swap
    return section


class Swap(NamedTuple):
    """A section's learnt reordering (``rows``: its first ``limit`` works' shaped rows in the learnt
    order; ``None``: the hand-set order stands) and, for a harvesting caller, its candidates
    (:func:`capture_rows`)."""

    rows: list[dict[str, Any]] | None
    captured: list[dict[str, Any]] | None
    #: The vector of the section's first work as answered (reordered or not), for :func:`learnt_order`.
    head: tuple[float, ...] | None = None


def head_vector(found: Lexical) -> tuple[float, ...] | None:
    """The vector (:attr:`Lexical.candidates`) of the first work a section answers, reordered or not."""
    answered = found.reordered or found.hits
    return next((v for h, v in found.candidates if h is answered[0]), None) if answered else None


def learnt_order(sections: list[Answer], swaps: Mapping[int, Swap]) -> list[Answer]:
    """``sections`` with the two that answer swapped when the learnt order of sections says so
    (:func:`serve.core.reorder.swap_sections`, rank44): only when reordering is on, the weights have an
    order model, and exactly two sections answer, each a question the reordering may touch (its
    candidates worked out). Called once routing and the hand-set order of sections are decided."""
    weights = reorder.default_weights()
    if not reorder.REORDER or weights.order is None:
        return sections
    live = [i for i, s in enumerate(sections) if s.get("hits")]
    if len(live) != 2:
        return sections
    heads = []
    for i in live:
        swap = swaps.get(id(sections[i]))
        if swap is None or swap.head is None:
            return sections
        heads.append(reorder.Head(swap.head, len(sections[i]["hits"]), str(sections[i].get("publisher"))))
    if not reorder.swap_sections(weights, heads[0], heads[1]):
        return sections
    out = list(sections)
    out[live[0]], out[live[1]] = sections[live[1]], sections[live[0]]
    return out


#: Whether the learnt order of sections keeps first the publisher the question names (:func:`kept_asked_first`;
#: pub52, ADR 0180).
ASKED_KEPT_FIRST = True


def asked_publisher(eu_form: bool, own_law: bool) -> str | None:
    """The publisher :func:`order_sections` puts first whatever its evidence: EUR-Lex for a question asking for a
    directive (``eu_form``, :func:`asks_eu_form`), else Legilux for one asking for Luxembourg's own law or naming
    Luxembourg (``own_law``: :func:`serve.core.ranking.asks_own_law`, :func:`asks_of_country`); ``None`` when the
    question names neither. Pure."""
    return "eu-eurlex" if eu_form else "lu-legilux" if own_law else None


def first_publisher(sections: Sequence[Answer]) -> str | None:
    """The publisher of the first section with hits, ``None`` when no section has any. Pure."""
    return next((str(s.get("publisher")) for s in sections if s.get("hits")), None)


def kept_asked_first(before: list[Answer], after: list[Answer], asked: str | None) -> list[Answer]:
    """``after`` (the sections as the learnt order of sections left them, :func:`learnt_order`), unless it takes the
    lead from the publisher the question names (``asked``, :func:`asked_publisher`) that ``before`` (the hand-set
    order, :func:`order_sections`) gave it: then ``before``. The learnt order weighs the two first works' vectors, which
    know nothing of a question saying "in Luxembourg" or asking for a directive; the hand-set order reads those words
    first ("enforcement in Luxembourg of fines imposed in another EU member state", "public procurement rules and
    tender procedures for contracting authorities in Luxembourg": the learnt order put the EU directives back before
    the Luxembourg laws). Pure."""
    if ASKED_KEPT_FIRST and asked is not None and first_publisher(before) == asked and first_publisher(after) != asked:
        return before
    return after


def capture_rows(index: MountedIndex, candidates: Sequence[tuple[Hit, tuple[float, ...]]]) -> list[dict[str, Any]]:
    """What a harvesting caller (:data:`serve.core.reorder.CAPTURE`) records of each candidate: the
    fields the benchmark scores a hit by, and its vector."""
    return [{"work": f"{index.publisher.value}:{index.catalogue.slug_of[h.row['work_rowid']]}",
             "version_key": h.row.get("version_key"), "valid_from": h.row.get("valid_from"),
             "end_exclusive": h.row.get("end_exclusive"), "anchor": h.row.get("anchor"), "vector": list(v)}
            for h, v in candidates]


def swapped(sections: Sequence[Answer], swaps: Mapping[int, Swap]) -> bool:
    """Each section that still has hits (not routed out) and has a learnt reordering (``swaps``,
    :func:`search_section`) given its reordered rows, ranks renumbered (in place); whether any was.
    Called once routing and the order of sections are decided on the hand-set order, so that the
    reordering changes nothing but the order of works inside a section."""
    changed = False
    for section in sections:
        swap = swaps.get(id(section))
        hits = section.get("hits")
        if swap is None or swap.rows is None or not hits or len(swap.rows) != len(hits):
            continue
        section["hits"] = [{**row, "rank": rank} for rank, row in enumerate(swap.rows, 1)]
        changed = True
    return changed


def known_hits(then: IndexAt, hits: Sequence[Hit], limit: int, per_work: int) -> list[Hit]:
    """The hits held on ``then.known_on`` (``known_on``): per work, the first held one leads and
    carries the next held ones (``per_work`` in all), at most ``limit`` rows."""
    out: list[Hit] = []
    rows: dict[Any, int] = {}
    for hit in hits:
        held = [h for h in (hit, *hit.nested) if then.held_row(h.row)]
        work = hit.row.get("work_rowid")
        if held and rows.get(work, 0) < per_work:
            rows[work] = rows.get(work, 0) + 1
            held[0].nested = held[1:per_work]
            out.append(held[0])
    return out[:limit]


def _allowed_works(conn: sqlite3.Connection, index: MountedIndex, args: dict[str, Any]) -> frozenset[int] | None:
    """The works the ``hierarchy`` and ``domain`` filters allow (``None``: no such filter)."""
    allowed: set[int] | None = None
    if args.get("hierarchy"):
        allowed = ranking.hierarchy_works(ranking.profiles(conn, index), str(args["hierarchy"]))
    if args.get("domain"):
        found = ranking.domain_works(conn, str(args["domain"]))
        allowed = found if allowed is None else allowed & found
    return frozenset(allowed) if allowed is not None else None


def unheld_words(terms: Sequence[str], language: str | None, held_languages: Collection[str],
                 known: Collection[str]) -> frozenset[str]:
    """The words of a translated question (``terms``, asked in ``language``) that no mounted index
    holds in any form (``known``: :func:`_known_anywhere`) although a mounted index holds text in
    that language (``held_languages``): "bobsleigh", "Obamacare" asked in English of both indexes,
    EUR-Lex holding English text. Such a word is what the question is about, and the corpus does
    not hold it; it must not be dropped as a filler of the translated question. Only the words
    :func:`fuzzy_candidates` weighs are judged (the others are not looked up). Pure."""
    if language is None or language not in held_languages:
        return frozenset()
    return frozenset(t for t in fuzzy_candidates(terms) if t not in known and not relax.relaxable_term(t))


def mark_unheld_words(indexes: Sequence[MountedIndex], plans: Mapping[str, Plan], known: Collection[str]) -> None:
    """Set each translated plan's :attr:`~serve.core.searchplan.Plan.unheld_words`
    (:func:`unheld_words`) over the text languages of every mounted index searched."""
    held: set[str] = set()
    for index in indexes:
        held |= text_languages(index)
    for plan in plans.values():
        if plan.translations is not None:
            plan.unheld_words = unheld_words(plan.terms, plan.translations.get("language"), held, known)


def _known_anywhere(ctx: CallContext, plans: dict[str, Plan], language: str | None = None) -> set[str]:
    """Words held by any mounted index: a word one publisher knows is not a typo for another.

    Nor is a word an index holds only in another inflection (its Snowball forms,
    :func:`snowball_variants`, in ``language`` or EN/FR/DE): "elfes" is held as "elfe", so it is
    a word of the corpus, searched in its held forms, and never "corrected" to a different word
    ("elles", "elues") that would answer another question — unless it is long and a one-edit
    neighbour is held far more often than its held forms (:func:`inflected_typos`: "servises", held
    as "servis", is corrected to "services"; its held forms are still searched beside)."""
    words = sorted({t for p in plans.values() for t in fuzzy_candidates(p.terms)})
    known: set[str] = set()
    for index in ctx.ordered():
        if words:
            with index.session(ctx.deadline_seconds) as conn:
                known |= known_terms(conn, words)
    held = set(known)
    rest = [w for w in words if w not in known and analysis.expandable(w)]
    for index in ctx.ordered():
        if rest:
            with index.session(ctx.deadline_seconds) as conn:
                inflected = {w for w in rest if held_in_other_forms(conn, w, language)}
            known |= inflected
            rest = [w for w in rest if w not in inflected]
    return known - inflected_typos(ctx, [w for w in words if w in known and w not in held], language)


#: A word held only in another inflection may still be a typo (:func:`typo_over_inflection`) when
#: it has at least this many letters (a short word has many one-edit neighbours by chance) …
TYPO_INFLECTION_MIN_LETTERS = 7
#: … and a one-edit neighbour is held by this many times more provisions than its held forms.
TYPO_INFLECTION_RATIO = 20


def typo_over_inflection(term: str, forms_docs: int, neighbour_docs: int) -> bool:
    """Whether ``term``, held only in other inflections by ``forms_docs`` provisions, is rather a
    typo for a one-edit neighbour held by ``neighbour_docs``: "servises" (Snowball stem "servis",
    held as "servis" by 91 provisions) for "services" (21,075), "luxembourgoise" (held as
    "luxembourgois" once) for "luxembourgeoise" (2,440). A word of :data:`TYPO_INFLECTION_MIN_LETTERS`
    letters or more whose neighbour is :data:`TYPO_INFLECTION_RATIO` times more frequent. Pure."""
    return len(term) >= TYPO_INFLECTION_MIN_LETTERS and neighbour_docs >= TYPO_INFLECTION_RATIO * max(forms_docs, 1)


def inflection_and_neighbour_docs(conn: sqlite3.Connection, term: str, language: str | None) -> tuple[int, int]:
    """How many provisions hold ``term``'s most frequent held inflection (:func:`analysis.word_forms`),
    and its most frequent one-edit neighbour that is not such an inflection (:func:`typo_distance`)."""
    try:
        forms = analysis.word_forms(conn, term, language)
    except sqlite3.OperationalError:  # an index built before term_stems
        return 0, 0
    held = max((int(r[0]) for f in forms for r in conn.execute("SELECT docs FROM vocabulary WHERE term = ?", (f,))),
               default=0)
    docs = {str(t): int(d) for t, d in conn.execute(
        "SELECT term, docs FROM vocabulary WHERE term >= ? AND term < ? AND length(term) BETWEEN ? AND ?",
        (term[0], chr(ord(term[0]) + 1), len(term) - 1, len(term) + 1))}
    letters = set(term)
    near = [d for t, d in docs.items() if t not in forms and t != term and len(letters.symmetric_difference(t)) <= 2
            and typo_distance(term, t, 1) is not None]
    return held, max(near, default=0)


def inflected_typos(ctx: CallContext, words: Sequence[str], language: str | None) -> set[str]:
    """The ``words`` (held by no index, only in other inflections) that are rather typos
    (:func:`typo_over_inflection`), their counts summed over the mounted indexes: the fuzzy lane
    corrects them (lurank13's "typos that are another word's inflection", issue #15)."""
    long = [w for w in words if len(w) >= TYPO_INFLECTION_MIN_LETTERS]
    if not long:
        return set()
    totals = dict.fromkeys(long, (0, 0))
    for index in ctx.ordered():
        with index.session(ctx.deadline_seconds) as conn:
            for w in long:
                forms, near = inflection_and_neighbour_docs(conn, w, language)
                totals[w] = (totals[w][0] + forms, totals[w][1] + near)
    return {w for w, (forms, near) in totals.items() if typo_over_inflection(w, forms, near)}


def typo_words(ctx: CallContext, words: Sequence[str], language: str | None = None) -> set[str]:
    """The ``words`` no index holds as such that are typos for a far more frequent neighbour
    (:func:`inflected_typos`): "loi sur les servises postaux" is not a name no held act bears, but
    a misspelt one (:func:`named_act` leaves it to the fuzzy lane)."""
    rest = [w for w in dict.fromkeys(words) if len(w) >= TYPO_INFLECTION_MIN_LETTERS and w.isalpha()]
    for index in ctx.ordered():
        if rest:
            with index.session(ctx.deadline_seconds) as conn:
                held = known_terms(conn, rest)
            rest = [w for w in rest if w not in held]
    return inflected_typos(ctx, rest, language)


def held_in_other_forms(conn: sqlite3.Connection, term: str, language: str | None) -> bool:
    """Whether the index holds another inflection of ``term`` (its Snowball forms)."""
    try:
        return bool(analysis.word_forms(conn, term, language))
    except sqlite3.OperationalError:  # an index built before term_stems
        return False


def _relax_translated(sections: list[Answer], indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                      relaxed: Callable[[MountedIndex], Answer]) -> list[Answer]:
    """The sections, a section searched through the cross-language lexicon that found nothing
    searched again with stems and relaxation on its own (``relaxed``): another publisher's hits in
    the question's own words ("co-ownership of apartment buildings": EU provisions in English) say
    nothing about how many of the French words one provision holds, so they must not keep the
    translated section from relaxing them (its hits stay weaker evidence, ``translated``)."""
    out = list(sections)
    for k, index in enumerate(indexes):
        if plans[index.publisher.value].translations and not out[k].get("hits"):
            out[k] = relaxed(index)
    return out


def chance_hits(section: Answer, titled: float | None) -> bool:
    """Whether a section's provisions holding every word hold them by chance: fewer than
    :data:`FUZZY_MIN_EXACT_HITS` of them (:func:`_strict_hits`), all on works whose names hold none
    of the question's subject words (``titled``: the section's :attr:`Lexical.direct_titled`, 0).
    "le vendeur doit-il réparer ou remplacer un produit défectueux": one EU delegated regulation's
    provision holds the six French words; the consumer code that answers is named by none of them
    either, but it is not a provision that happened to hold them all (issue #15, class "empty").
    Such hits keep no other section from being relaxed on its own (:func:`_relax_beside_untitled`). Pure."""
    return titled == 0.0 and 0 < _strict_hits([section]) < FUZZY_MIN_EXACT_HITS


def _relax_beside_untitled(sections: list[Answer], indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                           relaxed: Callable[[MountedIndex], Answer],
                           chance: Callable[[Answer], bool] = lambda section: False) -> list[Answer]:
    """The sections, those that found nothing searched again with stems and relaxation on their
    own (``relaxed``) when every section with hits holds the words only in works that no name of
    holds any of them (``title_coverage`` 0) or holds its direct hits by ``chance``
    (:func:`chance_hits`): such hits are long provisions holding every word by
    chance, and must not keep another publisher from relaxing the question (issue #15; routing then
    weighs the sections by their titles, :func:`titled_over`). Only a question that has a weaker
    form (:func:`relaxable_terms`) is searched again."""
    answered = [s for s in sections if s.get("hits")]
    if not answered or any(s.get("title_coverage") != 0.0 and not chance(s) for s in answered):
        return sections
    again = [k for k, (section, index) in enumerate(zip(sections, indexes, strict=True))
             if not section.get("hits") and not section.get("routed")
             and relaxable_terms(plans[index.publisher.value].terms)]
    if not again:
        return sections
    return [relaxed(index) if k in again else section for k, (section, index) in enumerate(zip(sections, indexes,
                                                                                                  strict=True))]


#: The question's rarest words weighed by :func:`words_apart`.
APART_WORDS = 2


def rarest_words(indexes_vocab: Sequence[Mapping[str, int]], words: Sequence[str]) -> list[str] | None:
    """The :data:`APART_WORDS` words of ``words`` fewest provisions hold over all indexes (their
    ``vocabulary`` counts, one mapping per index), or ``None`` when one of them is held by no
    provision of any index (a word held nowhere is a typo or a word of another language, weighed
    elsewhere: :func:`relaxation_withheld`, fuzzy, the lexicon) or there are fewer words. Pure."""
    docs = {w: sum(v.get(w, 0) for v in indexes_vocab) for w in dict.fromkeys(words)}
    if len(docs) < APART_WORDS or any(n == 0 for n in docs.values()):
        return None
    return sorted(docs, key=lambda w: (docs[w], w))[:APART_WORDS]


#: Whether :func:`words_apart` weighs only an answer holding a provision (:func:`provision_hits`): its test
#: is that the provisions hold the question's rare words by chance; an answer of works found by their names
#: or EuroVoc labels alone holds no provision to judge and is left to the later stages (issue #15, neg46).
WORDS_APART_TEXT_ONLY = True


def provision_hits(section: Answer) -> bool:
    """Whether some hit of ``section`` is a provision (it has an anchor), not a work row found by its names,
    its EuroVoc labels or its act terms. Pure."""
    return any(h.get("anchor") is not None for h in section.get("hits") or ())


def _apart_candidates(plans: Mapping[str, Plan]) -> list[str] | None:
    """The words :func:`words_apart` weighs: the content words (not stop or frame words, not an act
    form, not a number, :data:`VOCABULARY_MIN_LETTERS` letters or more) of a question that names
    no act, cites nothing and was not translated; ``None`` for any other question."""
    if any(p.mentions or p.constraints or p.anchor or p.article_key or p.act_number or p.boost or p.translations
           or p.name_not_held for p in plans.values()):
        return None
    terms = next(iter(plans.values())).terms if plans else []
    return [t for t in terms if not relax.relaxable_term(t) and ranking.says_subject(t) and not t.isdigit()
            and len(t) >= VOCABULARY_MIN_LETTERS]


def words_near(conn: sqlite3.Connection, words: Sequence[str]) -> bool:
    """Whether a provision of this index holds ``words`` (each as itself or a light-stem form)
    within :data:`SUBJECT_NEAR` words of each other, or a work's name holds one of them."""
    tokens = [_fts_word(w) for w in words]
    near = f"text : NEAR({' '.join(tokens)}, {SUBJECT_NEAR})"
    named = "{titles short_titles aliases} : (" + " OR ".join(tokens) + ")"
    return conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1", (near,)).fetchone() \
        is not None or conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1", (named,)).fetchone() \
        is not None


def hits_titled(ctx: CallContext, indexes: Sequence[MountedIndex], sections: Sequence[Answer],
                words: Sequence[str]) -> bool:
    """Whether a name (title, short title, alias) of a work some section answers with holds one of the
    question's subject ``words`` (each as itself or a light-stem form). A section's ``title_coverage``
    also counts the act form the question names its act by (« loi … » in every law's title): such a
    title is no work titled by the question (issue #15, neg35). One FTS lookup per index answering."""
    tokens = " OR ".join(_fts_word(w) for w in words)
    for index in indexes:
        prefix = index.publisher.value + ":"
        rowids = sorted({r for s in sections for h in s.get("hits") or []
                         if str(h.get("work", "")).startswith(prefix)
                         and (r := index.catalogue.rowid_of.get(str(h["work"])[len(prefix):])) is not None})
        if not rowids:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            if conn.execute(f"SELECT 1 FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({','.join('?' * len(rowids))}) "
                            "LIMIT 1", ["{titles short_titles aliases} : (" + tokens + ")", *rowids]).fetchone():
                return True
    return False


#: Whether :func:`words_apart` leaves an answer alone when a work it answers with is an act whose reviewed terms
#: firmly say the question (:func:`answered_termed`; issue #15, zh49).
WORDS_APART_TERMED = True


def answered_termed(ctx: CallContext, indexes: Sequence[MountedIndex], sections: Sequence[Answer],
                    plans: Mapping[str, Plan]) -> bool:
    """Whether a work some section answers with is one of the acts its index's act terms firmly say the question of
    (:func:`termed_works` over the section's plan's words): its reviewed subject words name the question as a title
    holding them would (:func:`hits_titled`), so the rare words it holds apart are no chance (« dans quel délai
    l'acheteur d'un bovin abattu doit-il payer l'éleveur ? » — « éleveur » and « abattu » pages apart in the
    règlement whose terms say the two together). One read of the act terms per index answering."""
    if not WORDS_APART_TERMED:
        return False
    for index in indexes:
        plan = plans.get(index.publisher.value)
        prefix = index.publisher.value + ":"
        rowids = {r for s in sections for h in s.get("hits") or [] if str(h.get("work", "")).startswith(prefix)
                  and (r := index.catalogue.rowid_of.get(str(h["work"])[len(prefix):])) is not None}
        if plan is None or not rowids:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            if rowids & set(termed_works(conn, index, plan.terms)):
                return True
    return False


def words_apart(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                sections: Sequence[Answer]) -> bool:
    """Whether a question's distinctive words no held text supports: every hit of the answer is on a
    work no name of which holds a query word (``title_coverage`` 0 in every section with hits, or no
    name holding a subject word, :func:`hits_titled`: an act form's word is in every law's title), and
    the question's two rarest content words (:func:`rarest_words`) are near each other in no
    provision of any index and in no work's name (:func:`words_near`). The hits are then provisions
    holding the words by chance, far apart in a long text ("la gestation pour autrui est-elle
    autorisée": a salary law's article holding "gestation" and "autrui" pages apart), not an answer:
    every plan is marked (``relaxation_withheld: {"reason": "words_apart", "words"}``, answered
    with no hits; issue #15). A question naming or citing an act, translated, or with a work titled
    by its words is never weighed; nor one whose rare words are unknown (typos, other languages)."""
    answered = [s for s in sections if s.get("hits")]
    if not answered or (WORDS_APART_TEXT_ONLY and not any(provision_hits(s) for s in answered)):
        return False
    words = _apart_candidates(plans)
    if not words:
        return False
    if any(s.get("title_coverage") != 0.0 for s in answered) and hits_titled(ctx, indexes, answered, words):
        return False
    vocab: list[dict[str, int]] = []
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            vocab.append({str(t): int(n) for t, n in conn.execute(
                f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", words)})
    rarest = rarest_words(vocab, words)
    if rarest is None:
        return False
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            if words_near(conn, rarest):
                return False
    if code_parts_titled(ctx, indexes, answered, words):
        return False
    if answered_termed(ctx, indexes, answered, plans):
        return False
    for plan in plans.values():
        plan.name_not_held = {"reason": "words_apart", "words": rarest}
    return True


def held_anywhere(conn: sqlite3.Connection, word: str) -> bool:
    """Whether a provision, a work's name or a EuroVoc label of this index holds ``word`` (or a
    light-stem form: :func:`_fts_word`)."""
    token = _fts_word(word)
    return conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1", (token,)).fetchone() \
        is not None or conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                                    ("{titles short_titles aliases metadata} : " + token,)).fetchone() is not None


def held_outside_annexes(conn: sqlite3.Connection, word: str) -> bool:
    """Whether a provision of this index that is not an annex (``lexical_states.type``), a work's name or a
    EuroVoc label holds ``word`` (or a light-stem form: :func:`_fts_word`): :func:`held_anywhere` less the
    annexes' lists (operators, places, products), where a word stands by chance."""
    token = _fts_word(word)
    return conn.execute("SELECT 1 FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
                        "WHERE provision_fts MATCH ? AND s.type != 'annex' LIMIT 1", (token,)).fetchone() \
        is not None or conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                                    ("{titles short_titles aliases metadata} : " + token,)).fetchone() is not None


#: Whether :func:`absent_subject` takes a word made of a repeating prefix and a word some index holds for a word of the
#: corpus (:func:`held_unprefixed`; issue #15, zh51).
UNPREFIXED = True
#: The prefixes of repetition French and English put before a noun or verb as they are written, without a hyphen
#: (« recoordination », « réexamen », "reorganisation"), normalised.
REPEAT_PREFIXES = ("re",)
#: The fewest letters of the word left once the prefix is cut (a shorter rest is another word's beginning: « rester »).
UNPREFIXED_MIN = 7


def unprefixed(word: str) -> str | None:
    """``word`` without a prefix of :data:`REPEAT_PREFIXES` when what is left has :data:`UNPREFIXED_MIN` letters or more
    (« recoordination » → ``coordination``); ``None`` otherwise. Pure."""
    for prefix in REPEAT_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= UNPREFIXED_MIN:
            return word[len(prefix):]
    return None


def held_unprefixed(conn: sqlite3.Connection, word: str) -> bool:
    """Whether ``word`` is a prefixed form of a word this index holds (:func:`unprefixed`, :func:`held_anywhere`): "1988
    *recoordination* of the civil service pensions law" asks for the coordinated text of a held law, not for a subject
    the corpus has nothing on. False with :data:`UNPREFIXED` off."""
    rest = unprefixed(word) if UNPREFIXED else None
    return rest is not None and held_anywhere(conn, rest)


def absent_subject(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                   sections: Sequence[Answer], known: Callable[[], Collection[str]]) -> bool:
    """Whether the question's subject word is held by no mounted index and every section answers
    weakly (:mod:`serve.core.ops.absent_subject`, ADR 0132): then every plan is marked
    (``relaxation_withheld: {"reason": "subject_not_held", "words"}``, answered with no hits). The
    words weighed are :func:`~serve.core.ops.absent_subject.candidates` not expanded by any section: those not in
    ``known`` (:func:`_known_anywhere`, read only then) absent when no index holds them (:func:`held_anywhere`);
    with :data:`~serve.core.ops.absent_subject.ANNEX_WORDS_ABSENT`, those in ``known`` absent when some index's
    annexes hold them and no index holds them elsewhere (:func:`held_outside_annexes`; a word known only in
    another inflection stays held). Each is looked up in every index (two to four FTS lookups per index at
    most), only when the answer is weak; the words held nowhere, or else the words only annexes hold, must be
    :data:`~serve.core.ops.absent_subject.MIN_SHARE` of the question's words."""
    if not absent.ABSENT_SUBJECT or not absent.fires(sections):
        return False
    held_languages: set[str] = set()
    for index in indexes:
        held_languages |= text_languages(index)
    expanded = absent.expanded_words(sections) if absent.EXEMPT_EXPANDED else set()
    words = [w for w in absent.candidates(plans.values(), held_languages) if w not in expanded]
    listed: list[str] = []  # known words, weighed by their provisions outside the annexes
    if words:
        held = known()
        listed = [w for w in words if w in held] if absent.ANNEX_WORDS_ABSENT else []
        words = [w for w in words if w not in held]
    annexed: set[str] = set()  # of the listed words, those an annex holds (not only another inflection)
    for index in indexes:
        if not words and not listed:
            return False
        with index.session(ctx.deadline_seconds) as conn:
            words = [w for w in words if not held_anywhere(conn, w) and not held_unprefixed(conn, w)]
            listed = [w for w in listed if not held_outside_annexes(conn, w)]
            annexed.update(w for w in listed if w not in annexed and held_anywhere(conn, w))
    asked = absent.question_words(plans.values())
    if not absent.enough(words, asked):
        # the words only annexes hold are weighed on their own, never added to the words held nowhere: a
        # question with one of each is one whose subject the others say ("contract clause *saying* the seller
        # is never liable for *anything*")
        words = [w for w in absent.candidates(plans.values(), held_languages) if w in listed and w in annexed]
        if not absent.enough(words, asked):
            return False
    for plan in plans.values():
        plan.name_not_held = absent.reason(words)
    return True


#: Whether :func:`absent_words_termed` withdraws an absent subject some act's reviewed terms say (issue #15, zh49).
ABSENT_TERMED = True


def termed_words(matches: Sequence[actterms.Match[Any]], words: Sequence[str], asked: Sequence[str]) -> bool:
    """Whether one of the act terms' ``matches`` for the question's ``asked`` words is firm evidence
    (:func:`serve.core.actterms.firm`) and covers every one of ``words`` (:func:`serve.core.actterms.covers_words`).
    Pure."""
    return bool(words) and any(actterms.firm(m, asked) and actterms.covers_words(m, words) for m in matches)


def absent_words_termed(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], query: str) -> bool:
    """Withdraw (in place) the ``subject_not_held`` mark :func:`absent_subject` set on the plans when an act's reviewed
    terms say the words it found held by no text (:func:`termed_words` over :func:`act_term_matches`): the acts say
    « loup », the terms of the act on damage by protected wildlife say "wolf" too; a word the terms of an act say is a
    subject the corpus holds, in other words. A question whose plans name an act (:func:`act_term_plan`) keeps the
    mark. Whether the mark was withdrawn."""
    marked = [p.name_not_held for p in plans.values()]
    if not ABSENT_TERMED or not marked or any(m is None or m.get("reason") != "subject_not_held" for m in marked):
        return False
    for plan in plans.values():
        plan.name_not_held = None
    asked = actterms.question_words(query)
    words = [str(w) for w in (marked[0] or {}).get("words") or ()]
    if all(act_term_plan(p) for p in plans.values()) \
            and termed_words([m for _, _, m in act_term_matches(ctx, sections, plans, asked)], words, asked):
        return True
    for plan, mark in zip(plans.values(), marked, strict=True):
        plan.name_not_held = mark
    return False


def unheld_act_name(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                    sections: Sequence[Answer], raw: str, fuzzy: bool = False) -> bool:
    """Whether the question names, before its other words, an act no mounted index holds and the answer's works
    are not named by the name's rarest word (:mod:`serve.core.ops.unheld_name`, ADR 0158): then every plan is
    marked (``relaxation_withheld: {"reason": "name_not_held", …}``, answered with no hits). The name is the
    capitalised run ending in "Act" (:func:`serve.core.ops.unheld_name.embedded_name`) of a question of no
    other act-name shape (:func:`~serve.core.searchplan.act_name`) that names or cites nothing; it is held
    when a word of it is held by no index (a typo or an unknown word, weighed elsewhere), when a name of some
    work holds its words as a near-phrase (:func:`name_holders`) or the texts cite it as a phrase
    (:func:`phrase_is_frequent`), and with ``fuzzy`` when a word of it is a typo (:func:`typo_words`). The
    answer is kept when a name of a work it answers with holds the name's rarest own word
    (:func:`hits_titled` over :func:`serve.core.ops.unheld_name.rarest_word` of
    :func:`serve.core.ops.unheld_name.name_words`, or a term the search translated it as): "Whistleblower
    Protection Act reporting channels" is answered by the directive whose aliases say « whistleblower ». Reads
    the indexes only for a question of that shape."""
    if not unheld.UNHELD_ACT_NAME or not unheld.weighed(plans.values()):
        return False
    shape = unheld.embedded_name(raw)
    ans = unheld.answered(sections)
    if shape is None or not ans or act_name(raw) is not None:
        return False
    words = unheld.name_words(shape)
    if not words or (fuzzy and typo_words(ctx, shape.words)):
        return False
    known: set[str] = set()
    docs: Counter[str] = Counter()
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            known |= {w for w in shape.words if w not in known and word_held(conn, w)}
            if name_holders(conn, shape, 1) or phrase_is_frequent(conn, index, shape.phrase):
                return False
            docs.update(held_docs(conn, words))
    if unheld.RAREST_WORD:
        words = unheld.rarest_word(words, docs)
    if len(known) < len(set(shape.words)) \
            or hits_titled(ctx, indexes, ans, unheld.with_translations(words, plans.values())):
        return False
    for plan in plans.values():
        plan.name_not_held = unheld.reason(shape)
    return True


def part_holds(path: str, words: Sequence[str]) -> bool:
    """Whether the headings of a stored ``path`` (the headings above a provision, « TITRE IV. — Des
    sursis de paiement ») hold one of ``words``, each as itself or a light-stem form (as
    :func:`hits_titled` reads a work's names). Pure."""
    held = normalize(path).split()
    stems = [relax.light_stem(w) or w for w in words]
    return any(t == w or t.startswith(stem) for w, stem in zip(words, stems, strict=True) for t in held)


def code_parts_titled(ctx: CallContext, indexes: Sequence[MountedIndex], sections: Sequence[Answer],
                      words: Sequence[str]) -> bool:
    """Whether a hit of the answer is an article of a Legilux code (document type ``CODE``) under a part
    whose heading holds one of the question's subject ``words`` (:func:`part_holds`): the part names
    the article's subject as a title names an act's (:func:`with_code_parts`), so its words are not
    held by chance (:func:`words_apart`). One statement per such hit, read only when every other
    test found the words apart."""
    for index in indexes:
        prefix = index.publisher.value + ":"
        cited = [(str(h["lex_id"]), str(h["anchor"])) for s in sections for h in s.get("hits") or []
                 if str(h.get("work", "")).startswith(prefix) and h.get("document_type") == "CODE"
                 and h.get("anchor") and h.get("lex_id")]
        if not cited:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            for lex_id, anchor in dict.fromkeys(cited):
                for (path,) in conn.execute(
                        "SELECT h.path FROM versions v JOIN expressions e ON e.version_rowid = v.version_rowid "
                        "JOIN provision_rows r ON r.expression_rowid = e.expression_rowid AND r.anchor = ? "
                        "JOIN paths h ON h.path_rowid = r.path_rowid WHERE v.lex_id = ?", (anchor, lex_id)):
                    if path and part_holds(str(path), words):
                        return True
    return False


def relaxable_terms(terms: Sequence[str]) -> bool:
    """Whether the query words have a weaker form to search (:func:`derive.index.relax.relaxations`:
    stop words to drop beside content words, or three content words or more for the any-word quorum)."""
    return any(True for _ in relax.relaxations(terms, [[t] for t in terms]))


def _strict_hits(sections: Sequence[Answer]) -> int:
    """Hits of an answer that hold every query word: provisions (counting those the per-work
    limit held back) and works whose titles hold every word. A section searched through the
    cross-language lexicon has none: its words are not the question's own, so its hits never keep
    another publisher from relaxing the question's words."""
    def strict(hit: dict[str, Any]) -> bool:
        reasons = set(hit.get("match_reasons") or ())
        return (bool(hit.get("anchor")) and not reasons & {"partial_terms", "any_term", "translated"}) \
            or "title_words" in reasons

    return sum(sum(strict(hit) + sum(strict(p) for p in hit.get("provisions") or []) for hit in section.get("hits") or [])
               + int((section.get("row_set") or {}).get("held_back_by_per_work_limit") or 0) for section in sections
               if not (section.get("query_plan") or {}).get("translations"))


def _plan(ctx: CallContext, index: MountedIndex, parsed: Any, args: dict[str, Any]) -> Plan:
    """The query plan of one publisher, with the work profiles (recast preference) and the
    corpus-frequency test of names (:mod:`serve.core.searchplan`)."""
    with index.session(ctx.deadline_seconds) as conn:
        profiles = ranking.profiles(conn, index)

    def frequent(phrase: str) -> bool:
        with index.session(ctx.deadline_seconds) as conn:
            return phrase_is_frequent(conn, index, phrase)

    def enacted(works: Sequence[int]) -> list[int]:
        with index.session(ctx.deadline_seconds) as conn:
            return enacted_by(conn, works, args["as_of"])

    plan = build_plan(index, parsed, args["works"], profiles, frequent, language=args.get("language"),
                      enacted=enacted if args.get("as_of") else None)
    if index.publisher.value == "lu-legilux":  # "Luxembourg law on …": every Legilux act is
        plan.terms = ranking.without_own_country(plan.terms, plan.synonyms, plan.translations is not None,
                                                 lambda t: not relax.relaxable_term(t),
                                                 ranking.country_in_names(normalize(parsed.raw).split()))
    if args.get("role") and len(plan.constraints) == 1:
        plan.intent = str(args["role"])
    if not args["works"] and not plan.strong:
        with index.session(ctx.deadline_seconds) as conn:
            # an EU act number's year ("Verordnung (EU) 2022/868") is the number's, not a typed year
            typed = typed_references(conn, index, parsed.raw, plan.terms) \
                if not (plan.act_number and index.publisher.value == "eu-eurlex") else []
        typed += dated_references(index, parsed.raw)
        if typed:
            plan.mentions.extend(typed)
            plan.boost = sorted(set(plan.boost) | {w for m in typed for w in m.works})
    return plan


#: Luxembourg's citation of an act by form and date (``loi modifiée du 31 juillet 2006``,
#: ``règlement grand-ducal du 10 mai 1999``) → the slug prefix of the publisher's identifiers of that
#: form (``loi-2006-07-31-n2``, ``rgd-1999-05-10-n1``).
#: The plural (``lois du 7 août 2023``: the acts of that day) and the abbreviations practitioners
#: write (``RGD``, ``AGD``, dotted or not) name the same forms (issue #15).
DATED_FORMS = {"loi": "loi", "lois": "loi", "reglement grand ducal": "rgd", "reglements grand ducaux": "rgd",
               "rgd": "rgd", "r g d": "rgd", "arrete grand ducal": "agd", "arretes grand ducaux": "agd",
               "agd": "agd", "a g d": "agd", "reglement ministeriel": "rmin", "reglements ministeriels": "rmin",
               "arrete ministeriel": "amin", "arretes ministeriels": "amin",
               # the German citation (de36: « Großherzogliche Verordnung vom 9. Januar 2009 über die Jugend »
               # named no act; « règlement grand-ducal du 9 janvier 2009 » named it), with « ß » or « ss »
               **{f"{gross}{form}": slug for gross in ("groß", "gross") for form, slug in (
                   ("herzogliche verordnung", "rgd"), ("herzoglichen verordnung", "rgd"),
                   ("herzoglicher beschluss", "agd"), ("herzoglichen beschluss", "agd"),
                   ("herzoglichen beschlusses", "agd"))},
               "gesetz": "loi", "gesetzes": "loi", "gesetze": "loi",
               "ministerielle verordnung": "rmin", "ministeriellen verordnung": "rmin",
               "ministerieller beschluss": "amin", "ministeriellen beschluss": "amin",
               "ministeriellen beschlusses": "amin",
               # the English citation (en37: « law of 27 January 1972 laying down the rules for State employees »
               # named no act; « loi du 27 janvier 1972 » named it): the forms English translations of
               # Luxembourg law write, linked by « of » or « dated »
               "law": "loi", "laws": "loi", "act": "loi",
               **{f"grand ducal {form}": slug for form, slug in (
                   ("regulation", "rgd"), ("regulations", "rgd"), ("decree", "agd"), ("decrees", "agd"))},
               "ministerial regulation": "rmin", "ministerial regulations": "rmin",
               "ministerial decree": "amin", "ministerial decrees": "amin", "ministerial order": "amin"}
#: The French month names, the ones a typo is read against (:func:`month_number`).
_MONTHS = {m: i for i, m in enumerate(("janvier", "fevrier", "mars", "avril", "mai", "juin", "juillet", "aout",
                                       "septembre", "octobre", "novembre", "decembre"), start=1)}
#: The abbreviations of month names practitioners write (``juil.``, ``sept.``, ``déc.``).
_MONTH_ABBREVIATIONS = {"janv": 1, "fev": 2, "fevr": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11,
                        "dec": 12}
#: ``… du 31 juillet 2006`` or, in figures, ``… du 12/11/2004`` / ``12.11.2004`` (normalised to spaces);
#: a month word is checked by :func:`month_number` (abbreviations and one typo are read).
#: The German citation links its date with « vom » (« Gesetz vom 28. April 2015 »), the English one with
#: « of » or « dated » (« law of 27 January 1972 »), its day after the month too (« law of January 27, 1972 »).
_DATED = re.compile(r"\b(" + "|".join(sorted(DATED_FORMS, key=len, reverse=True))
                    + r")(?: modifi(?:e|ee|es|ees))? (?:du|vom|of|dated) (?:(\d{1,2}|1er)(?:st|nd|rd|th)? ([a-z]{3,10}|0?[1-9]|1[0-2])"
                    r"|([a-z]{3,9}) (\d{1,2})) ((?:1[89]|20)\d\d)\b")


def month_number(word: str) -> int | None:
    """The month a normalised word of a citation's date names: a French month name, its usual
    abbreviation, a number 1–12, or a name with one typo (``avirl``, ``septembe``, ``fevier``: one
    letter added, dropped, changed or two swapped; two for names of seven letters or more) when that
    fits exactly one month. ``None`` otherwise. Pure (issue #15: a typo in the month lost the act)."""
    if word.isdigit():
        number = int(word)
        return number if 1 <= number <= 12 else None
    if word in MONTH_NUMBERS:  # a French, English or German month name: « 9. Januar 2009 »
        return MONTH_NUMBERS[word]
    if word in _MONTH_ABBREVIATIONS:
        return _MONTH_ABBREVIATIONS[word]
    if len(word) < 4:
        return None
    near = {number for name, number in _MONTHS.items()
            if _edits(word, name) <= (2 if len(name) >= 7 and len(word) >= 6 else 1)}
    return near.pop() if len(near) == 1 else None


def _edits(a: str, b: str) -> int:
    """Optimal string alignment distance (insertions, deletions, substitutions, adjacent swaps)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, previous2[j - 2] + 1)
            current.append(cost)
        previous2, previous = previous, current
    return previous[-1]


def transposing_laws(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan], own_law: bool) -> None:
    """A question asking for Luxembourg's law or the act transposing a directive (``own_law``:
    :func:`serve.core.ranking.asks_own_law` of its words) that names a directive EUR-Lex resolves ("Luxembourg law
    transposing MiFID II", "loi transposant la directive 2014/65/UE") names the Legilux acts whose
    official title says they transpose it (:func:`serve.core.ranking.transposes`): soft mentions on
    the Legilux plan (reason ``transposing_law``; principal acts only, in force first, then newest),
    which rank first without restricting the answer and keep the Legilux section from being left out
    beside the strong EU name (plans, in place; issue #15: such a question was answered by EUR-Lex
    alone, the law the user asked for never listed)."""
    eu = next((i for i in indexes if i.publisher.value == "eu-eurlex"), None)
    lu = next((i for i in indexes if i.publisher.value == "lu-legilux"), None)
    if eu is None or lu is None or not own_law:
        return
    citations = [c for m in plans[eu.publisher.value].mentions if m.status == "resolved" and len(m.works) == 1
                 for c in [ranking.directive_citation(eu.catalogue.slug_of[m.works[0]])] if c]
    if not citations:
        return
    plan = plans[lu.publisher.value]
    with lu.session(ctx.deadline_seconds) as conn:
        profiles = ranking.profiles(conn, lu)
        for citation in dict.fromkeys(citations):
            rows = conn.execute("SELECT DISTINCT work_rowid, normalized FROM work_names WHERE kind = 'official_title' "
                                "AND ' ' || normalized || ' ' LIKE ?", (f"% {citation} %",)).fetchall()
            works = {int(w) for w, title in rows if ranking.transposes(str(title), citation)}
            works = {w for w in works if w in profiles and profiles[w].role == "principal"}
            if not works:
                continue
            slugs = lu.catalogue.slug_of
            chosen = sorted(works, key=lambda w: slugs.get(w, ""), reverse=True)  # by slug: newest first within a form
            chosen.sort(key=lambda w: profiles[w].status != "in_force")  # then in force first
            plan.mentions.append(Mention(f"transposing {citation}", "resolved", "transposing_law", chosen, soft=True))
            plan.boost = sorted(set(plan.boost) | set(chosen))


def dated_references(index: MountedIndex, query: str) -> list[Mention]:
    """Soft mentions of the acts a query cites by form and date, as Luxembourg cites its acts
    (``loi modifiée du 31 juillet 2006``): the publisher's acts of that form and day (several acts
    can share one), reason ``dated_reference``; they rank first without restricting the answer. The
    form and the date are the user's; an act of another form or day is never named."""
    out = []
    for text, prefix in dated_prefixes(query):
        works = _dated_works(index, prefix)
        if works:
            out.append(Mention(text, "resolved" if len(works) == 1 else "ambiguous", "dated_reference", works,
                               soft=True))
    return out


def dated_prefixes(query: str) -> list[tuple[str, str]]:
    """The acts a query cites by form and date, as (the citation as normalised, the slug prefix of
    the publisher's identifiers of that form and day: ``loi-2013-01-08-``). Pure."""
    out = []
    for m in _DATED.finditer(normalize(query)):
        if m.group(2) is None:  # « January 27 1972 »: an English month name only, never a number or typo
            day, month = int(m.group(5)), MONTH_NUMBERS.get(m.group(4))
        else:
            day, month = 1 if m.group(2) == "1er" else int(m.group(2)), month_number(m.group(3))
        if month is None or not _calendar_day(int(m.group(6)), month, day):
            continue  # « 30 February 2016 »: no act bears it (the impossible-citation guard answers)
        out.append((m.group(), f"{DATED_FORMS[m.group(1)]}-{m.group(6)}-{month:02d}-{day:02d}-"))
    return out


def _calendar_day(year: int, month: int, day: int) -> bool:
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    return True


def _dated_works(index: MountedIndex, prefix: str) -> list[int]:
    return sorted(rowid for slug, rowid in index.catalogue.rowid_of.items() if slug.startswith(prefix))


def dated_reference_not_held(indexes: Sequence[MountedIndex], plans: Mapping[str, Plan], query: str) -> None:
    """A question citing acts by form and date (``loi du 8 janvier 2013 sur le surendettement``)
    none of which any mounted index holds is about those acts, not about its other words: every
    section answers no hits with the typed reason ``dated_reference_not_held`` (plans, in place;
    issue #15). The acts citing such an act hold its date and subject words, so searching the words
    would answer with the citing acts as if they were the act asked for. A citation of a held act
    of another day or form is never this case; nor is a query that also names a work otherwise."""
    cited = dated_prefixes(query)
    if not cited or any(p.constraints or p.anchor or p.article_key or p.act_number for p in plans.values()):
        return
    if any(_dated_works(index, prefix) for index in indexes for _, prefix in cited):
        return
    for plan in plans.values():
        plan.name_not_held = {"reason": "dated_reference_not_held", "references": [text for text, _ in cited]}


#: Subject words a dated citation must say (beside its form and date) before the cited acts' silence
#: on all of them means the question is about another act (:func:`dated_subject_not_held`).
DATED_SUBJECT_MIN = 2
#: … each of at least this many letters ("mer" is one; the "r", "g" of "R.G.D." are none).
DATED_SUBJECT_MIN_LETTERS = 3


def dated_subject_not_held(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                           query: str) -> None:
    """A question (not a translated one) citing acts by form and date and naming their subject (``loi du 14 juillet 2023
    relative aux parcs éoliens en mer``), where every cited act the indexes hold is silent on that
    subject — none of at least :data:`DATED_SUBJECT_MIN` subject words (:func:`dated_subject_words`),
    in any light-stem form, is in their names or in their provisions' text (every one of them with its
    text held) — asks for an act of that
    day the corpus does not hold: every section answers no hits with the typed reason
    ``dated_subject_not_held`` (plans, in place; issue #15, lurank24). Answering with the held act of
    that day would name an act on another subject (a screening of foreign investments), and searching
    the subject words would answer with whatever provision holds them by chance. A citation whose
    acts hold one subject word (a misspelt or shortened title) is searched as before; so is a query
    that names a work otherwise or cites no held act (:func:`dated_reference_not_held`)."""
    cited = dated_prefixes(query)
    if not cited or any(p.constraints or p.anchor or p.article_key or p.act_number or p.name_not_held
                        for p in plans.values()):
        return
    if any((p.translations or {}).get("used") for p in plans.values()):
        return  # a translated question's words are not the French act's: never weighed (« Gesetz vom … », de36)
    said: list[str] = []
    for index in indexes:
        works = sorted({w for _, prefix in cited for w in _dated_works(index, prefix)})
        words = dated_subject_words(plans[index.publisher.value].terms) if works else []
        if len(words) < DATED_SUBJECT_MIN:
            if works:
                return
            continue
        with index.session(ctx.deadline_seconds) as conn:
            if works_hold_any(conn, works, words) and not rarest_unsaid(conn, works, words):
                return
        said = words
    if said:
        for plan in plans.values():
            plan.name_not_held = {"reason": "dated_subject_not_held", "references": [text for text, _ in cited],
                                  "words": said}


def dated_subject_words(terms: Sequence[str]) -> list[str]:
    """The words of a dated citation's plan that can say an act's subject: not an act form, title
    frame or relation word (:func:`serve.core.ranking.says_subject`), not a stop or question word, a
    number, a month (:func:`month_number`: a mistyped one, "juilet", stays a word of the plan), a
    phrase or a word of fewer than :data:`DATED_SUBJECT_MIN_LETTERS` letters (the letters of a dotted
    form, "R.G.D. du 10 mars 2014"). Pure."""
    return [t for t in terms if " " not in t and len(t) >= DATED_SUBJECT_MIN_LETTERS and not t.isdigit()
            and month_number(t) is None and ranking.says_subject(t) and not relax.relaxable_term(t)]


#: Whether :func:`dated_subject_not_held` also weighs the cited acts' silence on the question's rarest subject
#: word when their names hold none of its words (:func:`rarest_unsaid`; neg50, ADR 0171).
DATED_RAREST = True


def rarest_unsaid(conn: sqlite3.Connection, works: Sequence[int], words: Sequence[str]) -> bool:
    """Whether the cited ``works`` are silent on the subject a dated citation names, though their texts hold some of
    its words: no name of theirs holds one of ``words`` and no provision of theirs holds the rarest of them (fewest
    provisions of this index hold it, among the words some provision holds). « loi du 20 juillet 2017 sur
    l'exploration et l'utilisation des ressources de l'espace »: the held law of that day (an aid scheme) says
    « utilisation » and « espace », never « exploration » (the space-resources law of that day is not held). Every
    cited work's text is held (:func:`works_hold_any` answers first for the others)."""
    if not DATED_RAREST:
        return False
    tokens = " OR ".join(_fts_word(w) for w in words)
    marks = ",".join("?" * len(works))
    if conn.execute(f"SELECT 1 FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({marks}) LIMIT 1",
                    ["{titles short_titles aliases} : (" + tokens + ")", *works]).fetchone() is not None:
        return False
    docs = {str(t): int(n) for t, n in conn.execute(
        f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", list(words)) if n}
    if not docs:
        return False
    rarest = min(docs, key=lambda w: (docs[w], w))
    return not works_hold_any(conn, works, [rarest])


def works_hold_any(conn: sqlite3.Connection, works: Sequence[int], words: Sequence[str]) -> bool:
    """Whether the names or a provision of one of ``works`` hold one of ``words`` (each as its light
    stem's prefix, :func:`_fts_word`); a work whose text the index does not hold may hold them (its
    silence says nothing)."""
    tokens = " OR ".join(_fts_word(w) for w in words)
    marks = ",".join("?" * len(works))
    if texted_works(conn, works) != set(works):
        return True
    named = conn.execute(f"SELECT 1 FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({marks}) LIMIT 1",
                         ["{titles short_titles aliases} : (" + tokens + ")", *works]).fetchone()
    if named is not None:
        return True
    return conn.execute(
        f"SELECT 1 FROM lexical_states s WHERE s.work_rowid IN ({marks}) AND s.state_rowid IN "
        "(SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?) LIMIT 1",
        [*works, "text : (" + tokens + ")"]).fetchone() is not None


#: Act forms of a typed reference (``la loi de 1968 sur la nationalité``) → the slug prefix of the
#: publisher's identifiers of that form (``loi-1968-02-22-n1``).
TYPED_FORMS = {"loi": "loi", "lois": "loi"}
#: EUR-Lex act forms of a typed reference ("VAT Rates Directive 2022", « directive sur les taux de TVA
#: de 2022 », "Verordnung … 2013") → the CELEX type letter of that form (``32022L0542``: ``l``, year 2022).
EU_TYPED_FORMS = {"directive": "l", "directives": "l", "richtlinie": "l", "regulation": "r", "regulations": "r",
                  "reglement": "r", "reglements": "r", "verordnung": "r", "decision": "d", "beschluss": "d"}
#: Words that make a form word a Luxembourg form (« règlement grand-ducal de 2016 »): no EUR-Lex reference.
_LU_FORM_WORDS = frozenset({"grand", "ducal", "grandducal", "rgd", "loi", "lois", "arrete", "gesetz"})
_YEAR = re.compile(r"(?:1[89]|20)\d\d")
_CELEX_PRINCIPAL = re.compile(r"3((?:19|20)\d\d)([lrd])\d{4}")
_BY_YEAR: weakref.WeakKeyDictionary[MountedIndex, dict[str, list[int]]] = weakref.WeakKeyDictionary()


def _works_by_form_year(index: MountedIndex) -> dict[str, list[int]]:
    """The mounted catalogue's works by ``<form>-<year>``: a Legilux slug's form and year
    (``loi-1968``), a EUR-Lex principal act's CELEX type letter and year (``l-2022``; corrigenda
    left out); read once per mounted index."""
    by_year = _BY_YEAR.get(index)
    if by_year is None:
        by_year = {}
        eurlex = index.publisher.value == "eu-eurlex"
        for slug, rowid in index.catalogue.rowid_of.items():
            if eurlex:
                celex = _CELEX_PRINCIPAL.fullmatch(slug)
                if celex:
                    by_year.setdefault(f"{celex.group(2)}-{celex.group(1)}", []).append(rowid)
                continue
            form, _, rest = slug.partition("-")
            if rest[:4].isdigit():
                by_year.setdefault(f"{form}-{rest[:4]}", []).append(rowid)
        _BY_YEAR[index] = by_year
    return by_year


def typed_references(conn: sqlite3.Connection, index: MountedIndex, query: str, terms: Sequence[str]) -> list[Mention]:
    """Soft mentions of the acts a query refers to by form and year, ``la loi de 1968 sur la
    nationalité``: for each year the query names next to an act form, the one act of that form and
    year whose title subject holds most of the query's other words (some of them), when exactly one
    does (reason ``typed_reference``; it ranks first without restricting the answer). The year and
    the words are the user's; the act is the publisher's only one that fits both. On EUR-Lex the
    forms are a directive's, a regulation's and a decision's (:data:`EU_TYPED_FORMS`, "VAT Rates
    Directive 2022") and the years the question's search words hold (not its time: « as of 1 January
    2015 », « en 2015 »); a question naming a Luxembourg form (:data:`_LU_FORM_WORDS`) names none."""
    words = normalize(query).split()
    if index.publisher.value == "eu-eurlex":
        if _LU_FORM_WORDS & set(words):
            return []
        forms = sorted({EU_TYPED_FORMS[w] for w in words if w in EU_TYPED_FORMS})
        years = list(dict.fromkeys(t for t in terms if _YEAR.fullmatch(t)))
        subject = [[t] for t in terms if t not in EU_TYPED_FORMS and not t.isdigit()]
    else:
        forms = sorted({TYPED_FORMS[w] for w in words if w in TYPED_FORMS})
        years = list(dict.fromkeys(w for w in words if _YEAR.fullmatch(w)))
        subject = [[t] for t in terms if t not in TYPED_FORMS and not t.isdigit()]
    if not forms or not years or not subject:
        return []
    by_year = _works_by_form_year(index)
    out = []
    for year in years:
        candidates = sorted({w for form in forms for w in by_year.get(f"{form}-{year}", [])})
        if index.publisher.value == "eu-eurlex":
            precision = _eu_typed_fit(conn, candidates, [g[0] for g in subject], index)
        else:
            precision = {w: (p, 0.0) for w, p in works_subject_precision(conn, candidates, subject, index).items()}
        best = max(precision.values(), default=(0.0, 0.0))
        chosen = [w for w, value in precision.items() if value == best]
        if best[0] > 0 and len(chosen) == 1:
            out.append(Mention(f"{forms[0]} {year}", "resolved", "typed_reference", chosen, soft=True))
    return out


#: Subject words of a EUR-Lex typed reference looked up in the candidates' names (one statement each).
TYPED_WORDS_MAX = 6


def _titles_holding(conn: sqlite3.Connection, works: Sequence[int], words: Sequence[str]) -> dict[int, float]:
    """Per work of ``works``, the share of ``words`` (the first :data:`TYPED_WORDS_MAX`, each as its
    light stem's prefix, :func:`_fts_word`) that its names hold — its whole official titles in every
    language, short titles and aliases. A EUR-Lex act's shortest title ends after the acts it amends or
    supplements ("Commission Regulation (EU) No 1336/2013 … amending Directives 2004/17/EC, 2004/18/EC
    and 2009/81/EC"), so its title subject (:func:`works_subject_precision`) says nothing of what it is
    about; its whole titles do ("… in respect of the application thresholds …")."""
    words = list(dict.fromkeys(w for w in words if " " not in w))[:TYPED_WORDS_MAX]
    if not works or not words:
        return {}
    marks = ",".join("?" * len(works))
    held: dict[int, int] = dict.fromkeys(works, 0)
    for word in words:
        for (rowid,) in conn.execute(f"SELECT rowid FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({marks})",
                                     ["{titles short_titles aliases} : " + _fts_word(word), *works]):
            held[int(rowid)] += 1
    return {w: n / len(words) for w, n in held.items()}


def _eu_typed_fit(conn: sqlite3.Connection, works: Sequence[int], words: Sequence[str],
                  index: MountedIndex) -> dict[int, tuple[float, float]]:
    """How well each EUR-Lex act of a typed reference's form and year fits the question's subject
    words: the share of them its names hold (:func:`_titles_holding`), then — between acts whose names
    hold as many — the largest share of a title subject's words the question holds, over the subjects
    of its titles in each language and the shortest (:func:`works_title_subjects`, its subjects
    read once per mounted index): « taux de TVA » fits the directive « … en ce qui concerne les taux de
    taxe sur la valeur ajoutée » better than one that only names VAT fraud."""
    held = _titles_holding(conn, works, words)
    subjects = works_title_subjects(conn, works, index)
    asked = frozenset(words)
    fit = {}
    for w, share in held.items():
        known = subjects.get(w)
        titled = [known.shortest, *known.by_language.values()] if known is not None else []
        fit[w] = (share, max((ranking.title_precision(t, asked) for t in titled), default=0.0))
    return fit


#: Works a name-shaped query may name by a near-phrase of their names (more say nothing of one act).
NAME_HOLDERS_MAX = 3
#: Word distance within which a provision must hold a subject's words (:func:`subject_held`).
SUBJECT_NEAR = 8


def _fts_word(word: str) -> str:
    """A normalised word as an FTS5 token matching its inflections: its light stem as a prefix."""
    stem = relax.light_stem(word)
    return f"{stem}*" if stem else word


def word_held(conn: sqlite3.Connection, word: str) -> bool:
    """Whether a provision or a work name of this index holds ``word`` (or a light-stem form)."""
    token = _fts_word(word)
    return conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1", (token,)).fetchone() \
        is not None or conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                                    ("{titles short_titles aliases} : " + token,)).fetchone() is not None


def _name_word(word: str) -> str:
    """A popular name's word as an FTS5 token: the word or its plural ("charger" matches
    "chargers", not "charge"; "batteries" matches "battery" only through its own form): a name
    is the act's own word, not a word of its stem."""
    if word.isdigit():  # a number is itself ("Euro 7"), not a prefix of another ("715")
        return word
    return f"{word[:-1] if len(word) > 4 and word.endswith('s') else word}*"


def _inflections(word: str) -> str:
    """A popular name's word as an FTS5 expression of the word itself and its plural or singular
    forms (English and French: -s, -es, -y/-ies, -x): "ship" matches "ships", not "shipping" nor
    "shipment" — words derived from it, which a prefix (:func:`_name_word`) matches too. For the
    evidence that a name's rarest word names one act (:func:`popular_name_held`; nohit27,
    docs/adr/0066)."""
    if word.isdigit():
        return word
    forms = [word, f"{word}s", f"{word}es", f"{word}x"]
    if word.endswith("y"):
        forms.append(f"{word[:-1]}ies")
    if word.endswith("ies"):
        forms.append(f"{word[:-3]}y")
    if len(word) > 3 and word[-1] in "sx":
        forms.append(word[:-1])
    if word.endswith("es"):
        forms.append(word[:-2])
    return "(" + " OR ".join(f'"{f}"' for f in dict.fromkeys(forms)) + ")"


def _popular_tokens(words: Sequence[str]) -> list[str]:
    """A popular name's words as FTS5 tokens (:func:`_name_word`), a number joined to the word
    before it as a phrase ("Euro 7": ``"euro 7"``): alone, a number matches the day of any dated
    title ("of 7 March 2019")."""
    tokens: list[str] = []
    for k, word in enumerate(words):
        if is_name_number(word) and k > 0 and not is_name_number(words[k - 1]):
            tokens[-1] = f'"{words[k - 1]} {word}"'
        else:
            tokens.append(_name_word(word))
    return tokens


def name_holders(conn: sqlite3.Connection, shape: ActName, limit: int) -> list[int]:
    """The works (at most ``limit``) whose names (titles, short titles, aliases) hold an act-name
    query's words: for a ``name``, as a near-phrase (in order or not, within one word of each
    other); for a ``subject``, all of them anywhere in one name; for a ``popular`` name, the same
    with each word as itself or its plural (:func:`_name_word`)."""
    tokens = _popular_tokens(shape.words) if shape.kind == "popular" else [_fts_word(w) for w in shape.words]
    inner = f"NEAR({' '.join(tokens)}, {len(tokens) + 1})" if shape.kind == "name" else f"({' AND '.join(tokens)})"
    return [int(r[0]) for r in conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? LIMIT ?",
                                            ("{titles short_titles aliases} : " + inner, limit))]


def subject_held(conn: sqlite3.Connection, shape: ActName) -> bool:
    """Whether a provision holds a subject query's words within :data:`SUBJECT_NEAR` words of each
    other (a text on that subject, not words scattered over a long provision)."""
    match = f"text : NEAR({' '.join(_fts_word(w) for w in shape.words)}, {SUBJECT_NEAR})"
    return conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1", (match,)).fetchone() \
        is not None


#: Works whose names hold a popular name's words read to find one of the name's form.
POPULAR_HOLDERS_SAMPLE = 50
#: ``vocabulary`` lists the words of at least this many letters (shorter ones: ``provision_vocab``).
VOCABULARY_MIN_LETTERS = 4


#: The Luxembourg document types a French « règlement » also names: a règlement grand-ducal (the
#: Grand Duke's regulations executing the laws, Constitution art. 45) or ministériel is « règlement »
#: in Luxembourg French as an EU regulation is (« règlement sur les balances non automatiques »: the
#: Règlement grand-ducal du 26 janvier 2016 concernant les instruments de pesage à fonctionnement non
#: automatique; issue #15, titles28).
FRENCH_REGLEMENT_KINDS = frozenset({"RGD", "RMIN"})


def subject_form_kinds(shape: ActName) -> frozenset[str]:
    """The document types a subject question's EU form (``shape.eu_form``) stands for: the EU form's
    (:data:`serve.core.searchplan.POPULAR_TAIL_FORMS`), and for a French « règlement … » the
    Luxembourg règlements too (:data:`FRENCH_REGLEMENT_KINDS`). Pure."""
    kinds = POPULAR_TAIL_FORMS.get(shape.eu_form, frozenset())
    if shape.eu_form == "regulation" and shape.phrase.split()[:1] == ["reglement"]:
        kinds = kinds | FRENCH_REGLEMENT_KINDS
    return kinds


def _of_form(conn: sqlite3.Connection, works: Sequence[int], form: str,
             kinds: frozenset[str] | None = None) -> list[int]:
    """The works among ``works`` of the document types a popular name's tail form stands for
    (:data:`serve.core.searchplan.POPULAR_TAIL_FORMS`), or of ``kinds`` when given."""
    kinds = POPULAR_TAIL_FORMS.get(form, frozenset()) if kinds is None else kinds
    if not works or not kinds:
        return []
    marks = ",".join("?" * len(works))
    rows = conn.execute(f"SELECT work_rowid, document_type FROM works WHERE work_rowid IN ({marks})",
                        list(works)).fetchall()
    return [int(w) for w, kind in rows if kind in kinds]


def popular_name_held(conn: sqlite3.Connection, shape: ActName) -> bool:
    """Whether an index holds an act a popular name ("Right to Repair Directive", "Pillar Two
    Directive", "Platform Work Directive") may stand for, beyond an act of the tail form whose
    names hold all its words (:func:`name_holders`, :func:`_of_form`). Such a name is often in neither the act's metadata nor its text, so
    the evidence is weaker than a ``name``'s, but it is about the act's form:

    - the name's rarest word (fewest provisions, ``vocabulary``; only when the index's texts hold
      every word long enough to be listed there), as itself or its plural or singular
      (:func:`_inflections`: "ship" is not "shipping", nohit27), is in a name of an act of the tail form ("repair"
      in the title of Directive (EU) 2024/1799 on the repair of goods), and in the names of at most
      :data:`NAME_HOLDERS_MAX` works: a word many acts are named by says nothing of one of them
      ("water" in the names of nine acts, five of them directives, none the Water Framework
      Directive; issue #15);
    - the name, as a phrase, is in the text of one work only, of the tail form: the act speaking of
      itself ("Pillar Two" in Directive (EU) 2022/2523). A phrase several works hold ("forced
      labour", "nature restoration") is an ordinary phrase of the texts, not a name."""
    docs = {str(t): int(n) for t, n in conn.execute(
        f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(shape.words))})", shape.words)}
    if docs and all(w in docs for w in shape.words if len(w) >= VOCABULARY_MIN_LETTERS):
        rarest = min(docs, key=lambda w: (docs[w], w))
        k = shape.words.index(rarest)
        number = shape.words[k + 1] if k + 1 < len(shape.words) and is_name_number(shape.words[k + 1]) else ""
        # a word and the number after it are one name ("Euro 7", "Rome III": :func:`_popular_tokens`)
        token = f'"{rarest} {number}"' if number else _inflections(rarest)
        named = [int(r[0]) for r in conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? LIMIT ?",
                                                 ("{titles short_titles aliases} : " + token,
                                                  NAME_HOLDERS_MAX + 1))]
        if len(named) <= NAME_HOLDERS_MAX and _of_form(conn, named, shape.form):
            return True
    match = "text : " + '"' + shape.bare.replace('"', '""') + '"'
    works = [int(r[0]) for r in conn.execute(
        "SELECT DISTINCT s.work_rowid FROM lexical_states s WHERE s.state_rowid IN "
        f"(SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT {PHRASE_SAMPLE}) LIMIT 2", (match,))]
    return len(works) == 1 and bool(_of_form(conn, works, shape.form))


#: A form-titled name's word group is read in the names of at most this many works (a word in more
#: names is an ordinary word of titles: "droit", "marché").
FORM_TITLED_SAMPLE = 400


def _french_word(word: str) -> str:
    """A one-word French term of a German word as an FTS5 token: its Snowball stem as a prefix when the
    stem is shorter than the word without its plural ending (« consommateur » → ``consomm*``: the
    lexicon gives the German word one French word, the title says it in another of its family,
    « biens de consommation »), else the word or its plural (:func:`_name_word`)."""
    stem = analysis.stem_word(word, "fr")
    return f"{stem}*" if stem and len(stem) < len(word) - 1 else _name_word(word)


def _alternative_token(term: str) -> str:
    """A French term of a German word as an FTS5 token: a word as itself or its plural
    (:func:`_name_word`); a term of several words as its words (stop words left out), each so,
    near each other ("procédure d'insolvabilité" holds "procédures d'insolvabilité")."""
    words = [w for w in term.split() if not relax.relaxable(w)] or term.split()
    if len(words) == 1:
        return _french_word(words[0])
    return f"NEAR({' '.join(_name_word(w) for w in words)}, {len(words) + 1})"


def word_or_alternative_held(conn: sqlite3.Connection, word: str, alternatives: Sequence[str]) -> bool:
    """Whether an index holds ``word`` or every word of one of its French terms (:func:`word_held`)."""
    return word_held(conn, word) or any(all(word_held(conn, w) for w in term.split() if not relax.relaxable(w))
                                        for term in alternatives)


def name_word_match(word: str, alternatives: Sequence[str] = ()) -> str:
    """The FTS5 match of the works' names (titles, short titles, aliases) holding ``word`` in any
    light-stem form or as itself or its plural, or one of its French terms (``alternatives``, a German
    word's: :func:`_alternative_token`)."""
    tokens = [_fts_word(word), _name_word(word), *(_alternative_token(t) for t in alternatives)]
    return "{titles short_titles aliases} : (" + " OR ".join(dict.fromkeys(tokens)) + ")"


def form_titled_works(conn: sqlite3.Connection, shape: ActName) -> list[int]:
    """The acts a subject question opened by an EU act's form names by their titles' words
    ("directive sur le droit à la réparation des biens": Directive (EU) 2024/1799, "… visant à
    promouvoir la réparation des biens"; "Aktionärsrechterichtlinie": Directive 2007/36/EC, "…
    droits des actionnaires …"), when no name holds every word: each word (or one of its French
    terms, ``shape.alternatives``) is a group; the works of the form (:func:`_of_form`) whose names
    hold the group fewest of them hold (the rarest word: what the name is about) and a strict
    majority of the groups, those holding the most groups, when they are one to
    :data:`NAME_HOLDERS_MAX`. The same guards as an English popular name's (:func:`popular_name_held`):
    the act's form, a word few acts are named by, few acts. Empty otherwise. Read-only."""
    matches = [name_word_match(word, shape.alternatives[k] if k < len(shape.alternatives) else ())
               for k, word in enumerate(shape.words)]
    holders = [[int(r[0]) for r in conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? LIMIT ?",
                                                (m, FORM_TITLED_SAMPLE + 1))] for m in matches]
    of_form = {k: found for k, h in enumerate(holders) if 0 < len(h) <= FORM_TITLED_SAMPLE
               and (found := _of_form(conn, h, shape.eu_form, subject_form_kinds(shape)))}
    if not of_form:
        return []
    first = min(of_form, key=lambda k: (len(holders[k]), k))  # the rarest word held by a name of an act of the form
    candidates = of_form[first]
    marks = ",".join("?" * len(candidates))
    counts = dict.fromkeys(candidates, 1)
    for k, match in enumerate(matches):
        if k != first:
            for (w,) in conn.execute(f"SELECT rowid FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({marks})",
                                     (match, *candidates)):
                counts[int(w)] += 1
    need = len(matches) // 2 + 1
    best = max(counts.values())
    chosen = sorted(w for w, n in counts.items() if n == best)
    if best < need or len(chosen) > NAME_HOLDERS_MAX:
        return []
    if " " not in shape.phrase and len(shape.words) > 1:
        chosen = _compound_near(conn, shape, chosen)
    return chosen


#: A German compound's parts stand in one of an act's names within this many words per part of each
#: other (their French terms: "Aktionärsrechte" → « droits des actionnaires »).
COMPOUND_NEAR_WORDS = 2


def _compound_near(conn: sqlite3.Connection, shape: ActName, works: Sequence[int]) -> list[int]:
    """The works among ``works`` whose names hold a German compound's parts (each as itself or one of
    its French terms) near each other, as one noun phrase: a compound names one thing, and its parts'
    words apart in a long title ("Schutz·verkehr": « protection » and « circulation » twenty words apart
    in the GDPR's French title) name something else."""
    options: list[list[list[str]]] = []
    for k, word in enumerate(shape.words):
        alternatives = shape.alternatives[k] if k < len(shape.alternatives) else ()
        terms = [[word], *([w for w in t.split() if not relax.relaxable(w)] or t.split() for t in alternatives)]
        options.append([[_name_word(word)], *([_french_word(w) if len(term) == 1 else _name_word(w) for w in term]
                                             for term in terms[1:])])
    combos = [[t for term in combo for t in term] for combo in itertools.product(*options)]
    near = _near_any(combos)
    marks = ",".join("?" * len(works))
    return sorted(int(r[0]) for r in conn.execute(
        f"SELECT rowid FROM work_fts WHERE work_fts MATCH ? AND rowid IN ({marks})",
        ("{titles short_titles aliases} : (" + near + ")", *works)))


def _near_any(combos: Sequence[Sequence[str]]) -> str:
    """An FTS5 query for any of ``combos`` (FTS5 tokens), each combo's tokens near each other
    (:data:`COMPOUND_NEAR_WORDS` words per token): a compound's parts standing together. Pure."""
    return " OR ".join(f"NEAR({' '.join(c)}, {COMPOUND_NEAR_WORDS * len(c)})" for c in combos)


def compounds_not_held(ctx: CallContext, indexes: Sequence[MountedIndex], words: Sequence[str]) -> list[str]:
    """The words no index holds of a German question naming an EU act by its form and subject
    ("Richtlinie zur Verbesserung der Arbeitsbedingungen in der Plattformarbeit"), when each is a
    compound whose parts the lexicon translates (:func:`serve.core.formnames.compound_terms`) and whose
    parts' French terms stand together (:data:`COMPOUND_NEAR_WORDS` words per word) in no work's name
    and in the texts of no act about them (:func:`_texts_about`): the compound names a subject no held
    act has, and the act it narrows the other words to is not held (nohit28, docs/adr/0075). Empty
    when any of them is no such compound, a part is untranslated, or the parts stand together
    somewhere: an unknown word is then left to the lanes, as before. Read-only."""
    unheld: list[str] = []
    for word in words:
        terms = compound_terms(word)
        if not terms or not all(terms):
            return []
        combos = [[_name_word(w) for term in combo for w in term.split()] for combo in itertools.product(*terms)]
        near = _near_any(combos)
        for index in indexes:
            with index.session(ctx.deadline_seconds) as conn:
                if conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                                ("{titles short_titles aliases} : (" + near + ")",)).fetchone() \
                        or _texts_about(conn, near):
                    return []
        unheld.append(word)
    return unheld


#: A subject word in the names of at most this many works (both indexes) is a specific word: the act
#: it is in the name of may be the one asked for. A word in more names is an ordinary word of titles
#: ("produits" in 81 names, « eau » in 26 as one sector among others): an act of the form holding it
#: is no evidence that the act asked for is held.
SPECIFIC_NAME_WORKS = 12


def name_word_holders(conn: sqlite3.Connection, word: str, alternatives: Sequence[str] = ()) -> list[tuple[int, str]]:
    """The works (rowid, document type) whose names hold ``word`` in any light-stem form or as itself
    or its plural, or one of its French terms ``alternatives`` (:func:`name_word_match`), at most
    :data:`FORM_TITLED_SAMPLE` + 1 of them. Read-only."""
    return [(int(w), str(kind or "")) for w, kind in conn.execute(
        "SELECT w.work_rowid, w.document_type FROM works w WHERE w.work_rowid IN "
        "(SELECT rowid FROM work_fts WHERE work_fts MATCH ? LIMIT ?)",
        (name_word_match(word, alternatives), FORM_TITLED_SAMPLE + 1))]


def word_in_texts(conn: sqlite3.Connection, word: str) -> bool:
    """Whether the index's texts hold ``word`` exactly (``vocabulary``, or ``provision_vocab`` for a
    short word): a word of the language the corpus speaks, not a typo or an untranslated word."""
    table = "vocabulary" if len(word) >= VOCABULARY_MIN_LETTERS else "provision_vocab"
    return conn.execute(f"SELECT 1 FROM {table} WHERE term = ? LIMIT 1", (word,)).fetchone() is not None


def acronym_in_names(conn: sqlite3.Connection, word: str, holders: Sequence[tuple[int, str]]) -> bool:
    """Whether a name (title, short title, alias: as the publisher wrote it) of one of ``holders``'
    works (:func:`name_word_holders` of this index) holds the sigle ``word`` in capitals, as a word
    of its own (« loi SICAR », « loi sur la TVA »): the names holding only the common noun it spells
    (« Pacte logement ») do not (:func:`serve.core.formnames.is_acronym`; issue #15, nohit27,
    docs/adr/0066). Read-only."""
    rowids = sorted({w for w, _ in holders})
    if not rowids:
        return False
    sigle = word.upper()
    marks = ",".join("?" * len(rowids))
    values = conn.execute(f"SELECT value FROM work_names WHERE kind != 'official_identifier' AND "
                          f"work_rowid IN ({marks}) AND instr(value, ?) > 0", (*rowids, sigle)).fetchall()
    return any(sigle in re.split(r"\W+", str(v)) for (v,) in values)


def name_holds_inflection(conn: sqlite3.Connection, word: str, *others: str) -> bool:
    """Whether some work's name holds ``word`` (and each of ``others``: a popular name's nouns joined by
    « et », « Climat et résilience », nohit28) as itself or its plural or singular
    (:func:`_inflections`), not only as the prefix of a longer word (a popular name's « Veil » in
    « veille »; nohit27, docs/adr/0066). Read-only."""
    match = " AND ".join(_inflections(w) for w in (word, *others))
    return conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                        ("{titles short_titles aliases} : (" + match + ")",)).fetchone() is not None


def missing_form_words(ctx: CallContext, indexes: Sequence[MountedIndex], shape: FormSubject) -> list[str] | None:
    """The subject words of a form + subject question (:func:`serve.core.formnames.form_subject`)
    that no act of the form is named by, when that says the act asked for is not held; ``None``
    otherwise. A word counts as missing when no name of a work of the form (any index) holds it and
    it is a word of the corpus (its texts hold it exactly): a typo or an unknown word is another
    rule's case. The act is not held when some
    word is missing and no other word is a specific word (in the names of at most
    :data:`SPECIFIC_NAME_WORKS` works) that an act of the form is named by: then an act of the form
    may be the one asked for, by other words than the question's ("directive on package holidays":
    the Package Travel Directive, whose texts are about holidays) — unless a missing word is one no
    work's name holds at all and no act's texts are about (:func:`act_about`): a subject no held act
    has, narrowing the specific word's ("regulation on fluorinated greenhouse gases": the emission
    acts name greenhouse gases, no act is about fluorinated ones; nohit28, docs/adr/0075). For a
    popular name after « loi », its first word is missing when no
    work's name holds it at all (a proper name: "Sapin", held by the texts only as « sapins »); a sigle
    written in capitals (« loi PACTE … ») when no name writes it in capitals (:func:`acronym_in_names`:
    « Pacte logement » holds the common noun, nohit27). Read-only."""
    kinds = FORM_DOCUMENT_TYPES[shape.form]
    missing: list[str] = []
    specific = unsaid = False
    for word in shape.words if not shape.popular else shape.words[:1]:
        holders: list[tuple[int, str]] = []
        known = sigle = proper = False
        for index in indexes:
            with index.session(ctx.deadline_seconds) as conn:
                found = name_word_holders(conn, word)
                holders += found
                known = known or word_in_texts(conn, word)
                sigle = sigle or (shape.acronym and acronym_in_names(conn, word, found))
                proper = proper or (shape.popular and bool(found) and name_holds_inflection(
                    conn, word, *(shape.words[1:] if shape.coordinated else ())))
        of_form = [w for w, kind in holders if kind in kinds]
        if shape.acronym:  # a sigle is held by a name writing it in capitals (nohit27)
            return None if sigle else [word]
        if shape.popular:
            # a proper name, as itself or its inflections ("Veil" is not « veille »): the texts need not hold it;
            # a name of two nouns joined by « et » is held by a name holding both (nohit28)
            return None if proper else list(shape.words) if shape.coordinated else [word]
        if of_form and len(holders) <= SPECIFIC_NAME_WORKS:
            specific = True  # a specific word an act of the form is named by
        elif not of_form and known:
            missing.append(word)
            unsaid = unsaid or (not holders and not any(_about(ctx, index, word) for index in indexes))
    return None if specific and not unsaid else missing or None


def _about(ctx: CallContext, index: MountedIndex, word: str) -> bool:
    """:func:`act_about` of one word in one index (a session of its own). Read-only."""
    with index.session(ctx.deadline_seconds) as conn:
        return act_about(conn, [word])


#: Text states read to tell whether a subject word no name holds is what some act is about.
ABOUT_SAMPLE = 400


def act_about(conn: sqlite3.Connection, words: Sequence[str]) -> bool:
    """Whether some work's texts hold one of ``words`` (any light-stem form) in at least
    :data:`BREADTH_MIN` distinct provisions — an act about it, by other words than its name (the
    Code du travail's provisions on « harcèlement », the procedure code's on « divorce ») — or the
    texts hold it in more than :data:`ABOUT_SAMPLE` states (too common to tell). Read-only."""
    return _texts_about(conn, " OR ".join(dict.fromkeys(_fts_word(w) for w in words)))


def _texts_about(conn: sqlite3.Connection, tokens: str) -> bool:
    """:func:`act_about`'s test for an FTS5 expression ``tokens`` on the provisions' texts. Read-only."""
    match = "text : (" + tokens + ")"
    rows = conn.execute(
        "SELECT COUNT(DISTINCT s.anchor), SUM(COUNT(*)) OVER () FROM "
        "(SELECT rowid AS state_rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT ?) f "
        "JOIN lexical_states s ON s.state_rowid = f.state_rowid GROUP BY s.work_rowid",
        (match, ABOUT_SAMPLE + 1)).fetchall()
    return bool(rows) and (rows[0][1] > ABOUT_SAMPLE or max(int(n) for n, _ in rows) >= BREADTH_MIN)


def missing_law_words(ctx: CallContext, indexes: Sequence[MountedIndex], shape: FormSubject) -> list[str] | None:
    """The subject words of a statute asked by its subject ("loi sur le séparatisme", "law on the
    metaverse": :data:`serve.core.formnames.LAW`) that no act of any form is named by, when that says
    the statute is not held; ``None`` otherwise. Any doubt keeps the question: a word some name holds
    as a specific word (at most :data:`SPECIFIC_NAME_WORKS` works) may name the act; an English word
    the lexicon does not translate cannot be looked for in French names; a word no name holds that
    some act's texts are about (:func:`act_about`) is that act's subject said otherwise (a code's); a
    word no index holds at all counts only in a French question, when it is no typo
    (:func:`typo_words`) and long enough to tell (:data:`TYPO_INFLECTION_MIN_LETTERS`: « IVG » is an
    abbreviation). A word in more names is an ordinary word of titles: no evidence either way alone;
    but a subject of such words, each held, that no name and no act's texts hold two by two together
    (:func:`words_together`: « loi relative à la sécurité globale ») names no act either (nohit27,
    docs/adr/0066): every word of the subject counts as missing. Read-only."""
    missing: list[str] = []
    for word, terms in zip(shape.words, shape.terms, strict=True):
        if not terms:
            return None
        text_words = [t for t in terms if " " not in t]
        holders = 0
        for index in indexes:
            with index.session(ctx.deadline_seconds) as conn:
                holders += len(name_word_holders(conn, word, terms[1:]))
        if 0 < holders <= SPECIFIC_NAME_WORKS:
            return None
        if holders:
            continue
        known = False
        for index in indexes:
            with index.session(ctx.deadline_seconds) as conn:
                if any(word_in_texts(conn, t) for t in text_words):
                    if act_about(conn, text_words):
                        return None
                    known = True
        if not known and (shape.language != "fr" or len(word) < TYPO_INFLECTION_MIN_LETTERS
                          or not word.isalpha() or typo_words(ctx, [word], "fr")):
            return None
        missing.append(word)
    if not missing and len(shape.words) > 1 and not any(
            words_together(ctx, indexes, shape.terms[k], shape.terms[k + 1]) for k in range(len(shape.words) - 1)):
        return list(shape.words)  # ordinary title words, each held, that no name nor act's texts hold together
    return missing or None


#: Two subject words stand together in a name or a text when within this many words of each other
#: (« sécurité sociale », « protection des données », « contrats de garantie financière »).
TOGETHER_NEAR_WORDS = 3


def words_together(ctx: CallContext, indexes: Sequence[MountedIndex], first: Sequence[str],
                   second: Sequence[str]) -> bool:
    """Whether two successive subject words of a statute's question (each as one of its forms, a
    word of one token: :func:`serve.core.formnames.law_terms`) stand together
    (:data:`TOGETHER_NEAR_WORDS`) in some work's name, or in its texts as a subject some act is about
    (:func:`act_about`'s test: at least :data:`BREADTH_MIN` provisions of one work, or too common to
    tell). Read-only."""
    pairs = [f"NEAR({_fts_word(a)} {_fts_word(b)}, {TOGETHER_NEAR_WORDS})"
             for a in first if " " not in a for b in second if " " not in b]
    if not pairs:
        return True  # a term of several words: no pair to look for, no evidence of absence
    near = " OR ".join(dict.fromkeys(pairs))
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            if conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                            ("{titles short_titles aliases} : (" + near + ")",)).fetchone():
                return True
            if _texts_about(conn, near):
                return True
    return False


#: How near each other a held act's name must hold a state's word and the act word for the act asked
#: as that state's to be held (« Loi … portant approbation … belgo-luxembourgeoise » holds neither pair).
FOREIGN_NAME_NEAR_WORDS = 3


def impossible_citation_not_held(indexes: Sequence[MountedIndex], plans: Mapping[str, Plan], query: str) -> None:
    """A question citing an act by a date no calendar holds (« loi du 32 mars 2001 », "Gesetz vom 29.
    Februar 2011") or by a number or CELEX of a year after the indexes were built (« Règlement (UE)
    2031/999 »: :func:`serve.core.impossible.impossible_citation`) cites an act that does not exist:
    every section answers no hits with the typed reason ``impossible_citation``, its kind (``date``,
    ``number``) and text (plans, in place; issue #15, neg35). The acts holding the citation's other
    words, or its numbers apart (« 2031 » and « 999 » in a list), are not the act asked for. Never for
    a question that names a held work otherwise (a resolved mention). The build year is the newest of
    the mounted indexes'. No SQL statement."""
    if not indexes or any(p.constraints for p in plans.values()):
        return
    found = impossible_citation(query, max(int(i.built_date[:4]) for i in indexes))
    if found is None:
        return
    for plan in plans.values():
        plan.name_not_held = {"reason": "impossible_citation", "kind": found.kind, "citation": found.text}


def foreign_law_not_held(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                         query: str) -> None:
    """A question naming its act as another state's (« loi française du 29 juillet 1881 », « Code du
    travail français », "Swiss Federal Act on Data Protection": :func:`serve.core.jurisdiction.foreign_law`)
    asks for an act neither publisher holds: every section answers no hits with the typed reason
    ``foreign_law``, the state's word and the act word (plans, in place; issue #15, neg33). Luxembourg's
    code of the same name (« Code du travail ») or the acts whose texts hold the other words are not the
    act asked for. Unless a held act's name (title, short title, alias) holds the state's word within
    :data:`FOREIGN_NAME_NEAR_WORDS` words of the act word (the act may then be held), or the question
    cites an act number (explicit ``works`` are never weighed: :func:`ranked_answer`). A work its words
    resolve (« Code de la consommation belge » → Luxembourg's code) is not the act asked. An article the question cites is the foreign act's (« article
    115 du Code pénal suisse » is not article 115 of Luxembourg's Code pénal). One FTS lookup per index."""
    shape = foreign_law(query)
    if shape is None or any(p.act_number for p in plans.values()):
        return
    near = f"NEAR({fts_string(normalize(shape.state))} {fts_string(shape.act)}, {FOREIGN_NAME_NEAR_WORDS})"
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            if conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                            ("{titles short_titles aliases} : (" + near + ")",)).fetchone():
                return
    for plan in plans.values():
        plan.name_not_held = {"reason": "foreign_law", "state": shape.state, "act": shape.act}


def form_subject_not_held(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                          query: str) -> None:
    """A question naming one act by its form and subject ("directive sur les emballages", "règlement
    relatif aux produits cosmétiques", "regulation on novel foods") or a statute by its popular name
    ("loi Sapin II lutte contre la corruption") whose act no index holds: every section answers no
    hits with the typed reason ``form_subject_not_held`` and the missing words (plans, in place;
    issue #15, nohit25, docs/adr/0052). The acts whose texts hold the subject's words, or whose titles
    hold them beside other forms (a Luxembourg law on packaging for a directive on packaging), are not
    the act asked for. Not for a query that names a work otherwise (mention, article, anchor, act
    number) or that another rule already answers (:func:`named_act`, :func:`dated_reference_not_held`);
    the words' test is :func:`missing_form_words`, or for a statute asked by its subject ("loi sur le
    séparatisme", "law on hunting": any act may be it; nohit26, docs/adr/0060) :func:`missing_law_words`."""
    shape = form_subject(query)
    if shape is None or any(p.mentions or p.constraints or p.article_key or p.anchor or p.act_number
                            or p.name_not_held for p in plans.values()):
        return
    law = shape.form == LAW and not shape.popular
    missing = missing_law_words(ctx, indexes, shape) if law else missing_form_words(ctx, indexes, shape)
    if missing:
        for plan in plans.values():
            plan.name_not_held = {"reason": "form_subject_not_held", "form": shape.form, "words": missing}


def named_act(ctx: CallContext, indexes: Sequence[MountedIndex], plans: dict[str, Plan],
              shape: ActName | None, fuzzy: bool = False) -> None:
    """The act a query shaped like an act's name means, or why there is none (plans, in place).

    Only for a query that names no work otherwise (no mention, article, anchor or act number) and
    whose words every one is held by some index (a word held nowhere is a typo or the unknown
    subject, :func:`relaxation_withheld`). A ``name`` ("Code de la famille", "Companies Act 2006")
    held as a near-phrase by the names of one to :data:`NAME_HOLDERS_MAX` works of an index names
    them softly there (reason ``near_name``: ranked first, nothing restricted); a ``subject``
    ("directive on time travel tourism") is held when one name holds all its words or a provision
    holds them near each other (:func:`subject_held`); a ``name`` the texts of more than
    :data:`FREQUENT_PHRASE_WORKS` works cite as a phrase (a former title) is held too; a ``popular``
    name ("Platform Work Directive") is held by an act of its form (:func:`popular_name_held`) or
    cited as a name. A ``subject`` opened by an EU act's form in French or German, or a German compound
    headed by one, that no name holds whole names softly the acts of that form titled by its rarest
    word and a majority of its words (:func:`form_titled_works`, reason ``form_titled``: ranked first,
    nothing restricted); a German word held only in its French terms leaves an unresolved name to the
    lanes, as before. Held by no index, every section answers no hits with the typed reason
    ``name_not_held``: that the words occur apart in texts does not make them the act the user names.
    With ``fuzzy`` on, a name holding a typo the fuzzy lane corrects (:func:`typo_words`: "loi sur
    les servises postaux", "servises" held only as "servis") is left to the lanes."""
    if shape is None or any(p.mentions or p.article_key or p.anchor or p.act_number for p in plans.values()):
        return
    if shape.kind == "subject" and not shape.eu_form and plans and all(p.translations for p in plans.values()):
        # a statute asked by its subject in a language no index holds text in ("Gesetz über die Erhaltung
        # der Natur …"): its words are held, if at all, by a stray text in that language (the Constitution's
        # German), so neither their being held nor their absence from the names says the act is not held;
        # the lanes search the words' French terms under the translation's own guards (xlu33)
        return
    held: dict[str, list[int]] = {}
    titled: dict[str, list[int]] = {}
    known: set[str] = set()
    # a German word no index holds may be held in its French terms: then the words are known for a
    # form-titled name only, and a name no title holds is left to the lanes (their translations), as before
    alternatives = dict(zip(shape.words, shape.alternatives, strict=False))
    translated: set[str] = set()
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            known |= {w for w in shape.words if w not in known and word_held(conn, w)}
            translated |= {w for w in shape.words if w not in known and w not in translated
                           and word_or_alternative_held(conn, w, alternatives.get(w, ()))}
    unknown = [w for w in shape.words if w not in known | translated]
    if unknown or (fuzzy and typo_words(ctx, shape.words)):
        # a German compound naming a subject no held act has is no typo nor a word to leave to the lanes
        unheld = compounds_not_held(ctx, indexes, unknown) if unknown and shape.eu_form and shape.alternatives \
            and not (fuzzy and typo_words(ctx, shape.words)) else []
        for plan in plans.values() if unheld else ():
            plan.name_not_held = {"reason": "name_not_held", "shape": shape.kind, "words": list(shape.words),
                                  "compounds": unheld}
        return
    for index in indexes:
        with index.session(ctx.deadline_seconds) as conn:
            works = name_holders(conn, shape, NAME_HOLDERS_MAX + 1)
            if shape.kind == "popular":  # a popular name's form is part of it: a directive is not a regulation
                works = _of_form(conn, name_holders(conn, shape, POPULAR_HOLDERS_SAMPLE), shape.form)
            if not works and shape.kind == "subject" and subject_held(conn, shape):
                return
            if not works and shape.kind == "popular" and popular_name_held(conn, shape):
                return
            if shape.eu_form and (not works or " " not in shape.phrase):
                # an EU act asked by its form and its title's words (FR, DE): when a name holds every
                # word, the lanes find it by those words, unless the question is one German compound
                titled[index.publisher.value] = form_titled_works(conn, shape)
                works = works or titled[index.publisher.value]
        held[index.publisher.value] = works
    if not any(held.values()) and shape.kind in ("name", "popular"):
        for index in indexes:  # a name the texts cite as a name (a former title: "Code des assurances sociales")
            with index.session(ctx.deadline_seconds) as conn:
                if phrase_is_frequent(conn, index, shape.phrase):
                    return
    if not any(held.values()) and len(known) < len(shape.words):
        return
    if not any(held.values()):
        for plan in plans.values():
            plan.name_not_held = {"reason": "name_not_held", "shape": shape.kind, "words": list(shape.words)}
        return
    if shape.kind != "name" and not any(titled.values()):
        return
    for index in indexes:
        works = held[index.publisher.value] if shape.kind == "name" else titled.get(index.publisher.value, [])
        if 0 < len(works) <= NAME_HOLDERS_MAX:
            plan = plans[index.publisher.value]
            with index.session(ctx.deadline_seconds) as conn:
                profiles = ranking.profiles(conn, index)
            works = [w for w in works if w not in profiles or profiles[w].role != "compilation"]
            if works:
                plan.mentions.append(Mention(" ".join(shape.words), "resolved" if len(works) == 1 else "ambiguous",
                                             "near_name" if shape.kind == "name" else "form_titled", sorted(works),
                                             soft=True))
                plan.boost = sorted(set(plan.boost) | set(works))


_FREQUENT: weakref.WeakKeyDictionary[MountedIndex, dict[str, bool]] = weakref.WeakKeyDictionary()


def phrase_is_frequent(conn: sqlite3.Connection, index: MountedIndex, phrase: str) -> bool:
    """Whether ``phrase`` is an ordinary phrase of the corpus: held, as a phrase, by the text of
    more than ``FREQUENT_PHRASE_WORKS`` works (answer kept per mounted index and phrase)."""
    known = _FREQUENT.setdefault(index, {})
    if phrase not in known:
        words = phrase.split()
        docs = [int(r[0]) for w in words for r in conn.execute("SELECT docs FROM vocabulary WHERE term = ?", (w,))]
        if len(docs) == len(words) and min(docs, default=0) <= FREQUENT_PHRASE_WORKS:
            known[phrase] = False  # a word of the phrase is in too few provisions to be in many works
        else:
            match = "text : " + '"' + phrase.replace('"', '""') + '"'
            count = conn.execute(
                "SELECT COUNT(DISTINCT s.work_rowid) FROM lexical_states s WHERE s.state_rowid IN "
                f"(SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT {PHRASE_SAMPLE})", (match,)
            ).fetchone()[0]
            known[phrase] = int(count) > FREQUENT_PHRASE_WORKS
    return known[phrase]


def depths(limit: int) -> list[int]:
    """The depths (:data:`SEARCH_DEPTHS`) a search of ``limit`` is ranked at, the last one at least
    ``limit``. Pure."""
    return [d for d in SEARCH_DEPTHS if d < limit] + [min((d for d in SEARCH_DEPTHS if d >= limit), default=limit)]


def run(ctx: CallContext, args: dict[str, Any]) -> Answer:
    """The search ranked at each of :func:`depths` (``limit``), stitched and cut to ``limit``
    (:func:`stitched`)."""
    return stitched([ranked_answer(ctx, {**args, "limit": depth}) for depth in depths(args["limit"])], args["limit"])


def _hit_key(hit: Mapping[str, Any], grain: Any) -> tuple[Any, ...]:
    return (hit.get("work"),) if grain == "works" else (hit.get("work"), hit.get("provision_id"))


def deepened(section: Answer, deeper: Answer | None, depth: int) -> None:
    """Extend ``section``'s hits, when it holds ``depth`` of them (a section holding fewer is
    whole), with the hits of ``deeper`` (the same publisher's section ranked deeper) it does not
    hold, as many as ``deeper`` ranked; at most ``per_work_limit`` per work (in place)."""
    hits = section.get("hits")
    more = (deeper or {}).get("hits")
    if not isinstance(hits, list) or len(hits) != depth or not isinstance(more, list):
        return
    grain = section.get("result_grain")
    cap = (section.get("row_set") or {}).get("per_work_limit") if grain != "works" else None
    held = {_hit_key(h, grain) for h in hits}
    works = Counter(h.get("work") for h in hits)
    for hit in more:
        if len(hits) >= len(more):
            break
        key = _hit_key(hit, grain)
        if key in held or (cap is not None and works[hit.get("work")] >= cap):
            continue
        held.add(key)
        works[hit.get("work")] += 1
        hits.append({**hit, "rank": len(hits) + 1})


def stitched(answers: Sequence[Answer], limit: int) -> Answer:
    """One answer from the same search ranked at increasing depths (:func:`depths`): the first
    answer's sections (their order, routing, plans and first hits), each extended by the hits the
    deeper answers add (:func:`deepened`), cut to ``limit``, and ``merged`` again. The first ``k``
    hits of every section and of ``merged`` therefore never depend on ``limit``."""
    first = answers[0]
    sections = first.get("publishers")
    if not isinstance(sections, list):
        return first
    counts = [len(s.get("hits") or []) for s in sections]
    for deeper, depth in zip(answers[1:], SEARCH_DEPTHS, strict=False):
        by_publisher = {s.get("publisher"): s for s in deeper.get("publishers") or []}
        for section in sections:
            deepened(section, by_publisher.get(section.get("publisher")), depth)
    for section, count in zip(sections, counts, strict=True):
        hits, row_set = section.get("hits"), section.get("row_set")
        if isinstance(hits, list):
            del hits[limit:]
        if isinstance(row_set, dict):
            row_set["limit"] = limit
            if isinstance(hits, list) and len(hits) != count:  # deepened or cut (a routed section keeps its count)
                row_set.update({"returned": len(hits), "truncated": len(hits) >= limit
                                or bool(row_set.get("held_back_by_per_work_limit"))})
    return {**first, "merged": merge.merged(sections, limit, lead=True)}


#: Whether the act terms (:mod:`serve.core.actterms`) rank the acts whose terms the question says beside
#: the keyword ranking (:func:`act_term_step`).
ACT_TERMS = True


def act_term_plan(plan: Plan) -> bool:
    """Whether a section's plan is a plain-word question the act terms may rank: no act named (strongly or
    softly, by constraint, a name, a cited date or a boost), no article, no act number, no role asked, no
    name answered on purpose. Pure."""
    return not (plan.strong or plan.constraints or plan.mentions or plan.boost or plan.article_key or plan.anchor
                or plan.act_number or plan.act_reference_only or plan.name_not_held is not None or plan.intent)


def planned_terms(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan]
                  ) -> Iterator[tuple[int, str, MountedIndex, actterms.TermIndex]]:
    """``(section position, publisher, index, act terms)`` of every section whose index is mounted and whose publisher
    has a plan, in the sections' order: the act terms each index holds in memory
    (:func:`serve.core.actterms.terms_of`)."""
    for position, section in enumerate(sections):
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        if index is None or publisher not in plans:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            terms = actterms.terms_of(conn, index)
        yield position, publisher, index, terms


def act_term_matches(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan],
                     words: Sequence[str]) -> list[tuple[str, int, actterms.Match[int]]]:
    """``(lex work id, section position, match)`` of the acts the terms rank
    (:func:`serve.core.actterms.ranked`; the terms said whole or in part: :func:`serve.core.actterms.partly_covered`;
    one rare word said whole: :func:`serve.core.actterms.rare_word`) over every section's index, best coverage first."""
    found = [(f"{publisher}:{index.catalogue.slug_of[m.work]}", position, m)
             for position, publisher, index, terms in planned_terms(ctx, sections, plans)
             for m in actterms.matches(terms, words)]
    best = actterms.ranked([m for _, _, m in found], words, lambda m: True)  # each admitted by its own index
    order = {id(m): i for i, m in enumerate(best)}
    return sorted((f for f in found if id(f[2]) in order), key=lambda f: order[id(f[2])])


def act_term_step(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan], args: dict[str, Any]) -> bool:
    """The answer's works reranked by reciprocal-rank fusion (:func:`serve.core.actterms.fused`) of the order
    a reader meets them in (the sections taken in turn: :func:`serve.core.actterms.interleaved`) and the
    acts whose act terms cover the most of the question (:func:`act_term_matches`), then dealt back:
    each section lists its publisher's works in the fused order (an act its hits did not hold comes in as
    a work row, reason ``act_term``, ``matched_act_terms``), at most ``limit`` of them (a full section's last
    work gives way; a section with no hit takes an act on firm evidence only, :func:`serve.core.actterms.firm`); the
    sections keep their order unless the terms firmly put the second section's act first (:func:`act_term_lead`), and a
    section's first work gives way to the act the terms firmly say when it rests on weaker evidence
    (:func:`act_term_first`).
    An answer with no hit takes only the acts whose terms cover most of the question (:func:`act_term_answer`;
    a question on a subject no act is about still says some act's terms in part); a question naming an
    act in any section's plan (:func:`act_term_plan`) leaves every section as it was but for the named act's own
    subordinate act its other words say (:func:`named_own_act`); the ``works`` filter, a ``known_on`` day, an
    ``as_of`` date, the provisions grain and the hybrid mode leave every section as it was. Whether
    anything changed (in place)."""
    if not ACT_TERMS or args["works"] or args.get("known_on") is not None or args["time_scope"] == "as_of" \
            or (args.get("result_grain") or "works") != "works" or args["retrieval_mode"] != "keyword":
        return False
    if not all(act_term_plan(p) for p in plans.values()):
        # a question naming an act may ask for that act's own technical act by its subject (named_own_act)
        return named_own_act(ctx, sections, plans, args)
    words = actterms.question_words(args["query"])
    if not any(s.get("hits") for s in sections):
        return act_term_answer(ctx, sections, plans, words, args)
    # a section the keywords left empty takes an act on firm evidence only (a term said whole, two words covered)
    # (actterms.firm)
    matched = [(work, position, m) for work, position, m in act_term_matches(ctx, sections, plans, words)
               if sections[position].get("hits") or actterms.firm(m, words)]
    if not matched:
        return False
    listed = [[str(h.get("work")) for h in s.get("hits") or []] for s in sections]
    base = actterms.interleaved(listed)
    translated = {position for position, section in enumerate(sections)
                  if (plan := plans.get(str(section.get("publisher")))) is not None and plan.translations is not None}
    # a section whose keyword first work holds only some of the question's words weighs the terms as a translated
    # one does (some_words_first)
    weaker = translated | {position for position, section in enumerate(sections) if some_words_first(section)}
    order = actterms.fused(base, [work for work, _, _ in matched], weight=fusion_weights(matched, weaker),
                           ranks=fusion_ranks(matched, args["query"]))
    if order == base:
        return False
    rows = {str(h.get("work")): h for s in sections for h in s.get("hits") or []}
    new = {work: (position, m) for work, position, m in matched if work not in rows}
    for position, section in enumerate(sections):
        wanted = [(w, new[w][1]) for w in order if w in new and new[w][0] == position]
        if wanted:
            rows.update(act_term_rows(ctx, section, wanted, words, args))
    dealt: list[list[str]] = [[] for _ in sections]
    at = {work: position for position, works in enumerate(listed) for work in works}
    at.update((work, position) for work, (position, _) in new.items())
    for work in order:
        if work in rows and work in at:
            dealt[at[work]].append(work)
    for section, works, before in zip(sections, dealt, listed, strict=True):
        if works[:args["limit"]] == before:
            continue
        dealt_hits(section, [rows[w] for w in works[:args["limit"]]])
    # the sections' order is decided on the dealt order (act_term_lead), then each section's first place
    # (act_term_first)
    searched_through = {str(sections[position].get("publisher")) for position in translated}
    if not act_term_lead(sections, matched, words, args["query"]):
        untranslated_lead(sections, matched, words, args["query"], searched_through)
    act_term_first(sections, matched, words, searched_through)
    act_term_over_first(ctx, sections, matched, words)
    if not act_term_clear_first(sections, matched, words, ctx):
        act_term_titled_first(ctx, sections, matched, words)  # a short question the act's own title says
    return True


#: The publishers whose sections :func:`named_own_act` reorders (EUR-Lex: a basic act's delegated and implementing acts
#: are asked by naming the basic act and the technical subject).
NAMED_OWN_PUBLISHERS = frozenset({"eu-eurlex"})
#: The least share of the question's words beside the act's name (:func:`subject_words`) the terms of a named act's
#: own subordinate act must cover (a term said whole, two words: :func:`serve.core.actterms.firm`) for
#: :func:`named_own_act` to put it first …
NAMED_OWN_COVERAGE = 0.3
#: … and how much more of them than the named act's own terms.
NAMED_OWN_MARGIN = 0.1


def names_only(plan: Plan) -> bool:
    """Whether a section's plan names an act (a resolved mention, a constraint, a boost) and asks nothing else the act
    terms must leave alone: no article, anchor, act number, role, or name answered on purpose. Pure."""
    named = bool(plan.constraints or plan.boost or any(m.status == "resolved" for m in plan.mentions))
    return named and not (plan.article_key or plan.anchor or plan.act_number or plan.act_reference_only
                          or plan.name_not_held is not None or plan.intent)


def named_works(plan: Plan) -> frozenset[int]:
    """The works a plan names: its constraints, boosts and resolved mentions' works. Pure."""
    return frozenset([*plan.constraints, *plan.boost,
                      *(w for m in plan.mentions if m.status == "resolved" for w in m.works)])


def subject_words(query: str, plans: Iterable[Plan]) -> list[str]:
    """The question's content words (:func:`serve.core.actterms.question_words`) beside the names of the acts it
    names (the words of every plan's mentions' text): what it asks of the named act. Pure."""
    named = {actterms.folded(w) for plan in plans for m in plan.mentions for w in normalize(m.text).split()}
    return [w for w in actterms.question_words(query) if w not in named]


def own_act(conn: sqlite3.Connection, index: MountedIndex, matches: Sequence[actterms.Match[int]],
            named: Collection[int]) -> actterms.Match[int] | None:
    """The first of the act terms' ranked ``matches`` that is an act of its own whose official title names one of the
    ``named`` works (by the number or date other titles cite it by: :func:`serve.core.ranking.title_reference`): an
    act supplementing, implementing or amending the named act; ``None`` when none is."""
    references = []
    for work in named:
        row = conn.execute("SELECT title FROM works WHERE work_rowid = ?", (work,)).fetchone()
        reference = ranking.title_reference(index.catalogue.slug_of[work], str(row[0] or "")) if row else None
        if reference:
            references.append(f" {reference} ")
    for match in matches if references else ():
        if match.work in named:
            continue
        titles = [f" {t} " for (t,) in conn.execute(
            "SELECT normalized FROM work_names WHERE work_rowid = ? AND kind = 'official_title'", (match.work,))]
        if any(r in t for r in references for t in titles):
            return match
    return None


def named_own_act(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan], args: dict[str, Any]) -> bool:
    """In each section of :data:`NAMED_OWN_PUBLISHERS` whose plan names an act and nothing else (:func:`names_only`),
    the named act's own subordinate act (:func:`own_act`) the act terms rank for the question's other words
    (:func:`subject_words`) goes first, brought in as a work row when the keywords did not list it: its terms say
    them firmly (:func:`serve.core.actterms.firm`), at least :data:`NAMED_OWN_COVERAGE` of them and
    :data:`NAMED_OWN_MARGIN` more than the named act's own terms. "time limits for reporting major ICT-related
    incidents under DORA", "governance and control requirements for supervised contributors to benchmarks": the
    question names the basic act and the subject of one of its technical standards, and asks for that act; the
    named act follows it. A question whose other words the named act's terms say as well, or no act of the named
    act's family says, keeps its answer. Whether a section changed (in place)."""
    if not all(names_only(p) or act_term_plan(p) for p in plans.values()):
        return False
    words = subject_words(args["query"], plans.values())
    if len(words) < actterms.MIN_WORDS:
        return False
    changed = False
    for section in sections:
        publisher = str(section.get("publisher"))
        plan, index, hits = plans.get(publisher), ctx.indexes.get(publisher), section.get("hits") or []
        if publisher not in NAMED_OWN_PUBLISHERS or plan is None or index is None or not hits or not names_only(plan):
            continue
        named = named_works(plan)
        with index.session(ctx.deadline_seconds) as conn:
            terms = actterms.terms_of(conn, index)
            found = actterms.partly_covered(terms, words)
            own = own_act(conn, index, actterms.ranked(found, words, actterms.rare_word(terms, words)), named)
        if own is None or not actterms.firm(own, words) or own.coverage < NAMED_OWN_COVERAGE \
                or own.coverage - max((m.coverage for m in found if m.work in named), default=0.0) < NAMED_OWN_MARGIN:
            continue
        work = f"{publisher}:{index.catalogue.slug_of[own.work]}"
        at = next((i for i, h in enumerate(hits) if str(h.get("work")) == work), None)
        if at == 0:
            continue
        row = hits[at] if at is not None else act_term_rows(ctx, section, [(work, own)], words, args).get(work)
        if row is None:
            continue
        dealt_hits(section, [row, *(h for h in hits if str(h.get("work")) != work)][:args["limit"]])
        changed = True
    return changed


def dealt_hits(section: Answer, rows: Sequence[Mapping[str, Any]]) -> None:
    """Give a section (in place) the work ``rows`` the act terms dealt it, ranked in order: an empty section that now
    has a hit succeeded, and its row set counts what it returns (:func:`act_term_step`, :func:`act_term_answer`)."""
    section["hits"] = [{**row, "rank": rank} for rank, row in enumerate(rows, 1)]
    if section["hits"] and section.get("outcome") == Outcome.EMPTY.value:
        section["outcome"] = Outcome.SUCCEEDED.value
    if isinstance(section.get("row_set"), dict):
        section["row_set"] = {**section["row_set"], "returned": len(section["hits"])}


#: The match reasons of the keyword stages that hold only some of the question's words (the any-word relaxation, the
#: majority-of-words share, the title share): weaker evidence than a term of an act said whole (:func:`act_term_first`).
SOME_WORDS = frozenset({"any_term", "partial_terms", "title_words"})
#: The match reasons no act term outranks: the act named (identifier, title, short title, alias, an article asked of it,
#: each :data:`serve.core.merge.WEIGHTS` 0.9 or more) and a parent act put before its own subordinate act.
NAMED_REASONS = frozenset({reason for reason, weight in merge.WEIGHTS.items() if weight >= 0.9} | {"parent_act"})


def names_act(hit: Mapping[str, Any]) -> bool:
    """Whether a hit was found by naming its act (a match reason of :data:`NAMED_REASONS`). Pure."""
    return bool(frozenset(str(r) for r in hit.get("match_reasons") or ()) & NAMED_REASONS)


def to_front(section: Answer, at: int) -> None:
    """Move a section's hit at position ``at`` first (in place), the hits before it one place down, ranked again."""
    hits = section["hits"]
    section["hits"] = [{**hit, "rank": rank} for rank, hit in enumerate([hits[at], *hits[:at], *hits[at + 1:]], 1)]


def some_words_first(section: Answer) -> bool:
    """Whether a section's keyword first hit was found by a stage holding only some of the question's words
    (:data:`SOME_WORDS`: the any-word relaxation, the majority-of-words share, the title share) and names no act
    (:data:`NAMED_REASONS`): its keyword order is as weak a reading of the question as a translated section's, and
    :func:`act_term_step` weighs the terms' order beside it as beside a translated one (:func:`fusion_weights`). Pure."""
    hits = section.get("hits") or []
    return bool(hits) and weaker_first(hits[0], False)


def fusion_weights(matched: Sequence[tuple[str, int, actterms.Match[int]]], weaker: Collection[int]) -> list[float]:
    """The weight of each matched act's rank in the fusion (:func:`serve.core.actterms.fused`): the cross-language
    weight (:data:`serve.core.actterms.CROSS_WEIGHT`) for an act of a section whose keyword order is the weaker
    reading of the question (``weaker``: the positions of the sections searched through translations or whose first
    hit holds some of the question's words only, :func:`some_words_first`), else :data:`serve.core.actterms.WEIGHT`.
    Pure."""
    return [actterms.CROSS_WEIGHT if position in weaker else actterms.WEIGHT for _, position, _ in matched]


#: Whether acts the terms cover equally share one rank in the fusion (:func:`fusion_ranks`, ADR 0179) …
TIED_FUSION = False
#: … and whether an act the terms rank no better than another of its publisher takes no first place of its own
#: (:func:`lone_best`: :func:`act_term_first`, :func:`act_term_over_first`, :func:`act_term_clear_first`).
TIED_NO_LEAD = False
#: Whether :data:`TIED_FUSION` shares the first rank only: the acts tied with the act the terms rank first, among
#: which the keyword order decides the first place; a tie further down the terms' list keeps the terms' order.
TIED_FIRST_ONLY = True
#: Whether a question naming an act's form ("directive", « règlement », « Richtlinie »:
#: :func:`serve.core.siblings.named_form`) keeps the terms' order between tied acts: it asks for an act by its name,
#: and the form step (ADR 0168), not the keyword order, decides between siblings by the form named (measured: of three
#: such questions the shared rank moved, the release gate's tuning file's went down, docs/retrieval-benchmark.md
#: §8.146).
TIED_FORM_KEEPS = True
#: The publishers whose acts :data:`TIED_FUSION` and :data:`TIED_NO_LEAD` read: EUR-Lex, whose families of technical
#: acts and recasts share their terms (measured over both publishers: Legilux 27 cases up, 24 down, a règlement put
#: before the law asked for, docs/retrieval-benchmark.md §8.146).
TIED_PUBLISHERS = frozenset({"eu-eurlex"})


def fusion_ranks(matched: Sequence[tuple[str, int, actterms.Match[int]]], query: str = "") -> list[int] | None:
    """The matched acts' ranks in the fusion (:func:`serve.core.actterms.fused`): with :data:`TIED_FUSION`, acts of
    one coverage share the best of their ranks (:func:`serve.core.actterms.shared_ranks`), so that the keyword order
    decides between acts the terms cannot tell apart (a family's technical acts whose terms say the same words, an act
    and its recast); only acts of one publisher of :data:`TIED_PUBLISHERS`, and with :data:`TIED_FIRST_ONLY` only the
    first rank. ``None`` (each its own rank) without, and for a ``query`` naming an act's form
    (:data:`TIED_FORM_KEEPS`). Pure."""
    if not TIED_FUSION or (TIED_FORM_KEEPS and siblings.named_form(siblings.form_words(query))):
        return None
    # a rank is shared only between two acts of one publisher of TIED_PUBLISHERS (with TIED_FIRST_ONLY, the first rank)
    ranks = actterms.shared_ranks([m.coverage for _, _, m in matched],
                                  [i > 0 and _tied_pair(matched[i - 1][0], work) for i, (work, _, _) in enumerate(matched)])
    return [rank if rank == 1 or not TIED_FIRST_ONLY else i + 1 for i, rank in enumerate(ranks)]


def _tied_pair(work: str, other: str) -> bool:
    """Whether two lex work ids are of one publisher of :data:`TIED_PUBLISHERS`. Pure."""
    publisher = work.split(":", 1)[0]
    return publisher in TIED_PUBLISHERS and other.split(":", 1)[0] == publisher


def lone_best(matched: Sequence[tuple[str, int, actterms.Match[int]]], publisher: str
              ) -> tuple[str, actterms.Match[int]] | None:
    """The act the terms rank best of ``publisher`` (``matched``: ``(lex work id, section position, match)``, best
    first), or ``None`` when there is none or, with :data:`TIED_NO_LEAD`, another act of that publisher covers as
    much of the question (:func:`serve.core.actterms.tied`): which of two equally covered acts the terms list first
    is their tie-break, no reading of the question, and gives neither a first place over the keywords' first work.
    Pure."""
    own = [(work, m) for work, _, m in matched if work.split(":", 1)[0] == publisher]
    if not own:
        return None
    if TIED_NO_LEAD and publisher in TIED_PUBLISHERS and actterms.tied(own[0][1], [m for _, m in own[1:]]):
        return None
    return own[0]


def weaker_first(hit: Mapping[str, Any], translated: bool) -> bool:
    """Whether a section's first ``hit`` rests on weaker evidence than a term said whole: found through the
    cross-language lexicon (``translated``: an English or German question on French-only law, whose terms are said in
    the question's own language) or by a stage holding only some of the question's words (:data:`SOME_WORDS`), and
    naming no act (:data:`NAMED_REASONS`). Pure."""
    reasons = frozenset(str(r) for r in hit.get("match_reasons") or ())
    return not reasons & NAMED_REASONS and (translated or bool(reasons & SOME_WORDS))


def act_term_first(sections: list[Answer], matched: Sequence[tuple[str, int, actterms.Match[int]]],
                   words: Sequence[str], translated: Collection[str]) -> bool:
    """In each section (in place), the act the terms rank best of its publisher (``matched``: ``(lex work id, section
    position, match)``, best first, as :func:`act_term_step` dealt them) goes first when the fusion put it second, its
    evidence is firm (a term said whole, two of the question's ``words`` covered: :func:`serve.core.actterms.firm`),
    and the section's first work is no act the terms rank and rests on weaker evidence (:func:`weaker_first`;
    ``translated``: the publishers whose sections were searched through the cross-language lexicon). The fusion gives
    a keyword first place whatever stage found it; a translated keyword or a hit of some words only is the weaker
    reading of the question. Whether a section changed."""
    ranked = {work for work, _, _ in matched}
    changed = False
    for section in sections:
        hits = section.get("hits") or []
        publisher = str(section.get("publisher"))
        best = lone_best(matched, publisher)
        if len(hits) < 2 or best is None or str(hits[0].get("work")) in ranked:
            continue
        if str(hits[1].get("work")) != best[0] or not actterms.firm(best[1], words) \
                or not weaker_first(hits[0], publisher in translated):
            continue
        to_front(section, 1)
        changed = True
    return changed


#: The publishers whose sections :func:`act_term_over_first` reorders: EUR-Lex, whose technical acts (delegated and
#: implementing regulations, Commission acts) share their basic act's words and are asked by a specific subject only
#: their own terms say.
OVER_FIRST_PUBLISHERS = frozenset({"eu-eurlex"})
#: The least number of the question's content words for :func:`act_term_over_first` (a short question is most often an
#: act's name or field, which its keyword first work answers).
OVER_FIRST_WORDS = 5
#: How much more of the question (:attr:`serve.core.actterms.Match.coverage`) the act the terms rank best must cover
#: than the section's first work's own terms for :func:`act_term_over_first` to put it first.
OVER_FIRST_MARGIN = 0.2


def over_first(best: actterms.Match[Any], first_coverage: float, words: Sequence[str]) -> bool:
    """Whether the act the terms rank best (``best``) goes before a section's first work whose own terms cover
    ``first_coverage`` of the question: a question of at least :data:`OVER_FIRST_WORDS` content ``words``, firm
    evidence (a term said whole, two words covered: :func:`serve.core.actterms.firm`) and a coverage at least
    :data:`OVER_FIRST_MARGIN` above the first work's. Pure."""
    return len(words) >= OVER_FIRST_WORDS and actterms.firm(best, words) \
        and best.coverage - first_coverage >= OVER_FIRST_MARGIN


#: The share of the question's content words a first work's names must hold for it to keep its place against
#: :func:`act_term_over_first`: a question that is (nearly) an act's title asks for that act.
OVER_FIRST_TITLED = 0.75


def first_evidence(ctx: CallContext, publisher: str, work_id: str, words: Sequence[str]) -> tuple[float, float]:
    """What a section's first work (``work_id``, a lex work id of ``publisher``'s index) has for itself against the
    act the terms rank best (:func:`act_term_over_first`): the share of the question's content ``words`` its act terms
    cover, whole or in part (:func:`serve.core.actterms.partly_covered`; 0 with no term the question says), and the
    share of them its names hold (a word or one of its forms: :func:`serve.core.actterms.word_forms`)."""
    index = ctx.indexes.get(publisher)
    rowid = index.catalogue.rowid_of.get(work_id.split(":", 1)[-1]) if index is not None else None
    if index is None or rowid is None or not words:
        return 0.0, 0.0
    with index.session(ctx.deadline_seconds) as conn:
        terms = actterms.terms_of(conn, index)
        held = name_words(conn, [rowid], index)[rowid]
    covered = next((m.coverage for m in actterms.partly_covered(terms, words) if m.work == rowid), 0.0)
    titled = sum(1 for w in words if not held.isdisjoint(actterms.word_forms(w))) / len(words)
    return covered, titled


def act_term_over_first(ctx: CallContext, sections: list[Answer],
                        matched: Sequence[tuple[str, int, actterms.Match[int]]], words: Sequence[str]) -> bool:
    """In each section of :data:`OVER_FIRST_PUBLISHERS` (in place), the act the terms rank best of its publisher
    (``matched``, best first) goes first when it is listed below the first work, the first work names no act
    (:data:`NAMED_REASONS`) nor is titled by most of the question (:data:`OVER_FIRST_TITLED`), and the terms say the act
    clearly more than the first work's own terms (:func:`over_first`). A lawyer asks for a technical act by its specific subject ("minimum price increment for
    trading shares and ETFs on a trading venue"); the keywords find first the basic act or a sibling holding the
    procedural words in its body (MiFID II, another of its technical standards), whose terms say little of the
    question, while the act's own terms say it whole (« minimum price increment »). A first work whose terms say
    the question about as well keeps its place. Whether a section changed."""
    if len(words) < OVER_FIRST_WORDS:
        return False
    changed = False
    for section in sections:
        hits = section.get("hits") or []
        publisher = str(section.get("publisher"))
        if publisher not in OVER_FIRST_PUBLISHERS or len(hits) < 2:
            continue
        best = lone_best(matched, publisher)
        at = next((i for i, h in enumerate(hits) if best is not None and str(h.get("work")) == best[0]), None)
        if best is None or not at or not actterms.firm(best[1], words) or names_act(hits[0]):
            continue
        covered, titled = first_evidence(ctx, publisher, str(hits[0].get("work")), words)
        if titled >= OVER_FIRST_TITLED or not over_first(best[1], covered, words):
            continue
        to_front(section, at)
        changed = True
    return changed


#: The least share of the question (:attr:`serve.core.actterms.Match.coverage`) the act the terms rank first must cover
#: for :func:`act_term_clear_first` to put it first in its section …
CLEAR_COVERAGE = 0.3
#: … and how much more of it than each work its section lists before it (a work the terms do not rank covers none) …
CLEAR_MARGIN = 0.25
#: … in a question of at least this many content words (:func:`serve.core.actterms.question_words`): a shorter one
#: ("credit agreements for consumers", « congé pour raisons familiales ») reads as an act's title, and the keywords'
#: first work, whose title says it, is the better reading of it.
CLEAR_WORDS = 5


def act_term_clear_first(sections: list[Answer], matched: Sequence[tuple[str, int, actterms.Match[int]]],
                         words: Sequence[str], ctx: CallContext | None = None) -> bool:
    """Put the act the terms rank first (``matched[0]``: ``(lex work id, section position, match)``, best first, as
    :func:`act_term_step` dealt them) first in its section (in place) when the question has at least :data:`CLEAR_WORDS`
    content ``words``, the act is firm evidence (a term said whole, two of them covered:
    :func:`serve.core.actterms.firm`), covers at least :data:`CLEAR_COVERAGE` of the question, and covers
    :data:`CLEAR_MARGIN` more of it than every work its section lists before it, none of which names an act
    (:data:`NAMED_REASONS`). The fusion lets a keyword first work keep its place however little of the
    question the acts' own subject words give it; a clear lead of the terms is the better reading of a plain-word
    question (a specific règlement behind the law it executes, one act of a family of siblings). Whether a section
    changed."""
    if not matched or len(words) < CLEAR_WORDS:
        return False
    best = matched[0][2]
    if best.coverage < CLEAR_COVERAGE or not actterms.firm(best, words):
        return False
    if TIED_NO_LEAD and matched[0][0].split(":", 1)[0] in TIED_PUBLISHERS \
            and actterms.tied(best, [m for w, _, m in matched[1:] if _tied_pair(matched[0][0], w)]):
        return False
    return clear_lead(sections, matched, (lambda: own_coverages(ctx, matched[0][0], words)) if ctx is not None else None)


#: Whether :func:`act_term_clear_first` weighs each work listed before the act by its own terms' coverage of the
#: question (:func:`own_coverages`), not by none when the terms do not rank it among their first (ADR 0179).
CLEAR_OWN_COVERAGE = True


def own_coverages(ctx: CallContext, work_id: str, words: Sequence[str]) -> dict[str, float] | None:
    """With :data:`CLEAR_OWN_COVERAGE`, the share of the question's content ``words`` each act of ``work_id``'s
    publisher covers through its own terms, whole or in part (:func:`serve.core.actterms.partly_covered`; lex work
    ids; an act whose terms say none of them is left out), as :func:`first_evidence` reads a first work's: the terms
    rank only their first :data:`serve.core.actterms.DEPTH` acts, and a family's basic act listed first by the
    keywords may cover nearly as much of the question as the one they rank first. ``None`` without."""
    publisher = work_id.split(":", 1)[0]
    index = ctx.indexes.get(publisher)
    if not CLEAR_OWN_COVERAGE or index is None:
        return None
    with index.session(ctx.deadline_seconds) as conn:
        terms = actterms.terms_of(conn, index)
    slugs = index.catalogue.slug_of
    return {f"{publisher}:{slugs[m.work]}": m.coverage for m in actterms.partly_covered(terms, words) if m.work in slugs}


def clear_lead(sections: list[Answer], matched: Sequence[tuple[str, int, actterms.Match[int]]],
               own: Callable[[], Mapping[str, float] | None] | None = None) -> bool:
    """Put the act the terms rank first (``matched[0]``) first in the section listing it (in place) when it covers
    :data:`CLEAR_MARGIN` more of the question than every work the section lists before it (a work the terms do not rank
    covers its ``own`` coverage when given — :func:`own_coverages`, asked only when such a work is listed before the
    act — else none), none of which names an act (:data:`NAMED_REASONS`); the lead's other conditions are the caller's
    (:func:`act_term_clear_first`, :func:`act_term_titled_first`). Whether a section changed."""
    if not matched:
        return False
    work, _, best = matched[0]
    ranked = {w: m.coverage for w, _, m in matched}
    for section in sections:
        hits = section.get("hits") or []
        at = next((i for i, hit in enumerate(hits) if str(hit.get("work")) == work), None)
        if not at:
            continue
        before = hits[:at]
        own_of = own() if own is not None and any(str(h.get("work")) not in ranked for h in before) else None
        covered = {**(own_of or {}), **ranked}
        if any(best.coverage - covered.get(str(h.get("work")), 0.0) < CLEAR_MARGIN or names_act(h) for h in before):
            return False
        to_front(section, at)
        return True
    return False


#: The publishers whose acts :func:`act_term_titled_first` may put first: Legilux, whose titles say an act's matter in
#: a few words (« relatif à la carte d'identité », « sur les collectes à domicile »); a EUR-Lex title's subject is long
#: and shared by a family of acts (measured: with EUR-Lex the tuning file goes down, docs/retrieval-benchmark.md §8.138).
TITLED_FIRST_PUBLISHERS = frozenset({"lu-legilux"})
#: The least share of the act's title subject words (:func:`serve.core.ranking.title_subjects`, the shortest; stop
#: words left out) a short question must say for :func:`act_term_titled_first` …
TITLED_FIRST_SHARE = 0.6
#: … and the least number of such words (a one-word subject, « chasse », is a field, not an act's matter).
TITLED_FIRST_SUBJECT = 2


def title_said(subject: Collection[str], words: Sequence[str]) -> bool:
    """Whether a question's content ``words`` (:func:`serve.core.actterms.question_words`) say an act's title
    ``subject`` words (its shortest title subject): at least :data:`TITLED_FIRST_SUBJECT` of them, not
    :data:`serve.core.actterms.STOP` words, and :data:`TITLED_FIRST_SHARE` of them said in one of their forms
    (:func:`serve.core.actterms.word_forms`). Pure."""
    held = [w for w in dict.fromkeys(actterms.folded(s) for s in subject) if w not in actterms.STOP]
    if len(held) < TITLED_FIRST_SUBJECT:
        return False
    asked = frozenset(f for w in words for f in actterms.word_forms(w))
    said = sum(1 for w in held if not actterms.word_forms(w).isdisjoint(asked))
    return said >= TITLED_FIRST_SHARE * len(held) - 1e-9


def act_term_titled_first(ctx: CallContext, sections: list[Answer],
                          matched: Sequence[tuple[str, int, actterms.Match[int]]], words: Sequence[str]) -> bool:
    """The clear lead of the terms (:func:`act_term_clear_first`) in a question shorter than :data:`CLEAR_WORDS`
    content ``words`` (two at least), for an act of :data:`TITLED_FIRST_PUBLISHERS` whose own title the question says
    (:func:`title_said`): a short question reads as an act's title, and the keywords' first work is kept for it because
    its title is taken to say the question; when the act the terms rank first clearly (firm evidence, covering
    :data:`CLEAR_COVERAGE` of the question and :data:`CLEAR_MARGIN` more than each work before it) is also the act the
    question's words title (« durée de validité de la carte d'identité » and the règlement « relatif à la carte
    d'identité », listed below the immigration law), the title reading and the terms agree on it. Whether a section
    changed (in place)."""
    if not matched or not actterms.MIN_WORDS <= len(words) < CLEAR_WORDS:
        return False
    work, _, best = matched[0]
    if work.split(":", 1)[0] not in TITLED_FIRST_PUBLISHERS or best.coverage < CLEAR_COVERAGE \
            or not actterms.firm(best, words):
        return False
    return title_said(act_title_subject(ctx, work), words) and clear_lead(sections, matched)


def act_title_subject(ctx: CallContext, work: str) -> Collection[str]:
    """The shortest title subject words of a lex ``work`` id (:func:`works_title_subjects`, read once per mounted
    index); none for a work its publisher's index does not hold."""
    publisher, _, slug = work.partition(":")
    index = ctx.indexes.get(publisher)
    rowid = index.catalogue.rowid_of.get(slug) if index is not None else None
    if index is None or rowid is None:
        return ()
    with index.session(ctx.deadline_seconds) as conn:
        subjects = works_title_subjects(conn, [rowid], index).get(rowid)
    return subjects.shortest if subjects is not None else ()


#: The least share of the question (:attr:`serve.core.actterms.Match.coverage`) the act terms must cover, a term
#: said whole (:func:`serve.core.actterms.firm`), for an answer the keywords left empty to take the act
#: (:func:`act_term_answer`).
EMPTY_COVERAGE = 0.6


def act_term_answer(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan], words: Sequence[str],
                    args: dict[str, Any]) -> bool:
    """Answer a question the keywords left empty in every section from the act terms alone, on strong evidence:
    the acts whose terms cover at least :data:`EMPTY_COVERAGE` of the question, a term said whole with two of its
    words covered (:func:`serve.core.actterms.firm`), each as a work row (reason ``act_term``,
    ``matched_act_terms``) in its publisher's section, best coverage first, at most ``limit`` a section; with none
    such, the act the terms rank first alone when it leads clearly on several words (:func:`empty_lead`). A question
    on a subject no act is about says some act's terms only in part, or beside words no term covers (a share
    below the threshold), or beside a word no index holds that the act's terms leave out (a section's
    ``unknown_terms``: « tip » in "how much should I tip the organiser of my package travel" is what the question is
    about): it stays empty. Whether any section now has a hit (in place)."""
    unknown = held_nowhere(ctx, sections, plans, unknown_everywhere(sections))
    words, unknown = noun_words(ctx, sections, plans, words, unknown)
    found = act_term_matches(ctx, sections, plans, words)
    matched = [(work, position, m) for work, position, m in found
               if actterms.firm(m, words) and actterms.covers_words(m, unknown)
               and (m.coverage >= EMPTY_COVERAGE or framed_subject(ctx, sections, plans, m, words))]
    if not matched and found and (empty_lead(found[0][2], [m for _, _, m in found[1:]], words)
                                  or pair_lead(found[0][2], [m for _, _, m in found[1:]], words)
                                  or firm_lead(found[0][2], [m for _, _, m in found[1:]], words)
                                  or framed_in_part(ctx, sections, plans, found[0][2], [m for _, _, m in found[1:]],
                                                    words)) \
            and actterms.covers_words(found[0][2], unknown):
        matched = found[:1]
    if not matched:
        matched = compound_name_act(ctx, sections, plans, words, unknown)
    for position, section in enumerate(sections):
        wanted = [(work, m) for work, p, m in matched if p == position]
        rows = act_term_rows(ctx, section, wanted, words, args) if wanted else {}
        hits = [rows[work] for work, _ in wanted if work in rows][:args["limit"]]
        if hits:
            dealt_hits(section, hits)
    if not any(s.get("hits") for s in sections) and not (unknown and rare_body.HELD_ONLY):
        # a word no index holds is what the question is about: no act's provisions answer it
        rare_body_answer(ctx, sections, plans, actterms.question_words(args["query"]), args)
    return any(s.get("hits") for s in sections)


def rare_body_answer(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan], words: Sequence[str],
                     args: dict[str, Any]) -> bool:
    """An answer still empty after the act terms takes the one act whose provisions hold the most of the question's
    words rare in the whole corpus (:mod:`serve.core.ops.rare_body`: at least three, more than any other act; the act
    terms' coverage, said whole or in part, breaks a tie), as a work row (reason ``any_term``, ``rare_words``) in its publisher's
    section: "ban on destroying unsold clothing and footwear" — the ecodesign regulation's article on unsold
    consumer products. Whether a section now has a hit (in place); nothing with :data:`rare_body.RARE_BODY` off."""
    if not rare_body.RARE_BODY:
        return False
    searched = [(position, str(s.get("publisher"))) for position, s in enumerate(sections)
                if str(s.get("publisher")) in plans and str(s.get("publisher")) in ctx.indexes]
    docs: list[dict[str, int]] = []
    provisions = 0
    for _, publisher in searched:
        with ctx.indexes[publisher].session(ctx.deadline_seconds) as conn:
            docs.append(held_docs(conn, list(words)))
            provisions += provision_count(conn, 0)
    rare = rare_body.rare_words(docs, words, provisions)
    if len(rare) < rare_body.MIN_WORDS:
        return False
    held: dict[tuple[str, int], set[str]] = {}
    termed: dict[tuple[str, int], float] = {}
    for (_, publisher), counts in zip(searched, docs, strict=True):
        index = ctx.indexes[publisher]
        with index.session(ctx.deadline_seconds) as conn:
            for word in (w for w in rare if counts.get(w)):
                for work in rare_body.works_holding(conn, word):
                    held.setdefault((publisher, work), set()).add(word)
            # the act terms' coverage, said whole or in part, breaks a tie
            termed.update(((publisher, m.work), m.coverage)
                          for m in actterms.partly_covered(actterms.terms_of(conn, index), words))
    chosen = rare_body.leading_work({k: frozenset(v) for k, v in held.items()}, termed)
    if chosen is None:
        return False
    publisher, work = chosen
    position = next(p for p, pub in searched if pub == publisher)
    index = ctx.indexes[publisher]
    with index.session(ctx.deadline_seconds) as conn:
        filters = Filters((), args["language"], args["document_type"], None, _allowed_works(conn, index, args))
        if filters.allowed is not None and work not in filters.allowed:
            return False
        if filters.language and not _titled_in(conn, work, (), filters.language):
            return False
        hit = _work_row(conn, work, filters, ["any_term"])
        if hit is None:
            return False
        hit.extra["rare_words"] = [w for w in rare if w in held[chosen]]
        rows = shape_hits(conn, index, [hit], list(words))
    dealt_hits(sections[position], rows[:1])
    return True


#: Whether an answer the keywords left empty may take the act the terms rank first on a clear lead (:func:`empty_lead`;
#: issue #15, conlu50).
EMPTY_LEAD = True
#: The least number of the question's words the act the terms rank first must cover (a term said whole) for an answer the
#: keywords left empty to take it below :data:`EMPTY_COVERAGE` (:func:`empty_lead`) …
EMPTY_LEAD_WORDS = 3
#: … the least share of the question it must cover …
EMPTY_LEAD_COVERAGE = 0.3
#: … and how much more of it than the act the terms rank next.
EMPTY_LEAD_MARGIN = 0.15


def empty_lead(best: actterms.Match[Any], others: Sequence[actterms.Match[Any]], words: Sequence[str]) -> bool:
    """Whether an answer the keywords left empty takes the act the terms rank first (``best``; ``others``: the acts
    they rank after it) though it covers less than :data:`EMPTY_COVERAGE` of the question: firm evidence (a term said
    whole, :func:`serve.core.actterms.firm`) on at least :data:`EMPTY_LEAD_WORDS` of the question's content ``words``,
    at least :data:`EMPTY_LEAD_COVERAGE` of the question, and :data:`EMPTY_LEAD_MARGIN` more than any other act. A
    plain-word question holds words no act's terms say (« qui décide combien de cerfs et de sangliers les chasseurs
    doivent tirer chaque année »: « décide », « tirer », « année »), so the act its subject words name covers half
    of it; a question on a subject no act is about says one or two words of several acts' terms, not three of one act's
    alone. False with :data:`EMPTY_LEAD` off. Pure."""
    if not EMPTY_LEAD or len(best.words) < EMPTY_LEAD_WORDS or best.coverage < EMPTY_LEAD_COVERAGE or not actterms.firm(best, words):
        return False
    return all(best.coverage - m.coverage >= EMPTY_LEAD_MARGIN - 1e-9 for m in others)


#: Whether an answer the keywords left empty may take the one Union act whose terms say whole the German name of its
#: form a one-word question asks (:func:`compound_name_act`; issue #15, zh53).
COMPOUND_NAME = False
#: The endings of a German compound naming a Union act by its form, and the CELEX type letter of that form
#: (« Konzessionsrichtlinie »: a directive, ``l``; « Holzhandelsverordnung »: a regulation, ``r``).
COMPOUND_FORM_ENDINGS = (("richtlinien", "l"), ("richtlinie", "l"), ("verordnungen", "r"), ("verordnung", "r"))
#: The fewest letters a compound's modifier must have before its form's ending.
COMPOUND_MODIFIER_MIN = 4


def compound_form(word: str) -> str | None:
    """The CELEX type letter of the Union form a German compound ``word`` ends with (:data:`COMPOUND_FORM_ENDINGS`),
    its modifier at least :data:`COMPOUND_MODIFIER_MIN` letters long; ``None`` otherwise. Pure."""
    for ending, kind in COMPOUND_FORM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= COMPOUND_MODIFIER_MIN:
            return kind
    return None


def compound_name_act(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], words: Sequence[str],
                      unknown: Sequence[str]) -> list[tuple[str, int, actterms.Match[int]]]:
    """The act of a one-word question that is a German compound naming a Union act by its form (:func:`compound_form`:
    « Konzessionsrichtlinie ») and that no index's text holds (``unknown``): the one act whose reviewed terms say the
    whole compound (not its head alone: every directive's name ends in « Richtlinie »), held by a Union section and of
    that form (a directive's CELEX ``l``, a regulation's ``r``) — ``[(lex work id, section position, match)]``, else
    none. The German popular names of Union acts are no text's words (the German language versions are not held) but
    their act terms': « Konzessionsrichtlinie » is directive 2014/23/EU's. A Luxembourg act whose terms name the
    directive it carries out (« Vogelschutzrichtlinie » for a règlement on bird protection areas) is no directive;
    a name no act's terms say stays empty. Reads the act terms held in memory; none with :data:`COMPOUND_NAME` off."""
    if not COMPOUND_NAME or len(words) != 1 or [actterms.folded(w) for w in unknown] != list(words):
        return []
    word = words[0]
    kind = compound_form(word)
    if kind is None:
        return []
    whole = {f for f in actterms.word_forms(word) if len(f) > len(word) - 4}
    found = [(f"{publisher}:{index.catalogue.slug_of[m.work]}", position, m)
             for position, publisher, index, terms in planned_terms(ctx, sections, plans)
             for m in terms.covered(list(words)) if any(set(key.split(" ")) & whole for key in m.terms)]
    if len(found) != 1:
        return []
    work = found[0][0]
    publisher, _, slug = work.partition(":")
    celex = _CELEX_PRINCIPAL.fullmatch(slug)
    return found if publisher in EU_PUBLISHERS and celex is not None and celex.group(2) == kind else []


#: Whether an answer the keywords left empty may take the act the terms rank first on a clear lead over the acts the
#: terms firmly say (:func:`firm_lead`; issue #15, zh53).
FIRM_LEAD = False


def firm_lead(best: actterms.Match[Any], others: Sequence[actterms.Match[Any]], words: Sequence[str]) -> bool:
    """:func:`empty_lead` with the lead weighed over the other acts the terms firmly say only
    (:func:`serve.core.actterms.firm`: a term said whole, two words covered): an act matched by one word, or by a
    term the question says only in part, is no act the question is about, and the lead need not clear it ("how long
    does the maker of a smart device have to keep sending security updates": the Cyber Resilience Act's terms say
    "security updates" and "device"; a radio règlement's « long wave » and « sending » said in part come second,
    0.136 below). Three words, :data:`EMPTY_LEAD_COVERAGE` of the question and :data:`EMPTY_LEAD_MARGIN` over every
    firm act, as :func:`empty_lead`. False with :data:`FIRM_LEAD` off. Pure."""
    if not FIRM_LEAD:
        return False
    return empty_lead(best, [m for m in others if actterms.firm(m, words)], words)


#: Whether an answer the keywords left empty may take the act the terms rank first when they cover three of the
#: question's words at least in part and every word they leave out is a frame word (:func:`framed_in_part`; issue #15,
#: zh53).
FRAMED_IN_PART = False


def framed_in_part(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], best: actterms.Match[int],
                   others: Sequence[actterms.Match[int]], words: Sequence[str]) -> bool:
    """Whether the act the terms rank first (``best``; ``others``: the acts after it) is the act of an empty answer
    though no term of it is said whole: its terms cover at least :data:`EMPTY_LEAD_WORDS` of the question's words,
    whole or in part, more of the question than any other act, and every word they leave out is a frame word
    (:func:`framed_subject`: the subject is all in the terms). « chômage refusé : comment se réunit la commission qui
    réexamine la décision de l'ADEM, et les séances sont-elles publiques ? » — the règlement on the special
    re-examination commission, whose terms say « chômage complet réexamen » and « ADEM » in part; « réunit »,
    « séances », « publiques », « refusé » are words of every act. A question on a subject no act is about leaves
    its subject word out. False with :data:`FRAMED_IN_PART` off or for a firm act (:func:`act_term_answer` weighs it
    already)."""
    if not FRAMED_IN_PART or actterms.firm(best, words) or len(best.words) < EMPTY_LEAD_WORDS:
        return False
    if any(m.coverage >= best.coverage - 1e-9 for m in others):
        return False
    return framed_subject(ctx, sections, plans, best, words)


#: Whether an answer the keywords left empty may take the act the terms rank first on a clear lead over two words
#: (:func:`pair_lead`; issue #15, zh51).
PAIR_LEAD = True
#: How much more of the question than any other act the act the terms rank first must cover when it covers two of its
#: words (:func:`pair_lead`): the three-word lead's :data:`EMPTY_LEAD_MARGIN`.
PAIR_LEAD_MARGIN = EMPTY_LEAD_MARGIN


def pair_lead(best: actterms.Match[Any], others: Sequence[actterms.Match[Any]], words: Sequence[str]) -> bool:
    """Whether an answer the keywords left empty takes the act the terms rank first (``best``; ``others``: the acts they
    rank after it) on two of the question's content ``words``: a term of it said whole over both
    (:func:`serve.core.actterms.firm`), at least :data:`EMPTY_LEAD_COVERAGE` of the question, :data:`PAIR_LEAD_MARGIN`
    more than any other act, and no foreign place among the words it leaves out (« durée du mandat du bourgmestre de
    Bruxelles »: the place is what the question is about, as for :func:`frame_word`). « coupures publicitaires et
    parrainage des émissions à la télévision »: the règlement on advertising and sponsorship, whose terms say
    « parrainage » and « publicitaires » together and no other act's more than « télévision ». False with
    :data:`PAIR_LEAD` off. Pure."""
    if not PAIR_LEAD or len(best.words) != 2 or best.coverage < EMPTY_LEAD_COVERAGE or not actterms.firm(best, words):
        return False
    if any(w in FOREIGN_PLACES or w in PLACE_FIRST_WORDS for w in words if w not in best.words):
        return False
    return all(best.coverage - m.coverage >= PAIR_LEAD_MARGIN - 1e-9 for m in others)


#: Whether :func:`act_term_answer` weighs as absent only the words no searched index's vocabulary holds
#: (:func:`held_nowhere`; issue #15, zh51).
HELD_NOWHERE = True


def held_nowhere(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], unknown: Sequence[str]
                 ) -> list[str]:
    """Of the words the sections list as no index's (``unknown``: :func:`unknown_everywhere`), those no searched index's
    vocabulary holds as written: a section whose relaxation was not withheld says nothing of the words it was not
    asked of (« law *abolishing* the child bonus »: the Legilux section, searched in English, lists "abolishing"; the
    EUR-Lex texts hold it). One vocabulary look-up per index, only for those words; all of them with
    :data:`HELD_NOWHERE` off."""
    if not HELD_NOWHERE or not unknown:
        return list(unknown)
    left = list(unknown)
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        if index is None or publisher not in plans or not left:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            held = held_docs(conn, [actterms.folded(w) for w in left])
        left = [w for w in left if not held.get(actterms.folded(w))]
    return left


def nouns_for(held: Callable[[str], int], words: Sequence[str]) -> dict[str, str]:
    """Of the question's ``words``, those that read as a German verb whose noun in « -ung »
    (:func:`serve.core.actterms.verb_noun`) more acts' terms say than the verb's own forms (``held``: how many acts'
    terms hold a form of a word, at most), each with that noun: "melden" (2 acts' terms hold ``meld``) → ``meldung``
    (28). Pure (``held`` aside)."""
    return {w: noun for w in words if (noun := actterms.verb_noun(w)) is not None and held(noun) > held(w)}


def noun_words(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], words: Sequence[str],
               unknown: Sequence[str]) -> tuple[list[str], list[str]]:
    """The question's ``words`` and its ``unknown`` words (no index holds them) for :func:`act_term_answer`, a German verb
    read as its noun when the act terms say the noun more (:func:`nouns_for`): « Muss der Arzt *melden*, wenn
    jemand Masern hat » meets the règlement whose German terms say « Masern Meldung ». Only for an answer the keywords
    left empty: read in every answer, the nouns took acts before ones the keywords had right. As they are with
    :data:`serve.core.actterms.VERB_NOUNS` off or no word so read. Reads the act terms held in memory per mounted
    index."""
    if not actterms.VERB_NOUNS or not any(actterms.verb_noun(w) for w in words):
        return list(words), list(unknown)
    indexes = [terms for _, _, _, terms in planned_terms(ctx, sections, plans)]

    def held(word: str) -> int:
        return max((terms.df(f) for terms in indexes for f in actterms.word_forms(word)), default=0)
    nouns = nouns_for(held, words)
    if not nouns:
        return list(words), list(unknown)
    return ([nouns.get(w, w) for w in words],
            [nouns.get(actterms.folded(w), w) for w in unknown])


#: Whether :func:`act_term_answer` also takes an act whose terms cover less than :data:`EMPTY_COVERAGE` of the question
#: (at least :data:`FRAME_COVERAGE`) when every word they leave out is a word the law says often (:func:`framed_subject`;
#: issue #15, zh50).
FRAME_WORDS = True
#: The least share of the question the act terms must cover, a term said whole, for :func:`framed_subject`: half of
#: :data:`EMPTY_COVERAGE`.
FRAME_COVERAGE = 0.3
#: A word the act terms leave out is a frame word of the question ("give", "leave", « décider », « année ») when its
#: IDF weight in some searched index is below this: the weight above which an everyday word is rare in law
#: (:data:`EVERYDAY_MIN_IDF`, about 100 provisions of a full index).
FRAME_MAX_IDF = EVERYDAY_MIN_IDF


def frame_word(word: str, weights: Sequence[float]) -> bool:
    """Whether a question's ``word`` the act terms leave out is a frame word: its IDF ``weights`` (one per searched
    index; a word an index does not hold weighs nothing there) hold one below :data:`FRAME_MAX_IDF`, and it is no
    foreign place's name or first word (« Bruxelles » in « le mandat du bourgmestre de Bruxelles » is what the
    question is about, however often the law names it). Pure."""
    if word in FOREIGN_PLACES or word in PLACE_FIRST_WORDS:
        return False
    return any(w < FRAME_MAX_IDF for w in weights)


def framed_subject(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan],
                   match: actterms.Match[int], words: Sequence[str]) -> bool:
    """Whether an empty answer's act-term ``match`` (firm: :func:`serve.core.actterms.firm`) covers at least
    :data:`FRAME_COVERAGE` of the question and every question word it leaves out is a frame word the law says often
    (:func:`frame_word`, weighed in the vocabulary of every searched index): "how much notice must a tenant give to
    leave a rented flat" — the terms of the law on the lease say "tenant", "rented flat"; « notice », "give",
    "leave" are words of every act. A question on a subject no act is about leaves out its subject, a word the law
    rarely says or never (« permis de chasse aux licornes », "submarine parking permit", « bar à chats »): it
    stays empty. Reads the vocabulary of the sections' indexes for the words left out only (a few rows); false
    with :data:`FRAME_WORDS` off. Pure over the indexes."""
    if not FRAME_WORDS or match.coverage < FRAME_COVERAGE:
        return False
    left = [w for w in words if w not in match.words]
    if not left:
        return False
    weights: dict[str, list[float]] = {w: [] for w in left}
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        if index is None or publisher not in plans:
            continue
        said = frame_alternatives(plans[publisher], left)
        with index.session(ctx.deadline_seconds) as conn:
            total = provision_count(conn, 1)
            held = held_docs(conn, list(dict.fromkeys([*left, *(a for alts in said.values() for a in alts)])))
        for w in left:
            # a word the index does not hold is weighed in the words its section searched it as (its translations)
            docs = held.get(w) or max((held.get(a, 0) for a in said.get(w, ())), default=0)
            if docs:
                weights[w].append(math.log(1 + total / docs))
    return all(frame_word(w, weights[w]) for w in left)


#: Whether :func:`framed_subject` weighs a word a section's index does not hold in the words the section searched it
#: as (:func:`frame_alternatives`: a German or English question's translations into the French texts).
FRAME_TRANSLATED = True


def frame_alternatives(plan: Plan, words: Sequence[str]) -> dict[str, list[str]]:
    """The single words a section searched each of ``words`` (question words, :func:`serve.core.actterms.folded`) as
    when its plan translated it (``Plan.translations``; the alternatives of ``Plan.synonyms``): « Rechte » → « droit »,
    "give" → « donner »; none for a plan searched in the question's own words, or with :data:`FRAME_TRANSLATED`
    off. Pure."""
    if not FRAME_TRANSLATED or plan.translations is None or not plan.synonyms:
        return {}
    by_word = {actterms.folded(k): v for k, v in plan.synonyms.items()}
    return {w: [a for a in by_word[w] if " " not in a] for w in words if w in by_word}


#: Whether :func:`act_term_answer` weighs only the words every section lists as ``unknown_terms``
#: (:func:`unknown_everywhere`): a word of an English question the French texts of Legilux lack and the English texts
#: of EUR-Lex hold (« amount », « undergo ») is a word of the corpus the terms need not say, not a subject the
#: corpus has nothing on (issue #15, zh49).
UNKNOWN_EVERYWHERE = True


def section_words(section: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The words a section's index was asked whether it holds — its plan's terms (a phrase counted by each of its
    words) when its relaxation was withheld, for any reason (the words it lacks are weighed first:
    :func:`relaxation_withheld`); none when it was not withheld (nothing says what its index holds) — and those of
    them it lists as ``unknown_terms``. Pure."""
    withheld = section.get("relaxation_withheld")
    if not isinstance(withheld, Mapping) or not withheld.get("reason"):
        return [], []
    plan = section.get("query_plan")
    terms = plan.get("terms") if isinstance(plan, Mapping) else None
    searched = [w for t in terms or () for w in normalize(str(t)).split()]
    if withheld.get("reason") != "unknown_terms":
        return searched, []
    return searched, [w for t in withheld.get("terms") or () for w in normalize(str(t)).split()]


def unknown_everywhere(sections: Sequence[Mapping[str, Any]]) -> list[str]:
    """The words no section's index holds: those some section lists as ``unknown_terms`` that no section was asked of
    without listing them (:func:`section_words`; a section searching a translation of the question was not asked of
    its untranslated words, a section not withheld says nothing), in their first order; with
    :data:`UNKNOWN_EVERYWHERE` off, every word any section lists. Pure."""
    read = [section_words(s) for s in sections]
    listed = list(dict.fromkeys(w for _, unknown in read for w in unknown))
    if not UNKNOWN_EVERYWHERE:
        return listed
    held = {w for searched, unknown in read for w in searched if w not in unknown}
    return [w for w in listed if w not in held]


#: How much more of the question (:attr:`serve.core.actterms.Match.coverage`) the act the terms rank first must
#: cover than the first section's best term-matched act for :func:`act_term_lead` to put its section first.
LEAD_MARGIN = 0.15


def act_term_lead(sections: list[Answer], matched: Sequence[tuple[str, int, actterms.Match[int]]],
                  words: Sequence[str], query: str) -> bool:
    """Put the second section first (in place) when the act terms are firm evidence that its publisher holds the
    act asked for: the act the terms rank first (``matched[0]``, :func:`act_term_matches`; ``matched`` are
    ``(lex work id, section position, match)`` of the sections as dealt) is the second section's first work, a
    term of it said whole with two of the question's words covered (:func:`serve.core.actterms.firm`), its
    coverage :data:`LEAD_MARGIN` above the best term-matched act of the first section, and the first section's
    first work is no act the terms rank. What :func:`order_sections` decides for reasons the terms cannot
    judge stays: a question asking for a directive keeps EUR-Lex first, one asking for Luxembourg's own law
    Legilux (:func:`asks_eu_form`, :func:`serve.core.ranking.asks_own_law`, :func:`asks_of_country`), and a
    first section some of whose best works every word of the question names (:func:`routing_coverage` 1.0)
    stays before one whose works are not. The rule putting a section searched through translations after
    one answered in the question's words does not hold the lead against it: the terms are said in the
    question's own language. Whether the sections were reordered."""
    if len(sections) < 2 or not matched or not sections[0].get("hits") or not sections[1].get("hits"):
        return False
    work, position, best = matched[0]
    first, second = sections[0], sections[1]
    if position != 1 or str(second["hits"][0].get("work")) != work or not actterms.firm(best, words) \
            or str(first["hits"][0].get("work")) in {w for w, _, _ in matched}:
        return False
    ahead = max((m.coverage for _, p, m in matched if p == 0), default=0.0)
    if best.coverage - ahead < LEAD_MARGIN:
        return False
    if routing_coverage(first) == 1.0 and routing_coverage(second) != 1.0:
        return False
    tokens = normalize(parse_query(query).raw).split()
    asked = "eu-eurlex" if asks_eu_form(query) else \
        "lu-legilux" if ranking.asks_own_law(tokens) or asks_of_country(tokens) else None
    if asked is not None and second.get("publisher") != asked:
        return False
    sections[0], sections[1] = second, first
    return True


def best_coverage(section: Answer, matched: Sequence[tuple[str, int, actterms.Match[int]]],
                  words: Sequence[str] | None = None) -> float | None:
    """The best coverage of the acts of ``section``'s hits the terms rank (``matched``: ``(lex work id, section
    position, match)``), only those they firmly say when the question's ``words`` are given (a term said whole, two of
    them covered: :func:`serve.core.actterms.firm`); ``None`` when there is none. Pure."""
    listed = {str(h.get("work")) for h in section.get("hits") or []}
    found = [m.coverage for work, _, m in matched
             if work in listed and (words is None or actterms.firm(m, words))]
    return max(found) if found else None


#: The publishers whose section :func:`untranslated_lead` may put first: the Union's (EUR-Lex). A question that names
#: no Luxembourg marker is not asking for Luxembourg's own law (:func:`asks_of_country` and
#: :func:`serve.core.ranking.asks_own_law` are how it would), so the own country's section loses its lead there only.
UNMARKED_LEAD_PUBLISHERS = frozenset({"eu-eurlex"})


def untranslated_lead(sections: list[Answer], matched: Sequence[tuple[str, int, actterms.Match[int]]],
                      words: Sequence[str], query: str, translated: Collection[str]) -> bool:
    """Put the second section first (in place) when the first was searched through the cross-language lexicon
    (``translated``: an English or German question on French-only law), the question names no Luxembourg marker
    (:func:`serve.core.ranking.asks_own_law`, :func:`asks_of_country`), and the terms firmly say an act of the second
    section's hits (:func:`best_coverage`) covering at least as much of the question as any act of the first
    section's hits they rank, firmly or not (a term said in part counts: the first section's act is not outweighed),
    the second section being one of :data:`UNMARKED_LEAD_PUBLISHERS`. The first section's lead rests on translated words that may fit its act loosely
    ("closed period before annual results" read as « période », « résultats »), while the terms of both sections' acts
    are said in the question's own language: on evidence at least as firm, the section not led by translated words
    goes first (searched in the question's words, or translated as well: a German question on EUR-Lex, whose texts
    are English and French). Whether the sections were reordered (ADR 0169)."""
    if len(sections) < 2 or not sections[0].get("hits") or not sections[1].get("hits"):
        return False
    first, second = sections[0], sections[1]
    if str(first.get("publisher")) not in translated or str(second.get("publisher")) not in UNMARKED_LEAD_PUBLISHERS:
        return False
    ahead = best_coverage(second, matched, words)
    if ahead is None or ahead < (best_coverage(first, matched) or 0.0):
        return False
    tokens = normalize(parse_query(query).raw).split()
    if ranking.asks_own_law(tokens) or asks_of_country(tokens):
        return False
    sections[0], sections[1] = second, first
    return True


def act_term_rows(ctx: CallContext, section: Answer, wanted: Sequence[tuple[str, actterms.Match[int]]],
                  words: Sequence[str], args: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The public work rows (reason ``act_term``, ``matched_act_terms``: its terms the question says) of the
    ``wanted`` works of one section's index that its hits do not hold: each work's newest version of the
    document type asked, among the works the ``hierarchy`` and ``domain`` filters allow and titled in the ``language``
    asked, if any."""
    index = ctx.indexes[str(section.get("publisher"))]
    out: dict[str, dict[str, Any]] = {}
    with index.session(ctx.deadline_seconds) as conn:
        filters = Filters((), args["language"], args["document_type"], None, _allowed_works(conn, index, args))
        hits = []
        for work, match in wanted:
            if filters.allowed is not None and match.work not in filters.allowed:
                continue
            if filters.language and not _titled_in(conn, match.work, (), filters.language):
                continue  # the language filter holds on every lane: a work titled in that language
            hit = _work_row(conn, match.work, filters, ["act_term"])
            if hit is not None:
                hit.extra["matched_act_terms"] = actterms.said_terms(conn, match.work, match.terms[:3])
                hits.append((work, hit))
        for (work, _), row in zip(hits, shape_hits(conn, index, [h for _, h in hits], words), strict=True):
            out[work] = row
    return out


def ranked_answer(ctx: CallContext, args: dict[str, Any]) -> Answer:
    """The search of ``args`` ranked at ``args["limit"]`` (:func:`run` calls it at each depth)."""
    chosen = mounted_publisher(ctx, args["publisher"])
    if isinstance(chosen, dict):
        return chosen
    indexes = [chosen] if chosen is not None else ctx.ordered()
    if args["time_scope"] is None:
        args = {**args, "time_scope": "as_of" if args["as_of"] else "all_versions"}
    parsed = parse_query(args["query"])
    plans = {i.publisher.value: _plan(ctx, i, parsed, args) for i in indexes}
    # a question asking for Luxembourg's own law (or the act transposing a directive) is answered by
    # Legilux beside the EU act it names, never left out for it (ranking.asks_own_law)
    words = normalize(parsed.raw).split()
    own_law = ranking.asks_own_law(words)
    # a « loi … » question holding an EU short title softly still searches Legilux (ranking.asks_a_loi)
    loi_asked = ranking.asks_a_loi(words, [p.strong for p in plans.values()],
                                   [any(m.soft for m in p.mentions) for p in plans.values()])
    # a work named by an ordinary phrase (soft) still says which publisher the question is about,
    # unless the phrase is an ordinary-phrase short title standing alone (searchplan.Plan.names_publisher)
    if args["retrieval_mode"] in ("keyword", "hybrid") and not args["works"]:
        foreign_law_not_held(ctx, indexes, plans, parsed.raw)
        impossible_citation_not_held(indexes, plans, parsed.raw)
        named_act(ctx, indexes, plans, act_name(parsed.raw), fuzzy=args["fuzzy"] == "auto")
        dated_reference_not_held(indexes, plans, parsed.raw)
        dated_subject_not_held(ctx, indexes, plans, parsed.raw)
        form_subject_not_held(ctx, indexes, plans, parsed.raw)
        named_acronyms(indexes, plans, parsed.raw)
        transposing_laws(ctx, indexes, plans, own_law)
    someone_strong = any(p.names_publisher for p in plans.values())
    known = _known_anywhere(ctx, plans, args["language"]) if args["fuzzy"] == "auto" else set()
    translated_plans = {key: plan for key, plan in plans.items() if plan.translations is not None}
    if translated_plans:
        mark_unheld_words(indexes, translated_plans, known if args["fuzzy"] == "auto"
                          else _known_anywhere(ctx, translated_plans, args["language"]))

    memos: dict[str, dict[str, Any]] = {i.publisher.value: {} for i in indexes}
    # snippets of the last stage's sections, cut once routing has decided which sections answer
    later: dict[str, list[LaterSnippets]] = {}
    # per publisher, its last section and snippets when its lanes reached no branch the stage decides
    # (:attr:`Lexical.gates`): a later stage, of the same plans, answers that same section
    unstaged: dict[str, tuple[Answer, list[LaterSnippets]]] = {}
    # per section (its ``id``; every section stays alive until the answer), :attr:`Lexical.direct_titled`
    titled: dict[int, float | None] = {}
    # per section (its ``id``), its learnt reordering and captured candidates (serve.core.reorder)
    swaps: dict[int, Swap] | None = {} if reorder.wanted() else None

    def chance(section: Answer) -> bool:
        return chance_hits(section, titled.get(id(section)))

    def section_of(index: MountedIndex, stem: bool = False, relaxed: bool = False, legal_terms: bool = False,
                   last: bool = False) -> Answer:
        key = index.publisher.value
        kept = unstaged.get(key)
        if kept is not None:
            later[key] = kept[1]
            return kept[0]
        plan, later[key], gates = plans[key], [], set[str]()
        section = search_section(ctx, index, plan, args,
                                 suppressed=someone_strong and not plan.strong and not plan.boost and not args["works"]
                                 and not ((own_law or loi_asked) and key == "lu-legilux"),
                                 known=known, stem=stem, relaxed=relaxed, legal_terms=legal_terms, last=last,
                                 memo=memos[key],
                                 later=later[key],
                                 gates=gates, titled=titled, swaps=swaps)
        if not gates:
            unstaged[key] = (section, later[key])
        return section

    def sections_of(stem: bool = False, relaxed: bool = False, legal_terms: bool = False,
                    last: bool = False) -> list[Answer]:
        later.clear()
        return [section_of(i, stem, relaxed, legal_terms, last) for i in indexes]

    sections = sections_of()
    # Weaker queries are decided over the whole answer: a publisher's strict hits are not
    # diluted by another publisher's stemmed or relaxed ones (serve.core.relax). Lane results
    # are kept between stages (memos), and a stage is replaced only when it found fewer than
    # five exact hits, so shaping the replaced stage costs little (its snippets are never cut).
    auto = args["retrieval_mode"] in ("keyword", "hybrid") and args.get("relax", "auto") == "auto"
    relaxed_all = False
    if auto and _strict_hits(sections) < FUZZY_MIN_EXACT_HITS:
        sections = sections_of(stem=True)
        if not _strict_hits(sections):
            sections = sections_of(stem=True, relaxed=True)
            relaxed_all = True
    if auto and not relaxed_all:
        sections = _relax_translated(sections, indexes, plans, lambda i: section_of(i, stem=True, relaxed=True))
        sections = _relax_beside_untitled(sections, indexes, plans, lambda i: section_of(i, stem=True, relaxed=True),
                                          chance)
    if auto and not args["works"] and words_apart(ctx, indexes, plans, sections):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # every section answers no hits (``words_apart``, set on the plans)
    elif auto and not args["works"] and not any(s.get("hits") for s in sections) \
            and any(subjects.legal_terms(p.synonyms) for p in plans.values()):
        # no section answered: the lexicon's legal terms for the everyday words may (_reach_legal_terms)
        sections = sections_of(stem=True, relaxed=True, legal_terms=True)
    if auto and not args["works"] and empty_titled.EMPTY_TITLED and empty_titled.answers_nothing(sections, plans):
        # still no section answered: the acts whose names hold several of the question's words (ADR 0078)
        sections = sections_of(stem=True, relaxed=True, legal_terms=True, last=True)
    if auto and not args["works"] and absent_subject(
            ctx, indexes, plans, sections,
            lambda: known if args["fuzzy"] == "auto" else _known_anywhere(ctx, plans, args["language"])) \
            and not absent_words_termed(ctx, sections, plans, args["query"]):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # every section answers no hits (``subject_not_held``, set on the plans)
    if auto and not args["works"] and unheld_act_name(ctx, indexes, plans, sections, parsed.raw,
                                                      fuzzy=args["fuzzy"] == "auto"):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # every section answers no hits (``name_not_held``, set on the plans)
    if auto and not args["works"] and eu_act_unanswered(plans, sections, args["query"],
                                                        lambda: dated_own_act(ctx, sections, plans, args)):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # the other sections answer no hits (``eu_act_not_held``, set on the plans)
    if auto and not args["works"] and sigle_unanswered(ctx, indexes, plans, sections, parsed.raw):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # every section answers no hits (``sigle_not_held``, set on the plans)
    if len(sections) > 1 and not args["works"] and not someone_strong:
        route_sections(sections)
    if _SNIPPETS.get():
        cut_later(ctx.deadline_seconds, [group for section, i in zip(sections, indexes, strict=True)
                                         if section.get("hits") for group in later[i.publisher.value]])
    if args["retrieval_mode"] == "hybrid" and ctx.search_lane is not None:
        # the keyword sections above, fused per publisher with the attached lane
        sections = ctx.search_lane.fuse(ctx, indexes, plans, args, sections)
        if args.get("known_on") is not None:  # the lane's hits too: only those held then
            for s in (s for s in sections if s.get("publisher") in ctx.indexes):
                then = index_at(ctx.indexes[s["publisher"]], args["known_on"])
                s["hits"] = [h for h in s.get("hits") or [] if then.held_row(h)]
    merge.score_hits(sections)
    asked = None
    if len(sections) > 1:
        # a question naming Luxembourg is answered by Legilux first, as one asking for its law
        eu_form, own_asked = asks_eu_form(args["query"]), own_law or asks_of_country(words)
        sections = order_sections(sections, eu_form=eu_form, own_law=own_asked)
        asked = asked_publisher(eu_form, own_asked)
    if swaps:
        captured = reorder.CAPTURE.get()
        if captured is not None:
            captured.append({"query": args["query"], "limit": args["limit"], "sections": [
                {"publisher": s.get("publisher"),
                 "hits": [{k: h.get(k) for k in ("work", "version_key", "valid_from", "end_exclusive", "anchor")}
                          for h in s.get("hits") or []],
                 "candidates": (swaps[id(s)].captured if id(s) in swaps else None)} for s in sections]})
        if swapped(sections, swaps):
            merge.score_hits(sections)  # the rows a reordering brought in, scored on the one scale
        # the learnt order does not take the lead from the publisher the question names (kept_asked_first)
        sections = kept_asked_first(sections, learnt_order(sections, swaps), asked)
    if act_term_step(ctx, sections, plans, args):
        merge.score_hits(sections)  # the rows the act terms brought in, scored on the one scale
    if auto and not args["works"] and own_country_unanswered(plans, sections, args["query"]):
        unstaged.clear()  # the plans changed
        sections = sections_of()  # every section answers no hits (``own_law_not_held``, set on the plans)
    sibling_step(ctx, sections, args, plans)
    form_step(ctx, sections, args)
    dated_amendment_step(ctx, sections, args)
    title_parent_step(ctx, sections, args)
    titled_second_step(ctx, sections, plans, args)
    year_step(ctx, sections, args)
    dated_step(ctx, sections, plans, args)
    compilation_step(ctx, sections, args)
    if not code_body_step(ctx, sections, plans, args):
        body_second_step(ctx, sections, plans, args)
    merged = merge.merged(sections, args["limit"], lead=True)
    return fanout(ctx, sections, {"query": parsed.to_dict(), "merged": merged})


#: Whether :func:`sibling_step` runs (ADR 0162).
SIBLINGS = True
#: How many of the answer's first works (both publishers, in the order a reader meets them) :func:`sibling_step` reads
#: for the first work's siblings.
SIBLING_DEPTH = 10


def named_years(query: str) -> frozenset[str]:
    """The years a question names as an act's (:func:`serve.core.siblings.named_years`; the query parser's dates left
    out); none, and no parse, for a question holding no year."""
    normalized = normalize(query)
    if not any(ch.isdigit() for ch in normalized):
        return frozenset()
    return siblings.named_years(normalized, [normalize(d.text) for d in parse_query(query).dates])


def sibling_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any],
                 plans: Mapping[str, Plan] | None = None) -> bool:
    """The first section's first work gives way to a sibling of it (an act of its family listed among the answer's
    first :data:`SIBLING_DEPTH` works: :func:`serve.core.siblings.siblings`) whose own matter the question names
    (:func:`serve.core.siblings.sibling_first`): the words the family shares weigh nothing between them; or the first
    sibling whose names hold a year the question names as an act's, when the first's do not
    (:func:`serve.core.siblings.year_first`). The moved
    work takes the first place and the first work's score; the others keep their places' scores, one place down. The
    ``works`` filter and the provisions grain leave the answer as it was. A question searched in the section through
    the cross-language lexicon (its ``plans``' translations) is read with its words' French translations
    (:func:`sibling_forms`). Whether anything changed (in place)."""
    if not SIBLINGS or args["works"] or (args.get("result_grain") or "works") != "works" or not sections:
        return False
    words = actterms.question_words(args["query"])
    # a year the question names decides in a question of any length (« Richtlinie 2019 »); the words need three
    years = named_years(args["query"])
    if len(words) < siblings.MIN_WORDS and not years:
        return False
    listed = first_section_works(ctx, sections)
    if listed is None:
        return False
    section, publisher, index, works = listed
    with index.session(ctx.deadline_seconds) as conn:
        names = name_words(conn, works, index)
        subject = {w: siblings.subject_words(names[w]) for w in works}
        family = [w for w in works if w == works[0] or siblings.siblings(subject[works[0]], subject[w])]
        if len(family) < 2:
            return False
        terms = actterms.terms_of(conn, index)
    stems = siblings.term_forms(terms, words, family)
    forms = sibling_forms(plans.get(publisher) if plans is not None else None)
    begins = siblings.prefixes(words, forms)
    held = {w: siblings.vocabulary(subject[w], stems[w], begins) for w in family}
    best = siblings.sibling_first(words, family, held, lambda word: terms.weight(actterms.word_forms(word)),
                                  forms_of=forms)
    if years:
        ahead = [] if best is None else [best]
        dated = siblings.year_first(years, [*ahead, *(w for w in family if w not in ahead)], names)
        best = dated if dated is not None else best
    if best is None:
        return False
    return put_first(section, f"{publisher}:{index.catalogue.slug_of[best]}")


#: Whether :func:`sibling_step` reads a translated question's words with their French translations (ADR 0174).
TRANSLATED_SIBLINGS = True


def sibling_forms(plan: Plan | None) -> Callable[[str], frozenset[str]]:
    """How :func:`sibling_step` reads a question word's forms in a section: with :data:`TRANSLATED_SIBLINGS`, a
    section searched through the cross-language lexicon (``plan.translations``) reads each word with its French
    translations (:func:`serve.core.siblings.translated_forms`): an English or German word never meets a French-only
    act's names; any other section as :func:`serve.core.actterms.word_forms`. Pure over the plan."""
    if not TRANSLATED_SIBLINGS or plan is None or plan.translations is None:
        return actterms.word_forms
    translations: dict[str, list[str]] = {}
    for used in plan.translations.get("used") or ():
        translations.setdefault(actterms.folded(str(used["from"])), []).extend(str(t) for t in used.get("to") or ())
    return siblings.translated_forms(translations)


def first_section_works(ctx: CallContext, sections: Sequence[Answer]
                        ) -> tuple[Answer, str, MountedIndex, list[int]] | None:
    """The first section, its publisher and mounted index, and the row ids of its works among the answer's first
    :data:`SIBLING_DEPTH` works, in rank order: what :func:`sibling_step` and :func:`form_step` reorder. ``None`` when
    the section lists fewer than two hits or two works, its publisher is not mounted, or a listed work is not in the
    index's catalogue."""
    section = sections[0]
    publisher = str(section.get("publisher"))
    index = ctx.indexes.get(publisher)
    if len(section.get("hits") or []) < 2 or index is None:
        return None
    read = [h for h in merge.merged(list(sections), SIBLING_DEPTH, lead=True) if h.get("publisher") == publisher]
    rowids = [index.catalogue.rowid_of.get(str(h.get("work")).split(":", 1)[1]) for h in read]
    if len(rowids) < 2 or any(r is None for r in rowids):
        return None
    return section, publisher, index, [int(r) for r in rowids if r is not None]


#: Whether :func:`form_step` puts first the sibling of the form the question names (ADR 0168) …
FORM_SIBLINGS = True
#: … and the règlement executing the first law for a question on its implementing matter.
EXECUTING_SIBLINGS = True


def form_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any]) -> bool:
    """After :func:`sibling_step`: the first section's first work gives way to the first sibling of it (of the
    answer's first :data:`SIBLING_DEPTH` works) of the act form the question names when the first is not of it
    (:func:`serve.core.siblings.form_first`: « règlement sur les abus de marché » asks for the Regulation, not the
    Directive of that family); or, for a question on the matter a law leaves to its règlement (an amount, a tariff, a
    list, a form, the modalities: :func:`serve.core.siblings.asks_implementing_matter`), to the first règlement listed
    that executes the first law (:func:`serve.core.siblings.executing_first`, the parent by
    :func:`serve.core.ranking.parent_act`). The same ``works``, grain and place rules as :func:`sibling_step`.
    Whether anything changed (in place)."""
    if args["works"] or (args.get("result_grain") or "works") != "works" or not sections:
        return False
    words = normalize(args["query"]).split()
    types = siblings.named_form(siblings.form_words(args["query"])) if FORM_SIBLINGS else frozenset()
    executing = EXECUTING_SIBLINGS and siblings.asks_implementing_matter(words)
    if not types and not executing:
        return False
    listed = first_section_works(ctx, sections)
    if listed is None:
        return False
    section, publisher, index, works = listed
    best = None
    with index.session(ctx.deadline_seconds) as conn:
        kinds = document_types(conn, works)
        if types:
            names = name_words(conn, works, index)
            subject = {w: siblings.subject_words(names[w]) for w in works}
            family = [w for w in works if w == works[0] or siblings.siblings(subject[works[0]], subject[w])]
            best = siblings.form_first(types, family, kinds)
        if best is None and executing:
            profiles = ranking.profiles(conn, index)
            best = siblings.executing_first(works, kinds, lambda child: parent_of(conn, index, profiles, child))
    if best is None:
        return False
    return put_first(section, f"{publisher}:{index.catalogue.slug_of[best]}")


#: Whether :func:`compilation_step` puts a Legilux section's first act before a compilation listed first (issue #15,
#: ADR 0175).
COMPILATION_AFTER = True
#: The publishers whose sections :func:`compilation_step` reorders: Legilux, whose recueils and coordinated texts
#: (:func:`serve.core.ranking.role_of`: role ``compilation``) shelve or restate acts.
COMPILATION_PUBLISHERS = frozenset({"lu-legilux"})


def compilation_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any]) -> bool:
    """Last of the first-place steps: in a section of :data:`COMPILATION_PUBLISHERS` whose first work is a compilation
    (a recueil, a texte coordonné: role ``compilation``) that names no act of the question (:func:`names_act`), the
    first act listed after it goes first. A recueil shelves the texts of a subject and a coordinated text restates an
    act: a question in plain words asks for the act itself, which the compilation's words match because they are the
    act's. The same ``works``, grain and place rules as :func:`sibling_step`. Whether anything changed (in place)."""
    if not COMPILATION_AFTER or args["works"] or (args.get("result_grain") or "works") != "works":
        return False
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        hits = (section.get("hits") or [])[:SIBLING_DEPTH]
        if publisher not in COMPILATION_PUBLISHERS or index is None or len(hits) < 2 or names_act(hits[0]):
            continue
        rowids = [index.catalogue.rowid_of.get(str(h.get("work")).split(":", 1)[1]) for h in hits]
        with index.session(ctx.deadline_seconds) as conn:
            profiles = ranking.profiles(conn, index)
        roles = [profiles[r].role if r is not None and r in profiles else None for r in rowids]
        if roles[0] != "compilation":
            continue
        at = next((i for i, role in enumerate(roles) if role is not None and role != "compilation"), None)
        if at is not None:
            return put_first(section, str(hits[at].get("work")))
    return False


#: Whether :func:`code_body_step` puts first a code one of whose provisions holds as many of the question's words as
#: any provision of a first work that neither its title nor its act terms tie to the question (issue #15, ADR 0188).
CODE_BODY = True
#: The publishers whose sections :func:`code_body_step` reorders: Legilux, whose codes carry a title that names no
#: subject.
CODE_BODY_PUBLISHERS = frozenset({"lu-legilux"})
#: The document types :func:`code_body_step` puts first: Legilux's codified laws (the Civil, Commercial, Criminal,
#: Labour and Consumer Codes, the two Codes of procedure). A code's title says no matter of it, so the title lanes and
#: the title words never favour it; its matter stands in its articles. The recueils (``CODE_RECUEIL``) shelve other
#: acts' texts and are left to :func:`compilation_step`.
CODE_BODY_TYPES = frozenset({"CODE"})
#: The document types a first work may not have for :func:`code_body_step` to read its section.
CODE_BODY_FIRST_NOT = frozenset({"CODE", "CODE_RECUEIL"})
#: How many of the section's first works, among the answer's first :data:`SIBLING_DEPTH`, :func:`code_body_step`
#: reads (the first included).
CODE_BODY_DEPTH = 5
#: The most of the question's content words the first work's title subject may say …
CODE_BODY_TITLED = 1
#: … the fewest of them one provision of the code must hold …
CODE_BODY_LEAST = 2
#: … and how many fewer than the first work's fullest provision it may hold.
CODE_BODY_SLACK = 0
#: The fewest letters of a question word :func:`provision_words` reads.
CODE_BODY_MIN_LETTERS = 3
#: Whether :func:`code_body_step`, failing a code, puts a first work that neither its title nor its act terms tie to
#: the question after a later work the terms tie to it whose one provision holds as many of its words
#: (:func:`termed_over_untitled`).
TERMED_BODY = False
#: How many of the section's first works :func:`termed_over_untitled` reads (the first included).
TERMED_BODY_DEPTH = 3


def code_over_untitled(said: int, covered: float, held: tuple[int, int]) -> bool:
    """Whether a code listed after a section's first work goes before it: the first work's title subject says at most
    :data:`CODE_BODY_TITLED` of the question's content words (``said``), its act terms cover none of the question
    (``covered``), and one provision of the code holds at least :data:`CODE_BODY_LEAST` of the question's words and
    no fewer (but :data:`CODE_BODY_SLACK`) than the first work's fullest provision (``held``: first, code). A first
    work that neither its title nor its terms tie to the question came first on a field word of its title or on the
    words of its body; the code's title names none of its matters, so only its provisions can say that it holds the
    question's. Pure."""
    return said <= CODE_BODY_TITLED and covered <= 0.0 \
        and held[1] >= max(CODE_BODY_LEAST, held[0] - CODE_BODY_SLACK)


def termed_over_untitled(said: int, covered: tuple[float, float], held: tuple[int, int],
                         hierarchy: tuple[str | None, str | None]) -> bool:
    """Whether a later work of a section goes before a first work that neither its title nor its act terms tie to the
    question: the first's title subject says none of the question's content words (``said``) and its terms cover none
    of it, the later work's terms cover some (``covered``: first, later), one of its provisions holds at least
    :data:`CODE_BODY_LEAST` of the question's words and as many as the first's fullest provision (``held``: first,
    later), and it is no règlement or lesser act placed before a law (``hierarchy``: first, later). The first came
    first on the words of its body alone; the later work holds them as well and its terms say the question. Pure."""
    return said == 0 and covered[0] <= 0.0 < covered[1] and held[1] >= max(CODE_BODY_LEAST, held[0]) \
        and not (hierarchy[0] == "law" and hierarchy[1] != "law")


def provision_words(conn: sqlite3.Connection, work: int, words: Sequence[str]) -> int:
    """The most of ``words`` one lexical state of ``work`` (a provision's text in one of its versions) holds, each
    word or one of its held French forms (:func:`derive.index.analysis.word_forms`). A work's states are the row ids
    ``work * WORK_SPAN + n`` (:data:`derive.index.rows.WORK_SPAN`): the provision index is read over that range
    only."""
    low, high = work * WORK_SPAN, (work + 1) * WORK_SPAN - 1
    held: Counter[int] = Counter()
    for word in words:
        match = " OR ".join(fts_string(f) for f in dict.fromkeys([word, *analysis.word_forms(conn, word, "fr")]))
        held.update(int(r) for (r,) in conn.execute(
            "SELECT rowid FROM provision_fts WHERE provision_fts MATCH ? AND rowid BETWEEN ? AND ?",
            (match, low, high)))
    return max(held.values(), default=0)


def body_words(args: dict[str, Any], least: int) -> tuple[list[str], list[str]] | None:
    """The question's words and those of them long enough to read in provisions (:data:`CODE_BODY_MIN_LETTERS`), for
    the body steps (:func:`code_body_step`, :func:`body_second_step`): ``None`` when the call names works, asks
    another grain than works, or holds fewer than ``least`` such words. Pure."""
    if args["works"] or (args.get("result_grain") or "works") != "works":
        return None
    words = actterms.question_words(args["query"])
    body = [w for w in words if len(w) >= CODE_BODY_MIN_LETTERS]
    return (words, body) if len(body) >= least else None


def legilux_listed(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan],
                   depth: int) -> Iterator[tuple[Answer, MountedIndex, list[str], list[int]]]:
    """For the body steps: each section of :data:`CODE_BODY_PUBLISHERS` with two hits or more whose plan is a
    plain-word one (:func:`act_term_plan`), with its index, its first ``depth`` works as the answer lists them
    (of the answer's first :data:`SIBLING_DEPTH`) and their row ids; a section with fewer than two listed works or a
    work its catalogue does not hold is passed over."""
    read = merge.merged(list(sections), SIBLING_DEPTH, lead=True)
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        plan = plans.get(publisher)
        if publisher not in CODE_BODY_PUBLISHERS or index is None or len(section.get("hits") or []) < 2 \
                or (plan is not None and not act_term_plan(plan)):
            continue
        listed = list(dict.fromkeys(str(h.get("work")) for h in read if h.get("publisher") == publisher))[:depth]
        rowids = [index.catalogue.rowid_of.get(w.split(":", 1)[1]) for w in listed]
        if len(rowids) < 2 or any(r is None for r in rowids):
            continue
        yield section, index, listed, [int(r) for r in rowids if r is not None]


def code_body_step(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan],
                   args: dict[str, Any]) -> bool:
    """Last of the first-place steps: in a section of :data:`CODE_BODY_PUBLISHERS` whose first work is no code, the
    first code (:data:`CODE_BODY_TYPES`) among its next works (the section's first :data:`CODE_BODY_DEPTH` among the
    answer's first :data:`SIBLING_DEPTH`) goes first when the first work is neither titled nor termed on the question
    and one of the code's provisions holds as many of the question's words (:func:`code_over_untitled`): « combien de
    temps la police peut-elle me retenir » and the Code of criminal procedure listed below a règlement on the police of
    the waterways, whose title says « police ». Failing a code, a first work whose title says none of the question's
    words and whose terms cover none of it gives way to the first of the next works (the section's first
    :data:`TERMED_BODY_DEPTH`) that the terms tie to the question and one of whose provisions holds as many of its
    words (:func:`termed_over_untitled`, :data:`TERMED_BODY`). The same ``works``, grain and place rules as
    :func:`sibling_step`; a question naming an act (:func:`act_term_plan`) is left to the steps that read the name.
    Whether anything changed (in place)."""
    if not CODE_BODY or not ACT_TERMS or not sections:
        return False
    asked = body_words(args, CODE_BODY_LEAST)
    if asked is None:
        return False
    words, body = asked
    for section, index, listed, works in legilux_listed(ctx, sections, plans, CODE_BODY_DEPTH):
        with index.session(ctx.deadline_seconds) as conn:
            types = document_types(conn, works)
            codes = [i for i in range(1, len(works)) if types.get(works[i]) in CODE_BODY_TYPES]
            if types.get(works[0]) in CODE_BODY_FIRST_NOT:
                continue
            titles = works_title_subjects(conn, works[:1], index)
            said = titled_words(titles[works[0]].shortest if works[0] in titles else (), words)
        termed = TERMED_BODY and said == 0
        if said > CODE_BODY_TITLED or not (codes or termed):
            continue
        found = {work: m.coverage for work, _, m in act_term_matches(ctx, sections, plans, words)}
        covered = found.get(listed[0], 0.0)
        # the later works the terms tie to the question, read only when the first's title says none of its words
        later = [i for i in range(1, min(len(works), TERMED_BODY_DEPTH)) if found.get(listed[i], 0.0) > 0.0] \
            if termed else []
        if covered > 0.0 or not (codes or later):
            continue
        with index.session(ctx.deadline_seconds) as conn:
            first = provision_words(conn, works[0], body)
            for i in codes:
                if code_over_untitled(said, covered, (first, provision_words(conn, works[i], body))):
                    return put_first(section, listed[i])
            profiles = ranking.profiles(conn, index) if later else {}
            hierarchy = [profiles[r].hierarchy if r in profiles else None for r in works]
            for i in later:
                if not (hierarchy[0] == "law" and hierarchy[i] != "law") \
                        and termed_over_untitled(said, (covered, found.get(listed[i], 0.0)),
                                                 (first, provision_words(conn, works[i], body)),
                                                 (hierarchy[0], hierarchy[i])):
                    return put_first(section, listed[i])
    return False


#: Whether :func:`body_second_step` puts first a second Legilux work whose act terms cover more of the question and one
#: of whose provisions holds more of its words than any of the first's (issue #15, ADR 0188).
BODY_SECOND = False
#: How many more of the question's words the second work's fullest provision must hold than the first's.
BODY_SECOND_WORDS = 2


def body_second(covered: tuple[float, float], held: tuple[int, int],
                hierarchy: tuple[str | None, str | None]) -> bool:
    """Whether a section's second work goes before its first: its act terms cover more of the question
    (``covered``: first, second), its fullest provision holds at least :data:`BODY_SECOND_WORDS` more of the
    question's words than the first's (``held``: first, second; :func:`provision_words`), and it is no règlement or
    lesser act placed before a law (``hierarchy``). Two readings of the acts' own matter — what their reviewed terms
    say and what their provisions hold — agreeing against the keyword order, as :func:`titled_second` reads the title
    and the terms. Pure."""
    return covered[1] > covered[0] and held[1] - held[0] >= BODY_SECOND_WORDS \
        and not (hierarchy[0] == "law" and hierarchy[1] != "law")


def body_second_step(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan],
                     args: dict[str, Any]) -> bool:
    """After :func:`code_body_step`, when it moved nothing: in the Legilux section (:data:`CODE_BODY_PUBLISHERS`)
    whose first work is no code, the second work (of the answer's first :data:`SIBLING_DEPTH`) goes first when
    :func:`body_second` holds. The act terms are read only when the second work may go before the first by its
    hierarchy, the provisions only when the terms cover the second more. The same ``works``, grain and place rules as
    :func:`sibling_step`, and the same plain-word questions as :func:`code_body_step`. Whether anything changed (in
    place)."""
    if not BODY_SECOND or not ACT_TERMS or not sections:
        return False
    asked = body_words(args, BODY_SECOND_WORDS)
    if asked is None:
        return False
    words, body = asked
    for section, index, listed, works in legilux_listed(ctx, sections, plans, 2):
        with index.session(ctx.deadline_seconds) as conn:
            if document_types(conn, works[:1]).get(works[0]) in CODE_BODY_FIRST_NOT:
                continue
            profiles = ranking.profiles(conn, index)
        hierarchy = (profiles[works[0]].hierarchy if works[0] in profiles else None,
                     profiles[works[1]].hierarchy if works[1] in profiles else None)
        if hierarchy[0] == "law" and hierarchy[1] != "law":
            continue
        found = {work: m.coverage for work, _, m in act_term_matches(ctx, sections, plans, words)}
        covered = (found.get(listed[0], 0.0), found.get(listed[1], 0.0))
        if covered[1] <= covered[0]:
            continue
        with index.session(ctx.deadline_seconds) as conn:
            held = (provision_words(conn, works[0], body), provision_words(conn, works[1], body))
        if body_second(covered, held, hierarchy):
            return put_first(section, listed[1])
    return False


#: Whether :func:`titled_second_step` puts first a second work whose title and act terms both say more of the question
#: (issue #15, ADR 0175).
TITLED_SECOND = True
#: The publishers whose sections :func:`titled_second_step` reorders: Legilux, whose titles say an act's matter in a
#: few words.
TITLED_SECOND_PUBLISHERS = frozenset({"lu-legilux"})
#: How many more of the question's content words the second work's title subject must say than the first's …
TITLED_SECOND_WORDS = 2
#: … and how much more of the question (:attr:`serve.core.actterms.Match.coverage`) its act terms must cover.
TITLED_SECOND_MARGIN = 0.1


def titled_second(said: tuple[int, int], covered: tuple[float, float], code: bool) -> bool:
    """Whether a section's second work goes before its first: its title subject says at least
    :data:`TITLED_SECOND_WORDS` more of the question's content words than the first's (``said``: first, second), its
    act terms cover at least :data:`TITLED_SECOND_MARGIN` more of the question (``covered``: first, second; an act the
    terms do not rank covers none), and the first is no code (``code``: a code's title names none of its subjects).
    Two readings of the act's own matter agreeing against the first work's are stronger than the keyword order between
    two close works. Pure."""
    return not code and said[1] - said[0] >= TITLED_SECOND_WORDS \
        and covered[1] - covered[0] >= TITLED_SECOND_MARGIN - 1e-9


def titled_second_step(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan],
                       args: dict[str, Any]) -> bool:
    """After :func:`form_step`: in a section of :data:`TITLED_SECOND_PUBLISHERS`, the second work goes first when its
    title says more of the question and its act terms cover more of it than the first work's (:func:`titled_second`):
    « établissement public qui construit des logements à coût modéré » and the law on the Fonds du logement
    (« logements à coût modéré ») listed below the law on affordable housing. The act terms are read only when the
    titles already differ. The same ``works``, grain and place rules as :func:`sibling_step`. Whether anything
    changed (in place)."""
    if not TITLED_SECOND or not ACT_TERMS or args["works"] or (args.get("result_grain") or "works") != "works":
        return False
    words = actterms.question_words(args["query"])
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        hits = section.get("hits") or []
        if publisher not in TITLED_SECOND_PUBLISHERS or index is None or len(hits) < 2:
            continue
        pair = [str(h.get("work")) for h in hits[:2]]
        rowids = [index.catalogue.rowid_of.get(w.split(":", 1)[1]) for w in pair]
        if pair[0] == pair[1] or any(r is None for r in rowids):
            continue
        first, second = (int(r) for r in rowids if r is not None)
        with index.session(ctx.deadline_seconds) as conn:
            titles = works_title_subjects(conn, [first, second], index)
            said = tuple(titled_words(titles[r].shortest if r in titles else (), words) for r in (first, second))
            if said[1] - said[0] < TITLED_SECOND_WORDS:
                continue
            code = document_types(conn, [first]).get(first) == "CODE"
        found = {work: m.coverage for work, _, m in act_term_matches(ctx, sections, plans, words)}
        if titled_second((said[0], said[1]), (found.get(pair[0], 0.0), found.get(pair[1], 0.0)), code):
            return put_first(section, pair[1])
    return False


#: Whether :func:`year_step` puts first the act of the year a plain-word question names (issue #15, ADR 0175).
YEAR_ACTS = True
#: The publishers whose sections :func:`year_step` reorders: Legilux, whose slugs carry the act's own date.
YEAR_PUBLISHERS = frozenset({"lu-legilux"})


def question_year(query: str) -> str | None:
    """The one year a question names as an act's (:func:`serve.core.actyears.asked_year`; the query parser's dates
    left out); none, and no parse, for a question holding no digit."""
    normalized = normalize(query)
    if not any(ch.isdigit() for ch in normalized):
        return None
    return asked_year(normalized, [normalize(d.text) for d in parse_query(query).dates])


def titled_words(subject: Collection[str], words: Sequence[str]) -> int:
    """How many of a question's content ``words`` (:func:`serve.core.actterms.question_words`) an act's title
    ``subject`` words say, a word or one of its forms (:func:`serve.core.actterms.word_forms`). Pure."""
    held = frozenset(f for w in subject for f in actterms.word_forms(actterms.folded(w)))
    return sum(1 for w in words if not held.isdisjoint(actterms.word_forms(w)))


def year_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any]) -> bool:
    """After :func:`form_step`: in a section of :data:`YEAR_PUBLISHERS`, the first work gives way to the first work of
    the year the question names (:func:`question_year`; a Legilux act's year is its slug's,
    :func:`serve.core.actyears.slug_year`) among the section's works of the answer's first :data:`SIBLING_DEPTH`, when
    the first work is of another year and that act's title says at least as many of the question's words
    (:func:`serve.core.actyears.dated_first`): « régime des indemnités des employés de l'État fixé en 1974 » asks for
    the act of 1974, not the later law on the same matter. The same ``works``, grain and place rules as
    :func:`sibling_step`; an ``as_of`` question's year is the day it asks about. Whether anything changed (in
    place)."""
    if not YEAR_ACTS or args["works"] or (args.get("result_grain") or "works") != "works" or not sections \
            or args["time_scope"] == "as_of":
        return False
    year = question_year(args["query"])
    if year is None:
        return False
    read = merge.merged(list(sections), SIBLING_DEPTH, lead=True)
    for section in sections:
        publisher = str(section.get("publisher"))
        index = ctx.indexes.get(publisher)
        if publisher not in YEAR_PUBLISHERS or index is None or len(section.get("hits") or []) < 2:
            continue
        slugs = [str(h.get("work")).split(":", 1)[1] for h in read if h.get("publisher") == publisher]
        rowids = [index.catalogue.rowid_of.get(s) for s in slugs]
        listed = [int(r) for r in rowids if r is not None]
        if len(listed) < 2 or len(listed) != len(rowids):
            continue
        year_of = {r: slug_year(s) for r, s in zip(listed, slugs, strict=True)}
        if year_of[listed[0]] == year or year not in year_of.values():
            continue
        words = actterms.question_words(args["query"])
        with index.session(ctx.deadline_seconds) as conn:
            titles = works_title_subjects(conn, listed, index)
        said = {r: titled_words(titles[r].shortest if r in titles else (), words) for r in listed}
        best = dated_first(year, listed, year_of, said)
        if best is not None:
            return put_first(section, f"{publisher}:{index.catalogue.slug_of[best]}")
    return False


def document_types(conn: sqlite3.Connection, works: Sequence[int]) -> dict[int, str | None]:
    """Each work's publisher document type (``RGD``, ``LOI``, ``DIR``, ``REG_IMPL`` …)."""
    return {int(w): (str(t) if t is not None else None) for w, t in conn.execute(
        f"SELECT work_rowid, document_type FROM works WHERE work_rowid IN ({','.join(map(str, works))})")}


def parent_of(conn: sqlite3.Connection, index: MountedIndex, profiles: dict[int, ranking.WorkProfile],
              child: int) -> int | None:
    """The principal act ``child`` executes or modifies (:func:`serve.core.ranking.parent_act`), remembered per
    mounted index (:data:`RELATED_REMEMBERED` at most), as :func:`parents_first` reads it."""
    known = _PARENTS.setdefault(index, {})
    if child not in known:
        if len(known) >= RELATED_REMEMBERED:
            known.clear()
        known[child] = ranking.parent_act(
            ranking.cited_works(conn, child, index.catalogue.rowid_of, index.publisher.value)
            if ranking.subordinate(profiles.get(child)) else (), profiles, child)
    return known[child]


def put_first(section: Answer, wanted: str) -> bool:
    """Move the hit of work ``wanted`` to the section's first place; it takes the first's score, the others keep
    their places' scores, one place down (as :func:`sibling_step`). Whether it was listed."""
    hits = section.get("hits") or []
    at = next((i for i, h in enumerate(hits) if str(h.get("work")) == wanted), None)
    if at is None or at == 0:
        return False
    scores = [h.get("score") for h in hits]
    dealt_hits(section, [hits[at], *hits[:at], *hits[at + 1:]])
    for hit, score in zip(section["hits"], scores, strict=True):
        if score is not None:
            hit["score"] = score
    return True


#: Whether :func:`dated_amendment_step` runs (ADR 0173).
DATED_AMENDMENTS = True
#: The publishers whose first work :func:`dated_amendment_step` reads (EUR-Lex: its official titles name the act an
#: act amends, supplements or implements by number).
DATED_AMENDMENT_PUBLISHERS = frozenset({"eu-eurlex"})
#: An EU act cited by its number in a normalised official title: the form, the qualifiers a title writes before the
#: number (« (EU) No », « (EEC) », « CE »), then the number's two parts (``regulation eu no 575 2013``, ``directive
#: 2014 65 eu``, ``reglement ue 2016 1011``).
_TITLE_CITED = re.compile(
    r"\b(?:regulation|directive|decision|reglement|richtlinie|verordnung|beschluss)\s+"
    r"(?:(?:eu|ec|eec|euratom|ecsc|ue|ce|cee|eg|ewg|no|n|nr)\s+)*(\d+)\s+(\d+)\b")


def title_cited(title: str, own: str | None, numbered: Mapping[str, int]) -> list[int]:
    """The held acts a normalised EUR-Lex official title names by their numbers (``numbered``:
    :func:`serve.core.ranking.cited_number` → work), in the order it names them, its own number (``own``) left out:
    ``commission implementing regulation eu 2020 125 … amending implementing regulation eu no 945 2014 …`` → 945/2014.
    Pure."""
    out: list[int] = []
    for found in _TITLE_CITED.finditer(title):
        number = f"{found.group(1)} {found.group(2)}"
        if number != own and number in numbered and numbered[number] not in out:
            out.append(numbered[number])
    return out


class TitleCitations(NamedTuple):
    """Per EUR-Lex work, the held acts its official title names, in its order (``named``: the first is the act it
    amends, supplements or implements), and per act the works whose titles name it (``naming``, row ids ascending)."""
    named: dict[int, tuple[int, ...]]
    naming: dict[int, tuple[int, ...]]


def title_citations(conn: sqlite3.Connection, catalogue: Catalogue) -> TitleCitations:
    """:class:`TitleCitations` of an index, read from each work's longest English official title (else its longest
    one): one pass over the titles, kept per mounted index (:func:`dated_amendment_step`)."""
    numbered = {n: w for w, slug in catalogue.slug_of.items() if (n := ranking.cited_number(slug)) is not None}
    longest: dict[int, tuple[bool, int, str]] = {}
    for rowid, language, value in conn.execute(
            "SELECT work_rowid, language, normalized FROM work_names WHERE kind = 'official_title'"):
        key = (language == "en", len(str(value)), str(value))
        if key > longest.get(int(rowid), (False, -1, "")):
            longest[int(rowid)] = key
    named: dict[int, tuple[int, ...]] = {}
    naming: dict[int, list[int]] = {}
    for rowid in sorted(longest):
        slug = catalogue.slug_of.get(rowid)
        cited = title_cited(longest[rowid][2], ranking.cited_number(slug) if slug else None, numbered)
        if cited:
            named[rowid] = tuple(cited)
        for work in cited:
            naming.setdefault(work, []).append(rowid)
    return TitleCitations(named, {w: tuple(v) for w, v in naming.items()})


def citations(index: MountedIndex) -> TitleCitations:
    """:func:`title_citations` of a mounted index, read once."""
    return index.memo("title_citations", lambda conn: title_citations(conn, index.catalogue))


def act_dates(conn: sqlite3.Connection, index: MountedIndex, works: Sequence[int]
              ) -> dict[int, tuple[frozenset[str], int | None]]:
    """Each work's own years and month (:func:`serve.core.siblings.act_date`), read from its slug and its longest
    official title."""
    titles: dict[int, str] = {}
    for rowid, value in conn.execute(
            f"SELECT work_rowid, normalized FROM work_names WHERE kind = 'official_title' "
            f"AND work_rowid IN ({','.join(map(str, works))})"):
        if len(str(value)) > len(titles.get(int(rowid), "")):
            titles[int(rowid)] = str(value)
    return {w: siblings.act_date(index.catalogue.slug_of.get(w, ""), titles.get(w, "")) for w in works}


def cited_section(ctx: CallContext, sections: Sequence[Answer], args: dict[str, Any]
                  ) -> tuple[Answer, str, MountedIndex, list[dict[str, Any]]] | None:
    """The first section, its publisher, mounted index and hits, when the steps that read the acts a title names
    (:func:`dated_amendment_step`, :func:`title_parent_step`) may reorder it: a works-grain answer with no ``works``
    filter, ``known_on`` day or ``as_of`` date whose first section is of :data:`DATED_AMENDMENT_PUBLISHERS`, mounted,
    and lists a hit; else ``None``."""
    if args["works"] or args.get("known_on") is not None or args["time_scope"] == "as_of" \
            or (args.get("result_grain") or "works") != "works" or not sections:
        return None
    section = sections[0]
    publisher = str(section.get("publisher"))
    index = ctx.indexes.get(publisher)
    hits = section.get("hits") or []
    if publisher not in DATED_AMENDMENT_PUBLISHERS or index is None or not hits:
        return None
    return section, publisher, index, hits


def dated_amendment_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any]) -> bool:
    """A question asking for a change of an act (:func:`serve.core.siblings.asks_amendment`: "2020 update", « Änderung
    2019 ») by a year it names as an act's (:func:`named_years`; not one inside an act's number,
    :func:`serve.core.siblings.numbered_years`) that the first work's own date does not bear: the act of that year
    (and month, when the question names one before the year) whose official title names the first work (its
    amendment, :class:`TitleCitations`), else one naming the act the first work's title names first (the first
    work's fellow amendment), comes first (:func:`serve.core.siblings.dated_member`). Listed further down, it moves
    up; not listed, it comes in as a work row (reason ``dated_amendment``); it takes the first place's score and the
    others keep their places' scores, one place down (the section keeps ``limit`` works). The first section of
    :data:`DATED_AMENDMENT_PUBLISHERS` only; the ``works`` filter, a ``known_on`` day, an ``as_of`` date and the
    provisions grain leave the answer as it was. Whether anything changed (in place)."""
    found = cited_section(ctx, sections, args) if DATED_AMENDMENTS else None
    if found is None:
        return False
    section, publisher, index, hits = found
    words = normalize(args["query"]).split()
    if not siblings.asks_amendment(words):
        return False
    years = named_years(args["query"]) - siblings.numbered_years(args["query"])
    first = index.catalogue.rowid_of.get(str(hits[0].get("work")).split(":", 1)[-1])
    if not years or first is None:
        return False
    cited = citations(index)
    amending = list(cited.naming.get(first, ()))
    target = next(iter(cited.named.get(first, ())), None)
    fellows = [w for w in ((target, *cited.naming.get(target, ())) if target is not None else ()) if w != first]
    with index.session(ctx.deadline_seconds) as conn:
        dates = act_dates(conn, index, [first, *amending, *fellows])
        if not dates[first][0].isdisjoint(years):
            return False
        listed = [index.catalogue.rowid_of.get(str(h.get("work")).split(":", 1)[-1]) for h in hits]
        asked = actterms.question_words(args["query"])
        pooled = [w for w in (*amending, *fellows) if not dates[w][0].isdisjoint(years)]
        names = name_words(conn, pooled, index) if pooled else {}
        held = {w: sum(1 for word in asked if word in names[w]) for w in pooled}
        best = siblings.dated_member(years, siblings.named_months(words, years), [amending, fellows], dates, held,
                                     [w for w in listed if w is not None])
        if best is None:
            return False
        wanted = f"{publisher}:{index.catalogue.slug_of[best]}"
        if best in listed:
            return put_first(section, wanted)
        row = brought_row(conn, index, best, args, "dated_amendment", words)
    if row is None:
        return False
    return deal_keeping_scores(section, [row, *hits][:max(len(hits), args["limit"])])


#: Whether :func:`title_parent_step` runs (ADR 0173).
TITLE_PARENT_SECOND = True


#: Whether :func:`basic_act` takes the act a title names first, whatever its role (the act an amendment amends, which
#: may itself be a delegated or implementing act), rather than the first principal act it names.
FIRST_NAMED_ACT = True


def basic_act(named: Sequence[int], profiles: Mapping[int, ranking.WorkProfile]) -> int | None:
    """The act a subordinate EUR-Lex work's title says it amends, supplements or implements (``named``:
    :attr:`TitleCitations.named`): the first it names (:data:`FIRST_NAMED_ACT`), else the first principal act it
    names; never a corrigendum. Pure."""
    for work in named:
        profile = profiles.get(work)
        if profile is None or profile.role == "corrigendum":
            continue
        if FIRST_NAMED_ACT or profile.role == "principal":
            return work
    return None


def title_parent_step(ctx: CallContext, sections: list[Answer], args: dict[str, Any]) -> bool:
    """The first section's first work, when it is a EUR-Lex amending, delegated or implementing act
    (:func:`serve.core.ranking.subordinate`), is followed by the act its official title says it amends, supplements or
    implements (« … supplementing Directive 2014/65/EU … », « … amending Implementing Regulation (EU) 2015/2378 … »:
    :func:`basic_act`). A question a technical act or an amendment answers asks about that act's matter; it is the act
    its reader needs next. Listed further down, it moves
    up; not listed, it comes in as a work row (reason ``parent_act``); the places keep their scores, one place down
    after the first (the section keeps ``limit`` works). Nothing moves when the second work is already an act the
    first's title names. The same publishers, filters and grain as :func:`dated_amendment_step`. Whether anything
    changed (in place)."""
    found = cited_section(ctx, sections, args) if TITLE_PARENT_SECOND else None
    if found is None:
        return False
    section, _, index, hits = found
    listed = [index.catalogue.rowid_of.get(str(h.get("work")).split(":", 1)[-1]) for h in hits]
    first = listed[0]
    named = citations(index).named.get(first, ()) if first is not None else ()
    if first is None or not named or (len(listed) > 1 and listed[1] in named):
        return False
    with index.session(ctx.deadline_seconds) as conn:
        profiles = ranking.profiles(conn, index)
        if not ranking.subordinate(profiles.get(first)):
            return False
        parent = basic_act(named, profiles)
        if parent is None:
            return False
        if parent in listed:
            at = listed.index(parent)
            rows = [hits[0], hits[at], *hits[1:at], *hits[at + 1:]]
        else:
            row = brought_row(conn, index, parent, args, "parent_act", normalize(args["query"]).split())
            if row is None:
                return False
            rows = [hits[0], row, *hits[1:]][:max(len(hits), args["limit"])]
    return deal_keeping_scores(section, rows)


#: Whether :func:`dated_step` puts first the act of the year a question names (ADR 0174).
DATED_ACTS = True
#: The publishers whose identifiers carry each act's day (``rgd-2024-11-07-a452``), read by :func:`dated_step`.
DATED_PUBLISHERS = frozenset({"lu-legilux"})
#: How many of a section's first works :func:`dated_step` reads for the act a dated act amends or executes, and for
#: its family.
DATED_LISTED = 3


def dated_groups(plan: Plan) -> tuple[list[dated.WordGroup], list[dated.WordGroup]]:
    """The word groups of a section's plan an act's names are read for (:class:`serve.core.dated.WordGroup`), and those
    that count only where held: a translated question's translated words, each with its French translations
    (``query_plan.translations``), then its search words kept as written (a word French shares, « nomenclature »,
    "pension", or a compound's part nothing translates: counted for an act whose names hold it); an untranslated
    question's search words. Digits, month names and :data:`serve.core.actterms.STOP` words left out. Pure."""
    def content(word: str) -> bool:
        return len(word) > 2 and word not in actterms.STOP and word not in MONTH_NUMBERS \
            and not any(ch.isdigit() for ch in word)

    if plan.translations is None:
        return [dated.word_group(t) for t in dict.fromkeys(plan.terms) if content(t)], []
    used = [u for u in plan.translations.get("used") or () if content(str(u["from"]))]
    translated = {str(u["from"]) for u in plan.translations.get("used") or ()}
    return ([dated.word_group(str(u["from"]), [str(t) for t in u.get("to") or ()]) for u in used],
            [dated.word_group(t) for t in dict.fromkeys(plan.terms) if content(t) and t not in translated])


def dated_pick(ctx: CallContext, sections: Sequence[Answer], plans: Mapping[str, Plan], args: dict[str, Any]
               ) -> tuple[Answer, int] | None:
    """The section and the act (its row id in the section's index) :func:`dated_step` puts first, or ``None``: the
    act of the year a question names whose names hold the most of its word groups (:func:`dated_step` tells how).
    Reads the names of the acts of that year and form."""
    if not DATED_ACTS or args["works"] or args.get("known_on") is not None \
            or (args.get("result_grain") or "works") != "works" or not sections:
        return None
    if not all(act_term_plan(p) for p in plans.values()):
        return None
    raw = str(args["query"])
    normalized = normalize(raw)
    if not any(ch.isdigit() for ch in normalized):
        return None
    year = dated.act_year(raw, normalized, [normalize(d.text) for d in parse_query(raw).dates])
    if year is None or dated.asks_eu_form(normalized.split(), LU_ASKED_WORDS):
        return None
    section = next((s for s in sections if s.get("publisher") in DATED_PUBLISHERS and s.get("hits")), None)
    if section is None:
        return None
    publisher = str(section["publisher"])
    index, plan = ctx.indexes.get(publisher), plans.get(publisher)
    if index is None or plan is None:
        return None
    groups, written = dated_groups(plan)
    if len(groups) + len(written) < dated.MIN_HELD:
        return None
    month = dated.named_month(normalized, year)
    slugs = index.catalogue.slug_of
    candidates = dated.same_day_works(_works_by_form_year(index), year, month, lambda w: _slug_month(slugs[w]))
    if not candidates:
        return None
    wanted = dated.wanted_forms([*groups, *written])
    hits = section.get("hits") or []
    listed = [r for r in (index.catalogue.rowid_of.get(str(h.get("work")).split(":", 1)[1])
                          for h in hits[:DATED_LISTED]) if r is not None]
    with index.session(ctx.deadline_seconds) as conn:
        names = name_words(conn, [*candidates, *listed], index)
        forms = {w: dated.name_forms(names[w], wanted) for w in candidates}
        # a word kept as written counts for an act whose names hold it (a French word the question shares)
        kept = {w: sum(1 for g in written if g.held(forms[w])) for w in candidates}
        cited = {x: dated.day_citation(slugs[x]) for x in listed}
        best = dated.dated_first(
            candidates, lambda w: sum(1 for g in groups if g.held(forms[w])) + kept[w], lambda w: len(groups) + kept[w],
            ties=(lambda w: dated.cites_day(official_titles(conn, w), [c for x, c in cited.items() if c and x != w]),
                  lambda w: any(siblings.siblings(siblings.subject_words(names[w]), siblings.subject_words(names[x]))
                                for x in listed if x != w)))
        return None if best is None else (section, best)


def dated_step(ctx: CallContext, sections: list[Answer], plans: Mapping[str, Plan], args: dict[str, Any]) -> bool:
    """The act of the year (and month) a question names, put first in its publisher's section
    (:mod:`serve.core.dated`): for a question naming no act (:func:`act_term_plan`) and one year as an act's
    (:func:`serve.core.dated.act_year`), not asking for an EU form (:func:`serve.core.dated.asks_eu_form`), the acts
    of a :data:`DATED_PUBLISHERS` section with hits dated that year (that month, :func:`serve.core.dated.named_month`)
    are read for the question's word groups (:func:`dated_groups`; a word kept as written counted for an act whose
    names hold it); the one whose names hold the most
    (:func:`serve.core.dated.dated_first`; ties: the act whose title cites one of the section's first
    :data:`DATED_LISTED` works other than itself by its form and day, the act it amends or executes,
    :func:`serve.core.dated.cites_day`, then one of their family) takes the section's first place and
    the first's score (a work the section did not list comes in as a work row, reason ``dated_act``; a full section's
    last work gives way). The ``works`` filter, a ``known_on`` day and the provisions grain leave the answer as it was.
    Whether anything changed (in place)."""
    picked = dated_pick(ctx, sections, plans, args)
    if picked is None:
        return False
    section, best = picked
    publisher = str(section["publisher"])
    index = ctx.indexes[publisher]
    raw = str(args["query"])
    hits = section.get("hits") or []
    with index.session(ctx.deadline_seconds) as conn:
        wanted_work = f"{publisher}:{index.catalogue.slug_of[best]}"
        if any(str(h.get("work")) == wanted_work for h in hits):
            return put_first(section, wanted_work)
        row = brought_row(conn, index, best, args, "dated_act", actterms.question_words(raw), args.get("as_of"))
    return row is not None and insert_first(section, row, args["limit"])


def official_titles(conn: sqlite3.Connection, work: int) -> list[str]:
    """A work's official titles, normalised (every version's)."""
    return [str(t) for (t,) in conn.execute(
        "SELECT normalized FROM work_names WHERE work_rowid = ? AND kind = 'official_title'", (work,))]


def _slug_month(slug: str) -> int | None:
    """The month of a Legilux identifier's day (``rgd-2024-11-07-a452`` → 11), or ``None``. Pure."""
    parts = slug.split("-")
    return int(parts[2]) if len(parts) > 3 and parts[2].isdigit() else None


def insert_first(section: Answer, row: Mapping[str, Any], limit: int) -> bool:
    """Put ``row`` (a work the section did not list) first in the section, at most ``limit`` hits (the last gives
    way); it takes the first's score, the others keep their places' scores, one place down (as :func:`put_first`).
    Whether the section changed (in place)."""
    hits = section.get("hits") or []
    if not hits or limit < 1:
        return False
    return deal_keeping_scores(section, [dict(row), *hits][:limit])


def deal_keeping_scores(section: Answer, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Deal ``rows`` (the section's hits reordered, a work brought in among them) into the section's places, each place
    keeping the score it had (a place past the old last takes the last's): the scale the merge reads stays the one the
    lanes gave. ``True`` (the section changed, in place)."""
    scores = [h.get("score") for h in section.get("hits") or []]
    dealt_hits(section, rows)
    for hit, score in zip(section["hits"], [*scores, scores[-1]], strict=False):
        if score is not None:
            hit["score"] = score
    return True


def brought_row(conn: sqlite3.Connection, index: MountedIndex, work: int, args: dict[str, Any], reason: str,
                words: Sequence[str], as_of: str | None = None) -> dict[str, Any] | None:
    """A work a first-place step brings into a section that did not list it, as the section's work row (reason
    ``reason``, shaped with the question's ``words``), or ``None`` when the question's language, document type or
    allowed works (``works``, hierarchy, domain) refuse it or it has no row."""
    filters = Filters((), args["language"], args["document_type"], as_of, _allowed_works(conn, index, args))
    if filters.allowed is not None and work not in filters.allowed:
        return None
    if filters.language and not _titled_in(conn, work, (), filters.language):
        return None
    hit = _work_row(conn, work, filters, [reason])
    return None if hit is None else shape_hits(conn, index, [hit], words)[0]
