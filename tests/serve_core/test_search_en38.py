"""Issue #15, thirty-eighth session (en38): the next English band of Legilux title and heading words.

The band after en37b's: the Legilux title words ranked 2,100–2,700 and the Legilux heading words ranked
1,400–2,000 that no English entry's French reached (``scripts/select_de_title_words.py --language en --eu-top 0
--lu-from 2100 --lu-top 2700 --headings-from 1400 --headings 2000``, committed with its output before any entry
was written): "prosecutor" « procureur », "rabies" « rage », "family reunification" « regroupement familial ».
"""

from __future__ import annotations

from derive.index import xlang


def test_the_en38_band_of_title_and_heading_words_reach_the_english_lexicon() -> None:
    english = xlang.lexicon("en")
    assert english.lookup("prosecutor", "en") == ("procureur",)
    assert english.lookup("rabies", "en") == ("rage",)
    assert english.lookup("dietitians", "en") == ("dieteticiens",)
    assert english.lookup("census", "en") == ("recensement",)
    assert english.phrases[("family", "reunification")] == ("regroupement familial",)
    assert english.phrases[("end", "life", "vehicles")] == ("vehicules hors d usage",)
    # a word whose only French came from a sibling form or a mined pair now has the band's term first
    # ("publishers" was read as "published" « publié »; "subsidised" was mined as « scolaires »)
    assert english.lookup("publishers", "en") == ("editeurs",)
    assert english.lookup("subsidised", "en")[:2] == ("subventionne", "subventionnes")
    # left out: words an earlier pass withdrew or did not merge ("war" « guerre », "ornamental"), and a sense
    # the band does not give ("deputy" stays « député », not « adjoint »)
    assert english.lookup("war", "en") is None or "guerre" not in english.lookup("war", "en")
    assert english.lookup("deputy", "en") == ("depute",)


def test_the_en38_entries_withdrawn_after_scoring_stay_out() -> None:
    english = xlang.lexicon("en")
    # "landing stages" « débarcadères » cost en37 bilingual-4563; "late payment interest" « intérêts
    # moratoires » cost bilingual2 bilingual-512 (the act asked writes « intérêts de retard »)
    assert ("landing", "stages") not in english.phrases
    assert ("late", "payment", "interest") not in english.phrases
