"""Issue #15, twenty-sixth session (xlang26): English and German questions on Legilux (French) acts,
on the real fixture corpus (``LEX_FIXTURES``) where an index is read.

- The words of Legilux act titles reach the German and English lexicons: reviewed entries for the
  content words among the 600 most frequent title words that no entry reached ("Zusammensetzung" →
  « composition », "diseases" → « maladies »), none of them a German word whose form or Snowball stem
  is an English word's (it would count an English question's word as German).
- An English word still takes a stem sibling's pair (the lead, after the merge: refusing it emptied a
  question, "controllers" → « contrôles »), and the German lexicon's French terms are no evidence that a
  question is French ("classes", "education": words English spells alike; ADR 0061 addendum).
- A German compound the lexicon cuts into words it knows tells a German question
  (:func:`derive.index.xlang.query_language`): "Preisbegrenzung beim Laden von Elektrofahrzeugen"
  had one German stop word against one English-looking word ("laden") and was told as no language.
"""

from __future__ import annotations

import json
from typing import Any

from derive.index import xlang
from derive.index.text import normalize
from serve.core import LegalCore

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "limit": 10})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_title_words_reach_the_german_and_english_lexicons() -> None:
    assert xlang.lexicon("de").lookup("zusammensetzung", "de") == ("composition",)
    assert xlang.lexicon("de").lookup("verwendung", "de") == ("utilisation",)
    assert xlang.lexicon("de").lookup("jugendlichen", "de") == ("jeunes",)
    assert "maladies" in (xlang.lexicon("en").lookup("diseases", "en") or ())


def test_no_title_word_entry_reads_an_english_word_as_german() -> None:
    reviewed = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))
    review = str(reviewed["review"])
    assert "Twenty-sixth session (helper xlang26)" in review
    english = xlang.lexicon("en")
    german = xlang.lexicon("de")
    # the forms the rule left out: "Händler" reads "handler", "Pensionen" stems as "pensions"
    for word in ("handler", "pensions", "operations", "familiar", "must"):
        assert german.lookup(word, "de") is None, word
    assert english.lookup("union", "en") is None or "syndicats" not in english.lookup("union", "en")


def test_an_english_word_keeps_a_stem_siblings_pair() -> None:
    # a refused pair left "Luxembourg law on licensing of air traffic controllers" with a word nothing
    # translates, so the Legilux section answered nothing; a wrong sibling pair only widens an OR group
    lex = xlang.lexicon("en")
    assert lex.lookup("controllers", "en") == lex.lookup("controls", "en") is not None


def test_a_french_term_of_the_german_lexicon_is_no_evidence_of_a_french_question() -> None:
    # « classes » is a French term of the German lexicon (a title word's entry) and an English word:
    # counted as French, it tied this English question ("in" is English and German), which was then
    # searched untranslated in French text
    assert "classes" in xlang.lexicon("de").french
    assert "classes" not in xlang.lexicon("en").french
    assert xlang.query_language(normalize("classes in public schools").split()) == "en"
    assert xlang.query_language(normalize("les classes de l'enseignement secondaire").split()) == "fr"


def test_a_german_compound_of_known_words_tells_a_german_question() -> None:
    words = normalize("Preisbegrenzung beim Laden von Elektrofahrzeugen").split()
    assert xlang.compound_parts("elektrofahrzeugen", "de") == ("elektro", "fahrzeugen")
    assert xlang.query_language(words) == "de"
    # an English question is not made German by it
    assert xlang.query_language(normalize("charging electric vehicles at public stations").split()) == "en"


def test_a_german_question_on_a_legilux_title_is_translated(fixture_core: LegalCore) -> None:
    # "Zusammensetzung" → « composition », a title word ("composition de la Commission supérieure des
    # maladies professionnelles"); without its entry the German word stays required and nothing answers
    section = _section(fixture_core, "Zusammensetzung der Kommission für Krankheiten", LU)
    used = section["query_plan"]["translations"]["used"]
    assert {"from": "zusammensetzung", "to": ["composition"], "source": "reviewed"} in used
    # every word found in French: a provision holding « composition », « commission », « maladie »
    assert any({"keyword", "translated"} <= set(h["match_reasons"]) for h in section["hits"])
