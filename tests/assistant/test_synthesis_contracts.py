"""The evidence ledger and the answer contract checked in code."""

from __future__ import annotations

from typing import Any

import pytest

from assistant.compose import (
    DraftViolation,
    parse_draft,
    unsupported_numbers,
    validate_draft,
    validate_judgment,
)
from assistant.evidence import MAX_CHARACTERS, MAX_ITEMS, Evidence, bound, build_ledger
from assistant.execute import completed_result
from assistant.plan import RequestedOperation
from assistant.vocab import EvidenceKind, LegalOutcome, TransportOutcome
from tests.assistant.fakes import default_answer

LINK = "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32016R0679"


def result(tool: str, args: dict[str, Any], outcome: LegalOutcome = LegalOutcome.SUCCEEDED,
           payload: dict[str, Any] | None = None) -> Any:
    op = RequestedOperation.create("r", 0, tool, args)
    return completed_result(op, outcome, TransportOutcome.COMPLETED, "line",
                            payload=payload or default_answer(tool, args), args=args)


def ledger() -> list[Evidence]:
    as_of = result("as_of", {"work": "eu-eurlex:32016r0679", "date": "2020-03-01", "anchors": ["art_6"],
                             "mode": "select"})
    search = result("search", {"query": "consent"})
    diff = result("diff", {"work": "eu-eurlex:32016r0679", "from_date": "2016-05-04", "to_date": "2020-01-01"})
    return build_ledger([as_of, search, diff])


def test_ledger_ids_and_kinds() -> None:
    items = {e.id: e for e in ledger()}
    assert items["as_of:1:0"].kind is EvidenceKind.TIMELINE
    assert items["as_of:1:1"].kind is EvidenceKind.LEGAL_TEXT and items["as_of:1:1"].anchor == "art_6"
    assert items["search:2:1"].kind is EvidenceKind.POINTER
    assert items["diff:3:0"].kind is EvidenceKind.CHANGE
    gap = build_ledger([result("as_of", {"work": "w:x", "date": "2020-01-01"}, LegalOutcome.NOT_AVAILABLE,
                               {"outcome": "no_version_for_date", "work": "w:x"})])
    assert [(e.kind, e.requires_coverage_disclosure) for e in gap] == [(EvidenceKind.COVERAGE, True)]


def test_ledger_is_bounded_fifo() -> None:
    items = [Evidence(f"as_of:{i}:0", EvidenceKind.LEGAL_TEXT, excerpt="x" * 2000) for i in range(80)]
    kept = bound(items)
    assert len(kept) <= MAX_ITEMS and sum(e.size() for e in kept) <= MAX_CHARACTERS
    assert kept[-1].id == "as_of:79:0" and kept[0].id != "as_of:0:0"


def draft(text: str, ids: list[str], kind: str = "legal_text", **extra: Any) -> dict[str, Any]:
    return {"status": "answer", "answer": text, "claims": [{"text": text, "kind": kind, "evidence_ids": ids}],
            **extra}


@pytest.mark.parametrize("bad", [
    draft("Article 6 requires consent.", ["as_of:9:9"]),                       # unknown id
    draft("Consent is a lawful basis.", ["search:2:1"], kind="pointer"),       # pointer supports nothing
    draft("Consent is a lawful basis.", ["as_of:1:0"]),                        # kind mismatch
    draft("Article 7 requires consent.", ["as_of:1:1"]),                       # article absent
    draft("Since 1999 consent is required.", ["as_of:1:1"]),                   # number absent
    draft("Consent applies.", ["as_of:1:1"], permalinks=[LINK + "x"]),         # permalink not identical
    draft("The wording is unchanged.", ["diff:3:0"], kind="change"),           # polarity contradicts facts
    {"status": "gap", "answer": "x", "claims": [{"text": "Consent.", "kind": "legal_text",
                                                 "evidence_ids": ["as_of:1:1"]}]},
    {"status": "clarify", "answer": "Which?", "clarification": {"question": "Which?", "options": ["one"]}},
    {"status": "refusal", "answer": "see https://attacker.invalid"},
    {"status": "answer", "answer": "x", "claims": [], "extra": 1},
])
def test_contract_refuses(bad: dict[str, Any]) -> None:
    with pytest.raises(DraftViolation):
        validate_draft(parse_draft(bad), ledger())


