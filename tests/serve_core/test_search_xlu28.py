"""Issue #15, twenty-eighth session (xlu28): English and German questions on Legilux (French) acts.

- A section searched in translation is not routed out by the sections holding the question's English
  words when its works are titled by the question better on both of routing's title measures
  (:func:`serve.core.ops.search.translated_titled_over`): "state participation in a new natural gas
  distribution company" — the EU section holds the English words, the Luxembourg law « autorisant l'Etat
  à participer à une nouvelle société pour la distribution de gaz naturel » is titled by them. The
  shapes are the measured sections' (docs/retrieval-benchmark.md, xlu28).
- Reviewed lexicon entries for words nothing translated: German months and nouns heading or modifying
  compounds ("Trinkwasserversorgung" cut into « eau potable » + « approvisionnement »/« alimentation »), the
  Sûre's German name, and English words the mined list calls ``foreign`` that left a whole question
  untranslated ("affordable", "teams", "matters").
"""

from __future__ import annotations

import json
from typing import Any

from derive.index import xlang
from derive.index.text import normalize
from serve.core.ops import search

TRANSLATED_PLAN = {"translations": {"language": "en", "used": [{"from": "gas", "to": ["gaz"], "source": "reviewed"}]}}


def _section(publisher: str, cover: float, fit: float, *, translated: bool, direct: bool) -> dict[str, Any]:
    reasons = [] if direct else ["relaxed"]
    return {"publisher": publisher, "outcome": "succeeded", "title_coverage": cover, "top_title_match": fit,
            "query_plan": TRANSLATED_PLAN if translated else {},
            "hits": [{"work": f"{publisher}:w1", "anchor": "art_1", "match_reasons": reasons}]}


def test_a_translated_section_titled_over_the_holders_is_not_routed_out() -> None:
    # bilingual28 "state participation in a new natural gas distribution company" (measured values)
    eu = _section("eu-eurlex", 0.2857, 0.25, translated=False, direct=True)
    lu = _section("lu-legilux", 0.6667, 0.6061, translated=True, direct=False)
    assert search.translated_titled_over(lu, [eu])
    search.route_sections([eu, lu])
    assert lu["hits"] and "routed" not in lu
    assert eu["hits"]


def test_a_translated_section_whose_first_work_fits_less_is_routed_out() -> None:
    # holdout3 "suitability assessment investment advice markets in financial instruments" (as of 2017):
    # the Legilux works are titled by more of the question, the EU first work (MiFID) fits it better
    eu = _section("eu-eurlex", 0.4286, 0.5455, translated=False, direct=True)
    lu = _section("lu-legilux", 0.5714, 0.3478, translated=True, direct=False)
    assert not search.translated_titled_over(lu, [eu])
    search.route_sections([eu, lu])
    assert not lu["hits"] and lu["routed"]["reason"] == "another publisher holds every word of the query"


def test_the_titled_bar_and_the_translation_are_required() -> None:
    holder = _section("eu-eurlex", 0.2, 0.1428, translated=False, direct=True)
    # "individual housing aid rent subsidy": titled by a third of the question only (below the bar)
    assert not search.translated_titled_over(_section("lu-legilux", 0.3333, 0.5, translated=True, direct=False),
                                             [holder])
    assert search.translated_titled_over(_section("lu-legilux", search.TITLED_BAR, 0.5, translated=True,
                                                  direct=False), [holder])
    # a section asked in the question's own words keeps routing's rule as it was
    assert not search.translated_titled_over(_section("lu-legilux", 0.6667, 0.6061, translated=False,
                                                      direct=False), [holder])
    # every holder must be titled by less of the question
    even = _section("eu-eurlex", 0.6667, 0.25, translated=False, direct=True)
    assert not search.translated_titled_over(_section("lu-legilux", 0.6667, 0.6061, translated=True,
                                                      direct=False), [holder, even])


def test_german_months_and_compound_parts_reach_their_french() -> None:
    de = xlang.lexicon("de")
    assert de.lookup("januar", "de") == ("janvier",)
    assert de.lookup(normalize("März"), "de") == ("mars",)
    assert "eveche" in (de.lookup("bistums", "de") or ())
    assert xlang.compound_parts("trinkwasserversorgung", "de") == ("trinkwasser", "versorgung")
    found = xlang.translate(normalize("Trinkwasserversorgung Stausee Esch-Sauer").split(), "de")
    assert {"eau potable", "alimentation", "reservoir", "sure"} <= {t for v in found.alternatives.values() for t in v}


def test_german_entries_are_no_english_words() -> None:
    # the rule of ADR 0061: a German entry whose form is an English word would count an English question
    # as German — the months English spells alike (April, August, September, November) have no entry
    german, english = xlang.lexicon("de"), xlang.lexicon("en")
    for word in ("april", "august", "september", "november", "land"):
        assert german.lookup(word, "de") is None, word
    assert xlang.query_language(normalize("state aid granted on 1 September 2022").split()) == "en"
    assert english.lookup("januar", "en") is None


def test_a_foreign_english_word_with_an_entry_no_longer_empties_the_translation() -> None:
    for question, word in (("special fund for affordable housing", "affordable"),
                           ("joint investigation teams in criminal matters", "teams")):
        words = [w for w in normalize(question).split() if w not in {"for", "in"}]
        found = xlang.translate(words, "en")
        assert not found.missing, question
        assert found.alternatives.get(word), word


def test_the_new_entries_name_their_source() -> None:
    reviewed = json.loads(xlang.REVIEWED_PATH.read_text(encoding="utf-8"))
    assert "Twenty-eighth session (helper xlu28)" in str(reviewed["review"])
    ours = {e["word"]: e for e in reviewed["entries"] if e["word"] in {"Bistum", "Januar", "affordable", "Sauer"}}
    assert set(ours) == {"Bistum", "Januar", "affordable", "Sauer"}
    assert all("[lu-legilux:" in e["source"] for e in ours.values())


def test_german_names_of_luxembourg_communes_reach_their_french() -> None:
    de = xlang.lexicon("de")
    assert de.lookup(normalize("Düdelingen"), "de") == ("dudelange",)
    assert de.lookup("clerf", "de") == ("clervaux",)
    assert de.lookup("obersauer", "de") == ("haute sure",)
    # a name French spells alike once accents are folded ("Ettelbrück", « Ettelbruck ») needs no entry
    assert de.lookup("ettelbruck", "de") is None
    found = xlang.translate(normalize("Gemeinde Schifflingen Bebauungsplan").split(), "de")
    assert found.alternatives.get("schifflingen") == ["schifflange"]


def test_the_english_possessive_is_left_out_of_a_translated_question() -> None:
    words = normalize("Luxembourg's National Research Fund").split()
    assert "s" in words
    found = xlang.translate([w for w in words if w != "luxembourg"], "en")
    assert "s" not in found.terms and "s" in found.dropped
    assert found.alternatives.get("fund")
