"""Issue #15, twenty-seventh session (entitle27): the English words users write for Legilux subjects,
on the real fixture corpus (``LEX_FIXTURES``) where an index is read.

- Of the 600 most frequent content words of Legilux act titles, 583 already had an English path (a mined
  or reviewed pair, a word English spells alike, a shared word); what English questions lacked were the
  everyday and lawyer's English words for those subjects ("mayor" « bourgmestre », "redundancy"
  « licenciement », "firearms" « armes à feu », "jobseekers" « demandeurs d'emploi »): reviewed entries.
- No entry whose Snowball stem siblings would take a wrong pair (:meth:`Lexicon.lookup` gives a word a
  sibling's pair): "wills" would give the modal "will" « testaments », "unions" give "union" (the
  European Union) « syndicats », "trial" give "trials" (clinical) « procès », "angling" give "angle"
  « pêche »; and no entry for "permit", a ``foreign`` word that keeps a question no French text answers
  unanswered ("space elevator construction permit").
"""

from __future__ import annotations

from typing import Any

from derive.index import xlang
from derive.index.text import normalize
from serve.core import LegalCore

LU = "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "limit": 10})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_english_words_for_legilux_subjects_reach_the_french_terms() -> None:
    lex = xlang.lexicon("en")
    assert lex.lookup("mayor", "en") == ("bourgmestre",)
    assert lex.lookup("redundancy", "en") == ("licenciement",)
    assert lex.lookup("firearms", "en") == ("armes a feu",)
    assert lex.lookup("jobseekers", "en") == ("demandeurs d emploi",)
    assert lex.phrases[("registration", "duties")] == ("droits d enregistrement",)


def test_no_entry_gives_a_stem_sibling_a_wrong_pair() -> None:
    lex = xlang.lexicon("en")
    for word in ("will", "union", "trials", "angle", "dependent"):
        assert lex.lookup(word, "en") is None, word
    # "permit" stays a word no French text holds: a question holding it beside words nothing translates
    # is searched as it is, and the judged negative answers nothing
    assert lex.lookup("permit", "en") is None
    assert "permit" in lex.foreign


def test_every_new_english_entry_is_an_english_word_french_does_not_write() -> None:
    lex = xlang.lexicon("en")
    for word in ("mayor", "bailiff", "firefighters", "pupils", "taxpayer"):
        assert lex.origin[word] == "reviewed", word
        assert word not in lex.french, word


def test_an_english_question_on_a_mayor_finds_the_french_word(fixture_core: LegalCore) -> None:
    # « bourgmestre » is the Luxembourg title of a mayor (loi communale, Constitution art. 107); without
    # the entry "mayor" is a word no French text holds and the Legilux section answers nothing
    query = "mayor of the municipality"
    assert xlang.query_language(normalize(query).split()) == "en"
    section = _section(fixture_core, query, LU)
    used = section["query_plan"]["translations"]["used"]
    assert {"from": "mayor", "to": ["bourgmestre"], "source": "reviewed"} in used
    # every word found in French: the Constitution's and the communal provisions holding « bourgmestre »
    works = {h["work"] for h in section["hits"] if "translated" in h["match_reasons"]}
    assert "lu-legilux:constitution-1868-10-17-n1" in works
