"""Issue #15, tenth pass (Legilux): a dated question the date emptied, relaxed inside the works whose
other states hold every word; a work found by its names alone (its text not held) weighed among the
weaker provisions beside it; a section whose provisions hold every word by chance (no name of their
works holds any) neither keeps another publisher from relaxing nor routes out its titled answer.
On the real fixture corpus (``LEX_FIXTURES``) except the routing rule (section answers, pure)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from serve.core import LegalCore
from serve.core.ops.search import _relax_beside_untitled, route_sections, titled_over

LU = "lu-legilux"
VACCINATIONS = "lu-legilux:rgd-2001-10-18-n3"  # règlement grand-ducal: liste des vaccinations recommandées


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_a_dated_question_is_relaxed_inside_the_works_another_state_of_which_holds_every_word(
        fixture_core: LegalCore) -> None:
    # "zona" enters the list of recommended vaccinations on 2022-11-29: on 2010-01-01 no state
    # holds all four words, the date (not the words) emptied the answer; the règlement's state of
    # that day answers with three of them, and never a state that does not cover the day
    query = "vaccinations recommandées grippe zona"
    answer = fixture_core.call("search", {"query": query, "as_of": "2010-01-01", "fuzzy": "off"})
    lu = _section(answer, LU)
    assert [h["work"] for h in lu["hits"]] == [VACCINATIONS]
    hit = lu["hits"][0]
    assert hit["match_reasons"] == ["any_term"]
    assert hit["valid_from"] <= "2010-01-01" and (hit["valid_to"] is None or hit["valid_to"] >= "2010-01-01")
    assert lu["query_relaxed"]["within"] == "dated_works" and lu["relaxation_withheld"] is None
    # strict, the date still empties it; before the règlement existed, nothing answers for that day
    strict = fixture_core.call("search", {"query": query, "as_of": "2010-01-01", "fuzzy": "off", "relax": "off"})
    assert strict["outcome"] == "empty"
    before = _section(fixture_core.call("search", {"query": query, "as_of": "2000-01-01", "fuzzy": "off"}), LU)
    assert before["hits"] == [] and before["relaxation_withheld"] == {"reason": "filters",
                                                                      "filters": {"as_of": "2000-01-01"}}


def test_a_work_found_by_its_names_alone_is_weighed_among_the_weaker_provisions(fixture_core: LegalCore) -> None:
    # the Code de la sécurité sociale's text is not in the fixture corpus; its title holds two of the
    # three words. Its row weighs the best relevance of the provisions holding two of them (in acts
    # no name of which holds any) times its own title factor, and competes with the provisions
    # holding every word at PARTIAL_WEIGHT, as those provisions do: it is no longer put after all of
    # them with relevance 1, and it ranks before every provision holding only two of the words
    answer = fixture_core.call("search", {"query": "sécurité sociale cotisations", "publisher": LU, "fuzzy": "off"})
    hits = _section(answer, LU)["hits"]
    reasons = [h["match_reasons"] for h in hits]
    code = next(k for k, h in enumerate(hits) if h["work"] == "lu-legilux:loi-1925-12-17-n1")
    assert reasons[code] == ["title_words"] and hits[code]["anchor"] is None
    assert code < len(hits) - 1 and ["keyword"] in reasons[code + 1:]
    partial = [k for k, r in enumerate(reasons) if "partial_terms" in r]
    assert partial and code < min(partial)


def _answered(publisher: str, reason: str, cover: float | None) -> dict[str, Any]:
    return {"publisher": publisher, "outcome": "succeeded", "title_coverage": cover,
            "hits": [{"work": f"{publisher}:w", "anchor": "art_1", "match_reasons": [reason]}]}


def test_a_titled_weaker_section_is_not_routed_out_by_provisions_holding_the_words_by_chance() -> None:
    # one EU provision holds every word of "bail à ferme et bail d'habitation : quelles différences",
    # in an act no name of which holds any of them; the two Luxembourg laws are titled by the words
    eu, lu = _answered("eu-eurlex", "keyword", 0.0), _answered(LU, "relaxed", 0.6667)
    assert titled_over(lu, [eu])
    sections = [eu, lu]
    route_sections(sections)
    assert eu["hits"] == [] and eu["routed"]["reason"] == "another publisher's works are titled by the query"
    assert lu["hits"] and "routed" not in lu
    # a direct section titled by the words keeps routing the weaker one out, as before
    eu, lu = _answered("eu-eurlex", "keyword", 0.3333), _answered(LU, "relaxed", 0.6667)
    assert not titled_over(lu, [eu])
    route_sections([eu, lu])
    assert lu["hits"] == [] and eu["hits"]


def test_a_section_is_relaxed_on_its_own_when_the_answered_ones_are_untitled() -> None:
    empty = {"publisher": LU, "outcome": "empty", "hits": [], "title_coverage": None}
    relaxed = _answered(LU, "relaxed", 0.6667)
    seen: list[str] = []

    def again(index: Any) -> dict[str, Any]:
        seen.append(index.publisher.value)
        return relaxed

    indexes = [SimpleNamespace(publisher=SimpleNamespace(value=p)) for p in ("eu-eurlex", LU)]
    words = ["bail", "ferme", "bail", "d", "habitation", "differences"]
    plans = {p: SimpleNamespace(terms=words) for p in ("eu-eurlex", LU)}
    untitled = [_answered("eu-eurlex", "keyword", 0.0), empty]
    assert _relax_beside_untitled(untitled, indexes, plans, again) == [untitled[0], relaxed]  # type: ignore[arg-type]
    assert seen == [LU]
    titled = [_answered("eu-eurlex", "keyword", 0.3333), empty]
    assert _relax_beside_untitled(titled, indexes, plans, again) == titled  # type: ignore[arg-type]
    # two content words have no weaker form: nothing is searched again
    plans = {p: SimpleNamespace(terms=["bail", "ferme"]) for p in ("eu-eurlex", LU)}
    assert _relax_beside_untitled(untitled, indexes, plans, again) == untitled  # type: ignore[arg-type]
    assert seen == [LU]
