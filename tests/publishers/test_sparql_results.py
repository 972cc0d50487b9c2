"""SPARQL JSON results: what :func:`publishers.http.parse_results` accepts, and the exact error
(code, message, subject) of every malformed answer it rejects.

The table was written against the parser that built a dict per term (``json.loads`` then a walk)
and passed there unchanged; the parser that reduces each term to its value as the JSON is read
(issue #13) must keep every row of it: same rows, same first error, same message. A differential
property test then compares the two paths of the module on generated documents.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from legal.errors import PublisherError
from publishers.http import parse_results
from publishers.http import sparql as sparql_module

SUBJECT = "catalogue"
T = {"type": "literal", "value": "x"}  # a well-formed term
U = {"type": "uri", "value": "http://example.org/a"}


def doc(*bindings: Any, head: Any = None) -> dict[str, Any]:
    return {"head": {"vars": ["a"]} if head is None else head, "results": {"bindings": list(bindings)}}


def enc(document: Any) -> bytes:
    return json.dumps(document).encode()


NO_STRING = "SPARQL binding {!r} has no string value"

#: (case name, body, expected rows or the expected error message)
MALFORMED: list[tuple[str, bytes, str]] = [
    ("not JSON", b"{not json",
     "SPARQL response is not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
    ("empty body", b"", "SPARQL response is not JSON: Expecting value: line 1 column 1 (char 0)"),
    ("trailing data", enc(doc(T)) + b" x", "SPARQL response is not JSON: Extra data: line 1 column 89 (char 88)"),
    ("truncated answer", enc(doc(T, T))[:-20],
     "SPARQL response is not JSON: Unterminated string starting at: line 1 column 96 (char 95)"),
    ("not UTF-8", b'{"head": "\xff"}',
     "SPARQL response is not JSON: 'utf-8' codec can't decode byte 0xff in position 10: invalid start byte"),
    ("bad term before a syntax error", enc(doc({"a": "raw"}))[:-1],
     "SPARQL response is not JSON: Expecting ',' delimiter: line 1 column 66 (char 65)"),
    ("document is a list", b"[]", "SPARQL JSON has no head"),
    ("document is null", b"null", "SPARQL JSON has no head"),
    ("document is a string", b'"value"', "SPARQL JSON has no head"),
    ("no head", enc({"results": {"bindings": []}}), "SPARQL JSON has no head"),
    ("head is a list", enc({"head": [], "results": {"bindings": []}}), "SPARQL JSON has no head"),
    ("head is null", enc({"head": None, "results": {"bindings": []}}), "SPARQL JSON has no head"),
    ("no head, bad terms", enc({"results": {"bindings": [{"a": 1}]}}), "SPARQL JSON has no head"),
    ("head shaped like a term", enc({"head": "x", "results": {"bindings": [T]}}), "SPARQL JSON has no head"),
    ("no results", enc({"head": {}}), "SPARQL JSON has no results.bindings list"),
    ("results is a list", enc({"head": {}, "results": []}), "SPARQL JSON has no results.bindings list"),
    ("no bindings", enc({"head": {}, "results": {}}), "SPARQL JSON has no results.bindings list"),
    ("bindings is an object", enc({"head": {}, "results": {"bindings": {"a": T}}}),
     "SPARQL JSON has no results.bindings list"),
    ("bindings is null", enc({"head": {}, "results": {"bindings": None}}), "SPARQL JSON has no results.bindings list"),
    ("results shaped like a term", enc({"head": {}, "results": {"type": "uri", "value": "x"}}),
     "SPARQL JSON has no results.bindings list"),
    ("binding is a string", enc(doc("x")), "SPARQL binding is not an object"),
    ("binding is a list", enc(doc([T])), "SPARQL binding is not an object"),
    ("binding is null", enc(doc(None)), "SPARQL binding is not an object"),
    ("second binding is not an object", enc(doc({"a": T}, 7)), "SPARQL binding is not an object"),
    ("term without value", enc(doc({"a": {"type": "uri"}})), NO_STRING.format("a")),
    ("term value is a number", enc(doc({"a": {"type": "literal", "value": 1}})), NO_STRING.format("a")),
    ("term value is null", enc(doc({"a": {"type": "literal", "value": None}})), NO_STRING.format("a")),
    ("term value is NaN", b'{"head": {}, "results": {"bindings": [{"a": {"value": NaN}}]}}', NO_STRING.format("a")),
    ("term value is an object", enc(doc({"a": {"type": "triple", "value": {"subject": U}}})), NO_STRING.format("a")),
    ("term value is a list", enc(doc({"a": {"type": "literal", "value": ["x"]}})), NO_STRING.format("a")),
    ("term is a string", enc(doc({"a": "x"})), NO_STRING.format("a")),
    ("term is a list", enc(doc({"a": [T]})), NO_STRING.format("a")),
    ("term is null", enc(doc({"a": None})), NO_STRING.format("a")),
    ("first bad term named", enc(doc({"a": T, "b": 1, "c": "x"})), NO_STRING.format("b")),
    ("bad term in a later binding", enc(doc({"a": T}, {"a": T}, {"z": {"value": False}})), NO_STRING.format("z")),
    ("binding shaped like a term", enc(doc({"type": "uri", "value": "x"})), NO_STRING.format("type")),
    ("binding shaped like a term, value first", enc(doc({"value": "x", "type": "uri"})), NO_STRING.format("value")),
    ("variable named value, raw string", enc(doc({"value": "x"})), NO_STRING.format("value")),
    ("variable named value, term inside a raw string", enc(doc({"value": T, "type": "uri"})), NO_STRING.format("type")),
    ("bare term as binding with datatype", enc(doc({"value": "1", "datatype": "http://www.w3.org/2001/XMLSchema#int"})),
     NO_STRING.format("value")),
    ("duplicate key, last value not a string", b'{"head": {}, "results": {"bindings": [{"a": {"value": "x", '
     b'"value": 1}}]}}', NO_STRING.format("a")),
    ("duplicate variable, last term bad", b'{"head": {}, "results": {"bindings": [{"a": {"value": "x"}, '
     b'"a": "y"}]}}', NO_STRING.format("a")),
    ("duplicate head, last one a list", b'{"head": {}, "head": [], "results": {"bindings": []}}',
     "SPARQL JSON has no head"),
    ("document shaped like a term", enc({"type": "uri", "value": "x"}), "SPARQL JSON has no head"),
]

ACCEPTED: list[tuple[str, bytes, list[dict[str, str]]]] = [
    ("no rows", enc(doc()), []),
    ("unbound variables absent", enc(doc({"a": U}, {})), [{"a": "http://example.org/a"}, {}]),
    ("typed literal, language, blank node", enc(doc({
        "n": {"type": "literal", "value": "7", "datatype": "http://www.w3.org/2001/XMLSchema#integer"},
        "t": {"type": "literal", "value": "Loi", "xml:lang": "fr"},
        "b": {"type": "bnode", "value": "b0"}})), [{"n": "7", "t": "Loi", "b": "b0"}]),
    ("variables named type and value", enc(doc({"type": {"type": "literal", "value": "uri"}, "value": U})),
     [{"type": "uri", "value": "http://example.org/a"}]),
    ("variables named value and datatype", enc(doc({"value": T, "datatype": U})),
     [{"value": "x", "datatype": "http://example.org/a"}]),
    ("empty and one-character values", enc(doc({"a": {"value": ""}, "b": {"value": "é"}})), [{"a": "", "b": "é"}]),
    ("term without type", enc(doc({"a": {"value": "x"}})), [{"a": "x"}]),
    ("term with extra members", enc(doc({"a": {"value": "x", "other": {"value": 1}, "n": [1]}})), [{"a": "x"}]),
    ("escapes and non-ASCII", enc(doc({"a": {"value": "Art. 1er \u00ab\\n\u00bb \ud83d\ude00"}})),
     [{"a": "Art. 1er \u00ab\\n\u00bb \U0001f600"}]),
    ("head shaped like a term", enc(doc({"a": T}, head={"type": "uri", "value": "x"})), [{"a": "x"}]),
    ("head with only terms", enc(doc({"a": T}, head={"h": T})), [{"a": "x"}]),
    ("results with extra string members", enc({"head": {}, "results": {"bindings": [{"a": T}], "value": "x"}}),
     [{"a": "x"}]),
    ("document with extra members", enc({"head": {}, "results": {"bindings": [{"a": T}]}, "value": "x",
                                         "link": ["x"]}), [{"a": "x"}]),
    ("results before head", b'{"results": {"bindings": [{"a": {"value": "x"}}]}, "head": {}}', [{"a": "x"}]),
    ("duplicate key, last value a string", b'{"head": {}, "results": {"bindings": [{"a": {"value": 1, '
     b'"value": "y"}}]}}', [{"a": "y"}]),
    ("duplicate variable, last term good", b'{"head": {}, "results": {"bindings": [{"a": "raw", '
     b'"a": {"value": "y"}}]}}', [{"a": "y"}]),
    ("row order kept", enc(doc({"b": T, "a": U})), [{"b": "x", "a": "http://example.org/a"}]),
    ("UTF-8 with a byte order mark", b"\xef\xbb\xbf" + enc(doc({"a": T})), [{"a": "x"}]),
    ("UTF-16", json.dumps(doc({"a": {"value": "é"}})).encode("utf-16"), [{"a": "é"}]),
]


@pytest.mark.parametrize(("body", "message"), [pytest.param(b, m, id=name) for name, b, m in MALFORMED])
def test_malformed_answers_are_the_same_typed_errors(body: bytes, message: str) -> None:
    with pytest.raises(PublisherError) as info:
        parse_results(body, subject=SUBJECT)
    assert (info.value.code, info.value.message, info.value.subject) == ("enumeration_parser_failure", message,
                                                                         SUBJECT)
    assert not info.value.retryable


@pytest.mark.parametrize(("body", "rows"), [pytest.param(b, r, id=name) for name, b, r in ACCEPTED])
def test_accepted_answers_give_the_same_rows(body: bytes, rows: list[dict[str, str]]) -> None:
    got = parse_results(body, subject=SUBJECT)
    assert got == rows
    assert [list(r) for r in got] == [list(r) for r in rows]  # variable order kept
    assert all(type(v) is str for r in got for v in r.values())


#: accepted answers the reading path leaves to the checking path (an object other than a term
#: carrying a string ``value``): still the same rows, only parsed twice
CHECKED_TWICE = {"head shaped like a term", "results with extra string members", "document with extra members"}


@pytest.mark.parametrize(("body", "rows"), [pytest.param(b, r, id=name) for name, b, r in ACCEPTED
                                             if name not in CHECKED_TWICE])
def test_well_formed_answers_are_read_once(body: bytes, rows: list[dict[str, str]],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A well-formed answer never reaches the checking path (the term dicts are never built)."""

    def refuse(text: str, *, subject: str) -> list[dict[str, str]]:
        raise AssertionError("parsed twice")

    monkeypatch.setattr(sparql_module, "_checked_rows", refuse)
    assert parse_results(body, subject=SUBJECT) == rows

