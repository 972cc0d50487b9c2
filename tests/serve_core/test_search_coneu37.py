"""Plain-word questions on EUR-Lex acts (issue #15, coneu37): a long form searched with its abbreviation
(both labels of one EuroVoc concept); "EU country" searched with the
acts' "Member State" — on the real fixture corpus."""

from __future__ import annotations

import json
from typing import Any

from derive.index import relax
from serve.core import LegalCore
from tests.scripts_loader import load_script


def _miner() -> Any:
    return load_script("mine_eurovoc_acronyms")


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_an_abbreviation_is_paired_with_the_long_form_whose_initials_it_is() -> None:
    labels = {("c1", "en"): {"VAT", "value added tax", "turnover tax"},
              ("c2", "fr"): {"PME", "petites et moyennes entreprises", "PMI"},
              ("c3", "en"): {"EEA", "European Economic Area"}, ("c4", "en"): {"EEA", "European Environment Agency"},
              ("c5", "en"): {"CAP", "price cap"}}
    assert _miner().pairs_of(labels) == [("en", "VAT", "value added tax", "c1"),
                                         ("fr", "PME", "petites et moyennes entreprises", "c2")]


def test_an_abbreviation_the_texts_also_write_in_lower_case_is_left_out() -> None:
    pairs = [("fr", "BIS", "Banque des règlements internationaux", "c"), ("en", "VAT", "value added tax", "d")]
    counts = {("fr", "BIS"): [40, 900, "w"], ("fr", "banque des reglements internationaux"): [5, 0, "w"],
              ("en", "VAT"): [800, 805, "w"], ("en", "value added tax"): [300, 0, "w"]}
    mined = _miner().entries(pairs, counts, set())
    assert [(e["word"], e["terms"]) for e in mined] == [("value added tax", ["VAT"])]


def test_the_mined_entries_are_in_the_synonym_file() -> None:
    entries = json.loads(relax.SYNONYMS_PATH.read_text(encoding="utf-8"))["entries"]
    mined = {(e["word"], e["terms"][0]) for e in entries if str(e["source"]).startswith(_miner().SOURCE)}
    assert {("value added tax", "VAT"), ("European Banking Authority", "EBA"),
            ("taxe sur la valeur ajoutée", "TVA"), ("petites et moyennes entreprises", "PME")} <= mined
    assert not any(t == "EEA" for _, t in mined)  # two concepts' abbreviation
    assert not any(w == "VAT" for w, _ in mined)  # the abbreviation's own way was dropped (measured)


def test_the_long_form_of_an_abbreviation_finds_the_text_that_writes_the_abbreviation(fixture_core: LegalCore) -> None:
    # the CRR's art. 136 (mapping of ECAIs' credit assessments) writes "EBA"; the question says the
    # authority's name: without the mined entry only a partial match of another article answers
    answer = fixture_core.call("search", {"query": "European Banking Authority mapping of credit assessments",
                                          "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert eu["hits"][0]["work"] == "eu-eurlex:32013r0575"
    assert (eu["hits"][0]["anchor"], eu["hits"][0]["match_reasons"]) == ("art_136", ["keyword"])


def test_an_eu_country_is_searched_as_the_acts_member_state(fixture_core: LegalCore) -> None:
    # the Package Travel Directive's art. 7 says "Member State", never "EU country" (EuroVoc 5283's
    # non-preferred label; fit): every word held, not a relaxed match
    answer = fixture_core.call("search", {"query": "consumer travel insolvency protection in another EU country",
                                          "fuzzy": "off"})
    eu = _section(answer, "eu-eurlex")
    assert (eu["hits"][0]["work"], eu["hits"][0]["anchor"]) == ("eu-eurlex:32015l2302", "art_7")
    assert eu["hits"][0]["match_reasons"] == ["keyword"]
    # … and a question no provision answered in its own words is answered by the GDPR
    answer = fixture_core.call("search", {"query": "lead supervisory authority when a company has establishments "
                                                   "in several EU countries", "fuzzy": "off"})
    assert _section(answer, "eu-eurlex")["hits"][0]["work"] == "eu-eurlex:32016r0679"
