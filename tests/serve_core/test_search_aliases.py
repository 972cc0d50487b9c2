"""Issue #15, common names in FR/EN/DE (``derive/index/aliases.json``) and the ordinary-phrase short
title rule (:func:`serve.core.searchplan.ordinary_words`), on the real fixture corpus
(``LEX_FIXTURES``) through the legal core's ``search`` operation."""

from __future__ import annotations

import collections
from typing import Any

import pytest

from derive.index.aliases import LEXICON_PATH, _load, reviewed
from derive.index.text import normalize
from serve.core import LegalCore, searchplan

GDPR = "eu-eurlex:32016r0679"
PACKAGE_TRAVEL = "eu-eurlex:32015l2302"
MERGERS = "eu-eurlex:32004r0139"
SOCIAL_SECURITY_CODE = "lu-legilux:loi-1925-12-17-n1"  # a work held without text
CONSUMER_CODE = "lu-legilux:loi-2011-04-08-n2"
CIVIL_PROCEDURE_CODE = "lu-legilux:rgd-1998-08-03-n4"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def _resolved(section: dict[str, Any]) -> list[str]:
    return [w for m in section["query_plan"]["work_mentions"] if m["status"] == "resolved" for w in m["works"]]


@pytest.mark.parametrize(("query", "work"), [
    ("Pauschalreiserichtlinie", PACKAGE_TRAVEL),
    ("Richtlinie über Pauschalreisen", PACKAGE_TRAVEL),
    ("directive sur les voyages à forfait", PACKAGE_TRAVEL),
    ("Fusionskontrollverordnung", MERGERS),
    ("Sozialversicherungsgesetzbuch", SOCIAL_SECURITY_CODE),
    ("Verbraucherschutzgesetzbuch", CONSUMER_CODE),
    ("Zivilprozessordnung", CIVIL_PROCEDURE_CODE),
    ("New Code of Civil Procedure", CIVIL_PROCEDURE_CODE),
])
def test_an_english_or_german_common_name_resolves_the_act(fixture_core: LegalCore, query: str, work: str) -> None:
    answer = fixture_core.call("search", {"query": query})
    section = _section(answer, work.split(":")[0])
    mention = section["query_plan"]["work_mentions"][0]
    assert mention["status"] == "resolved" and mention["works"] == [work] and mention["reason"] == "exact_alias"
    assert section["hits"][0]["work"] == work  # the Social Security Code too: a code is an act (test_search_codes)
    # the name says which publisher: the other one is not searched
    other = next(s for s in answer["publishers"] if s["publisher"] != work.split(":")[0])
    assert other["hits"] == [] and "another publisher" in other["note"]


def test_a_common_name_with_other_words_restricts_the_search_to_its_act(fixture_core: LegalCore) -> None:
    section = _section(fixture_core.call("search", {"query": "Pauschalreiserichtlinie Insolvenzschutz"}), "eu-eurlex")
    assert section["query_plan"]["work_constraints"] == [PACKAGE_TRAVEL]


@pytest.mark.parametrize("query", ["Pauschalreiserichtlinien", "Sozialversicherungsgesetzbuchs",
                                   "Fusionskontrollverordnungsentwurf", "Zivilprozessordnungen"])
def test_an_alias_never_fires_inside_a_longer_word(fixture_core: LegalCore, query: str) -> None:
    answer = fixture_core.call("search", {"query": query})
    for section in answer["publishers"]:
        assert _resolved(section) == []


def test_an_alias_never_fires_for_part_of_a_longer_name(fixture_core: LegalCore) -> None:
    # "Code of Civil Procedure" is an alias; "Code of Criminal Procedure" (another act) shares words but is no
    # run of it, and "Civil Procedure" alone is no alias
    for query in ("Civil Procedure", "procedure civile"):
        section = _section(fixture_core.call("search", {"query": query}), "lu-legilux")
        assert CIVIL_PROCEDURE_CODE not in [w for m in section["query_plan"]["work_mentions"]
                                            if m["reason"].endswith("alias") for w in m["works"]]


def test_the_reviewed_file_names_one_work_per_alias_with_a_source_and_a_language() -> None:
    works: dict[str, set[str]] = collections.defaultdict(set)
    sources: dict[str, list[str]] = collections.defaultdict(list)
    for work, alias, language, source in _load(LEXICON_PATH):
        assert language in ("en", "fr", "de") and source and work.split(":")[0] in ("eu-eurlex", "lu-legilux")
        works[normalize(alias)].add(work)
        sources[normalize(alias)].append(source)
    # one work per name, except a recast and the repealed predecessor known by the same name (the
    # search prefers the act in force and lists the other as same_name)
    shared = {a: w for a, w in works.items() if len(w) > 1}
    assert all(len(w) == 2 and all("repealed" in s for s in sources[a]) for a, w in shared.items()), shared
    assert works["insolvency regulation"] == {"eu-eurlex:32015r0848", "eu-eurlex:32000r1346"}
    names = {(a, lang) for a, lang in reviewed()[PACKAGE_TRAVEL]}
    assert {("Pauschalreiserichtlinie", "de"), ("Package Travel Directive", "en")} <= names


@pytest.mark.parametrize(("value", "ordinary"), [
    ("droit d'auteur", True), ("personal data", True), ("Merger Regulation", True),
    ("TFEU", False), ("tfeu", False), ("mifid", False), ("MiFID II", False), ("CRD", False), ("Solvency II", False),
    ("solvabilité II", False), ("Rome I", False), ("Brussels I bis", False), ("Regulation 2016/679", False),
    ("civil", False),
])
def test_ordinary_words_leave_acronyms_and_numbered_names_out(value: str, ordinary: bool) -> None:
    assert searchplan.ordinary_words(value) is ordinary


def test_an_ordinary_phrase_short_title_alone_ranks_its_act_first_without_suppressing_the_other_publisher(
        fixture_core: LegalCore) -> None:
    # "personal data" is a publisher short title of the GDPR and a phrase of the text of more than
    # FREQUENT_PHRASE_WORKS fixture works
    answer = fixture_core.call("search", {"query": "personal data"})
    eu, lu = _section(answer, "eu-eurlex"), _section(answer, "lu-legilux")
    mention = eu["query_plan"]["work_mentions"][0]
    assert mention["works"] == [GDPR] and mention.get("ordinary") and mention.get("soft")
    assert eu["query_plan"]["work_constraints"] == []
    assert eu["hits"][0]["work"] == GDPR
    assert "another publisher" not in (lu.get("note") or "")


def test_an_acronym_short_title_still_says_which_publisher(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "GDPR"})
    assert "another publisher" in _section(answer, "lu-legilux")["note"]
    assert not _section(answer, "eu-eurlex")["query_plan"]["work_mentions"][0].get("ordinary")


@pytest.mark.parametrize(("name", "text"), [
    ("not-json.json", "{aliases: ["),
    ("wrong-schema.json", '{"schema": "other/1", "aliases": []}'),
    ("no-source.json", '{"schema": "lex-index-aliases/1", "aliases": [{"alias": "DSGVO", "work": "eu-eurlex:32016r0679", "language": "de"}]}'),
])
def test_a_malformed_reviewed_lexicon_is_a_typed_index_error_naming_the_file(tmp_path: Any, name: str, text: str) -> None:
    from legal.errors import IndexError_

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(IndexError_) as caught:
        _load(path)
    assert caught.value.code == "invalid_lexicon"
    assert name in str(caught.value.subject)
