"""Issue #15, neg52 (ADR 0183): a kind of body Luxembourg cannot have — a federation's, a navy, a coast guard — asked
about as Luxembourg's answers nothing, typed ``foreign_law`` (:func:`serve.core.jurisdiction.missing_own_kind`, pure;
read by :func:`serve.core.jurisdiction.foreign_law`); a question naming another state beside it is left alone. On the
real fixture corpus (``LEX_FIXTURES``) for the answer."""

from __future__ import annotations

import pytest

from derive.index.text import normalize
from serve.core import LegalCore, jurisdiction
from serve.core.jurisdiction import ForeignLaw, foreign_law, missing_own_kind


@pytest.mark.parametrize(("query", "kind"), [
    ("Luxembourg Federal Constitutional Court powers", "federal"),
    ("Cour fédérale du Luxembourg compétences", "federale"),
    ("föderale Behörde Luxemburg", "foderale"),
    ("Luxembourg Navy ships", "navy"),
    ("Luxembourg Coast Guard rescue duties", "coast guard"),
    ("garde côtière luxembourgeoise", "garde cotiere"),
    ("Luxemburger Küstenwache Befugnisse", "kustenwache"),
    ("Luxembourg Bundesverfassungsgericht", "bundesverfassungsgericht"),
])
def test_a_kind_of_body_luxembourg_has_not(query: str, kind: str) -> None:
    assert missing_own_kind(normalize(query).split()) == ForeignLaw("luxembourg", kind)
    assert foreign_law(query) == ForeignLaw("luxembourg", kind)


@pytest.mark.parametrize("query", [
    "Luxembourg relations with the Federal Republic of Germany",  # another state named
    "Abkommen zwischen Luxemburg und der Bundesrepublik Deutschland",
    "Swiss Federal Act on Data Protection",  # no Luxembourg word
    "arrêté royal grand-ducal de 1865",  # the King-Grand Dukes' acts
    "marine marchande luxembourgeoise",  # its merchant navy is held
    "Luxembourg Chamber of Deputies election",
])
def test_other_questions_are_not_read(query: str) -> None:
    assert missing_own_kind(normalize(query).split()) is None


def test_the_switch_off() -> None:
    jurisdiction.MISSING_OWN_KINDS = False
    try:
        assert missing_own_kind(normalize("Luxembourg Navy ships").split()) is None
    finally:
        jurisdiction.MISSING_OWN_KINDS = True


def test_a_federal_court_of_luxembourg_answers_no_hits(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "Luxembourg Federal Constitutional Court powers", "limit": 10})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "foreign_law", "state": "luxembourg", "act": "federal"}
