"""Issue #15, seventeenth session (lang17): German learned words read as their French cognates, and a
question's phrase alternatives saying a EuroVoc subject, on the real fixture corpus (``LEX_FIXTURES``)
where an index is read.

- A German word the lexicon has no entry for ("Identität", "Kompetenz", "geologische") may be the same
  learned word as a French one ("identité", "compétence", "géologique"): :func:`derive.index.xlang.cognates`
  proposes it, the searched index's vocabulary decides, and it is OR-ed with the word. It adds terms
  only: it never counts as a translated word, so a question no text answers in its own words stays
  unanswered (the translation guard).
- A synonym or translation that is a phrase ("paid holiday" → "paid annual leave") says a subject
  label with its words (:func:`serve.core.subjects.query_stems`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from derive.index import xlang
from serve.core import LegalCore, subjects
from tests.index.pipeline import FixtureBuild

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "limit": 10})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))



def test_a_german_learned_word_proposes_its_french_endings() -> None:
    assert "identite" in xlang.cognates("identitat", "de")
    assert "discrimination" in xlang.cognates("diskriminierung", "de")
    assert "geologique" in xlang.cognates("geologische", "de")
    assert "commission" in xlang.cognates("kommission", "de")
    assert "politique" in xlang.cognates("politik", "de")
    # no such ending, a stem too short, or another language: nothing; the word itself never
    assert xlang.cognates("einhornstalle", "de") == ()
    assert xlang.cognates("tor", "de") == ()
    assert xlang.cognates("identitat", "en") == ()
    assert "energie" not in xlang.cognates("energie", "de")


def test_only_the_cognates_the_searched_text_holds_are_searched(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    # ("qualitat", the first example, is a reviewed entry since the twenty-sixth session's title words)
    found = xlang.translate(["kundigung", "identitat", "struktur"], "de", held=held)
    assert found.alternatives["identitat"] == [c for c in ("identite", "identites") if held(c)] != []
    assert found.alternatives["struktur"] == ["structure"]  # "strukture" is in no text
    assert {"from": "struktur", "to": ["structure"], "source": "cognate"} in found.used
    # without the index's word list nothing is guessed: no cognate (the dictionary tier's entry, data and no
    # guess, answers instead: ADR 0123)
    found = xlang.translate(["kundigung", "identitat"], "de")
    assert all(u["source"] != "cognate" for u in found.used)
    assert {"from": "identitat", "to": ["identite"], "source": "dictionary"} in found.used


def test_a_cognate_is_never_a_translated_word_that_leaves_another_word_out(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    # three translated words leave one word nothing translates ("einhornstalle": no text holds it)
    # out of the search words; counted, the cognate would be the third: it is not, so the word stays
    # and the question stays unanswered
    found = xlang.translate(["genehmigung", "kundigung", "identitat", "einhornstalle"], "de", held=held)
    assert "identite" in found.alternatives["identitat"]
    assert "einhornstalle" in found.terms and found.untranslated == []


def test_a_german_no_hit_question_stays_unanswered_with_a_cognate(fixture_core: LegalCore) -> None:
    # "Identität" → "identité" (a cognate; "Qualität", the first example, is a reviewed entry now) and "Genehmigung" → "autorisation" (reviewed): counted as
    # two translated words, the relaxation dropped "Einhornställe" as a filler and Legilux answered
    # (the Constitution, the Code de la consommation) a question no act answers
    for publisher in (LU, EU):
        section = _section(fixture_core, "Genehmigung Identität Einhornställe", publisher)
        used = section["query_plan"]["translations"]["used"]
        assert any(u["from"] == "identitat" and u["source"] == "cognate" for u in used)
        assert section["hits"] == []
        assert section["relaxation_withheld"]["reason"] == "unknown_terms"


def test_a_phrase_alternative_says_a_subject_label_with_its_words(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{EU}.sqlite")
    try:
        works = {int(r[0]): str(r[1]) for r in conn.execute("SELECT work_rowid, work_id FROM works")}
        # the merger regulation's EuroVoc label "merger control", said by a phrase term only
        found = subjects.subject_works(conn, None, [["company takeovers", "merger control"]])
    finally:
        conn.close()
    assert f"{EU}:32004r0139" in {works[w] for w in found}
    assert "control" in subjects.query_stems(["merger control"])
