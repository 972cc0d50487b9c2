"""Issue #15, fourth pass: the sections of a fan-out search answer come in order of evidence — the
publisher whose first work's title the query holds most, then whose first hit scores higher — and
the merged list is led by the first section's head. On the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import copy
from typing import Any

from serve.core import LegalCore
from serve.core.ops import search as search_op

EU, LU = "eu-eurlex", "lu-legilux"


def _search(core: LegalCore, query: str) -> dict[str, Any]:
    return dict(core.call("search", {"query": query, "fuzzy": "off"}))


def test_a_french_question_on_a_luxembourg_code_is_answered_first_by_legilux(fixture_core: LegalCore) -> None:
    # both publishers hold the words; neither first work's title is about them, so the first hits'
    # scores decide: the Code de la consommation scores higher than EUR-Lex's package-travel directive
    answer = _search(fixture_core, "protection des consommateurs")
    order = [s["publisher"] for s in answer["publishers"]]
    assert order == [LU, EU]
    lu, eu = answer["publishers"]
    assert lu["hits"][0]["work"] == "lu-legilux:loi-2011-04-08-n2" and eu["hits"]
    assert lu["hits"][0]["score"] > eu["hits"][0]["score"]
    assert lu["top_title_match"] == eu["top_title_match"]
    assert answer["merged"][0]["publisher"] == LU and answer["merged"][0]["publisher_rank"] == 1


def test_the_stronger_eu_hit_keeps_eur_lex_first(fixture_core: LegalCore) -> None:
    answer = _search(fixture_core, "voyages à forfait protection contre l'insolvabilité")
    assert [s["publisher"] for s in answer["publishers"]] == [EU, LU]
    assert answer["publishers"][0]["hits"][0]["work"] == "eu-eurlex:32015l2302"
    assert answer["merged"][0]["work"] == "eu-eurlex:32015l2302"


def test_title_match_outweighs_the_score(fixture_core: LegalCore) -> None:
    # the fixture corpus holds no French EU title a contested question quotes: the real sections of
    # a real answer stand in, with the weaker-scored section's first work made the one titled by it
    sections = copy.deepcopy(_search(fixture_core, "protection des consommateurs")["publishers"])
    lu, eu = sections
    assert search_op.order_sections([eu, lu]) == [lu, eu]
    eu["top_title_match"] = 1.0
    assert search_op.order_sections([lu, eu]) == [eu, lu]
    # a section without hits comes last, whatever its evidence
    emptied = {**eu, "hits": []}
    assert search_op.order_sections([emptied, lu]) == [lu, emptied]



def test_a_title_cut_short_by_the_metadata_is_no_subject(fixture_core: LegalCore) -> None:
    import sqlite3

    from serve.core import ranking

    db = sqlite3.connect(fixture_core._indexes[EU].path)
    titles = [str(r[0]) for r in db.execute(
        "SELECT value FROM work_names n JOIN works w USING (work_rowid) WHERE w.slug = '32003r2273' "
        "AND kind = 'official_title'")]
    cut = [t for t in titles if ranking.truncated(t)]
    assert cut and all(t.endswith("…") for t in cut)  # the real metadata's French title, cut short
    # the shortest subject was the cut one ("modalités d'appli…"); the whole titles' is the act's
    assert ranking.subject_words(titles) == {"back", "buy", "exemptions", "financial", "instruments", "programmes",
                                             "regards", "stabilisation"}
    assert ranking.subject_words(cut) == frozenset()
