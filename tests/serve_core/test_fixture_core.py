"""The legal operations on indexes built from the real publisher fixtures (import → derive → index)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from serve.core import LegalCore
from tests.index.pipeline import FixtureBuild

GDPR = "eu-eurlex:32016r0679"
CRR = "eu-eurlex:32013r0575"
CONSUMER_CODE = "lu-legilux:loi-2011-04-08-n2"  # "Code de la consommation" in SELECTION.tsv


def _dataset_row(dataset: Path, lex_id_prefix: str, anchor: str, language: str) -> dict[str, Any]:
    with (dataset / "provisions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["lex_id"].startswith(lex_id_prefix) and row["anchor"] == anchor and row["language"] == language:
                return dict(row)
    raise AssertionError(f"no dataset row {lex_id_prefix}#{anchor} ({language})")


def test_gdpr_article_6_on_2021(fixture_core: LegalCore, fixture_indexes: FixtureBuild) -> None:
    answer = fixture_core.call("as_of", {"work": GDPR, "date": "2021-01-01", "anchors": ["art_6"], "language": "en"})
    assert answer["outcome"] == "succeeded"
    assert answer["version"]["valid_from"] == "2016-05-04"
    assert answer["version"]["version_key"] == \
        "2016-05-04--af3e8edcc8aeb9b8c10e891880377cb0b363a8fa7005a1b45557d21afa592de5"
    provision = answer["provisions"][0]
    row = _dataset_row(fixture_indexes.datasets["eu"], f"{GDPR}:2016-05-04--", "art_6", "en")
    assert provision["text"] == row["text_md"]
    assert provision["text_sha256"] == row["text_sha256"]
    assert provision["provision_id"] == row["provision_id"]
    assert answer["version"]["record_sha256"] == row["record_sha256"]
    assert answer["version"]["evidence_sha256"] == row["evidence_sha256"]
    assert answer["timeline_semantics"] == "official_consolidation_state"


def test_crr_article_92_on_2020_03_01(fixture_core: LegalCore, fixture_indexes: FixtureBuild) -> None:
    answer = fixture_core.call("as_of", {"work": "32013R0575", "date": "2020-03-01", "anchors": ["art_92"]})
    assert answer["outcome"] == "succeeded"
    assert answer["work"] == CRR
    assert answer["version"]["valid_from"] == "2019-12-25"
    assert answer["version"]["version_key"].endswith("885444880fcd2d2508d74ddca812d515f9ff4041cbeddd34ad5d4311006dee48")
    row = _dataset_row(fixture_indexes.datasets["eu"], f"{CRR}:2019-12-25--", "art_92", answer["version"]["language"])
    assert answer["provisions"][0]["text_sha256"] == row["text_sha256"]


def test_consumer_code_same_day_twin(fixture_core: LegalCore) -> None:
    """Both same-day twins of the fixture are withdrawn_from_source: the bare date answers with the live
    state and discloses the twin; the twin's exact key still selects it."""
    timeline = fixture_core.call("timeline", {"work": CONSUMER_CODE, "include_withdrawn": True, "limit": 200})
    by_day: dict[str, list[dict[str, Any]]] = {}
    for version in timeline["versions"]:
        by_day.setdefault(version["valid_from"], []).append(version)
    same_day = {d: vs for d, vs in by_day.items() if len(vs) > 1}
    assert set(same_day) == {"2024-09-10", "2025-10-19"}
    for day, versions in same_day.items():
        answer = fixture_core.call("as_of", {"work": CONSUMER_CODE, "date": day, "mode": "outline"})
        live = [v for v in versions if not v["withdrawn"]]
        twins = [v["version_key"] for v in versions if v["withdrawn"]]
        assert answer["version"]["version_key"] == live[0]["version_key"]
        assert answer["withdrawn_same_day"] == twins
        for version in versions:
            chosen = fixture_core.call("as_of", {"work": CONSUMER_CODE, "date": day, "version_key": version["version_key"]})
            assert chosen["version"]["version_key"] == version["version_key"]
            assert chosen["outcome"] in {"succeeded", "text_withheld", "text_not_available"}


def test_consumer_code_same_day_is_ambiguous_when_withdrawn_states_count(fixture_core: LegalCore) -> None:
    """Counting every state ever published (include_withdrawn), a same-day date of the Code de la
    consommation answers ambiguous_version with the exact keys, and version_key selects one."""
    for day, probe in (("2024-09-10", "2024-10-01"), ("2025-10-19", "2025-11-01")):
        answer = fixture_core.call("as_of", {"work": CONSUMER_CODE, "date": probe, "mode": "outline",
                                             "include_withdrawn": True})
        assert answer["outcome"] == "ambiguous_version"
        keys = [c["version_key"] for c in answer["version_choices"]]
        assert len(keys) == 2 and all(k.startswith(f"{day}--") for k in keys)
        for key in keys:
            chosen = fixture_core.call("as_of", {"work": CONSUMER_CODE, "date": probe, "version_key": key,
                                                 "mode": "outline"})
            assert chosen["version"]["version_key"] == key


