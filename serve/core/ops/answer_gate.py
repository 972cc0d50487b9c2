"""A learned answer-or-nothing decision over a whole search answer (issue #15, docs/adr/0087).

The search decides by hand rules when a question answers nothing (the no-hit guards: a name no held
act bears, ``words_apart``, an unknown word withholding the relaxation, an off-subject relaxation…).
This module puts one learnt decision over them, **off by default** (:data:`GATE_ENV`):

- the **fallback** (:func:`serve.core.ops.search.run` with every no-hit guard lifted,
  :func:`serve.core.ops.search.unguarded`): for a question main answers with nothing, what its
  relaxations would answer if no guard fired; searched only when main's answer is empty;
- the **features** (:func:`features`, :data:`FEATURES`): a small set read off the answers' sections
  (which guard fired, how the answer was relaxed or translated, how well the first work's title
  fits, the first hit's BM25 against the question's ideal) and the indexes' vocabulary (the share of
  the question's words the corpus holds, the rarest one's document frequency): no question text;
- the **decision** (:func:`decide`): a logistic regression whose coefficients, feature names and
  threshold are the committed file :data:`COEFFICIENTS` (fitted by ``scripts/fit_answer_gate.py``
  with leave-one-file-out cross-validation on the readable judgment files): answer (main's answer,
  or the fallback where main answered nothing) or answer nothing.

Settings (:data:`GATE_ENV`): ``off`` (default: main's answer, nothing computed), ``on`` (the
decision), ``fallback`` (the fallback wherever main answers nothing, no decision: how the fitting
data is scored). With :data:`LOG_ENV` naming a file, each decided question's features are appended
to it as one JSON line (fitting only).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from derive.index import relax
from serve.core.mount import MountedIndex

#: The environment variable that sets the gate: ``off`` (default), ``on``, ``fallback``.
GATE_ENV = "LEX_ANSWER_GATE"
#: The environment variable naming a file each decided question's features are appended to (fitting).
LOG_ENV = "LEX_ANSWER_GATE_LOG"
#: The committed coefficients (feature names, weights, intercept, threshold).
COEFFICIENTS = Path(__file__).with_name("answer_gate.json")
MODES = ("off", "on", "fallback")

#: The ``relaxation_withheld`` reasons set on the plans before any search (the question names an act
#: no index holds, or its rare words are held apart: :func:`serve.core.ops.search.named_act`, …).
PLAN_GUARDS = frozenset({"name_not_held", "dated_reference_not_held", "dated_subject_not_held",
                         "form_subject_not_held", "words_apart"})
#: Match reasons of a hit that holds only some of the question's words, or none in its text.
WEAK_REASONS = frozenset({"partial_terms", "any_term", "relaxed", "title_words", "work_metadata", "translated"})
#: A document frequency is read on this log scale (``log10(1 + df) / RARE_SCALE``: about 1 for a word
#: in a million provisions).
RARE_SCALE = 6.0
#: The first hit's BM25 (the index's weighted columns) is read against this many times the question's
#: ideal (:func:`features`' ``bm25_ideal``).
BM25_SCALE = 4.0
#: The most terms counted (:func:`features`' ``terms``).
TERMS_CAP = 8

#: The features, in the coefficient file's order. Each is in [0, 1].
FEATURES = (
    "main_answered",      # main's answer has a hit
    "fallback_answered",  # the answer decided has a hit (main's, else the fallback's)
    "plan_guard",         # a plan-level no-hit guard fired in main (PLAN_GUARDS)
    "unknown_terms",      # main withheld the relaxation for a word no text holds
    "off_subject",        # main dropped an any-word relaxation as off-subject
    "act_number",         # main withheld for an act number no held act bears
    "resolved",           # a work resolved by its name, alias or identifier
    "translated",         # a section searched through the cross-language lexicon
    "relaxed",            # the first answering section was relaxed (any kind)
    "any_term",           # … by the any-word / majority relaxation
    "weak_first",         # the first hit matched only some words, a title or metadata
    "title_match",        # the first answering section's top_title_match
    "title_coverage",     # … its title_coverage
    "sections",           # share of the sections answering
    "held_share",         # share of the content words some index's text holds (best section)
    "rare",               # log10(1 + df) of the rarest held content word / RARE_SCALE
    "unheld",             # some content word no index holds
    "terms",              # content words, / TERMS_CAP (capped)
    "bm25_ideal",         # the first hit's BM25 / the question's ideal (sum of its held words' IDF) / BM25_SCALE
)


def mode() -> str:
    """The gate's setting (:data:`GATE_ENV`); an unknown value is ``off``."""
    value = os.environ.get(GATE_ENV, "off").strip().lower()
    return value if value in MODES else "off"


