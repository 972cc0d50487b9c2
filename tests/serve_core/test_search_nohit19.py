"""Issue #15, nineteenth pass: two more ways a question about nothing the corpora hold was answered.

- An English question asked of Legilux is searched through the cross-language lexicon, and the
  words nothing translates were dropped as fillers: "*bobsleigh* track safety regulation" became
  "safety regulation". A word that no mounted index holds in any form, although EUR-Lex holds
  English text, is what the question is about (:func:`serve.core.ops.search.unheld_words`).
- A EuroVoc label sharing two words of a longer question beside a word it lacks was a weak hit:
  "loi Sapin II lutte contre la corruption" → the label "lutte contre le crime"
  (:func:`serve.core.ops.search.label_answers`).
"""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore
from serve.core.ops.search import label_answers, unheld_words

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, **args})
    return {s["publisher"]: s for s in answer["publishers"]}


def test_an_english_word_no_index_holds_is_not_dropped_as_a_filler(fixture_core: LegalCore) -> None:
    # before: the Legilux section dropped "bobsleigh" (and "track") as untranslated fillers and
    # answered "safety regulation" with ten relaxed hits on fire safety in schools
    sections = _sections(fixture_core, "bobsleigh track safety regulation")
    assert sections[LU]["hits"] == [] and sections[LU]["query_relaxed"] is None
    assert sections[LU]["relaxation_withheld"]["reason"] == "unknown_terms"
    assert "bobsleigh" in sections[LU]["relaxation_withheld"]["terms"]
    assert sections[EU]["relaxation_withheld"] == {"reason": "unknown_terms", "terms": ["bobsleigh"]}


def test_an_untranslated_word_another_index_holds_is_still_a_filler(fixture_core: LegalCore) -> None:
    # "track" is held by EUR-Lex's English text: a word of the corpus, dropped beside the translated
    # words when Legilux holds none of it (the rule of relax.untranslated_fillers, unchanged)
    assert unheld_words(["track", "safety", "regulation"], "en", {"en", "fr"}, {"track", "safety", "regulation"}) \
        == frozenset()
    sections = _sections(fixture_core, "track safety of workers")
    assert sections[LU]["hits"] and sections[LU]["relaxation_withheld"] is None
    assert sections[LU]["query_relaxed"]["dropped"] == ["track"]


def test_unheld_words_need_an_index_holding_the_question_s_language() -> None:
    terms = ["bobsleigh", "track", "safety", "of", "2015"]
    known = {"track", "safety"}
    assert unheld_words(terms, "en", {"en", "fr"}, known) == frozenset({"bobsleigh"})
    # no index holds German text: an unknown German word may still be a verb nothing translates
    assert unheld_words(["krankschreibung", "vorlegen"], "de", {"en", "fr"}, set()) == frozenset()
    assert unheld_words(terms, None, {"en", "fr"}, known) == frozenset()


def test_a_label_sharing_two_words_of_a_longer_question_is_no_hit() -> None:
    question = ["loi", "sapin", "lutte", "contre", "corruption"]
    assert not label_answers(question, {"lutte", "contre", "le", "crime"})
    # the question names the label's whole subject
    assert label_answers(question, {"lutte", "contre", "la", "corruption"})
    assert label_answers(["lutte", "contre", "crime", "organise", "transfrontalier"], {"lutte", "contre", "le", "crime"})
    # three shared words, or a majority of a short question, still answer
    assert label_answers(["cooperation", "judiciaire", "penale", "peche", "thon", "rouge"],
                         {"cooperation", "judiciaire", "penale", "ue"})
    assert label_answers(["marche", "capitaux", "europe"], {"marche", "des", "capitaux"})
    assert label_answers(["instrument", "financier", "derive"], {"instrument", "financier"})
    # one shared word never did
    assert not label_answers(["marche", "thon"], {"marche", "des", "capitaux"})


def test_the_metadata_lane_keeps_a_label_the_question_names(fixture_core: LegalCore) -> None:
    # the EuroVoc label "principe de reconnaissance mutuelle" is named whole: its works stay weak hits
    sections = _sections(fixture_core, "principe de reconnaissance mutuelle", language="fr")
    works = {h["work"] for h in sections[EU]["hits"]}
    assert works, "the label's works are found"
