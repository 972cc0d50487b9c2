"""Issue #15, fiftieth session (conlu50): plain French questions on Legilux acts that are not sibling misses.

- :func:`serve.core.ops.search.act_term_titled_first`: in a question shorter than ``CLEAR_WORDS`` content words, the act
  the terms rank first clearly goes first in its (Legilux) section when the question also says most of its own title
  subject (:func:`serve.core.ops.search.title_said`);
- :func:`serve.core.ops.search.empty_lead`: an answer the keywords left empty takes the act the terms rank first below
  ``EMPTY_COVERAGE`` when it leads clearly on three of the question's words or more.

Sections and matches are built from fixture works and a small term index; the title subjects are read from the
fixture indexes.
"""

from __future__ import annotations

from typing import Any

import pytest

from serve.core import LegalCore, actterms
from serve.core.core import CallContext
from serve.core.ops import search
from tests.serve_core.term_matches import CONSUMER, DATA_LAW, EU, GDPR, LU
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works

RENT = "lu-legilux:loi-2022-07-22-a396"  # « Loi du 22 juillet 2022 relative à une subvention de loyer. »


def _terms() -> actterms.TermIndex[int]:
    return actterms.term_index([(1, "subvention de loyer", "fr"), (1, "aide au loyer", "fr"),
                                (2, "bail", "fr"), (3, "logement", "fr")])


def _matched(query: str) -> tuple[list[tuple[str, int, actterms.Match[int]]], list[str]]:
    works = {1: RENT, 2: CONSUMER, 3: DATA_LAW}
    words = actterms.question_words(query)
    return [(works[m.work], 0, m) for m in actterms.matches(_terms(), words)], words


QUERY = "montant de la subvention de loyer"


@pytest.mark.parametrize(("subject", "query", "said"), [
    (("subvention", "loyer"), "montant de la subvention de loyer", True),
    (("carte", "identite"), "durée de validité de la carte d'identité luxembourgeoise", True),
    (("collectes", "domicile"), "collectes à domicile droit luxembourgeois", True),
    (("subvention", "loyer", "etat", "menages"), "subvention de loyer", False),  # half of the subject only
    (("chasse",), "permis de chasse", False),  # a one-word subject is a field
    (("de", "la", "chasse"), "permis de chasse", False),  # stop words are not subject words
    ((), "subvention de loyer", False)])
def test_a_question_says_an_acts_title_when_it_holds_most_of_its_subject_words(
        subject: tuple[str, ...], query: str, said: bool) -> None:
    assert search.title_said(subject, actterms.question_words(query)) is said


def test_a_subject_word_is_said_in_another_form() -> None:
    assert search.title_said(("collectes", "domicile"), actterms.question_words("collecte au domicile"))


@pytest.fixture
def subjects(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, ...]]:
    known = {RENT: ("subvention", "loyer"), CONSUMER: ("consommation",), DATA_LAW: ("protection", "donnees")}
    monkeypatch.setattr(search, "act_title_subject", lambda ctx, work: known.get(work, ()))
    return known


