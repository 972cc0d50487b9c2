"""Issue #15, twenty-eighth session (everyeu28): a word no provision holds, named by the publisher's thesaurus.

A question whose word is in no provision of an index ("musiciens", « désinfectant », "Cleantech") is withheld
(``relaxation_withheld: unknown_terms``): the corpus holds nothing on it. EUR-Lex's EuroVoc indexing may still
know the word — as a narrow descriptor or as one of its non-preferred "used for" terms ("musician" under
*artistic profession*) that at most ``subjects.WORD_LABEL_MAX_WORKS`` works carry. Those works then answer
(``search._reach_word_labels``, ``subjects.SubjectLabels.word_works``), as EuroVoc subject rows; a word that is
no such label keeps the answer empty. Real fixture corpus (``LEX_FIXTURES``) and pure checks.
"""

from __future__ import annotations

from typing import Any

from serve.core import LegalCore, subjects
from serve.core.ops import search

EU = "eu-eurlex"
LU = "lu-legilux"
#: Commission Delegated Directive (EU) 2024/1405 amending Annex IX to the Renewable Energy Directive (the
#: feedstocks of advanced biofuels): EuroVoc files it under *biofuel*, used for "biodiesel"; no provision of
#: the fixture corpus says "biodiesel".
FEEDSTOCKS = "eu-eurlex:32024l1405"


def _section(answer: dict[str, Any], publisher: str) -> dict[str, Any]:
    return next(s for s in answer["publishers"] if s["publisher"] == publisher)


def test_one_word_labels_of_few_works_are_kept_by_their_stem() -> None:
    rows = [
        (1, "musicien", "fr"), (1, "artistic profession", "en"),
        (2, "product", "en"), (3, "product", "en"), (4, "product", "en"), (5, "product", "en"),
    ]
    labels = subjects.subject_labels(rows)
    assert labels.word_works("musiciens") == (frozenset({1}), "musicien")  # an inflection says the label
    assert labels.word_works("product") is None  # four works carry it: no narrow subject
    assert subjects.WORD_LABEL_MAX_WORKS == 3
    # the two-word label stays a subject label as before, never a word label
    assert labels.word_works("artistic") is None
    assert labels.named_by(["artistic", "profession"]) == frozenset({1})


def test_every_unknown_word_must_be_a_narrow_label_and_the_works_are_those_all_name() -> None:
    labels = subjects.subject_labels([
        (1, "cleantech", "en"), (2, "cleantech", "en"), (2, "biotechnologie", "fr"), (3, "biotechnologie", "fr"),
    ])
    assert search.word_label_works(labels, ["cleantech"]) == ([1, 2], ["cleantech"])
    assert search.word_label_works(labels, ["cleantech", "biotechnologie"]) == ([2], ["cleantech", "biotechnologie"])
    assert search.word_label_works(labels, ["cleantech", "gnomes"]) == ([], [])


def test_a_word_no_provision_holds_is_answered_by_the_acts_the_thesaurus_files_under_it(
        fixture_core: LegalCore) -> None:
    # its provisions list the feedstocks: the question's other word, "feedstock", is the act's own
    answer = fixture_core.call("search", {"query": "biodiesel feedstock"})
    assert answer["merged"][0]["work"] == FEEDSTOCKS
    eu = _section(answer, EU)
    assert eu["relaxation_withheld"] is None
    assert eu["hits"][0]["matched_metadata"] == {"kind": "eurovoc_subject", "label": "biodiesel"}
    # Legilux has no EuroVoc indexing: its section stays withheld for the word it does not hold
    assert _section(answer, LU)["relaxation_withheld"]["reason"] == "unknown_terms"


def test_the_other_subject_words_must_be_mostly_the_works_own() -> None:
    assert search.word_label_evidence(others=1, held=1)
    assert search.word_label_evidence(others=3, held=2)
    assert not search.word_label_evidence(others=2, held=1)  # « permis de chasse aux licornes »: "permit" only
    assert not search.word_label_evidence(others=0, held=0)  # the word alone: the metadata lane's question


def test_a_label_work_whose_text_holds_no_other_word_does_not_answer(fixture_core: LegalCore) -> None:
    # the feedstock directive files "biodiesel" under EuroVoc, but no provision of it says "sustainability":
    # the thesaurus term alone does not make the act the answer to another question on biodiesel
    answer = fixture_core.call("search", {"query": "biodiesel sustainability"})
    assert FEEDSTOCKS not in [m["work"] for m in answer["merged"]]
    assert _section(answer, EU)["relaxation_withheld"]["reason"] == "unknown_terms"


def test_a_second_unknown_word_no_label_names_keeps_the_answer_empty(fixture_core: LegalCore) -> None:
    answer = fixture_core.call("search", {"query": "biodiesel for garden gnomes"})
    assert answer["merged"] == []
    assert _section(answer, EU)["relaxation_withheld"]["reason"] == "unknown_terms"
