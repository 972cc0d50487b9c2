"""Issue #15, neg52 (ADR 0183): a question naming an act by a sigle no mounted index holds (« règlement emballages et
déchets d'emballages PPWR objectifs de réemploi 2030 ») and answered only by the weaker stages answers nothing, typed
``sigle_not_held``; a German question asking for a « Verordnung » with no word making it Luxembourg's asks for an act of
the Union (:func:`serve.core.ops.search.de_regulation_alone`, read by :func:`serve.core.ops.search.asks_eu_act`).
:func:`capital_sigles` and :func:`de_regulation_alone` are pure; on the real fixture corpus (``LEX_FIXTURES``) for the
answers."""

from __future__ import annotations

import pytest

from derive.index.text import normalize
from serve.core import LegalCore
from serve.core.ops import search


@pytest.mark.parametrize(("query", "sigles"), [
    ("règlement emballages et déchets d'emballages PPWR objectifs de réemploi 2030", ["ppwr"]),
    ("HIPAA rules for sharing patient health records", ["hipaa"]),
    ("EBA Regulation on own funds", ["eba"]),  # three capitals before a form word
    ("RoHS: restricting hazardous substances", []),  # a small letter: a word or a name held otherwise
    ("Dürfen LKWs am Samstag fahren", []),
    ("registering a company with the RCS", []),  # three capitals, no form word after
])
def test_capital_sigles(query: str, sigles: list[str]) -> None:
    assert search.capital_sigles(query) == sigles


@pytest.mark.parametrize("query", [
    "Verordnung über Verbot von in Zwangsarbeit hergestellten Produkten",
    "Verordnung über Düngeprodukte",
])
def test_a_german_verordnung_alone_asks_an_eu_act(query: str) -> None:
    words = normalize(query).split()
    assert search.de_regulation_alone(words)
    assert search.asks_eu_act(words)


@pytest.mark.parametrize("query", [
    "Großherzogliche Verordnung über den Jugendschutz in audiovisuellen Mediendiensten",
    "grossherzogliche Verordnung über die Handelskammer",
    "ministerielle Verordnung über die Prüfungen",
    "règlement sur les produits cosmétiques",  # French: « règlement » is Luxembourg's too
    "regulation on the verordnung of products",  # not told German
])
def test_a_verordnung_made_luxembourgs_or_not_german_is_not_read(query: str) -> None:
    assert not search.de_regulation_alone(normalize(query).split())


def test_the_german_form_switch_off() -> None:
    search.EU_FORM_ALONE_DE = False
    try:
        assert not search.de_regulation_alone(normalize("Verordnung über Düngeprodukte").split())
    finally:
        search.EU_FORM_ALONE_DE = True


def test_an_unheld_sigle_answered_by_title_words_answers_no_hits(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "registre aux firmes ABCD", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "sigle_not_held", "words": ["abcd"]}
    plain = fixture_core.call("search", {"query": "registre aux firmes", "limit": 10})
    assert [h["work"] for h in plain["merged"]][:1] == ["lu-legilux:agd-1909-12-23-n1"]


def test_the_sigle_switch_off_keeps_the_weak_answer(fixture_core: LegalCore) -> None:
    search.SIGLE_UNANSWERED = False
    try:
        answer = fixture_core.call("search", {"query": "registre aux firmes ABCD", "limit": 10})
    finally:
        search.SIGLE_UNANSWERED = True
    assert [h["work"] for h in answer["merged"]][:1] == ["lu-legilux:agd-1909-12-23-n1"]
