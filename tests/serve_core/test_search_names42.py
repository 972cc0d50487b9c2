"""Issue #15, names42: acts asked by the names practitioners use.

- a name whose strongest holders are no act in force names the act in force that holds it as a weaker
  kind (:func:`serve.core.searchplan.in_force_kind`: "General Block Exemption Regulation", the title
  alias of the expired Regulation (EC) No 800/2008 and a publisher short title of Regulation (EU)
  No 651/2014);
- a sigle written before an act's form word is read by the initials of the names of that form less
  their form word, or of a body's name ("CPC Regulation", "EBA Regulation":
  :func:`serve.core.resolve.form_initials`, :func:`serve.core.resolve.acronym_tokens`), and the
  principal act among a sigle's many holders is the one it names (:func:`serve.core.resolve.acronym_works`);
  the popular-name refusal of such a sigle is lifted when the sigle resolves;
- a question opened by « loi » keeps Legilux beside a soft EU short title
  (:func:`serve.core.ranking.asks_a_loi`).

On the real fixture corpus (``LEX_FIXTURES``) where it holds such names."""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore, ranking
from serve.core.mount import Catalogue, NameEntry
from serve.core.ranking import WorkProfile
from serve.core.resolve import (
    acronym_refused,
    acronym_tokens,
    acronym_works,
    form_initials,
    name_initials,
)
from serve.core.searchplan import Plan, compact, compact_names, in_force_kind

EU = "eu-eurlex"
LU = "lu-legilux"


def _profile(status: str, role: str = "principal") -> WorkProfile:
    return WorkProfile(status=status, role=role, hierarchy=None, title="")


def _section(core: LegalCore, publisher: str, query: str) -> dict[str, Any]:
    answer = core.call("search", {"query": query, "fuzzy": "off"})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_a_name_its_strongest_holders_bear_out_of_force_names_the_act_in_force_holding_it() -> None:
    # 1: an expired regulation holding the name as an alias; 2: its successor in force holding it
    # as a publisher short title; 3: an amending act holding it as a title
    entries = [NameEntry(1, "alias"), NameEntry(2, "publisher_short_title"), NameEntry(3, "official_title")]
    profiles = {1: _profile("repealed"), 2: _profile("in_force"), 3: _profile("in_force", "amending")}
    assert in_force_kind(entries, "alias", [1], profiles) == ("publisher_short_title", [1, 2])
    # the strongest holder in force: unchanged
    assert in_force_kind(entries, "alias", [1], {**profiles, 1: _profile("in_force")}) == ("alias", [1])
    # no weaker holder is a principal act in force: unchanged
    assert in_force_kind(entries[::2], "alias", [1], profiles) == ("alias", [1])
    # two weaker holders in force: no one act is the name's
    two = [*entries, NameEntry(4, "publisher_short_title")]
    assert in_force_kind(two, "alias", [1], {**profiles, 4: _profile("in_force")}) == ("alias", [1])
    # an identifier is never traded, nor read without profiles
    assert in_force_kind(entries, "official_identifier", [1], profiles) == ("official_identifier", [1])
    assert in_force_kind(entries, "alias", [1], None) == ("alias", [1])


def test_an_expired_acts_alias_held_by_an_act_in_force_on_the_fixtures_is_unchanged(fixture_core: LegalCore) -> None:
    # on the fixture corpus no name trades its kind: the GDPR's names still name the GDPR alone
    section = _section(fixture_core, EU, "General Data Protection Regulation")
    mention = section["query_plan"]["work_mentions"][0]
    assert (mention["reason"], mention["works"]) == ("exact_alias", [f"{EU}:32016r0679"])


def test_a_sigle_before_a_form_word_is_read_by_the_initials_of_the_names_of_that_form() -> None:
    assert form_initials("Consumer Protection Cooperation Regulation") == "cpc+regulation"
    assert form_initials("European Banking Authority") == "eba"  # a body's name: no form word
    assert form_initials("Capital Requirements Regulation") == ""  # two words before the form: too few
    assert form_initials("Regulation (EU) No 1094/2010") == ""  # numbers: no acronym
    assert acronym_tokens("EBA Regulation") == [("EBA", "regulation")]
    assert acronym_tokens("EIOPA-Verordnung") == [("EIOPA", "regulation")]
    assert acronym_tokens("CPC-Richtlinie") == [("CPC", "directive")]
    assert acronym_tokens("ESMA guidelines") == [("ESMA", None)]
    assert acronym_tokens("EBA guidelines") == []  # three capitals without a form word: no sigle
    by_initials = {"cpc+regulation": frozenset({7}), "eba": frozenset({8}), "esma": frozenset({1, 2, 3, 4})}
    assert acronym_works(by_initials, {}, "CPC", "regulation") == [7]
    assert acronym_works(by_initials, {}, "CPC", "directive") == []  # a regulation's name, not a directive's
    assert acronym_works(by_initials, {}, "EBA", "regulation") == [8]
    assert acronym_works(by_initials, {}, "EBA") == []  # three letters alone
    # four holders (a founding regulation and the acts amending it): the principal act among them
    assert acronym_works(by_initials, {}, "ESMA", "regulation") == []
    assert acronym_works(by_initials, {}, "ESMA", "regulation", principal={1}) == [1]
    assert acronym_works(by_initials, {}, "ESMA", principal={1}) == []  # a bare sigle: the body, not its act


