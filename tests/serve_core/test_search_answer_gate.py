"""Issue #15, gate32: the learnt answer-or-nothing decision over a whole answer (ADR 0087), off by default.

- The fallback (:func:`serve.core.ops.search.unguarded`) lifts every no-hit guard: a name no held act
  bears, a word no text holds withholding the relaxation, an off-subject any-word relaxation.
- The gate (``LEX_ANSWER_GATE``): ``off`` answers main's answer and computes nothing; ``fallback``
  answers the fallback where main answered nothing; ``on`` answers that or nothing as the committed
  logistic model (:data:`serve.core.ops.answer_gate.COEFFICIENTS`) decides.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore
from serve.core.ops import answer_gate, search
from serve.core.ops.search import Filters

EU, LU = "eu-eurlex", "lu-legilux"
#: A popular name of a series act the fixture does not hold ("Processing" is in the GDPR's names):
#: main answers nothing (``name_not_held``, nohit28); its words are held.
NOT_HELD = "Processing II Regulation"


def _hits(answer: dict[str, Any]) -> int:
    return sum(len(s.get("hits") or []) for s in answer["publishers"])


def _model(threshold: float, **weights: float) -> dict[str, Any]:
    return {"features": list(answer_gate.FEATURES), "weights": [weights.get(n, 0.0) for n in answer_gate.FEATURES],
            "intercept": 0.0, "threshold": threshold}


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Any:
    def setting(value: str, model: dict[str, Any] | None = None) -> None:
        monkeypatch.setenv(answer_gate.GATE_ENV, value)
        if model is not None:
            monkeypatch.setattr(answer_gate, "coefficients", lambda: model)
    return setting


def test_a_name_no_act_bears_answers_nothing_with_the_gate_off(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": NOT_HELD})
    assert _hits(answer) == 0
    assert {s["relaxation_withheld"]["reason"] for s in answer["publishers"]} == {"name_not_held"}


def test_the_fallback_answers_what_the_guard_withheld(fixture_core: LegalCore, gate: Any) -> None:
    gate("fallback")
    answer = fixture_core.call("search", {"query": NOT_HELD})
    assert _hits(answer) > 0
    assert all((s.get("relaxation_withheld") or {}).get("reason") != "name_not_held" for s in answer["publishers"])


def test_the_fallback_relaxes_beside_a_word_no_text_holds(fixture_core: LegalCore) -> None:
    terms = ["processing", "licornes"]
    with fixture_core.indexes[EU].session(5.0) as conn:
        groups = [[t] for t in terms]
        assert search.relaxation_withheld(conn, terms, groups, Filters()) == {"reason": "unknown_terms",
                                                                             "terms": ["licornes"]}
        with search.unguarded():
            assert search.relaxation_withheld(conn, terms, groups, Filters()) is None


def test_the_gate_off_never_searches_the_fallback(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> Any:
        raise AssertionError("fallback searched")
    monkeypatch.setattr(search, "_unguarded_run", fail)
    monkeypatch.delenv(answer_gate.GATE_ENV, raising=False)
    assert _hits(fixture_core.call("search", {"query": NOT_HELD})) == 0


def test_the_fallback_is_searched_only_when_main_answers_nothing(fixture_core: LegalCore, gate: Any,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any) -> Any:
        raise AssertionError("fallback searched")
    monkeypatch.setattr(search, "_unguarded_run", fail)
    gate("on", _model(0.5, main_answered=5.0))
    assert _hits(fixture_core.call("search", {"query": "personal data processing"})) > 0


def test_the_decision_answers_the_fallback_when_the_model_says_so(fixture_core: LegalCore, gate: Any) -> None:
    gate("on", _model(0.5, plan_guard=5.0))  # a guard fired: answer (p = 0.99)
    assert _hits(fixture_core.call("search", {"query": NOT_HELD})) > 0


def test_the_decision_answers_nothing_when_the_model_says_so(fixture_core: LegalCore, gate: Any) -> None:
    gate("on", _model(0.5, plan_guard=-5.0))  # a guard fired: nothing (p = 0.01)
    answer = fixture_core.call("search", {"query": NOT_HELD})
    assert _hits(answer) == 0
    assert answer["merged"] == []
    assert {s["relaxation_withheld"]["reason"] for s in answer["publishers"]} == {"name_not_held"}  # main's


def test_the_decision_may_empty_main_s_answer(fixture_core: LegalCore, gate: Any) -> None:
    assert _hits(fixture_core.call("search", {"query": "personal data processing"})) > 0
    gate("on", _model(0.5, main_answered=-5.0))
    answer = fixture_core.call("search", {"query": "personal data processing"})
    assert _hits(answer) == 0 and answer["merged"] == []
    assert {(s.get("relaxation_withheld") or {}).get("reason") for s in answer["publishers"]} >= {"answer_gate"}


def test_a_model_deciding_only_empty_answers_keeps_main_s(fixture_core: LegalCore, gate: Any) -> None:
    gate("on", {**_model(0.5, main_answered=-5.0), "only_empty": True})
    assert _hits(fixture_core.call("search", {"query": "personal data processing"})) > 0


def test_the_features_of_a_guarded_question(fixture_core: LegalCore) -> None:
    main = fixture_core.call("search", {"query": NOT_HELD})
    with search.unguarded():
        fallback = fixture_core.call("search", {"query": NOT_HELD})
    ctx_docs = {i: fixture_core.indexes[i] for i in (EU, LU)}

    def docs(publisher: str, words: Any) -> tuple[dict[str, int], int]:
        return answer_gate.vocabulary_docs(ctx_docs[publisher], words, 5.0), \
            ctx_docs[publisher].memo("answer_gate_documents", answer_gate.documents)
    values = answer_gate.features(main, fallback, docs)
    assert set(values) == set(answer_gate.FEATURES)
    assert values["main_answered"] == 0.0 and values["fallback_answered"] == 1.0
    assert values["plan_guard"] == 1.0 and values["unknown_terms"] == 0.0
    assert 0.0 < values["held_share"] <= 1.0
    assert all(0.0 <= v <= 1.0 for v in values.values())


def test_no_hit_to_give_is_never_answered() -> None:
    values = dict.fromkeys(answer_gate.FEATURES, 1.0) | {"fallback_answered": 0.0}
    assert not answer_gate.decide(values, _model(0.0))
    assert answer_gate.decide(values | {"fallback_answered": 1.0}, _model(0.0))


def test_the_committed_model_names_the_features_in_order() -> None:
    model = answer_gate.coefficients()
    assert model["features"] == list(answer_gate.FEATURES)
    assert len(model["weights"]) == len(answer_gate.FEATURES)
    assert 0.0 <= float(model["threshold"]) <= 1.0


def test_an_unknown_setting_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(answer_gate.GATE_ENV, "yes")
    assert answer_gate.mode() == "off"
    monkeypatch.setenv(answer_gate.GATE_ENV, " On ")
    assert answer_gate.mode() == "on"


def test_the_fallback_keeps_an_off_subject_relaxation(fixture_core: LegalCore) -> None:
    def relaxed() -> tuple[search.Lexical, list[search.Hit]]:
        out = search.Lexical([], relaxed={"reason": "any_term"})
        return out, [search.Hit({"work_rowid": 1}, ["any_term"], {})]
    out, hits = relaxed()
    search._keep_on_subject(out, hits, {1: 0.0})  # no name of work 1 holds a subject word
    assert hits == [] and (out.relaxation_withheld or {}).get("reason") == "off_subject"
    out, hits = relaxed()
    with search.unguarded():
        search._keep_on_subject(out, hits, {1: 0.0})
    assert len(hits) == 1 and out.relaxation_withheld is None


def test_the_fallback_lifts_the_act_number_no_act_bears(fixture_core: LegalCore) -> None:
    query = "personal data consent Regulation (EU) 2031/4444"
    main = fixture_core.call("search", {"query": query, "publisher": EU})
    assert main["publishers"][0]["relaxation_withheld"] == {"reason": "unresolved_act_number"}
    with search.unguarded():
        fallback = fixture_core.call("search", {"query": query, "publisher": EU})
    assert fallback["publishers"][0]["relaxation_withheld"] is None


def test_the_gate_is_read_only_when_set(fixture_core: LegalCore, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any, **__: Any) -> Any:
        raise AssertionError("gate computed")
    monkeypatch.setattr(answer_gate, "gated", fail)
    monkeypatch.delenv(answer_gate.GATE_ENV, raising=False)
    assert _hits(fixture_core.call("search", {"query": "personal data processing"})) > 0
