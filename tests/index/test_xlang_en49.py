"""Issue #15, forty-ninth session (lu49a): English questions on French-only Legilux acts — closed-class English
words left out of a translated question (:data:`derive.index.xlang.TRANSLATION_FUNCTION_WORDS`), a word the
mining calls ``shared`` translated by its own reviewed entry (:func:`derive.index.xlang.shared_unreviewed`),
and the reviewed entries for the Legilux English act-term words no tier reached and for the second senses the
acts' own French act terms use (ADR 0160)."""

from __future__ import annotations

import json

from derive.index import relax, xlang


def _lu49a(band: str) -> list[dict[str, object]]:
    entries = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))["entries"]
    return [e for e in entries if f"({band})" in str(e["source"])]


def test_closed_class_english_words_are_left_out_of_a_translated_question() -> None:
    stops = xlang.translation_stops("en")
    assert {"through", "another", "not", "cannot", "under", "such"} <= stops
    # the planner's own stop words are unchanged: the class is the translator's only
    assert "through" not in relax.STOP_WORDS_BY_LANGUAGE["en"] and "through" not in relax.RELAXABLE_WORDS
    # one such word nothing translates left the whole question untranslated (a ``foreign`` word: ADR 0021)
    assert "through" in xlang.lexicon("en").foreign
    found = xlang.translate(["apprenticeship", "through", "employment"], "en")
    assert not found.missing and found.dropped == ["through"]
    assert found.terms == ["apprenticeship", "employment"]
    # a word of the class the lexicon translates keeps its translation ("without" « sans »)
    assert "without" not in stops or xlang.lexicon("en").lookup("without", "en")


def test_no_word_of_the_class_names_a_thing() -> None:
    # "will" (a testament), "last", "own" and "self" name things or frame a subject: not in the class
    words = xlang.TRANSLATION_FUNCTION_WORDS["en"]
    assert not words & {"will", "last", "own", "self", "permit", "rules"}
    # none is a German word of the lexicon, nor a French word of the lexicon's terms
    assert not {w for w in words if xlang.lexicon("de").lookup(w, "de") is not None}
    assert not words & xlang.lexicon("en").french


def test_a_shared_word_is_translated_by_its_own_reviewed_entry_only() -> None:
    en = xlang.lexicon("en")
    # "dog": the mining calls it shared (the aligned French holds it in lists of goods); the reviewer's « chien »
    assert "dog" in en.shared and en.words["dog"] == ("chien",)
    assert not xlang.shared_unreviewed("dog", "en")
    found = xlang.translate(["dog", "liability", "insurance"], "en")
    assert found.alternatives["dog"] == ["chien"]
    # a shared word with no reviewed entry of its own stays as it is
    plain = next(w for w in sorted(en.shared) if w not in en.words)
    assert xlang.shared_unreviewed(plain, "en")
    assert plain not in xlang.translate([plain, "insurance"], "en").alternatives
    # not shared at all: nothing to override
    assert not xlang.shared_unreviewed("insurance", "en")


def test_the_act_term_words_no_tier_reached_have_entries() -> None:
    entries = _lu49a("lu49a")
    assert len({e["word"] for e in entries}) >= 150
    for entry in entries:
        assert entry["language"] == "en" and entry["terms"]
        assert "[lu-legilux:" in str(entry["source"]) and "recueil-" not in str(entry["source"])
    en = xlang.lexicon("en")
    assert "isolation thermique" in (en.lookup("insulation", "en") or ())
    assert en.lookup("lockdown", "en") == ("confinement",)
    # left out by rule: the negative guard, a frame word, a word an earlier pass withdrew
    assert en.lookup("permit", "en") is None and en.lookup("rules", "en") is None
    assert en.lookup("register", "en") is None


def test_second_senses_add_the_acts_french_and_keep_the_mined_one() -> None:
    assert len(_lu49a("lu49a, second senses")) >= 80
    en = xlang.lexicon("en")
    liability = en.lookup("liability", "en") or ()
    # an own-form entry outranks a sibling form's pair ("liabilities" « passifs »): the sense the acts use
    assert liability == ("responsabilite",)
    # a sibling's French that is the word's sense too is written into its entry
    assert {"stupefiants", "medicaments"} <= set(en.lookup("drug", "en") or ())
    assert "metiers" in (en.lookup("trades", "en") or ())
    assert "nationalite" in (en.lookup("citizenship", "en") or ())
    assert en.phrases[("liability", "insurance")][0] == "assurance responsabilite civile"


def test_a_translated_phrase_counts_as_its_words() -> None:
    # "liability insurance" is a phrase entry: one search term standing for two translated words, as a
    # synonym phrase does; counted once, "registering" (a word nothing translates) outnumbered the
    # translated words and the whole question was searched untranslated
    assert xlang.translated_words("liability insurance") == 2 and xlang.translated_words("dog") == 1
    found = xlang.translate(["registering", "dog", "commune", "liability", "insurance"], "en")
    assert not found.missing and found.untranslated == ["registering"]
    assert found.terms == ["dog", "commune", "liability insurance"]
    # the guard is unchanged: one translated word does not outnumber a word no French text holds
    assert xlang.translate(["space", "elevator", "construction", "permit"], "en").missing == ["permit"]
