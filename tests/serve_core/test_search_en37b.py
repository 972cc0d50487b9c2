"""Issue #15, thirty-seventh session (en37b): the next English band of Legilux title and heading words.

English on EUR-Lex needs no band: every EUR-Lex work with text has English text but the French-only
corrigenda, which the title counts leave out. So the English lexicon reaches the French words of the next
band of Legilux title words (ranks 1,500–2,100) and of the Legilux heading words ranked 800–1,400
(``scripts/select_de_title_words.py --language en --eu-top 0 --lu-from 1500 --lu-top 2100 --headings-from 800
--headings 1400``, committed before any entry was written): "criminal record" « casier judiciaire »,
"magistrates" « magistrats », "slurry" « lisier »; the real fixture corpus (``LEX_FIXTURES``) is read where an
index is.
"""

from __future__ import annotations

from typing import Any

from derive.index import xlang
from tests.index.pipeline import FixtureBuild
from tests.scripts_loader import load_script

LU = "lu-legilux"


def test_the_en37b_band_of_title_and_heading_words_reach_the_english_lexicon() -> None:
    english = xlang.lexicon("en")
    assert english.phrases[("criminal", "record")] == ("casier judiciaire",)
    assert english.lookup("magistrates", "en") == ("magistrats",)
    assert english.lookup("slurry", "en") == ("lisier",)
    assert english.lookup("forgery", "en") == ("faux",)
    # en38 added « retraite anticipée » after it (the heading word « anticipée »)
    assert english.phrases[("early", "retirement")][:1] == ("preretraite",)
    # a word with a mined entry keeps its mined terms after the reviewed one ("mortgage" was « hypothécaire »)
    assert english.lookup("mortgage", "en")[:3] == ("hypotheque", "hypothecaire", "hypothecaires")
    # left out: a sense the band's acts do not give ("domestic" is « national » in EU law; "trial" an « essai »)
    assert "domestique" not in (english.lookup("domestic", "en") or ())
    assert english.lookup("trial", "en") is None or "proces" not in english.lookup("trial", "en")
    # withdrawn after scoring, each because a readable case fell with it ("journalists" let a negative
    # question gain a hit; "treasury" is « Trésor » there, not « trésorerie »)
    assert english.lookup("journalists", "en") is None
    assert english.lookup("treasury", "en") == ("tresor",)
    assert english.lookup("technician", "en") is None or "technicien" not in english.lookup("technician", "en")


def _selector() -> Any:
    return load_script("select_de_title_words")


def test_the_selection_script_starts_the_legilux_heading_ranks_where_asked(fixture_indexes: FixtureBuild,
                                                                           capsys: Any) -> None:
    selector = _selector()
    base = ["--index-dir", str(fixture_indexes.index_dir), "--language", "en", "--eu-top", "0", "--lu-top", "0"]
    assert selector.main([*base, "--headings", "400"]) == 0
    whole = [line.split("\t")[1] for line in capsys.readouterr().out.splitlines()]
    assert selector.main([*base, "--headings-from", "200", "--headings", "400"]) == 0
    band = [line.split("\t")[1] for line in capsys.readouterr().out.splitlines()]
    assert band and set(band) < set(whole)
    assert selector.main([*base, "--headings-from", "400", "--headings", "400"]) == 0
    assert capsys.readouterr().out == ""
