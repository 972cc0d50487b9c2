"""The argument gate, subject binding, freeze and value-copy, declared effects, date provenance."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from assistant.arguments import PlanViolation, normalize_arguments
from assistant.catalog import planner_tool_schema
from assistant.plan import OperationPlan, RequestedOperation, UndeclaredEffectError
from assistant.planning import PlannerRequest, gate_plan
from assistant.provenance import NeedsClarification, attest, reading_for
from assistant.subjects import SubjectAuthority, SubjectMember
from assistant.vocab import Effect
from tests.assistant.fakes import catalog

CATALOG = catalog()
TODAY = dt.date(2026, 3, 1)
GDPR = SubjectAuthority((SubjectMember("eu-eurlex:32016r0679", "GDPR", ("gdpr",), "short_title"),),
                        article_number="6")


def gate(tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    return normalize_arguments(CATALOG, tool, args, TODAY)


def test_repairs_are_recorded_without_values() -> None:
    args, repairs = gate("as_of", {"work": "eu-eurlex:32016r0679", "as_of": "2020-01-01", "bogus": "x",
                                   "mode": "select"})
    assert args == {"work": "eu-eurlex:32016r0679", "date": "2020-01-01", "mode": "full"}
    assert repairs == ["as_of.date aliased", "as_of.unrecognized dropped", "as_of.mode widened"]
    args, repairs = gate("timeline", {"work": "w:x", "limit": "5", "offset": 10**9})
    assert args["limit"] == 5 and args["offset"] == 0
    assert repairs == ["timeline.limit coerced", "timeline.offset dropped"]
    args, repairs = gate("search", {"query": "consent", "retrieval_mode": "semantic"})
    assert args["retrieval_mode"] == "keyword" and repairs == ["search.retrieval_mode dropped"]


def test_defaulted_instant_is_recorded() -> None:
    args, repairs = gate("in_force_on", {})
    assert args["date"] == "2026-03-01" and repairs == ["in_force_on.date defaulted"]


@pytest.mark.parametrize(("tool", "args", "violation"), [
    ("as_of", {"work": "w:x", "from_date": "2020-01-01"}, "unsupported_argument"),
    ("as_of", {"work": "w:x", "date": "2024"}, "unparsable_instant"),
    ("diff", {"work": "w:x", "from_date": "2024-01-01", "to_date": "2020-01-01"}, "reversed_window"),
    ("diff", {"work": "w:x", "from_date": "2024-01-01"}, "unparsable_date"),
    ("changes_in_period", {"from_date": "2024-01-01", "to_date": "2024-12-31", "order": "most"}, "unsupported_value"),
    ("timeline", {}, "missing_work_identity"),
    ("search", {"query": 5}, "wrong_type"),
    ("search", {"query": "x" * 1001}, "out_of_bounds"),
    ("as_of", {"work": "w:x", "date": "2020-01-01", "language": "French"}, "unsupported_value"),
    ("nonsense", {}, "unknown_operation"),
])
def test_answer_changing_arguments_are_refused(tool: str, args: dict[str, Any], violation: str) -> None:
    with pytest.raises(PlanViolation) as caught:
        gate(tool, args)
    assert caught.value.violation == violation


def request(authority: SubjectAuthority | None = GDPR) -> PlannerRequest:
    return PlannerRequest("req", "q", "en", TODAY, CATALOG, authority)


def test_subject_refs_bind_and_server_owned_keys_are_refused() -> None:
    plan = gate_plan({"operations": [{"tool": "as_of", "arguments": {"subject_ref": "subject_1"}}]}, request())
    [op] = plan.operations
    assert op.arguments == {"work": "eu-eurlex:32016r0679", "article_number": "6", "date": "2026-03-01",
                            "mode": "select"}
    for args in ({"work": "eu-eurlex:32013r0575"}, {"subject_ref": "subject_1", "lex_id": "x"},
                 {"subject_ref": "subject_1", "known_on": "2020-01-01"}):  # a transaction-time day: never the model's
        with pytest.raises(PlanViolation, match="server-owned"):
            gate_plan({"operations": [{"tool": "timeline", "arguments": args}]}, request())
    with pytest.raises(PlanViolation) as caught:
        gate_plan({"operations": [{"tool": "timeline", "arguments": {"subject_ref": "subject_2"}}]}, request())
    assert caught.value.violation == "unoffered_subject"
    with pytest.raises(PlanViolation, match="not offered"):
        gate_plan({"operations": [{"tool": "timeline", "arguments": {}}]}, request(None))


def test_planner_schema_offers_refs_never_works() -> None:
    schema = planner_tool_schema(CATALOG, request().offered, request().refs_for)
    branches = {b["properties"]["tool"]["const"]: b["properties"]["arguments"]
                for b in schema["properties"]["operations"]["items"]["anyOf"]}
    assert branches["as_of"]["properties"]["subject_ref"]["enum"] == ["subject_1"]
    assert "work" not in branches["as_of"]["properties"] and "anchors" not in branches["as_of"]["properties"]
    assert not any("known_on" in b["properties"] for b in branches.values())
    assert "provenance" not in branches  # no exact version named
    assert schema["properties"]["operations"]["maxItems"] == 8


def test_plan_is_frozen_and_value_copied() -> None:
    op = RequestedOperation.create("req", 0, "coverage", {"publisher": "eu-eurlex"})
    copy = op.arguments
    copy["publisher"] = "lu-legilux"
    assert op.arguments == {"publisher": "eu-eurlex"}
    with pytest.raises(AttributeError):
        op.tool = "timeline"  # type: ignore[misc]
    with pytest.raises(PlanViolation, match="32768"):
        RequestedOperation.create("req", 0, "search", {"query": "x" * 40_000})
    with pytest.raises(PlanViolation, match="one to eight"):
        OperationPlan.create("req", "en", [RequestedOperation.create("req", i, "coverage", {}) for i in range(9)],
                             False)


def test_undeclared_effect_raises() -> None:
    op = RequestedOperation.create("req", 0, "as_of", {"work": "w:x", "date": "2020-01-01"})
    assert op.effects == {Effect.PROVISION, Effect.GAP}
    assert op.check_effects([Effect.PROVISION]) == {Effect.PROVISION}
    with pytest.raises(UndeclaredEffectError):
        op.check_effects([Effect.RANKING])


def test_synthesis_is_reconciled_against_the_plan() -> None:
    inventory = [RequestedOperation.create("r", 0, "coverage", {}),
                 RequestedOperation.create("r", 1, "cited_by", {"work": "w:x"})]
    assert OperationPlan.create("r", "en", inventory, True).synthesis_requested is False
    mixed = [*inventory, RequestedOperation.create("r", 2, "diff", {"work": "w:x", "from_date": "2020-01-01",
                                                                      "to_date": "2021-01-01"})]
    assert OperationPlan.create("r", "en", mixed, True).synthesis_requested is True
    with pytest.raises(PlanViolation):
        OperationPlan.create("r", "en", [RequestedOperation.create("r", 0, "legal_boundary", {"reason": "x"})], True)


@pytest.mark.parametrize(("turn", "planned", "verdict"), [
    ("What did Article 92 of the CRR require in 2024", "2024-12-31", "widened"),
    ("Qu'exigeait l'article 92 du CRR en 2024 ?", "2024-06-30", "widened"),
    ("What did Article 92 of the CRR require on 31 December 2024", "2024-12-31", "stated"),
    ("What did Article 92 of the CRR require on 31/12/2024", "2024-12-31", "stated"),
    ("Article 92 du CRR au 1er janvier 2024", "2024-01-01", "stated"),
    ("Article 92 on December 31, 2024", "2024-12-31", "stated"),
    ("Que prevoyait l'article 92 de la loi du 12 novembre 2004 en 2024 ?", "2024-12-31", "widened"),
    ("Que prevoyait l'article 92 de la loi du 12 novembre 2004 ?", "2004-11-12", "invented_date"),
    ("What did it require in December 2024?", "2024-12-31", "widened"),
    ("on 31 February 2024 in 2024", "2024-12-31", "clarification"),
    ("What did it require in 2024", "2019-07-01", "invented_date"),
    ("What does CELEX 32013R0575 say", "2013-06-26", "invented_date"),
    ("What did article 3 of loi-2017-03-01-n901 say?", "2017-03-01", "invented_date"),
])
def test_a_planned_day_is_attested_by_the_readers_words(turn: str, planned: str, verdict: str) -> None:
    """The one gate (date provenance) over a planned ``as_of`` day, whichever planner wrote it."""
    op = RequestedOperation.create("r", 0, "as_of", {"work": "w:x", "date": planned, "article_number": "92"})
    reading = reading_for(turn, TODAY)
    if verdict == "invented_date":
        with pytest.raises(PlanViolation) as caught:
            attest([op], reading, "en")
        assert caught.value.violation == "invented_date"
        return
    if verdict == "clarification":
        with pytest.raises(NeedsClarification):
            attest([op], reading, "en")
        return
    [new] = attest([op], reading, "en")
    if verdict == "stated":
        assert new.tool == "as_of" and [(d.value, d.source) for d in new.dates] == [(planned, "stated")]
    else:
        assert new.tool == "article_history" and new.repairs[-1] == "as_of.date widened_to_stated_period"
        assert new.arguments["from_date"] <= planned <= new.arguments["to_date"]
        assert {d.source for d in new.dates} == {"stated"}
