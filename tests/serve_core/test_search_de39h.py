"""Issue #15, thirty-ninth session (de39h): the EUR-Lex heading words of the de39 selection.

The selection (``scripts/select_de_title_words.py --eu-from 2000 --eu-top 2500 --lu-from 3000 --lu-top 3600
--headings-from 1800 --headings 2400 --eu-headings-from 1800 --eu-headings 2400``, committed with its full output in
``docs/selections/de39.tsv`` before any entry was written) lists 208 EUR-Lex heading words ranked 1,800–2,400
(publisher ``eu-eurlex-headings``); this pass wrote the German words a user writes for them ("Abwicklungsfähigkeit"
« résolvabilité », "Kronzeugenregelung" « clémence », "Schattenbanken" « système bancaire parallèle »). Helper de39
took the selection's other rows.
"""

from __future__ import annotations

from derive.index import xlang


def test_the_de39h_heading_words_reach_the_german_lexicon() -> None:
    german = xlang.lexicon("de")
    assert german.lookup("abwicklungsfahigkeit", "de") == ("resolvabilite",)
    assert german.lookup("kronzeugenregelung", "de") == ("clemence",)
    assert german.lookup("schattenbanken", "de") == ("systeme bancaire parallele",)
    assert german.lookup("arbeitstagen", "de") == ("jours ouvrables",)
    assert german.phrases[("heiligen", "stuhl")] == ("saint siege",)
    assert german.phrases[("verlustquote", "ausfall")] == ("pertes en cas de defaut",)
    # an existing entry is left as it was ("Rettung" was « secours » before this list)
    assert german.lookup("rettung", "de") == ("secours",)


def test_no_de39h_entry_reads_another_word_by_its_stem() -> None:
    german = xlang.lexicon("de")
    # "anteilig" « prorata » was left out before scoring: its stem read "Anteil", "Anteile" (a share, a company's
    # shares), another sense
    assert german.lookup("anteile", "de") is None
    assert german.lookup("anteilig", "de") is None
    # "geordnete" « ordonnée » is written only as the phrase of the heading (« liquidation ordonnée »): the French
    # word alone is mostly a judge's order
    assert german.lookup("geordnete", "de") is None
    assert german.phrases[("geordnete", "abwicklung")] == ("liquidation ordonnee",)
    # words earlier passes withdrew are not written again ("Siegel" « cachet », "einheitliche" « uniforme »,
    # "vorsichtige" « prudente », "delegierte" « déléguée »: each a word of this band too)
    for word in ("siegel", "einheitliche", "vorsichtige", "delegierte"):
        assert german.lookup(word, "de") is None
