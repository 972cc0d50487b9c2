"""Issue #15, twenty-seventh session (concepteu27): a question no section answers, answered by the law's name for its subject.

The reviewed lexicon (``derive/index/synonyms.json``) gives everyday words the acts' own terms for them. When every
lane, relaxed too, leaves the whole answer empty, the provisions holding such a term that is a phrase of two content
words or more ("hacked" → "personal data breach") answer, reported as ``query_relaxed: {"reason": "legal_term"}``
(``search._reach_legal_terms``, ``subjects.legal_terms``); a question holding a word the index holds in no form and
no entry covers keeps its empty answer. Real fixture corpus (``LEX_FIXTURES``).
"""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore, subjects

EU = "eu-eurlex"
GDPR = "eu-eurlex:32016r0679"
HACKED = "a company got hacked and lost my data, how fast must they tell the authority"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_legal_terms_are_the_entries_phrases_normalised_each_once() -> None:
    synonyms = {
        "group lawsuit": ["representative action", "action représentative"],
        "class action": ["representative action", "recours collectif"],
        "extra fee": ["surcharge", "charges", "frais"],  # single words name no subject
        "ai": ["ai system"],
    }
    assert subjects.legal_terms(synonyms) == [
        "representative action", "action representative", "recours collectif", "ai system"]
    assert subjects.legal_terms({"of the": ["de la"]}) == []  # stop words are not content words


def test_an_everyday_question_no_lane_answers_finds_the_act_by_its_legal_term(fixture_core: LegalCore) -> None:
    # no provision holds "hacked", "lost" and "how fast" together; the lexicon's term for "hacked",
    # "personal data breach", is the GDPR's (Art. 33: notification of a personal data breach)
    answer = fixture_core.call("search", {"query": HACKED})
    assert answer["merged"][0]["work"] == GDPR
    eu = _section(answer, EU)
    assert eu["query_relaxed"]["reason"] == "legal_term"
    assert "personal data breach" in eu["query_relaxed"]["to"]
    assert eu["relaxation_withheld"] is None


def test_a_word_no_index_holds_and_no_entry_covers_keeps_the_answer_empty(fixture_core: LegalCore) -> None:
    # "gnomes" is held in no form: the question is about something the corpus lacks, whatever "hacked" means
    answer = fixture_core.call("search", {"query": "my data got hacked by gnomes"})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["hits"] == []
        assert section["query_relaxed"] is None


def test_a_question_a_lane_answers_is_not_relaxed_to_its_legal_term(fixture_core: LegalCore) -> None:
    # "package holiday" → "package travel": the all-words lane answers, the last stage is never reached
    answer = fixture_core.call("search", {"query": "package holiday organiser price increase", "fuzzy": "off"})
    eu = _section(answer, EU)
    assert eu["hits"]
    assert (eu["query_relaxed"] or {}).get("reason") != "legal_term"
