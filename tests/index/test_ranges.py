"""A canonical ``provisions.jsonl`` read by its runs of lines (``derive/index/ranges.py``) hands out the
rows the scratch table would (``derive/index/spill.py``), or refuses; dataset lines read with orjson
have json's values."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from derive.index.inputs import dataset_row_values, loads_line, provision_row
from derive.index.ranges import RangeRows, jsonl_ranges
from derive.index.spill import SCHEMA, SpilledRows
from legal.canonical import canonical_text
from legal.errors import IndexError_

PUBLISHER = "lu-legilux"


def _row(work: str, key: str, language: str, anchor: str, **extra: Any) -> dict[str, Any]:
    lex_id = f"{work}:{key}"
    return {"provision_id": f"{lex_id}#{anchor}", "lex_id": lex_id, "work_id": work, "publisher": work.split(":")[0],
            "version_key": key, "language": language, "anchor": anchor, "type": "article",
            "text_md": f"Texte « {anchor} » \\ \"quoted\"", "text_sha256": "0" * 64, "profile": "akn-lu/3",
            "record_sha256": "1" * 64, "path": ["Titre I"], "span": {"start": 1, "end": 2},
            "pages": {"first": 1, "last": 2}, "citations": [{"href": "#x", "text": "t", "target_work": None}], **extra}


def _write(path: Path, rows: list[dict[str, Any]], lines: dict[int, str] | None = None) -> Path:
    text = [canonical_text(r) for r in rows]
    for i, line in (lines or {}).items():
        text[i] = line
    path.write_text("".join(t + "\n" for t in text), encoding="utf-8")
    return path


def _spilled(path: Path) -> SpilledRows:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute(f"ATTACH DATABASE ':memory:' AS {SCHEMA}")
    spilled = SpilledRows(conn)
    spilled.load(dataset_row_values(path.parent), PUBLISHER)
    spilled.index()
    return spilled


def _ranged(path: Path) -> RangeRows:
    found = jsonl_ranges(path)
    assert found is not None and found.runs is not None
    return RangeRows(path, found.runs, PUBLISHER)


A, B = "lu-legilux:a", "lu-legilux:b"
K1, K2 = "2020-01-01--x", "2021-01-01--y"


def _corpus() -> list[dict[str, Any]]:
    return [
        _row(A, K1, "fr", "art_2"), _row(A, K1, "fr", "art_1"), _row(A, K1, "de", "art_1"),
        _row(A, K2, "fr", "art_1"), _row(A, K1, "fr", "art_3"),  # one expression's rows on two runs
        _row("eu-eurlex:z", "1999-01-01--z", "en", "art_1"),  # another publisher's row: validated, not kept
        _row(B, K1, "fr", "art_1"), _row(B, "2000-01-01--orphan", "fr", "art_9"),
    ]


def test_range_rows_hand_out_what_the_scratch_table_does(tmp_path: Path) -> None:
    path = _write(tmp_path / "provisions.jsonl", _corpus())
    spilled, ranged = _spilled(path), _ranged(path)
    asked = [(f"{A}:{K2}", "fr"), (f"{A}:{K1}", "fr"), (f"{A}:{K1}", "de"), (f"{A}:{K1}", "fr"), (f"{B}:{K1}", "fr"),
             ("eu-eurlex:z:1999-01-01--z", "en"), (f"{A}:{K1}", "it")]
    assert ranged.peek(f"{A}:{K1}", "fr") == spilled.peek(f"{A}:{K1}", "fr")
    for lex_id, language in asked:
        want = spilled.take(lex_id, language)
        assert ranged.take(lex_id, language) == want
    assert [(r.anchor, r.order) for r in _ranged(path).take(f"{A}:{K1}", "fr")] == [
        ("art_2", 0), ("art_1", 1), ("art_3", 4)]
    assert ranged.first_left() == spilled.first_left() == (f"{B}:2000-01-01--orphan", "fr")


def test_a_file_whose_lines_do_not_name_their_expression_has_no_runs(tmp_path: Path) -> None:
    rows = _corpus()
    escaped = canonical_text(rows[0]).replace('"language":"fr"', '"language":"\\u0066r"')
    found = jsonl_ranges(_write(tmp_path / "provisions.jsonl", rows, {0: escaped}))
    assert found is not None and found.runs is None and set(found.works) == {A, B, "eu-eurlex:z"}
    assert jsonl_ranges(_write(tmp_path / "provisions.jsonl", rows, {3: ""})) is None  # a blank line


def test_works_only_ranges_are_the_works_ranges_without_runs(tmp_path: Path) -> None:
    """What an incremental build reads (``with_runs=False``): the same per-work ranges, no runs; the
    same refusals (a blank line, a work's lines apart)."""
    rows = _corpus()
    path = _write(tmp_path / "provisions.jsonl", rows)
    full, works_only = jsonl_ranges(path), jsonl_ranges(path, with_runs=False)
    assert full is not None and works_only is not None
    assert works_only.runs is None and works_only.works == full.works
    assert jsonl_ranges(_write(tmp_path / "provisions.jsonl", rows, {3: ""}), with_runs=False) is None
    apart = [*rows, _row(A, K1, "fr", "art_9")]  # work A's lines again after B's
    assert jsonl_ranges(_write(tmp_path / "provisions.jsonl", apart), with_runs=False) is None


def test_unhashed_ranges_are_the_ranges_without_their_digests(tmp_path: Path) -> None:
    """What a full build whose works' digests come from the merge's sidecar reads (``hashed=False``):
    the same ranges and runs, no line hashed (every digest empty); the same refusals."""
    rows = _corpus()
    path = _write(tmp_path / "provisions.jsonl", rows)
    hashed, unhashed = jsonl_ranges(path), jsonl_ranges(path, hashed=False)
    assert hashed is not None and unhashed is not None
    assert unhashed.runs == hashed.runs
    assert {w: r.sha256 for w, r in unhashed.works.items()} == {w: "" for w in hashed.works}
    assert {w: (r.position, r.line, r.start, r.end) for w, r in unhashed.works.items()} == \
        {w: (r.position, r.line, r.start, r.end) for w, r in hashed.works.items()}
    assert all(r.sha256 for r in hashed.works.values())
    assert jsonl_ranges(_write(tmp_path / "provisions.jsonl", rows, {3: ""}), hashed=False) is None


def test_a_line_not_in_canonical_form_is_read_alike_or_refused(tmp_path: Path) -> None:
    rows = _corpus()
    # a member after the row's own lex_id and language naming another expression: its bytes mislead
    odd = canonical_text(rows[3])[:-1] + f',"zz":{{"language":"de","lex_id":"{A}:{K1}"}}}}'
    path = _write(tmp_path / "provisions.jsonl", rows, {3: odd})
    spilled = _spilled(path)
    ranged = _ranged(path)
    # asked after the misleading line was read: the row is found where it belongs
    assert ranged.take(f"{A}:{K1}", "de") == spilled.take(f"{A}:{K1}", "de")
    assert ranged.take(f"{A}:{K2}", "fr") == spilled.take(f"{A}:{K2}", "fr")
    # asked before: the build is refused rather than answer without the row
    ranged = _ranged(path)
    assert ranged.take(f"{A}:{K2}", "fr") == []
    with pytest.raises(IndexError_) as caught:
        ranged.first_left()
    assert caught.value.code == "bad_dataset_row"


@pytest.mark.parametrize("line", [
    '{"a":"\\ud800"}', '{"span":{"start":123456789012345678901234567890,"end":1}}', '{"span":{"start":1.5}}',
    '{"n":1e400}', '{"n":NaN}', '{"a":1,"a":2}', '{"t":"\\u2028 é \\u0000"}', '[1]', '{"n":-0}',
    '{"n":18446744073709551615}', '{"n":-9223372036854775808}', '{"f":1.0000000000000002}',
])
def test_a_line_read_with_orjson_has_json_s_value(line: str) -> None:
    want = json.loads(line)
    for given in (line, line.encode("utf-8")):
        assert repr(loads_line(given)) == repr(want)


@pytest.mark.parametrize("member", ["figures", "heading", "path", "citations", "span"])
def test_a_huge_integer_gives_json_s_row_or_refusal(member: str) -> None:
    placed = {"figures": [{"n": "@"}], "heading": "@", "path": ["a", "@"], "citations": [{"href": "#x", "text": "@"}],
              "span": {"end": "@", "start": 1}}[member]
    line = json.dumps({**_row(A, K1, "fr", "art_1"), member: placed}).replace('"@"', "123456789012345678901234567890")
    outcomes = []
    for read in (json.loads, loads_line):
        try:
            outcomes.append(repr(provision_row(read(line), 0, "w:1")))
        except IndexError_ as exc:
            outcomes.append(f"{exc.code} {exc.message}")
    assert outcomes[0] == outcomes[1]
