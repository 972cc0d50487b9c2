"""Issue #15, forty-eighth session (lu48a): plain French questions on Legilux acts.

The act terms (:mod:`serve.core.actterms`) meet a question's word said in the singular or the plural
(:func:`serve.core.actterms.singular`: « aide » / « aides », « revenu » / « revenus ») and in another member of its
French derivational family (:func:`serve.core.actterms.root`: « chasse » / « chasseur », « étiquette » / « étiquetage »,
« inscrire » / « inscription »). The act the terms rank first goes first in its section when it leads the section's
works before it clearly (:func:`serve.core.ops.search.act_term_clear_first`). Sections and matches are built from
fixture works and a small term index.
"""

from __future__ import annotations

import pytest

from serve.core import actterms
from serve.core.ops import search
from tests.serve_core.term_matches import CONSUMER, DATA_LAW, EU, GDPR, LU
from tests.serve_core.term_matches import matched as _matched
from tests.serve_core.term_matches import section as _section
from tests.serve_core.term_matches import works as _works


@pytest.mark.parametrize(("word", "one"), [("aides", "aide"), ("revenus", "revenu"), ("communaux", "communal"),
                                           ("benefits", "benefit"), ("aide", "aide"), ("process", "process"),
                                           ("pays", "pays"), ("covid19s", "covid19s")])
def test_a_plural_ending_is_read_off_a_word_of_five_letters_or_more(word: str, one: str) -> None:
    assert actterms.singular(word) == one


@pytest.mark.parametrize(("form", "found"), [("chasseur", "chass"), ("etiquetag", "etiquet"), ("inscrir", "inscript"),
                                             ("construir", "construct"), ("reexamin", "reexam"), ("reexamen", "reexam"),
                                             ("certificat", "certif"), ("delegu", "deleg"), ("abattu", "abatt"),
                                             ("valeur", "valeur"), ("lieu", "lieu"), ("loyer", "loyer")])
def test_a_french_derivational_ending_is_read_off_a_stem_leaving_five_letters(form: str, found: str) -> None:
    assert actterms.root(form) == found


@pytest.mark.parametrize(("term", "question"), [
    ("aides au logement", "aide logement"), ("revenu minimum", "revenus minimum"),
    ("chemins communaux", "chemin communal"), ("chasse au gibier", "chasseurs gibier"),
    ("etiquetage alimentaire", "étiquette alimentaire"), ("inscription scolaire", "inscrire scolaire"),
    ("commission de reexamen", "commission réexamine"), ("certification des semences", "certificat semences")])
def test_a_term_meets_the_questions_word_in_another_form_of_its_family(term: str, question: str) -> None:
    index = actterms.term_index([(1, term, "fr"), (2, "marches publics", "fr")])
    words = actterms.question_words(question)
    found = index.covered(words)
    assert [m.work for m in found] == [1]
    assert found[0].words == tuple(words)


def test_the_derivational_family_is_french_only() -> None:
    # an English term keeps its English stem: "employer" does not become a French « employ- »
    assert actterms.term_key("employer", "en", actterms.STOP) == ("employ",)
    assert actterms.term_key("employeur", "fr", actterms.STOP) == ("employ",)
    assert actterms.term_key("chauffeurs", "en", actterms.STOP) == ("chauffeur",)


QUERY = "who must protect customer personal information in shops"


def test_the_act_the_terms_clearly_rank_first_goes_first_in_its_section() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 1)})
    assert len(words) >= search.CLEAR_WORDS
    best = matched[0][2]
    assert actterms.firm(best, words) and best.coverage >= search.CLEAR_COVERAGE
    sections = [_section(EU, (GDPR, ["keyword"])),
                _section(LU, (DATA_LAW, ["keyword"]), (CONSUMER, ["keyword"]), (GDPR, ["act_term"]))]
    assert search.act_term_clear_first(sections, matched, words)
    assert _works(sections[1]) == [CONSUMER, DATA_LAW, GDPR]
    assert [h["rank"] for h in sections[1]["hits"]] == [1, 2, 3]
    assert _works(sections[0]) == [GDPR]


def test_a_work_before_it_the_terms_cover_nearly_as_well_stays_first() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    best = matched[0][2]
    near = actterms.Match(3, best.coverage - search.CLEAR_MARGIN / 2, best.words[:2], best.terms)
    far = actterms.Match(3, best.coverage - search.CLEAR_MARGIN, best.words[:2], best.terms)
    for other, moves in ((near, False), (far, True)):
        sections = [_section(LU, (DATA_LAW, ["keyword"]), (CONSUMER, ["keyword"]))]
        assert search.act_term_clear_first(sections, [*matched, (DATA_LAW, 0, other)], words) is moves
        assert _works(sections[0]) == ([CONSUMER, DATA_LAW] if moves else [DATA_LAW, CONSUMER])


def test_a_short_question_or_a_named_first_work_keeps_its_order() -> None:
    short, short_words = _matched("customer personal information", {1: (CONSUMER, 0)})
    assert len(short_words) < search.CLEAR_WORDS
    sections = [_section(LU, (DATA_LAW, ["keyword"]), (CONSUMER, ["keyword"]))]
    assert not search.act_term_clear_first(sections, short, short_words)
    assert _works(sections[0]) == [DATA_LAW, CONSUMER]
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    for reason in sorted(search.NAMED_REASONS):
        sections = [_section(LU, (DATA_LAW, [reason]), (CONSUMER, ["keyword"]))]
        assert not search.act_term_clear_first(sections, matched, words)
        assert _works(sections[0]) == [DATA_LAW, CONSUMER]


def test_nothing_moves_when_the_act_is_first_or_not_listed() -> None:
    matched, words = _matched(QUERY, {1: (CONSUMER, 0)})
    first = [_section(LU, (CONSUMER, ["keyword"]), (DATA_LAW, ["keyword"]))]
    assert not search.act_term_clear_first(first, matched, words)
    absent = [_section(LU, (DATA_LAW, ["keyword"]))]
    assert not search.act_term_clear_first(absent, matched, words)
    assert not search.act_term_clear_first(absent, [], words)
