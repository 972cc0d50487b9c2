"""Issue #15, thirty-eighth session (de38b): the German bands after de38's.

The German lexicon reaches the French words of the next band of each list the selection script counts
(``scripts/select_de_title_words.py --eu-from 1500 --eu-top 2000 --lu-from 2400 --lu-top 3000 --headings-from 1200
--headings 1800 --eu-headings-from 1200 --eu-headings 1800``, committed with its full output in
``docs/selections/de38b.tsv`` before any entry was written): EUR-Lex title words ranked 1,500–2,000
("Vorhandelstransparenz" « pré-négociation », "Sofortüberweisungen" « virements instantanés »), Legilux title words
ranked 2,400–3,000 ("Tollwut" « rage », "Kraft-Wärme-Kopplung" « cogénération »), Legilux heading words ranked
1,200–1,800 ("Widerklage" « demande reconventionnelle ») and EUR-Lex heading words ranked 1,200–1,800
("Rechtshängigkeit" « litispendance »).
"""

from __future__ import annotations

from derive.index import xlang


def test_the_de38b_bands_reach_the_german_lexicon() -> None:
    german = xlang.lexicon("de")
    assert german.lookup("vorhandelstransparenz", "de") == ("prenegociation",)
    assert german.lookup("sofortuberweisungen", "de") == ("virements instantanes",)
    assert german.lookup("tollwut", "de") == ("rage",)
    assert german.phrases[("kraft", "warme", "kopplung")] == ("cogeneration",)
    assert german.lookup("widerklage", "de") == ("demande reconventionnelle",)
    assert german.lookup("rechtshangigkeit", "de") == ("litispendance",)
    # an existing entry is left as it was ("Abweichung" was « dérogation » before this list)
    assert german.lookup("abweichung", "de") == ("derogation",)
    # a word de38 withdrew after scoring is not written again
    assert german.lookup("bucher", "de") is None
    # withdrawn after scoring, each because a readable case fell with it: "Schweiz" « suisse » let a negative
    # ("Zusammensetzung des Schweizer Nationalrats") gain hits, "Autos" « voitures » another ("fliegende Autos");
    # "niedrige" « basses » read "niedrig" of "Sicherheitsniveaus niedrig, substanziell und hoch"
    assert german.lookup("schweizer", "de") is None
    assert german.lookup("autos", "de") is None
    assert german.lookup("niedrig", "de") is None
