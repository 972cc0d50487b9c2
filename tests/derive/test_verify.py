"""``lex derive verify``: re-derive and byte-compare; determinism of every output file."""

from __future__ import annotations

import shutil

from derive.dataset import build_dataset
from derive.verify import compare_dirs, verify_dataset


def test_rebuild_is_byte_identical_and_verifies(tmp_path, lu_body):
    # the whole fixture trees are rebuilt and compared in test_incremental (cold, warm, sharded)
    from tests.derive.test_build_errors import small_tree

    tree = small_tree(tmp_path, {"2025-02-22": lu_body("rgd-2001-10-18-n3/2025-02-22/fr.xml"),
                                 "2026-02-24": lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")})
    build_dataset(tree, tmp_path / "first", use_cache=False)
    build_dataset(tree, tmp_path / "again", use_cache=False)
    report = compare_dirs(tmp_path / "first", tmp_path / "again")
    assert report.ok and report.compared >= 5
    assert verify_dataset(tmp_path / "first", tree).ok


def test_verify_detects_a_tampered_row(tmp_path, eu_tree, eu_dataset):
    out, _ = eu_dataset
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    data = (copy / "provisions.jsonl").read_bytes().replace(b"Lawfulness of processing", b"Lawfulness of procesing", 1)
    (copy / "provisions.jsonl").write_bytes(data)
    (copy / "stray.txt").write_bytes(b"x")
    (copy / "gaps.jsonl").unlink()
    report = verify_dataset(copy, eu_tree)
    assert report.mismatched == ["provisions.jsonl"]
    assert report.missing == ["gaps.jsonl"] and report.extra == ["stray.txt"]
    assert not report.ok and "mismatched=1" in report.line()


def test_output_does_not_depend_on_hash_seed(tmp_path, lu_body):
    import os
    import subprocess
    import sys

    from tests.derive.test_build_errors import small_tree

    tree = small_tree(tmp_path, {"2025-02-22": lu_body("rgd-2001-10-18-n3/2025-02-22/fr.xml"),
                                 "2026-02-24": lu_body("constitution-1868-10-17-n1/2023-07-01/fr.xml")})
    code = "import sys; from corpus_tree import CorpusTree; from derive.dataset import build_dataset; " \
           "build_dataset(CorpusTree.open(sys.argv[1]), sys.argv[2])"
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"seed{seed}"
        subprocess.run([sys.executable, "-c", code, str(tree.root), str(out)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed})
        outs.append(out)
    assert compare_dirs(outs[0], outs[1]).ok
