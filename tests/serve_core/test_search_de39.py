"""Issue #15, thirty-ninth session (de39): the German bands after de38b's, EUR-Lex title words and Legilux heading words.

The German lexicon reaches French words of two of the bands the selection script printed
(``scripts/select_de_title_words.py --eu-from 2000 --eu-top 2500 --lu-from 3000 --lu-top 3600 --headings-from 1800
--headings 2400 --eu-headings-from 1800 --eu-headings 2400``, committed with its full output in
``docs/selections/de39.tsv`` before any entry was written): EUR-Lex title words ranked 2,000–2,500
("Natriumcarbonat" « carbonate de soude », "Zeitstempel" « horodatage(s) », "Sorgfaltserklärung" « déclaration de
diligence raisonnée ») and Legilux heading words ranked 1,800–2,400 ("Bürgschaft" « cautionnement »,
"Dienstbarkeiten" « servitudes », "Friedensgerichte" « justices de paix »).
"""

from __future__ import annotations

from derive.index import xlang


def test_the_de39_bands_reach_the_german_lexicon() -> None:
    german = xlang.lexicon("de")
    assert german.lookup("natriumcarbonat", "de") == ("carbonate de soude",)
    assert german.lookup("zeitstempel", "de") == ("horodatage", "horodatages")
    assert german.lookup("sorgfaltserklarung", "de") == ("declaration de diligence raisonnee",)
    assert german.lookup("burgschaft", "de") == ("cautionnement",)
    assert german.lookup("dienstbarkeiten", "de") == ("servitudes",)
    assert german.lookup("friedensgerichte", "de") == ("justices de paix",)
    # an existing entry is left as it was ("Streitigkeiten" was « litiges » before this list)
    assert german.lookup("streitigkeiten", "de") == ("litiges",)


def test_the_de39_words_left_out_stay_out() -> None:
    german = xlang.lexicon("de")
    # withdrawn after scoring, each because a readable case fell with it: "Künste" « arts » cut
    # "Kunst·gegenstände" (coneu37 4551), "Aufzüge" « ascenseurs » let a negative ("Richtlinie über Aufzüge") gain hits
    assert german.lookup("kunst", "de") is None
    assert german.lookup("aufzuge", "de") is None
    # left out as English words, by a form the lexicon reads as theirs: "Reform" (reform), "Museum",
    # "Grad" (grade, grades), "Carbonat" (carbonate)
    for word in ("reform", "museum", "grade", "carbonate"):
        assert german.lookup(word, "de") is None
    # left out for their other sense: "Einnehmer" « receveur » would read the verb "einnehmen", "Erfolg"
    # « réussite » the verb "erfolgen", "Ehre" « honneur » "Ehrenamt"
    for word in ("einnehmen", "erfolgen", "ehre"):
        assert german.lookup(word, "de") is None
