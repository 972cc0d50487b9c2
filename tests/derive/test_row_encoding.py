"""Cheaper row encoding (issue #13, cold derive CPU), each step exact: a body's shared row fields
worked out once, a row's cache line reused as its dataset line (only the citations encoded
again), a body hashed once. Every check compares with the plain way of computing the same thing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from derive import rows as R
from derive.cache import WorkCache, route_profiles
from derive.dataset import RowEncoder, derive_version, fmx4_languages, load_versions
from derive.dispatch import derive_body
from derive.limits import body_sha256
from derive.units import units_for
from legal.canonical import canonical_bytes, sha256_hex
from legal.errors import DerivationError

WORKS = [("lu", "constitution-1868-10-17-n1"), ("eu", "32015l2302")]


def _row(citations: list[dict[str, Any]], anchor: str = "art_1") -> dict[str, Any]:
    return {
        "provision_id": f"x#{anchor}", "anchor": anchor, "article_valid_from": None, "citations": citations,
        "eli": None, "text_md": 'ligne "citée",\n\u2028é', "span": {"start": 1, "end": 9}, "path": ["A", "B"],
        "figures": [], "work_id": "eu-eurlex:x", "version_key": "2020-01-01", "language": "fr",
    }


TARGETS = {"http://a/1": "eu-eurlex:y", "#n1": None}


@pytest.mark.parametrize("row", [
    _row([]),
    _row([{"href": "http://a/1", "text": "un"}, {"href": "#n1", "text": "deux"}]),
    _row([{"href": "http://a/1", "text": 'le ,"citations": piège'}], anchor='art_,"citations":[]'),
    _row([{"href": "http://a/1", "text": "x"}], anchor="a\\"),
])
def test_resolved_line_is_the_canonical_json_of_the_resolved_row(row):
    line = canonical_bytes(row)
    resolved = R.with_targets(row, TARGETS.get)
    assert R.resolved_line(line, row, resolved) == canonical_bytes(resolved)


def test_resolved_line_encodes_the_row_whole_when_its_citations_are_not_where_expected():
    row = _row([{"href": "http://a/1", "text": "un"}])
    resolved = R.with_targets(row, TARGETS.get)
    line = canonical_bytes({**row, "citations": [{"href": "http://a/1", "text": "autre"}]})
    assert R.resolved_line(line, row, resolved) == canonical_bytes(resolved)


def test_cache_lines_are_canonical_and_feed_the_same_dataset_bytes(tmp_path):
    rows = [_row([]), _row([{"href": "http://a/1", "text": "un"}]), _row([], anchor="art_2")]
    writer = WorkCache(tmp_path).writer("eu-eurlex:x", "d" * 64, route_profiles())
    lines = writer.rows([dict(r) for r in rows])
    writer.finish({"routes": [], "lex_ids": []})
    assert lines == [canonical_bytes(r) for r in rows]
    cached = WorkCache(tmp_path).open("eu-eurlex:x", "d" * 64, route_profiles())
    assert cached is not None and [r for chunk in cached.rows() for r in chunk] == rows

    def encoded(with_lines: bool) -> bytes:
        encoder = RowEncoder(TARGETS.get)
        copies = [json.loads(json.dumps(r)) for r in rows]
        encoder.add(copies, lines if with_lines else None)
        encoder._close()
        return b"".join(encoder.lines)

    assert encoded(True) == encoded(False)
    assert encoded(True) == b"".join(canonical_bytes(R.with_targets(r, TARGETS.get)) + b"\n" for r in rows)


@pytest.mark.parametrize(("publisher", "slug"), WORKS)
def test_shared_fields_and_a_known_hash_change_no_row(imported_trees, publisher, slug):
    tree = imported_trees[publisher]
    versions = load_versions(tree, slug)
    langs = fmx4_languages(versions, tree.evidence)
    version = versions[-1]
    outcome = derive_version(version, tree.evidence, langs, None)
    assert outcome.rows and not outcome.errors
    units = units_for(version, tree.evidence, langs)
    by_file = {u.observation.file: u for u in units}
    for unit in units:
        data = tree.evidence.read(unit.observation.sha256)
        plain = derive_body(data, language=unit.language, fmt=unit.kind)
        assert derive_body(data, language=unit.language, fmt=unit.kind, sha256=unit.observation.sha256) == plain
        for p in plain.provisions:
            assert R.provision_row(p, version, unit.observation, None) == R.provision_row(
                p, version, unit.observation, None, R.version_fields(version, unit.observation))
    assert {r["evidence_file"] for r in outcome.rows} <= set(by_file)


def test_body_sha256_takes_a_known_hash_and_computes_one_otherwise():
    data = b"<html/>" * 3
    assert body_sha256(data) == sha256_hex(data)
    assert body_sha256(data, "k" * 64) == "k" * 64


def _xhtml_roots(tree: Any, limit: int) -> Any:
    from derive.limits import parse_xml

    for work in tree.works():
        for version in tree.versions(work.slug):
            for expr in version.expressions:
                for obs in expr.observations:
                    if not tree.evidence.has(obs.sha256):
                        continue
                    data = tree.evidence.read(obs.sha256)
                    if b"<html" not in data[:16384].lower():
                        continue
                    try:
                        yield parse_xml(data, obs.sha256)
                    except DerivationError:
                        continue
                    limit -= 1
                    if not limit:
                        return


def test_a_paragraph_said_long_renders_at_least_that_long(imported_trees):
    from derive.profiles import xhtml_eu

    said = checked = 0
    for root in _xhtml_roots(imported_trees["eu"], 6):
        walker = xhtml_eu.Walker()
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            checked += 1
            for n in (1, 40, xhtml_eu.SIGNATURE_MAX):
                if xhtml_eu._plain_at_least(el, n):
                    said += 1
                    assert len(walker.plain(el) or "") >= n
    assert said and checked
