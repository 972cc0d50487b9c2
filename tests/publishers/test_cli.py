"""``lex ingest run`` and ``lex replay serve`` (the CLI is a thin shell over the same functions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cli.ingest import group as ingest_group
from cli.main import main
from cli.replay import group as replay_group
from corpus_tree import CorpusTree
from tests.publishers.conftest import Harness


def test_ingest_run_against_a_replay(lu_small: Harness, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    args = ["run", "--publisher", "lu-legilux", "--source", "replay", "--replay-url", lu_small.base_url,
            "--tree", str(tree), "--json"]
    result = CliRunner().invoke(ingest_group, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["publisher"] == "lu-legilux" and report["requests"] > 0 and report["apply"]["records_written"] > 0
    assert len(list(CorpusTree.open(tree).iter_versions())) == report["versions"]
    again = CliRunner().invoke(ingest_group, args[:-1], catch_exceptions=False)
    assert again.exit_code == 0 and "events none" in again.output


def test_eurlex_ingest_with_a_scope_file(eu_small: Harness, tmp_path: Path) -> None:
    scope = tmp_path / "scope.json"
    scope.write_text(json.dumps({"schema": "lex-eu-scope/1", "scope_id": "test", "approved_wave": 1,
                                 "languages": ["en", "fr"], "legal_forms": ["REG"],
                                 "relations": {"depth": 0}, "domains": [{"id": "t", "wave": 1,
                                                                         "seeds": ["32016R0679"]}]}))
    code = main(["ingest", "run", "--publisher", "eu-eurlex", "--source", "replay", "--replay-url",
                 eu_small.base_url, "--tree", str(tmp_path / "tree"), "--scope", str(scope)])
    assert code == 0
    assert [w.slug for w in CorpusTree.open(tmp_path / "tree").works()] == ["32016r0679"]


def test_errors_are_one_line_with_their_code(lu_small: Harness, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    lu_small.replay.set_faults(malformed_sparql=3, target="sparql")  # more than the 3 attempts of one query
    code = main(["ingest", "run", "--publisher", "lu-legilux", "--replay-url", lu_small.base_url,
                 "--tree", str(tmp_path / "tree")])
    assert code == 2
    assert "[publisher/enumeration_parser_failure]" in capsys.readouterr().err
    assert main(["ingest", "run", "--publisher", "lu-legilux", "--source", "replay",
                 "--tree", str(tmp_path / "t2")]) == 2


def test_help_has_examples() -> None:
    for group, name in ((ingest_group, "run"), (replay_group, "serve")):
        result = CliRunner().invoke(group, [name, "--help"])
        assert result.exit_code == 0 and "Example" in result.output


def test_replay_serve_runs_a_loopback_server(lu_fixture: Path) -> None:
    import socket
    import subprocess
    import sys
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "cli", "replay", "serve", "--corpus", str(lu_fixture),
                             "--work", "rgd-2001-10-18-n3", "--port", str(port), "--faults", '{"rate_limit": 1}'],
                            cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                stats = httpx.get(base + "/_replay/stats", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        assert stats.status_code == 200
        query = {"query": "SELECT ?c WHERE { ?c a <http://data.legilux.public.lu/resource/ontology/jolux#Consolidation> }"}
        assert httpx.post(base + "/sparqlendpoint", data=query).status_code == 429  # the start-up fault
        answer = httpx.post(base + "/sparqlendpoint", data=query).json()
        assert len(answer["results"]["bindings"]) == 12
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_replay_serve_refuses_two_corpora_of_one_publisher(lu_fixture: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A typed one-line error naming the publisher (no traceback), before anything listens."""
    code = main(["replay", "serve", "--corpus", str(lu_fixture), "--corpus", str(lu_fixture), "--no-warm"])
    assert code == 2
    assert "[config/duplicate_replay_source] (lu-legilux)" in capsys.readouterr().err
