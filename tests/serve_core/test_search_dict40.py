"""Issue #15, fortieth session (dict40): a question word only the dictionary tier knows finds the French act.

"Tierärztin" and "powder" are in neither the reviewed nor the mined lexicon, no German compound cut nor
French cognate reaches them, and a question holding them found nothing. FreeDict's German–French dictionary
gives "Tierärztin" « vétérinaire » (the committed ``xlang_dict.json``), its English–French one "powder"
« poudre » (``powder /paudər/`` → « poudre », eng-fra 0.1.6; not in the committed file, ADR 0123: given
here as ``scripts/dict_xlang.py --languages de,en`` selects it). The Legilux fixture holds the law creating
the « Administration luxembourgeoise vétérinaire et alimentaire » and the 1881 decree on « le transport, le
commerce et le dépôt de la poudre à tirer et des autres substances explosives ». End to end on the real
fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import array
from typing import Any

import pytest

from derive.index import xlang
from serve.core import LegalCore
from serve.core.ops import search

VETERINARY = "lu-legilux:loi-2022-09-08-a502"
POWDER = "lu-legilux:argd-1881-04-20-n1"
GERMAN = "Tierärztin Verwaltung"
ENGLISH = "storage of powder and explosives"


def _legilux(answer: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == "lu-legilux")


def _dictionaries(monkeypatch: pytest.MonkeyPatch, english: xlang.Dictionary, german: xlang.Dictionary) -> None:
    monkeypatch.setattr(xlang, "dictionary", lambda language: english if language == "en" else german)


def test_only_the_dictionary_knows_the_words() -> None:
    assert xlang.lexicon("de").lookup("tierarztin", "de") is None
    assert xlang.compound_parts("tierarztin", "de") is None and not xlang.cognates("tierarztin", "de")
    assert xlang.lexicon("en").lookup("powder", "en") is None and not xlang.cognates("powder", "en")
    assert xlang.dictionary("de").lookup("tierarztin", "de") == ("veterinaire",)


def test_a_german_question_finds_the_act_through_the_dictionary(fixture_core: LegalCore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    answer = fixture_core.call("search", {"query": GERMAN, "limit": 10})
    used = _legilux(answer)["query_plan"]["translations"]["used"]
    assert {"from": "tierarztin", "to": ["veterinaire"], "source": "dictionary"} in used
    assert {"from": "verwaltung", "to": ["administration"], "source": "reviewed"} in used
    assert answer["merged"][0]["work"] == VETERINARY
    # without the tier the question finds nothing
    empty = xlang.Dictionary(b"", array.array("I"))
    _dictionaries(monkeypatch, empty, empty)
    assert fixture_core.call("search", {"query": GERMAN, "limit": 10})["merged"] == []


def test_an_english_question_finds_the_act_through_the_dictionary(fixture_core: LegalCore,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    empty = xlang.Dictionary(b"", array.array("I"))
    _dictionaries(monkeypatch, empty, empty)
    monkeypatch.setattr(search, "ACT_TERMS", False)  # the powder act's English terms would answer it (ADR 0152)
    assert fixture_core.call("search", {"query": ENGLISH, "limit": 10})["merged"] == []
    monkeypatch.setattr(search, "ACT_TERMS", True)
    _dictionaries(monkeypatch, xlang.packed([("powder", ["poudre"])], "en"), empty)
    answer = fixture_core.call("search", {"query": ENGLISH, "limit": 10})
    translations = _legilux(answer)["query_plan"]["translations"]
    assert translations["language"] == "en"
    assert {"from": "powder", "to": ["poudre"], "source": "dictionary"} in translations["used"]
    assert answer["merged"][0]["work"] == POWDER
