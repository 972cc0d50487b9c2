"""The empty-provision ratchet (reference model §6.7): a work whose empty-provision signature
counts grow past the accepted baseline is refused."""

from __future__ import annotations

import json

from cli.main import main
from derive.ratchet import MESSAGE, check_ratchet, empty_signature_counts, refused_works, signature
from legal.canonical import canonical_bytes
from tests.derive.conftest import read_jsonl


def test_counts_of_the_fixture_dataset(lu_dataset, eu_dataset):
    out, report = lu_dataset
    counts = empty_signature_counts(out)
    assert sum(n for work in counts.values() for n in work.values()) == report.empty_provisions == 69
    rows = read_jsonl(out / "provisions.jsonl")
    assert set(counts) == {r["work_id"] for r in rows}  # every work with a row has a baseline…
    assert any(work == {} for work in counts.values())  # …a zero one when it has no empty provision
    valid_from, language, kind, _num, _heading, path = json.loads(next(iter(next(w for w in counts.values() if w))))
    assert len(valid_from) == 10 and language in {"fr", "de", "lb"} and kind in {"article", "annex"}
    assert isinstance(path, list)
    eu = empty_signature_counts(eu_dataset[0])
    assert check_ratchet(counts, counts) == [] and check_ratchet(eu, eu) == []


def _row(anchor: str, text: str = "  ", num: str = "Art. 3", **extra) -> dict:
    return {"work_id": "lu-legilux:w", "valid_from": "2020-01-01", "language": "fr", "type": "article",
            "num": num, "heading": None, "path": ["Chapitre 1"], "anchor": anchor, "text_md": text, **extra}


def _dataset(tmp_path, name, rows):
    out = tmp_path / name
    out.mkdir()
    (out / "provisions.jsonl").write_bytes(b"".join(canonical_bytes(r) + b"\n" for r in rows))
    return out


def test_growth_is_refused_and_anchor_re_mints_are_not(tmp_path):
    before = empty_signature_counts(_dataset(tmp_path, "before", [_row("art_3"), _row("art_4", "text")]))
    remint = empty_signature_counts(_dataset(tmp_path, "remint", [_row("art_3bis"), _row("art_4", "text")]))
    assert remint == before and check_ratchet(before, remint) == []
    grown = empty_signature_counts(_dataset(tmp_path, "grown", [_row("art_3"), _row("art_4", "\u00a0\n")]))
    (problem,) = check_ratchet(before, grown)
    assert problem.work_id == "lu-legilux:w" and (problem.previous, problem.current) == (1, 2)
    assert problem.signature == signature(_row("art_3")) == '["2020-01-01","fr","article","Art. 3",null,["Chapitre 1"]]'
    assert problem.to_dict()["message"] == MESSAGE and MESSAGE in str(problem)
    assert refused_works([problem]) == ["lu-legilux:w"]
    shrunk = empty_signature_counts(_dataset(tmp_path, "shrunk", [_row("art_3", "text")]))
    assert check_ratchet(before, shrunk) == []


def test_no_baseline_accepts_and_a_zero_baseline_refuses(tmp_path):
    current = {"lu-legilux:new": {'["2020-01-01","fr","article","1",null,[]]': 3}}
    assert check_ratchet({}, current) == []  # no prior output: accepted as it is
    (problem,) = check_ratchet({"lu-legilux:new": {}}, current)  # prior output without empties
    assert (problem.previous, problem.current) == (0, 3)


def test_ratchet_command_exit_4(tmp_path, lu_dataset, capsys):
    base = lu_dataset[0]
    assert main(["derive", "ratchet", str(base), str(base)]) == 0
    assert "0 work(s) refused" in capsys.readouterr().out
    grown = tmp_path / "grown"
    grown.mkdir()  # the ratchet reads provisions.jsonl only
    rows = read_jsonl(base / "provisions.jsonl")
    victim = next(r for r in rows if r["text_md"].strip())
    rows.append({**victim, "anchor": victim["anchor"] + "_x", "text_md": ""})
    (grown / "provisions.jsonl").write_bytes(b"".join(canonical_bytes(r) + b"\n" for r in rows))
    assert main(["derive", "ratchet", str(base), str(grown)]) == 4
    captured = capsys.readouterr()
    assert f"refused: {victim['work_id']}: {MESSAGE}" in captured.err and "1 work(s) refused" in captured.out


def _parsed_counts(out) -> dict:
    """The counts with every line parsed (what the byte shortcut must equal)."""
    from collections import Counter

    from derive.ratchet import is_empty

    counts: dict = {}
    for row in read_jsonl(out / "provisions.jsonl"):
        work = counts.setdefault(row["work_id"], Counter())
        if is_empty(row):
            work[signature(row)] += 1
    return {w: dict(sorted(c.items())) for w, c in sorted(counts.items())}


def test_lines_read_as_bytes_count_as_parsed_ones(tmp_path, lu_dataset, eu_dataset):
    """Only lines whose text may be whitespace are parsed; the counts are those of parsing them all,
    on the fixture datasets and on texts that start with whitespace of every kind."""
    for out in (lu_dataset[0], eu_dataset[0]):
        assert empty_signature_counts(out) == _parsed_counts(out)
    texts = ["", " ", "\n\t ", "\u00a0", "\u2003 ", " a", "\u00a0b", "x", '"quoted"', "\\back", "é",
             'a "work_id":"lu-legilux:other" b']
    rows = [_row(f"art_{i}", text, num=f"Art. {i}") for i, text in enumerate(texts)]
    rows.append({**_row("art_x", "texte"), "work_id": "lu-legilux:w2"})
    out = _dataset(tmp_path, "mixed", rows)
    counts = empty_signature_counts(out)
    assert counts == _parsed_counts(out)
    assert sum(counts["lu-legilux:w"].values()) == 5 and counts["lu-legilux:w2"] == {}
