"""``known_on``: every operation answered as the system held the law on a past day.

The index is built from a Legilux tree that the corpus-tree writer changed on four days
(:mod:`tests.serve_core.known_tree`): first sighting (DAY1), closures and a new state C (DAY2),
C withdrawn (DAY3), C resighted with A's end revised, B's English added and B's French body
changed (DAY4). Days asked: before the first sighting, between sighting and withdrawal, during
the withdrawal, after the resighting.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legal.errors import RequestError
from serve.core import LegalCore
from serve.core.known import Event, known_version, text_at, valid_to_at
from serve.core.known import Observation as Obs
from tests.serve_core.known_tree import HORIZON, WORK, A, B, C, KnownBuild

BEFORE = "2026-02-01"  # nothing held yet
SIGHTED = "2026-03-05"  # A and B sighted, both open; C not yet sighted
WITHDRAWN = "2026-04-15"  # C withdrawn; A closed at 2015-12-31; B French body still the first one
RESIGHTED = "2026-05-15"  # everything as held today


@pytest.fixture(scope="module")
def core(known_build: KnownBuild) -> LegalCore:
    return LegalCore.mount(known_build.index_dir, {"set_id": "known-on-set"})


def _strip(value: Any) -> Any:
    """An answer without what ``known_on`` adds (the echo and the disclosures)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in ("known_on", "as_known")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("as_of", {"work": WORK, "date": "2012-01-01"}),
    ("as_of", {"work": WORK, "date": "2022-01-01", "language": "en", "anchors": ["art_1er"]}),
    ("as_of", {"work": WORK, "date": "2023-01-01", "mode": "outline"}),
    ("timeline", {"work": WORK, "include_withdrawn": True}),
    ("diff", {"work": WORK, "from_date": "2012-01-01", "to_date": "2023-01-01"}),
    ("article_history", {"work": WORK, "anchor": "art_4"}),
    ("in_force_on", {"date": "2023-01-01"}),
    ("changes_in_period", {"from_date": "2000-01-01", "to_date": "2030-01-01"}),
    ("coverage", {}),
    ("search", {"query": "entraide judiciaire", "result_grain": "provisions"}),
    ("cited_by", {"work": WORK}),
]


# -- before anything was held -----------------------------------------------------------------------


@pytest.mark.parametrize("operation, args", [
    ("as_of", {"work": WORK, "date": "2020-01-01"}),
    ("timeline", {"work": WORK}),
    ("diff", {"work": WORK, "from_date": "2012-01-01", "to_date": "2023-01-01"}),
    ("article_history", {"work": WORK, "anchor": "art_1er"}),
])
def test_known_on_before_the_first_sighting_is_not_yet_known(core: LegalCore, operation: str,
                                                            args: dict[str, Any]) -> None:
    answer = core.call(operation, {**args, "known_on": BEFORE})
    assert answer["outcome"] == "not_yet_known"
    assert answer["first_known"] == "2026-03-01" and answer["known_on"] == BEFORE


def test_provenance_before_the_first_sighting_is_not_yet_known(core: LegalCore, known_build: KnownBuild) -> None:
    answer = core.call("provenance", {"lex_id": f"{WORK}:{known_build.version_keys[C]}", "known_on": SIGHTED})
    assert answer["outcome"] == "not_yet_known" and answer["first_known"] == "2026-03-10"


def test_an_exact_key_of_a_state_sighted_later_is_not_yet_known(core: LegalCore, known_build: KnownBuild) -> None:
    key = known_build.version_keys[C]
    answer = core.call("as_of", {"work": WORK, "date": C, "version_key": key, "known_on": SIGHTED})
    assert answer["outcome"] == "not_yet_known" and answer["first_known"] == "2026-03-10"
    diff = core.call("diff", {"work": WORK, "from_date": A, "to_date": C, "to_version_key": key, "known_on": SIGHTED})
    assert diff["outcome"] == "not_yet_known" and diff["version_key"] == key
    assert core.call("as_of", {"work": WORK, "date": C, "version_key": key, "mode": "outline",
                               "known_on": WITHDRAWN})["outcome"] == "succeeded"  # withdrawn then, still addressable


def test_inventory_before_the_first_sighting_holds_nothing(core: LegalCore) -> None:
    coverage = core.call("coverage", {"known_on": BEFORE})["publishers"][0]
    assert (coverage["works"], coverage["versions"], coverage["versions_sighted_later"]) == (0, 0, 3)
    assert core.call("in_force_on", {"date": "2023-01-01", "known_on": BEFORE})["outcome"] == "empty"
    assert core.call("changes_in_period", {"from_date": "2000-01-01", "to_date": "2030-01-01",
                                           "known_on": BEFORE})["outcome"] == "no_changes_in_period"


