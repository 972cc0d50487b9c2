"""Pure parts of the index builder: normalisation, article keys, FTS escaping, identifiers, history."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.index import textstore
from derive.index.digest import row_bytes
from derive.index.history import VersionText, build_history
from derive.index.identifiers import (
    celex_to_slug,
    eu_eli_celex,
    href_slug_candidates,
    lu_slug_candidates,
)
from derive.index.schema import DDL
from derive.index.text import anchor_article_key, article_key, fts_query, normalize
from derive.index.textstore import check, decode, encode
from legal.canonical import canonical_bytes
from legal.errors import IndexError_


@pytest.mark.parametrize(("text", "expected"), [
    ("Règlement Général (RGPD)", "reglement general rgpd"),
    ("  AI-Act / IA  ", "ai act ia"),
    ("C R R", "crr"),
    ("Protection des données à caractère personnel", "protection des donnees a caractere personnel"),
])
def test_normalize(text: str, expected: str) -> None:
    assert normalize(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("art_1er", "1"), ("Art. 1er.", "1"), ("1", "1"), ("1re", "1"), ("article 1", "1"),
    ("art_42ter", "42-ter"), ("42 ter", "42-ter"), ("art_l_111-1", "l-111-1"), ("L. 111-1", "l-111-1"),
    ("art_6a", "6-a"), ("Article 92a", "92-a"), ("anx_I", None), ("Annex", None),
])
def test_article_key(text: str, expected: str | None) -> None:
    assert article_key(text) == expected


def test_42_never_meets_42ter() -> None:
    assert anchor_article_key("art_42") != anchor_article_key("art_42ter")
    assert anchor_article_key("art_1") == anchor_article_key("art_1er")
    assert anchor_article_key("anx_1") is None


@pytest.mark.parametrize("hostile", [
    'NEAR(a b)', '"unbalanced', "col : value", "a* OR b", "AND", "-x", "^start", "(((", "'; DROP TABLE texts; --",
    "\x00", "title:thing", '""', "*",
])
def test_fts_query_quotes_everything(hostile: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE f USING fts5(title, text, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO f VALUES ('thing', 'a b value start x')")
    match = fts_query([[t] for t in hostile.split()] or [[hostile]])
    if match is not None:
        conn.execute("SELECT rowid FROM f WHERE f MATCH ?", (match,)).fetchall()


def test_fts_query_groups_alternatives() -> None:
    assert fts_query([["data"], ["protecton", "protection"]]) == '"data" AND ("protecton" OR "protection")'
    assert fts_query([["a"], ["b"]], any_of=True) == '"a" OR "b"'
    assert fts_query([]) is None


def test_identifiers() -> None:
    assert lu_slug_candidates("http://data.legilux.public.lu/eli/etat/leg/loi/2020/06/04/a476/jo")[0] == \
        "loi-2020-06-04-a476"
    assert lu_slug_candidates("https://legilux.public.lu/eli/etat/leg/loi/2011/04/08/n2/consolide/20240910/fr") == \
        ["loi-2011-04-08-n2"]  # a dated act is its five segments; no partial-date candidates
    assert "code-penal" in lu_slug_candidates("http://data.legilux.public.lu/eli/etat/leg/code/penal/art_454/20210430")
    assert eu_eli_celex("http://data.europa.eu/eli/reg/2016/679/oj") == "32016R0679"
    assert eu_eli_celex("http://data.europa.eu/eli/dir/2014/65/oj") == "32014L0065"
    assert celex_to_slug("02016R0679-20160504") == "32016r0679"
    assert celex_to_slug("12012E/TXT") == "12012e-txt"
    assert href_slug_candidates("https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32013R0575") == \
        [("eu-eurlex", "32013r0575")]


values = st.one_of(st.none(), st.integers(min_value=-(2**53) + 1, max_value=2**53 - 1),
                   st.text(alphabet=st.characters(blacklist_categories=("Cs",))))


@given(st.lists(values, max_size=8))
def test_row_bytes_is_rfc8785(row: list[object]) -> None:
    assert row_bytes(row) == canonical_bytes(row)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",))))
def test_text_store_round_trip(text: str) -> None:
    encoding, characters, body = encode(text)
    assert characters == len(text)
    assert decode(encoding, body) == check(hashlib.sha256(text.encode()).hexdigest(), text) == text


def _text_tables() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    for statement in DDL:
        if "TABLE text_" in statement or "TABLE texts" in statement:
            conn.execute(statement)
    textstore.write_dictionary(conn, textstore.train(["Article premier. Les dispositions suivantes.",
                                                      "Les dispositions suivantes. Fin."]))
    return conn


_texts = st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000), max_size=12)


@given(_texts, st.integers(min_value=0, max_value=20_000), st.integers(min_value=1, max_value=400))
def test_text_blocks_round_trip(texts: list[str], long: int, chars: int) -> None:
    """Texts packed in blocks read back whole and by their heads, however they fall in blocks."""
    texts = [*texts, "é" * long, "x" * textstore.BLOCK_BYTES]
    pairs = {hashlib.sha256(t.encode()).hexdigest(): t for t in texts}
    conn = _text_tables()
    textstore.write_texts(conn, pairs.items())
    textstore.BLOCKS.clear()
    assert textstore.read_texts(conn, [*pairs, "0" * 64]) == pairs
    assert textstore.read_texts(conn, pairs) == pairs  # from the cache
    heads = textstore.read_heads(conn, pairs, chars)
    for sha, text in pairs.items():
        head, complete = heads[sha]
        assert text.startswith(head) and len(head) >= min(chars, len(text)) and complete == (head == text)
    assert sorted(textstore.stored_texts(conn)) == sorted((s, len(t.split()), t) for s, t in pairs.items())
    located = textstore.locate(conn, [*pairs, "0" * 64, "not a hash"])
    assert sorted(located) == sorted(pairs)
    assert all(where.words == len(pairs[sha].split()) for sha, where in located.items())
    textstore.BLOCKS.clear()
    assert textstore.read_located(conn, located) == pairs
    # a caller's blocks: texts cut from what it read before, by halves, and what was read added
    raws: dict[int, bytes] = {}
    shas = sorted(located)
    first = {sha: located[sha] for sha in shas[:len(shas) // 2]}
    assert textstore.read_located(conn, first, raws) == {sha: pairs[sha] for sha in first}
    assert set(raws) == {where.block for where in first.values()}
    assert textstore.read_located(conn, located, raws) == pairs
    assert set(raws) == {where.block for where in located.values()}
    blocks = conn.execute("SELECT block_rowid, length(body) FROM text_blocks ORDER BY 1").fetchall()
    assert [b for b, _ in blocks] == list(range(1, len(blocks) + 1))


def test_a_text_block_closes_before_a_text_that_would_overflow_it() -> None:
    packer = textstore.Packer()
    assert packer.add("a", "x" * (textstore.BLOCK_BYTES - 10)) == []
    closed = packer.add("b", "y" * 20)  # would pass the size: the first block closes first
    assert [rows for _, rows in closed] == [[("a", 1, 1, 0, textstore.BLOCK_BYTES - 10)]]  # one word
    closed = packer.add("c", "z " * (textstore.BLOCK_BYTES // 2))  # does not fit either; alone, it fills its own
    assert [rows for _, rows in closed] == [[("b", 1, 2, 0, 20)], [("c", textstore.BLOCK_BYTES // 2, 3, 0,
                                                                      textstore.BLOCK_BYTES)]]
    assert packer.finish() == []


def test_a_text_not_stored_is_refused_by_read_text() -> None:
    with pytest.raises(IndexError_) as caught:
        textstore.read_text(_text_tables(), "0" * 64)
    assert caught.value.code == "text_missing"


def _vt(rowid: int, start: str, end: str | None, provisions: dict[str, str]) -> VersionText:
    return VersionText(rowid, start, end, tuple((a, s, None) for a, s in provisions.items()))


def test_history_states_and_renumbering() -> None:
    history = build_history(1, "fr", [
        _vt(1, "2020-01-01", "2021-01-01", {"art_1": "a", "art_2": "b", "art_3": "c"}),
        _vt(2, "2021-01-01", "2022-01-01", {"art_1": "a", "art_2": "b2", "art_4": "c"}),
        _vt(3, "2023-01-01", None, {"art_1": "a", "art_2": "b2", "art_4": "c"}),  # after a publisher gap
    ])
    states = {(s[2], s[3]): s for s in history.states}
    assert states[("art_1", 0)][4:6] == ("2020-01-01", "2022-01-01")  # two touching versions, one state
    assert states[("art_1", 1)][4:6] == ("2023-01-01", None)  # the gap closes the state
    assert states[("art_2", 1)][6] == "b2"
    events = [(e[4], e[5], e[6]) for e in history.events]
    assert events == [("renumbered", "art_4", "art_3")]


def test_data_uris_are_kept_out_of_the_fts_text() -> None:
    from derive.index.text import fts_text

    text = "Personal data: kept ![logo](data:image/png;base64,iVBORw0KGgo+/AAA=) and DATA:,plain end"
    assert fts_text(text) == "Personal data: kept ![logo]( ) and   end"
    assert fts_text("no uri here") == "no uri here"


def test_the_text_dictionary_is_the_recurring_sentences_whatever_the_order() -> None:
    texts = ["Article 1. Le présent règlement entre en vigueur le vingtième jour. Fin.",
             "Article 2. Le présent règlement entre en vigueur le vingtième jour. Autre.",
             "Article 3. Une phrase qui ne revient pas du tout ailleurs."]
    dictionary = textstore.train(texts)
    assert dictionary == "Le présent règlement entre en vigueur le vingtième jour.\n".encode()
    assert textstore.train(reversed(texts)) == dictionary
    assert textstore.train([]) == b""


def test_a_block_read_in_part_goes_on_from_where_it_stopped() -> None:
    """A head inflates the start of a block; a later read of a text further on goes on from there."""
    texts = {hashlib.sha256(t.encode()).hexdigest(): t for t in ("début " * 3, "milieu " * 2000, "fin " * 300)}
    conn = _text_tables()
    textstore.write_texts(conn, texts.items())
    assert conn.execute("SELECT COUNT(DISTINCT block_rowid) FROM texts").fetchone()[0] == 1
    textstore.BLOCKS.clear()
    first, middle, last = texts
    assert textstore.read_heads(conn, [first], 20)[first] == (texts[first], True)
    assert textstore.read_heads(conn, [middle], 20)[middle][1] is False
    assert textstore.read_texts(conn, [last, middle]) == {last: texts[last], middle: texts[middle]}
    assert textstore.read_texts(conn, texts) == texts
    other = _text_tables()  # another connection: its own blocks, never the first one's
    assert textstore.read_texts(other, texts) == {}
