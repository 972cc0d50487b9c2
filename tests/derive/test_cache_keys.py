"""Derive cache keys (issue #12): declared versions and profile ids, never hashed sources.

- the key of a work is a pure function of its inputs, the declared versions and the profile
  ids (with version) of its bodies' dispatch routes — editing code that declares no change
  (a docstring) changes nothing;
- the route table agrees with the dispatcher, and every profile it names has frozen output
  fingerprints tied to its version (``tests/golden/derive/profile-versions.json``): a profile
  whose output changes without a version bump fails with the profile to bump;
- bumping a profile re-derives exactly the works with a body on one of its routes; the re-run
  after it derives nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from derive import cache as C
from derive.cache import (
    BODY_VERSIONS,
    WorkCache,
    declared_versions,
    derivation_digest,
    derivation_versions,
    profile_ids,
    route,
    route_profiles,
    work_inputs_digest,
    work_key,
)
from derive.dataset import alias_table, build_dataset, iter_work_outcomes, load_versions
from derive.dispatch import derive_body
from derive.limits import DEFAULT_LIMITS, Limits
from derive.profiles import fmx4_eu, html_eu, pdf_memorial_lu, registry, xhtml_eu
from derive.profiles.pdf_memorial_lu import Act
from derive.verify import compare_dirs
from legal.errors import DerivationError
from tests.derive.conftest import read_jsonl
from tests.derive.golden_cases import FINGERPRINT_CASES, MEMORIAL_CASES, one, profile_versions

ROOT = Path(__file__).resolve().parents[2]
DECLARED = ["cache", "dispatch", "history", "normalisation", "parsing", "render", "rows", "units",
            "work_block"]
SLUG = "rgd-2001-10-18-n3"


# -- the key is a pure function of declared versions and inputs ----------------------------------


def test_the_declared_versions_are_exactly_these():
    """A new shared input of the derivation is declared here, next to its code, and listed."""
    declared = declared_versions()
    assert sorted(declared) == DECLARED
    assert set(BODY_VERSIONS) <= set(declared)
    assert all(isinstance(v, int) for k, v in declared.items() if k != "cache")
    assert set(derivation_versions()) == set(DECLARED) | {"python", "unicode", "lxml", "libxml2", "pypdfium2", "pdfium"}


def test_the_key_is_a_pure_function_of_declared_versions_and_inputs(lu_tree):
    versions = load_versions(lu_tree, SLUG)
    work_id = f"lu-legilux:{SLUG}"
    derivation = derivation_versions()
    inputs = work_inputs_digest(work_id, versions, lu_tree.evidence, DEFAULT_LIMITS, derivation)
    assert inputs == work_inputs_digest(work_id, versions, lu_tree.evidence, DEFAULT_LIMITS, dict(derivation))
    for name in derivation:  # every declared version is an input…
        bumped = {**derivation, name: "bumped"}
        assert work_inputs_digest(work_id, versions, lu_tree.evidence, DEFAULT_LIMITS, bumped) != inputs, name
    # …and so are the limits and the records
    assert work_inputs_digest(work_id, versions, lu_tree.evidence, Limits(max_members=1), derivation) != inputs
    assert work_inputs_digest(work_id, versions[:-1], lu_tree.evidence, DEFAULT_LIMITS, derivation) != inputs

    table = route_profiles()
    key = work_key(inputs, ["akn"], table)
    assert key == work_key(inputs, ["akn", "akn"], dict(table))
    assert work_key(inputs, ["akn"], {**table, "html": ("xhtml-eu/9",)}) == key  # another route's profile
    assert work_key(inputs, ["akn"], {**table, "akn": ("akn-lu/2", "akn-lu-document/1")}) != key
    assert work_key(inputs, ["akn", "xml"], table) == key  # routes matter by their profiles (bytes are inputs)
    assert work_key(inputs, ["new-route"], table) != work_key(inputs, [], table)


def _copy_packages(dest: Path) -> None:
    for name in ("derive", "legal", "corpus_tree"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__"))


def test_editing_code_without_declaring_a_change_keeps_every_key(tmp_path):
    """The digest of a copy of the packages with edited docstrings and comments is the same."""
    _copy_packages(tmp_path)
    for rel in ("derive/dataset.py", "derive/profiles/akn_lu.py", "derive/text.py", "legal/canonical.py"):
        path = tmp_path / rel
        source = path.read_text(encoding="utf-8")
        path.write_text(source.replace('"""', '"""Edited docstring. ', 1) + "\n# an edited comment\n",
                        encoding="utf-8")
    script = ("import derive, json; from derive.cache import derivation_digest, derivation_versions, profile_ids;"
              "print(json.dumps([derive.__file__, derivation_digest(), derivation_versions(), profile_ids()]))")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    where, digest, versions, ids = json.loads(out)
    assert Path(where).is_relative_to(tmp_path)  # the edited copy was imported
    assert (digest, versions, ids) == (derivation_digest(), derivation_versions(), profile_ids())


# -- the route table, the registry and the frozen fingerprints agree -----------------------------


def test_the_route_table_names_the_profile_dispatch_picks(fixtures_dir):
    table = route_profiles()
    for name, (pattern, language, _profile) in FINGERPRINT_CASES.items():
        data = one(fixtures_dir, pattern).read_bytes()
        result = derive_body(data, language=language)
        assert result.profile in table[route(data)], name
    for name, (pattern, slug, valid_from, first) in MEMORIAL_CASES.items():
        data = one(fixtures_dir, pattern).read_bytes()
        assert route(data, "pdf-memorial") == "pdf-memorial" and route(data) == "pdf"
        act = Act.from_slug(slug, valid_from, first)
        for act_or_none in (act, None):  # without an act, the gap comes from pdf-lu
            result = derive_body(data, language="fr", fmt="pdf-memorial", act=act_or_none)
            assert result.profile in table["pdf-memorial"], name
    for data, code, where in ((b"<root xmlns='urn:x'/>", "unknown_namespace", "xml"),
                              (b"plain words", "unknown_format", "unknown")):
        assert route(data) == where and table[where] == ()
        with pytest.raises(DerivationError) as info:
            derive_body(data, language="en")
        assert info.value.code == code


def test_every_profile_of_the_cache_key_is_registered_and_frozen(golden):
    frozen = golden("profile-versions.json")["profiles"]
    assert profile_ids() == sorted(registry()) == sorted(frozen)


def _changes(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """What differs between the frozen and the current per-profile fingerprints, as actions."""
    problems = []
    declared_changed = [k for k in BODY_VERSIONS if expected["declared"].get(k) != actual["declared"].get(k)]
    for pid, now in actual["profiles"].items():
        was = expected["profiles"].get(pid)
        if was is None:
            problems.append(f"profile {pid} has no frozen fingerprint: a new profile version freezes its "
                            f"output with scripts/regen_golden_derive.py")
        elif now != was and not declared_changed:
            cases = now["cases"] if now["cases"] != was["cases"] else "its fixture cases"
            problems.append(f"the output of profile {pid} changed on {cases} without a version bump: "
                            f"bump the version of profile {pid} (its PROFILE constant), then freeze the "
                            f"new version with scripts/regen_golden_derive.py")
    if declared_changed:
        problems.append(f"the declared versions {declared_changed} changed: freeze the outputs under them "
                        f"with scripts/regen_golden_derive.py")
    for pid in sorted(set(expected["profiles"]) - set(actual["profiles"])):
        problems.append(f"profile {pid} is frozen but no longer runs: regenerate with scripts/regen_golden_derive.py")
    return problems


def test_a_profile_output_changes_only_with_its_version(fixtures_dir, golden):
    """The frozen fingerprints of the fixture bodies, per profile version (the cache key's
    profile ids): a change of output under the same id names the profile to bump."""
    problems = _changes(golden("profile-versions.json"), profile_versions(fixtures_dir))
    assert not problems, "\n".join(problems)


def test_the_guard_names_the_profile_to_bump():
    frozen = {"declared": {k: 1 for k in BODY_VERSIONS},
              "profiles": {"akn-lu/1": {"cases": ["a"], "fingerprint": "1"},
                           "xhtml-eu/1": {"cases": ["b"], "fingerprint": "2"}}}
    changed = json.loads(json.dumps(frozen))
    changed["profiles"]["akn-lu/1"]["fingerprint"] = "3"
    (problem,) = _changes(frozen, changed)
    assert "bump the version of profile akn-lu/1" in problem
    bumped = json.loads(json.dumps(frozen))
    bumped["profiles"]["akn-lu/2"] = bumped["profiles"].pop("akn-lu/1")
    assert [p.split(" ", 2)[:2] for p in _changes(frozen, bumped)] == [["profile", "akn-lu/2"], ["profile", "akn-lu/1"]]
    shared = json.loads(json.dumps(changed))
    shared["declared"]["normalisation"] = 2
    (problem,) = _changes(frozen, shared)
    assert "['normalisation'] changed" in problem


# -- a profile bump re-derives exactly its works --------------------------------------------------


@pytest.fixture(scope="module")
def warm(tmp_path_factory, imported_trees):
    """Cold cached builds of both fixture trees; their caches are then warm."""
    base = tmp_path_factory.mktemp("cache-keys")
    for name in ("eu", "lu"):
        report = build_dataset(imported_trees[name], base / name / "ds", cache=base / name / "cache")
        assert report.works_derived == report.works
    return base


def _works_derived_by(tree: Any, profiles: set[str]) -> list[str]:
    """Works with a body whose extraction result (rows or a gap) comes from one of ``profiles``,
    by deriving every version afresh (independent of the cache and its route table)."""
    out = set()
    for work_id, _versions, outcomes, _errors in iter_work_outcomes(tree, alias_table(tree)):
        if any(result.profile in profiles for outcome in outcomes for result in outcome.results):
            out.add(work_id)
    return sorted(out)


def test_entries_name_the_routes_of_the_profiles_in_their_rows(warm):
    table = route_profiles()
    for name in ("eu", "lu"):
        for path in sorted((warm / name / "cache" / "works").rglob("*.json")):
            entry = json.loads(path.read_bytes())
            allowed = {p for r in entry["routes"] for p in table[r]}
            assert {row["profile"] for row in entry["rows"]} <= allowed, path.name
            assert set(entry["profiles"]) <= allowed, path.name


@pytest.mark.parametrize("name,module,attr,family", [
    ("eu", fmx4_eu, "PROFILE", {fmx4_eu.PROFILE}),
    # the tolerant HTML profile runs on any body the strict one finds nothing in: both "would derive"
    ("eu", html_eu, "PROFILE", {xhtml_eu.PROFILE, html_eu.PROFILE}),
    ("lu", pdf_memorial_lu, "PROFILE", {pdf_memorial_lu.PROFILE}),
])
def test_a_profile_bump_rederives_exactly_its_works(warm, imported_trees, fixture_dataset, tmp_path,
                                                    monkeypatch, name, module, attr, family):
    tree = imported_trees[name]
    cache = tmp_path / "cache"
    shutil.copytree(warm / name / "cache", cache)
    old = getattr(module, attr)
    family_id, version = old.rsplit("/", 1)
    new = f"{family_id}/{int(version) + 1}"
    expected = _works_derived_by(tree, family)
    assert 0 < len(expected) < fixture_dataset[name][1].works

    monkeypatch.setattr(module, attr, new)
    report = build_dataset(tree, tmp_path / "ds", cache=cache)
    assert sorted(report.derived) == expected
    assert report.works_reused == report.works - len(expected)
    rows = read_jsonl(tmp_path / "ds" / "provisions.jsonl")
    assert old not in {r["profile"] for r in rows} and new in {r["profile"] for r in rows}
    # the incremental dataset is the from-scratch one of the bumped code
    build_dataset(tree, tmp_path / "scratch", use_cache=False)
    assert compare_dirs(tmp_path / "scratch", tmp_path / "ds").ok
    # the no-change re-run derives nothing
    again = build_dataset(tree, tmp_path / "ds", cache=cache)
    assert again.works_derived == 0 and again.works_reused == again.works


def test_no_change_rederives_nothing_and_reads_no_body(warm, imported_trees, tmp_path, monkeypatch):
    tree = imported_trees["lu"]
    cache = tmp_path / "cache"
    shutil.copytree(warm / "lu" / "cache", cache)

    def no_body(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("an unchanged re-run read a body")

    monkeypatch.setattr(C, "sniff", no_body)
    monkeypatch.setattr("derive.dataset.derive_body", no_body)
    report = build_dataset(tree, tmp_path / "ds", cache=cache)
    assert report.works_derived == 0 and report.works_reused == report.works == 68


def test_an_entry_keyed_with_another_profile_version_is_a_miss(tmp_path):
    store = WorkCache(tmp_path)
    table = route_profiles()
    entry = {"routes": ["html"], "rows": []}
    store.put("eu-eurlex:x", "d" * 64, entry, table)
    assert store.get("eu-eurlex:x", "d" * 64, table) is not None
    assert store.get("eu-eurlex:x", "d" * 64, {**table, "akn": ("akn-lu/2",)}) is not None
    assert store.get("eu-eurlex:x", "d" * 64, {**table, "html": ("xhtml-eu/2", "html-eu-tolerant/1")}) is None
