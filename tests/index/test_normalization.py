"""Query-side normalisation agrees with the FTS5 tokenizer (SQLite itself is the oracle).

``derive.index.text.normalize`` once split ``Großherzogtum`` into ``gro herzogtum`` while FTS5
(``unicode61 remove_diacritics 2``) indexes ``großherzogtum``, so no German word with ß could
ever match. These tests pin the fix: every word the query side produces is the term the index
holds, checked against SQLite's own tokenizer through ``fts5vocab``.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.index.read import check_mountable, open_readonly
from derive.index.schema import FTS_TOKENIZER
from derive.index.text import NORMALIZATION, fts_query, fts_tokens, normalize
from legal.errors import IndexError_
from tests.index.pipeline import FixtureBuild


@contextmanager
def _oracle() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE doc USING fts5(x, tokenize='{FTS_TOKENIZER}')")
    conn.execute("CREATE VIRTUAL TABLE doc_terms USING fts5vocab(doc, 'instance')")
    try:
        yield conn
    finally:
        conn.close()


def _sqlite_tokens(conn: sqlite3.Connection, texts: list[str]) -> list[list[str]]:
    """How FTS5 tokenises each text: its terms in document order."""
    conn.execute("DELETE FROM doc")
    conn.executemany("INSERT INTO doc(rowid, x) VALUES (?, ?)", [(i + 1, t) for i, t in enumerate(texts)])
    out: list[list[str]] = [[] for _ in texts]
    for rowid, term in conn.execute("SELECT doc, term FROM doc_terms ORDER BY doc, offset"):
        out[rowid - 1].append(term)
    return out


@pytest.mark.parametrize(("text", "expected"), [
    ("Großherzogtum", "großherzogtum"),
    ("GROẞHERZOGTUM", "großherzogtum"),
    ("Das Großherzogtum Luxemburg", "das großherzogtum luxemburg"),
    ("Maßnahmen gemäß Artikel 5", "maßnahmen gemaß artikel 5"),
    ("Ærø og Øresund", "ærø og øresund"),
    ("Œuvre", "œuvre"),
    ("Łódź", "łodz"),
    ("Þingvellir", "þingvellir"),
    ("Ελλάδα", "ελλάδα"),
    ("Закон", "закон"),
    ("e\u0301cole", "ecole"),
    ("l’État", "l etat"),
    ("Règlement Général (RGPD)", "reglement general rgpd"),
    ("C R R", "crr"),
])
def test_normalize_keeps_what_the_tokenizer_keeps(text: str, expected: str) -> None:
    assert normalize(text) == expected
    with _oracle() as conn:
        [tokens] = _sqlite_tokens(conn, [text])
    if " " in expected or len(tokens) == 1:
        assert expected.split() == tokens


def test_every_european_character_is_cut_and_folded_like_fts5() -> None:
    """Latin-1, Latin Extended A/B, IPA, combining marks, Greek, Cyrillic, Latin Extended
    Additional and general punctuation, each between two letters, exactly as FTS5 does."""
    ranges = [(0x80, 0x530), (0x1E00, 0x2070), (0x20A0, 0x20C0), (0xFB00, 0xFB07)]
    texts = [f"a{chr(c)}b" for lo, hi in ranges for c in range(lo, hi)]
    with _oracle() as conn:
        expected = _sqlite_tokens(conn, texts)
    mismatches = [(t, fts_tokens(t), e) for t, e in zip(texts, expected, strict=True) if fts_tokens(t) != e]
    assert mismatches == []


_LETTERS = st.sampled_from(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "ßẞàâäçéèêëîïôöùûüÿæœøåłđþðıÀÂÄÇÉÈÊËÎÏÔÖÙÛÜŸÆŒØÅŁĐÞÐİñÑõãšžčřůőűğşĳſµ"
    "αβγδεάέήίόύώΑΆΈабвгдеёжзийЁЙ\u0301\u0300\u0308\u0327"
)
_SEPARATORS = st.sampled_from(" -'’·°§_/.,;:()«»\u00a0\u00ad\u200b")
_WORD = st.text(_LETTERS, min_size=1, max_size=14)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_WORD, _SEPARATORS), min_size=1, max_size=6))
def test_query_normalisation_matches_how_fts5_tokenises(parts: list[tuple[str, str]]) -> None:
    """Property: for random words and separators, the query side's words are FTS5's terms, and a
    query built from the normalised text finds the document."""
    text = "".join(w + s for w, s in parts)
    with _oracle() as conn:
        [expected] = _sqlite_tokens(conn, [text])
        assert fts_tokens(text) == expected
        words = [w for w, _ in parts]
        for word, terms in zip(words, _sqlite_tokens(conn, words), strict=True):
            if len(terms) == 1:
                assert normalize(word) == terms[0]
        joined = len(expected) > 1 and all(len(t) == 1 and t.isalpha() for t in expected)
        assert normalize(text) == ("".join(expected) if joined else " ".join(expected))
        conn.execute("DELETE FROM doc")
        conn.execute("INSERT INTO doc(rowid, x) VALUES (1, ?)", (text,))
        match = fts_query([[t] for t in fts_tokens(text)])
        if match is not None:
            assert conn.execute("SELECT rowid FROM doc WHERE doc MATCH ?", (match,)).fetchall() == [(1,)]


def test_an_index_normalised_otherwise_is_refused(handmade_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "eu-eurlex.sqlite"
    shutil.copy(handmade_dir / "eu-eurlex.sqlite", copy)
    assert check_mountable(open_readonly(copy), copy.name)["text_normalization"] == NORMALIZATION
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE stamp SET v = 'ascii-only/0' WHERE k = 'text_normalization'")
    conn.commit()
    conn.close()
    with pytest.raises(IndexError_) as err:
        check_mountable(open_readonly(copy), copy.name)
    assert err.value.code == "index_unfit" and "rebuild" in err.value.message


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=0, max_codepoint=127, blacklist_categories=("Cs",)), max_size=60))
def test_ascii_text_takes_the_short_path_to_the_same_words(text: str) -> None:
    """Property: an all-ASCII text (the short path of ``fts_tokens`` and ``fold``) is cut exactly as
    FTS5 cuts it, and folds to its lower case as the Unicode path would."""
    import unicodedata

    from derive.index.text import fold

    with _oracle() as conn:
        [expected] = _sqlite_tokens(conn, [text.replace("\x00", " ")])
    assert fts_tokens(text.replace("\x00", " ")) == expected
    decomposed = unicodedata.normalize("NFKD", text)
    assert fold(text) == "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def _fold_whole(text: str) -> str:
    """:func:`derive.index.text.fold` as defined: the whole text decomposed (NFKD) at once, its
    combining marks dropped, lower-cased."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def _tokens_char_by_char(text: str) -> list[str]:
    """:func:`derive.index.text.fts_tokens` as it was written first: one character at a time."""
    from derive.index import text as module

    module._TOKENIZER.learn(text)
    out: list[str] = []
    word: list[str] = []
    for ch in text:
        folded = module._TOKENIZER.fold[ch]
        if folded is None:
            if word:
                out.append("".join(word))
                word = []
        else:
            word.append(folded)
    if word:
        out.append("".join(word))
    return [w for w in out if w]


