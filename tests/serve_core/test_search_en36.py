"""Issue #15, thirty-sixth session (en36): English questions on both publishers, on the real fixture corpus
(``LEX_FIXTURES``) where an index is read.

- A Legilux règlement whose title says it executes the act it names (« prescrivant les mesures d'exécution de
  la loi du 16 mai 1975 … ») is among that act's implementing acts for a role question ("implementing
  measures of the law on co-ownership"), although its title's opening verb leaves it the role ``principal``
  (:func:`serve.core.ranking.executes_in_title`, read by :func:`serve.core.ranking.related_by_role`).
- The English lexicon reaches the Legilux title words no English entry reached
  (``scripts/select_de_title_words.py --language en``): "placing on the market" « mise sur le marché »,
  "financial year" « exercice », "summer time" « heure légale d'été ».
"""

from __future__ import annotations

import sqlite3

from derive.index import xlang
from derive.index.text import fold, normalize
from serve.core import ranking
from tests.index.pipeline import FixtureBuild

LU = "lu-legilux"


def _title(build: FixtureBuild, slug: str) -> str:
    conn = sqlite3.connect(build.index_dir / f"{LU}.sqlite")
    try:
        row = conn.execute("SELECT title FROM works WHERE slug = ?", (slug,)).fetchone()
    finally:
        conn.close()
    assert row is not None and row[0]
    return str(row[0])


def test_a_regulation_titled_as_executing_a_law_implements_it() -> None:
    # real Legilux titles: the execution phrase, then the cited act's form and date
    copropriete = ("Règlement grand-ducal du 13 juin 1975 prescrivant les mesures d'exécution de la loi du 16 mai 1975 "
                   "portant statut de la copropriété des immeubles.")
    assert ranking.executes_in_title(copropriete, "16 mai 1975")
    prets = ("Règlement grand-ducal du 7 avril 2022 déterminant les mesures d’exécution de la loi modifiée du "
             "23 décembre 2016 relative à un régime d’aides à des prêts climatiques.")
    assert ranking.executes_in_title(prets, "23 decembre 2016")
    # the act itself, and a title naming the act for another purpose, do not execute it
    assert not ranking.executes_in_title("Loi du 16 mai 1975 portant statut de la copropriété des immeubles bâtis.",
                                         "16 mai 1975")
    assert not ranking.executes_in_title(copropriete, "13 juin 1975")
    assert not ranking.executes_in_title(copropriete, "")


def test_a_title_abrogating_or_amending_an_executing_regulation_does_not_execute_the_law(
        fixture_indexes: FixtureBuild) -> None:
    # « 1° modifiant le règlement grand-ducal modifié du 5 mai 2011 fixant les mesures d'exécution relatives aux
    # aides individuelles au logement ; 2° abrogeant le règlement grand-ducal du 23 décembre 2016 fixant les mesures
    # d'exécution de la loi du 23 décembre 2016 … »: it amends one and abrogates the other, it executes neither
    title = _title(fixture_indexes, "rgd-2022-06-08-a287")
    assert "exécution" in title
    assert not ranking.executes_in_title(title, "5 mai 2011")
    assert ranking.amends_in_title(title, "5 mai 2011")
    assert not ranking.executes_in_title(title, "23 decembre 2016")


def test_the_english_lexicon_reaches_the_listed_title_words(fixture_indexes: FixtureBuild) -> None:
    english = xlang.lexicon("en")
    assert english.lookup("summer", "en") == ("ete",)
    assert english.phrases[("placing", "market")] == ("mise sur le marche",)
    assert english.phrases[("financial", "year")] == ("exercice",)
    # a word the list withdrew (a readable case fell with it) stays as the mined file gives it
    assert "definitive" not in (english.lookup("final", "en") or ())
    # the French terms are words the fixture's Legilux text holds
    held = fixture_indexes.vocabulary(LU)
    assert {"mise", "marche", "exercice"} <= held


def test_a_role_question_lists_the_regulation_executing_the_named_law() -> None:
    # the relation tables of an index, as related_by_role reads them: no provision cites the law, the
    # règlement's official title names it (real Legilux titles)
    law_title = "Loi du 16 mai 1975 portant statut de la copropriété des immeubles bâtis."
    rgd_title = ("Règlement grand-ducal du 13 juin 1975 prescrivant les mesures d'exécution de la loi du 16 mai 1975 "
                 "portant statut de la copropriété des immeubles.")
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE citations(expression_rowid INTEGER, target_work_id TEXT);"
        "CREATE TABLE expressions(expression_rowid INTEGER, version_rowid INTEGER);"
        "CREATE TABLE versions(version_rowid INTEGER, work_rowid INTEGER);"
        "CREATE TABLE work_names(work_rowid INTEGER, kind TEXT, normalized TEXT);"
        "CREATE TABLE works(work_rowid INTEGER, slug TEXT);")
    conn.executemany("INSERT INTO works VALUES (?, ?)", [(1, "loi-1975-05-16-n1"), (2, "rgd-1975-06-13-n1")])
    conn.executemany("INSERT INTO work_names VALUES (?, 'official_title', ?)",
                     [(1, normalize(fold(law_title))), (2, normalize(fold(rgd_title)))])
    profiles = {1: ranking.WorkProfile("in_force", "principal", "law", law_title),
                2: ranking.WorkProfile("in_force", "principal", "regulation", rgd_title)}
    related = ranking.related_by_role(conn, profiles, 1, "loi-1975-05-16-n1", "lu-legilux:loi-1975-05-16-n1")
    assert related == {"implementing": [2]}
