"""Search speed without a different answer: the lookups that replace scans.

- :func:`derive.index.relax.with_synonyms` looks each run of a query's words up in
  :func:`derive.index.relax.synonym_runs` instead of scanning :func:`derive.index.relax.synonyms`
  at every word: the same terms and legal terms as the scan (first entry of the table, longest
  first, matching at a position), over every run of the reviewed table's words.
- :func:`serve.core.ops.search.window_occurrences` reads a window's states by row id and joins the
  window's scores in Python: a window naming a state twice, or a state the index lacks, gives the
  rows the SQL join of :func:`serve.core.ops.search.occurrences` gives, on the real fixture indexes.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence

import pytest

from derive.index import analysis, relax
from serve.core.ops.search import Filters, occurrences, window_occurrences
from serve.core.topk import IndexConnection, RankedCache, values_source
from tests.index.pipeline import FixtureBuild


def _scanned(terms: Sequence[str], stem: relax.Stem | None, language: str | None) -> tuple[list[str], dict[str, list[str]]]:
    """The table scan :func:`relax.with_synonyms` did before its lookup (the reference)."""
    table = relax.synonyms()
    longest = max((len(words) for words, _, _ in table), default=0)
    out: list[str] = []
    found: dict[str, list[str]] = {}
    i = 0
    while i < len(terms):
        for words, phrase, legal in table:
            if tuple(terms[i:i + len(words)]) == words:
                term = phrase if len(words) > 1 else words[0]
                out.append(term)
                found[term] = [t for t in legal if t != term]
                i += len(words)
                break
        else:
            matched = relax._stem_match(terms[i:], stem, language, longest) if stem is not None else None
            if matched is None:
                out.append(terms[i])
                i += 1
                continue
            size, (_, _, legal) = matched
            term = " ".join(terms[i:i + size])
            out.append(term)
            found[term] = [t for t in legal if t != term]
            i += size
    return out, found


def test_synonym_runs_are_the_tables_entries() -> None:
    table = relax.synonyms()
    runs = relax.synonym_runs()
    assert len(runs) == len(table)
    assert all(runs[words] == (phrase, legal) for words, phrase, legal in table)


def test_with_synonyms_looks_up_what_the_table_scan_finds() -> None:
    table = relax.synonyms()
    runs = [words for words, _, _ in table]
    # every entry alone, behind a word, cut short, and each pair of entries' runs side by side
    queries: list[list[str]] = []
    for words in runs:
        queries += [list(words), ["loi", *words], list(words[:-1]), [*words, "arret", "bus"]]
    queries += [[*a, *b] for a, b in itertools.islice(itertools.product(runs[:40], runs[-40:]), 1600)]
    compared = 0
    for terms in queries:
        for stem, language in ((None, None), (analysis.stem_word, None), (analysis.stem_word, "fr"),
                               (analysis.stem_word, "de"), (analysis.stem_word, "en")):
            expected = _scanned(terms, stem, language)
            got = relax.with_synonyms(terms, stem, language)
            assert got == expected and list(got[1]) == list(expected[1]), terms
            compared += 1
    assert compared > 5000


@pytest.mark.parametrize("name", ["eu-eurlex.sqlite", "lu-legilux.sqlite"])
def test_a_window_naming_a_state_twice_or_an_unknown_state_gives_the_joins_rows(fixture_indexes: FixtureBuild,
                                                                                name: str) -> None:
    conn = sqlite3.connect(f"file:{fixture_indexes.index_dir / name}?mode=ro", uri=True, factory=IndexConnection)
    assert isinstance(conn, IndexConnection)
    conn.ranked_cache = RankedCache()
    conn.row_factory = sqlite3.Row
    states = [int(r[0]) for r in conn.execute("SELECT state_rowid FROM lexical_states ORDER BY state_rowid LIMIT 150")]
    unknown = 1 + max(int(r[0]) for r in conn.execute("SELECT max(state_rowid) FROM lexical_states"))
    window = [(s, -1.0 - (i % 7) / 10) for i, s in enumerate(states)]
    languages = [str(r[0]) for r in conn.execute("SELECT DISTINCT language FROM lexical_states")]
    compared = 0
    for shaped in (window + window[:5], [*window[:60], (unknown, -9.0), *window[60:]], window[::-1] + window[:3]):
        for filters in (Filters(), *(Filters(language=lang) for lang in languages)):
            for limit in (-1, 1, 10, 120):
                rows = window_occurrences(conn, shaped, filters, limit)
                assert rows == occurrences(conn, *values_source(shaped), filters, limit)
                compared += bool(rows)
    assert compared > 20
