"""What an import says about the bodies it does not hold, and what it does not read again.

Published snapshots leave large bodies out (the fixtures list them in OMITTED_OBSERVATIONS.tsv):
the import report names each one, ``strict`` refuses them, and ``lex corpus stats`` does not
count a text held elsewhere as a text held. A body the evidence store already holds under its
address is not read again unless ``rehash``.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.main import cli
from corpus_tree import CorpusTree, txn
from corpus_tree.importer import ImportReport, import_published
from corpus_tree.manifest import text_holdings
from corpus_tree.verify import verify_tree
from legal.errors import CorpusError

from .conftest import SMALL_EU, copy_source, snapshot

GDPR = "32016r0679"


def _omitted(fixtures_dir: Path, repo: str) -> list[dict[str, str]]:
    with open(fixtures_dir / "OMITTED_OBSERVATIONS.tsv", newline="", encoding="utf-8") as f:
        return [{"path": row["path"], "sha256": row["sha256"]} for row in csv.DictReader(f, delimiter="\t")
                if row["repo"] == repo]


def test_the_report_lists_every_body_held_elsewhere_with_path_and_sha256(
        imported: tuple[Path, ImportReport, ImportReport], fixtures_dir: Path) -> None:
    _, lu, eu = imported
    for report, repo in ((lu, "lex-corpus-lu-legilux"), (eu, "lex-corpus-eu-eurlex")):
        listed = sorted((e["path"], e["sha256"]) for e in report.held_elsewhere)
        assert listed == sorted((e["path"], e["sha256"]) for e in _omitted(fixtures_dir, repo))
        assert len(listed) == report.bodies_held_elsewhere
        assert report.to_dict()["held_elsewhere"] == report.held_elsewhere


def test_strict_import_refuses_a_source_with_bodies_held_elsewhere(lu_fixture: Path, tmp_path: Path) -> None:
    target = tmp_path / "tree"
    with pytest.raises(CorpusError) as err:
        import_published(lu_fixture, target, durable=False, strict=True)
    assert err.value.code == "bodies_held_elsewhere"
    assert err.value.subject is not None and "works/" in err.value.subject
    assert not target.exists()


def test_strict_import_accepts_a_complete_source(eu_fixture: Path, tmp_path: Path) -> None:
    src = copy_source(eu_fixture, tmp_path / "src", SMALL_EU)
    report = import_published(src, tmp_path / "tree", durable=False, strict=True)
    assert report.held_elsewhere == [] and report.bodies_added > 0


def test_reimport_reads_no_body_the_store_holds(small_tree: Path, eu_fixture: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(small_tree, tree, symlinks=True)
    src = copy_source(eu_fixture, tmp_path / "src", SMALL_EU)
    before = snapshot(tree)
    opened: list[str] = []
    real_open = txn.BlobSource.open

    def spy(self: txn.BlobSource) -> object:
        opened.append(self.label)
        return real_open(self)

    monkeypatch.setattr(txn.BlobSource, "open", spy)
    report = import_published(src, tree, durable=False)
    assert opened == [] and report.bytes_hashed == 0 and report.bodies_added == 0
    assert report.bodies_not_reread > 0 and report.records_written == 0
    assert snapshot(tree) == before
    rehashed = import_published(src, tree, durable=False, rehash=True)
    assert len(opened) == rehashed.bodies_verified > 0 and rehashed.bytes_hashed > 0
    assert rehashed.bodies_not_reread == 0
    assert snapshot(tree) == before and verify_tree(tree).ok


def test_stats_tell_text_held_from_text_held_elsewhere(imported_tree: Path) -> None:
    holdings = text_holdings(CorpusTree.open(imported_tree).iter_versions(verify=False))
    lu = holdings["lu-legilux"]
    assert lu["expressions_text_held"] > 0 and lu["expressions_text_held_elsewhere_only"] > 0
    result = CliRunner().invoke(cli, ["corpus", "stats", str(imported_tree), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["text_holdings"] == holdings
    text = CliRunner().invoke(cli, ["corpus", "stats", str(imported_tree)]).output
    assert f"text held elsewhere only for {lu['expressions_text_held_elsewhere_only']}" in text


def test_cli_import_prints_the_held_elsewhere_list(lu_fixture: Path, tmp_path: Path,
                                                    fixtures_dir: Path) -> None:
    result = CliRunner().invoke(cli, ["corpus", "import", str(lu_fixture), "--into", str(tmp_path / "t"),
                                      "--no-progress", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)["held_elsewhere"]
    assert len(listed) == len(_omitted(fixtures_dir, "lex-corpus-lu-legilux"))
    refused = CliRunner().invoke(cli, ["corpus", "import", str(lu_fixture), "--into", str(tmp_path / "s"),
                                       "--strict", "--no-progress"])
    assert isinstance(refused.exception, CorpusError) and refused.exception.code == "bodies_held_elsewhere"
    assert not (tmp_path / "s").exists()
