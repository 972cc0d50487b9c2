"""``lex corpus import | verify | stats``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from cli.corpus import group
from cli.main import main


def test_import_then_stats(tmp_path: Path, lu_fixture: Path, eu_fixture: Path) -> None:
    runner = CliRunner()
    tree = tmp_path / "tree"
    for fixture, expected in ((lu_fixture, "298 records verified, 0 errors"), (eu_fixture, "62 records verified")):
        result = runner.invoke(group, ["import", str(fixture), "--into", str(tree)])
        assert result.exit_code == 0, result.output
        assert expected in result.output
    result = runner.invoke(group, ["stats", str(tree), "--json"])
    assert result.exit_code == 0
    stats = json.loads(result.output)
    assert stats["counts"]["works"] == 97 and stats["counts"]["versions"] == 360
    assert stats["publishers"]["eu-eurlex"]["counts"]["expressions"] == 113
    text = runner.invoke(group, ["stats", str(tree)]).output
    assert "versions" in text and "lu-legilux: 68 works, 298 versions" in text


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    for args in ([], ["import"], ["verify"], ["stats"]):
        result = runner.invoke(group, [*args, "--help"])
        assert result.exit_code == 0
        assert "Example:" in result.output and "lex corpus" in result.output


def test_bad_input_is_one_error_line_and_a_non_zero_exit(tmp_path: Path, capsys: object) -> None:
    src = tmp_path / "src"
    (src / "works").mkdir(parents=True)
    (src / "manifest.json").write_text('{"schema": "lex-corpus/9"}')
    code = main(["corpus", "import", str(src), "--into", str(tmp_path / "tree"), "--no-progress"])
    assert code == 2
    assert not (tmp_path / "tree").exists()
