"""Issue #15, thirteenth pass (concept13): conceptual and bilingual questions.

- class 1: the measure word of a two-word question frame ("combien de *temps*", "how *fast*",
  "wie *lange*") leaves the search words (:func:`derive.index.relax.frame_pair_words`);
- class 2: a French verb on an ``-ion`` noun stems to the noun ("démissionne" → "démission"), for
  the stem lane and the ``words_apart`` rule (:func:`derive.index.relax.light_stem`);

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from derive.index import analysis, relax
from serve.core import LegalCore
from serve.core.ops import search
from serve.core.searchplan import without_question_frame

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


# -- class 1: question frames of two words -----------------------------------------------------


def test_the_measure_word_after_its_interrogative_is_a_frame_word() -> None:
    assert relax.frame_pair_words(["combien", "de", "temps", "de", "preavis", "si", "je"]) == {
        "temps"
    }
    assert relax.frame_pair_words(["how", "fast", "must", "they", "tell", "the", "authority"]) == {
        "fast"
    }
    assert relax.frame_pair_words(["wie", "lange", "darf", "ich", "arbeiten"]) == {"lange"}
    assert relax.frame_pair_words(["what", "happens", "if", "i", "am", "ill"]) == {"happens"}
    # alone, or after another word, the word names a subject and stays
    assert relax.frame_pair_words(["temps", "de", "travail"]) == set()
    assert relax.frame_pair_words(["long", "term", "care"]) == set()
    assert relax.frame_pair_words(["combien", "de", "conges"]) == set()


def test_measure_words_leave_the_terms_only_beside_two_others() -> None:
    terms = ["temps", "preavis", "demissionne", "emploi"]
    assert without_question_frame(terms, {"temps"}) == ["preavis", "demissionne", "emploi"]
    # with fewer than two words left the question is about little else: kept
    assert without_question_frame(["temps", "travail"], {"temps"}) == ["temps", "travail"]
    # "am" of "I am" frames an English question
    assert "am" in relax.QUESTION_WORDS


def test_how_fast_is_not_a_search_word(fixture_core: LegalCore) -> None:
    section = _section(fixture_core, "how fast must a personal data breach be notified", EU)
    assert "fast" not in section["query_plan"]["terms"]
    assert section["hits"] and section["hits"][0]["work"] == f"{EU}:32016r0679"


def test_everyday_words_for_withdrawal_and_conformity() -> None:
    terms, found = relax.with_synonyms(
        ["changing", "mind", "personal", "loan"], analysis.stem_word, "en"
    )
    assert terms[0] == "changing mind" and "right of withdrawal" in found["changing mind"]
    assert relax.with_synonyms(["produit", "defectueux"], analysis.stem_word, "fr")[1] == {
        "defectueux": ["defaut de conformite"]
    }
    assert "lack of conformity" in relax.with_synonyms(["faulty", "phone"])[1]["faulty"]


# -- class 2: the verb of an -ion noun ---------------------------------------------------------


def test_an_ion_verb_stems_to_its_noun() -> None:
    assert relax.light_stem("demissionne") == "demission"
    assert relax.light_stem("sanctionner") == "sanction"
    assert relax.light_stem("mentionnees") == "mention"
    # other -nne words keep their light stem; a short noun has none
    assert relax.light_stem("personne") == "personn"
    assert relax.light_stem("questionnaire") == "questionnair"
    assert relax.light_stem("million") is None
    assert search._fts_word("demissionne") == "demission*"


def test_the_verb_reaches_the_noun_in_the_text(fixture_indexes: Any) -> None:
    conn = sqlite3.connect(
        f"file:{fixture_indexes.index_dir / 'lu-legilux.sqlite'}?mode=ro", uri=True
    )
    try:
        # the fixture Legilux texts say "démission", none "démissionne"
        assert (
            conn.execute(
                "SELECT 1 FROM provision_fts WHERE provision_fts MATCH 'demissionne'"
            ).fetchone()
            is None
        )
        assert search.word_held(conn, "demissionne")
    finally:
        conn.close()
