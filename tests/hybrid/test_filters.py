"""Filters come before fusion: a semantic candidate that fails a filter never enters a result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hybrid.activate import attach_for_measurement
from hybrid.registry import lane_for
from serve.core import LegalCore
from serve.core import SearchFilters as Filters
from tests.hybrid.fakes import FakeEncoder

EU = "eu-eurlex"
#: The v2-only provision (from 2022-01-01): its own text, so the fake encoder ranks it first.
ART_3 = "Protection\nPersonal data protection requires a lawful basis."
QUERY = "thing applies"


@pytest.fixture
def core(index_dir: Path) -> Iterator[LegalCore]:
    with LegalCore.mount(index_dir, {"set_id": "hybrid-test"}) as mounted:
        decisions, _ = attach_for_measurement(mounted, index_dir, FakeEncoder({QUERY: ART_3}))
        assert all(d.activated for d in decisions.values())
        yield mounted


def _anchors(answer: dict[str, Any], publisher: str = EU) -> list[str | None]:
    section = next(s for s in answer["publishers"] if s["publisher"] == publisher)
    return [h["anchor"] for h in section["hits"]]


def test_semantic_first_candidate_is_dropped_by_as_of(core: LegalCore) -> None:
    index = core.indexes[EU]
    lane = lane_for(index)
    assert lane is not None
    query = lane.encoder.encode_query(QUERY)
    with index.session(5.0) as conn:
        unfiltered = lane.semantic_hits(conn, query, Filters())
        on_2020 = lane.semantic_hits(conn, query, Filters(as_of="2020-06-01"))
    assert unfiltered[0].row["anchor"] == "art_3"  # it would rank first…
    assert "art_3" not in [h.row["anchor"] for h in on_2020]  # …but it is not valid on that day
    assert all(h.row["valid_from"] <= "2020-06-01" < (h.row["end_exclusive"] or "9999") for h in on_2020)
    assert on_2020  # the eligible states are still found (exact fallback past the first candidates)


def test_eligibility_is_decided_before_ranking(core: LegalCore) -> None:
    index = core.indexes[EU]
    lane = lane_for(index)
    assert lane is not None
    with index.session(5.0) as conn:
        mask = lane.eligible(conn, Filters(as_of="2020-06-01"))
        eligible_ids = {int(i) for i in lane.state_ids[mask]}
        anchors = {r[0] for r in conn.execute(
            f"SELECT anchor FROM lexical_states WHERE state_rowid IN ({','.join(map(str, eligible_ids))})")}
        assert anchors == {"art_1", "art_2"}  # the 2020 wordings only; art_3 exists from 2022
        # depth 1: the single best *eligible* state, although a filtered one scores higher
        hits = lane.semantic_hits(conn, lane.encoder.encode_query(QUERY), Filters(as_of="2020-06-01"), depth=1)
    assert len(hits) == 1 and hits[0].row["anchor"] in {"art_1", "art_2"}


def test_hybrid_search_never_returns_the_filtered_candidate(core: LegalCore) -> None:
    args = {"query": QUERY, "publisher": EU, "retrieval_mode": "hybrid", "limit": 10}
    everything = core.call("search", args)
    assert everything["publishers"][0]["retrieval_fusion"] == "rrf"
    assert "art_3" in _anchors(everything)  # fused in from the semantic lane
    dated = core.call("search", {**args, "time_scope": "as_of", "as_of": "2020-06-01"})
    section = dated["publishers"][0]
    assert section["retrieval_mode"] == "hybrid" and section["outcome"] == "succeeded"
    assert "art_3" not in _anchors(dated)
    assert all(h["valid_from"] <= "2020-06-01" for h in section["hits"])


def test_other_filters_apply_to_the_semantic_lane(core: LegalCore) -> None:
    index = core.indexes[EU]
    lane = lane_for(index)
    assert lane is not None
    w2 = index.catalogue.rowid_of["32099r0002"]  # a work without text
    with index.session(5.0) as conn:
        query = lane.encoder.encode_query(QUERY)
        assert lane.semantic_hits(conn, query, Filters(works=(w2,))) == []
        assert lane.semantic_hits(conn, query, Filters(language="fr")) == []
        assert lane.semantic_hits(conn, query, Filters(document_type="DIR")) == []


def test_no_lexical_evidence_means_the_keyword_answer(core: LegalCore) -> None:
    answer = core.call("search", {"query": "zebra xylophone", "publisher": EU, "retrieval_mode": "hybrid"})
    section = answer["publishers"][0]
    assert section["retrieval_fusion"] == "keyword_anchored" and section["hits"] == []
