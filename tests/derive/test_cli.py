"""``lex derive run | verify | git-lens`` through the real CLI entry point."""

from __future__ import annotations

import json

from cli.main import main
from legal.canonical import sha256_hex
from tests.derive.test_build_errors import small_tree


def test_run_then_verify(tmp_path, lu_body, capsys):
    tree = small_tree(tmp_path, {"2025-02-22": lu_body("rgd-2001-10-18-n3/2025-02-22/fr.xml"),
                                 "2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    out = tmp_path / "ds"
    assert main(["derive", "run", "--tree", str(tree.root), "--out", str(out), "--no-progress", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {"empty_provisions": 0, "errors": 0, "gaps": {}, "profiles": {"akn-lu/3": 2},
                       "provisions": 4, "units": 2, "versions": 2, "works": 1,
                       "works_derived": 1, "works_reused": 0, "works_copied": 0, "row_groups": 1,
                       "row_groups_copied": 0, "shard": None}
    assert json.loads((out / "summary.json").read_bytes()) == {
        k: v for k, v in summary.items()
        if k not in ("works_derived", "works_reused", "works_copied", "row_groups", "row_groups_copied", "shard")}
    assert main(["derive", "verify", str(out), "--tree", str(tree.root)]) == 0
    printed = capsys.readouterr().out
    assert "mismatched=0 missing=0 extra=0" in printed
    assert "text lint: 4 provisions, empty_parentheses=0, glued_words=0, markup_debris=0, embedded_binary=0, " \
           "text_outside_anchor=0" in printed
    assert main(["derive", "run", "--tree", str(tree.root), "--out", str(out), "--no-progress"]) == 0
    assert "works: 0 derived, 1 reused from the cache" in capsys.readouterr().out


def test_shards_then_merge(tmp_path, lu_body, capsys):
    tree = small_tree(tmp_path, {"2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    shards = [str(tmp_path / f"s{i}") for i in range(2)]
    for i, out in enumerate(shards):
        assert main(["derive", "run", "--tree", str(tree.root), "--out", out, "--shard", f"{i}/2", "--no-cache",
                     "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["derive", "merge", *shards, "--out", str(tmp_path / "ds"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provisions"] == 2
    assert main(["derive", "verify", str(tmp_path / "ds"), "--tree", str(tree.root)]) == 0
    assert main(["derive", "run", "--tree", str(tree.root), "--out", shards[0], "--shard", "x"]) != 0
    assert "bad_shard" in capsys.readouterr().err


def test_run_exits_non_zero_and_names_the_hash(tmp_path, lu_body, capsys):
    good = lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")
    bad = good.replace(b"http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13", b"urn:x:unknown")
    tree = small_tree(tmp_path, {"2025-02-22": bad, "2026-02-24": good})
    code = main(["derive", "run", "--tree", str(tree.root), "--out", str(tmp_path / "ds"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert "unknown_namespace" in err and sha256_hex(bad) in err


def test_verify_exit_3_on_mismatch(tmp_path, lu_body, capsys):
    tree = small_tree(tmp_path, {"2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    out = tmp_path / "ds"
    assert main(["derive", "run", "--tree", str(tree.root), "--out", str(out), "--no-progress"]) == 0
    (out / "summary.json").write_bytes(b"{}\n")
    assert main(["derive", "verify", str(out), "--tree", str(tree.root)]) == 3
    assert "mismatched: summary.json" in capsys.readouterr().err


def test_git_lens_command(tmp_path, lu_body, capsys):
    tree = small_tree(tmp_path, {"2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    assert main(["derive", "git-lens", str(tree.root), "--out", str(tmp_path / "lens"), "--no-progress"]) == 0
    assert "git lens: 2 commits over 1 works" in capsys.readouterr().out
    assert (tmp_path / "lens" / "lu-legilux" / "rgd-2001-10-18-n3.md").is_file()