# -- between sighting and withdrawal -------------------------------------------------------------------


def test_between_sighting_and_closure_the_then_open_state_answers(core: LegalCore, known_build: KnownBuild) -> None:
    today = core.call("as_of", {"work": WORK, "date": "2020-01-01"})
    assert today["outcome"] == "no_version_for_date"  # A ends on 2016-01-01 today
    then = core.call("as_of", {"work": WORK, "date": "2020-01-01", "known_on": SIGHTED, "anchors": ["art_4"]})
    assert then["outcome"] == "succeeded" and then["known_on"] == SIGHTED
    assert then["version"]["version_key"] == known_build.version_keys[A]
    assert then["version"]["valid_to"] is None and then["version"]["end_exclusive"] is None
    later = {e["event"] for r in then["as_known"]["recorded_later"] for e in r["events"]}
    assert later == {"interval_closed", "validity_revised"}
    assert then["as_known"]["versions_sighted_later"] == [known_build.version_keys[C]]
    text = then["provisions"][0]["text"]
    assert text == core.call("as_of", {"work": WORK, "date": "2012-01-01", "anchors": ["art_4"]})["provisions"][0]["text"]


def test_the_timeline_lists_only_the_states_sighted_then(core: LegalCore, known_build: KnownBuild) -> None:
    then = core.call("timeline", {"work": WORK, "known_on": SIGHTED})
    assert [v["version_key"] for v in then["versions"]] == [known_build.version_keys[A], known_build.version_keys[B]]
    assert [v["valid_to"] for v in then["versions"]] == [None, None]
    assert then["versions"][1]["languages"] == ["fr"] and then["versions"][1]["text_languages"] == []
    assert then["versions"][1]["expressions"][0]["known_on_text"]["reason"] == "changed_later"


# -- during the withdrawal -----------------------------------------------------------------------------


def test_during_the_withdrawal_the_withdrawn_state_is_not_served(core: LegalCore, known_build: KnownBuild) -> None:
    today = core.call("as_of", {"work": WORK, "date": "2023-01-01", "mode": "outline"})
    assert today["outcome"] == "succeeded" and today["version"]["version_key"] == known_build.version_keys[C]
    then = core.call("as_of", {"work": WORK, "date": "2023-01-01", "mode": "outline", "known_on": WITHDRAWN})
    assert then["outcome"] == "no_version_for_date"
    (before,) = then["nearest_versions"]  # B, as held then: French only, its text not the one held then
    assert before["version_key"] == known_build.version_keys[B]
    assert (before["languages"], before["text_languages"], before["valid_to"]) == (["fr"], [], C)
    anyway = core.call("as_of", {"work": WORK, "date": "2023-01-01", "mode": "outline", "known_on": WITHDRAWN,
                                 "include_withdrawn": True})
    assert anyway["outcome"] == "succeeded" and anyway["version"]["withdrawn"] is True
    resighted = [e for r in anyway["as_known"]["recorded_later"] for e in r["events"]]
    assert [e["event"] for e in resighted] == ["resighted"] and resighted[0]["observed_from"] == "2026-05-01T03:00:00Z"


def test_the_timeline_during_the_withdrawal(core: LegalCore, known_build: KnownBuild) -> None:
    live = core.call("timeline", {"work": WORK, "known_on": WITHDRAWN})
    assert [v["version_key"] for v in live["versions"]] == [known_build.version_keys[A], known_build.version_keys[B]]
    every = core.call("timeline", {"work": WORK, "known_on": WITHDRAWN, "include_withdrawn": True})
    assert [v["withdrawn"] for v in every["versions"]] == [False, False, True]
    assert [v["valid_to"] for v in every["versions"]] == ["2015-12-31", C, None]


def test_the_revised_end_is_undone(core: LegalCore) -> None:
    then = core.call("as_of", {"work": WORK, "date": "2015-12-31", "mode": "outline", "known_on": WITHDRAWN})
    assert then["outcome"] == "no_version_for_date"  # ended (exclusive) on 2015-12-31 then
    today = core.call("as_of", {"work": WORK, "date": "2015-12-31", "mode": "outline"})
    assert today["outcome"] == "succeeded" and today["version"]["valid_to"] == "2016-01-01"


def test_a_language_added_later_was_not_known(core: LegalCore) -> None:
    args = {"work": WORK, "date": "2022-01-01", "language": "en", "anchors": ["art_1er"]}
    assert core.call("as_of", args)["outcome"] == "succeeded"
    then = core.call("as_of", {**args, "known_on": WITHDRAWN})
    assert then["outcome"] == "text_not_available" and then["available_languages"] == ["fr"]
    assert "provisions" not in then