@cache
def coefficients(path: Path = COEFFICIENTS) -> dict[str, Any]:
    """The committed model: ``{"features": [...], "weights": [...], "intercept", "threshold"}``."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


def probability(values: Mapping[str, float], model: Mapping[str, Any]) -> float:
    """The model's probability that answering beats answering nothing. Pure."""
    z = float(model["intercept"]) + sum(float(w) * float(values.get(name, 0.0))
                                        for name, w in zip(model["features"], model["weights"], strict=True))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def decide(values: Mapping[str, float], model: Mapping[str, Any]) -> bool:
    """Whether to answer: never when the answer decided has no hit; always main's answer when the
    model decides only for the questions main answers with nothing (``only_empty``); else the
    model's probability at least its threshold. Pure."""
    if not values.get("fallback_answered"):
        return False
    if model.get("only_empty") and values.get("main_answered"):
        return True
    return probability(values, model) >= float(model["threshold"])


def answering(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The sections of an answer that hold a hit. Pure."""
    return [s for s in answer.get("publishers") or [] if isinstance(s, Mapping) and s.get("hits")]


def _reasons(answer: Mapping[str, Any]) -> set[str]:
    return {str((s.get("relaxation_withheld") or {}).get("reason")) for s in answer.get("publishers") or []
            if isinstance(s, Mapping) and s.get("relaxation_withheld")}


def content_terms(section: Mapping[str, Any]) -> list[str]:
    """A section's planned search words a relaxed query would keep (single words of phrases). Pure."""
    terms = (section.get("query_plan") or {}).get("terms") or []
    return list(dict.fromkeys(w for t in terms for w in str(t).split() if not relax.relaxable_term(w)))


def documents(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT MAX(docs) FROM vocabulary").fetchone()
    return max(1, int(row[0] or 1))


def vocabulary_docs(index: MountedIndex, words: Sequence[str], deadline: float) -> dict[str, int]:
    """The text vocabulary's document frequency of each of ``words`` the index holds: one query."""
    if not words:
        return {}
    with index.session(deadline) as conn:
        return {str(t): int(n) for t, n in conn.execute(
            f"SELECT term, docs FROM vocabulary WHERE term IN ({','.join('?' * len(words))})", list(words))}


def features(main: Mapping[str, Any], decided: Mapping[str, Any],
             docs: Callable[[str, Sequence[str]], tuple[dict[str, int], int]]) -> dict[str, float]:
    """The features (:data:`FEATURES`) of a question: ``main``, main's answer; ``decided``, the
    answer the decision is about (main's when it has a hit, else the fallback's); ``docs(publisher,
    words)``, the vocabulary's document frequencies of ``words`` in that publisher's index and the
    largest one (the scale of the IDF). Pure but for ``docs``."""
    reasons = _reasons(main)
    sections = [s for s in decided.get("publishers") or [] if isinstance(s, Mapping)]
    answered = answering(decided)
    first = answered[0] if answered else {}
    hits = first.get("hits") or [{}]
    hit = hits[0] if isinstance(hits[0], Mapping) else {}
    relaxed = first.get("query_relaxed") or {}
    held_share, rarest, unheld, terms, ideal = 0.0, None, False, 0, 0.0
    for section in sections:
        words = content_terms(section)
        terms = max(terms, len(words))
        if not words:
            continue
        found, scale = docs(str(section.get("publisher")), words)
        held_share = max(held_share, sum(w in found for w in words) / len(words))
        unheld = unheld or any(w not in found for w in words)
        if found:
            low = min(found.values())
            rarest = low if rarest is None else min(rarest, low)
        if section is first:
            ideal = sum(math.log(1.0 + scale / n) for n in found.values())
    bm25 = -float(hit.get("bm25") or 0.0)
    plan_of = [(s.get("query_plan") or {}) for s in sections]
    return {
        "main_answered": float(bool(answering(main))),
        "fallback_answered": float(bool(answered)),
        "plan_guard": float(bool(reasons & PLAN_GUARDS)),
        "unknown_terms": float("unknown_terms" in reasons),
        "off_subject": float("off_subject" in reasons),
        "act_number": float("unresolved_act_number" in reasons),
        "resolved": float(any(p.get("work_resolution_status") == "resolved" for p in plan_of)),
        "translated": float(any(p.get("translations") for p in plan_of)),
        "relaxed": float(bool(relaxed)),
        "any_term": float(relaxed.get("reason") == "any_term"),
        "weak_first": float(bool(hit) and set(hit.get("match_reasons") or ()) <= WEAK_REASONS),
        "title_match": float(first.get("top_title_match") or 0.0),
        "title_coverage": float(first.get("title_coverage") or 0.0),
        "sections": len(answered) / len(sections) if sections else 0.0,
        "held_share": held_share,
        "rare": 0.0 if rarest is None else min(1.0, math.log10(1 + rarest) / RARE_SCALE),
        "unheld": float(unheld),
        "terms": min(terms, TERMS_CAP) / TERMS_CAP,
        "bm25_ideal": min(1.0, bm25 / ideal / BM25_SCALE) if ideal > 0 and bm25 > 0 else 0.0,
    }


def emptied(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with no hit in any section nor in ``merged``, each emptied section saying why
    (``relaxation_withheld: {"reason": "answer_gate"}``). Pure (a new answer)."""
    sections = []
    for section in answer.get("publishers") or []:
        if isinstance(section, Mapping) and section.get("hits"):
            row_set = dict(section.get("row_set") or {})
            if row_set:
                row_set.update({"returned": 0, "truncated": False})
            section = {**section, "hits": [], "outcome": "empty", "relaxation_withheld": {"reason": "answer_gate"},
                       **({"row_set": row_set} if row_set else {})}
        sections.append(section)
    return {**answer, "publishers": sections, "merged": []}


def log(values: Mapping[str, float], args: Mapping[str, Any], answered: bool) -> None:
    """Append one question's features to the :data:`LOG_ENV` file (fitting only)."""
    path = os.environ.get(LOG_ENV)
    if not path:
        return
    line = json.dumps({"query": args.get("query"), "as_of": args.get("as_of"), "publisher": args.get("publisher"),
                       "language": args.get("language"), "works": args.get("works"), "answered": answered,
                       "features": values}, sort_keys=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write(line + "\n")


def gated(answer: dict[str, Any], fallback: Callable[[], dict[str, Any]], args: Mapping[str, Any],
          docs: Callable[[str, Sequence[str]], tuple[dict[str, int], int]], setting: str,
          model: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The answer under the gate's ``setting`` (:func:`mode`): ``off``, ``answer``; else the
    fallback (searched only when ``answer`` has no hit) in place of an empty answer; with ``on``,
    that answer or, when :func:`decide` says so, no hit at all (main's empty answer, with its reasons,
    when main answered nothing; else main's answer emptied, :func:`emptied`)."""
    if setting == "off":
        return answer
    decided = answer if answering(answer) else fallback()
    values = features(answer, decided, docs)
    keep = setting == "fallback" or decide(values, model if model is not None else coefficients())
    log(values, args, keep)
    if keep:
        return decided
    return emptied(answer) if answering(answer) else answer  # main's own empty answer says why
