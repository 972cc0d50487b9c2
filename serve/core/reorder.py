"""A learnt reordering of a search section's first works (issue #15, rank43; ADR 0135).

The hand-set ranking (:func:`serve.core.ops.search.rank_hits`: relevance × status, role and title
priors, then :func:`~serve.core.ops.search.parents_first` and the other placement rules) orders a
publisher section's works. This module can reorder the first :attr:`Weights.depth` of them by a
linear score learnt pairwise over the readable judgments (``bench/fit_reorder.py``): each work gets a
vector of what the search already knows of it (:data:`FEATURES`, :func:`vector`: its place and score
in the hand-set order, its best provision's match, its title fit, status, role, form, age), and the
first works are sorted by ``weights · vector`` (ties keep the hand-set order).

It only reorders: the works are the same (a permutation of the first ``depth``; the section keeps
the first ``limit`` of the reordered list), a work's own provisions keep their order, and the search
calls it only for a question that names no act (no named, cited or softly mentioned work, no article,
no anchor), so an exact citation is never moved; every decision the search takes over a section (its
stages, routing, order among sections, no hits) is taken on the hand-set order before the swap
(:func:`serve.core.ops.search.ranked_answer`).

The weights file may also hold a model of the order of two answering sections (rank44, ADR 0139:
:data:`ORDER_FEATURES`, :func:`swap_sections`): a logistic score over the difference of the two
sections' first works' vectors, asked by :func:`serve.core.ops.search.learnt_order` after the
sections are routed, ordered by hand and reordered; it swaps the two sections or leaves them.

Pure, but for :func:`default_weights` (reads the reviewed data file once). Nothing is held per
question; the weights are one small tuple per process.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import resources
from typing import Any, NamedTuple, TypeVar

from legal.errors import ConfigError

#: Whether the search reorders a plain-word question's first works by the learnt weights
#: (:data:`WEIGHTS_FILE`). Off: the hand-set order, and no feature is worked out.
REORDER = True

#: The reviewed weights, next to this module (written by ``bench/fit_reorder.py``).
WEIGHTS_FILE = "reorder_weights.json"

#: The names of :func:`vector`'s entries, in order; a weights file names the ones it weighs.
FEATURES: tuple[str, ...] = (
    "inv_rank",       # 1 / place in the hand-set order (1-based)
    "log_rank",       # log of that place
    "log_score",      # log of the hand-set ranking value over the section's first (floored at 1e-3)
    "weak_tier",      # ranked in the weaker lanes' tier
    "bm25",           # its best provision's BM25 relevance over the section's best (0 without BM25)
    "strict",         # its best provision holds every word of the question as searched
    "partial",        # its best provision holds a majority of the words only
    "any_term",       # found by the any-word relaxation
    "relaxed",        # found by a relaxed query (stop words dropped)
    "stem",           # found through stem or fuzzy forms
    "metadata",       # found by its metadata (a EuroVoc label, a subject term) only
    "name_row",       # a work row found by its names (text not held) or put before its child as its parent
    "parent_row",     # put before a subordinate act as its parent (parents_first)
    "placed_up",      # moved up (or brought in) by a placement rule after the ranking (parents_first, titled share)
    "after_placed",   # right after such a work (the subordinate act its parent was put before)
    "coverage",       # share of the question's words its names hold
    "named_by",       # that share weighed by the words' rarity (the ranking's title factor)
    "precision",      # share of its title subject's words the question holds
    "title_match",    # harmonic mean of precision and coverage
    "exact_subject",  # a Legilux principal act whose names hold every word and subject nothing else
    "own_subject",    # the share of a subordinate act's own subject the question says
    "breadth",        # log(1 + its provisions holding every word among the candidates)
    "provisions",     # log(1 + its provisions among the candidates)
    "dominant",       # the work dominating the all-words provisions (weighed as named)
    "repealed",       # status repealed
    "not_in_force",   # status not yet in force or unknown
    "amending", "implementing", "delegated", "corrigendum", "budget", "compilation",
    "lu_law", "lu_regulation", "lu_other", "code",
    "age",            # (this year - the year its hit's version is valid from) / 50, 0 when unknown
    # rank44 (ADR 0139): which of the question's content words (each weighed by its IDF over the
    # provisions, :attr:`Question.idf`) the work holds where, each also against the section's first works
    "head_best",      # IDF share of the words its best provision's heading holds
    "head_share",     # IDF share of the words the headings of its hit provisions hold together
    "head_top",       # head_share is the largest among the section's first works (and not 0)
    "body_best",      # IDF share of the words its best provision's text holds
    "body_share",     # IDF share of the words its hit provisions' texts hold together
    "body_top",       # body_share is the largest among the section's first works
    "body_best_top",  # body_best is the largest among the section's first works
    "title_idf",      # IDF share of the words its names hold
    "title_top",      # title_idf is the largest among the section's first works (and not 0)
    "rare_title",     # its names hold the question's rarest word
    "rare_heading",   # a heading of its hit provisions holds the rarest word
    "rare_body",      # a text of its hit provisions holds the rarest word
    "title_count",    # the words its names hold / the most any first work's names hold
    "body_count",     # the words its hit provisions hold / the most any first work's hold
    "long_title",     # title_match, for a question of LONG_QUESTION content words or more
    "long_bm25",      # bm25, for such a question
    "long_body",      # body_share, for such a question
    "foreign_title",  # title_match, for a question not in French (or translated)
    "foreign_bm25",   # bm25, for such a question
    "foreign_body",   # body_share, for such a question
    "newest",         # the newest of the section's first works holding a word in their names
    "age_title",      # age × title_match
    "code_untitled",  # a code whose names do not hold the rarest word
    "sub_untitled",   # an implementing or delegated act whose names do not hold the rarest word
)

#: The features read from the question's words and where the works hold them (:class:`Question`, the
#: ``*_words`` fields of :class:`Candidate`; every feature after ``age``): worked out only for weights that weigh one
#: (:attr:`Weights.words`) or for a harvesting caller (:data:`CAPTURE`).
WORD_FEATURES: tuple[str, ...] = FEATURES[FEATURES.index("age") + 1:]

#: A question of this many content words or more is "long" (the ``long_*`` features).
LONG_QUESTION = 5

#: The features of each section's first work that the order of two sections weighs (rank44): the
#: difference of the first section's first work's and the second's (:data:`ORDER_FEATURES`).
ORDER_DIFFS: tuple[str, ...] = (
    "weak_tier", "strict", "partial", "any_term", "stem", "metadata", "name_row", "coverage", "named_by",
    "precision", "title_match", "exact_subject", "own_subject", "breadth", "provisions", "dominant", "repealed",
    "implementing", "delegated", "amending", "code", "age", "head_best", "body_best", "title_idf", "rare_title",
    "rare_heading", "rare_body", "title_count", "body_count",
)

#: The names of :func:`order_vector`'s entries: per :data:`ORDER_DIFFS` name ``d:NAME``, the section
#: sizes' difference (``d:hits``, each over 10), whether EUR-Lex answers first (``eu_first``), and 1.
ORDER_FEATURES: tuple[str, ...] = (*(f"d:{name}" for name in ORDER_DIFFS), "d:hits", "eu_first", "bias")

_ORDER_AT = tuple(FEATURES.index(name) for name in ORDER_DIFFS)

#: Year the ``age`` feature counts from (fixed, so the answer never depends on the clock).
AGE_YEAR = 2026

T = TypeVar("T")


class WeightsError(ConfigError):
    """A weights file that is not a valid reordering model (the message says which field and why)."""

    default_code = "invalid_reorder_weights"


@dataclass(frozen=True)
class Weights:
    """A parsed weights file: how many first works are reordered (``depth``), per publisher
    (``eu-eurlex``, ``lu-legilux``) one weight per entry of :data:`FEATURES` (0 for a feature the
    file does not name; a publisher the file does not name is never reordered), and the optional
    order of two sections (:attr:`order`)."""

    depth: int
    by_publisher: Mapping[str, tuple[float, ...]]
    version: int = 1
    #: One weight per :data:`ORDER_FEATURES` entry: the order of two sections (:func:`swap_sections`);
    #: ``None``: the hand-set order of sections stands.
    order: tuple[float, ...] | None = None

    @functools.cached_property
    def words(self) -> bool:
        """Whether a weight (of a publisher or of the order) falls on a feature read from where the
        works hold the question's words (:data:`WORD_FEATURES`): else they are never worked out (0)."""
        at = [FEATURES.index(name) for name in WORD_FEATURES]
        return any(values[k] for values in self.by_publisher.values() for k in at) or any(
            w for name, w in zip(ORDER_FEATURES, self.order or (), strict=False) if name[2:] in WORD_FEATURES)

    def score(self, vector: Sequence[float], publisher: str) -> float:
        """``weights · vector`` with the weights of ``publisher``."""
        return sum(w * x for w, x in zip(self.by_publisher[publisher], vector, strict=True))


