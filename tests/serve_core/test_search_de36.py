"""Issue #15, thirty-sixth session (de36): German questions, Legilux first, on the real fixture corpus
(``LEX_FIXTURES``) where an index is read.

- The German article word after a citing word (« Abweichung von Artikel L.551-2 », « Durchführung von
  Artikel 145 ») is the article an asked act's title cites, as « dérogation à l'article » is; before,
  "artikel" and the number were words no French text holds together. Elsewhere it stays words.
- The German lexicon reaches the French words of the next band of Legilux title words (ranks 900–1,500)
  and of the Legilux article headings and chapter titles (``scripts/select_de_title_words.py --headings``):
  "Hochwasser" « inondation », "Lebensräume" « habitats ». Entries that took a wrong sense or cut a
  compound wrongly were withdrawn ("Vertreter", "Werke", "Ersatz").
"""

from __future__ import annotations

from typing import Any

import pytest

from derive.index import xlang
from derive.index.query import parse_query
from serve.core import LegalCore
from serve.core.searchplan import cited_article
from tests.index.pipeline import FixtureBuild
from tests.scripts_loader import load_script

EU, LU = "eu-eurlex", "lu-legilux"


def _sections(core: LegalCore, query: str) -> dict[str, dict[str, Any]]:
    answer = core.call("search", {"query": query, "limit": 10, "fuzzy": "off"})
    return {str(s["publisher"]): dict(s) for s in answer["publishers"]}


# --- the German article word


@pytest.mark.parametrize(("query", "key"), [
    ("Abweichung von Artikel L.551-2 des Arbeitsgesetzbuches", "l-551-2"),
    ("vorübergehende Abweichung von den Artikeln L. 524-1 und L. 541-1", "l-524-1"),
    ("Großherzogliche Verordnung zur Ausführung von Artikel 5 des Gesetzes", "5"),
    ("Art. 5 der Verordnung", "5"),
])
def test_the_german_article_word_after_a_citing_word_reads_an_article(query: str, key: str) -> None:
    article = parse_query(query).article
    assert article is not None and article.key == key


@pytest.mark.parametrize("query", [
    # an item bought, no article of an act
    "Wie lange darf ich einen im Internet gekauften Artikel zurückschicken",
    # "nach Artikel 30-1 des Gesetzes": an act made under the article, which its number alone does not find;
    # the words stay the question's, as before
    "Muster des Quittungsheftes nach Artikel 30-1 des Gesetzes über den Verkauf von Arzneimitteln",
    "Modalitäten des Referendums nach Artikel 35 des Gemeindegesetzes",
])
def test_the_german_article_word_elsewhere_stays_words(query: str) -> None:
    assert parse_query(query).article is None


@pytest.mark.parametrize(("query", "words"), [
    ("Abweichung von Artikel L.551-2 des Arbeitsgesetzbuches", ["l", "551", "2"]),
    ("Jahresausgleich bei der Einkommensteuer, Durchführung von Artikel 145", ["145"]),
    ("vorübergehende Abweichung von den Artikeln L. 524-1 und L. 541-1", ["l", "524", "1"]),
])
def test_a_german_article_after_a_citing_word_is_cited_by_the_asked_act(query: str, words: list[str]) -> None:
    assert cited_article(parse_query(query)) == words


def test_a_german_question_on_an_act_derogating_from_articles_is_read_as_citing(fixture_core: LegalCore) -> None:
    # the same question as the French one of temp35 (« dérogation aux articles 6 et 7 du règlement
    # grand-ducal … »): the article is the one the asked act's title cites, its number a word of that title
    lu = _sections(fixture_core, "Abweichung von den Artikeln 6 und 7 der großherzoglichen Verordnung "
                                 "über die Schulfächer und Diplome")[LU]
    assert lu["query_plan"].get("article_key") is None
    assert "6" in lu["query_plan"]["terms"] and "artikeln" not in lu["query_plan"]["terms"]


# --- the title and heading words