def test_a_body_changed_later_is_never_served_as_the_text_known_then(core: LegalCore, known_build: KnownBuild) -> None:
    then = core.call("as_of", {"work": WORK, "date": "2022-01-01", "known_on": WITHDRAWN})
    assert then["outcome"] == "text_not_available" and "provisions" not in then
    assert then["text_unavailable_reason"] == "known_on:changed_later"
    held = then["known_on_text"]
    assert held["held_then_sha256"] == known_build.b_fr_first and held["held_now_sha256"] == known_build.b_fr_now
    assert held["held_then_retrieved_at"] == "2026-03-01T03:00:00Z"
    diff = core.call("diff", {"work": WORK, "from_date": "2012-01-01", "to_date": "2022-01-01", "known_on": SIGHTED})
    assert diff["outcome"] == "text_not_available" and diff["to_text_unavailable_reason"] == "known_on:changed_later"
    assert "changes" not in diff


def test_provenance_as_known_hides_later_events_and_observations(core: LegalCore, known_build: KnownBuild) -> None:
    lex_id = f"{WORK}:{known_build.version_keys[B]}"
    today = core.call("provenance", {"lex_id": lex_id})
    then = core.call("provenance", {"lex_id": lex_id, "known_on": WITHDRAWN})
    assert [e["event"] for e in today["events"]] == ["first_sighting", "interval_closed", "metadata_revised",
                                                     "expression_added"]
    assert [e["event"] for e in then["events"]] == ["first_sighting", "interval_closed"]
    (fr,) = then["expressions"]
    assert [o["sha256"] for o in fr["observations"]] == [known_build.b_fr_first]
    assert fr["known_on_text"]["reason"] == "changed_later"
    refused = core.call("provenance", {"lex_id": f"{lex_id}#art_1er", "known_on": WITHDRAWN})
    assert refused["outcome"] == "text_not_available"
    withdrawn = core.call("provenance", {"lex_id": f"{WORK}:{known_build.version_keys[C]}", "known_on": WITHDRAWN})
    assert withdrawn["withdrawn"] is True and today["withdrawn"] is False


def test_inventory_during_the_withdrawal(core: LegalCore) -> None:
    in_force = core.call("in_force_on", {"date": "2023-01-01", "known_on": WITHDRAWN})
    assert in_force["outcome"] == "empty" and in_force["known_on"] == WITHDRAWN
    assert in_force["publishers"][0]["as_known"]["versions_withdrawn_then"] == 1
    coverage = core.call("coverage", {"known_on": WITHDRAWN})["publishers"][0]
    assert (coverage["versions"], coverage["withdrawn_versions"], coverage["expressions"],
            coverage["versions_with_text"], coverage["expressions_text_not_held_then"]) == (2, 1, 2, 1, 1)
    changes = core.call("changes_in_period", {"from_date": "2000-01-01", "to_date": "2030-01-01",
                                              "known_on": WITHDRAWN})["publishers"][0]
    assert changes["new_versions"] == 2 and changes["changes"][0]["wording_changed"] is False


def test_search_as_known_keeps_only_hits_held_then(core: LegalCore, known_build: KnownBuild) -> None:
    args = {"query": "entraide judiciaire", "result_grain": "provisions"}
    today = {h["version_key"] for h in core.call("search", args)["publishers"][0]["hits"]}
    assert known_build.version_keys[C] in today
    hits = core.call("search", {**args, "known_on": WITHDRAWN})["publishers"][0]["hits"]
    assert hits and {h["version_key"] for h in hits} == {known_build.version_keys[A]}
    assert {h["valid_to"] for h in hits} == {"2015-12-31"}


def test_article_history_is_rebuilt_from_the_states_held_then(core: LegalCore, known_build: KnownBuild) -> None:
    then = core.call("article_history", {"work": WORK, "anchor": "art_4", "known_on": WITHDRAWN})
    assert then["outcome"] == "succeeded"
    assert [(s["valid_from"], s["end_exclusive"]) for s in then["states"]] == [(A, "2015-12-31")]
    assert then["as_known"]["texts_not_held_then"] == [known_build.version_keys[B]]


# -- after the resighting: today's answers ------------------------------------------------------------


@pytest.mark.parametrize("known_on", [RESIGHTED, HORIZON])
@pytest.mark.parametrize("operation, args", CALLS)
def test_after_the_last_change_the_answer_is_today_s(core: LegalCore, operation: str, args: dict[str, Any],
                                                     known_on: str) -> None:
    answer = core.call(operation, {**args, "known_on": known_on})
    assert answer["known_on"] == known_on
    assert _strip(answer) == core.call(operation, args)