class Head(NamedTuple):
    """A section's first work as the order of sections weighs it: its vector (:func:`vectors`), the
    section's number of works, its publisher."""

    vector: Sequence[float]
    hits: int
    publisher: str


def order_vector(first: Head, second: Head) -> tuple[float, ...]:
    """The :data:`ORDER_FEATURES` of two sections in their hand-set order. Pure."""
    return (*(first.vector[k] - second.vector[k] for k in _ORDER_AT), (first.hits - second.hits) / 10.0,
            float(first.publisher == "eu-eurlex"), 1.0)


def swap_sections(weights: Weights, first: Head, second: Head) -> bool:
    """Whether two sections answer in the other order: ``weights.order · order_vector`` above 0 (the
    learnt odds of the swap's nDCG gain over its loss above even). Never without ``weights.order``. Pure."""
    if weights.order is None:
        return False
    return sum(w * x for w, x in zip(weights.order, order_vector(first, second), strict=True)) > 0.0


def parse_weights(data: Any) -> Weights:
    """The :class:`Weights` of a decoded weights file: an object with ``version`` 1, ``depth`` (an
    integer from 2 to 100), ``weights`` (publisher → object of feature name → number; every name one
    of :data:`FEATURES`) and optionally ``order`` (:func:`parse_order`). Raises :class:`WeightsError`
    naming the field otherwise."""
    if not isinstance(data, Mapping):
        raise WeightsError("a weights file is a JSON object")
    if data.get("version") != 1:
        raise WeightsError(f"version must be 1, not {data.get('version')!r}")
    depth = data.get("depth")
    if not isinstance(depth, int) or isinstance(depth, bool) or not 2 <= depth <= 100:
        raise WeightsError(f"depth must be an integer from 2 to 100, not {depth!r}")
    publishers = data.get("weights")
    if not isinstance(publishers, Mapping) or not publishers:
        raise WeightsError("weights must be a non-empty object of publisher to weights")
    out: dict[str, tuple[float, ...]] = {}
    for publisher, given in publishers.items():
        if not isinstance(given, Mapping) or not given:
            raise WeightsError(f"weights of {publisher} must be a non-empty object of feature name to number")
        unknown = sorted(set(given) - set(FEATURES))
        if unknown:
            raise WeightsError(f"unknown features of {publisher}: {', '.join(map(str, unknown))}")
        for name, value in given.items():
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise WeightsError(f"weight of {name} ({publisher}) must be a finite number, not {value!r}")
        out[str(publisher)] = tuple(float(given.get(name, 0.0)) for name in FEATURES)
    return Weights(depth, out, order=parse_order(data.get("order")))


