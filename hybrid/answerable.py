"""Tests other than title similarity for "is this everyday question answerable?" (issue #15, docs/hybrid.md §10.3).

Pure functions over one weak publisher section as ``bench/bench_rescue.py collect`` records it
(the works nearest the question by title, their similarities, their lexical evidence, the
question's content-word groups). Measured against the readable judgment files' negatives; none
is on the serving path.

- :func:`margin`: the first title similarity minus the last one recorded (a question near one
  act stands out; a question near nothing is flat);
- :func:`agreement`: whether two lanes' (e5 and static) nearest works share the first;
- :func:`evidence_share`: the largest share of the question's words that one nearest work's text
  holds;
- :func:`known_share`: the share of the question's content words (each with its stems and
  translations) that occur anywhere in the publisher's corpus;
- :func:`rarest_known`: how many provisions hold the question's rarest content word (a question
  about "elfes" or "smartphones" names something the corpus barely knows).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any


def margin(sims: Sequence[float]) -> float:
    """``sims[0] - sims[-1]`` (0 for fewer than two)."""
    return float(sims[0] - sims[-1]) if len(sims) >= 2 else 0.0


def agreement(first: Sequence[str], second: Sequence[str], depth: int = 3) -> float:
    """1.0 when ``first``'s nearest work is among ``second``'s first ``depth`` (or the reverse), else 0.0."""
    if not first or not second:
        return 0.0
    return 1.0 if first[0] in second[:depth] or second[0] in first[:depth] else 0.0


def evidence_share(evidence: Mapping[str, Mapping[str, Any]]) -> float:
    """The largest ``held_groups / groups`` over the works with evidence (0 with none)."""
    return max((float(r["held_groups"]) / r["groups"] for r in evidence.values() if r.get("groups")), default=0.0)


def known_share(groups: Sequence[Sequence[str]], provisions: Callable[[Sequence[str]], int]) -> float:
    """The share of ``groups`` (a content word with its variants) that occur in some provision
    (``provisions``: how many provisions hold any form of the group)."""
    if not groups:
        return 0.0
    return sum(1 for g in groups if provisions(g) > 0) / len(groups)


def rarest_known(groups: Sequence[Sequence[str]], provisions: Callable[[Sequence[str]], int]) -> int:
    """The fewest provisions holding one of ``groups`` (0 with no group)."""
    return min((provisions(g) for g in groups), default=0)
