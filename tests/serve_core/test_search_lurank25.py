"""Issue #15, twenty-fifth session (lurank25): two ranking rules for Legilux acts asked by their subject.

- A Legilux title subject's opening relation verb (« réglant », « fixant », « déterminant »,
  « établissant », « instituant » …, « ayant pour objet ») is not one of its subject words
  (:func:`serve.core.ranking.lu_subject_opening`): a question says the subject, never the verb, so the
  verb kept the act a question names by its whole subject from the exact-subject weight
  (« pensions des fonctionnaires de l'Etat » / « Loi du 26 mai 1954 réglant les pensions des
  fonctionnaires de l'Etat »).
- An amending law whose names hold more of the question than the act its provisions cite most keeps
  its place before that act (:func:`serve.core.ops.search.amending_law_titled_over`): « Loi du 20
  juillet 1992 portant modification du régime des brevets d'invention » before the 1977 law approving
  the European Patent Convention.

On the real fixture corpus (``LEX_FIXTURES``), with pure checks beside.
"""

from __future__ import annotations

import pytest

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.ops.search import (
    Filters,
    Hit,
    amending_law_titled_over,
    parents_first,
    works_subject_precision,
)

LU = "lu-legilux"
VACCINATIONS = "lu-legilux:rgd-2001-10-18-n3"  # … déterminant la liste des vaccinations recommandées
BOVINES = "lu-legilux:rgd-2018-05-30-a455"  # … établissant un système d'identification et d'enregistrement des bovins


def _rowid(core: LegalCore, work: str) -> int:
    return core.indexes[LU].catalogue.rowid_of[work.split(":", 1)[1]]


# -- the relation verb opening a Legilux title subject ---------------------------------------------


def test_the_opening_relation_verb_of_a_legilux_subject_is_counted_apart() -> None:
    assert ranking.lu_subject_opening(["reglant", "les", "pensions", "des", "fonctionnaires", "de", "l", "etat"]) == 1
    assert ranking.lu_subject_opening(["ayant", "pour", "objet", "la", "coordination", "des", "regimes"]) == 3
    assert ranking.lu_subject_opening(["sur", "la", "nationalite", "luxembourgeoise"]) == 0
    assert ranking.lu_subject_opening(["relative", "aux", "dechets"]) == 0  # a relation word already
    assert ranking.lu_subject_opening(["gant"]) == 0  # a short word ending in -ant is no participle
    assert ranking.lu_subject_opening([]) == 0


def test_subject_words_of_a_legilux_title_leave_out_its_relation_verb() -> None:
    title = "Loi du 26 mai 1954 réglant les pensions des fonctionnaires de l'Etat."
    assert ranking.subject_words([title], legilux=True) == frozenset({"pensions", "fonctionnaires", "etat"})
    # the verb is a subject word of a title read as another publisher's
    assert "reglant" in ranking.subject_words([title])
    objet = "Loi du 28 juillet 2000 ayant pour objet la coordination des régimes légaux de pension."
    assert ranking.subject_words([objet], legilux=True) == frozenset({"coordination", "regimes", "legaux", "pension"})


def test_a_question_saying_a_regulations_whole_subject_holds_all_its_subject_words(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[LU]
    works = [_rowid(fixture_core, VACCINATIONS), _rowid(fixture_core, BOVINES)]
    groups = [["liste"], ["vaccinations"], ["recommandees"]]
    with index.session(5.0) as conn:
        precision = works_subject_precision(conn, works, groups, index)
    assert precision[works[0]] == 1.0  # was 0.75: « déterminant » counted as a word the question lacks
    groups = [["identification"], ["enregistrement"], ["bovins"]]
    with index.session(5.0) as conn:
        precision = works_subject_precision(conn, works, groups, index)
    assert precision[works[1]] == 0.75  # « établissant » left out; « systeme » is a subject word the question lacks


def test_the_regulation_asked_by_its_whole_subject_comes_first_as_an_exact_title_match(
        fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "liste des vaccinations recommandées", "publisher": LU,
                                          "fuzzy": "off"})
    assert answer["merged"][0]["work"] == VACCINATIONS
    lu = next(s for s in answer["publishers"] if s["publisher"] == LU)
    assert lu["top_title_match"] == 1.0  # was 0.8571: three of its four subject words, « déterminant » the fourth


# -- an amending law titled by more of the question than the act it cites most ---------------------


def _profile(role: str, hierarchy: str) -> ranking.WorkProfile:
    return ranking.WorkProfile(status="in_force", role=role, hierarchy=hierarchy, title="")


def test_an_amending_law_titled_over_its_parent_keeps_its_place() -> None:
    patents = {1: 1 / 3, 2: 2 / 3}  # 1977 convention law: « brevet »; 1992 law: « brevets d'invention »
    assert amending_law_titled_over(_profile("amending", "law"), patents, parent=1, child=2)
    # the same titles on a règlement: the law it executes is its subject's principal act
    assert not amending_law_titled_over(_profile("principal", "regulation"), patents, parent=1, child=2)
    assert not amending_law_titled_over(_profile("amending", "regulation"), patents, parent=1, child=2)
    # a parent titled by as much of the question comes first as before
    assert not amending_law_titled_over(_profile("amending", "law"), {1: 1.0, 2: 1.0}, parent=1, child=2)
    assert not amending_law_titled_over(None, patents, parent=1, child=2)


def test_parents_first_leaves_an_amending_law_titled_over_its_parent_in_place(
        fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    # The fixture corpus holds no amending law citing its parent twice: the parent relation and the
    # child's profile are given, the names and their coverage are the fixture's own (the question's
    # words « liste vaccinations recommandées bovins »: the child's names hold three, the parent's one).
    index = fixture_core.indexes[LU]
    child, parent = _rowid(fixture_core, VACCINATIONS), _rowid(fixture_core, BOVINES)
    monkeypatch.setattr(ranking, "parent_act", lambda cited, profiles, work: parent if work == child else None)
    monkeypatch.setitem(search._PARENTS, index, {})
    groups = [["liste"], ["vaccinations"], ["recommandees"], ["bovins"]]
    hits = [Hit({"work_rowid": child, "anchor": "art_1"}, ["keyword"]),
            Hit({"work_rowid": parent, "anchor": "art_1"}, ["keyword"])]

    def order(role: str, hierarchy: str) -> list[int]:
        search._PARENTS[index].clear()
        profiles = {child: _profile(role, hierarchy), parent: _profile("principal", "law")}
        with index.session(5.0) as conn:
            return [h.row["work_rowid"] for h in parents_first(conn, index, hits, profiles, Filters(), groups, 10)]

    assert order("amending", "law") == [child, parent]
    assert order("principal", "regulation") == [parent, child]  # a règlement: the law it executes first
