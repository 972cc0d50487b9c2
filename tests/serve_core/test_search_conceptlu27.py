"""Issue #15, twenty-seventh session (conceptlu27): a Legilux code as the principal treatment of a
question whose words no provision holds all together — measured and not adopted, off the default path
(:data:`serve.core.ops.search.QUORUM_BREADTH` is ``False``; ADR 0067): the mechanism is tested here.

A code's title names none of its subjects, and its long provisions score low by BM25; a question in a
lawyer's or everyday words is held whole by no provision, or by a few off its subject. The code holding
a majority of the question's words (and :data:`serve.core.ops.search.IDF_QUORUM` of their IDF mass) in
the most provisions — :data:`serve.core.ops.search.BREADTH_MIN` at least, and
:data:`serve.core.ops.search.CODE_DOMINANCE` times those of every other principal act — is weighed as
if its names held the words (:func:`serve.core.ops.search.quorum_breadth`,
:func:`serve.core.ops.search.dominant_code`; ADR 0067).

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

import pytest

from derive.index import relax
from derive.index.text import fts_query
from serve.core import LegalCore, ranking, reorder
from serve.core.ops import search
from serve.core.ops.search import dominant_code, idf_weights, quorum_breadth

LU = "lu-legilux"
CONSUMPTION = "lu-legilux:loi-2011-04-08-n2"  # Code de la consommation (document type CODE)
MUTUAL_ASSISTANCE = "lu-legilux:loi-2000-08-08-n4"  # Loi du 8 août 2000 sur l'entraide judiciaire internationale
PRECONTRACTUAL = [["information", "informations"], ["precontractuelle", "precontractuelles"],
                  ["obligation", "obligations"], ["professionnel", "professionnels"], ["delai"]]


def _rowid(core: LegalCore, work: str) -> int:
    return core.indexes[LU].catalogue.rowid_of[work.split(":", 1)[1]]


def _recount(conn: object, groups: list[list[str]]) -> dict[int, int]:
    """Per work, its distinct anchors whose states hold a majority of ``groups`` and IDF_QUORUM of
    their IDF mass, read group by group (no pivot, no limit): the reference for :func:`quorum_breadth`."""
    weights = idf_weights(conn, groups)  # type: ignore[arg-type]
    held: dict[int, float] = {}
    count: dict[int, int] = {}
    for group, weight in zip(groups, weights, strict=True):
        for (rowid,) in conn.execute("SELECT rowid FROM provision_fts WHERE provision_fts MATCH ?",  # type: ignore[attr-defined]
                                     (fts_query([group]),)):
            held[rowid] = held.get(rowid, 0.0) + weight
            count[rowid] = count.get(rowid, 0) + 1
    threshold = round(search.IDF_QUORUM * sum(weights), 6)
    states = [r for r in held if count[r] >= relax.quorum(len(groups)) and held[r] >= threshold]
    anchors: dict[int, set[str]] = {}
    for rowid in states:
        work, anchor = conn.execute("SELECT work_rowid, anchor FROM lexical_states WHERE state_rowid = ?",  # type: ignore[attr-defined]
                                    (rowid,)).fetchone()
        anchors.setdefault(int(work), set()).add(anchor)
    return {w: len(a) for w, a in anchors.items()}


def test_quorum_breadth_counts_the_provisions_holding_a_majority_of_the_words(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[LU]
    with index.session(5.0) as conn:
        counted = quorum_breadth(conn, PRECONTRACTUAL, index)
        assert counted == _recount(conn, PRECONTRACTUAL)
        # all five words together: two provisions of the code; a majority of them: twenty-one
        assert search.work_breadth(conn, str(fts_query(PRECONTRACTUAL)), index) == {
            _rowid(fixture_core, CONSUMPTION): 2}
    assert counted[_rowid(fixture_core, CONSUMPTION)] == 21
    # fewer than three words: a majority is every word, the all-words breadth's case
    with index.session(5.0) as conn:
        assert quorum_breadth(conn, PRECONTRACTUAL[:2], index) == {}


def test_only_a_code_is_the_principal_treatment_of_a_majority_of_words(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[LU]
    with index.session(5.0) as conn:
        profiles = ranking.profiles(conn, index)
    code, law = _rowid(fixture_core, CONSUMPTION), _rowid(fixture_core, MUTUAL_ASSISTANCE)
    assert profiles[code].code and not profiles[law].code
    assert dominant_code({code: 21, law: 3}, profiles) == code
    assert dominant_code({code: 6, law: 6}, profiles) is None  # no more than the other act
    assert dominant_code({code: 4, law: 1}, profiles) is None  # fewer than BREADTH_MIN
    # a law holding the majority in the most provisions is not weighed as named: its title names its subject
    assert search.dominant_work({code: 3, law: 21}, profiles) == law
    assert dominant_code({code: 3, law: 21}, profiles) is None


def test_the_rule_is_off_the_default_path() -> None:
    assert search.QUORUM_BREADTH is False


def test_the_code_holding_the_majority_comes_before_a_law_holding_it_once(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # the fixture corpus is a sample: the code holds the majority of « délai de prescription de
    # l'action en justice » in three provisions (the full corpus's codes hold far more), the law on
    # international judicial assistance in one, and no provision holds all four words but one of the code
    monkeypatch.setattr(search, "BREADTH_MIN", 3)
    monkeypatch.setattr(search, "QUORUM_BREADTH", True)
    # the hand-set order this rule makes (the learnt reordering, ADR 0135, may move these first works)
    monkeypatch.setattr(reorder, "REORDER", False)
    query = {"query": "délai de prescription de l'action en justice", "publisher": LU, "fuzzy": "off"}
    first = [h["work"] for h in fixture_core.call("search", query)["merged"][:2]]
    assert first == [CONSUMPTION, MUTUAL_ASSISTANCE]
    monkeypatch.setattr(search, "QUORUM_BREADTH", False)
    # the code one of whose provisions holds the four words goes first by the code rule too (ADR 0188): off here
    monkeypatch.setattr(search, "CODE_BODY", False)
    first = [h["work"] for h in fixture_core.call("search", query)["merged"][:2]]
    assert first == [MUTUAL_ASSISTANCE, CONSUMPTION]
