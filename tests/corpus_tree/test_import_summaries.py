"""What an import holds of each record it reads (ADR 0088): the record is converted, rendered and
staged as it is read, and only its :class:`corpus_tree.records.VersionSummary` is kept for the
manifest and the checks, so no parsed or converted record is alive when the manifest is built.
Every error, whenever it is met, leaves the tree byte-identical and no staging; a refusal to
replace a record of the tree is raised after the source's own errors, as when the whole source
was read first."""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path
from typing import Any

import pytest

from corpus_tree import importer as importer_module
from corpus_tree import txn
from corpus_tree.importer import import_published
from corpus_tree.verify import verify_tree
from legal.dotnet_json import published_record_sha256
from legal.errors import CorpusError, IntegrityError

from .conftest import SMALL_EU, SMALL_LU, copy_source, snapshot


def _records_alive() -> int:
    """Parsed (published) or converted version records alive: dicts with events and a record hash."""
    gc.collect()
    return sum(1 for o in gc.get_objects()
               if type(o) is dict and "record_sha256" in o and "events" in o and "expressions" in o)


def _staged(root: Path) -> list[Path]:
    return sorted((root / txn.STAGING).glob("*/files/*"))


def test_no_record_read_is_alive_when_the_manifest_is_built(
        lu_fixture: Path, eu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = [copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), copy_source(eu_fixture, tmp_path / "eu", SMALL_EU)]
    baseline = _records_alive()
    seen: list[int] = []
    real = importer_module._fold_manifest

    def spy(*args: Any) -> Any:
        seen.append(_records_alive() - baseline)
        return real(*args)

    monkeypatch.setattr(importer_module, "_fold_manifest", spy)
    reports = [import_published(src, tmp_path / "tree", durable=False) for src in sources]
    assert all(r.records_written > 3 for r in reports)
    assert seen == [0, 0]  # the whole source was read and staged; none of its records is held
    assert verify_tree(tmp_path / "tree").ok


def _break(record: Path) -> None:
    record.write_bytes(re.sub(rb'"record_sha256": "[0-9a-f]{64}"', b'"record_sha256": "' + b"0" * 64 + b'"',
                              record.read_bytes()))


def test_a_bad_record_met_after_records_are_staged_leaves_the_tree_byte_identical(
        eu_fixture: Path, lu_fixture: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "tree"
    import_published(copy_source(lu_fixture, tmp_path / "lu", SMALL_LU), tree, durable=False)
    before = snapshot(tree)
    src = copy_source(eu_fixture, tmp_path / "src", SMALL_EU)
    last = sorted((src / "works" / max(SMALL_EU) / "versions").glob("*/meta.json"))[-1]
    _break(last)
    staged_before_error: list[int] = []
    real = importer_module._read_json

    def spy(path: Path) -> dict[str, Any]:
        if path == last:
            staged_before_error.append(len(_staged(tree)))
        return real(path)

    monkeypatch.setattr(importer_module, "_read_json", spy)
    with pytest.raises(IntegrityError) as err:
        import_published(src, tree, durable=False)
    assert err.value.code == "record_hash_mismatch" and str(last) == err.value.subject
    assert staged_before_error and staged_before_error[0] > 3  # records were staged before it was met
    assert snapshot(tree) == before and not (tree / txn.STAGING).exists()
    # a first import into a new (nested) directory leaves nothing behind
    fresh = tmp_path / "new" / "tree"
    with pytest.raises(IntegrityError):
        import_published(src, fresh, durable=False)
    assert not (tmp_path / "new").exists()


def _conflicting_source(eu_fixture: Path, dest: Path) -> tuple[Path, Path]:
    """A source of SMALL_EU whose first record with events claims another history (re-sealed)."""
    src = copy_source(eu_fixture, dest, SMALL_EU)
    for path in sorted((src / "works").glob("*/versions/*/meta.json")):
        record = json.loads(path.read_bytes())
        if record.get("events"):
            record["events"] = []
            record["record_sha256"] = published_record_sha256(record)
            path.write_text(json.dumps(record, ensure_ascii=False, indent=2), encoding="utf-8")
            return src, path
    raise AssertionError("no record with events")


def test_a_refused_replacement_leaves_the_tree_byte_identical_and_yields_to_source_errors(
        eu_fixture: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    import_published(copy_source(eu_fixture, tmp_path / "first", SMALL_EU), tree, durable=False)
    before = snapshot(tree)
    src, changed = _conflicting_source(eu_fixture, tmp_path / "src")
    with pytest.raises(CorpusError) as err:
        import_published(src, tree, durable=False)
    assert err.value.code == "import_conflict"
    assert snapshot(tree) == before and not (tree / txn.STAGING).exists()
    # a bad record read after the conflicting one: the source's error is the one raised
    last = sorted((src / "works").glob("*/versions/*/meta.json"))[-1]
    assert last != changed
    _break(last)
    with pytest.raises(IntegrityError) as err2:
        import_published(src, tree, durable=False)
    assert err2.value.code == "record_hash_mismatch" and err2.value.subject == str(last)
    assert snapshot(tree) == before and not (tree / txn.STAGING).exists()
