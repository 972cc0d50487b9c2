"""Per-anchor text history of a work in one language (``provision_states``, ``anchor_events``).

A *state* is a maximal run of consecutive versions (with text in that language) in which an
anchor keeps the same ``text_sha256`` and the versions' half-open intervals touch (one ends
where the next starts). A publisher gap, a version without text in between, or a change of
wording closes the state. So a state is *observed text identity* over a continuous interval:
it never claims validity over days the publisher left uncovered.

Between two consecutive versions with text, anchors present only in the later one are
``inserted``, only in the earlier one ``removed``; a removed/inserted pair whose wording is
identical and unique on both sides is reported once as ``renumbered`` instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class VersionText:
    """The provisions of one version in one language, in document order."""

    version_rowid: int
    valid_from: str
    end_exclusive: str | None
    provisions: tuple[tuple[str, str, str | None], ...]  # (anchor, text_sha256, article_valid_from)


@dataclass
class _State:
    anchor: str
    seq: int
    valid_from: str
    end_exclusive: str | None
    text_sha256: str
    first_version: int
    last_version: int
    versions: int = 1
    article_valid_from: str | None = None


@dataclass
class History:
    states: list[tuple[object, ...]] = field(default_factory=list)
    events: list[tuple[object, ...]] = field(default_factory=list)


def _transition(prev: dict[str, str], cur: dict[str, str]) -> list[tuple[str, str, str | None, str | None]]:
    """``(event, anchor, from_anchor, text_sha256)`` between two anchor→sha maps."""
    removed = sorted(a for a in prev if a not in cur)
    inserted = sorted(a for a in cur if a not in prev)
    removed_by_sha = Counter(prev[a] for a in removed)
    inserted_by_sha = Counter(cur[a] for a in inserted)
    renumbered: dict[str, str] = {}
    for anchor in removed:
        sha = prev[anchor]
        if removed_by_sha[sha] == 1 and inserted_by_sha[sha] == 1:
            target = next(a for a in inserted if cur[a] == sha)
            renumbered[target] = anchor
    out: list[tuple[str, str, str | None, str | None]] = []
    out.extend(("renumbered", target, source, cur[target]) for target, source in sorted(renumbered.items()))
    out.extend(("inserted", a, None, cur[a]) for a in inserted if a not in renumbered)
    moved = set(renumbered.values())
    out.extend(("removed", a, None, prev[a]) for a in removed if a not in moved)
    return out


def build_history(work_rowid: int, language: str, texts: Sequence[VersionText]) -> History:
    """States and anchor events of one work in one language, from its versions in time order."""
    open_states: dict[str, _State] = {}
    all_states: list[_State] = []
    counters: Counter[str] = Counter()
    history = History()
    previous: VersionText | None = None
    prev_map: dict[str, str] = {}
    for vt in texts:
        cur_map = {anchor: sha for anchor, sha, _ in vt.provisions}
        contiguous = previous is not None and previous.end_exclusive == vt.valid_from
        for anchor, sha, article_from in vt.provisions:
            state = open_states.get(anchor)
            if (state is not None and contiguous and previous is not None and state.text_sha256 == sha
                    and state.last_version == previous.version_rowid):
                state.last_version = vt.version_rowid
                state.end_exclusive = vt.end_exclusive
                state.versions += 1
                continue
            state = _State(anchor=anchor, seq=counters[anchor], valid_from=vt.valid_from,
                           end_exclusive=vt.end_exclusive, text_sha256=sha, first_version=vt.version_rowid,
                           last_version=vt.version_rowid, article_valid_from=article_from)
            counters[anchor] += 1
            open_states[anchor] = state
            all_states.append(state)
        if previous is not None:
            for event, moved, source, moved_sha in _transition(prev_map, cur_map):
                history.events.append((work_rowid, language, len(history.events), vt.version_rowid, event, moved,
                                       source, moved_sha))
        previous, prev_map = vt, cur_map
    for s in sorted(all_states, key=lambda s: (s.anchor, s.seq)):
        history.states.append((work_rowid, language, s.anchor, s.seq, s.valid_from, s.end_exclusive, s.text_sha256,
                               s.first_version, s.last_version, s.versions, s.article_valid_from))
    return history
