"""Small pure parts of the legal core: word diff, edit distance, snippets, anchors, date resolution."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.index.text import edit_distance
from derive.index.worddiff import word_changes
from legal.errors import RequestError
from serve.core import LegalCore
from serve.core.anchors import match_anchor, nearest_anchors
from serve.core.ops import search
from serve.core.resolve import resolve_on
from serve.core.snippet import snippet
from serve.core.store import Version


def _dp(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@given(st.text(alphabet="abcdeé", max_size=14), st.text(alphabet="abcdeé", max_size=14))
def test_bit_parallel_edit_distance_is_levenshtein(a: str, b: str) -> None:
    assert edit_distance(a, b) == _dp(a, b)


def test_word_changes_are_local_with_context() -> None:
    before = "the controller shall notify the authority without undue delay and in any event"
    after = "the controller shall notify the supervisory authority without undue delay and in any event"
    assert word_changes(before, after) == [{
        "op": "insert", "from_word": 5, "to_word": 5, "removed": "", "added": "supervisory",
        "context_before": "controller shall notify the", "context_after": "authority without undue delay"}]
    assert word_changes("a b c", "a b c") == []
    assert [c["op"] for c in word_changes("x y z", "")] == ["delete"]


@given(st.lists(st.sampled_from(["a", "b", "c", "the"]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "c", "the"]), max_size=12))
def test_word_changes_rebuild_the_later_text(a: list[str], b: list[str]) -> None:
    words = list(a)
    for change in reversed(word_changes(" ".join(a), " ".join(b))):
        start = change["from_word"]
        removed = change["removed"].split()
        words[start:start + len(removed)] = change["added"].split()
    assert words == b


def test_snippet_finds_accented_words_and_marks_cuts() -> None:
    text = "Préambule. " * 40 + "Les mesures prévues au présent article s'appliquent. " + "Fin. " * 60
    cut = snippet(text, ["prevues"])
    assert "prévues" in cut and cut.startswith("… ") and cut.endswith(" …")
    assert snippet(text, ["absent"]).startswith("Préambule.")
    assert snippet("   ", ["x"]) == ""


def test_anchor_matching_and_nearest() -> None:
    held = ["art_1er", "art_2", "art_42ter", "art_43", "anx_I"]
    assert match_anchor("art_1", held) == "art_1er"
    assert match_anchor("ART_2", held) == "art_2"
    assert match_anchor("art_42", held) is None
    assert nearest_anchors("art_44", held)[:2] == ["art_43", "art_42ter"]
    assert nearest_anchors("anx_IX", held) == ["anx_I"]


def _v(key: str, start: str, end: str | None, withdrawn: bool = False) -> Version:
    return Version(rowid=hash(key) & 0xFFFF, work_rowid=1, lex_id=f"p:w:{key}", version_key=key,
                   publisher_version_identifier=key, document_type=None, valid_from=start, valid_to=None,
                   valid_to_convention="exclusive", end_exclusive=end, interval_status="closed",
                   valid_time_source="publisher", in_force_status=None, publication_date=None, withdrawn=withdrawn,
                   first_observed=None, record_sha256="0" * 64, provenance_record_sha256=None)


def test_resolution_latest_start_wins_and_withdrawn_never_competes() -> None:
    versions = [_v("a", "2020-01-01", None), _v("b", "2022-01-01", None), _v("c", "2022-01-01", None, withdrawn=True)]
    found = resolve_on(versions, "2023-06-01")
    assert found.version is not None and found.version.version_key == "b"
    assert [v.version_key for v in found.withdrawn_same_day] == ["c"]
    assert resolve_on(versions, "2023-06-01", "c").version == versions[2]
    with pytest.raises(RequestError):
        resolve_on(versions, "2021-06-01", "b")
    assert resolve_on(versions, "2019-01-01").version is None
    inverted = [_v("x", "2004-06-12", "2004-06-12")]  # an inverted publisher interval covers no day
    assert resolve_on(inverted, "2004-06-12").version is None


def test_rank_first_falls_back_when_filters_are_selective(handmade_core: LegalCore,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    args = {"query": "thing", "works": ["eu-eurlex:32099r0001"], "as_of": "2021-01-01"}
    expected = handmade_core.call("search", args)
    monkeypatch.setattr(search, "RANK_FIRST", 1)
    assert handmade_core.call("search", args) == expected
