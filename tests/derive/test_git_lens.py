"""The git lens: legal dates as commit dates, pre-1970 clamped with a trailer, regenerable."""

from __future__ import annotations

import subprocess

import pytest

from derive.git_lens import build_git_lens, commit_epoch, git_env
from legal.errors import DerivationError


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=git_env(repo), capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture(scope="module")
def lens(tmp_path_factory, lu_tree):
    out = tmp_path_factory.mktemp("lens") / "lu"
    return out, build_git_lens(lu_tree, out)


def test_one_file_per_work_one_commit_per_state(lens):
    repo, report = lens
    assert report.skipped_errors == []
    assert (repo / "lu-legilux" / "rgd-2001-10-18-n3.md").is_file()
    assert (repo / "lu-legilux" / "constitution-1868-10-17-n1.de.md").is_file()  # fr is primary
    log = _git(repo, "log", "--format=%ad|%s", "--date=short", "--", "lu-legilux/rgd-2001-10-18-n3.md").splitlines()
    assert len(log) == 12 and log[0].startswith("2026-02-24|2026-02-24 rgd-2001-10-18-n3")
    assert int(_git(repo, "rev-list", "--count", "HEAD")) == report.commits


def test_commit_dates_are_legal_dates_and_pre_1970_is_clamped_with_a_trailer(lens):
    repo, _ = lens
    line = _git(repo, "log", "--format=%H|%aI|%cI", "--", "lu-legilux/reg-1837-07-13-n1.md").strip()
    sha, author, committer = line.split("|")
    assert author == committer == "1970-01-01T00:00:00+00:00"
    message = _git(repo, "show", "-s", "--format=%B", sha)
    assert "Legal-Date: 1849-03-14" in message and "clamped to 1970-01-01" in message
    recent = _git(repo, "log", "-1", "--format=%aI|%B", "--", "lu-legilux/rgd-2001-10-18-n3.md")
    assert recent.startswith("2026-02-24T12:00:00+00:00|") and "Legal-Date: 2026-02-24" in recent
    assert commit_epoch("1969-12-31") == 0 and commit_epoch("1970-01-02") == 129600


def test_never_authoritative_and_evidence_linked(lens):
    repo, _ = lens
    assert "never authoritative" in (repo / "README.md").read_text(encoding="utf-8")
    text = (repo / "lu-legilux" / "rgd-2001-10-18-n3.md").read_text(encoding="utf-8")
    assert "authoritative: 'false'" in text and "source_sha256: '" in text
    assert "Evidence-Sha256: " in _git(repo, "log", "-1", "--format=%B")


def test_regenerable_same_commit_ids(tmp_path, lens, lu_tree):
    _, first = lens
    again = build_git_lens(lu_tree, tmp_path / "again")
    assert again.head == first.head


def test_refuses_a_non_empty_output(tmp_path, lu_tree):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "keep").write_text("mine")
    with pytest.raises(DerivationError) as err:
        build_git_lens(lu_tree, tmp_path / "x")
    assert err.value.code == "output_not_empty"
