"""Issue #15, neg51 (ADR 0176): the adjective of a region, a town or a state the state list lacks (« loi québécoise
sur la profession de sage-femme », "Bavarian building code", « bayerisches Gesetz », « Wiener Mietrecht ») names
that place's law as a state's adjective does (test_search_foreign_law), and a region's or state's name before an
act word, as English writes it ("Texas law on handguns", "California Consumer Privacy Act"), too; a town's name
is not read so (it names treaties: "Rome Statute", "Geneva Act"). The shapes are
:func:`serve.core.jurisdiction.place_adjective` and :func:`serve.core.jurisdiction.place_before_act` (pure), the
words :data:`serve.core.places.PLACE_ADJECTIVES`; on the real fixture corpus (``LEX_FIXTURES``) for the answers."""

from __future__ import annotations

import pytest

from derive.index.text import normalize
from serve.core import LegalCore, places
from serve.core.jurisdiction import (
    ForeignLaw,
    foreign_law,
    place_adjective,
    place_before_act,
    region_asked,
)


@pytest.mark.parametrize(("query", "shape"), [
    ("loi québécoise sur la profession de sage-femme", ForeignLaw("quebecoise", "loi")),
    ("Code civil québécois contrat de mariage", ForeignLaw("quebecois", "code")),
    ("décret wallon relatif au permis d'urbanisme", ForeignLaw("wallon", "decret")),
    ("Bavarian building code height limits", ForeignLaw("bavarian", "code")),
    ("bayerisches Gesetz über Kindertagesstätten", ForeignLaw("bayerisches", "gesetz")),
    ("Wiener Mietrecht Befristung", ForeignLaw("wiener", "mietrecht")),
    ("Indian Companies Act corporate social responsibility", ForeignLaw("indian", "act")),
])
def test_a_places_adjective_names_its_law(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize(("query", "shape"), [
    ("Texas law on carrying concealed handguns", ForeignLaw("texas", "law")),
    ("California Consumer Privacy Act right to opt out", ForeignLaw("california", "act")),
    ("Quebec Civil Code marriage", ForeignLaw("quebec", "code")),
])
def test_a_regions_name_before_an_act_word(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape
    assert place_before_act(normalize(query).split()) == shape


def test_a_link_word_ends_the_place_before_act_shape() -> None:
    assert place_before_act(normalize("law in Texas").split()) is None  # read as a region asked in (below)


@pytest.mark.parametrize("query", [
    "Rome Statute of the International Criminal Court",  # a town names a treaty
    "Geneva Act appellations of origin",
    "Helsinki Final Act",
    "Rome II law applicable to non-contractual obligations",
    "English version of the act",  # a language, then a link word
    "the English text of the law on rents",
    "loi sur la langue française",
    "navigation rhénane sur la Moselle",  # « rhénan » left out: the Rhine's navigation
    "frontier workers living in Trier income tax law",
    "Schengen Borders Code",
])
def test_names_and_adjectives_read_otherwise_are_not(query: str) -> None:
    assert foreign_law(query) is None


def test_the_adjectives_switch_off_and_hold_no_luxembourg_word() -> None:
    assert not {"luxembourgeois", "luxembourgeoise", "romain", "lombard", "rhenan", "messin"} & places.PLACE_ADJECTIVES
    assert {"quebecoise", "quebecoises", "wallonne", "bavarian"} <= places.PLACE_ADJECTIVES
    assert all(word == normalize(word) and " " not in word for word in places.PLACE_ADJECTIVES)
    assert place_adjective("bayerischen")
    try:
        places.PLACE_ADJECTIVES_ON = False
        assert not place_adjective("quebecoise")
        assert foreign_law("loi québécoise sur la profession de sage-femme") is None
    finally:
        places.PLACE_ADJECTIVES_ON = True


def test_a_quebec_law_answers_no_hits(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "loi québécoise sur la protection des données", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "quebecoise", "act": "loi"}
    plain = fixture_core.call("search", {"query": "loi sur la protection des données", "limit": 10})
    assert plain["merged"]


@pytest.mark.parametrize(("query", "shape"), [
    ("Rechtsanspruch auf einen Kitaplatz in Bayern", ForeignLaw("bayern", "in")),
    ("permis de construire en Bavière", ForeignLaw("baviere", "en")),
    ("Kindergeld für Kinder in der Toskana", ForeignLaw("toskana", "in")),
    ("gun permit in Texas", ForeignLaw("texas", "in")),
])
def test_a_region_asked_in(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape
    assert region_asked(normalize(query).split()) == shape


@pytest.mark.parametrize("query", [
    "state-guaranteed loans for companies hit by the war in Ukraine",  # a state: the EU's acts answer
    "children living in France family allowance",
    "Kurzarbeit für Grenzgänger wohnhaft im Saarland",  # the Greater Region: a frontier worker's home
    "frontaliers résidant en Lorraine",
    "unemployment benefits for frontier workers living in Trier",  # a town
    "aid to banana growers in the Canaries",  # an outermost region the EU's acts provide for
    "Kitaplatz in Bayern für Kinder von EU-Beamten",  # an EU word
])
def test_a_state_town_or_greater_region_asked_in_is_not_read(query: str) -> None:
    assert foreign_law(query) is None


def test_the_regions_leave_out_states_towns_and_the_greater_region() -> None:
    assert {"bayern", "baviere", "texas", "quebec", "toskana"} <= places.REGIONS
    assert not {"saarland", "grand est", "rheinland pfalz", "wallonne region", "canarias", "jura", "france",
                "ukraine", "trier", "berlin"} & places.REGIONS
    assert places.REGIONS <= places.FOREIGN_PLACES
    try:
        places.REGION_ASKED = False
        assert region_asked(["kitaplatz", "in", "bayern"]) is None
    finally:
        places.REGION_ASKED = True
