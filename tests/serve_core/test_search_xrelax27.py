"""Issue #15, twenty-seventh session (xrelax27): a translated question whose Legilux section answers
nothing, relaxed like a French question (docs/search.md "Translated questions relaxed", ADR 0071).

- An unheld translated phrase (the lexicon's « technologie de l'information » where the act's name
  writes « technologies de l'information ») withheld the relaxation as an ``unknown_terms`` word: it
  is searched as its French words, each with its other grammatical number (:func:`phrase_words`).
  An untranslated unknown word ("muslim", "space elevator") keeps the relaxation withheld.
- A cognate-translated word ("journalism" « journalisme ») is an untranslated filler for the relaxation;
  when the relaxation found nothing, it is tried again with the held cognates kept
  (:func:`held_cognates`), a phrase weighed by its rarest word (:func:`phrase_docs`), not as a word no
  provision holds.

The vocabulary counts are those of the full Legilux index (bf43) for the words named.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from serve.core.ops import search
from serve.core.searchplan import Plan


def _vocabulary(counts: dict[str, int], states: int = 1000) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE vocabulary(term TEXT PRIMARY KEY, docs INT)")
    conn.executemany("INSERT INTO vocabulary VALUES (?, ?)", counts.items())
    conn.execute("CREATE TABLE stamp(k TEXT PRIMARY KEY, v TEXT)")
    conn.execute("INSERT INTO stamp VALUES ('count.lexical_states', ?)", (str(states),))
    return conn


def _plan(terms: list[str], synonyms: dict[str, list[str]], used: list[dict[str, Any]]) -> Plan:
    return Plan(terms=terms, article_key=None, anchor=None, mentions=[], constraints=[], explicit_works=False,
                synonyms=synonyms, translations={"language": "en", "used": used, "dropped": []})


IT_CENTRE = _plan(["state", "information technology", "centre"],
                  {"state": ["etats", "etat"], "information technology": ["technologie de l information"]},
                  [{"from": "state", "to": ["etats", "etat"], "source": "mined"},
                   {"from": "information technology", "to": ["technologie de l information"], "source": "eurovoc"}])
IT_GROUPS = [["state", "etats", "etat"], ["information technology", "technologie de l information"], ["centre"]]


def test_an_unheld_translated_phrase_is_searched_as_its_french_words() -> None:
    # the act: « loi portant création du Centre des technologies de l'information de l'État »
    conn = _vocabulary({"technologie": 75, "technologies": 240, "information": 3000, "informations": 900})
    split = search.phrase_words(conn, IT_CENTRE, IT_GROUPS, ["information technology"])
    assert split is not None
    terms, groups = split
    assert terms == ["state", "technologie", "information", "centre"]
    assert groups == [["state", "etats", "etat"], ["technologie", "technologies"], ["information", "informations"],
                      ["centre"]]


def test_an_untranslated_unknown_word_keeps_the_relaxation_withheld() -> None:
    # "annual financial support for the Muslim community": no French text holds "muslim" (the act
    # writes « musulmane »), so the question is about what the index does not hold
    conn = _vocabulary({"technologie": 75, "information": 3000})
    plan = _plan(["annual", "muslim"], {"annual": ["annuel"]}, [{"from": "annual", "to": ["annuel"], "source": "mined"}])
    assert search.phrase_words(conn, plan, [["annual", "annuel"], ["muslim"]], ["muslim"]) is None
    # … and a French question is never split
    french = Plan(terms=IT_CENTRE.terms, article_key=None, anchor=None, mentions=[], constraints=[],
                  explicit_works=False, synonyms=IT_CENTRE.synonyms)
    assert search.phrase_words(conn, french, IT_GROUPS, ["information technology"]) is None


def test_a_one_word_term_rendered_as_an_unheld_phrase_stays_unknown() -> None:
    # only a phrase of the question is split: a single word the lexicon renders as a phrase names one thing
    conn = _vocabulary({"armes": 400, "feu": 300})
    plan = _plan(["firearms"], {"firearms": ["armes a feu"]}, [{"from": "firearms", "to": ["armes a feu"],
                                                                "source": "reviewed"}])
    assert search.phrase_words(conn, plan, [["firearms", "armes a feu"]], ["firearms"]) is None


def test_a_phrase_whose_word_no_provision_holds_stays_unknown() -> None:
    conn = _vocabulary({"information": 3000})  # « technologie » held in no form
    assert search.phrase_words(conn, IT_CENTRE, IT_GROUPS, ["information technology"]) is None


JOURNALISM = _plan(["state aid", "professional", "journalism", "use"],
                   {"state aid": ["aide de l etat"], "professional": ["professionnel"], "journalism": ["journalisme"]},
                   [{"from": "state aid", "to": ["aide de l etat"], "source": "eurovoc"},
                    {"from": "professional", "to": ["professionnel"], "source": "mined"},
                    {"from": "journalism", "to": ["journalisme"], "source": "cognate"}])


def test_a_held_cognate_is_kept_when_the_relaxation_found_nothing() -> None:
    conn = _vocabulary({"journalisme": 27, "professionnel": 2173})
    assert search.held_cognates(conn, JOURNALISM, ["journalism", "use"]) == ["journalism"]
    # a cognate no provision holds is a filler still
    assert search.held_cognates(_vocabulary({}), JOURNALISM, ["journalism", "use"]) == []
    assert search.held_cognates(conn, JOURNALISM, []) == []


def test_a_phrase_weighs_as_its_rarest_word_only_when_asked() -> None:
    # « aide de l'État »: « aide » 4,100 provisions, « etat » 3,223 (vocabulary lists no phrase)
    conn = _vocabulary({"aide": 4100, "etat": 3223, "journalisme": 27}, states=60000)
    assert search.phrase_docs(conn, "aide de l etat") == 3223
    groups = [["aide de l etat"], ["journalisme"]]
    rare, common = search.idf_weights(conn, groups), search.idf_weights(conn, groups, phrase_df=True)
    assert rare[0] > rare[1]  # the default: a phrase counts as held by one provision
    assert common[0] < common[1]  # weighed by its rarest word, the phrase no longer carries the quorum
    assert rare[1] == common[1]
