"""The judgments file validates, is written over the fixture corpus, and malformed ones are refused."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from release.benchmark.judgments import CATEGORIES, JudgmentsError, load_judgments, parse_judgments
from release.benchmark.runner import check_cases
from serve.core import LegalCore

from .conftest import JUDGMENTS, judgments_document

GDPR = "eu-eurlex:32016r0679"
FOLDERS = {"eu-eurlex": "lex-corpus-eu-eurlex", "lu-legilux": "lex-corpus-lu-legilux"}


def test_the_committed_judgments_validate() -> None:
    judgments = load_judgments(JUDGMENTS)
    assert len(judgments.cases) >= 60
    assert set(judgments.categories()) == set(CATEGORIES)
    assert judgments.sha256 == hashlib.sha256(JUDGMENTS.read_bytes()).hexdigest()
    assert all(c.expect_no_hits for c in judgments.cases if c.category in ("negative", "gap"))
    assert all(c.filters.as_of for c in judgments.cases if c.category == "temporal")


def test_the_committed_judgments_are_valid_search_calls() -> None:
    for mode in ("keyword", "hybrid"):
        check_cases(load_judgments(JUDGMENTS).cases, LegalCore.operation("search").validate, mode)


def test_every_judged_work_and_eu_version_exists_in_the_fixture_corpus(fixtures_dir: Path) -> None:
    for case in load_judgments(JUDGMENTS).cases:
        items = [(r.work, r.versions) for r in case.relevant] + [(f.work, (f.version,) if f.version else ())
                                                                  for f in case.forbidden]
        for work, versions in items:
            publisher, slug = work.split(":")
            versions_dir = fixtures_dir / FOLDERS[publisher] / "works" / slug / "versions"
            assert versions_dir.is_dir(), f"{case.id}: {work} is not in the fixture corpus"
            held = {p.name for p in versions_dir.iterdir()}
            for key in versions:
                # EUR-Lex folders are version keys; Legilux folders are dates (same-day twins: --02)
                found = key in held if publisher == "eu-eurlex" else key[:10] in {h[:10] for h in held}
                assert found, f"{case.id}: {work} has no version {key}"


def _case(**fields: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {"id": "conceptual-001", "category": "conceptual", "query": "data breach",
                           "relevant": [{"work": GDPR, "grade": 3}], "expect_no_hits": False}
    raw.update(fields)
    return raw


def _code(cases: list[dict[str, Any]]) -> tuple[str, str | None]:
    with pytest.raises(JudgmentsError) as caught:
        parse_judgments(judgments_document(cases))
    return caught.value.code, caught.value.subject


def test_a_minimal_document_parses() -> None:
    judgments = parse_judgments(judgments_document([_case()]))
    assert judgments.cases[0].relevant[0].work == GDPR
    assert judgments.review_status == "engineer-written"
    assert parse_judgments(judgments_document([_case(id="conceptual-1201")])).cases[0].id == "conceptual-1201"


@pytest.mark.parametrize(("fields", "code"), [
    ({"id": "conceptual-1"}, "invalid_case"),
    ({"id": "conceptual-11001"}, "invalid_case"),                            # five digits
    ({"id": "exact-001"}, "invalid_case"),                                   # id prefix is not the category
    ({"category": "fancy", "id": "fancy-001"}, "invalid_case"),
    ({"query": ""}, "invalid_case"),
    ({"query": "x" * 1001}, "invalid_case"),
    ({"filters": {"colour": "red"}}, "invalid_case"),
    ({"filters": {"as_of": "2020-13-01"}}, "invalid_case"),
    ({"filters": {"publisher": "Luxembourg"}}, "invalid_case"),
    ({"filters": {"language": "English"}}, "invalid_case"),
    ({"filters": {"fuzzy": "maybe"}}, "invalid_case"),
    ({"relevant": []}, "invalid_case"),                                      # a conceptual case needs answers
    ({"relevant": [{"work": GDPR, "grade": 4}]}, "invalid_case"),
    ({"relevant": [{"work": GDPR, "grade": True}]}, "invalid_case"),
    ({"relevant": [{"work": "32016r0679", "grade": 3}]}, "invalid_case"),    # not <publisher>:<slug>
    ({"relevant": [{"work": GDPR, "grade": 3, "versions": ["2016-05-04"]}]}, "invalid_case"),
    ({"relevant": [{"work": GDPR, "grade": 3}, {"work": GDPR, "grade": 1}]}, "invalid_case"),
    ({"forbidden": [{"work": GDPR}]}, "invalid_case"),                      # forbids a relevant work wholesale
    ({"expect_no_hits": "no"}, "invalid_case"),
    ({"work_rows_allowed": True}, "invalid_case"),
    ({"colour": "red"}, "invalid_case"),
])
def test_malformed_cases_are_refused_naming_the_case(fields: dict[str, Any], code: str) -> None:
    raw = _case(**fields)
    assert _code([raw]) == (code, raw["id"])


def test_a_case_id_may_carry_four_digits() -> None:
    # a file's own id range (``evals/full_judgments_lu11.json``: ``exact-1101`` …)
    assert parse_judgments(judgments_document([_case(id="conceptual-1101")])).cases[0].id == "conceptual-1101"


def test_category_rules() -> None:
    negative = {"id": "negative-001", "category": "negative", "query": "x", "expect_no_hits": True}
    assert parse_judgments(judgments_document([negative])).cases[0].expect_no_hits
    assert _code([{**negative, "relevant": [{"work": GDPR, "grade": 1}]}])[0] == "invalid_case"
    assert _code([{**negative, "expect_no_hits": False}])[0] == "invalid_case"
    temporal = _case(id="temporal-001", category="temporal")
    assert _code([temporal]) == ("invalid_case", "temporal-001")
    assert parse_judgments(judgments_document([{**temporal, "filters": {"as_of": "2020-01-01"}}]))


def test_document_level_refusals() -> None:
    assert _code([_case(), _case()]) == ("duplicate_case", "conceptual-001")
    with pytest.raises(JudgmentsError) as caught:
        parse_judgments(b"{not json")
    assert caught.value.code == "judgments_not_json"
    with pytest.raises(JudgmentsError) as caught:
        parse_judgments(b'{"schema": "other/1", "cases": []}')
    assert caught.value.code == "judgments_schema"
    with pytest.raises(JudgmentsError) as caught:
        parse_judgments(b'{"schema": "lex-retrieval-judgments/1", "review": {"status": "engineer-written"}, "cases": []}')
    assert caught.value.code == "judgments_empty"
    with pytest.raises(JudgmentsError) as caught:
        parse_judgments(b'{"schema": "lex-retrieval-judgments/1", "review": {"status": "trust me"}, '
                        b'"cases": [{"id": "negative-001", "category": "negative", "query": "x", "expect_no_hits": true}]}')
    assert caught.value.code == "judgments_review"


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(JudgmentsError) as caught:
        load_judgments(tmp_path / "missing.json")
    assert caught.value.code == "judgments_unreadable"
