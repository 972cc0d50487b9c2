"""What the act-term section tests share (xsec46, lu47, lu48, eu48b): three fixture works, a small term index over
them, the ranked matches of a question as :func:`serve.core.ops.search.act_term_matches` gives them, and a section
of hits made and read back; and the fixture indexes built with a test file of act terms (terms45, concept46,
zh49)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from derive.index import actterms as index_terms
from serve.core import LegalCore, actterms
from tests.index.pipeline import FixtureBuild, build_indexes

EU, LU = "eu-eurlex", "lu-legilux"
#: fixture works: the GDPR, the Luxembourg consumer code and the Luxembourg data-protection law
GDPR = "eu-eurlex:32016r0679"
CONSUMER = "lu-legilux:loi-2011-04-08-n2"
DATA_LAW = "lu-legilux:loi-2018-08-01-a686"
#: held EUR-Lex acts of the fixture build that the empty-answer tests (zh49, zh50, zh51) give terms of made-up words no
#: question says, so that the terms weigh a word as the full build's thousands of acts do
FILLER_ACTS = ("31962r0059", "31978l0583", "32003r2273", "32004r0139", "32011d0167", "32011d0306", "32013d1359",
               "32013r0575", "32013r1336", "32015l2302")


def filler_terms() -> list[dict[str, Any]]:
    """Terms of made-up words (« quuxelN frobnicN ») for each of :data:`FILLER_ACTS`."""
    return [{"work": f"eu-eurlex:{slug}", "fr": [f"quuxel{n} frobnic{n}"]} for n, slug in enumerate(FILLER_ACTS)]


def terms() -> actterms.TermIndex[int]:
    return actterms.term_index([(1, "customer personal information", "en"), (1, "consumer protection", "en"),
                                (2, "personal data", "en"), (3, "data protection", "en")])


def matched(query: str, works: dict[int, tuple[str, int]]) -> tuple[list[tuple[str, int, actterms.Match[int]]],
                                                                     list[str]]:
    """The ranked matches of ``query`` as :func:`search.act_term_matches` gives them (``works``: the term index's
    work → (lex work id, section position)), and the question's words."""
    words = actterms.question_words(query)
    index = terms()
    ranked = actterms.matches(index, words)
    return [(works[m.work][0], works[m.work][1], m) for m in ranked if m.work in works], words


def section(publisher: str, *hits: tuple[str, list[str]]) -> dict[str, Any]:
    """A section of ``publisher`` listing ``hits`` (lex work id, match reasons) in order, ranked from 1."""
    return {"publisher": publisher,
            "hits": [{"work": w, "match_reasons": r, "rank": i} for i, (w, r) in enumerate(hits, 1)]}


def works(section: dict[str, Any]) -> list[str]:
    """The lex work ids a section lists, in order."""
    return [h["work"] for h in section["hits"]]


def write_terms(directory: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """``directory`` holding ``rows`` as its one act-terms file (``test.jsonl``, the shape of ``derive/index/actterms``'
    files)."""
    (directory / "test.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                                          encoding="utf-8")
    return directory


def build_with_terms(fixture: FixtureBuild, terms: Path, out: Path) -> Path:
    """The fixture indexes built into ``out`` with the act terms of the directory ``terms`` (none when it holds no
    file) in place of the reviewed ones."""
    token = index_terms.DIRECTORY.set(terms)
    try:
        build_indexes(fixture.trees, fixture.datasets, out)
    finally:
        index_terms.DIRECTORY.reset(token)
    return out


@contextmanager
def mounted_with_terms(fixture: FixtureBuild, tmp: pytest.TempPathFactory, rows: Iterable[Mapping[str, Any]],
                       name: str) -> Iterator[LegalCore]:
    """A core mounted over the fixture indexes built with the act terms ``rows`` (:func:`build_with_terms`), its set
    named ``name``."""
    terms = write_terms(tmp.mktemp(f"act-terms-{name}"), rows)
    with LegalCore.mount(build_with_terms(fixture, terms, tmp.mktemp(f"index-{name}")), {"set_id": name}) as core:
        yield core


def answer_works(answer: Mapping[str, Any]) -> list[str]:
    """Every work an answer lists, section by section."""
    return [h["work"] for s in answer["publishers"] for h in s.get("hits") or []]


def searched(core: LegalCore, query: str) -> dict[str, Any]:
    """The search's answer to ``query`` (ten hits, no fuzzy matching), as the empty-answer tests read it."""
    return dict(core.call("search", {"query": query, "limit": 10, "fuzzy": "off"}))