def parse_order(given: Any) -> tuple[float, ...] | None:
    """The ``order`` field of a weights file (absent: ``None``): an object of :data:`ORDER_FEATURES`
    name to number (0 for a name it does not give). Raises :class:`WeightsError` naming what is wrong."""
    if given is None:
        return None
    if not isinstance(given, Mapping) or not given:
        raise WeightsError("order must be a non-empty object of feature name to number")
    unknown = sorted(set(given) - set(ORDER_FEATURES))
    if unknown:
        raise WeightsError(f"unknown order features: {', '.join(map(str, unknown))}")
    for name, value in given.items():
        if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
            raise WeightsError(f"order weight of {name} must be a finite number, not {value!r}")
    return tuple(float(given.get(name, 0.0)) for name in ORDER_FEATURES)


def load_weights(text: str) -> Weights:
    """:func:`parse_weights` of a weights file's text (:class:`WeightsError` for text that is not JSON)."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise WeightsError(f"a weights file is JSON: {exc}") from None
    return parse_weights(data)


@functools.cache
def default_weights() -> Weights:
    """The reviewed weights shipped beside this module (:data:`WEIGHTS_FILE`), read once."""
    return load_weights(resources.files(__package__ or "serve.core").joinpath(WEIGHTS_FILE).read_text("utf-8"))


@dataclass(frozen=True)
class Candidate:
    """What the search knows of one of a section's first works (:func:`vector` reads it)."""

    rank: int
    score: float | None
    top_score: float | None
    weak: bool
    bm25: float
    reasons: frozenset[str]
    strict: bool
    coverage: float
    named_by: float
    precision: float
    exact_subject: bool
    own_subject: float
    breadth: int
    provisions: int
    #: Moved up (or brought in) by a placement rule after :func:`rank_hits`' order.
    placed_up: bool
    #: Right after a work :attr:`placed_up`.
    after_placed: bool
    dominant: bool
    status: str
    role: str
    hierarchy: str | None
    code: bool
    year: int | None
    #: The positions (in :attr:`Question.idf`) of the question's content words its names hold.
    title_words: frozenset[int] = frozenset()
    #: … that its best provision's heading holds, and the headings of its hit provisions together.
    best_heading_words: frozenset[int] = frozenset()
    heading_words: frozenset[int] = frozenset()
    #: … that its best provision's text holds, and the texts of its hit provisions together.
    best_body_words: frozenset[int] = frozenset()
    body_words: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Question:
    """What the reordering knows of the question a section answers: per content word (term group) its
    IDF over the provisions (``ln(1 + N / df)``), and whether it is not asked in French (another
    language, or translated to French for the search)."""

    idf: tuple[float, ...] = ()
    foreign: bool = False

    @property
    def rarest(self) -> int | None:
        """The position of the rarest content word (the first of equals), ``None`` without words."""
        return max(range(len(self.idf)), key=lambda k: (self.idf[k], -k)) if self.idf else None

    def share(self, words: frozenset[int]) -> float:
        """The IDF-weighted share of the content words that ``words`` (positions) are."""
        total = sum(self.idf)
        return sum(self.idf[k] for k in words if k < len(self.idf)) / total if total > 0 else 0.0


