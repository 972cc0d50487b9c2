"""The titles-only vectors build (``scope: titles``) and the title lane's work rows on real fixture indexes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from derive.index.read import check_mountable, open_readonly
from derive.vectors.build import build_vectors, manifest_file_name
from derive.vectors.store import load_vectors
from hybrid.activate import attach_for_measurement
from hybrid.registry import lane_for
from hybrid.sections import fuse_shaped
from legal.errors import IndexError_
from serve.core import LegalCore
from serve.core import SearchFilters as Filters
from tests.hybrid.fakes import FakeEncoder

EU = "eu-eurlex"
LU = "lu-legilux"
#: Steers the fake encoder's query vector onto the title of the work without text (32099r0002).
QUERY = "thing applies"
TITLE = "Regulation without text"


def _titles_only(index_dir: Path) -> None:
    for publisher in (EU, LU):
        build_vectors(index_dir / f"{publisher}.sqlite", FakeEncoder(), scope="titles")


@pytest.fixture
def core(index_dir: Path) -> Iterator[LegalCore]:
    _titles_only(index_dir)
    with LegalCore.mount(index_dir, {"set_id": "hybrid-titles"}) as mounted:
        decisions, _ = attach_for_measurement(mounted, index_dir, FakeEncoder({QUERY: TITLE}))
        assert all(d.activated for d in decisions.values())
        yield mounted


def test_titles_scope_writes_work_rows_only_and_loads(index_dir: Path) -> None:
    path = index_dir / f"{EU}.sqlite"
    full = json.loads((index_dir / manifest_file_name(EU)).read_text(encoding="utf-8"))
    assert "scope" not in full and full["counts"]["state_rows"] > 0  # a full build's manifest is unchanged
    result = build_vectors(path, FakeEncoder(), scope="titles")
    manifest = result.manifest
    assert manifest["scope"] == "titles" and manifest["schema"] == "lex-evidence-vectors/1"
    assert result.state_rows == 0 and result.work_rows == manifest["vectors"]["count"] > 0
    assert {row[0] for row in manifest["rows"]} == {"w"}
    assert manifest["counts"]["work_rows"] == full["counts"]["work_rows"]  # the same title rows as a full build
    conn = open_readonly(path)
    try:
        stamp = check_mountable(conn, path.name)
    finally:
        conn.close()
    loaded = load_vectors(path, stamp)  # the reader needs nothing new
    assert not loaded.kinds.any() and len(loaded.rowids) == result.count


def test_unknown_scope_is_a_typed_error(index_dir: Path) -> None:
    with pytest.raises(IndexError_) as err:
        build_vectors(index_dir / f"{EU}.sqlite", FakeEncoder(), scope="headings")
    assert err.value.code == "invalid_argument"


def test_title_lane_work_rows_pass_the_filters(core: LegalCore) -> None:
    index = core.indexes[EU]
    lane = lane_for(index)
    assert lane is not None and len(lane.state_ids) == 0  # a titles-only lane has no provision rows
    w1, w2 = index.catalogue.rowid_of["32099r0001"], index.catalogue.rowid_of["32099r0002"]
    query = lane.encoder.encode_query(QUERY)
    with index.session(5.0) as conn:
        assert lane.semantic_hits(conn, query, Filters()) == []
        hits = lane.title_hits(conn, query, Filters(), depth=10)
        assert [h.row["work_rowid"] for h in hits][:1] == [w2]  # nearest title first
        assert all(h.row["anchor"] is None and h.reasons == ["semantic_work"] for h in hits)
        assert lane.title_hits(conn, query, Filters(), depth=0) == []
        # work constraints, as_of (w2 starts 2019-06-01), document type and language all apply
        assert [h.row["work_rowid"] for h in lane.title_hits(conn, query, Filters(works=(w1,)), 10)] == [w1]
        assert w2 not in [h.row["work_rowid"] for h in lane.title_hits(conn, query, Filters(as_of="2019-01-01"), 10)]
        assert lane.title_hits(conn, query, Filters(document_type="DIR"), 10) == []
        assert lane.title_hits(conn, query, Filters(language="fr"), 10) == []
        on_2020 = lane.title_hits(conn, query, Filters(as_of="2020-06-01"), 10)
    assert on_2020 and all(h.row["valid_from"] <= "2020-06-01" < (h.row["end_exclusive"] or "9999") for h in on_2020)


def test_title_lane_inserts_a_work_only_when_asked(core: LegalCore) -> None:
    lane = lane_for(core.indexes[EU])
    assert lane is not None
    args = {"query": QUERY, "publisher": EU, "retrieval_mode": "hybrid", "limit": 10}
    keyword = core.call("search", {**args, "retrieval_mode": "keyword"})["publishers"][0]
    boost_only = core.call("search", args)["publishers"][0]
    assert boost_only["retrieval_fusion"] == "rrf"
    assert [h["work"] for h in boost_only["hits"]] == [h["work"] for h in keyword["hits"]]
    lane.title_depth = 10
    inserted = core.call("search", args)["publishers"][0]
    works = [h["work"] for h in inserted["hits"]]
    assert f"{EU}:32099r0002" in works and f"{EU}:32099r0002" not in [h["work"] for h in keyword["hits"]]
    row = next(h for h in inserted["hits"] if h["work"] == f"{EU}:32099r0002")
    assert row["anchor"] is None and "semantic_work" in row["match_reasons"]
    # no lexical evidence: the keyword answer stands, the title lane inserts nothing
    empty = core.call("search", {**args, "query": "zebra xylophone"})["publishers"][0]
    assert empty["retrieval_fusion"] == "keyword_anchored" and not [h for h in empty["hits"] if h.get("anchor")]


def test_hierarchy_and_domain_filters_keep_the_keyword_answer(core: LegalCore) -> None:
    lane = lane_for(core.indexes[EU])
    assert lane is not None
    lane.title_depth = 10
    args = {"query": QUERY, "publisher": EU, "retrieval_mode": "hybrid", "limit": 10, "domain": "consumer protection"}
    section = core.call("search", args)["publishers"][0]
    keyword = core.call("search", {**args, "retrieval_mode": "keyword"})["publishers"][0]
    assert keyword["hits"] and section["retrieval_fusion"] == "keyword_anchored" and section["hits"] == keyword["hits"]
    assert f"{EU}:32099r0002" not in [h["work"] for h in section["hits"]]  # outside the domain: never inserted


def _hit(work: str, anchor: str | None, *reasons: str) -> dict[str, object]:
    return {"work": work, "anchor": anchor, "match_reasons": list(reasons), "rank": 0}


def test_fuse_shaped_title_rows() -> None:
    keyword = [_hit("eu:a", "art_1", "keyword"), _hit("eu:b", "art_2", "keyword")]
    titles = [_hit("eu:c", None, "semantic_work"), _hit("eu:b", None, "semantic_work")]
    fused = fuse_shaped(keyword, [], works=["eu:c", "eu:b"], limit=10, titles=titles)
    # eu:b keeps its provision (boosted: 1.65/62 > 1/61); eu:c is inserted (0.65/61), never boosted twice
    assert [(h["work"], h["anchor"]) for h in fused] == [("eu:b", "art_2"), ("eu:a", "art_1"), ("eu:c", None)]
    assert fused[2]["match_reasons"] == ["semantic_work"] and fused[2]["rrf_score"] == round(0.65 / 61, 6)
    assert fuse_shaped(keyword, [], works=[], limit=10, titles=[]) == fuse_shaped(keyword, [], works=[], limit=10)