def test_a_short_question_saying_the_acts_title_puts_the_terms_clear_first_act_first(
        subjects: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    assert actterms.MIN_WORDS <= len(words) < search.CLEAR_WORDS
    assert matched[0][0] == RENT and actterms.firm(matched[0][2], words)
    sections = [_section(LU, (CONSUMER, ["keyword"]), (DATA_LAW, ["keyword"]), (RENT, ["keyword"])),
                _section(EU, (GDPR, ["keyword"]))]
    # the general rule leaves a short question alone
    assert not search.act_term_clear_first(sections, matched, words)
    assert search.act_term_titled_first(None, sections, matched, words)  # type: ignore[arg-type]
    assert _works(sections[0]) == [RENT, CONSUMER, DATA_LAW]
    assert [h["rank"] for h in sections[0]["hits"]] == [1, 2, 3]
    assert _works(sections[1]) == [GDPR]


def test_an_act_whose_title_the_question_does_not_say_keeps_its_place(subjects: dict[str, Any]) -> None:
    subjects[RENT] = ("subvention", "loyer", "etat", "menages", "revenu")
    matched, words = _matched(QUERY)
    sections = [_section(LU, (CONSUMER, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.act_term_titled_first(None, sections, matched, words)  # type: ignore[arg-type]
    assert _works(sections[0]) == [CONSUMER, RENT]


def test_a_named_first_work_another_publisher_a_long_or_one_word_question_keeps_the_order(
        subjects: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    for reason in sorted(search.NAMED_REASONS):
        sections = [_section(LU, (CONSUMER, [reason]), (RENT, ["keyword"]))]
        assert not search.act_term_titled_first(None, sections, matched, words)  # type: ignore[arg-type]
    eu = [(w.replace(LU, EU), p, m) for w, p, m in matched]
    sections = [_section(EU, ("eu-eurlex:x1", ["keyword"]), ("eu-eurlex:loi-2022-07-22-a396", ["keyword"]))]
    assert not search.act_term_titled_first(None, sections, eu, words)  # type: ignore[arg-type]
    long, long_words = _matched("quel est le montant de la subvention de loyer pour un ménage modeste")
    assert len(long_words) >= search.CLEAR_WORDS
    sections = [_section(LU, (CONSUMER, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.act_term_titled_first(None, sections, long, long_words)  # type: ignore[arg-type]
    one, one_words = _matched("loyer")
    assert not search.act_term_titled_first(None, sections, one, one_words)  # type: ignore[arg-type]
    assert _works(sections[0]) == [CONSUMER, RENT]


def test_a_work_before_it_the_terms_cover_nearly_as_well_stays_first(subjects: dict[str, Any]) -> None:
    matched, words = _matched(QUERY)
    best = matched[0][2]
    near = actterms.Match(2, best.coverage - search.CLEAR_MARGIN / 2, best.words[:1], best.terms)
    sections = [_section(LU, (CONSUMER, ["keyword"]), (RENT, ["keyword"]))]
    assert not search.act_term_titled_first(None, sections, [*matched, (CONSUMER, 0, near)],  # type: ignore[arg-type]
                                            words)
    assert _works(sections[0]) == [CONSUMER, RENT]


def test_the_title_subject_is_read_from_the_index(fixture_core: LegalCore) -> None:
    ctx = CallContext("search", fixture_core.indexes, {}, 10.0)
    assert set(search.act_title_subject(ctx, RENT)) == {"subvention", "loyer"}
    assert search.act_title_subject(ctx, "lu-legilux:loi-1900-01-01-n9") == ()
    assert search.act_title_subject(ctx, "xx-none:loi-1") == ()


# -- an empty answer's clear lead ----------------------------------------------------------------------------------


def _match(work: int, coverage: float, words: tuple[str, ...], term: str) -> actterms.Match[int]:
    return actterms.Match(work, coverage, words, (term,))


HUNT = "qui décide combien de cerfs et de sangliers les chasseurs doivent tirer chaque année"


def test_an_empty_answer_takes_an_act_leading_clearly_on_three_words() -> None:
    words = actterms.question_words(HUNT)
    best = _match(1, 0.47, ("cerfs", "sangliers", "chasseurs"), "cerf")
    other = _match(2, 0.26, ("sangliers", "chasseurs"), "sanglier")
    assert best.coverage < search.EMPTY_COVERAGE
    assert search.empty_lead(best, [other], words)
    assert search.empty_lead(best, [], words)


def test_two_words_a_narrow_lead_a_small_share_or_a_term_said_in_part_answer_nothing() -> None:
    words = actterms.question_words(HUNT)
    two = _match(1, 0.47, ("cerfs", "sangliers"), "cerf")
    assert not search.empty_lead(two, [], words)
    best = _match(1, 0.47, ("cerfs", "sangliers", "chasseurs"), "cerf")
    near = _match(2, 0.47 - search.EMPTY_LEAD_MARGIN / 2, ("sangliers", "chasseurs"), "sanglier")
    assert not search.empty_lead(best, [near], words)
    small = _match(1, search.EMPTY_LEAD_COVERAGE - 0.01, ("cerfs", "sangliers", "chasseurs"), "cerf")
    assert not search.empty_lead(small, [], words)
    part = _match(1, 0.47, ("cerfs", "sangliers", "chasseurs"), "cerf elaphe")  # not said whole: not firm
    assert not search.empty_lead(part, [], words)


def test_a_question_no_acts_terms_lead_on_stays_empty(fixture_core: LegalCore) -> None:
    # no fixture act's terms say three words of a question the keywords leave empty
    answer = fixture_core.call("search", {"query": "combien de licornes un dragon peut-il chasser chaque année",
                                          "limit": 10, "retrieval_mode": "keyword"})
    assert not any(s.get("hits") for s in answer.get("publishers") or [])
