"""Issue #15, fourth pass: cheaper snippets, the same snippets — a stored text's head inflated about
as far as it is read (``derive.index.textstore.read_heads``), and a word's forms scanned for as their shortest prefixes. On the real fixture
texts (``LEX_FIXTURES``)."""

from __future__ import annotations

import sqlite3

from derive.index.text import normalize
from derive.index.textstore import read_heads, read_texts, stored_texts
from serve.core import snippet as snippets
from serve.core.ops.search import snowball_variants
from tests.index.pipeline import FixtureBuild


def _texts(build: FixtureBuild, name: str, limit: int) -> list[tuple[str, str]]:
    """``(sha, text)`` of the ``limit`` longest stored texts of one fixture index."""
    conn = sqlite3.connect(f"file:{build.index_dir / (name + '.sqlite')}?mode=ro", uri=True)
    shas = [stored for stored, _, _ in sorted(stored_texts(conn), key=lambda t: (-t[1], t[0]))[:limit]]
    found = read_texts(conn, shas)
    return [(sha, found[sha]) for sha in shas]


def test_a_head_is_a_prefix_of_at_least_the_characters_asked_and_no_more_than_before(
        fixture_indexes: FixtureBuild) -> None:
    checked = partial = 0
    for name in ("eu-eurlex", "lu-legilux"):
        conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / (name + '.sqlite')}?mode=ro", uri=True)
        longest = _texts(fixture_indexes, name, 120)
        for chars in (300, 5_000, snippets.HEAD):
            heads = read_heads(conn, [sha for sha, _ in longest], chars)
            for sha, text in longest:
                head, complete = heads[sha]
                assert text.startswith(head)
                if complete:
                    assert head == text
                else:
                    partial += 1
                    assert chars <= len(head) <= 4 * chars
                checked += 1
    assert checked > 600 and partial > 100


def test_the_shortest_forms_find_the_same_first_word_as_every_form(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / 'lu-legilux.sqlite'}?mode=ro", uri=True)
    questions = ["liste des intéressés", "dispositions applicables", "protection données", "marchés publics",
                 "salaire social minimum", "organisation judiciaire"]
    found = 0
    for _, text in _texts(fixture_indexes, "lu-legilux", 80):
        for question in questions:
            words = [w for w in normalize(question).split() if len(w) > 3]
            forms = [f for w in words for f in (w, *snowball_variants(conn, [w], None).get(w, []))]
            assert len(snippets._shortest(forms)) <= len(set(forms))
            every = snippets._lower_terms(tuple(sorted({f for f in forms if len(f) >= 3})))
            lowered = text[:snippets.SCAN].lower()
            if len(lowered) != len(text[:snippets.SCAN]):
                continue
            expected = every.search(lowered)
            got = snippets._first_hit(text, forms)
            assert got == (expected.start() if expected else None), (question, got)
            found += got is not None
    assert found > 50
