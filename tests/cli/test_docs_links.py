"""No dead links in the docs: every relative link of README.md and docs/**/*.md names a file
or directory of the repository (an anchor after ``#`` is not checked)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|!\[[^\]]*\]\(\s*([^)\s]+)\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, …


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def relative_links(text: str) -> list[str]:
    """The relative link targets of a Markdown text, outside fenced code blocks."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    out = []
    for match in LINK.finditer(text):
        target = (match.group(1) or match.group(2)).split("#", 1)[0]
        if target and not EXTERNAL.match(target):
            out.append(target)
    return out


def test_links_are_found() -> None:
    assert relative_links("see [a](docs/a.md#x), [b](https://x), [c](#top), ![d](img.png)") == ["docs/a.md", "img.png"]


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_dead_relative_links(doc: Path) -> None:
    dead = [t for t in relative_links(doc.read_text(encoding="utf-8")) if not (doc.parent / t).exists()]
    assert not dead, f"{doc.relative_to(ROOT)} links to missing files: {dead}"


CODE_PATH = re.compile(r"`([A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-/]*\.[a-z]{2,5})`")
TOP_LEVEL = {p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith(".")} - {"var", "build"}


def named_files(text: str) -> list[str]:
    """Repository files a text names in backticks (``derive/dataset.py``), outside code blocks."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return [m.group(1) for m in CODE_PATH.finditer(text) if m.group(1).split("/", 1)[0] in TOP_LEVEL]


@pytest.mark.parametrize("doc", [d for d in markdown_files() if "adr" not in d.parts],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_named_repository_files_exist(doc: Path) -> None:
    """A file path named in backticks under a top-level package exists (ADRs, being history, may
    name files since removed)."""
    missing = [n for n in named_files(doc.read_text(encoding="utf-8")) if not (ROOT / n).exists()]
    assert not missing, f"{doc.relative_to(ROOT)} names files the repository does not hold: {missing}"