def test_the_next_band_of_title_and_heading_words_reach_the_german_lexicon() -> None:
    german = xlang.lexicon("de")
    assert german.lookup("hochwasser", "de") == ("inondation",)
    assert german.lookup("lebensraume", "de") == ("habitats",)
    assert german.lookup("fachrichtungen", "de") is None  # not a title word: no entry
    assert german.lookup("affouage", "de") is None
    assert german.lookup("holzbezugsrecht", "de") == ("affouage",)
    # withdrawn: a wrong sense taken ("Vertreter" is a representative), a compound cut wrongly
    # ("Werkzeuge" as "werk" + "zeuge", "Mehrwertsteuersätze" as "mehrwertsteu" + "ersatze")
    assert german.lookup("vertreter", "de") is None
    assert german.lookup("werke", "de") is None
    assert german.lookup("ersatz", "de") is None


def test_a_plain_word_german_question_on_a_heading_word_is_translated(fixture_indexes: FixtureBuild) -> None:
    held = fixture_indexes.vocabulary(LU).__contains__
    found = xlang.translate(["geschutzte", "biotope", "lebensraume"], "de", held=held)
    assert found.alternatives.get("lebensraume") == ["habitats"]


def _selector() -> Any:
    return load_script("select_de_title_words")


def test_the_selection_script_counts_heading_words_by_work(fixture_indexes: FixtureBuild) -> None:
    from derive.index.read import open_readonly

    selector = _selector()
    texts = selector._headings(open_readonly(fixture_indexes.index_dir / f"{LU}.sqlite"))
    counts, _ = selector._counts(texts)
    assert texts and counts
    # a word once per work: no count exceeds the works holding headings
    assert max(counts.values()) <= len(texts)
    assert counts["definitions"] >= 1


# --- an act cited by its German form and date


def test_the_german_citation_by_form_and_date_reads_the_act() -> None:
    from serve.core.ops.search import dated_prefixes

    assert dated_prefixes("Großherzogliche Verordnung vom 9. Januar 2009 über die Jugend") == [
        ("großherzogliche verordnung vom 9 januar 2009", "rgd-2009-01-09-")]
    assert dated_prefixes("des geänderten Gesetzes vom 4. Dezember 1967") == [
        ("gesetzes vom 4 dezember 1967", "loi-1967-12-04-")]
    assert dated_prefixes("Grossherzoglichen Beschlusses vom 22. November 1924") == [
        ("grossherzoglichen beschlusses vom 22 november 1924", "agd-1924-11-22-")]
    # a form word that names no Luxembourg form (a « Verordnung » may be the EU's) is no citation
    assert dated_prefixes("Verordnung vom 3. März 2020") == []


@pytest.mark.parametrize(("query", "first"), [("Gesetz vom 31. Juli 2006 Entlassung", "loi-2006-07-31-n2"),
                                              ("Großherzogliche Verordnung vom 10. März 2014", "rgd-2014-03-10-n1")])
def test_a_german_citation_of_a_held_act_names_it(fixture_core: LegalCore, query: str, first: str) -> None:
    section = _sections(fixture_core, query)[LU]
    mention = next(m for m in section["query_plan"]["work_mentions"] if m["reason"] == "dated_reference")
    assert mention["works"] == [f"{LU}:{first}"]
    assert section["hits"][0]["work"] == f"{LU}:{first}"


def test_a_german_citation_no_index_holds_answers_no_hits(fixture_core: LegalCore) -> None:
    for section in _sections(fixture_core, "Gesetz vom 8. Januar 2013 über die Überschuldung").values():
        assert section["hits"] == []
        assert section["relaxation_withheld"]["reason"] == "dated_reference_not_held"


def test_a_translated_dated_citation_is_not_weighed_by_its_german_words(fixture_core: LegalCore) -> None:
    # the cited act is French: its silence on the German words ("Jahresabschlüsse") says nothing, so the
    # subject guard (``dated_subject_not_held``) does not answer no hits for it; a French question still is
    section = _sections(fixture_core, "Großherzogliche Verordnung vom 10. März 2014 über die Jahresabschlüsse")[LU]
    assert (section.get("relaxation_withheld") or {}).get("reason") != "dated_subject_not_held"
    assert section["hits"][0]["work"] == f"{LU}:rgd-2014-03-10-n1"
