"""Records: the published hash recipe, v4 keys, member order, valid_to conventions, manifests."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from pathlib import Path

from legal.dotnet_json import dotnet_serialize, parse_ordered, published_record_sha256
from legal.ids import VersionKey, WorkSlug, celex_of_uri
from legal.outcomes import RecordEvent
from publishers.sample.model import FIRST_RUN, SECOND_RUN
from tests.sample.conftest import HeldVersion

VERSION_ORDER = [
    "lex_id", "publisher_version_identifier", "work_identifier", "publisher", "document_type",
    "valid_from", "valid_to", "valid_time_source", "in_force_status", "publication_date", "events",
    "expressions", "relations", "raw", "publisher_metadata", "document_roles", "record_sha256",
]
EXPRESSION_ORDER = ["language", "valid_from", "valid_to", "valid_time_source", "title", "title_short",
                    "source_uri", "observations", "text"]
OBSERVATION_ORDER = ["file", "sha256", "source_uri", "retrieved_at", "observed_from", "format"]


def _in_order(keys: list[str], order: list[str]) -> bool:
    return [k for k in order if k in keys] == keys and set(keys) <= set(order)


def _recipe_a(raw: bytes) -> str:
    """The byte-surgery recipe of reference/corpus.md §1.6, independent of any JSON encoder."""
    text = raw.decode("utf-8")
    text = re.sub(r',\n\s*"record_sha256": "[0-9a-f]{64}"', "", text)
    text = text.rstrip("\n").replace("\n", "\r\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_every_record_sha256_verifies_with_the_published_recipe(versions: list[HeldVersion]) -> None:
    assert versions
    for held in versions:
        claimed = held.record["record_sha256"]
        assert published_record_sha256(held.record) == claimed, held.path
        assert _recipe_a(held.raw) == claimed, held.path


def test_record_files_are_the_dotnet_serialisation_with_lf(versions: list[HeldVersion]) -> None:
    for held in versions:
        expected = dotnet_serialize(held.record).replace(b"\r\n", b"\n") + b"\n"
        assert held.raw == expected, held.path
        assert b"\r" not in held.raw
        assert list(held.record)[-1] == "record_sha256"


def test_keys_are_v4_keys_of_the_publisher_version_identifier(versions: list[HeldVersion]) -> None:
    for held in versions:
        record = held.record
        key = VersionKey.create(dt.date.fromisoformat(record["valid_from"]), record["publisher_version_identifier"])
        assert held.key == str(key)
        assert record["lex_id"] == f"{held.publisher}:{held.slug}:{key}"


def test_work_directories_are_slugs_of_the_work_identifier(roots: dict[str, Path],
                                                           versions: list[HeldVersion]) -> None:
    for held in versions:
        uri = held.record["work_identifier"]
        slug = WorkSlug.from_celex(celex_of_uri(uri)) if held.publisher == "eu-eurlex" else WorkSlug.from_eli(uri)
        assert held.slug == slug.value
    for publisher, root in roots.items():
        for meta in root.glob("works/*/meta.json"):
            work = parse_ordered(meta.read_bytes())
            assert work["lex_work_id"] == f"{publisher}:{meta.parent.name}"
            assert work["slug"] == meta.parent.name
            assert meta.read_bytes() == dotnet_serialize(work).replace(b"\r\n", b"\n") + b"\n"


def test_members_follow_the_published_order(versions: list[HeldVersion]) -> None:
    for held in versions:
        assert _in_order(list(held.record), VERSION_ORDER), held.path
        for expression in held.record["expressions"]:
            assert _in_order(list(expression), EXPRESSION_ORDER), held.path
            for observation in expression["observations"]:
                assert _in_order(list(observation), OBSERVATION_ORDER), held.path


def test_eu_consolidation_has_the_same_members_as_the_real_gdpr_record(eu_fixture: Path,
                                                                       versions: list[HeldVersion]) -> None:
    real = json.loads(next(eu_fixture.glob("works/32016r0679/versions/2016-05-04--*/meta.json")).read_text("utf-8"))
    ours = next(v.record for v in versions if v.record["publisher_version_identifier"].endswith("02018R9901-20280701"))
    assert list(ours) == list(real)
    assert list(ours["raw"]) == list(real["raw"])
    assert list(ours["expressions"][0]) == list(real["expressions"][0])
    assert [list(o) for o in ours["expressions"][0]["observations"]] == \
        [list(o) for o in real["expressions"][0]["observations"]]


def test_lu_record_members_match_a_real_legilux_record(lu_fixture: Path, versions: list[HeldVersion]) -> None:
    real = json.loads((lu_fixture / "works/agd-2023-11-17-a743/versions/2025-12-11/meta.json").read_text("utf-8"))
    ours = next(v.record for v in versions if v.slug == "loi-2017-03-01-n901" and "valid_to" not in v.record)
    # lex-corpus/4 adds publisher_version_identifier to the /3 Legilux record; nothing else differs
    assert [k for k in ours if k != "publisher_version_identifier"] == list(real)
    assert [k for k in ours["expressions"][0] if k != "title_short"] == list(real["expressions"][0])
    assert list(ours["expressions"][0]["observations"][0]) == list(real["expressions"][0]["observations"][0])


def _next_dates(held: list[HeldVersion]) -> dict[str, str | None]:
    dates = sorted({v.record["valid_from"] for v in held})
    out: dict[str, str | None] = {}
    for v in held:
        later = [d for d in dates if d > v.record["valid_from"]]
        out[v.key] = later[0] if later else None
    return out


def test_valid_to_follows_each_publisher_convention(by_work: dict[str, list[HeldVersion]]) -> None:
    for work, held in by_work.items():
        following = _next_dates(held)
        for v in held:
            nxt = following[v.key]
            expected: str | None
            if nxt is None:
                expected = None
            elif work.startswith("eu-eurlex:"):
                expected = (dt.date.fromisoformat(nxt) - dt.timedelta(days=1)).isoformat()
            else:
                expected = nxt
            assert v.record.get("valid_to") == expected, v.path
            for expression in v.record["expressions"]:
                assert expression.get("valid_to") == expected
                assert expression["valid_from"] == v.record["valid_from"]


def test_events_are_closed_vocabulary_with_fixed_timestamps(versions: list[HeldVersion]) -> None:
    for held in versions:
        events = held.record["events"]
        assert events[0]["event"] == "first_sighting"
        for event in events:
            RecordEvent.parse(event["event"])
            assert event["observed_from"] in (FIRST_RUN, SECOND_RUN)
        for expression in held.record["expressions"]:
            for observation in expression["observations"]:
                assert observation["retrieved_at"] in (FIRST_RUN, SECOND_RUN)
                assert observation["observed_from"] == observation["retrieved_at"]


def test_eu_records_carry_raw_metadata_and_short_titles(versions: list[HeldVersion]) -> None:
    for held in (v for v in versions if v.publisher == "eu-eurlex"):
        record = held.record
        assert list(record["raw"]) == ["celex", "legal_form", "hierarchy", "binding_status", "consolidation_status"]
        consolidated = record["raw"]["consolidation_status"] == "published"
        assert consolidated == (record["publisher_version_identifier"] != record["work_identifier"])
        assert ("consolidated" in record.get("document_roles", [])) == consolidated
        assert (record["relations"] != []) == consolidated
        metadata = record["publisher_metadata"]
        assert metadata == sorted(metadata, key=lambda m: (m["kind"], m["identifier"], m.get("language", ""),
                                                          m["label"], m["source_uri"]))
        kinds = {m["kind"] for m in metadata}
        assert {"eurovoc", "publisher_short_title"} <= kinds


def test_lu_records_are_publisher_shaped(versions: list[HeldVersion]) -> None:
    for held in (v for v in versions if v.publisher == "lu-legilux"):
        assert held.record["raw"] == {}
        assert held.record["relations"] == []
        assert [e["language"] for e in held.record["expressions"]] == ["fr"]
    aliases = [m for v in versions for m in v.record.get("publisher_metadata", []) if m["kind"] == "legilux_same_as"]
    assert aliases and {m["label"] for m in aliases} == {"code-demo"}


def test_manifests_count_the_tree(roots: dict[str, Path], versions: list[HeldVersion]) -> None:
    for publisher, root in roots.items():
        manifest = parse_ordered((root / "manifest.json").read_bytes())
        held = [v for v in versions if v.publisher == publisher]
        expressions = [e for v in held for e in v.record["expressions"]]
        with_text = [e for e in expressions if e["text"]["available"] and e["observations"]]
        assert manifest["schema"] == "lex-corpus/4"
        assert manifest["publisher"]["id"] == publisher
        assert manifest["works"] == len({v.slug for v in held}) == len(list(root.glob("works/*/meta.json")))
        assert manifest["versions"] == len(held)
        assert manifest["expressions"] == len(expressions)
        assert manifest["expressions_with_text"] == len(with_text)
        assert manifest["expressions_without_text"] == len(expressions) - len(with_text)
        assert manifest["valid_from_earliest"] == min(v.record["valid_from"] for v in held)
        assert manifest["valid_to_latest"] == max(v.record["valid_from"] for v in held)
        assert re.fullmatch(r"[0-9a-f]{40}", manifest["ingester_code_commit"])
        assert "synthetic" in manifest["attribution"].lower()
