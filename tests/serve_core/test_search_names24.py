"""Issue #15, names24: an EU act asked by its French or German form and its title's words.

"directive sur le droit à la réparation des biens", "Richtlinie über angemessene Mindestlöhne" and
"Aktionärsrechterichtlinie" answered no hits: no name held every subject word, no provision held them
near each other, so the subject shape said the act was not held (``name_not_held``), and a German
compound was one word no index holds. A form word (directive / règlement, Richtlinie / Verordnung,
or a German compound's head) followed by subject words now names the acts of that form whose titles
hold the rarest subject word and a strict majority of them, each German word also as its French
terms from the cross-language lexicon (:func:`serve.core.ops.search.form_titled_works`); the acts of
another form, or a minority of the words, name nothing and the question still answers no hits.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.searchplan import act_name, compound_form_name

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, **args})
    return {s["publisher"]: s for s in answer["publishers"]}


def _works(section: dict[str, Any]) -> list[str]:
    return [h["work"] for h in section.get("hits") or []]


@pytest.mark.parametrize("fuzzy", ["auto", "off"])
def test_a_french_form_and_title_words_name_the_act(fixture_core: LegalCore, fuzzy: str) -> None:
    # Regulation (EU) No 575/2013 is titled "… concernant les exigences prudentielles applicables aux
    # établissements de crédit …": two of the three subject words, "banques" in no name.
    # before: name_not_held, no hits in either section
    sections = _sections(fixture_core, "règlement relatif aux exigences prudentielles des banques", fuzzy=fuzzy)
    assert _works(sections[EU])[:1] == ["eu-eurlex:32013r0575"]
    assert sections[EU]["relaxation_withheld"] is None


def test_a_german_compound_is_read_through_the_lexicon(fixture_core: LegalCore) -> None:
    # "Datenschutzverordnung": Datenschutz → « protection des données » (reviewed lexicon entry), the
    # head "Verordnung" a regulation: the GDPR, whose French alias and title hold those words.
    # before: one unknown word, no hits
    shape = compound_form_name("datenschutzverordnung")
    assert shape is not None and shape.words == ("datenschutz",) and shape.eu_form == "regulation"
    assert shape.alternatives == (("protection des donnees",),)
    sections = _sections(fixture_core, "Datenschutzverordnung")
    assert _works(sections[EU])[:1] == ["eu-eurlex:32016r0679"]
    # the same compound headed by "Richtlinie" asks for a directive: the GDPR is a regulation
    assert _works(_sections(fixture_core, "Datenschutzrichtlinie")[EU]) == []


@pytest.mark.parametrize("query", [
    # Regulation (EC) No 139/2004's title holds "concentrations … entreprises": a regulation, not a directive
    "directive relative aux concentrations des entreprises de transport",
    # "Pauschalreisen" → « voyage à forfait » is in Directive (EU) 2015/2302's title, "Besteuerung" in
    # no name: one word of two is no majority
    "Richtlinie über die Besteuerung von Pauschalreisen",
])
def test_a_name_of_no_held_act_answers_nothing(fixture_core: LegalCore, query: str) -> None:
    sections = _sections(fixture_core, query)
    for publisher in (EU, LU):
        assert _works(sections[publisher]) == []
        assert sections[publisher]["relaxation_withheld"]["reason"] == "name_not_held"


def test_the_shapes() -> None:
    shape = act_name("directive sur le droit à la réparation des biens")
    assert shape is not None and shape.kind == "subject" and shape.eu_form == "directive"
    assert shape.words == ("droit", "reparation", "biens") and shape.alternatives == ()
    german = act_name("Richtlinie über angemessene Mindestlöhne")
    assert german is not None and german.eu_form == "directive"
    assert german.alternatives[0] == ("adequat",)  # the reviewed entry angemessen → adéquat
    compound = act_name("Aktionärsrechterichtlinie")
    assert compound is not None and compound.words == ("aktionar", "recht") and compound.eu_form == "directive"
    # a Luxembourg form opens no EU name; a compound the lexicon cannot cut, or not headed by a form, is none
    loi = act_name("loi sur la protection des données")
    assert loi is not None and loi.eu_form == ""
    assert compound_form_name("fernabsatzrichtlinie") is None
    assert compound_form_name("arbeitsvertrag") is None


def test_a_compound_s_parts_stand_together_in_the_name(fixture_core: LegalCore) -> None:
    # "Schutz·verkehr": « protection » and « circulation » are both in the GDPR's French title, some twenty
    # words apart ("protection des personnes physiques … et à la libre circulation de ces données"): a
    # compound names one thing, so that title does not answer it; "Daten·verkehr" (« circulation de ces
    # données », side by side) does
    assert _works(_sections(fixture_core, "Schutzverkehrsverordnung")[EU]) == []
    assert _works(_sections(fixture_core, "Datenverkehrsverordnung")[EU])[:1] == ["eu-eurlex:32016r0679"]
