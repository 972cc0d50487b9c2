"""Dataset rows kept in the build's scratch file (``derive/index/spill.py``) come back as the same rows."""

from __future__ import annotations

import dataclasses

from derive.index.inputs import CitationRow, ProvisionRow, provision_row
from derive.index.rows import _repr_order_zero
from derive.index.spill import PACKED_FIELDS, pack_row, unpack_row


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
