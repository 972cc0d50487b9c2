"""Dataset rows kept in the build's scratch file (``derive/index/spill.py``) come back as the same rows."""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
from types import SimpleNamespace
from typing import Any

from derive.index.inputs import CitationRow, ProvisionRow, provision_row
from derive.index.rows import _digest_expression, _repr_order_zero
from derive.index.spill import PACKED_FIELDS, SCHEMA, SpilledRows, pack_row, unpack_row


def _rows() -> list[ProvisionRow]:
    base = {"provision_id": "p", "lex_id": "lu-legilux:a:2020-01-01--x", "work_id": "lu-legilux:a",
            "publisher": "lu-legilux", "version_key": "2020-01-01--x", "language": "fr", "anchor": "art_1",
            "type": "article", "text_md": "Texte « é » \\ \"quoted\"\n\n[^1]: note", "text_sha256": "0" * 64,
            "profile": "akn-lu/3", "record_sha256": "1" * 64}
    return [
        provision_row(base, 0, "w:1"),
        provision_row({**base, "num": "Art. 1er", "heading": None, "path": ["Titre I", "Chapitre 2"],
                       "citations": [{"href": "#x", "text": None, "target_work": None}],
                       "span": {"start": 3, "end": 9}, "evidence_file": "a.xml", "evidence_sha256": "2" * 64,
                       "article_valid_from": "2020-02-01"}, 7, "w:2"),
        provision_row({**base, "path": '["Partie"]',
                       "citations": '[{"href": "/eli/etat/leg/loi/2000/01/01/n1", "text": "loi", '
                                    '"target_work": "lu-legilux:loi-2000-01-01-n1"}, {"href": "h2", "text": "t"}]'},
                      12, "w:3"),
    ]


def test_a_packed_row_reads_back_as_the_same_row():
    assert tuple(f.name for f in dataclasses.fields(ProvisionRow) if f.name != "order") == PACKED_FIELDS
    for row in _rows():
        back = unpack_row(pack_row(row), row.order)
        assert back == row and repr(back) == repr(row)
        assert isinstance(back.path, tuple) and all(isinstance(c, CitationRow) for c in back.citations)


def test_the_work_keys_repr_is_the_row_with_order_zero():
    for row in _rows():
        assert _repr_order_zero(row) == repr(dataclasses.replace(row, order=0))


def test_the_inputs_digest_of_an_expression_is_the_repr_of_its_rows_with_order_zero():
    """The pieces :func:`_digest_expression` hands to the hash (each text's ``repr`` kept once per work)
    are the UTF-8 bytes of ``repr((lex_id, language, gap, [rows with order=0]))``."""
    odd = "lone \ud800 surrogate, non-BMP \U0001f600, NUL \x00, U+2028 \u2028, quote ' \" \\"
    rows = _rows()
    rows += [dataclasses.replace(rows[1], text_md=odd, order=20), dataclasses.replace(rows[2], anchor="art_2"),
             dataclasses.replace(rows[0], text_md="")]
    gap: Any = ("gap", 1)
    ctx: Any = SimpleNamespace(gaps_by_expression={("lu-legilux:a:x", "de"): gap}, text_reprs={})
    for lex_id, language, chosen in (("lu-legilux:a:x", "fr", rows), ("lu-legilux:a:x", "de", rows[:1]),
                                     ("lu-legilux:a:y", "fr", []), ("lu-legilux:a:z", "fr", rows[::-1])):
        h = hashlib.sha256()
        _digest_expression(h, ctx, lex_id, language, chosen)
        expected = repr((lex_id, language, ctx.gaps_by_expression.get((lex_id, language)),
                         [dataclasses.replace(r, order=0) for r in chosen]))
        assert h.hexdigest() == hashlib.sha256(expected.encode()).hexdigest()
    assert odd in ctx.text_reprs and ctx.text_reprs[odd] == repr(odd).encode()


def test_a_packed_row_keeps_every_string_exactly():
    odd = "lone \ud800 surrogate, non-BMP \U0001f600, NUL \x00, U+2028 \u2028, BOM \ufeff"
    row = dataclasses.replace(_rows()[1], text_md=odd, heading=odd, path=(odd, ""), num="")
    back = unpack_row(pack_row(row), 5)
    assert back == dataclasses.replace(row, order=5) and back.text_md == odd and back.path == (odd, "")


def _spilled(rows: list[ProvisionRow]) -> SpilledRows:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute(f"ATTACH DATABASE ':memory:' AS {SCHEMA}")
    spilled = SpilledRows(conn)
    values = [(f"w:{i}", {**dataclasses.asdict(r), "span": None, "path": list(r.path),
                          "citations": [dataclasses.asdict(c) for c in r.citations]}) for i, r in enumerate(rows)]
    spilled.load(values, "lu-legilux")
    spilled.index()
    return spilled


def test_spilled_rows_are_handed_out_once_in_order():
    base = _rows()[0]
    rows = [dataclasses.replace(base, anchor="art_2", lex_id="lu-legilux:b:x"),
            dataclasses.replace(base, anchor="art_1", lex_id="lu-legilux:a:x"),
            dataclasses.replace(base, anchor="art_3", lex_id="lu-legilux:b:x"),
            dataclasses.replace(base, anchor="art_4", lex_id="lu-legilux:b:x", language="de"),
            dataclasses.replace(base, publisher="eu-eurlex", lex_id="eu-eurlex:z:x")]
    spilled = _spilled(rows)
    assert spilled.first_left() == ("lu-legilux:a:x", "fr")
    assert [r.anchor for r in spilled.peek("lu-legilux:b:x", "fr")] == ["art_2", "art_3"]
    taken = spilled.take("lu-legilux:b:x", "fr")
    assert [(r.anchor, r.order) for r in taken] == [("art_2", 0), ("art_3", 2)]
    assert spilled.take("lu-legilux:b:x", "fr") == [] and spilled.peek("lu-legilux:b:x", "fr") == []
    assert spilled.first_left() == ("lu-legilux:a:x", "fr")
    assert [r.anchor for r in spilled.take("lu-legilux:a:x", "fr")] == ["art_1"]
    assert spilled.first_left() == ("lu-legilux:b:x", "de")
    spilled.take("lu-legilux:b:x", "de")
    assert spilled.first_left() is None  # the other publisher's row is not kept
    assert spilled.take("eu-eurlex:z:x", "fr") == []
