"""Assembling artifact sets: the layout, ``lex release assemble`` → sign → verify, and the
pipeline and the CLI laying out byte-identical sets from the same inputs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from legal.errors import ReleaseError
from release import verify_artifact_set
from release.assemble import (
    RETRIEVAL_REPORT,
    RETRIEVAL_REPORT_ENVELOPE,
    SetSources,
    add_report,
    assemble_set,
    publisher_sources,
)
from release.keys import keygen, load_signer
from release.report import bind, build_report, verify_report

from .conftest import FIXED_TIME

PUBLISHERS = ("lu-legilux", "eu-eurlex")
PASSPHRASE = "operator passphrase"
SCOPE = b'{"schema":"lex-eu-scope/1","works":[]}\n'
EXPECTED_LAYOUT = sorted([
    "corpus/eu-eurlex/manifest.json", "corpus/lu-legilux/manifest.json",
    *(f"dataset/{pub}/{name}" for pub in PUBLISHERS for name in (
        "gaps.jsonl", "provisions.parquet", "states.parquet", "version_events.parquet",
        "version_visibility.parquet")),
    "indexes/eu-eurlex.sqlite", "indexes/eu-eurlex.stamp.json",
    "indexes/lu-legilux.sqlite", "indexes/lu-legilux.stamp.json",
    "scope/eu-scope.json",
])


def write_workdir(root: Path) -> Path:
    """A pipeline-shaped work directory: indexes/, derived/<pub>/, trees/<pub>/."""
    for pub in PUBLISHERS:
        files = {
            f"indexes/{pub}.sqlite": b"SQLite format 3\x00" + pub.encode() * 300,
            f"indexes/{pub}.stamp.json": json.dumps({"collection": pub}).encode() + b"\n",
            **{f"derived/{pub}/{table}.parquet": b"PAR1" + f"{pub} {table}".encode() * 50 + b"PAR1"
               for table in ("provisions", "states", "version_events", "version_visibility")},
            f"derived/{pub}/gaps.jsonl": b'{"gap":"text_not_available"}\n',
            f"trees/{pub}/manifest.json": json.dumps({"schema": "lex-tree/1", "publisher": pub}).encode(),
        }
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
    (root / "eu-scope.json").write_bytes(SCOPE)
    return root


def index_report(index_dir: Path) -> dict[str, Any]:
    """A report as ``lex bench retrieval`` writes it: bound to the index files by file name."""
    subjects = {f"{pub}.sqlite": hashlib.sha256((index_dir / f"{pub}.sqlite").read_bytes()).hexdigest()
                for pub in PUBLISHERS}
    return build_report(bind(subjects=subjects), {
        "mrr": "0.7", "recall_at_10": "0.9", "ndcg_at_10": "0.6", "exact_first_accuracy": "1",
        "temporal_leakage_failures": "0", "no_hit_accuracy": "1", "latency_p95_ms": "12"},
        created_at=FIXED_TIME, runner="tests")


def tree(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEX_SIGNING_PASSPHRASE", PASSPHRASE)
    monkeypatch.delenv("LEX_TRUST_ROOTS", raising=False)
    keygen(tmp_path / "keys", "ed25519", PASSPHRASE.encode())
    return write_workdir(tmp_path / "work")


def assemble_args(work: Path, out: Path) -> list[str | Path]:
    return ["release", "assemble", out, "--index-dir", work / "indexes", "--dataset-root", work / "derived",
            "--corpus-root", work / "trees", "--scope", work / "eu-scope.json"]


def test_assemble_sign_verify_round_trip(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys, out = work.parent / "keys", work.parent / "build"
    (work / "report.json").write_text(json.dumps(index_report(work / "indexes")))
    code, stdout, err = run(capsys, *assemble_args(work, out), "--report", work / "report.json",
                            "--key", keys / "release-signing.key.pem")
    assert code == 0, err
    assert "  indexes/eu-eurlex.sqlite  " in stdout and stdout.rstrip().endswith("--key ...")
    assert sorted(tree(out)) == sorted([*EXPECTED_LAYOUT, RETRIEVAL_REPORT, RETRIEVAL_REPORT_ENVELOPE])
    code, stdout, err = run(capsys, "release", "sign", out, "--key", keys / "release-signing.key.pem")
    assert code == 0 and stdout.startswith("signed set "), err
    code, stdout, err = run(capsys, "release", "verify", out, "--trust-root", keys / "release-signing.pub.pem",
                            "--json")
    assert code == 0, err
    verified = verify_artifact_set(out, [keys / "release-signing.pub.pem"])
    assert json.loads(stdout)["set_id"] == verified.set_id
    # the report travels inside the set and is bound to the set's own index files
    from release.keys import load_trust_roots

    checked = verify_report(out / RETRIEVAL_REPORT_ENVELOPE, load_trust_roots([keys / "release-signing.pub.pem"]),
                            expected=verified)
    assert set(checked.report["bound"]["subjects"]) == {"indexes/eu-eurlex.sqlite", "indexes/lu-legilux.sqlite"}


def test_pipeline_and_cli_assemble_byte_identical_sets(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pipelines.release_stage import stage_files
    from pipelines.settings import LexSettings

    keys = work.parent / "keys"
    signer = load_signer(keys / "release-signing.key.pem", PASSPHRASE.encode())
    report = index_report(work / "indexes")
    lex = LexSettings(workdir=str(work), source="fixtures", eu_scope=str(work / "eu-scope.json"))
    staged = work.parent / "staged"
    stage_files(lex, staged)
    add_report(staged, report, [signer])  # what the pipeline's benchmark step does with its report

    (work / "report.json").write_text(json.dumps(report))
    code, _, err = run(capsys, *assemble_args(work, work.parent / "cli"), "--report", work / "report.json",
                       "--key", keys / "release-signing.key.pem")
    assert code == 0, err
    assert tree(staged) == tree(work.parent / "cli")


def test_an_existing_directory_is_refused(work: Path, tmp_path: Path) -> None:
    sources = SetSources(publisher_sources(PUBLISHERS, index_dir=work / "indexes", dataset_root=work / "derived",
                                           corpus_root=work / "trees"))
    (tmp_path / "taken").mkdir()
    with pytest.raises(ReleaseError) as err:
        assemble_set(tmp_path / "taken", sources)
    assert err.value.code == "set_dir_exists"


def test_a_missing_input_is_refused_before_anything_is_written(work: Path, tmp_path: Path) -> None:
    (work / "derived" / "eu-eurlex" / "gaps.jsonl").unlink()
    sources = SetSources(publisher_sources(PUBLISHERS, index_dir=work / "indexes", dataset_root=work / "derived",
                                           corpus_root=work / "trees"))
    with pytest.raises(ReleaseError) as err:
        assemble_set(tmp_path / "set", sources)
    assert err.value.code == "assembly_input_missing"
    assert not (tmp_path / "set").exists() and not list(tmp_path.glob(".set.*"))


def test_a_report_measured_on_other_indexes_is_refused(work: Path, tmp_path: Path) -> None:
    signer = load_signer(work.parent / "keys" / "release-signing.key.pem", PASSPHRASE.encode())
    report = index_report(work / "indexes")
    sources = SetSources(publisher_sources(PUBLISHERS, index_dir=work / "indexes", dataset_root=work / "derived",
                                           corpus_root=work / "trees"))
    set_dir = assemble_set(tmp_path / "set", sources).directory
    (set_dir / "indexes" / "eu-eurlex.sqlite").write_bytes(b"other bytes")
    with pytest.raises(ReleaseError) as err:
        add_report(set_dir, report, [signer])
    assert err.value.code == "report_for_other_identity"


def test_cli_refuses_report_without_key(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "report.json").write_text("{}")
    code, _, err = run(capsys, *assemble_args(work, work.parent / "out"), "--report", work / "report.json")
    assert code == 2 and "--report and --key go together" in err


def test_a_linked_staging_set_holds_its_sources_bytes_without_copying_them(work: Path, tmp_path: Path) -> None:
    sources = SetSources(publisher_sources(PUBLISHERS, index_dir=work / "indexes", dataset_root=work / "derived",
                                           corpus_root=work / "trees"))
    linked = assemble_set(tmp_path / "linked", sources, link=True)
    copied = assemble_set(tmp_path / "copied", sources)
    assert linked.files == copied.files
    for name, source in sources.plan().items():
        assert (linked.directory / name).read_bytes() == (copied.directory / name).read_bytes()
        if isinstance(source, Path):
            assert (linked.directory / name).stat().st_ino == source.stat().st_ino
            assert (copied.directory / name).stat().st_ino != source.stat().st_ino
