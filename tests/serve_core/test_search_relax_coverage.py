"""Issue #15, twelfth pass (relax12): conceptual and bilingual questions.

- an everyday word of the synonym file matches in its inflected forms: the Snowball stems of the
  entry's language (:func:`derive.index.relax.with_synonyms` with a ``stem``);
- a translated question's relaxation (and its majority-of-words lane) drops the words nothing
  translates, so that the verbs and particles of a German question neither withhold it nor decide
  it (:func:`derive.index.relax.untranslated_fillers`).

On the real fixture corpus (``LEX_FIXTURES``) where a search is made.
"""

from __future__ import annotations

from typing import Any

from derive.index import analysis, relax
from serve.core import LegalCore

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


# -- class 2: inflected forms of the synonym file's words ---------------------------------------


def test_an_inflected_word_matches_its_entry_by_stem() -> None:
    stem = analysis.stem_word
    # German dative plural of the entry "Hinweisgeber"; the word stays the term, searched as written
    terms, found = relax.with_synonyms(["schutz", "hinweisgebern"], stem, "de")
    assert terms == ["schutz", "hinweisgebern"]
    assert found["hinweisgebern"] == [
        "auteur de signalement",
        "lanceur d alerte",
        "reporting person",
    ]
    # the entry "Insidergeschäfte" from its dative "Insidergeschäften"; English plural "holidays"
    assert (
        "insider dealing"
        in relax.with_synonyms(["verbot", "insidergeschaften"], stem, "de")[1]["insidergeschaften"]
    )
    assert "annual leave" in relax.with_synonyms(["holidays", "paid"], stem, "en")[1]["holidays"]


def test_a_stem_match_keeps_to_the_entry_language_and_exact_words_first() -> None:
    stem = analysis.stem_word
    # a German entry does not match a question told to be French, nor does anything without a stemmer
    assert relax.with_synonyms(["hinweisgebern"], stem, "fr") == (["hinweisgebern"], {})
    assert relax.with_synonyms(["hinweisgebern"]) == (["hinweisgebern"], {})
    # an exact entry is taken as before (the run becomes its phrase)
    assert relax.with_synonyms(["arret", "maladie"], stem, "fr") == (
        ["arret maladie"],
        {"arret maladie": ["incapacite de travail"]},
    )
    # each key is under the entry's own language
    assert all(lang in {"de", "en", "fr"} for lang, _ in relax.stemmed_synonyms(stem))


def test_an_inflected_german_word_finds_the_act(fixture_core: LegalCore) -> None:
    # "Datenpannen" is not an entry as written; its stem is the entry "Datenpanne"'s ("personal data
    # breach" / "violation de données à caractère personnel"), and the GDPR answers
    section = _section(fixture_core, "Meldung von Datenpannen", EU)
    assert any(e.startswith("datenpannen -> ") for e in section["query_expansions"])
    assert section["hits"] and section["hits"][0]["work"] == f"{EU}:32016r0679"


# -- class 1: coverage of the informative words -------------------------------------------------


def test_untranslated_words_are_dropped_only_beside_enough_translated_ones() -> None:
    translated = {"krankschreibung", "arbeitgeber"}
    terms = ["krankschreibung", "arbeitgeber", "vorlegen"]
    assert relax.untranslated_fillers(terms, ["vorlegen"], translated) == ["vorlegen"]
    assert relax.untranslated_fillers(terms, [], translated) == [
        "vorlegen"
    ]  # held, but would decide
    # a phrase or a translated word unknown to the index is what the question is about: withheld
    assert relax.untranslated_fillers(terms, ["krankschreibung"], translated) == []
    # one translated word is not enough ("space elevator construction permit")
    assert (
        relax.untranslated_fillers(
            ["weltraumaufzug", "baugenehmigung"], ["weltraumaufzug"], {"baugenehmigung"}
        )
        == []
    )
    # more untranslated words than translated ones: the question is not told by its translation
    assert relax.untranslated_fillers(["a", "b", "x", "y", "z"], [], {"a", "b"}) == []
    # an untranslated content word among the kept ones keeps everything
    assert relax.untranslated_fillers(["a", "b", "x"], ["x"], {"a"}) == []


def test_fillers_are_dropped_with_the_stop_words() -> None:
    groups = [
        ["krankschreibung", "incapacite de travail"],
        ["arbeitgeber", "employeur"],
        ["vorlegen"],
    ]
    first = next(
        relax.relaxations(["krankschreibung", "arbeitgeber", "vorlegen"], groups, ["vorlegen"])
    )
    assert first.groups == groups[:2] and not first.any_of and first.dropped == ("vorlegen",)


def test_a_german_question_is_not_withheld_by_its_untranslated_particle(
    fixture_core: LegalCore,
) -> None:
    # "beim" (bei dem) is in no Legilux provision and nothing translates it: it withheld the
    # relaxation (unknown_terms); dropped, the legal guarantee and the sale find the Code de la
    # consommation (Legilux loi du 8 avril 2011). Since the twenty-fifth session (ADR 0053) it is a frame
    # word of the translated question: it leaves before the search, which needs no relaxation
    section = _section(fixture_core, "Gewährleistung beim Kauf von Waren", LU)
    assert section["relaxation_withheld"] is None
    assert section["query_plan"]["translations"]["fillers"] == ["beim"]
    assert section["hits"] and section["hits"][0]["work"] == f"{LU}:loi-2011-04-08-n2"
