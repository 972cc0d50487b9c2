"""A Legilux code is an act, whatever its identifier: the Code de la Sécurité sociale (publisher type
``CODE_RECUEIL``, identified by its 1925 law ``loi-1925-12-17-n1``) ranks as a principal act, not as a
recueil (a thematic shelf of texts). On the real fixture corpus (``LEX_FIXTURES``)."""

from __future__ import annotations

from serve.core import LegalCore, ranking

LU = "lu-legilux"


def test_a_code_is_a_principal_act_and_a_recueil_a_compilation() -> None:
    assert ranking.role_of("loi-1925-12-17-n1", "CODE_RECUEIL", ["Code de la Sécurité sociale"]) == "principal"
    assert ranking.role_of("code-route", "CODE_RECUEIL", ["Code de la route"]) == "principal"
    assert ranking.role_of("recueil-logement", "RECUEIL", ["Logement"]) == "compilation"
    assert ranking.role_of("recueil-cultes", None, ["Cultes"]) == "compilation"


def test_the_code_named_by_its_title_comes_first(fixture_core: LegalCore) -> None:
    # before, the code counted as a recueil: its exact title was a soft mention of a compilation,
    # never boosted, and acts citing "code de la sécurité sociale" came first
    for query in ("Code de la sécurité sociale", "code de la securite sociale"):
        answer = fixture_core.call("search", {"query": query})
        section = next(s for s in answer["publishers"] if s["publisher"] == LU)
        assert section["hits"][0]["work"] == "lu-legilux:loi-1925-12-17-n1", query
