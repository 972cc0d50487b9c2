"""Every entry point that reads a publisher identifier gives the same work (one grammar).

The table is built from the real fixtures, read by path: each published work's own
``work_identifier`` and directory slug (the ground truth), each version's publisher version
identifier where it names its own work, the CELEX numbers of the EU works, and the ELI links
the Legilux bodies actually carry (``…/a476/jo``, host-less ``/eli/…``, ``legilux.public.lu``).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from assistant.subjects import CatalogueIndex, identifier_mentions
from assistant.text import normalize
from derive.citations import resolve
from derive.index.identifiers import href_slug_candidates
from derive.index.query import parse_query
from legal.identifiers import url_candidates
from legal.ids import WorkSlug
from serve.core.resolve import slug_candidates
from tests.conftest import SHARED_FIXTURES

LU = SHARED_FIXTURES / "lex-corpus-lu-legilux"
EU = SHARED_FIXTURES / "lex-corpus-eu-eurlex"
_HREF = re.compile(rb'href="((?:https?://[a-z.]*legilux\.public\.lu)?/eli/etat/(?:leg|adm)/[a-z]+/\d{4}/\d{2}/\d{2}/'
                   rb'[a-z0-9]+/jo)"')


def _works(root: Path) -> list[dict[str, str]]:
    return [json.loads(p.read_bytes()) for p in sorted((root / "works").glob("*/meta.json"))]


def _versions(root: Path, slug: str) -> list[dict[str, object]]:
    return [json.loads(p.read_bytes()) for p in sorted((root / "works" / slug / "versions").glob("*/meta.json"))]


@cache
def table() -> tuple[tuple[str, str, str], ...]:
    """``(case id, identifier text, expected work lex id)``."""
    rows: list[tuple[str, str, str]] = []
    if not LU.is_dir() or not EU.is_dir():
        return ()
    for work in _works(LU):
        rows.append((f"lu-work-{work['slug']}", work["work_identifier"], work["lex_work_id"]))
        for version in _versions(LU, work["slug"])[:1]:
            for expr in version.get("expressions", []):  # type: ignore[union-attr]
                uri = expr.get("source_uri", "")
                if "/consolide/" in uri:
                    rows.append((f"lu-page-{work['slug']}", uri, work["lex_work_id"]))
                    break
    for work in _works(EU):
        celex = work["work_identifier"].rsplit("/", 1)[-1]
        rows.append((f"eu-work-{work['slug']}", work["work_identifier"], work["lex_work_id"]))
        rows.append((f"eu-celex-{work['slug']}", celex, work["lex_work_id"]))
        for version in _versions(EU, work["slug"]):
            pvid = str(version.get("publisher_version_identifier") or "")
            if re.search(r"/celex/0\d{4}", pvid):
                rows.append((f"eu-consolidated-{work['slug']}", pvid, work["lex_work_id"]))
                break
    seen: set[bytes] = set()
    for body in sorted(LU.glob("works/*/versions/*/fr.xml")):
        for m in _HREF.finditer(body.read_bytes()):
            href = m.group(1)
            if href in seen or len(seen) >= 40:
                continue
            seen.add(href)
            path = href.decode().split("/eli/etat/", 1)[1].split("/")[1:6]
            rows.append((f"lu-href-{len(seen)}", href.decode(), "lu-legilux:" + "-".join(path)))
    return tuple(rows)


def test_table_is_large_and_covers_every_form() -> None:
    rows = table()
    assert len(rows) >= 60
    ids = " ".join(r[0] for r in rows)
    for form in ("lu-work-", "lu-page-", "lu-href-", "eu-work-", "eu-celex-", "eu-consolidated-"):
        assert form in ids, form
    assert any("r(" in r[2] for r in rows), "a corrigendum CELEX"
    assert any(r[1].startswith("/eli/") for r in rows), "a host-less ELI"
    assert any(r[1].startswith("http://legilux.public.lu/") for r in rows), "a legilux.public.lu URL"


class _Held:
    def __init__(self, works: set[str]) -> None:
        self.works = works

    def names(self) -> list[object]:
        return []

    def title(self, work: str) -> None:
        return None


def _assistant(text: str, expected: str) -> set[str]:
    """The works the assistant's subject preflight reads in ``text`` when ``expected`` is held."""
    index = CatalogueIndex(_Held(set()))  # type: ignore[arg-type]
    index.works = {expected}
    return {w for m in identifier_mentions(index, text, normalize(text)) for w in m.works}