def test_contract_accepts_a_grounded_answer_with_an_exact_link() -> None:
    good = draft("Article 6 makes processing lawful where consent applies.", ["as_of:1:1"], permalinks=[LINK])
    assert validate_draft(parse_draft(good), ledger()).permalinks == (LINK,)


def test_judgment_contract() -> None:
    good = validate_draft(parse_draft(draft("Article 6 requires consent.", ["as_of:1:1"])), ledger())
    assert validate_judgment({"disposition": "pass", "issues": []}, good, ledger()).disposition == "pass"
    with pytest.raises(DraftViolation):
        validate_judgment({"disposition": "pass", "issues": ["odd"]}, good, ledger())
    with pytest.raises(DraftViolation):
        validate_judgment({"disposition": "repair", "issues": ["narrow"]}, good, ledger())


# --- numbers in the prose the reader sees (issue #17, failure 8) -------------------------------

SOURCES = ["Article 6 Lawfulness of processing; valid from 2016-05-04; requested 2020-03-01; "
           "12 versions; a fee of EUR 1,250.50",
           "What did Article 6 of the GDPR say on 1 March 2020?"]


@pytest.mark.parametrize(("prose", "unsupported"), [
    ("Article 6 applied on 1 March 2020.", []),
    ("On 2020-03-01 the text in force dated from 4 May 2016.", []),
    ("Seit dem 4. Mai 2016 gilt Artikel 6; depuis le 1er mars 2020 aussi.", []),
    ("The work has 12 versions; the fee was EUR 1250.50 (1.250,50).", []),
    ("Article 7 applied.", ["7"]),                                         # an article number
    ("On 2 March 2020 Article 6 applied.", ["2 March 2020"]),              # a date, checked as a date
    ("Since June 2016 Article 6 applies.", ["June 2016"]),                 # a month
    ("The work has 13 versions.", ["13"]),                                  # a count
    ("The fee was EUR 1,350.", ["1,350"]),                                  # an amount
    ("The work has eleven versions.", ["eleven"]),                          # a spelled-out count
    ("It was adopted on 30 February 2016.", ["30 February 2016"]),          # an impossible day
    ("In 2016 and in 2019.", ["2019"]),                                     # a year
    ("See https://eur-lex.europa.eu/eli/reg/2099/1/oj for Article 6.", []),  # links are checked apart
])
def test_every_number_in_prose_comes_from_the_results_or_the_question(prose: str,
                                                                      unsupported: list[str]) -> None:
    assert unsupported_numbers(prose, SOURCES) == unsupported


def test_a_draft_whose_prose_adds_a_number_is_refused_even_with_grounded_claims() -> None:
    grounded = {"text": "Article 6 makes processing lawful where consent applies.", "kind": "legal_text",
                "evidence_ids": ["as_of:1:1"]}
    for prose in ("Article 6, in force since 1999, makes processing lawful where consent applies.",
                  "Article 6 had 3 versions by 2 March 2020.", "Article 9 makes processing lawful."):
        bad = {"status": "answer", "answer": prose, "claims": [grounded]}
        with pytest.raises(DraftViolation, match="numbers absent"):
            validate_draft(parse_draft(bad), ledger(), ["What did Article 6 say?"])
    # A number the reader gave, or the typed reply of the executed operations states, is grounded.
    fine = {"status": "answer", "answer": "Asked for 1 March 2020, Article 6 applies from 2016-05-04.",
            "claims": [grounded]}
    assert validate_draft(parse_draft(fine), ledger(), ["What did Article 6 say on 1 March 2020?"])
    counted = {"status": "answer", "answer": "Article 6 has 400 states.", "claims": [grounded]}
    with pytest.raises(DraftViolation):
        validate_draft(parse_draft(counted), ledger(), ["What did Article 6 say?"])
    assert validate_draft(parse_draft(counted), ledger(), ["What did Article 6 say?", "… (400 in all)"])
