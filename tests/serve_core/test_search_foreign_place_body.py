"""Issue #15, neg49: a body of a place outside Luxembourg — a town's mayor or council, a region's or
state's legislature or supreme court, the United Kingdom's houses — that a question asks about (« pouvoirs de
police du maire de Metz », "term of office of the mayor of Trier", "powers of the Texas state legislature")
asks how that place is governed, which neither publisher's acts say: every section answers no hits, typed
``foreign_law``, as for a state's act (test_search_foreign_law) or a state's own body named by its adjective
(test_search_foreign_institution). A place named otherwise — a frontier worker living in Trier, a third
country in an EU list, a boat on the Moselle — is not read. The shape is
:func:`serve.core.jurisdiction.foreign_body` (pure), the places :data:`serve.core.places.FOREIGN_PLACES`; on the
real fixture corpus (``LEX_FIXTURES``) for the answers."""

from __future__ import annotations

import pytest

from derive.index.text import normalize
from serve.core import LegalCore
from serve.core.jurisdiction import ForeignLaw, foreign_body, foreign_law
from serve.core.places import FOREIGN_PLACES, MAX_PLACE_WORDS


@pytest.mark.parametrize(("query", "shape"), [
    ("pouvoirs de police du maire de Metz", ForeignLaw("metz", "maire")),
    ("term of office of the mayor of Trier", ForeignLaw("trier", "mayor")),
    ("Wie wird der Bürgermeister von Wien gewählt", ForeignLaw("wien", "burgermeister")),
    ("composition du conseil municipal de Paris", ForeignLaw("paris", "conseil")),
    ("nomination des juges de la Cour suprême des États-Unis", ForeignLaw("etats unis", "supreme")),
    ("powers of the Texas state legislature over school boards", ForeignLaw("texas", "legislature")),
    ("Trier city council meeting rules", ForeignLaw("trier", "council")),
    ("how are members of the House of Lords appointed", ForeignLaw("lords", "house")),
])
def test_a_places_own_body(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape
    assert foreign_body(normalize(query).split()) == shape


@pytest.mark.parametrize("query", [
    "unemployment benefits for frontier workers living in Trier",  # a place of residence, not a body's
    "frontalier résidant à Metz impôt sur le revenu",
    "pouvoirs de police du bourgmestre",  # Luxembourg's own mayor: no place
    "indemnités du bourgmestre de la Ville de Luxembourg",  # Luxembourg named
    "Council implementing decision authorising Latvia to apply a VAT derogation",  # the EU's Council
    "exemption of the Bank of England from transparency requirements",  # a second noun ends the reach
    "Governor of the central bank of Luxembourg",
    "landing stages on the Moselle approved by the Moselle Commission",
    "Bahamas added to the list of high-risk third countries",
    "convention entre le Luxembourg et la France pour éviter les doubles impositions",  # a treaty
    "city council meetings public",  # no place
])
def test_a_place_named_otherwise_is_not_read(query: str) -> None:
    assert foreign_law(query) is None


def test_the_places_hold_no_luxembourg_name_and_no_ordinary_word() -> None:
    assert not {"luxembourg", "luxemburg", "marche", "reunion", "island", "uri", "nord"} & FOREIGN_PLACES
    assert {"trier", "metz", "bayern", "baviere", "texas", "etats unis", "united states", "paris"} <= FOREIGN_PLACES
    assert all(place == normalize(place) for place in FOREIGN_PLACES)
    assert max(len(place.split()) for place in FOREIGN_PLACES) == MAX_PLACE_WORDS


def test_a_foreign_mayor_answers_no_hits(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "term of office of the mayor of Trier", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "trier", "act": "mayor"}
    # the same words about a frontier worker living there are searched
    plain = fixture_core.call("search", {"query": "unemployment benefits for frontier workers living in Trier",
                                         "limit": 10})
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "foreign_law" for s in plain["publishers"])


@pytest.mark.parametrize(("query", "shape"), [
    ("pouvoirs du préfet français en matière de police", ForeignLaw("francais", "prefet")),
    ("powers of the French prefect over municipalities", ForeignLaw("french", "prefect")),
    ("how is the German chancellor elected", ForeignLaw("german", "chancellor")),
    ("Belgian rules on teleworking", ForeignLaw("belgian", "rules")),
    ("règles belges sur le télétravail", ForeignLaw("belges", "regles")),
    ("deutsche Vorschriften für Mietwohnungen", ForeignLaw("deutsche", "vorschriften")),
    ("governor of Texas veto power", ForeignLaw("texas", "governor")),
    ("Wahl zum Bundestag Sperrklausel", ForeignLaw("bundestag", "bundestag")),
    ("Zusammensetzung des Bundesrates", ForeignLaw("bundesrates", "bundesrates")),
    ("rôle du Sénat dans la procédure législative", ForeignLaw("senat", "senat")),
])
def test_a_states_officer_or_rules_right_beside_its_word_and_a_named_chamber(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "Belgian frontier workers tax rules",  # the rules are not the state's: its word qualifies the workers
    "German central bank governor appointment",
    "telework rules for Belgian cross-border workers",
    "tax rules for French residents working in Luxembourg",
    "president of the district court powers",
    "President of the European Commission appointment",
    "tax deduction for attending a medical congress",  # "congress" alone is a meeting
    "asset freeze on the President of Belarus",  # a state's president: the EU's sanctions list them
    "sanctions against the Russian president",
    "élection des membres de la Chambre des députés",
    "Luxembourg relations with the Belgian Senate",  # Luxembourg named
])
def test_an_officer_or_rules_farther_off_or_a_held_body_is_not_read(query: str) -> None:
    assert foreign_law(query) is None


@pytest.mark.parametrize(("query", "shape"), [
    ("§ 823 BGB Schadensersatzpflicht", ForeignLaw("bgb", "bgb")),
    ("KSchG Kündigungsschutz im Kleinbetrieb", ForeignLaw("kschg", "kschg")),
    ("ABGB Erbrecht Pflichtteil", ForeignLaw("abgb", "abgb")),
])
def test_another_states_statute_by_its_abbreviation(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "DSGVO Auskunftsrecht der betroffenen Person",  # the GDPR's German abbreviation
    "AEUV Artikel 101 Kartellverbot",  # the TFEU's
    "StGB Artikel 372",  # the aliases call Luxembourg's Code pénal « Strafgesetzbuch »: left out
    "bgb in lower case is no abbreviation the user wrote",
])
def test_an_abbreviation_the_corpora_may_mean_is_not_read(query: str) -> None:
    assert foreign_law(query) is None
