"""Issue #15, thirty-third session (xlu33): English and German questions on French-only law, on the real
fixture corpus (``LEX_FIXTURES``) where an index is read.

- Learned words French spells with another ending: a German participle of an -ieren verb
  ("qualifizierte" « qualifiée »), an adjective in -al ("regionalen" « régionales »), a noun in -at
  ("Zertifikate" « certificats », the stem's ``k`` read before the French ending), a ``z`` before ``e``
  ("Konzessionen" « concessions »); an English trade in -ian ("technician" « technicien ») and a
  participle in -ied ("modified" « modifié »). Proposed by :func:`derive.index.xlang.cognates`, kept only
  when the searched index holds them, never counted as translated words.
- A statute asked by its subject in German ("Gesetz über den Schutz der Natur und der Umwelt"): no index
  holds German text, so the German words a stray text holds (the Constitution's German version) say
  nothing about whether the act is held; the question is left to the lanes and their translation.
"""

from __future__ import annotations

from typing import Any

from derive.index import xlang
from serve.core import LegalCore
from tests.index.pipeline import FixtureBuild

EU, LU = "eu-eurlex", "lu-legilux"



def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10})
    return {str(s["publisher"]): dict(s) for s in answer["publishers"]}


def test_german_learned_words_are_spelt_with_their_french_endings() -> None:
    assert "concessions" in xlang.cognates("konzessionen", "de")  # z before e, k before o
    assert "certificats" in xlang.cognates("zertifikate", "de")  # the stem's k before the French ending
    assert "qualifiee" in xlang.cognates("qualifizierte", "de")
    assert "correlees" in xlang.cognates("korrelierte", "de")
    assert "regionales" in xlang.cognates("regionalen", "de")
    assert xlang.cognates("formellen", "de") == ("formelles", "formels")
    # the earlier endings and spellings are unchanged; the word itself is never proposed
    assert "identite" in xlang.cognates("identitat", "de") and "commission" in xlang.cognates("kommission", "de")
    assert "format" not in xlang.cognates("format", "de")


def test_english_trades_in_ian_and_participles_in_ied_are_spelt_as_french() -> None:
    assert xlang.cognates("technician", "en") == ("technicien",)
    assert xlang.cognates("technicians", "en") == ("techniciens",)
    assert "modifie" in xlang.cognates("modified", "en")
    assert xlang.cognates("army", "en") == ("armie", "armee")  # unchanged


def test_the_new_cognates_are_kept_only_where_the_index_holds_them(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    # ("Zertifikat" is a reviewed entry: its French is the lexicon's, not a spelling)
    found = xlang.translate(["qualifizierte", "regionalen", "kundigung"], "de", held=held)
    assert "qualifiee" in found.alternatives["qualifizierte"]
    assert set(found.alternatives["regionalen"]) == {c for c in ("regionales", "regionaux") if held(c)} != set()
    assert {u["from"] for u in found.used if u["source"] == "cognate"} == {"qualifizierte", "regionalen"}
    english = xlang.translate(["technician", "training"], "en", held=held)
    assert english.alternatives["technician"] == ["technicien"]
    assert "technician" not in english.untranslated


def test_an_english_trade_word_is_searched_in_its_french_form(fixture_core: LegalCore) -> None:
    section = _sections(fixture_core, "training of technicians and engineers")[LU]
    used = section["query_plan"]["translations"]["used"]
    assert {"from": "technicians", "to": ["techniciens"], "source": "cognate"} in used
    assert "technicians" not in section["query_plan"]["translations"].get("untranslated", [])


def test_a_german_statute_asked_by_its_subject_is_searched_in_translation(fixture_core: LegalCore) -> None:
    # "Schutz", "Natur", "Umwelt" are words of the Constitution's German text: they are "held", yet no
    # name holds them; before this rule every section answered no hits (``name_not_held``)
    sections = _sections(fixture_core, "Gesetz über den Schutz der Natur und der Umwelt")
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "name_not_held" for s in sections.values())
    assert sections[LU]["query_plan"]["translations"]["language"] == "de"
    assert sections[LU]["hits"]
    # a German subject nothing translates is still answered by nothing
    unheld = _sections(fixture_core, "Gesetz über Einhornställe")
    assert not any(s["hits"] for s in unheld.values())