_MARKED = st.text(st.one_of(st.characters(blacklist_categories=("Cs",)),
                            st.sampled_from("\u0301\u0300\u0327\u0308\u031b\u0323Σσς\u1100\uac00ﬁ½①ǅİß ")), max_size=80)


@settings(max_examples=500, deadline=None)
@given(_MARKED)
def test_folding_a_character_at_a_time_is_folding_the_whole_text(text: str) -> None:
    """Property: ``fold``'s table (each character decomposed alone, marks dropped) gives the whole
    text's NFKD without combining marks, lower-cased — with stacked marks in any order, Hangul,
    ligatures, a final sigma; and ``fts_tokens``' table gives the words of the character loop."""
    from derive.index.text import fold

    assert fold(text) == _fold_whole(text)
    assert fts_tokens(text) == _tokens_char_by_char(text)


def test_the_fixture_names_fold_and_cut_as_before(fixture_indexes: FixtureBuild) -> None:
    """Every stored name and title of the fixture indexes folds and cuts as the definitions say."""
    from derive.index.text import fold

    for path in sorted(fixture_indexes.index_dir.glob("*.sqlite")):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        values = [str(v) for (v,) in conn.execute("SELECT value FROM work_names")]
        conn.close()
        assert values
        assert [fold(v) for v in values] == [_fold_whole(v) for v in values]
        assert [fts_tokens(v) for v in values] == [_tokens_char_by_char(v) for v in values]
