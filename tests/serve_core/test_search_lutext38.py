"""Issue #15, thirty-eighth session (lutext38): the Legilux provision-text band of the selection script.

A bilingual Legilux question (English or German on French-only text) uses the words of the provisions, not
only those of titles and headings. ``scripts/select_de_title_words.py --lu-text N`` counts the words of the
Legilux works' French provisions (a word once per work) and prints each word no entry of the language reaches
among the ranks ``--lu-text-from`` to N, leaving out the title and heading bands other passes take
(``--lu-text-skip-titles``, ``--lu-text-skip-headings``); the real fixture corpus (``LEX_FIXTURES``) is read
where an index is.
"""

from __future__ import annotations

from typing import Any

from tests.index.pipeline import FixtureBuild
from tests.scripts_loader import load_script


def _band(selector: Any, capsys: Any, index_dir: str, *extra: str) -> list[str]:
    base = ["--index-dir", index_dir, "--language", "en", "--eu-top", "0", "--lu-top", "0"]
    assert selector.main([*base, *extra]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(line.split("\t")[0] == "lu-legilux-text" for line in lines)
    return [line.split("\t")[1] for line in lines]


def test_the_selection_script_lists_the_legilux_provision_text_words(fixture_indexes: FixtureBuild,
                                                                     capsys: Any) -> None:
    selector = load_script("select_de_title_words")
    index_dir = str(fixture_indexes.index_dir)
    assert _band(selector, capsys, index_dir) == []  # no band unless asked
    free = ["--lu-text-skip-titles", "0", "--lu-text-skip-headings", "0"]
    whole = _band(selector, capsys, index_dir, "--lu-text", "600", *free)
    assert len(whole) > 20 and len(set(whole)) == len(whole)
    # each printed word is held by provisions and reached by no English entry
    lexicon_words, _stems = selector.reached_words("en")
    assert not set(whole) & lexicon_words
    # the ranks start where asked
    band = _band(selector, capsys, index_dir, "--lu-text-from", "300", "--lu-text", "600", *free)
    assert band and set(band) < set(whole)
    assert _band(selector, capsys, index_dir, "--lu-text-from", "600", "--lu-text", "600", *free) == []
    # the title and heading bands other passes take are left out, whatever the language
    skipping = _band(selector, capsys, index_dir, "--lu-text", "600")
    assert set(skipping) < set(whole)
    titles = selector._counts(selector._lu_titles(selector.open_readonly(fixture_indexes.index_dir /
                                                                        "lu-legilux.sqlite")))[0]
    assert not set(skipping) & {word for word, _ in titles.most_common(2700)}
    assert set(whole) & {word for word, _ in titles.most_common(2700)}


def test_the_lutext38_band_reaches_the_english_and_german_lexicons() -> None:
    from derive.index import xlang

    english, german = xlang.lexicon("en"), xlang.lexicon("de")
    assert english.phrases[("formal", "notice")] == ("mise en demeure",)
    assert english.phrases[("res", "judicata")] == ("chose jugee",)
    assert english.phrases[("casting", "vote")] == ("voix preponderante",)
    assert english.lookup("alternate", "en") == ("suppleant", "suppleants")
    # a word with an entry keeps its terms and gains the band's ("granted" was « accordé » only)
    assert english.lookup("granted", "en") == ("accorde", "accordee", "accordees")
    assert german.lookup("halfte", "de") == ("moitie",)
    assert german.lookup("mehrheit", "de") == ("majorite",)
    assert german.lookup("mahnung", "de") == ("mise en demeure",)
    assert german.phrases[("letzter", "instanz")] == ("dernier ressort",)
