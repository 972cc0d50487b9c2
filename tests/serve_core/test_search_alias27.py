"""Issue #15 class 2 (alias27): abbreviations and popular names of EU and Luxembourg acts in the
reviewed alias file (``derive/index/aliases.json``), and ``scripts/check_aliases.py``, which checks
the file against a built index (each work held, each name stored as an alias of it).

The acts named here (the DAC series, ATAD, SRD II, …) are not in the fixture corpus, so the entries
are checked as data and through the build's own function (:func:`derive.index.aliases.alias_names`);
the check script runs on the real fixture build."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from derive.index.aliases import LEXICON_PATH, alias_names, reviewed
from tests.scripts_loader import load_script

EU = "eu-eurlex"
# The administrative-cooperation series (Commission, DG TAXUD): Directive 2011/16/EU and, by number, the
# directives amending it. An amending directive known by its own number names itself.
DAC = {1: "32011l0016", 2: "32014l0107", 3: "32015l2376", 4: "32016l0881", 5: "32016l2258", 6: "32018l0822",
       7: "32021l0514", 8: "32023l2226", 9: "32025l0872"}


def _check_aliases() -> ModuleType:
    return load_script("check_aliases")


def _works_named(alias: str) -> set[str]:
    return {work for work, names in reviewed().items() for name, _ in names if name == alias}


@pytest.mark.parametrize("number", sorted(DAC))
def test_each_dac_number_names_its_own_directive_in_both_spellings(number: int) -> None:
    for alias in (f"DAC{number}", f"DAC {number}"):
        assert _works_named(alias) == {f"{EU}:{DAC[number]}"}, alias


def test_an_amending_directive_known_by_its_own_name_is_not_given_the_amended_act() -> None:
    assert _works_named("ATAD 2") == {f"{EU}:32017l0952"} and _works_named("ATAD") == {f"{EU}:32016l1164"}
    assert _works_named("SRD II") == {f"{EU}:32017l0828"}
    assert _works_named("Shareholder Rights Directive") == {f"{EU}:32007l0036"}
    # Brussels II bis is the 2003 regulation itself (its own name), Brussels II ter the 2019 recast
    assert _works_named("Brussels II bis") == {f"{EU}:32003r2201"}
    assert _works_named("règlement Bruxelles II ter") == {f"{EU}:32019r1111"}


def test_a_generic_name_shared_by_a_recast_and_its_repealed_predecessor_is_given_to_both() -> None:
    assert _works_named("EPBD") == {f"{EU}:32024l1275", f"{EU}:32010l0031"}
    assert _works_named("Energy Efficiency Directive") == {f"{EU}:32023l1791", f"{EU}:32012l0027"}


def test_a_bare_acronym_with_another_sense_in_the_corpus_text_is_not_an_alias() -> None:
    # "LCA" (life-cycle assessment) and "LSA" are in EU provisions: the Luxembourg insurance laws get "loi LCA",
    # "loi LSA", never the bare letters; "Enforcement Directive" is also the posting-of-workers one (2014/67)
    assert _works_named("loi LCA") == {"lu-legilux:loi-1997-07-27-n10"}
    assert _works_named("loi LSA") == {"lu-legilux:loi-2015-12-07-n1"}
    assert not _works_named("LCA") and not _works_named("LSA") and not _works_named("Enforcement Directive")


def test_a_name_that_only_adds_a_word_to_another_name_of_the_act_is_left_out() -> None:
    # « directive DAC 6 » holds the alias DAC 6 as a run of words (it fires inside it); as a name it only added the
    # word "directive" to the act's names, which moved "anti-money laundering directive" (tuning ambiguity-003) to
    # DAC5. The English long names of AMLD3 and the French « règlement écoconception » (title words) likewise.
    for number in range(2, 10):
        assert not _works_named(f"directive DAC{number}") and not _works_named(f"directive DAC {number}")
    assert not _works_named("Third Anti-Money Laundering Directive") and not _works_named("règlement écoconception")
    assert _works_named("AMLD3") == {f"{EU}:32005l0060"} and _works_named("ESPR") == {f"{EU}:32024r1781"}


def test_every_new_entry_names_its_act_or_its_authority_in_the_source() -> None:
    entries = json.loads(LEXICON_PATH.read_text(encoding="utf-8"))["aliases"]
    # the EU series only: the Luxembourg law transposing DAC 6 is named « loi DAC 6 » / "DAC 6 Law" (names45)
    dac = [e for e in entries if e["alias"].replace(" ", "").startswith("DAC") and e["alias"] != "DAC"
           and e["work"].startswith(f"{EU}:")]
    assert len(dac) == 18 and all("2011/16/EU" in e["source"] and "DG TAXUD" in e["source"] for e in dac)


def test_the_build_stores_the_reviewed_names_of_a_work_as_normalised_aliases() -> None:
    names = alias_names({"slug": DAC[6], "document_type": "DIR"}, EU, [])
    assert {(n.kind, n.normalized) for n in names} >= {("alias", "dac6"), ("alias", "dac 6")}
    amended = alias_names({"slug": DAC[1], "document_type": "DIR"}, EU, [])
    assert "dac6" not in {n.normalized for n in amended} and "dac1" in {n.normalized for n in amended}


@pytest.fixture()
def fixture_conns(fixture_indexes: object) -> Iterator[dict[str, sqlite3.Connection]]:
    index_dir = Path(fixture_indexes.index_dir)  # type: ignore[attr-defined]
    conns = {p.stem: sqlite3.connect(f"file:{p}?mode=ro", uri=True) for p in sorted(index_dir.glob("*.sqlite"))}
    yield conns
    for conn in conns.values():
        conn.close()


def test_the_check_script_accepts_a_held_work_with_its_stored_alias(fixture_conns: dict[str, sqlite3.Connection]) -> None:
    check = _check_aliases()
    assert check.problems(f"{EU}:32016r0679", "GDPR", fixture_conns) == []


@pytest.mark.parametrize(("work", "alias", "expected"), [
    (f"{EU}:32018l0822", "DAC6", "is not held by the index"),  # the fixture corpus does not hold DAC6
    (f"{EU}:32016r0679", "DAC6", "not stored as an alias"),  # held, but the index holds no such alias
    ("xx-nowhere:1", "X", "no index for xx-nowhere"),
])
def test_the_check_script_names_what_is_wrong(fixture_conns: dict[str, sqlite3.Connection], work: str, alias: str,
                                              expected: str) -> None:
    found = _check_aliases().problems(work, alias, fixture_conns)
    assert len(found) == 1 and expected in found[0]
