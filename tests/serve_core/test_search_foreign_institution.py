"""Issue #15, neg37: a state's word qualifying one of its own lawmaking bodies, its head of state or a
town's mayor (« Sénat belge », « Assemblée nationale française », « Bundesrat allemand »,
:data:`serve.core.jurisdiction.INSTITUTION_WORDS`) asks how that state is organised — its constitution or
statutes, which neither publisher holds — not the acts whose texts hold « élection », « membres » or
« indemnité »: every section answers no hits, typed ``foreign_law``, as for a state's act (test_search_foreign_law).
Not a state's courts or government, and never with Luxembourg, the EU or a treaty in the question. On the
real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

import pytest

from serve.core import LegalCore
from serve.core.jurisdiction import ForeignLaw, foreign_law


@pytest.mark.parametrize(("query", "shape"), [
    ("comment est élu le président du Sénat belge", ForeignLaw("belge", "senat")),
    ("indemnité des députés de l'Assemblée nationale française", ForeignLaw("francaise", "assemblee")),
    ("élection des membres du Bundesrat allemand", ForeignLaw("allemand", "bundesrat")),
    ("how is the Spanish parliament elected", ForeignLaw("spanish", "parliament")),
    ("Wahl zum österreichischen Nationalrat", ForeignLaw("osterreichischen", "nationalrat")),
])
def test_a_states_own_body_named_by_its_state(query: str, shape: ForeignLaw) -> None:
    assert foreign_law(query) == shape


@pytest.mark.parametrize("query", [
    "reconnaissance d'un jugement d'un tribunal allemand",  # a court: the EU's rules on recognising it
    "own funds treatment of exposures to the French government",  # a government: a party in EU rules
    "élection des membres de la Chambre des députés",  # Luxembourg's own parliament
    "accord entre le Parlement belge et le Luxembourg",  # Luxembourg and a treaty word
    "Parlement européen élection des membres",  # the EU's own body: no state word
])
def test_a_body_no_state_word_qualifies_or_the_corpus_own(query: str) -> None:
    assert foreign_law(query) is None


def test_another_states_parliament_answers_no_hits(fixture_core: LegalCore) -> None:
    query = "indemnité des députés de l'Assemblée nationale française"
    answer = fixture_core.call("search", {"query": query, "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "francaise", "act": "assemblee"}
    # the same words without the state's adjective are Luxembourg's deputies: the question is searched
    plain = fixture_core.call("search", {"query": "indemnité des députés", "limit": 10})
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "foreign_law" for s in plain["publishers"])