#: A question with no content words known (every ``rank44`` feature 0 but those it does not weigh).
NO_QUESTION = Question()


_ROLES = ("amending", "implementing", "delegated", "corrigendum", "budget", "compilation")
_LU_LEVELS = {"law": "lu_law", "constitution": "lu_law", "regulation": "lu_regulation", "other": "lu_other"}
_STEM_REASONS = frozenset({"stem", "fuzzy"})


def vector(c: Candidate, question: Question = NO_QUESTION) -> tuple[float, ...]:
    """The feature vector of a candidate work alone (its section's first works being itself), in
    :data:`FEATURES` order. Pure."""
    return vectors([c], question)[0]


def vectors(candidates: Sequence[Candidate], question: Question = NO_QUESTION) -> list[tuple[float, ...]]:
    """The feature vectors of a section's first works (hand-set order), in :data:`FEATURES` order:
    each work's own features and those weighed against the others (``*_top``, ``*_count``,
    ``newest``). Pure."""
    shares = [(question.share(c.heading_words), question.share(c.body_words), question.share(c.best_body_words),
               question.share(c.title_words)) for c in candidates]
    top_head = max((s[0] for s in shares), default=0.0)
    top_body = max((s[1] for s in shares), default=0.0)
    top_best = max((s[2] for s in shares), default=0.0)
    top_title = max((s[3] for s in shares), default=0.0)
    most_title = max((len(c.title_words) for c in candidates), default=0)
    most_body = max((len(c.body_words) for c in candidates), default=0)
    newest = max((c.year for c in candidates if c.year is not None and c.title_words), default=None)
    return [_vector(c, question, share, (top_head, top_body, top_best, top_title), (most_title, most_body), newest)
            for c, share in zip(candidates, shares, strict=True)]