NAMES = st.sampled_from(["a", "b", "value", "type", "datatype", "head", "results", "bindings"])
SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "uri", "é"])
ANY_JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                        | st.dictionaries(NAMES, inner, max_size=3), max_leaves=8)
TERMS = st.one_of(st.fixed_dictionaries({"value": st.sampled_from(["", "x", "http://example.org/a", "1"])},
                                        optional={"type": st.sampled_from(["uri", "literal", "bnode"]),
                                                  "datatype": st.just("http://www.w3.org/2001/XMLSchema#int"),
                                                  "xml:lang": st.just("fr")}),
                  ANY_JSON)
BINDINGS = st.lists(st.dictionaries(NAMES, TERMS, max_size=4) | ANY_JSON, max_size=4) | ANY_JSON
RESULTS = st.fixed_dictionaries({"bindings": BINDINGS}, optional={"distinct": st.booleans(), "value": ANY_JSON}) \
    | ANY_JSON
HEADS = st.fixed_dictionaries({}, optional={"vars": st.lists(NAMES, max_size=3), "value": ANY_JSON}) | ANY_JSON
DOCUMENTS = st.fixed_dictionaries({}, optional={"head": HEADS, "results": RESULTS, "value": ANY_JSON}) | ANY_JSON


def outcome(parse: Any, body: bytes) -> tuple[str, Any]:
    try:
        rows = parse(body, subject=SUBJECT)
    except PublisherError as exc:
        return "error", (exc.code, exc.message, exc.subject, exc.retryable)
    return "rows", (rows, [list(r) for r in rows])


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(document=DOCUMENTS, cut=st.integers(0, 400) | st.none())
def test_reading_path_agrees_with_checking_path(document: Any, cut: int | None) -> None:
    """Generated documents (shaped like SPARQL JSON or not, sometimes truncated): the same rows or
    the same first error as the checking path that builds every term."""
    body = json.dumps(document).encode()
    if cut is not None:
        body = body[:cut]
    assert outcome(parse_results, body) == outcome(sparql_module._parse_checked, body)


def test_a_parsed_answer_leaves_no_cycle_holding_its_values() -> None:
    """The reader's ``object_hook`` is not kept on the reader: an answer's share table of values is freed
    with the parse, not left to the cyclic collector (issue #13, ADR 0129)."""
    import gc
    import json as _json

    from publishers.http.sparql import parse_text

    text = _json.dumps({"head": {"vars": ["a"]},
                        "results": {"bindings": [{"a": {"type": "literal", "value": f"v{i}"}} for i in range(50)]}})
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        rows = parse_text(text, subject="q")
        assert len(rows) == 50
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
