"""Issue #15, "search that finds the act a lawyer means": one test per failure class, on the real
fixture corpus (``LEX_FIXTURES``) through the legal core's ``search`` operation."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import analysis
from derive.index.aliases import alias_names, reviewed, title_popular_name
from derive.index.query import parse_query
from serve.core import LegalCore, ranking, searchplan
from serve.core.ops import search as search_op

GDPR = "eu-eurlex:32016r0679"
GDPR_CORRIGENDUM = "eu-eurlex:32016r0679r(02)"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def _works(section: dict[str, Any]) -> list[str]:
    return [h["work"] for h in section["hits"]]


def _index(core: LegalCore, publisher: str) -> Any:
    return core._indexes[publisher]


# 1. A query naming a work plus a word the work does not contain returned nothing.

def test_a_named_work_plus_a_foreign_word_still_returns_the_work_first(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "GDPR zeppelin"})
    eu = _section(answer, "eu-eurlex")
    assert answer["outcome"] == "succeeded"
    assert eu["hits"][0]["work"] == GDPR and "residual_unmatched" in eu["hits"][0]["match_reasons"]


def test_a_named_work_plus_words_ranks_inside_the_work_then_elsewhere(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "GDPR breach notification supervisory authority"}),
                  "eu-eurlex")
    assert eu["hits"][0]["work"] == GDPR and eu["hits"][0]["anchor"] == "art_33"
    assert eu["query_plan"]["work_constraints"] == [GDPR]


# 2. Abbreviations and popular names resolved only through the publisher's short titles.

@pytest.mark.parametrize("query", ["DSGVO", "RGPD", "General Data Protection Regulation",
                                   "règlement général sur la protection des données", "Datenschutz-Grundverordnung"])
def test_abbreviations_and_popular_names_resolve_to_the_act(fixture_core: LegalCore, query: str) -> None:
    eu = _section(fixture_core.call("search", {"query": query}), "eu-eurlex")
    mention = eu["query_plan"]["work_mentions"][0]
    assert mention["status"] == "resolved" and mention["works"] == [GDPR]
    assert eu["hits"][0]["work"] == GDPR


@pytest.mark.parametrize("query", ["General Data Protection Regulation", "GDPR", "RGPD"])
def test_an_act_named_alone_is_followed_by_the_acts_around_it(fixture_core: LegalCore, query: str) -> None:
    eu = _section(fixture_core.call("search", {"query": query}), "eu-eurlex")
    assert _works(eu)[:2] == [GDPR, GDPR_CORRIGENDUM]
    related = eu["hits"][1]
    assert related["match_reasons"] == ["related_work"]
    assert related["role"] == "corrigendum" and related["role_of"] == GDPR
    # a name with other words asks something about the act: no list of related acts
    assert all("related_work" not in h["match_reasons"]
               for h in _section(fixture_core.call("search", {"query": f"{query} zeppelin"}), "eu-eurlex")["hits"])


def test_the_alias_lexicon_has_a_source_per_alias_and_title_names_skip_cited_acts() -> None:
    assert ("DSGVO", "de") in reviewed()[GDPR]
    assert title_popular_name("Regulation (EU) 2016/679 of 27 April 2016 on the protection of natural persons, and "
                              "repealing Directive 95/46/EC (General Data Protection Regulation) (Text with EEA "
                              "relevance)") == "General Data Protection Regulation"
    # the parenthesis names the act this one supplements, not this one
    assert title_popular_name("Commission Delegated Regulation (EU) 2024/436 supplementing Regulation (EU) "
                              "2022/2065 (Digital Services Act)") is None
    names = alias_names({"slug": "32016r0679", "document_type": "REG"}, "eu-eurlex", [])
    assert {n.normalized for n in names} >= {"gdpr", "rgpd", "dsgvo"}


# 3. Ordinary-phrase short titles captured every query; popular names resolved to a repealed predecessor.

def test_an_ordinary_phrase_name_boosts_its_work_without_restricting(fixture_core: LegalCore,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # "personal data" is a publisher short title of the GDPR; on the full corpus its text is in far more
    # than FREQUENT_PHRASE_WORKS works. The fixture corpus is small: lower the bar to show the rule.
    monkeypatch.setattr(search_op, "FREQUENT_PHRASE_WORKS", 0)
    search_op._FREQUENT.clear()
    eu = _section(fixture_core.call("search", {"query": "personal data own funds"}), "eu-eurlex")
    mention = eu["query_plan"]["work_mentions"][0]
    assert mention["text"] == "personal data" and mention.get("soft") is True
    assert eu["query_plan"]["work_constraints"] == []
    assert "eu-eurlex:32013r0575" in _works(eu)  # "own funds" is the CRR's: not captured by the GDPR
    search_op._FREQUENT.clear()


def test_a_name_shared_by_a_recast_and_its_predecessor_resolves_to_the_act_in_force(fixture_core: LegalCore) -> None:
    index = _index(fixture_core, "eu-eurlex")
    name = "version consolidée du traité sur le fonctionnement de l'Union européenne troisième partie"
    ambiguous = searchplan.build_plan(index, parse_query(name), None)
    assert ambiguous.mentions[0].status == "ambiguous" and len(ambiguous.mentions[0].works) > 1
    works = ambiguous.mentions[0].works
    # one in force, the others repealed (as a recast and its predecessors would be)
    profiles = {w: ranking.WorkProfile("in_force" if w == works[-1] else "repealed", "principal", "primary", "")
                for w in works}
    plan = searchplan.build_plan(index, parse_query(name), None, profiles)
    assert plan.mentions[0].status == "resolved" and plan.constraints == [works[-1]]
    assert plan.mentions[0].preferred == "in_force_principal"


# 4. Ranking ignored status and role.

def test_roles_and_status_come_from_the_index(fixture_core: LegalCore) -> None:
    index = _index(fixture_core, "eu-eurlex")
    with index.session(5.0) as conn:
        profiles = ranking.profiles(conn, index)
    slug = index.catalogue.rowid_of
    assert profiles[slug["32016r0679"]].role == "principal" and profiles[slug["32016r0679"]].status == "in_force"
    assert profiles[slug["32016r0679r(02)"]].role == "corrigendum"
    assert profiles[slug["32019r0401"]].role == "delegated"
    assert profiles[slug["32013r1336"]].role == "amending"  # "… of 13 December 2013 amending Directives …"
    assert profiles[slug["32013r1336"]].prior() < profiles[slug["32016r0679"]].prior()


def test_the_principal_act_outranks_its_corrigendum_and_amending_acts(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "processing of personal data natural persons"}), "eu-eurlex")
    works = _works(eu)
    assert works[0] == GDPR
    if GDPR_CORRIGENDUM in works:
        assert works.index(GDPR_CORRIGENDUM) > 0
    lu = _section(fixture_core.call("search", {"query": "salaire social minimum", "publisher": "lu-legilux"}),
                  "lu-legilux")
    ranked = _works(lu)
    principal, amending = "lu-legilux:agd-1963-04-22-n1", "lu-legilux:agd-1965-06-25-n1"
    if principal in ranked and amending in ranked:
        assert ranked.index(principal) < ranked.index(amending)


# 5. English singular never matched plural; every word was required; stems only under 5 hits.

def test_snowball_stems_join_singular_and_plural() -> None:
    assert analysis.stem_word("platforms", "en") == analysis.stem_word("platform", "en") is not None
    assert analysis.stem_word("donnees", "fr") == analysis.stem_word("donnee", "fr")
    assert analysis.stem_word("verordnungen", "de") == analysis.stem_word("verordnung", "de")


def test_stem_forms_are_added_even_when_exact_hits_are_many(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "notification", "publisher": "eu-eurlex",
                                               "result_grain": "provisions"}), "eu-eurlex")
    assert "notification -> notifications" in eu["query_expansions"]
    assert len(eu["hits"]) >= 5  # the words' forms are part of the first question, not a fallback
    assert not any("authorized" in e for e in _section(fixture_core.call(
        "search", {"query": "authority", "publisher": "eu-eurlex"}), "eu-eurlex")["query_expansions"])


def test_not_every_word_is_required_when_all_words_find_few_works(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "notification supervisory authority",
                                               "publisher": "eu-eurlex"}), "eu-eurlex")
    reasons = [h["match_reasons"] for h in eu["hits"]]
    assert reasons[0] == ["keyword"] and ["partial_terms"] in reasons  # all words first, then two of three


# 6. A cap of 3 hits per work left about 4 distinct works in the top ten.

def test_results_are_one_row_per_work_with_provisions_nested(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "supervisory authority", "publisher": "eu-eurlex"}),
                  "eu-eurlex")
    works = _works(eu)
    assert len(works) == len(set(works)) and eu["result_grain"] == "works"
    assert any(h.get("provisions") for h in eu["hits"])
    flat = _section(fixture_core.call("search", {"query": "supervisory authority", "publisher": "eu-eurlex",
                                                 "result_grain": "provisions"}), "eu-eurlex")
    assert len(flat["hits"]) > len(set(_works(flat)))


# 7. The title lane ignored the language filter.

def test_the_title_lane_keeps_to_the_language_filter(fixture_core: LegalCore) -> None:
    french = fixture_core.call("search", {"query": "subvention de loyer", "publisher": "lu-legilux", "language": "fr"})
    assert french["outcome"] == "succeeded"
    english = fixture_core.call("search", {"query": "subvention de loyer", "publisher": "lu-legilux", "language": "en"})
    assert all(h.get("language") in (None, "en") for h in _section(english, "lu-legilux")["hits"])
    assert "lu-legilux:loi-2022-07-22-a396" not in _works(_section(english, "lu-legilux"))


# 8. No hierarchy / domain filters, no role intent.

def test_hierarchy_filter_keeps_primary_law(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "article", "publisher": "eu-eurlex", "hierarchy": "primary"}),
                  "eu-eurlex")
    assert eu["hits"] and all(w.split(":")[1].startswith("1") for w in _works(eu))


def test_domain_filter_keeps_works_with_the_eurovoc_label(fixture_core: LegalCore) -> None:
    index = _index(fixture_core, "eu-eurlex")
    with index.session(5.0) as conn:
        label = conn.execute("SELECT label FROM work_metadata WHERE work_rowid = ? AND kind = 'eurovoc' "
                             "AND language = 'en' ORDER BY label LIMIT 1",
                             (index.catalogue.rowid_of["32016r0679"],)).fetchone()[0]
        allowed = ranking.domain_works(conn, label)
    eu = _section(fixture_core.call("search", {"query": "data", "publisher": "eu-eurlex", "domain": label}),
                  "eu-eurlex")
    assert eu["hits"] and all(index.catalogue.rowid_of[w.split(":")[1]] in allowed for w in _works(eu))


def test_role_intent_lists_the_acts_holding_the_role(fixture_core: LegalCore) -> None:
    eu = _section(fixture_core.call("search", {"query": "corrigendum of the GDPR"}), "eu-eurlex")
    assert eu["query_plan"]["role_intent"] == "corrigendum"
    assert _works(eu) == [GDPR_CORRIGENDUM] and eu["hits"][0]["match_reasons"] == ["role_intent"]
    explicit = _section(fixture_core.call("search", {"query": "GDPR", "role": "corrigendum"}), "eu-eurlex")
    assert _works(explicit) == [GDPR_CORRIGENDUM]


@pytest.mark.parametrize(("text", "role", "own_role", "expected"), [
    ("Commission Implementing Regulation (EU)", "implementing", "implementing", True),
    ("règlement d'exécution (UE)", "implementing", "implementing", True),
    ("Durchführungsverordnung (EU)", "implementing", "implementing", True),
    ("règlement délégué de la Commission", "delegated", "delegated", True),
    ("delegierte Verordnung (EU) Nr.", "delegated", "delegated", True),
    # a role question about the act, not its name
    ("implementing acts of Regulation (EU)", "implementing", "implementing", False),
    ("mesures d'exécution du règlement (UE)", "implementing", "implementing", False),
    # the act is not of that form: the words ask for the acts holding the role
    ("Implementing Regulation (EU)", "implementing", "principal", False),
    ("Implementing Regulation (EU)", "implementing", None, False),
])
def test_an_acts_own_form_name_is_not_a_role_question(text: str, role: str, own_role: str | None,
                                                      expected: bool) -> None:
    assert ranking.names_own_form(text, role, own_role) is expected


def test_an_implementing_regulation_asked_by_its_full_name_answers_itself(fixture_core: LegalCore) -> None:
    named = _section(fixture_core.call("search", {"query": "Commission Implementing Regulation (EU) 2016/7"}),
                     "eu-eurlex")
    assert "role_intent" not in named["query_plan"]
    assert _works(named)[0] == "eu-eurlex:32016r0007"
    asked = _section(fixture_core.call("search", {"query": "implementing acts of Regulation (EU) 2016/7"}),
                     "eu-eurlex")
    assert asked["query_plan"]["role_intent"] == "implementing"


# names32: an act asked by its form name with the institution or title words after its number.

@pytest.mark.parametrize("query", [
    "Durchführungsverordnung (EU) 2016/7 der Kommission",
    "règlement d'exécution (UE) 2016/7 de la Commission",
    "Implementing Regulation (EU) 2016/7 on the European Single Procurement Document",
])
def test_an_acts_form_name_before_its_number_names_it_whatever_follows(fixture_core: LegalCore, query: str) -> None:
    named = _section(fixture_core.call("search", {"query": query}), "eu-eurlex")
    assert "role_intent" not in named["query_plan"], query
    assert _works(named)[0] == "eu-eurlex:32016r0007", query


def test_words_after_the_number_that_ask_a_role_keep_the_role_question() -> None:
    tokens = ["implementing", "regulation", "eu", "2016", "7", "amending", "acts"]
    consumed = {3, 4}
    assert not searchplan._named_by_own_form(tokens, consumed, {"2016", "7"}, "implementing regulation eu amending acts",
                                            "implementing", "implementing")
    tokens = ["durchfuhrungsverordnung", "eu", "2016", "7", "der", "kommission"]
    assert searchplan._named_by_own_form(tokens, {2, 3}, {"2016", "7"}, "durchfuhrungsverordnung eu der kommission",
                                        "implementing", "implementing")


# names32: a year after a time preposition is the question's time, not a word the act must hold.

def test_a_year_after_a_time_preposition_is_not_a_search_word(fixture_core: LegalCore) -> None:
    for query in ("protection des données en 2019", "data protection in 2019", "Datenschutz im Jahr 2019"):
        plan = _section(fixture_core.call("search", {"query": query}), "eu-eurlex")["query_plan"]
        assert "2019" not in plan["terms"], query
    # the act's own year ("loi de 1979", "Regulation of 2016") stays a word of the question
    assert searchplan.time_years(["loi", "de", "1979", "sur", "le", "logement"]) == set()
    assert searchplan.time_years(["reglement", "compatibilite", "en", "1997"]) == {3}


# names32: an early EEC regulation cited by its number alone (numbered without a year until 1967).

@pytest.mark.parametrize("query", ["Regulation No 59", "règlement n° 59 du Conseil", "Verordnung Nr. 59"])
def test_an_early_eec_regulation_cited_by_its_number_alone_resolves(fixture_core: LegalCore, query: str) -> None:
    eu = _section(fixture_core.call("search", {"query": query}), "eu-eurlex")
    assert eu["query_plan"]["work_constraints"] == ["eu-eurlex:31962r0059"], query
    assert _works(eu)[0] == "eu-eurlex:31962r0059", query


def test_a_number_with_a_year_or_not_held_is_no_early_regulation(fixture_core: LegalCore) -> None:
    assert searchplan.early_regulation_slugs("Regulation (EU) No 575/2013") == []
    assert searchplan.early_regulation_slugs("règlement n° 17/62") == []
    assert [n for n, _ in searchplan.early_regulation_slugs("Règlement n° 59 modifiant le règlement n° 17")] == ["59", "17"]
    eu = _section(fixture_core.call("search", {"query": "Regulation No 58"}), "eu-eurlex")
    assert eu["query_plan"].get("work_constraints") == []  # no held act of 1958–1967 bears No 58
