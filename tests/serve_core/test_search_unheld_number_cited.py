"""Issue #15, neg50 (ADR 0171): negatives answered by texts that cite, date or name an act no held act is.

- an EU act number no held act bears, cited beside other words ("Trade Mark Directive 2015/2436"), is the act
  asked about: the EUR-Lex texts citing the number hold the question's words but are not that act, so the
  section answers nothing (``unresolved_act_number``), unless the question asks for the acts holding a role
  towards it (amending, transposing, repealing …), the number is a span of two years (« 2023/2024 »), a held
  act bears it as another kind, or a held act's title cites it (an act amending or repealing it);
- another state's statute named by its official name (« Insolvenzordnung », « Bürgerliches Gesetzbuch ») is read
  as its abbreviation is (``foreign_law``);
- a dated citation whose held act of that day is named by none of the question's subject words and whose text
  lacks the rarest of them asks for another act of that day (``dated_subject_not_held``).

The shapes are pure; the answers on the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import pytest

from serve.core import LegalCore
from serve.core.jurisdiction import ForeignLaw, foreign_law, statute_name
from serve.core.searchplan import unheld_number_cited

EU = "eu-eurlex"


def _section(core: LegalCore, query: str, publisher: str) -> dict:
    answer = core.call("search", {"query": query, "limit": 10})
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


@pytest.mark.parametrize("query", [
    "Trade Mark Directive 2015/2436",
    "Directive 90/314 package travel contracts",
    "Richtlinie 2019/4444 über Verbraucherrechte",
])
def test_a_cited_number_is_the_act_asked(query: str) -> None:
    assert unheld_number_cited(query)


@pytest.mark.parametrize("query", [
    "calendrier des vacances et congés scolaires 2023/2024",  # a span of two years
    "regulation amending Directive 2015/2436",  # a role towards the cited act
    "loi transposant la directive 2015/2436 marques",
    "which directive repealed Directive 90/314",
    "package travel contracts",  # no number
])
def test_a_number_asked_otherwise_is_not_read(query: str) -> None:
    assert not unheld_number_cited(query)


def test_texts_citing_an_unheld_number_answer_nothing(fixture_core: LegalCore) -> None:
    # the fixture's capital requirements regulation cites Directive 2013/36/EU throughout; the fixture holds no
    # 2013/36 and no title citing it: the texts citing it are not the act asked for
    section = _section(fixture_core, "Directive 2013/36 credit institutions supervision", EU)
    assert section["hits"] == []
    assert section["relaxation_withheld"] == {"reason": "unresolved_act_number"}
    # the held act by its own number is still answered
    held = _section(fixture_core, "Regulation (EU) No 575/2013 credit institutions supervision", EU)
    assert held["hits"][0]["work"] == f"{EU}:32013r0575"
    # an unheld act a held act's title amends or repeals is held through it (the package-travel directive's title
    # repeals Directive 90/314/EEC): still answered by it
    repealed = _section(fixture_core, "Directive 90/314 package travel contracts", EU)
    assert repealed["hits"][0]["work"] == f"{EU}:32015l2302"


@pytest.mark.parametrize(("query", "shape"), [
    ("Insolvenzordnung", ForeignLaw("insolvenzordnung", "insolvenzordnung")),
    ("§ 433 Bürgerliches Gesetzbuch Kaufvertrag", ForeignLaw("burgerliches", "gesetzbuch")),
    ("Kündigungsschutzgesetz im Kleinbetrieb", ForeignLaw("kundigungsschutzgesetz", "kundigungsschutzgesetz")),
    ("Grundgesetz Meinungsfreiheit", ForeignLaw("grundgesetz", "grundgesetz")),
])
def test_another_states_statute_by_its_name(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "Zivilprozessordnung Berufung",  # the aliases call Luxembourg's code so
    "Handelsgesetzbuch Buchführungspflicht",
    "Abgabenordnung Steuerbescheid",  # Luxembourg kept the 1931 tax code's German name
    "Einkommensteuergesetz Werbungskosten",
    "Insolvenzordnung Luxemburg",  # Luxembourg named
    "Gesetz über die Insolvenz",
])
def test_a_name_the_corpora_may_mean_is_not_read(query: str) -> None:
    assert foreign_law(query) is None


def test_a_statute_name_is_found_longest_first() -> None:
    assert statute_name(["§", "823", "des", "burgerlichen", "gesetzbuches"]) == "burgerlichen gesetzbuches"
    assert statute_name(["gesetzbuch"]) is None


def test_a_foreign_statute_by_name_answers_nothing(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "Insolvenzordnung Gläubiger", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "insolvenzordnung",
                                                  "act": "insolvenzordnung"}


def test_a_dated_act_silent_on_the_rarest_subject_word_is_another_act(fixture_core: LegalCore) -> None:
    # the fixture holds the law of 7 March 1980 on the judicial organisation: its text says « magistrats », never
    # « forfait »; its title neither: the question asks for an act of that day the corpus does not hold
    section = _section(fixture_core, "loi du 7 mars 1980 sur les voyages à forfait des magistrats", "lu-legilux")
    assert section["hits"] == []
    assert section["relaxation_withheld"] == {"reason": "dated_subject_not_held", "references": ["loi du 7 mars 1980"],
                                              "words": ["voyages", "forfait", "magistrats"]}
    # its own subject, or a word of its title, is still answered by it
    for query in ("loi du 7 mars 1980 sur l'organisation judiciaire",
                  "loi du 7 mars 1980 sur l'organisation des magistrats"):
        assert _section(fixture_core, query, "lu-legilux")["hits"][0]["work"] == "lu-legilux:loi-1980-03-07-n1", query


@pytest.mark.parametrize(("query", "body"), [
    ("composition of the Luxembourg Senate", "senate"),
    ("election of senators in Luxembourg", "senators"),
    ("Sénat luxembourgeois composition", "senat"),
    ("Luxemburger Bundesrat Zusammensetzung", "bundesrat"),
    ("role of the Luxembourg House of Lords", "lords"),
])
def test_a_chamber_luxembourg_has_not(query: str, body: str) -> None:
    assert foreign_law(query) == ForeignLaw("luxembourg", body)


@pytest.mark.parametrize("query", [
    "Luxembourg relations with the Belgian Senate",  # another state's
    "Luxembourg Chamber of Deputies election",  # Luxembourg's own chamber
    "EU Senate Luxembourg",  # an EU word
    "convention between Luxembourg and the Senate",  # a treaty
    "composition of the Senate",  # Luxembourg not named: read as another state's (neg49)
])
def test_a_chamber_named_otherwise_is_not_read_as_luxembourgs(query: str) -> None:
    shape = foreign_law(query)
    assert shape is None or shape.state != "luxembourg"


def test_a_missing_luxembourg_chamber_answers_nothing(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "composition of the Luxembourg Senate", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "luxembourg", "act": "senate"}


@pytest.mark.parametrize(("query", "shape"), [
    ("loi n° 2016-1691 transparence lutte contre la corruption", ForeignLaw("2016 1691", "loi")),
    ("décret n° 2019-1234 relatif au télétravail", ForeignLaw("2019 1234", "decret")),
    ("loi n° 78-17 informatique et libertés", ForeignLaw("78 17", "loi")),
    ("ordonnance nº 2020-306 prorogation des délais", ForeignLaw("2020 306", "ordonnance")),
])
def test_an_act_by_frances_numbering(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "loi n° 2006-07-31 code du travail",  # a date, not a number
    "projet de loi n° 7945",  # a Luxembourg bill's number
    "dérogation à l'article L. 121-6 du Code du travail",  # a code's article
    "loi n° 78-17 Luxembourg",  # Luxembourg named
    "Loi 2006-07-31 code du travail",
])
def test_a_number_luxembourg_cites_is_not_read(query: str) -> None:
    assert foreign_law(query) is None
