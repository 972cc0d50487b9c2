"""Issue #15, forty-eighth session (neg48): an act named inside a question that no held act bears, answered by
acts its rarest word does not name, answers nothing (ADR 0158, :mod:`serve.core.ops.unheld_name`), on the real fixture
corpus (``LEX_FIXTURES``) where an index is read.

"Consumer Credit Act package travel": no work of either fixture index is named "Consumer Credit Act", and no work the
search answered with (the package travel directive, by the other words) is named by the name's rarest word. Now every
section answers no hits and says why.
"Package Travel Act cancellation fees" names the directive by a name the alias file does not hold, and the
directive's title holds « package » and « travel »: it is still answered.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from serve.core import LegalCore, searchplan
from serve.core.ops import unheld_name

PACKAGE_TRAVEL = "eu-eurlex:32015l2302"


def _answer(core: LegalCore, query: str) -> dict[str, Any]:
    return dict(core.call("search", {"query": query, "limit": 10, "fuzzy": "off"}))


def _works(answer: dict[str, Any]) -> list[str]:
    return [h["work"] for s in answer["publishers"] for h in s["hits"]]


def _plan(**kw: Any) -> SimpleNamespace:
    base = dict(mentions=[], constraints=[], anchor=None, article_key=None, act_number=None, boost=[],
                strong=False, name_not_held=None)
    return SimpleNamespace(**{**base, **kw})


def test_the_rule_is_on_and_the_old_embedded_rule_stays_off() -> None:
    assert unheld_name.UNHELD_ACT_NAME is True
    assert searchplan.EMBEDDED_ACT_NAMES is False


def test_an_unheld_act_name_answered_by_other_acts_answers_nothing_and_says_why(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    query = "Consumer Credit Act package travel"
    monkeypatch.setattr(unheld_name, "UNHELD_ACT_NAME", False)
    assert PACKAGE_TRAVEL in _works(_answer(fixture_core, query))
    monkeypatch.setattr(unheld_name, "UNHELD_ACT_NAME", True)
    answer = _answer(fixture_core, query)
    assert _works(answer) == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "name_not_held", "shape": "name",
                                                  "words": ["consumer", "credit", "act"]}


def test_an_act_named_otherwise_than_its_alias_is_kept_when_its_title_holds_a_word_of_the_name(
        fixture_core: LegalCore) -> None:
    answer = _answer(fixture_core, "Package Travel Act cancellation fees")
    assert _works(answer)[:1] == [PACKAGE_TRAVEL]
    assert all(s.get("relaxation_withheld") is None for s in answer["publishers"] if s["hits"])


def test_the_embedded_name_and_its_own_words() -> None:
    shape = unheld_name.embedded_name("European Chips Act semiconductor crisis response")
    assert shape is not None and shape.words == ("european", "chips", "act")
    assert unheld_name.name_words(shape) == ["chips"]
    assert unheld_name.name_words(unheld_name.embedded_name("EU Space Act registration of satellites")) == ["space"]
    # no capitalised name before "Act", or "Act" ending the question (named_act's own shape): none
    assert unheld_name.embedded_name("which act rules the registration of satellites") is None
    assert unheld_name.embedded_name("European Chips Act") is None
    # two acts compared: not one name
    assert unheld_name.embedded_name("Digital Services Act and Digital Markets Act compared") is None


def test_a_question_naming_or_citing_an_act_or_already_emptied_is_not_weighed() -> None:
    assert unheld_name.weighed([_plan(), _plan()])
    assert not unheld_name.weighed([_plan(mentions=[1])])
    assert not unheld_name.weighed([_plan(), _plan(name_not_held={"reason": "foreign_law"})])
    assert not unheld_name.weighed([_plan(strong=True)])


def test_the_reason_is_the_named_acts_own() -> None:
    shape = unheld_name.embedded_name("Indian Companies Act corporate social responsibility spending")
    assert shape is not None
    assert unheld_name.reason(shape) == {"reason": "name_not_held", "shape": "name",
                                         "words": ["indian", "companies", "act"]}
    assert unheld_name.answered([{"hits": []}, {"hits": [{"work": "x"}]}]) == [{"hits": [{"work": "x"}]}]


def test_the_rarest_word_of_the_name_is_the_one_weighed() -> None:
    assert unheld_name.RAREST_WORD is True
    assert unheld_name.rarest_word(["media", "freedom"], {"media": 418, "freedom": 477}) == ["media"]
    # a word the vocabulary does not count (too short) is not weighed; none counted: every word
    assert unheld_name.rarest_word(["net", "zero", "industry"], {"zero": 1238, "industry": 606}) == ["industry"]
    assert unheld_name.rarest_word(["net"], {}) == ["net"]


def test_a_word_of_the_name_is_also_weighed_as_the_search_translated_it() -> None:
    english = _plan(translations={"language": "en", "used": [{"from": "packaging", "to": ["emballages"]},
                                                             {"from": "minimum wage", "to": ["salaire social minimum"]},
                                                             {"from": "reuse", "to": ["reemploi"]},
                                                             {"from": "packaging", "to": ["sur-emballage", "emballage"]}]})
    assert unheld_name.with_translations(["packaging"], [english, _plan(translations=None)]) == [
        "packaging", "emballages", "emballage"]