def test_a_sigle_before_a_form_word_names_its_act_on_the_fixtures(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    gdpr = index.catalogue.rowid_of["32016r0679"]
    with index.session(60.0) as conn:
        by_initials = name_initials(conn)
    # « General Data Protection Regulation », an alias of the GDPR: « GDP » before « Regulation »
    assert acronym_works(by_initials, index.catalogue.names, "GDP", "regulation") == [gdpr]
    assert acronym_works(by_initials, index.catalogue.names, "GDP") == []
    # the popular name « GDP Regulation » no name holds is not refused: the sigle names the GDPR
    section = _section(fixture_core, EU, "GDP Regulation")
    assert (section.get("relaxation_withheld") or {}).get("reason") != "name_not_held"
    mention = section["query_plan"]["work_mentions"][0]
    assert (mention["reason"], mention["works"], mention["soft"]) == ("acronym_name", [f"{EU}:32016r0679"], True)
    assert section["hits"][0]["work"] == f"{EU}:32016r0679"
    # a sigle no name's initials hold names nothing, as before
    assert _section(fixture_core, EU, "XQZ Regulation")["hits"] == []


def test_only_the_popular_name_a_sigle_makes_is_a_refusal_the_sigle_lifts() -> None:
    plan = Plan(["esma", "regulation"], None, None, [], [], False)
    plan.name_not_held = {"reason": "name_not_held", "shape": "popular", "words": ["esma"]}
    assert acronym_refused(plan, "ESMA")
    assert not acronym_refused(plan, "EBA")
    plan.name_not_held = {"reason": "name_not_held", "shape": "popular", "words": ["esma", "fines"]}
    assert not acronym_refused(plan, "ESMA")
    plan.name_not_held = {"reason": "foreign_law", "state": "de", "act": "esma"}
    assert not acronym_refused(plan, "ESMA")


def test_a_question_opened_by_loi_asks_for_a_luxembourg_statute() -> None:
    words = ["loi", "sur", "le", "droit", "d", "auteur"]
    assert ranking.asks_a_loi(words, [False, False], [True, False])
    assert not ranking.asks_a_loi(words, [False, False], [False, False])  # nothing named: routed as before
    assert not ranking.asks_a_loi(["loi", "europeenne", "sur", "le", "climat"], [True, False], [False, False])
    assert not ranking.asks_a_loi(["directive", "droit", "d", "auteur"], [False, False], [True, False])
    assert not ranking.asks_a_loi([], [], [])


def test_a_name_is_found_whatever_its_spacing() -> None:
    assert compact("brussels i bis") == "brusselsibis"
    names = {"brussels i bis": (NameEntry(1, "alias"),), "crd iv": (NameEntry(2, "publisher_short_title"),),
             "crd 4": (NameEntry(2, "publisher_short_title"),), "crdiv directive": (NameEntry(3, "alias"),),
             "regulation eu no 1215 2012": (NameEntry(1, "official_title"),),
             "nis 2": (NameEntry(4, "alias"),), "nis2": (NameEntry(4, "alias"),)}
    catalogue = Catalogue(names=names)
    found = compact_names(catalogue)
    assert found["brusselsibis"] == "brussels i bis"
    assert found["crdiv"] == "crd iv" and found["crd4"] == "crd 4"
    assert "nis2" not in found  # a name itself: found as it is
    assert not any(v.startswith("regulation") for v in found.values())  # titles: not a name people type


def test_a_name_typed_without_its_spaces_names_its_act_on_the_fixtures(fixture_core: LegalCore) -> None:
    # « Datenschutz-Grundverordnung », an alias of the GDPR, typed as one German word
    section = _section(fixture_core, EU, "Datenschutzgrundverordnung")
    assert section["query_plan"]["work_mentions"][0]["works"] == [f"{EU}:32016r0679"]
    assert section["hits"][0]["work"] == f"{EU}:32016r0679"
