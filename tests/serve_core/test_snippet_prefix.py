"""Issue #14, cold search: cheaper snippets, the same snippets. A snippet's first word found by
lower-casing a long head's first characters only (``serve.core.snippet._earliest_by_prefix``), the
same position as lower-casing the whole scanned head: checked against the whole-head reading on the
real fixture texts (``LEX_FIXTURES``) and on made texts placing the word across the prefix's edge.
Whitespace folded by ``str.split`` as the regular expression ``\\s+`` folded it."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence

import pytest

from derive.index.text import normalize
from derive.index.textstore import read_texts, stored_texts
from serve.core import snippet as snippets
from serve.core.ops.search import snowball_variants
from tests.index.pipeline import FixtureBuild


def _whole_head(text: str, terms: Sequence[str]) -> int | None:
    """The first hit as found before: the whole scanned head lower-cased."""
    wanted = snippets._shortest([t for t in terms if len(t) >= 3])
    if not wanted:
        return None
    head = text[:snippets.SCAN]
    lowered = head.lower()
    if len(lowered) == len(head):
        return snippets._earliest(lowered, wanted)
    found = snippets._any_term(wanted).search(head)
    return found.start() if found is not None else None


def test_only_two_characters_lower_by_more_than_themselves() -> None:
    longer = [c for c in range(0x110000) if len(chr(c).lower()) != 1]
    assert longer == [ord(snippets._LONGER)]
    # final sigma: the one lowering Python's str.lower decides by the neighbours
    assert "ΑΣ".lower() != "ΑΣΑ".lower()[:2]


@pytest.mark.parametrize("edge", [-12, -9, -8, -7, -1, 0, 1, 5])
def test_a_word_at_the_prefix_edge_is_found_where_the_whole_head_finds_it(edge: int) -> None:
    terms = ["intéressés", "interesse", "liste"]
    normalized = [normalize(t) for t in terms]
    filler = "Les autorités compétentes veillent à la bonne application. "
    for word in ("INTÉRESSÉS", "intéressés", "Liste", "xliste", "listes"):
        pad = (filler * 60)[:snippets.FIRST_LOWERED + edge]
        for text in (pad + word + " " + filler * 10, pad + " " + word + filler * 10,
                     pad[:-1] + "-" + word + filler * 10):
            got = snippets._first_hit(text, normalized)
            assert got == _whole_head(text, normalized), (word, edge)


def test_contextual_characters_take_the_whole_head() -> None:
    filler = "Règlement sur les marchés publics et les concessions. "
    for odd in ("\u0130STANBUL ", "ΣΟΦΙΑΣ "):
        for at in (10, snippets.FIRST_LOWERED - 3, snippets.FIRST_LOWERED + 40):
            text = (filler * 80)[:at] + odd + (filler * 80)[at:] + " marchés"
            for words in (["marches"], ["concessions", "publics"], ["absent"], ["istanbul"], ["sofias"]):
                assert snippets._first_hit(text, words) == _whole_head(text, words), (odd, at, words)


def test_the_fixture_texts_give_the_same_first_word(fixture_indexes: FixtureBuild) -> None:
    questions = ["liste des intéressés", "dispositions applicables", "protection données", "marchés publics",
                 "directive text", "conditions sanctions", "organisation judiciaire", "annexe"]
    long_heads = 0
    for name in ("eu-eurlex", "lu-legilux"):
        conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / (name + '.sqlite')}?mode=ro", uri=True)
        shas = [sha for sha, _, _ in sorted(stored_texts(conn), key=lambda t: (-t[1], t[0]))[:150]]
        texts = read_texts(conn, shas)
        for question in questions:
            words = [w for w in normalize(question).split() if len(w) > 3]
            forms = [f for w in words for f in (w, *snowball_variants(conn, [w], None).get(w, []))]
            for sha in shas:
                text = texts[sha]
                long_heads += len(text) > snippets.FIRST_LOWERED
                assert snippets._first_hit(text, forms) == _whole_head(text, forms), (name, question, sha)
    assert long_heads > 1_000


def test_whitespace_runs_fold_as_the_regular_expression_folded_them() -> None:
    spaces = [chr(c) for c in range(0x110000) if re.match(r"\s", chr(c))]
    assert spaces == [chr(c) for c in range(0x110000) if chr(c).isspace()]
    for space in spaces:
        for text in (f"{space}a{space}{space}b {space}", f"a{space}", f"{space}", "a\u00a0\u2003b\n\tc"):
            assert snippets.snippet(text, ["b"]) == _regex_folded(text, ["b"]), repr(space)


def _regex_folded(text: str, words: Sequence[str]) -> str:
    """The snippet as cut before: whitespace folded by ``re.sub(r"\\s+", " ", …).strip()``."""
    hit = snippets._first_hit(text, words)
    start = max(0, hit - snippets.WINDOW // 3) if hit is not None else 0
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    end = min(len(text), start + snippets.WINDOW)
    while end < len(text) and not text[end].isspace():
        end += 1
    body = re.sub(r"\s+", " ", text[start:end]).strip()
    if not text or text.isspace():
        return ""
    return ("… " if start > 0 else "") + body + (" …" if end < len(text) else "")
