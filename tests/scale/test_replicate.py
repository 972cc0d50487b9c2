"""Replication of the fixture corpora under new identities (bench/scale/replicate.py).

Real fixtures, a subset of works (3 Legilux + 3 EUR-Lex, chosen small and with bodies; one
corrigendum CELEX with parentheses), N = 2: every identity is new, nothing collides, counts
scale by N, replica 0 is the imported corpus untouched, and the bodies of replica 1 are the
base bytes plus the marker comment, under their own hashes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench.scale.corpus import ScaledCorpus, prepare_base
from bench.scale.replicate import is_xml_like, lu_renamer, marker, rename_celex
from corpus_tree import VersionRecord, record_sha256
from legal.ids import Publisher, VersionKey, parse_date

LU_WORKS = ["div-2023-06-21-a323", "rmin-2026-05-06-a230", "a-1938-01-14-n1"]
EU_WORKS = ["12016e062", "32004l0048r(03)", "31962r0059"]
SUBSET = {Publisher.LEGILUX: LU_WORKS, Publisher.EURLEX: EU_WORKS}


@pytest.fixture(scope="module")
def base(fixtures_dir: Path, scale_base: Path) -> dict[Publisher, Path]:
    return prepare_base(fixtures_dir, scale_base)


@pytest.fixture(scope="module")
def scaled(base: dict[Publisher, Path]) -> tuple[ScaledCorpus, ScaledCorpus]:
    return ScaledCorpus.build(base, 1, SUBSET), ScaledCorpus.build(base, 2, SUBSET)


@pytest.mark.parametrize(("celex", "replica", "expected"), [
    ("32016R0679", 3, "32016R90030679"),
    ("02016R0679-20160504", 3, "02016R90030679-20160504"),
    ("32004L0048R(03)", 12, "32004L90120048R(03)"),
    ("11997E083", 1, "11997E9001083"),
    ("12012E/TXT", 2, "12012E9002/TXT"),
])
def test_celex_rename_keeps_sector_year_and_type(celex: str, replica: int, expected: str) -> None:
    assert rename_celex(celex, replica) == expected


def test_legilux_rename_prefixes_one_segment() -> None:
    rename = lu_renamer(3)
    assert rename("http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/n2") == \
        "http://data.legilux.public.lu/eli/etat/leg/loi/2006/07/31/scale-r3-n2"
    assert rename("http://data.legilux.public.lu/eli/etat/leg/code/travail/20110221") == \
        "http://data.legilux.public.lu/eli/etat/leg/scale-r3-code/travail/20110221"
    assert rename("https://legilux.public.lu/filestore/eli/etat/leg/memorial/2000/a125/fr/pdf/a.pdf") == \
        "https://legilux.public.lu/filestore/eli/etat/leg/scale-r3-memorial/2000/a125/fr/pdf/a.pdf"


def test_legilux_replica_slug_keeps_kind_and_date() -> None:
    """The Mémorial profile finds an act in a gazette issue by the slug's ``<kind>-<date>`` head."""
    from bench.scale.replicate import slug_of

    work = lu_renamer(12)("http://data.legilux.public.lu/eli/etat/leg/rgd/2026/02/11/a74")
    assert slug_of(Publisher.LEGILUX, work) == "rgd-2026-02-11-scale-r12-a74"


@pytest.mark.parametrize(("head", "expected"), [
    (b"<?xml version='1.0'?><a/>", True), (b"\xef\xbb\xbf  <html>", True), (b"%PDF-1.4", False), (b"PK\x03\x04", False),
])
def test_xml_like_bodies(head: bytes, expected: bool) -> None:
    assert is_xml_like(head) is expected


@pytest.mark.parametrize("publisher", list(Publisher))
def test_counts_scale_by_n(scaled: tuple[ScaledCorpus, ScaledCorpus], publisher: Publisher) -> None:
    one, two = (s.replicated[publisher] for s in scaled)
    assert len(one.works) == 3 and len(two.works) == 2 * len(one.works)
    assert len(two.versions) == 2 * len(one.versions)


@pytest.mark.parametrize("publisher", list(Publisher))
def test_no_identity_collides(scaled: tuple[ScaledCorpus, ScaledCorpus], publisher: Publisher) -> None:
    rep = scaled[1].replicated[publisher]
    for key in ("lex_id", "publisher_version_identifier"):
        values = [v[key] for v in rep.versions]
        assert len(set(values)) == len(values), key
    for key in ("slug", "lex_work_id", "work_identifier"):
        values = [w[key] for w in rep.works]
        assert len(set(values)) == len(values), key
    shas = [o["sha256"] for v in rep.versions for e in v["expressions"] for o in e["observations"]
            if not o.get("held_elsewhere")]
    assert len(set(shas)) == len(shas)


@pytest.mark.parametrize("publisher", list(Publisher))
def test_replica_zero_is_the_imported_corpus(scaled: tuple[ScaledCorpus, ScaledCorpus],
                                             publisher: Publisher) -> None:
    one, two = (s.replicated[publisher] for s in scaled)
    assert two.versions[:len(one.versions)] == one.versions
    assert all("provenance" in v for v in one.versions)


@pytest.mark.parametrize("publisher", list(Publisher))
def test_replica_records_are_sealed_and_keyed(scaled: tuple[ScaledCorpus, ScaledCorpus],
                                              publisher: Publisher) -> None:
    rep = scaled[1].replicated[publisher]
    replicas = rep.versions[len(rep.versions) // 2:]
    marker_text = "scale-r1" if publisher is Publisher.LEGILUX else "9001"
    for v in replicas:
        record = VersionRecord.from_dict(v)
        assert v["record_sha256"] == record_sha256(v)
        key = VersionKey.create(parse_date(v["valid_from"]), v["publisher_version_identifier"])
        assert record.version_key == key
        assert marker_text in record.slug and marker_text in v["publisher_version_identifier"]
        assert "provenance" not in v
    if publisher is Publisher.EURLEX:
        assert {v["raw"]["celex"] for v in replicas} == {"12016E9001062", "32004L90010048R(03)", "31962R90010059"}


@pytest.mark.parametrize("publisher", list(Publisher))
def test_replica_bodies_are_base_bytes_plus_marker(scaled: tuple[ScaledCorpus, ScaledCorpus],
                                                   publisher: Publisher) -> None:
    corpus = scaled[1]
    table = corpus.bodies[publisher]
    assert table.perturbed, "every subset work has an XML body"
    for sha, p in table.perturbed.items():
        data = table.read(sha)
        assert data is not None and hashlib.sha256(data).hexdigest() == sha and len(data) == p.size
        assert data.endswith(marker(1)) and hashlib.sha256(data[:-len(marker(1))]).hexdigest() == p.base_sha256
