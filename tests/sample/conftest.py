"""The committed sample corpus, read once per session (bytes and parsed records)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from legal.dotnet_json import parse_ordered
from publishers.sample import sample_corpus_roots


@dataclass(frozen=True)
class HeldVersion:
    """One version directory of the committed sample, with its parsed record."""

    publisher: str
    slug: str
    path: Path
    raw: bytes
    record: dict[str, Any]

    @property
    def key(self) -> str:
        return self.path.name

    def body(self, file: str) -> bytes:
        return (self.path / file).read_bytes()

    def expression(self, language: str) -> dict[str, Any]:
        for expression in self.record["expressions"]:
            if expression["language"] == language:
                return expression
        raise KeyError(f"{self.record['lex_id']} has no {language} expression")


@pytest.fixture(scope="session")
def roots() -> dict[str, Path]:
    return sample_corpus_roots()


@pytest.fixture(scope="session")
def versions(roots: dict[str, Path]) -> list[HeldVersion]:
    out: list[HeldVersion] = []
    for publisher, root in sorted(roots.items()):
        for meta in sorted(root.glob("works/*/versions/*/meta.json")):
            raw = meta.read_bytes()
            out.append(HeldVersion(publisher, meta.parents[2].name, meta.parent, raw, parse_ordered(raw)))
    return out


@pytest.fixture(scope="session")
def by_work(versions: list[HeldVersion]) -> dict[str, list[HeldVersion]]:
    """``<publisher>:<slug>`` → its versions sorted by (valid_from, key)."""
    out: dict[str, list[HeldVersion]] = {}
    for version in versions:
        out.setdefault(f"{version.publisher}:{version.slug}", []).append(version)
    for held in out.values():
        held.sort(key=lambda v: (v.record["valid_from"], v.key))
    return out
