"""``bench.ingest_memory``: the one-process ingest and the per-publisher one (issue #13)."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from bench import ingest_memory


def test_a_per_publisher_child_names_its_publisher_and_the_one_process_child_does_not() -> None:
    both = ingest_memory.child_command(Path("run"), "http://127.0.0.1:1", 2, False, [])
    one = ingest_memory.child_command(Path("run"), "http://127.0.0.1:1", 2, True, ["env"], "eu-eurlex")
    assert "--publisher" not in both and "--reingest" not in both  # what an older checkout's child takes
    assert one[0] == "env" and one[-3:] == ["--reingest", "--publisher", "eu-eurlex"]


def test_the_mode_holds_the_largest_peak_and_the_summed_cpu() -> None:
    parts = [{"publishers": ["lu-legilux"], "vm_hwm_mb": 53.3, "cpu_s": 10.3, "user_s": 8.2, "load": 3.0},
             {"publishers": ["eu-eurlex"], "vm_hwm_mb": 98.1, "cpu_s": 41.5, "user_s": 26.7, "load": 2.5}]
    facts = ingest_memory.combined("fresh", 1, parts)
    assert facts["vm_hwm_mb"] == 98.1 and facts["cpu_s"] == 51.8 and facts["load"] == 2.5
    assert facts["by_publisher"] == {"lu-legilux": {"vm_hwm_mb": 53.3, "cpu_s": 10.3},
                                     "eu-eurlex": {"vm_hwm_mb": 98.1, "cpu_s": 41.5}}


def _same_tree(left: Path, right: Path) -> bool:
    """``diff -r``: the same names everywhere and every file's bytes equal."""
    compared = filecmp.dircmp(left, right)
    if compared.left_only or compared.right_only or compared.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(left, right, compared.common_files, shallow=False)
    return not mismatch and not errors and all(_same_tree(left / d, right / d) for d in compared.common_dirs)


@pytest.fixture(scope="module")
def shapes(scale_base: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The fixture corpora at N = 1 ingested (fresh, then again) in one process and per publisher."""
    out: dict[str, Path] = {}
    for shape in ("one", "per-publisher"):
        where = tmp_path_factory.mktemp(shape)
        results = ingest_memory.measure(1, where, scale_base, ingest_memory.ROOT, trace=False, keep=True,
                                        wrap=[], per_publisher=shape == "per-publisher")
        assert [r["mode"] for r in results] == list(ingest_memory.MODES)
        out[shape] = where / "n1"
    return out


def test_the_per_publisher_ingest_gives_the_one_process_ingests_trees(shapes: dict[str, Path]) -> None:
    for tree in ("fresh", "tree"):
        assert any((shapes["one"] / tree).rglob("*.json"))
        assert _same_tree(shapes["one"] / tree, shapes["per-publisher"] / tree), tree
