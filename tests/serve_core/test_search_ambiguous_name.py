"""Issue #15, eighth pass: a name several acts bear (no one of them the single principal act in
force, so it constrains nothing: :mod:`serve.core.searchplan`) answers those acts when the query's
words found nothing, instead of no hits ("CRD", "IMI Regulation", "CPOS" answered nothing):
:func:`serve.core.ops.search.ambiguous_rows`. The acts in force repealing one of them first, then
the acts whose titles cite none of the others, newest first, then those citing another (an act
amending the named act bears its name from its title). On the real fixture corpus
(``LEX_FIXTURES``): the fixtures hold no such name, so the mention is built by hand over two held acts.
"""

from __future__ import annotations

from serve.core import LegalCore, ranking
from serve.core.ops import search
from serve.core.searchplan import Mention, Plan

EU = "eu-eurlex"
CRR, CITING = "32013r0575", "32015r0233"


def test_the_acts_a_name_bears_answer_the_act_cited_by_the_others_first(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    rowid = index.catalogue.rowid_of
    plan = Plan(terms=["xname"], article_key=None, anchor=None, constraints=[], explicit_works=False,
                mentions=[Mention("xname", "ambiguous", "exact_alias", [rowid[CITING], rowid[CRR]])])
    with index.session(60.0) as conn:
        hits = search.ambiguous_rows(conn, index, plan, search.Filters(), ranking.profiles(conn, index))
    slugs = [index.catalogue.slug_of[h.row["work_rowid"]] for h in hits]
    assert slugs == [CRR, CITING]  # the newer act's title cites Regulation (EU) No 575/2013
    assert all(h.reasons == ["ambiguous_name"] and h.extra["ambiguous_name"] == "xname" for h in hits)


def test_a_work_an_ambiguous_name_names_is_a_direct_answer() -> None:
    assert search._direct({"hits": [{"match_reasons": ["ambiguous_name"]}]})
    assert not search._direct({"hits": [{"match_reasons": ["work_metadata"]}]})