def _vector(c: Candidate, question: Question, shares: tuple[float, float, float, float],
            tops: tuple[float, float, float, float], most: tuple[int, int], newest: int | None) -> tuple[float, ...]:
    ratio = (c.score / c.top_score) if c.score is not None and c.top_score else 0.0
    precision, coverage = c.precision, c.coverage
    match = 2 * precision * coverage / (precision + coverage) if precision + coverage else 0.0
    level = _LU_LEVELS.get(c.hierarchy or "")
    head, body, best, title = shares
    rarest = question.rarest
    long = float(len(question.idf) >= LONG_QUESTION)
    foreign = float(question.foreign)
    age = (AGE_YEAR - c.year) / 50.0 if c.year is not None else 0.0
    rare_title = rarest is not None and rarest in c.title_words
    values: dict[str, float] = {
        "inv_rank": 1.0 / c.rank,
        "log_rank": math.log(c.rank),
        "log_score": math.log(min(1.0, max(ratio, 1e-3))),
        "weak_tier": float(c.weak),
        "bm25": c.bm25,
        "strict": float(c.strict),
        "partial": float(c.reasons == {"partial_terms"}),
        "any_term": float("any_term" in c.reasons),
        "relaxed": float("relaxed" in c.reasons),
        "stem": float(bool(_STEM_REASONS & c.reasons)),
        "metadata": float("work_metadata" in c.reasons),
        "name_row": float("title_words" in c.reasons and c.bm25 == 0.0),
        "parent_row": float("parent_act" in c.reasons),
        "placed_up": float(c.placed_up),
        "after_placed": float(c.after_placed),
        "coverage": coverage,
        "named_by": c.named_by,
        "precision": precision,
        "title_match": match,
        "exact_subject": float(c.exact_subject),
        "own_subject": c.own_subject,
        "breadth": math.log1p(c.breadth),
        "provisions": math.log1p(c.provisions),
        "dominant": float(c.dominant),
        "repealed": float(c.status == "repealed"),
        "not_in_force": float(c.status in ("not_yet", "unknown")),
        **{role: float(c.role == role) for role in _ROLES},
        "lu_law": float(level == "lu_law"), "lu_regulation": float(level == "lu_regulation"),
        "lu_other": float(level == "lu_other"), "code": float(c.code),
        "age": age,
        "head_best": question.share(c.best_heading_words),
        "head_share": head,
        "head_top": float(head > 0 and head >= tops[0]),
        "body_best": best,
        "body_share": body,
        "body_top": float(body > 0 and body >= tops[1]),
        "body_best_top": float(best > 0 and best >= tops[2]),
        "title_idf": title,
        "title_top": float(title > 0 and title >= tops[3]),
        "rare_title": float(rare_title),
        "rare_heading": float(rarest is not None and rarest in c.heading_words),
        "rare_body": float(rarest is not None and rarest in c.body_words),
        "title_count": len(c.title_words) / most[0] if most[0] else 0.0,
        "body_count": len(c.body_words) / most[1] if most[1] else 0.0,
        "long_title": long * match,
        "long_bm25": long * c.bm25,
        "long_body": long * body,
        "foreign_title": foreign * match,
        "foreign_bm25": foreign * c.bm25,
        "foreign_body": foreign * body,
        "newest": float(newest is not None and c.year == newest and bool(c.title_words)),
        "age_title": age * match,
        "code_untitled": float(c.code and rarest is not None and not rare_title),
        "sub_untitled": float(c.role in ("implementing", "delegated") and rarest is not None and not rare_title),
    }
    return tuple(values[name] for name in FEATURES)


_PLACED_UP = FEATURES.index("placed_up")


def reordered(items: Sequence[T], vectors: Sequence[Sequence[float]], weights: Weights, publisher: str) -> list[T]:
    """``items`` with the first ``len(vectors)`` (at most ``weights.depth``) sorted by
    :meth:`Weights.score` for ``publisher``, best first, ties in their given order; the rest after
    them as given. A permutation of ``items``; ``items`` as given for a publisher the weights do not
    name. Pure."""
    if publisher not in weights.by_publisher:
        return list(items)
    head = min(len(vectors), weights.depth, len(items))
    pinned = {i for i in range(head) if vectors[i][_PLACED_UP]}
    scores = [weights.score(v, publisher) for v in vectors[:head]]
    free = iter(sorted((i for i in range(head) if i not in pinned), key=lambda i: (-scores[i], i)))
    return [items[i] if i in pinned else items[next(free)] for i in range(head)] + list(items[head:])


#: Where a harvesting caller (``bench/fit_reorder.py``) collects, per final section of an answer,
#: its candidates' works and vectors; ``None`` (the default): nothing is collected.
CAPTURE: ContextVar[list[dict[str, Any]] | None] = ContextVar("reorder_capture", default=None)


def wanted() -> bool:
    """Whether the search works out candidates' vectors: reordering is on, or a caller captures them."""
    return REORDER or CAPTURE.get() is not None
