"""Golden answers of every legal operation over the real fixtures (the regression net of
precomputation and serving changes: the answers must not move).

:func:`golden_calls` derives a fixed list of calls from the mounted indexes themselves (every
work's timeline, an ``as_of`` on each state's start, a ``diff`` between consecutive states and
from the first to the last, article histories, in-force dates, windows, coverage, citations,
provenance and a few searches). :func:`answer_digest` is the SHA-256 of an answer's canonical JSON
with the artifact identity set aside (the index format and digest may change; the answer may not).
Regenerate with ``python -m tests.serve_core.regen_golden`` after a deliberate change of answers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

from serve.core import LegalCore

GOLDEN_FILE = "answers.json"
DATES = ("1995-01-01", "2004-05-01", "2012-01-01", "2016-05-24", "2018-05-25", "2020-03-01", "2021-06-30",
         "2023-01-01", "2024-09-10", "2025-10-19", "2027-01-01")
WINDOWS = (("1990-01-01", "2030-12-31"), ("2016-01-01", "2018-12-31"), ("2020-01-01", "2020-12-31"),
           ("2023-01-01", "2025-12-31"), ("2024-09-10", "2024-09-10"))
SEARCHES = ("protection des données", "personal data", "Article 6 GDPR", "32013R0575", "capital requirements",
            "congé parental", "Datenschutz", "Art. 1er loi-2006-07-31-n2", "protecton donnes")


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "artifact"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def answer_digest(answer: Any) -> str:
    text = json.dumps(_strip(answer), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _work_plan(core: LegalCore) -> list[tuple[str, list[str], list[str]]]:
    """(work id, state starts in order, anchors of the last state with text) for every held work."""
    out = []
    for publisher in core.publishers:
        index = core.indexes[publisher]
        with index.session(60.0) as conn:
            works = conn.execute("SELECT work_rowid, work_id FROM works ORDER BY slug").fetchall()
            for rowid, work_id in works:
                starts = [r[0] for r in conn.execute(
                    "SELECT DISTINCT valid_from FROM versions WHERE work_rowid = ? AND withdrawn = 0 "
                    "ORDER BY valid_from", (rowid,))]
                anchors = [r[0] for r in conn.execute(
                    "SELECT p.anchor FROM provisions p JOIN expressions e USING (expression_rowid) "
                    "JOIN versions v USING (version_rowid) WHERE v.work_rowid = ? "
                    "ORDER BY v.valid_from DESC, e.language, p.seq LIMIT 3", (rowid,))]
                out.append((work_id, starts, anchors))
    return out


def _lex_ids(core: LegalCore) -> list[str]:
    out = []
    for publisher in core.publishers:
        with core.indexes[publisher].session(60.0) as conn:
            out += [r[0] for r in conn.execute(
                "SELECT lex_id FROM versions WHERE version_rowid IN "
                "(SELECT MAX(version_rowid) FROM versions GROUP BY work_rowid) ORDER BY lex_id")]
            out += [f"{r[0]}#{r[1]}" for r in conn.execute(
                "SELECT v.lex_id, MIN(p.anchor) FROM versions v JOIN expressions e USING (version_rowid) "
                "JOIN provisions p USING (expression_rowid) GROUP BY v.work_rowid ORDER BY v.lex_id LIMIT 40")]
    return out


def golden_calls(core: LegalCore, *, search: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """The calls of the golden file (``search=True``: the search calls only)."""
    if search:
        calls: list[tuple[str, dict[str, Any]]] = [("search", {"query": q}) for q in SEARCHES]
        calls += [("search", {"query": q, "time_scope": "as_of", "as_of": "2021-01-01", "limit": 20})
                  for q in SEARCHES[:3]]
        return calls
    calls = []
    for work, starts, anchors in _work_plan(core):
        calls.append(("timeline", {"work": work, "include_withdrawn": True}))
        calls.append(("cited_by", {"work": work}))
        for day in starts:
            calls.append(("as_of", {"work": work, "date": day}))
        if starts:
            calls.append(("as_of", {"work": work, "date": starts[-1], "mode": "outline"}))
        for a, b in itertools.pairwise(starts):
            calls.append(("diff", {"work": work, "from_date": a, "to_date": b}))
        if len(starts) > 2:
            calls.append(("diff", {"work": work, "from_date": starts[0], "to_date": starts[-1]}))
            calls.append(("diff", {"work": work, "from_date": starts[0], "to_date": starts[-1], "limit": 3}))
        for anchor in anchors:
            calls.append(("article_history", {"work": work, "anchor": anchor}))
            if len(starts) > 1:
                calls.append(("diff", {"work": work, "from_date": starts[0], "to_date": starts[-1], "anchor": anchor}))
    for day in DATES:
        calls.append(("in_force_on", {"date": day, "limit": 100}))
        calls.append(("in_force_on", {"date": day, "limit": 7, "offset": 3, "language": "fr"}))
    calls.append(("in_force_on", {"date": "2021-06-30", "document_type": "REG"}))
    for start, stop in WINDOWS:
        for order in ("by_date", "by_churn"):
            calls.append(("changes_in_period", {"from_date": start, "to_date": stop, "order": order, "limit": 100}))
        calls.append(("changes_in_period", {"from_date": start, "to_date": stop, "limit": 5, "offset": 2,
                                            "document_type": "LOI"}))
    calls += [("coverage", {}), ("coverage", {"publisher": "LU"}), ("coverage", {"publisher": "eu-eurlex"})]
    calls += [("provenance", {"lex_id": lex_id}) for lex_id in _lex_ids(core)]
    return calls


def key(name: str, args: dict[str, Any]) -> str:
    return name + " " + json.dumps(args, sort_keys=True, ensure_ascii=False)


def answers(core: LegalCore, *, search: bool = False) -> dict[str, str]:
    return {key(name, args): answer_digest(core.call(name, args)) for name, args in golden_calls(core, search=search)}
