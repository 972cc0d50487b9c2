"""Title-lane policies over a keyword answer, measured by ``bench/bench_rescue.py`` (issue #15, not served).

Pure functions over one publisher section of a ``search`` answer (its hits, in rank order, and the
planner's own flags) and the title similarities of the section's works:

- :func:`weak_reasons`: why the keyword lane answered a section weakly, read from the planner's
  flags only: the any-word relaxation answered (``query_relaxed.reason == "any_term"``), it was
  withheld as off-subject (``relaxation_withheld.reason == "off_subject"``), or no title of the
  top works holds a query word (``title_coverage == 0``) although there are hits;
- :func:`rescued`: the **rescue** policy. A section that is not weak is returned unchanged. In a
  weak one, up to ``depth`` works nearest the question by title, each with lexical evidence (a
  provision of that work holding a question word, passed in as ``evidence``), are put first (or
  at position ``at``) in similarity order; a work already among the hits moves up (its keyword
  row stands). A work
  without evidence is never added, so an empty section stays empty unless evidence exists;
- :func:`reranked`: the **re-rank** policy: the keyword candidates (distinct works, best row
  each) re-ordered by ``(1 - weight) * keyword + weight * title``, each side min-max normalised
  over the candidates (keyword: by rank).

Nothing here is on the serving path: docs/hybrid.md §9 and ADR 0050 give the measurements and
the decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]

ANY_TERM = "any_term"
OFF_SUBJECT = "off_subject"
UNTITLED = "untitled"
#: Every reason :func:`weak_reasons` can give.
WEAK_REASONS = (ANY_TERM, OFF_SUBJECT, UNTITLED)


def weak_reasons(section: Row) -> tuple[str, ...]:
    """The planner's flags that mark ``section`` as answered weakly (empty: a firm answer)."""
    reasons: list[str] = []
    relaxed = section.get("query_relaxed")
    if isinstance(relaxed, Mapping) and relaxed.get("reason") == ANY_TERM:
        reasons.append(ANY_TERM)
    withheld = section.get("relaxation_withheld")
    if isinstance(withheld, Mapping) and withheld.get("reason") == OFF_SUBJECT:
        reasons.append(OFF_SUBJECT)
    cover = section.get("title_coverage")
    if section.get("hits") and isinstance(cover, int | float) and cover == 0:
        reasons.append(UNTITLED)
    return tuple(reasons)


def distinct_works(hits: Sequence[Row]) -> list[Row]:
    """The first (best) row of each work, in rank order."""
    seen: set[str] = set()
    out: list[Row] = []
    for hit in hits:
        work = str(hit.get("work"))
        if work not in seen:
            seen.add(work)
            out.append(hit)
    return out


def rescued(hits: Sequence[Row], reasons: Sequence[str], nearest: Sequence[str],
            evidence: Mapping[str, Row], *, depth: int = 1, act_on: Sequence[str] = WEAK_REASONS,
            at: int = 0) -> list[Row]:
    """The section's hits after the rescue policy (see the module docstring).

    ``nearest``: work ids by title similarity, best first (already cut to the candidates
    examined); ``evidence``: for a work, the keyword planner's best row in that work alone.
    Acts only when one of ``reasons`` is in ``act_on``. The rescued works go in at position ``at``
    (0: first; a work already among the first ``at`` hits stays where it is).
    """
    if depth <= 0 or not set(reasons) & set(act_on):
        return list(hits)
    works = distinct_works(hits)
    own = {str(h.get("work")): h for h in works}
    kept = {str(h.get("work")) for h in works[:at]}
    front: list[Row] = []
    taken = 0
    for work in nearest:
        row = own.get(work) or evidence.get(work)
        if row is None:
            continue
        taken += 1
        if work not in kept:
            front.append(row)
        if taken >= depth:
            break
    moved = {str(r.get("work")) for r in front}
    rest = [h for h in hits if str(h.get("work")) not in moved]
    head = [h for h in rest if str(h.get("work")) in kept]
    return head + front + [h for h in rest if str(h.get("work")) not in kept]


def reranked(hits: Sequence[Row], similarity: Mapping[str, float], weight: float) -> list[Row]:
    """The section's distinct works re-ordered by the keyword/title blend (see the module docstring).

    A work without a similarity counts as the least similar; ties keep the keyword order."""
    works = distinct_works(hits)
    if weight <= 0 or len(works) < 2:
        return list(works)
    sims = [similarity.get(str(w.get("work"))) for w in works]
    known = [s for s in sims if s is not None]
    low, high = (min(known), max(known)) if known else (0.0, 0.0)
    span = high - low
    last = len(works) - 1

    def blend(i: int) -> float:
        s = sims[i]
        title = 0.0 if s is None or span <= 0 else (s - low) / span
        return (1 - weight) * (1 - i / last) + weight * title

    order = sorted(range(len(works)), key=lambda i: (-blend(i), i))
    return [works[i] for i in order]
