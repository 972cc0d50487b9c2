"""The legal operations on the hand-made indexes (exact expectations, fast)."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.schema import INDEX_FORMAT
from legal.errors import RequestError
from serve.core import LegalCore
from serve.core.mount import DeadlineExceeded
from tests.index.handmade import LU_SLUG, W1_V1, W1_V2, sha

W1 = "eu-eurlex:32099r0001"
LU_WORK = f"lu-legilux:{LU_SLUG}"


def test_envelope(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": W1, "date": "2021-06-01"})
    assert answer["outcome"] == "succeeded"
    assert answer["publisher"] == "eu-eurlex"
    assert answer["timeline_semantics"] == "official_consolidation_state"
    assert answer["provisional"] is False
    artifact = answer["artifact"]
    assert artifact["set_id"] == "handmade-set"
    assert artifact["index_format"] == INDEX_FORMAT
    assert len(artifact["content_digest"]) == 64
    lu = handmade_core.call("timeline", {"work": LU_WORK})
    assert lu["timeline_semantics"] == "publisher_applicability"


def test_as_of_full_text_and_hashes(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": W1, "date": "2021-12-31"})
    assert answer["version"]["valid_from"] == "2020-01-01"  # inclusive EUR-Lex end: still the first state
    assert [(p["anchor"], p["text"], p["text_sha256"]) for p in answer["provisions"]] == [
        (a, t, sha(t)) for a, _, _, t in W1_V1]
    later = handmade_core.call("as_of", {"work": W1, "date": "2022-01-01"})
    assert later["version"]["valid_from"] == "2022-01-01"
    assert later["total_provisions"] == len(W1_V2)


def test_outline_has_no_text(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": W1, "date": "2022-06-01", "mode": "outline"})
    assert answer["total_provisions"] == 3 and all("text" not in p for p in answer["provisions"])


def test_same_day_states_are_ambiguous_and_version_key_selects(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-08-01"})
    assert answer["outcome"] == "ambiguous_version"
    keys = [c["version_key"] for c in answer["version_choices"]]
    assert len(keys) == 2 and all(k.startswith("2025-07-28--") for k in keys)
    assert all(not c["withdrawn"] for c in answer["version_choices"])
    texts = set()
    for key in keys:
        chosen = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-08-01", "version_key": key})
        assert chosen["outcome"] == "succeeded"
        assert chosen["version"]["version_key"] == key
        texts.add(chosen["provisions"][0]["text"])
    assert len(texts) == 2


def test_withdrawn_twin_never_makes_ambiguity_but_stays_addressable(handmade_core: LegalCore) -> None:
    timeline = handmade_core.call("timeline", {"work": LU_WORK, "include_withdrawn": True})
    withdrawn = [v for v in timeline["versions"] if v["withdrawn"]]
    assert len(withdrawn) == 1
    answer = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-08-01", "version_key": withdrawn[0]["version_key"]})
    assert answer["outcome"] == "text_withheld" or answer["outcome"] == "text_not_available"
    assert answer["version"]["withdrawn"] is True
    assert handmade_core.call("timeline", {"work": LU_WORK})["total_count"] == 4


def test_version_key_must_cover_the_date(handmade_core: LegalCore) -> None:
    key = handmade_core.call("as_of", {"work": LU_WORK, "date": "2024-06-01"})["version"]["version_key"]
    with pytest.raises(RequestError) as err:
        handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-08-01", "version_key": key})
    assert err.value.code == "version_key_not_effective"
    with pytest.raises(RequestError):
        handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-08-01", "version_key": "2025-07-28--" + "0" * 64})


def test_legilux_end_day_belongs_to_the_next_state(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-07-27"})
    assert answer["version"]["valid_from"] == "2024-01-01"
    assert answer["version"]["valid_to"] == "2025-07-28" and answer["version"]["last_day"] == "2025-07-27"


def test_no_version_for_date_and_unknown_work(handmade_core: LegalCore) -> None:
    early = handmade_core.call("as_of", {"work": W1, "date": "1900-01-01"})
    assert early["outcome"] == "no_version_for_date"
    assert early["nearest_versions"][0]["valid_from"] == "2020-01-01"
    unknown = handmade_core.call("as_of", {"work": "eu-eurlex:32099r9999", "date": "2021-01-01"})
    assert unknown["outcome"] == "unknown_work" and unknown["work"] == "eu-eurlex:32099r9999"
    assert handmade_core.call("as_of", {"work": "nonsense", "date": "2021-01-01"})["outcome"] == "unknown_work"


def test_unknown_publisher(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("coverage", {"publisher": "Luxembourg"})
    assert answer["outcome"] == "unknown_publisher"
    assert answer["mounted_publishers"] == ["eu-eurlex", "lu-legilux"]
    assert handmade_core.call("coverage", {"publisher": "EU-EURLEX"})["outcome"] == "succeeded"
    assert handmade_core.call("coverage", {"publisher": "LU"})["publishers"][0]["publisher"] == "lu-legilux"


def test_anchor_not_in_version_offers_nearest(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": W1, "date": "2023-01-01", "anchors": ["art_9999"]})
    assert answer["outcome"] == "anchor_not_in_version"
    assert answer["nearest_anchors"]["art_9999"] == ["art_3", "art_2", "art_1"]
    partial = handmade_core.call("as_of", {"work": W1, "date": "2023-01-01", "anchors": ["art_2", "art_7"]})
    assert partial["outcome"] == "succeeded" and partial["anchors_not_in_version"] == ["art_7"]


def test_article_1_meets_1er_but_42_never_42ter(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-01-01", "anchors": ["art_1"]})
    assert answer["provisions"][0]["anchor"] == "art_1er"
    assert answer["anchor_matches"] == {"art_1": "art_1er"}
    miss = handmade_core.call("as_of", {"work": LU_WORK, "date": "2025-01-01", "anchors": ["art_42"]})
    assert miss["outcome"] == "anchor_not_in_version"


def test_text_not_available_with_reason(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": "eu-eurlex:32099r0002", "date": "2020-01-01"})
    assert answer["outcome"] == "text_not_available"
    assert answer["text_unavailable_reason"] == "publisher_metadata_only"
    assert answer["version"]["text_state"] == "text_not_available"


def test_provisional_after_built_at(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("as_of", {"work": LU_WORK, "date": "2031-01-01"})
    assert answer["provisional"] is True
    assert answer["outcome"] == "text_not_available"  # the future state is announced without text
    assert handmade_core.call("as_of", {"work": W1, "date": "2026-07-31"})["provisional"] is False
    assert handmade_core.call("timeline", {"work": LU_WORK})["provisional"] is True


def test_diff_word_level(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("diff", {"work": W1, "from_date": "2020-06-01", "to_date": "2022-06-01"})
    assert answer["outcome"] == "succeeded" and answer["changed"] is True
    assert answer["summary"] == {"added": 1, "removed": 0, "changed": 1, "unchanged": 1}
    changed = next(c for c in answer["changes"] if c["change"] == "changed")
    assert changed["anchor"] == "art_1"
    assert changed["words"] == [{"op": "replace", "from_word": 3, "to_word": 3, "removed": "everywhere.",
                                 "added": "everywhere, revised.", "context_before": "The thing applies",
                                 "context_after": ""}]
    added = next(c for c in answer["changes"] if c["change"] == "added")
    assert added["anchor"] == "art_3" and added["text"].startswith("Personal data")
    one = handmade_core.call("diff", {"work": W1, "from_date": "2020-06-01", "to_date": "2022-06-01", "anchor": "art_2"})
    assert one["changed"] is False and one["summary"]["unchanged"] == 1
    none = handmade_core.call("diff", {"work": W1, "from_date": "2020-06-01", "to_date": "2022-06-01", "anchor": "art_9"})
    assert none["outcome"] == "unknown_anchor" and none["anchors_held"] == ["art_1", "art_2", "art_3"]


def test_diff_ambiguous_boundary(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("diff", {"work": LU_WORK, "from_date": "2024-06-01", "to_date": "2025-08-01"})
    assert answer["outcome"] == "ambiguous_version"
    assert len(answer["to_version_choices"]) == 2 and "from_version_choices" not in answer


def test_article_history(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("article_history", {"work": W1, "anchor": "art_1", "include_text": True})
    assert answer["distinct_texts"] == 2
    assert [(s["valid_from"], s["last_day"]) for s in answer["states"]] == [("2020-01-01", "2021-12-31"),
                                                                            ("2022-01-01", None)]
    events = handmade_core.call("article_history", {"work": W1, "anchor": "art_3"})["anchor_events"]
    assert [e["event"] for e in events] == ["inserted"]
    assert handmade_core.call("article_history", {"work": W1, "anchor": "art_77"})["outcome"] == "unknown_anchor"
    none = handmade_core.call("article_history", {"work": "eu-eurlex:32099r0002", "anchor": "art_1"})
    assert none["outcome"] == "no_provision_history" and none["hint"]


def test_in_force_on(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("in_force_on", {"date": "2025-08-01"})
    eu, lu = answer["publishers"]
    assert [w["work"] for w in eu["works"]] == [W1, "eu-eurlex:32099r0002"]
    assert eu["works"][1]["text_available"] is False
    assert lu["outcome"] == "ambiguous_version" and lu["ambiguous_works"][0]["work"] == LU_WORK
    assert answer["outcome"] == "ambiguous_version"


def test_changes_in_period(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("changes_in_period", {"from_date": "2019-01-01", "to_date": "2023-01-01"})
    eu = answer["publishers"][0]
    assert eu["works_changed"] == 2 and eu["new_versions"] == 3
    first, second = eu["changes"]
    assert (first["work"], first["distinct_texts"], first["wording_changed"], first["rank"]) == (W1, 2, True, 1)
    assert (second["distinct_texts"], second["text_comparable"]) == (0, False)
    assert answer["publishers"][1]["outcome"] == "no_changes_in_period"
    empty = handmade_core.call("changes_in_period", {"from_date": "1990-01-01", "to_date": "1991-01-01"})
    assert empty["outcome"] == "no_changes_in_period"


def test_coverage(handmade_core: LegalCore) -> None:
    eu, lu = handmade_core.call("coverage", {})["publishers"]
    assert (eu["works"], eu["versions"], eu["expressions"], eu["versions_with_text"]) == (2, 3, 3, 2)
    assert lu["withdrawn_versions"] == 1 and lu["future_versions"] == 1


def test_cited_by_across_publishers(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("cited_by", {"work": W1})
    assert answer["outcome"] == "succeeded" and answer["cited_work_held"] is True
    lu = next(s for s in answer["publishers"] if s["publisher"] == "lu-legilux")
    assert lu["citing_provisions"] == 2 and {c["anchor"] for c in lu["citations"]} == {"art_1er"}
    assert lu["current_legal_effect_assessed"] is False
    assert handmade_core.call("cited_by", {"work": "eu-eurlex:32099r0002"})["outcome"] == "empty"
    assert handmade_core.call("cited_by", {"work": "eu-eurlex:31999r9999"})["outcome"] == "unknown_work"


def test_provenance_chain(handmade_core: LegalCore) -> None:
    version = handmade_core.call("as_of", {"work": W1, "date": "2021-01-01"})["version"]
    answer = handmade_core.call("provenance", {"lex_id": version["lex_id"] + "#art_1"})
    assert answer["outcome"] == "succeeded"
    chain = answer["chain"]
    assert chain["record_sha256"] == version["record_sha256"]
    assert chain["text_sha256"] == sha(W1_V1[0][3])
    assert chain["index_content_digest"] == answer["artifact"]["content_digest"]
    assert [e["event"] for e in answer["events"]] == ["first_sighting"]
    assert answer["expressions"][0]["observations"][0]["file"] == "en.html"
    missing = handmade_core.call("provenance", {"lex_id": "eu-eurlex:32099r0001:2020-01-01--" + "0" * 64})
    assert missing["outcome"] == "unknown_work"


def _hits(answer: dict[str, Any], publisher: str) -> list[dict[str, Any]]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)["hits"]


def test_search_keyword_and_filters(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("search", {"query": "penalties light"})
    hits = _hits(answer, "eu-eurlex")
    assert len(hits) == 1 and hits[0]["anchor"] == "art_2"  # one hit per wording, newest occurrence
    assert hits[0]["valid_from"] == "2022-01-01" and hits[0]["match_reasons"] == ["keyword"]
    dated = handmade_core.call("search", {"query": "thing applies everywhere", "as_of": "2021-01-01"})
    assert {h["valid_from"] for h in _hits(dated, "eu-eurlex")} == {"2020-01-01"}
    assert _hits(handmade_core.call("search", {"query": "penalties", "language": "fr"}), "eu-eurlex") == []


def test_search_article_intent(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("search", {"query": f"Article 1 {LU_SLUG}"})
    hits = _hits(answer, "lu-legilux")
    assert hits and all(h["anchor"] == "art_1er" for h in hits)
    assert _hits(answer, "eu-eurlex") == []  # the named work is Luxembourg's: other publishers are suppressed
    ter = handmade_core.call("search", {"query": f"Article 42 {LU_SLUG}"})
    # never 42ter: no provision answers; the named work itself does (a named work is never lost, issue #15)
    assert [(h["anchor"], h["match_reasons"][-1]) for h in _hits(ter, "lu-legilux")] == [(None, "residual_unmatched")]


def test_search_short_title_and_metadata(handmade_core: LegalCore) -> None:
    named = handmade_core.call("search", {"query": "Thing Regulation"})
    eu = next(s for s in named["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["query_plan"]["work_resolution_status"] == "resolved"
    assert eu["hits"][0]["match_reasons"] == ["exact_publisher_short_title"]
    weak = handmade_core.call("search", {"query": "consumer protection"})
    hit = _hits(weak, "eu-eurlex")[0]
    assert hit["match_reasons"] == ["work_metadata"]
    assert hit["matched_metadata"]["kind"] == "eurovoc" and hit["matched_metadata"]["label"] == "consumer protection"


def test_fuzzy_expansion_is_reported(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("search", {"query": "protecton"})
    eu = next(s for s in answer["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["query_expansions"] == ["protecton -> protection"]
    assert eu["hits"][0]["match_reasons"] == ["fuzzy"]
    off = handmade_core.call("search", {"query": "protecton", "fuzzy": "off"})
    assert off["outcome"] == "empty"


def test_hybrid_is_refused_honestly(handmade_core: LegalCore) -> None:
    answer = handmade_core.call("search", {"query": "thing", "retrieval_mode": "hybrid"})
    assert answer["outcome"] == "retrieval_mode_unavailable"
    assert all(s["hits"] == [] for s in answer["publishers"])


@pytest.mark.parametrize("hostile", [
    'NEAR(thing everywhere)', '"unbalanced', "title : thing", "thing*", "AND OR NOT", "-thing", "^thing", "(((",
    "'; DROP TABLE texts; --", "\x00", '"" ""', "*", "thing\" OR \"x", "{title}: x", "a" * 1000,
    "eu-eurlex:32099r0001#art_1\"", "Article", "art.", "CELEX:", "https://", "日本語", "\u202e", "🙂 thing",
])
def test_search_injection_strings_do_not_error(handmade_core: LegalCore, hostile: str) -> None:
    answer = handmade_core.call("search", {"query": hostile})
    assert answer["outcome"] in {"succeeded", "empty"}


def test_deadline_interrupts_a_long_query(handmade_core: LegalCore) -> None:
    index = handmade_core.indexes["eu-eurlex"]
    with pytest.raises(DeadlineExceeded), index.session(0.0) as conn:
        conn.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                     "SELECT COUNT(*) FROM (SELECT i FROM n LIMIT 50000000)").fetchone()
    assert handmade_core.call("coverage", {})["outcome"] == "succeeded"  # the connection is still usable


def test_connections_are_read_only(handmade_core: LegalCore) -> None:
    import sqlite3

    index = handmade_core.indexes["eu-eurlex"]
    with pytest.raises(sqlite3.OperationalError), index.session(1.0) as conn:
        conn.execute("DELETE FROM texts")
