"""Issue #15, fifty-first session (lu51): the act of the year a question names; a translated question's words read
with their French translations in the sibling step (ADR 0174).

:mod:`serve.core.dated` reads the one year (and month) a question names as an act's and picks, among the acts of
that year, the one whose names hold the most of the question's word groups (a word with its French translations);
:func:`serve.core.ops.search.dated_step` puts it first in the Legilux section. :func:`serve.core.siblings.translated_forms`
gives :func:`serve.core.ops.search.sibling_step` a translated question's French. The decisions are tested on small
sets; the step on the real fixture corpus (``LEX_FIXTURES``).
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.query import parse_query
from derive.index.text import normalize
from serve.core import LegalCore, actterms, dated, siblings
from serve.core.envelope import CallContext
from serve.core.ops import search
from serve.core.searchplan import Plan


def _year(query: str) -> str | None:
    return dated.act_year(query, normalize(query), [normalize(d.text) for d in parse_query(query).dates])


@pytest.mark.parametrize(("query", "year"), [
    ("2024 amendment on temporary cash advances", "2024"),
    ("Änderung 2023 der Regelung über den Musikunterricht", "2023"),
    ("fees for registration papers (1965)", "1965"),
    ("December 2019 law amending the civil service statute", "2019"),
    ("the civil service statute as of 2015", None),  # a point in time
    ("nomenclature des établissements classés en 2024", None),
    ("Vergütung der Gemeindeangestellten, Fassung 2008", None),  # the version asked
    ("représentants des étrangers entre 2017 et 2019", None),  # a span: two years, the second after « et »
    ("Roaming Regulation 2022/612 fair use", None),  # an act number's year
    ("summer time between 2012 and 2016", None),  # a span
    ("private security companies", None),
])
def test_the_year_a_question_names_as_an_acts(query: str, year: str | None) -> None:
    assert _year(query) == year


def test_the_month_named_before_the_year() -> None:
    assert dated.named_month(normalize("February 2026 change to the list"), "2026") == 2
    assert dated.named_month(normalize("Verordnung vom April 2020"), "2020") == 4
    assert dated.named_month(normalize("indemnités fixées en décembre 2022"), "2022") == 12
    assert dated.named_month(normalize("2026 change to the list"), "2026") is None


def test_a_question_asking_for_an_eu_form() -> None:
    lu = search.LU_ASKED_WORDS
    assert dated.asks_eu_form(normalize("Gleichbehandlung Änderungsrichtlinie 1996").split(), lu)
    assert dated.asks_eu_form(normalize("2023 directive revising the emissions trading system").split(), lu)
    assert not dated.asks_eu_form(normalize("EG-Richtlinien und Verordnungen, Gesetz von 1971").split(), lu)
    assert not dated.asks_eu_form(normalize("2024 amendment on temporary cash advances").split(), lu)


def test_a_word_group_held_by_an_acts_names() -> None:
    change = dated.word_group("change", ["modification"])
    doctors = dated.word_group("doctors", ["medecin"])
    security = dated.word_group("private security", ["gardiennage prive"])
    groups = [change, doctors, security]
    wanted = dated.wanted_forms(groups)
    names = normalize("Règlement grand-ducal du 25 février 2026 modifiant le règlement grand-ducal arrêtant la "
                      "nomenclature des actes et services des médecins").split()
    forms = dated.name_forms(names, wanted)
    assert change.held(forms)  # « modifiant » begins as « modification »'s stem does
    assert doctors.held(forms)  # « médecins » in the singular
    assert not security.held(forms)
    # a phrase holds only when all its words do
    assert not security.held(dated.name_forms(["gardiennage"], wanted))
    assert security.held(dated.name_forms(["gardiennage", "privees"], wanted))


def test_the_one_act_holding_the_most_groups() -> None:
    held = {"a": 3, "b": 1, "c": 0}
    assert dated.dated_first(["a", "b", "c"], held.__getitem__, 4) == "a"
    assert dated.dated_first(["a", "b", "c"], held.__getitem__, 7) is None  # under half the groups
    assert dated.dated_first(["b", "c"], held.__getitem__, 2) is None  # one group is not enough
    tied = {"a": 2, "b": 2, "c": 2}
    assert dated.dated_first(["a", "b", "c"], tied.__getitem__, 3) is None
    assert dated.dated_first(["a", "b", "c"], tied.__getitem__, 3, ties=(lambda w: w == "b",)) == "b"
    # a tie-break no act passes leaves the next one to decide
    assert dated.dated_first(["a", "b", "c"], tied.__getitem__, 3,
                             ties=(lambda w: False, lambda w: w in "bc", lambda w: w == "c")) == "c"


def test_the_day_a_title_cites() -> None:
    regulation = dated.day_citation("rgd-2003-08-22-n7")
    law = dated.day_citation("loi-2020-04-03-a230")
    assert regulation is not None and law is not None and dated.day_citation("code-travail") is None
    title = normalize("Règlement grand-ducal du 1er août 2014 portant modification du règlement grand-ducal du "
                      "22 août 2003 portant exécution de certaines dispositions")
    assert dated.cites_day([title], [regulation])
    assert not dated.cites_day([title], [dated.day_citation("rgd-2003-08-02-n1")])
    assert dated.cites_day([normalize("Règlement grand-ducal du 1er août 2014 modifiant le règlement grand-ducal "
                                      "modifié du 22 août 2003")], [regulation])
    # the act of a law's own day executing it cites the law by its form; a law of that day does not cite itself
    executing = normalize("Règlement grand-ducal du 3 avril 2020 portant exécution de l'article 3 de la loi du "
                          "3 avril 2020 relative à la mise en place d'un régime d'aides")
    assert dated.cites_day([executing], [law])
    assert not dated.cites_day([normalize("Règlement grand-ducal du 3 avril 2020 relatif aux aides")], [law])


def test_the_acts_of_a_year_and_month() -> None:
    by_year = {"rgd-2026": [1, 2], "loi-2026": [3], "rgd-2025": [4]}
    months = {1: 2, 2: 3, 3: 2, 4: 2}
    assert sorted(dated.same_day_works(by_year, "2026", None, months.get)) == [1, 2, 3]
    assert sorted(dated.same_day_works(by_year, "2026", 2, months.get)) == [1, 3]


def test_a_translated_words_forms_hold_its_french() -> None:
    forms = siblings.translated_forms({"training": ["formation continue"], "institute": ["institut"]})
    assert not actterms.word_forms("training").isdisjoint(forms("training"))
    assert "formation" in forms("training") and "continue" in forms("training")
    assert forms("division") == actterms.word_forms("division")
    held = {"law": frozenset(actterms.word_forms("institut")),
            "rgd": frozenset(actterms.word_forms("institut") | actterms.word_forms("formation"))}
    assert siblings.distinctive(["training", "institute"], held, forms) == {"training": ["rgd"]}
    assert siblings.distinctive(["training", "institute"], held) == {}  # the English words meet no French name


def test_the_sibling_step_reads_a_translated_plans_french() -> None:
    plan = Plan([], None, None, [], [], False)
    assert search.sibling_forms(plan) is actterms.word_forms  # not translated
    plan.translations = {"language": "en", "used": [{"from": "training", "to": ["formation"], "source": "reviewed"}]}
    assert "formation" in search.sibling_forms(plan)("training")


def _first_works(answer: dict[str, Any]) -> list[str]:
    return [str(h["work"]) for h in answer["merged"]]


def test_the_step_puts_the_act_of_the_named_year_first(fixture_core: LegalCore,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    query = "2026 amendment of the nomenclature of the medical acts covered by health insurance"
    monkeypatch.setattr(search, "DATED_ACTS", False)
    before = _first_works(fixture_core.call("search", {"query": query}))
    if not any(w.startswith("lu-legilux:") for w in before):
        pytest.skip("the fixture answer has no Legilux work")
    monkeypatch.setattr(search, "DATED_ACTS", True)
    after = fixture_core.call("search", {"query": query})
    legilux = [w for w in _first_works(after) if w.startswith("lu-legilux:")]
    assert legilux[0] == "lu-legilux:rgd-2026-02-25-a96"
    # without a year the question names no act of a date
    plain = fixture_core.call("search", {"query": "amendment of the nomenclature of the medical acts covered by "
                                                  "health insurance"})
    assert not any("dated_act" in (h.get("match_reasons") or []) for h in plain["merged"])


def test_the_step_leaves_a_filtered_or_named_question(fixture_core: LegalCore) -> None:
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    sections: list[dict[str, Any]] = [{"publisher": "lu-legilux", "hits": [{"work": "lu-legilux:a"}]}]
    plans = {"lu-legilux": Plan(["amendment", "nomenclature"], None, None, [], [], False)}
    assert not search.dated_step(ctx, sections, plans, {"works": ["a"], "query": "2026 amendment of the nomenclature"})
    assert not search.dated_step(ctx, sections, plans, {"works": [], "query": "amendment of the nomenclature"})
    plans["lu-legilux"].boost = [1]  # an act named
    assert not search.dated_step(ctx, sections, plans, {"works": [], "query": "2026 amendment of the nomenclature"})


def test_a_row_put_first_takes_the_first_score() -> None:
    section: dict[str, Any] = {"hits": [{"work": "a", "score": 0.9}, {"work": "b", "score": 0.5}]}
    assert search.insert_first(section, {"work": "new"}, 2)
    assert [h["work"] for h in section["hits"]] == ["new", "a"]
    assert [h["score"] for h in section["hits"]] == [0.9, 0.5]
    assert [h["rank"] for h in section["hits"]] == [1, 2]
    grown: dict[str, Any] = {"hits": [{"work": "a", "score": 0.9}]}
    assert search.insert_first(grown, {"work": "new"}, 10)
    assert [h["work"] for h in grown["hits"]] == ["new", "a"]
