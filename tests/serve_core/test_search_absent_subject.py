"""Issue #15, forty-second session (neg42): a question whose subject word no mounted index holds is
answered only by what holds it (ADR 0132, :mod:`serve.core.ops.absent_subject`), on the real fixture
corpus (``LEX_FIXTURES``) where an index is read.

« statut juridique des robots humanoïdes au travail »: no provision, name or label of either fixture
index holds « robots » or « humanoïdes »; EUR-Lex answered with the GDPR's EuroVoc labels (« statut »,
« juridique », « travail » are ordinary law words). Now every section answers no hits and says why.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import absent_subject, search

GDPR = "eu-eurlex:32016r0679"


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return dict(core.call("search", {"query": query, "limit": 10, "fuzzy": "off"}))


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for s in answer["publishers"] for h in s["hits"]]


def _plan(terms: list[str], **kw: Any) -> SimpleNamespace:
    base = dict(mentions=[], constraints=[], anchor=None, article_key=None, act_number=None, boost=[],
                strong=False, name_not_held=None, translations=None, terms=terms)
    return SimpleNamespace(**{**base, **kw})


def test_the_rule_is_on_the_default_path() -> None:
    assert absent_subject.ABSENT_SUBJECT is True and absent_subject.MIN_SHARE == 1 / 5
    assert absent_subject.TITLE_FIT == 0.4


def test_a_question_whose_subject_no_index_holds_answers_nothing_and_says_why(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "statut juridique des robots humanoïdes au travail"
    monkeypatch.setattr(absent_subject, "ABSENT_SUBJECT", False)
    assert GDPR in _works(_answer(fixture_core, query))  # by its EuroVoc labels alone (work_metadata)
    monkeypatch.setattr(absent_subject, "ABSENT_SUBJECT", True)
    answer = _answer(fixture_core, query)
    assert _works(answer) == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "subject_not_held", "words": ["robots", "humanoides"]}


def test_a_named_act_beside_the_absent_word_is_kept(fixture_core: LegalCore) -> None:
    # "personal data" names the GDPR by its short title: a hit holding every searched word, never weighed
    assert GDPR in _works(_answer(fixture_core, "personal data of the customers of a yoga studio"))


def test_an_absent_word_among_six_or_more_is_a_word_around_the_subject(fixture_core: LegalCore) -> None:
    # « yoga » is one word of seven: the data-protection question is still answered (labels of the GDPR)
    answer = _answer(fixture_core, "droit d'accès aux données personnelles des membres d'une association de yoga")
    assert GDPR in _works(answer)
    # … one of five is the question's subject
    assert _works(_answer(fixture_core, "protection des données et le yoga")) == []


def test_a_german_word_no_index_holds_is_not_weighed() -> None:
    # no mounted index holds German text: « Yogastudios » may be a word the lexicon lacks
    plan = _plan(["datenschutz", "kunden", "yogastudios"], translations={"language": "de", "used": []})
    assert absent_subject.candidates([plan], {"fr", "en"}) == []
    english = _plan(["customers", "yoga", "studio"], translations={"language": "en", "used": [
        {"from": "customers", "to": ["clients"]}]})
    assert absent_subject.candidates([english], {"fr", "en"}) == ["yoga", "studio"]


def test_candidates_skip_a_question_naming_an_act_or_already_answered() -> None:
    assert absent_subject.candidates([_plan(["yoga", "travail"], constraints=[1])], {"fr"}) == []
    assert absent_subject.candidates([_plan(["yoga"], name_not_held={"reason": "foreign_law"})], {"fr"}) == []
    # stop words, act forms, numbers and short words are never the subject
    assert absent_subject.candidates([_plan(["loi", "yoga", "2024", "tva", "pour"])], {"fr"}) == ["yoga"]


def test_share_and_weakness() -> None:
    assert absent_subject.enough(["yoga"], 5) and not absent_subject.enough(["papy"], 6)
    assert not absent_subject.enough([], 3)
    weak = {"hits": [{"match_reasons": ["relaxed", "translated"]}, {"match_reasons": ["title_words"]}]}
    strict = {"hits": [{"match_reasons": ["work_metadata"], "provisions": [{"match_reasons": ["keyword"]}]}]}
    assert absent_subject.weak_only(weak) and not absent_subject.weak_only(strict)
    assert absent_subject.fires([weak, {"hits": []}]) and not absent_subject.fires([weak, strict])
    assert not absent_subject.fires([{"hits": []}])
    # a first act the question all but titles answers it, whatever word it lacks
    assert not absent_subject.fires([{**weak, "top_title_match": 0.4444}])
    assert absent_subject.fires([{**weak, "top_title_match": 0.3636}])
    assert absent_subject.expanded_words([{"query_expansions": ["yoga -> yona", "wine growing -> viticole"]}]) \
        == {"yoga", "wine growing"}


def test_held_anywhere_reads_texts_names_and_labels(fixture_indexes: Any) -> None:
    files = sorted(Path(fixture_indexes.index_dir).glob("*.sqlite"))
    assert files
    for path in files:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            assert not search.held_anywhere(conn, "humanoides")
            assert search.held_anywhere(conn, "protection")  # held by texts, as itself or a light-stem form
        finally:
            conn.close()
