"""Issue #14, cold search: snippets cut once the answer keeps their rows (``cut_later``). A publisher
section routed out, or a search stage replaced by a weaker one, cuts none of its snippets; every
answer is the one shaping at once gave (the same snippets, in the same places). On the real fixture
corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import search as search_op

QUESTIONS = ["protection des consommateurs", "voyages à forfait protection contre l'insolvabilité",
             "code de la consommation", "règlement grand-ducal", "directive", "données à caractère personnel",
             "salaire social minimum", "marchés publics", "insolvabilité", "organisateur", "consumer credit",
             "protectoin des consomateurs", "article 5", "the the"]
VARIANTS: list[dict[str, Any]] = [{}, {"result_grain": "provisions"}, {"per_work_limit": 1, "limit": 20}]


def _answers(core: LegalCore) -> list[str]:
    out = []
    for question in QUESTIONS:
        for variant in VARIANTS:
            for index in core._indexes.values():
                index.ranked_cache.clear()
            answer = core.call("search", {"query": question, **variant})
            out.append(json.dumps({k: v for k, v in answer.items() if k != "artifact"}, ensure_ascii=False))
    return out


def test_answers_are_the_ones_shaping_at_once_gave(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    cut: list[str] = []
    text_snippets = search_op.text_snippets

    def counted(conn: Any, shas: Sequence[str], words: Sequence[str]) -> dict[str, str]:
        cut.extend(shas)
        return text_snippets(conn, shas, words)

    monkeypatch.setattr(search_op, "text_snippets", counted)
    later = _answers(fixture_core)
    cut_later = len(cut)
    section = search_op.search_section

    def at_once(*args: Any, **kwargs: Any) -> Any:
        return section(*args, **{**kwargs, "later": None})

    monkeypatch.setattr(search_op, "search_section", at_once)
    cut.clear()
    assert _answers(fixture_core) == later
    routed = sum(answer.count('"routed": {') for answer in later)
    assert routed > 0 and len(cut) > cut_later, (routed, len(cut), cut_later)
    assert any('"snippet": "' in answer for answer in later)


def test_a_routed_section_cuts_no_snippet(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    cut: set[str] = set()
    text_snippets = search_op.text_snippets

    def counted(conn: Any, shas: Sequence[str], words: Sequence[str]) -> dict[str, str]:
        cut.update(shas)
        return text_snippets(conn, shas, words)

    monkeypatch.setattr(search_op, "text_snippets", counted)
    routed = 0
    for question in QUESTIONS:
        for index in fixture_core._indexes.values():
            index.ranked_cache.clear()
        cut.clear()
        answer = fixture_core.call("search", {"query": question})
        kept = {row["text_sha256"] for section in answer["publishers"] for hit in section.get("hits") or []
                for row in (hit, *hit.get("provisions", [])) if row.get("text_sha256")}
        assert cut <= kept, question
        routed += sum(1 for section in answer["publishers"] if section.get("routed"))
    assert routed > 0