def test_no_version_for_date_in_a_publisher_gap(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("as_of", {"work": CONSUMER_CODE, "date": "2018-05-01"})
    assert answer["outcome"] == "no_version_for_date"
    assert [v["valid_from"] for v in answer["nearest_versions"]] == ["2017-11-13", "2018-07-01"]


def test_unknown_work(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("as_of", {"work": "eu-eurlex:32099r9999", "date": "2021-01-01"})
    assert answer["outcome"] == "unknown_work"


def test_anchor_not_in_version_lists_nearest(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("as_of", {"work": GDPR, "date": "2021-01-01", "anchors": ["art_9999"]})
    assert answer["outcome"] == "anchor_not_in_version"
    assert answer["nearest_anchors"]["art_9999"][0] == "art_99"
    assert answer["anchors_in_version"] > 90


@pytest.mark.parametrize(("work", "date", "outcome"), [
    (CONSUMER_CODE, "2019-01-01", "text_not_available"),   # metadata-only state (no body held)
    ("eu-eurlex:32003r2273", "2010-01-01", "text_not_available"),  # a state with no expression at all
    ("lu-legilux:loi-1925-12-17-n1", "2020-01-01", "text_withheld"),  # pending-gate: publisher text gate
])
def test_text_less_states(fixture_core: LegalCore, work: str, date: str, outcome: str) -> None:
    answer = fixture_core.call("as_of", {"work": work, "date": date})
    assert answer["outcome"] == outcome
    assert answer["text_unavailable_reason"]
    assert "provisions" not in answer


def test_future_state_is_provisional(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("as_of", {"work": "lu-legilux:loi-2009-02-06-n3", "date": "2030-01-01"})
    assert answer["provisional"] is True
    assert answer["version"]["valid_from"] > "2026-08-22"
    now = fixture_core.call("as_of", {"work": "lu-legilux:loi-2009-02-06-n3", "date": "2026-01-01"})
    assert now["provisional"] is False


def test_crr_article_92_history(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("article_history", {"work": CRR, "anchor": "art_92", "language": "en"})
    assert answer["outcome"] == "succeeded"
    assert answer["distinct_texts"] >= 2
    starts = [s["valid_from"] for s in answer["states"]]
    assert starts == sorted(starts)


def test_diff_gdpr_original_to_consolidation(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("diff", {"work": GDPR, "from_date": "2016-04-30", "to_date": "2021-01-01",
                                        "language": "en"})
    assert answer["outcome"] in {"succeeded", "not_comparable"}
    if answer["outcome"] == "succeeded":
        assert all("words" in c for c in answer["changes"] if c["change"] == "changed")


def test_search_gdpr_article_6(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "Article 6 GDPR"})
    eu = next(s for s in answer["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["query_plan"]["work_constraints"] == [GDPR]
    assert eu["hits"][0]["anchor"] == "art_6"
    assert answer["query"]["article"]["key"] == "6"


def test_search_identifier_and_words(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "32013R0575"})
    eu = next(s for s in answer["publishers"] if s["publisher"] == "eu-eurlex")
    assert eu["hits"][0]["work"] == CRR and eu["hits"][0]["match_reasons"] == ["exact_identifier"]
    words = fixture_core.call("search", {"query": "protection des données", "language": "fr"})
    assert words["outcome"] == "succeeded"


def test_every_operation_answers_on_real_data(fixture_core: LegalCore) -> None:
    assert fixture_core.call("coverage", {})["outcome"] == "succeeded"
    assert fixture_core.call("in_force_on", {"date": "2021-01-01", "limit": 5})["outcome"] in {"succeeded",
                                                                                                "ambiguous_version"}
    assert fixture_core.call("changes_in_period", {"from_date": "2020-01-01", "to_date": "2021-01-01"})[
        "outcome"] == "succeeded"
    assert fixture_core.call("cited_by", {"work": "lu-legilux:loi-2011-04-08-n2"})["outcome"] in {"succeeded", "empty"}
    version = fixture_core.call("as_of", {"work": GDPR, "date": "2021-01-01", "mode": "outline"})["version"]
    assert fixture_core.call("provenance", {"lex_id": version["lex_id"] + "#art_6"})["outcome"] == "succeeded"
