"""A dataset row is read into a :class:`ProvisionRow` or refused with a typed error naming the field
(``derive/index/inputs.py``): the same refusal whichever fields are wrong, the first one in the
row's field order named."""

from __future__ import annotations

from typing import Any

import pytest

from derive.index.inputs import CitationRow, ProvisionRow, provision_row
from legal.errors import IndexError_

BASE: dict[str, Any] = {
    "provision_id": "p", "lex_id": "lu-legilux:a:2020-01-01--x", "work_id": "lu-legilux:a",
    "publisher": "lu-legilux", "version_key": "2020-01-01--x", "language": "fr", "anchor": "art_1",
    "type": "article", "text_md": "Texte", "text_sha256": "0" * 64, "profile": "akn-lu/3",
    "record_sha256": "1" * 64}
REQUIRED = ("provision_id", "lex_id", "work_id", "publisher", "version_key", "language", "anchor", "type",
            "text_md", "text_sha256", "profile", "record_sha256")
OPTIONAL = ("num", "heading", "article_valid_from", "evidence_sha256", "evidence_file")


class Text(str):
    """A string of another type (what a JSON reader with another string class could give)."""


def _refusal(row: dict[str, Any]) -> tuple[str, str, str | None]:
    with pytest.raises(IndexError_) as caught:
        provision_row(row, 0, "f:3")
    return caught.value.code, caught.value.message, caught.value.subject


def test_a_full_row_is_read_with_every_field():
    row = provision_row({**BASE, "num": "Art. 1er", "heading": "Titre", "path": ["A", "B"],
                         "article_valid_from": "2020-02-01", "evidence_sha256": "2" * 64, "evidence_file": "a.xml",
                         "citations": [{"href": "#x", "text": "t", "target_work": None}],
                         "span": {"start": 3, "end": 9}}, 4, "f:1")
    assert row == ProvisionRow(
        provision_id="p", lex_id=BASE["lex_id"], work_id="lu-legilux:a", publisher="lu-legilux",
        version_key="2020-01-01--x", language="fr", anchor="art_1", type="article", num="Art. 1er", heading="Titre",
        path=("A", "B"), article_valid_from="2020-02-01", text_md="Texte", text_sha256="0" * 64,
        citations=(CitationRow("#x", "t", None),), profile="akn-lu/3", evidence_sha256="2" * 64,
        evidence_file="a.xml", record_sha256="1" * 64, span_start=3, span_end=9, order=4)


def test_optional_fields_may_be_missing_or_null():
    for row in (provision_row(BASE, 0, "f:1"), provision_row({**BASE, **dict.fromkeys(OPTIONAL)}, 0, "f:1")):
        assert (row.num, row.heading, row.article_valid_from, row.evidence_sha256, row.evidence_file) == (None,) * 5
        assert (row.path, row.citations, row.span_start, row.span_end) == ((), (), None, None)


def test_a_string_of_another_type_is_a_string():
    row = provision_row({**BASE, "anchor": Text("art_2"), "num": Text("2")}, 0, "f:1")
    assert (row.anchor, row.num) == ("art_2", "2")


@pytest.mark.parametrize("name", REQUIRED)
def test_a_missing_or_null_required_field_is_refused(name):
    missing = {k: v for k, v in BASE.items() if k != name}
    expected = ("bad_dataset_row", f"dataset row lacks {name!r}", "f:3")
    assert _refusal(missing) == expected
    assert _refusal({**BASE, name: None}) == expected


@pytest.mark.parametrize("name", REQUIRED + OPTIONAL)
@pytest.mark.parametrize("value", [1, 2.5, True, ["x"], {"x": 1}, b"x"])
def test_a_field_that_is_not_a_string_is_refused(name, value):
    assert _refusal({**BASE, name: value}) == ("bad_dataset_row", f"dataset member {name!r} must be a string", "f:3")


def test_the_first_bad_field_in_field_order_is_named():
    assert _refusal({**BASE, "record_sha256": 1, "lex_id": None})[1] == "dataset row lacks 'lex_id'"
    assert _refusal({**BASE, "record_sha256": None, "num": 3})[1] == "dataset member 'num' must be a string"
    assert _refusal({**BASE, "text_md": None, "path": [1]})[1] == "path must be a list of strings"
    assert _refusal({**BASE, "profile": None, "citations": [{}]})[1] == "citation without href"
    assert _refusal({**BASE, "type": 4, "citations": [{}]})[1] == "dataset member 'type' must be a string"


@pytest.mark.parametrize("path", [[1], ["a", None], '["a", 2]'])
def test_a_path_that_is_not_strings_is_refused(path):
    assert _refusal({**BASE, "path": path}) == ("bad_dataset_row", "path must be a list of strings", "f:3")


@pytest.mark.parametrize("citations", [[{}], [{"href": 1}], ["x"], '[{"text": "t"}]'])
def test_a_citation_without_href_is_refused(citations):
    assert _refusal({**BASE, "citations": citations}) == ("bad_dataset_row", "citation without href", "f:3")


def test_a_citation_text_that_is_not_a_string_is_refused():
    assert _refusal({**BASE, "citations": [{"href": "#", "text": 3}]}) == (
        "bad_dataset_row", "dataset member 'text' must be a string", "f:3")


def test_paths_and_citations_as_json_text_and_spans_that_are_not_two_integers():
    row = provision_row({**BASE, "path": '["A"]', "citations": '[{"href": "#y"}]', "span": '{"start": 1, "end": 2}'},
                        0, "f:1")
    assert (row.path, row.citations, row.span_start, row.span_end) == (("A",), (CitationRow("#y", None, None),), 1, 2)
    assert provision_row({**BASE, "path": "Titre I"}, 0, "f:1").path == ("Titre I",)
    for span in ({"start": 1}, {"start": "1", "end": 2}, [1, 2], "null"):
        row = provision_row({**BASE, "span": span}, 0, "f:1")
        assert (row.span_start, row.span_end) == (None, None)
