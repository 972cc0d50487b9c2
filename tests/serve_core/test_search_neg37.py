"""Issue #15, thirty-seventh session (neg37): questions the corpora cannot answer, answered by the loosest
relaxation, on the real fixture corpus (``LEX_FIXTURES``) where an index is read.

- A German compound the lexicon cuts into parts is one word of the question, not two, when a translated
  question's relaxation weighs its kept words against the words nothing translates
  (:func:`derive.index.relax.question_words`): "Kündigungsschutz für Babysitter bei den Großeltern" kept the
  two halves of « Kündigungsschutz » and dropped the two words that say what it asks about.
"""

from __future__ import annotations

from typing import Any

from derive.index import relax, xlang
from serve.core import LegalCore
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild

LU = "lu-legilux"


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10})
    return {str(s["publisher"]): dict(s) for s in answer["publishers"]}


def test_a_compounds_parts_are_one_word_of_the_question() -> None:
    terms = ["kundigung", "schutz", "babysitter", "grosseltern"]
    translated = {"kundigung", "schutz"}
    joined = [("kundigung", "schutz")]
    assert relax.question_words(["kundigung", "schutz"], joined) == 1
    assert relax.question_words(["kundigung", "schutz"]) == 2
    # counted as two words, the halves outweighed the two untranslated words; as one, they do not
    assert relax.untranslated_fillers(terms, [], translated) == ["babysitter", "grosseltern"]
    assert relax.untranslated_fillers(terms, [], translated, joined=joined) == []
    # the unheld words' rule counts the same way
    assert relax.unheld_fillers(["erbrecht", "haus", "tiere"], ["erbrecht"], {"haus", "tiere"}) == ["erbrecht"]
    assert relax.unheld_fillers(["erbrecht", "haus", "tiere"], ["erbrecht"], {"haus", "tiere"},
                                joined=[("haus", "tiere")]) == []
    # two words of the question beside the compound still make the two kept words a filler needs
    assert relax.untranslated_fillers(["kundigung", "schutz", "arbeitgeber", "vorlegen"], [],
                                      {"kundigung", "schutz", "arbeitgeber"}, joined=joined) == ["vorlegen"]


def test_the_compounds_the_lexicon_cut_are_read_off_the_translation(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    found = xlang.translate(["kundigungsschutz", "babysitter"], "de", held=held)
    assert found.terms[:2] == ["kundigung", "schutz"]
    report = {"used": [{"from": "kundigungsschutz", "to": [], "source": "compound kundigung+schutz"},
                       {"from": "x", "to": [], "source": "compound pension+kassen (learned modifier)"},
                       {"from": "arbeitgeber", "to": ["employeur"], "source": "mined"}]}
    assert search.compound_parts_used(report) == [("kundigung", "schutz"), ("pension", "kassen")]


def test_a_german_question_answered_by_a_compounds_halves_only_stays_empty(fixture_core: LegalCore) -> None:
    sections = _sections(fixture_core, "Kündigungsschutz für Babysitter bei den Großeltern")
    relaxed = sections[LU].get("query_relaxed") or {}
    assert relaxed.get("reason") != "stop_words_dropped" or "babysitter" not in relaxed.get("dropped", [])