def _entry_points(text: str) -> dict[str, str | None]:
    is_url = "://" in text or text.startswith("/eli/")
    out: dict[str, str | None] = {}
    if is_url:
        pub, slug = url_candidates(text)[0]
        out["grammar"] = f"{pub}:{slug}"
        out["citations"] = resolve(text)
        found = href_slug_candidates(text)
        out["index"] = f"{found[0][0]}:{found[0][1]}" if found else None
    if text.startswith("http") or not is_url:
        parsed = parse_query(f"what does {text} say")
        works = parsed.identifiers[0].works if parsed.identifiers else ()
        out["query"] = works[0] if works else None
        first = slug_candidates(text)[0]
        out["core"] = f"{first[0]}:{first[1]}"
    return out


@pytest.mark.parametrize(("case", "text", "expected"), table(), ids=[r[0] for r in table()])
def test_entry_points_agree(case: str, text: str, expected: str) -> None:
    answers = _entry_points(text)
    assert answers and all(v == expected for v in answers.values()), answers
    if text.startswith("http") or not text.startswith("/"):
        assert _assistant(text, expected) == {expected}
    if case.startswith(("lu-work-", "eu-work-")):
        publisher = expected.split(":", 1)[0]
        assert f"{publisher}:{WorkSlug.of_work(publisher, text)}" == expected  # importer / adapters
    if case.startswith("eu-celex-"):
        assert f"eu-eurlex:{WorkSlug.from_celex(text)}" == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://data.legilux.public.lu/eli/etat/leg/loi/2020/06/04/a476/jo", "lu-legilux:loi-2020-06-04-a476"),
        ("https://legilux.public.lu/eli/etat/leg/loi/2020/06/04/a476/jo", "lu-legilux:loi-2020-06-04-a476"),
        ("https://www.legilux.public.lu/eli/etat/leg/loi/2011/04/08/n2/consolide/20240910/fr",
         "lu-legilux:loi-2011-04-08-n2"),
        ("http://data.legilux.public.lu/eli/reg_ue/2013/952/jo", "eu-eurlex:32013r0952"),
        ("http://data.europa.eu/eli/reg/2016/679/oj", "eu-eurlex:32016r0679"),
        ("https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32016R0679R(02)", "eu-eurlex:32016r0679r(02)"),
        ("http://publications.europa.eu/resource/celex/02016R0679-20160504R(01)", "eu-eurlex:32016r0679"),
        ("http://publications.europa.eu/resource/celex/12012E%2FTXT", "eu-eurlex:12012e-txt"),
    ],
    ids=["jo-tail", "web-host", "www-consolide-lang", "lu-eli-of-eu-act", "eu-eli", "corrigendum-url",
         "consolidated-corrigendum", "treaty-escaped"],
)
def test_named_forms_agree(text: str, expected: str) -> None:
    answers = _entry_points(text)
    assert all(v == expected for v in answers.values()), answers
    assert _assistant(text, expected) == {expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("32016R0679", "eu-eurlex:32016r0679"), ("CELEX:02016R0679-20160504", "eu-eurlex:32016r0679"),
     ("02016R0679-20160504R(01)", "eu-eurlex:32016r0679"), ("32016R0679R(02)", "eu-eurlex:32016r0679r(02)"),
     ("12012E/TXT", "eu-eurlex:12012e-txt")],
    ids=["celex", "consolidated", "consolidated-corrigendum", "corrigendum", "treaty"],
)
def test_celex_in_text_agrees(text: str, expected: str) -> None:
    answers = _entry_points(text)
    assert all(v == expected for v in answers.values()), answers
    assert _assistant(text, expected) == {expected}
    assert WorkSlug.from_celex(text.removeprefix("CELEX:")).value == expected.split(":", 1)[1]
