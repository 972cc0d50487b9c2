"""Issue #15 (names45): the reviewed alias file at the corpus's scale (``derive/index/aliases.json``).

The names45 entries (their source opens "Added in the forty-fifth session (names45)") name held acts
that had no name a lawyer uses: the consolidated Treaties and the Charter, numbered VAT and company-law
directives, the MiFID II technical standards by ESMA's numbers, the taxonomy delegated acts, recast
pairs, French and German forms of EU acts, and Legilux laws by the acronyms and English names in use.
They are checked as data and through the build's own function (:func:`derive.index.aliases.alias_names`):
the acts are not in the fixture corpus (the fixture build is unchanged by them)."""

from __future__ import annotations

import collections
import json
import re

import pytest

from derive.index.aliases import LEXICON_PATH, alias_names, reviewed
from derive.index.text import normalize

EU = "eu-eurlex"
LU = "lu-legilux"
MARK = "Added in the forty-fifth session (names45)"


def _entries() -> list[dict[str, str]]:
    return [e for e in json.loads(LEXICON_PATH.read_text(encoding="utf-8"))["aliases"] if e["source"].startswith(MARK)]


def _works_named(alias: str) -> set[str]:
    return {work for work, names in reviewed().items() for name, _ in names if name == alias}


def test_the_names45_entries_are_in_the_file_with_a_source_naming_the_act_or_its_authority() -> None:
    entries = _entries()
    assert len(entries) == 249
    counts = collections.Counter((e["work"].split(":")[0], e["language"]) for e in entries)
    assert counts == {(EU, "en"): 115, (EU, "de"): 49, (EU, "fr"): 50, (LU, "en"): 16, (LU, "fr"): 19}
    # every source cites the act (its number, its Legilux date) or the authority whose usage it is
    act = re.compile(r"\d{2,4}/\d+|\bNo \d+/\d{4}|\bn° \d+/\d{4}|Nr\. \d+/\d{4}|\bdu \d+(er)? \w+ \d{4}|OJ C 326|Treaty on|Charte des|Charta der")
    assert all(act.search(e["source"]) for e in entries), [e["alias"] for e in entries if not act.search(e["source"])]


@pytest.mark.parametrize(("alias", "slug"), [
    ("TEU", "12012m-txt"), ("AEUV", "12012e-txt"), ("Grundrechtecharta", "12012p-txt"),
    ("Seventh VAT Directive", "31994l0005"), ("Remedies Directive", "31989l0665"), ("RTS 22", "32017r0590"),
    ("MiFID II Delegated Regulation", "32017r0565"), ("Climate Delegated Act", "32021r2139"),
    ("Warenkaufrichtlinie", "32019l0771"), ("Right to Repair Directive", "32024l1799"), ("ViDA", "32025l0516"),
    ("RTS 11", "32017r0588"), ("Solvabilité 2", "32009l0138")])
def test_a_held_eu_act_is_named_as_practitioners_name_it(alias: str, slug: str) -> None:
    assert _works_named(alias) == {f"{EU}:{slug}"}


@pytest.mark.parametrize(("alias", "slug"), [
    ("1915 Law", "loi-1915-08-10-n1"), ("loi de 1915", "loi-1915-08-10-n1"), ("loi RGPD", "loi-2018-08-01-a686"),
    ("loi OPA", "loi-2006-05-19-n1"), ("Collateral Law", "loi-2005-08-05-n1"), ("AML/CFT Law", "loi-2004-11-12-n1"),
    ("Code des assurances sociales", "loi-1925-12-17-n1"), ("loi DAC 6", "loi-2020-03-25-a192")])
def test_a_legilux_law_is_named_by_the_acronym_or_english_name_in_use(alias: str, slug: str) -> None:
    assert _works_named(alias) == {f"{LU}:{slug}"}


def test_a_name_added_after_a_readable_miss_is_marked_in_sample() -> None:
    in_sample = {e["alias"] for e in _entries() if "in sample" in e["source"]}
    assert in_sample == {"loi IVG", "loi sur l'IVG", "loi REACH"}


def test_a_generic_phrase_is_not_a_name_but_the_full_name_is() -> None:
    # "postal service regulation" must not name the Service of Documents Regulation
    assert not _works_named("Service Regulation")
    assert _works_named("Service of Documents Regulation") == {f"{EU}:32020r1784", f"{EU}:32007r1393"}


def test_a_name_a_recast_shares_with_its_repealed_predecessor_is_given_to_both() -> None:
    assert _works_named("Equal Treatment Directive") == {f"{EU}:32006l0054", f"{EU}:31976l0207"}
    assert _works_named("EuInsVO") == {f"{EU}:32015r0848", f"{EU}:32000r1346"}
    assert _works_named("Gas Directive") == {f"{EU}:32024l1788", f"{EU}:32009l0073"}
    assert _works_named("Taking of Evidence Regulation") == {f"{EU}:32020r1783", f"{EU}:32001r1206"}
    assert _works_named("loi sur le droit d'auteur") == {f"{LU}:loi-2001-04-18-n2", f"{LU}:loi-1972-03-29-n1"}


def test_a_legilux_name_made_only_of_its_title_words_or_translating_it_is_left_out() -> None:
    # measured on the readable files: a whole-question name restricts the search to its act, which drops the act's
    # grade-1 neighbours (« loi sur les chiens » without its règlement grand-ducal, « statut général des
    # fonctionnaires » without the communal statute, "Luxembourg nationality law" without the recueil), and a
    # « loi sur les X Y » negative is answered (« loi sur les taxis volants », « loi Climat et résilience »);
    # the title search already finds such an act first
    for alias in ("loi sur les chiens", "loi sur les taxis", "loi sur la nationalité", "statut général des fonctionnaires",
                  "loi communale", "loi climat", "loi électorale", "Nationality Law", "Staatsangehörigkeitsgesetz",
                  "Luxembourg Data Protection Law", "loi Transparence", "loi FATCA"):
        assert not _works_named(alias), alias


def test_a_name_measured_to_fall_on_the_readable_files_is_withdrawn() -> None:
    # « Mehrwertsteuersystemrichtlinie » named the amended VAT Directive strongly beside a cited amending act
    # (de35 bilingual-3996); « Eighteenth VAT Directive » gave a turnover-tax directive a VAT name, so its provisions
    # held the question's subject and the Sixth Directive's title lane was not opened (lu13 temporal-1528)
    assert not _works_named("Mehrwertsteuersystemrichtlinie") and not _works_named("Eighteenth VAT Directive")


def test_no_names45_entry_only_adds_words_to_another_name_of_the_same_act() -> None:
    names: dict[str, set[str]] = collections.defaultdict(set)
    for work, held in reviewed().items():
        names[work] = {normalize(a) for a, _ in held}
    for entry in _entries():
        mine = normalize(entry["alias"])
        others = names[entry["work"]] - {mine}
        assert not any(f" {other} " in f" {mine} " for other in others), entry["alias"]


def test_the_build_stores_a_names45_name_on_a_delegated_act() -> None:
    # reviewed names are given to every work the file names, delegated and implementing acts included
    # (only the title-derived popular names are withheld from them)
    names = alias_names({"slug": "32017r0590", "document_type": "REG_DEL"}, EU, [])
    assert ("alias", "rts 22") in {(n.kind, n.normalized) for n in names}
