"""Per-work provision history (model §6.6 ``history.json``): distinct text states per anchor.

A state is a maximal run of consecutive versions (ordered by ``valid_from`` then version key;
withdrawn versions left out) in which the anchor is present with the same ``text_sha256``.
A version where the language has no derived text breaks every run (we do not know the text
then). A state's ``valid_to`` is the *derived*, inclusive end of its last version: the day
before the next later ``valid_from`` (same-date siblings skipped), ``null`` when open.
Empty provisions never form states and never drive ``renumbered`` events. Languages never mix.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "lex-history/1"
# Version of the history computation (states, derived ends, events). It is part of every derive
# cache key: a change here that changes any history file must bump it (and SCHEMA if its shape changes).
HISTORY_VERSION = 1

EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@dataclass
class VersionTexts:
    """What one version contributed to the history: per language, anchor → (sha, article_valid_from)."""

    lex_id: str
    version_key: str
    valid_from: str
    texts: dict[str, dict[str, tuple[str, str | None]]] = field(default_factory=dict)
    profiles: set[str] = field(default_factory=set)
    empty: Counter[str] = field(default_factory=Counter)


def derived_ends(versions: Sequence[VersionTexts]) -> list[str | None]:
    """Inclusive derived ``valid_to`` of each version: next later ``valid_from`` − 1 day."""
    starts = sorted({v.valid_from for v in versions})
    ends = []
    for v in versions:
        later = [s for s in starts if s > v.valid_from]
        ends.append((_dt.date.fromisoformat(later[0]) - _dt.timedelta(days=1)).isoformat() if later else None)
    return ends


def _states(versions: Sequence[VersionTexts], ends: list[str | None], lang: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    open_runs: dict[str, dict[str, Any]] = {}
    for version, end in zip(versions, ends, strict=True):
        texts = version.texts.get(lang)
        if texts is None:
            open_runs = {}
            continue
        next_runs: dict[str, dict[str, Any]] = {}
        for anchor, (sha, article_from) in texts.items():
            run = open_runs.get(anchor)
            if run is not None and run["text_sha256"] == sha:
                run["valid_to"] = end
            else:
                run = {"valid_from": version.valid_from, "valid_to": end, "text_sha256": sha,
                       "in_version": version.lex_id}
                if article_from is not None:
                    run["article_valid_from"] = article_from
                    if article_from != version.valid_from:
                        run["validity_conflict"] = True
                out[anchor].append(run)
            next_runs[anchor] = run
        open_runs = next_runs
    return dict(out)


def _events(versions: Sequence[VersionTexts], lang: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    present = [v for v in versions if lang in v.texts]
    for before, after in itertools.pairwise(present):
        old, new = before.texts[lang], after.texts[lang]
        removed = sorted(set(old) - set(new))
        inserted = sorted(set(new) - set(old))
        by_sha_removed = Counter(old[a][0] for a in removed)
        by_sha_inserted = Counter(new[a][0] for a in inserted)
        renamed: set[str] = set()
        for a in removed:
            sha = old[a][0]
            if by_sha_removed[sha] == 1 and by_sha_inserted[sha] == 1:
                target = next(b for b in inserted if new[b][0] == sha)
                events.append({"event": "renumbered", "from": a, "to": target, "text_sha256": sha,
                               "at_version": after.lex_id, "basis": "identical_text"})
                renamed.update((a, target))
        events.extend({"event": "removed", "anchor": a, "at_version": after.lex_id} for a in removed if a not in renamed)
        events.extend({"event": "inserted", "anchor": b, "at_version": after.lex_id} for b in inserted if b not in renamed)
    return events


def primary_language(versions: Sequence[VersionTexts]) -> str | None:
    counts = Counter(lang for v in versions for lang in v.texts)
    if not counts:
        return None
    best = max(counts.values())
    return min(lang for lang, n in counts.items() if n == best)


def build_history(work_id: str, versions: Sequence[VersionTexts]) -> dict[str, Any]:
    """The history document of one work (languages in ordinal order)."""
    ordered = sorted(versions, key=lambda v: (v.valid_from, v.version_key))
    ends = derived_ends(ordered)
    languages = sorted({lang for v in ordered for lang in v.texts})
    empty: Counter[str] = Counter()
    for v in ordered:
        empty.update(v.empty)
    return {
        "schema": SCHEMA,
        "work_id": work_id,
        "valid_to_convention": "inclusive",
        "profiles": sorted({p for v in ordered for p in v.profiles}),
        "primary_language": primary_language(ordered),
        "versions": [
            {"lex_id": v.lex_id, "version_key": v.version_key, "valid_from": v.valid_from,
             "derived_valid_to": end, "languages": sorted(v.texts)}
            for v, end in zip(ordered, ends, strict=True)
        ],
        "anchors_by_language": {lang: _states(ordered, ends, lang) for lang in languages},
        "anchor_events_by_language": {lang: _events(ordered, lang) for lang in languages},
        "empty_provisions_by_language": dict(sorted(empty.items())),
    }
