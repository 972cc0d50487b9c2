"""legal.fs: a directory fsync that ignores only what a filesystem cannot do, and one is_inside."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from legal import fs


def test_fsync_dir_of_a_real_directory_and_of_a_missing_one(tmp_path: Path) -> None:
    fs.fsync_dir(tmp_path)
    fs.fsync_dir(tmp_path / "absent")  # cannot be opened: nothing to make durable


@pytest.mark.parametrize("code", [errno.EINVAL, errno.ENOTSUP])
def test_a_filesystem_that_does_not_fsync_directories_is_not_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def refuse(fd: int) -> None:
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, "fsync", refuse)
    fs.fsync_dir(tmp_path)


def test_an_io_error_while_making_a_change_durable_is_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError) as caught:
        fs.fsync_dir(tmp_path)
    assert caught.value.errno == errno.EIO


def test_is_inside_follows_links(tmp_path: Path) -> None:
    (tmp_path / "root" / "a").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path / "out")
    assert fs.is_inside(tmp_path / "root" / "a", tmp_path / "root")
    assert fs.is_inside(tmp_path / "root", tmp_path / "root")
    assert not fs.is_inside(tmp_path / "root" / "link", tmp_path / "root")