@settings(max_examples=25, deadline=None)
@given(st.dates(min_value=dt.date(2026, 1, 1), max_value=dt.date(2026, 6, 1)))
def test_any_day_shows_a_subset_of_today_s_states_and_today_s_answer_after_the_last_event(core: LegalCore,
                                                                                         day: dt.date) -> None:
    known_on = day.isoformat()
    today = core.call("timeline", {"work": WORK, "include_withdrawn": True})
    then = core.call("timeline", {"work": WORK, "include_withdrawn": True, "known_on": known_on})
    if then["outcome"] == "not_yet_known":
        assert known_on < "2026-03-01"
        return
    assert {v["version_key"] for v in then["versions"]} <= {v["version_key"] for v in today["versions"]}
    if known_on >= "2026-05-01":
        assert _strip(then) == today


# -- refusals -----------------------------------------------------------------------------------------


def test_known_on_after_the_horizon_or_not_a_date_is_refused(core: LegalCore) -> None:
    with pytest.raises(RequestError) as after:
        core.call("as_of", {"work": WORK, "date": "2020-01-01", "known_on": "2026-06-02"})
    assert after.value.code == "known_on_after_horizon" and after.value.subject == "known_on"
    for bad in ("2026-02-30", "yesterday", "2026-3-1"):
        with pytest.raises(RequestError) as info:
            core.call("coverage", {"known_on": bad})
        assert info.value.code == "invalid_date"


def test_every_operation_declares_known_on() -> None:
    from serve.core import OPERATIONS

    for spec in OPERATIONS.values():
        assert spec.input_schema["properties"]["known_on"]["format"] == "date", spec.name


# -- the pure view functions --------------------------------------------------------------------------


def _ev(event: str, day: str, detail: str | None = None) -> Event:
    return Event(event, f"{day}T03:00:00Z", "version", detail)


def test_valid_to_undoes_only_events_after_the_day(core: LegalCore) -> None:
    from serve.core.store import Version

    version = Version(1, 1, "x", "k", "p", None, "2020-01-01", "2021-01-01", "exclusive", "2021-01-01", "closed",
                      "publisher", None, None, False, None, "r", None)
    events = [_ev("first_sighting", "2026-01-01"), _ev("interval_closed", "2026-02-01", "valid_to=2020-06-01"),
              _ev("validity_revised", "2026-03-01", "valid_to: 2020-06-01 -> 2021-01-01")]
    assert valid_to_at(version, events, "2026-01-15") is None
    assert valid_to_at(version, events, "2026-02-01") == "2020-06-01"  # the whole day of an event counts
    assert valid_to_at(version, events, "2026-03-01") == "2021-01-01"
    held = known_version(version, events, "2026-02-15")
    assert held is not None and held.version.end_exclusive == "2020-06-01"
    assert known_version(version, events, "2025-12-31") is None
    unreadable = [*events[:1], _ev("validity_revised", "2026-02-01", "something else")]
    assert valid_to_at(version, unreadable, "2026-01-15") == "2021-01-01"  # kept, and disclosed as later


def test_text_at_needs_the_same_body_then() -> None:
    from serve.core.store import Expression

    expr = Expression(1, 1, "fr", None, None, None, True, None, None, "provisions", None, "p", "bbb", "fr.xml", 3, None)
    seen = [Obs("fr.xml", "aaa", "2026-01-01T00:00:00Z"), Obs("fr.xml", "bbb", "2026-02-01T00:00:00Z"),
            Obs("fr.xml", "aaa", "2026-03-01T00:00:00Z"), Obs("fr.xml", "bbb", "2026-04-01T00:00:00Z")]
    assert text_at(expr, seen[:2], "2026-02-01") is None
    changed = text_at(expr, seen, "2026-03-15")
    assert changed is not None and changed.held_then_sha256 == "aaa"  # A → B → A → B: the body then was A
    assert text_at(expr, seen, "2026-02-15") is None  # the same body B then: proven unchanged
    missing = text_at(expr, seen, "2025-12-31")
    assert missing is not None and missing.reason == "not_yet_held"


def test_valid_to_reads_the_exported_corpora_detail_like_the_dataset() -> None:
    """The exported corpora state a revised end as ``field=valid_to;old=…;new=…``: the core undoes
    it as the dataset's transaction-time table does (one reading, ``legal.record_events``)."""
    from serve.core.store import Version

    version = Version(1, 1, "x", "k", "p", None, "2020-01-01", "2022-01-01", "exclusive", "2022-01-01", "closed",
                      "publisher", None, None, False, None, "r", None)
    events = [_ev("first_sighting", "2026-01-01"),
              _ev("validity_revised", "2026-03-01", "field=valid_to;old=2021-01-01;new=2022-01-01")]
    assert valid_to_at(version, events, "2026-02-01") == "2021-01-01"
    assert valid_to_at(version, events, "2026-03-01") == "2022-01-01"
