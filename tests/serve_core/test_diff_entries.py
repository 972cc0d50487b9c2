"""The one-pass comparison of a diff's two sides gives the entries and counts of the plain rule,
whatever the anchors (held twice on a side included)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from serve.core.ops.diff import _entries
from serve.core.store import ProvisionKey


def _plain(old: list[ProvisionKey], new: list[ProvisionKey]) -> tuple[list[object], dict[str, int]]:
    """The rule as first written: dicts of both sides (the last occurrence of an anchor wins)."""
    before = {p.anchor: p for p in old}
    after = {p.anchor: p for p in new}
    entries: list[object] = []
    for p in new:
        if p.anchor not in before:
            entries.append(("added", p.anchor, None, p))
        elif before[p.anchor].text_sha256 != p.text_sha256:
            entries.append(("changed", p.anchor, before[p.anchor], p))
    entries.extend(("removed", p.anchor, p, None) for p in old if p.anchor not in after)
    summary = {k: sum(1 for e in entries if e[0] == k) for k in ("added", "removed", "changed")}  # type: ignore[index]
    summary["unchanged"] = sum(
        1 for p in new if p.anchor in before and before[p.anchor].text_sha256 == p.text_sha256
    )
    return entries, summary


_keys = st.lists(
    st.builds(
        ProvisionKey,
        st.sampled_from(["art_1", "art_2", "art_2bis", "art_3", "annexe"]),
        st.sampled_from(["a" * 64, "b" * 64, "c" * 64]),
        st.sampled_from([None, "1", "2"]),
        st.sampled_from([None, "Titre"]),
    ),
    max_size=12,
)


@settings(max_examples=400, deadline=None)
@given(_keys, _keys)
def test_one_pass_entries_are_the_plain_rules(
    old: list[ProvisionKey], new: list[ProvisionKey]
) -> None:
    entries, summary = _entries(old, new)
    assert (entries, summary) == _plain(old, new)
    assert list(summary) == ["added", "removed", "changed", "unchanged"]  # the answer's key order


def test_an_anchor_held_twice_is_compared_with_its_last_occurrence() -> None:
    a, b = "a" * 64, "b" * 64
    old = [ProvisionKey("art_1", a, "1", None), ProvisionKey("art_1", b, "1", None)]
    new = [ProvisionKey("art_1", a, "1", None), ProvisionKey("art_1", b, "1", None)]
    entries, summary = _entries(old, new)
    assert entries == [("changed", "art_1", old[1], new[0])]
    assert summary == {"added": 0, "removed": 0, "changed": 1, "unchanged": 1}
