"""The frequent terms and their match groups of an index, kept beside it for the next incremental build.

Two whole-index passes of a build read every term: the ``provision_vocab`` scan that brings
``vocabulary`` up to date, and the frequent groups of ``frequent_matches``
(:func:`derive.index.serving.frequent_groups`: each term held by at least
:data:`derive.index.serving.FORMS_MIN_DOCS` rows, its Snowball forms from ``term_stems``). Only the
terms of the rows a build rewrote can change their row counts, and only a term whose own count
changed or whose stems' ``term_stems`` rows changed can change its groups. So a build keeps, beside
its index (``.<publisher>.terms.z``, never in it nor in a release: the index's bytes are those of a
build without it), every term of at least that many rows with its count and its groups
(:class:`Terms`); the next incremental build reads the counts of the changed rows' terms only
(:func:`changed_terms`, :func:`term_docs`) and computes the groups of the affected terms only.

The file is trusted only for the index file whose SHA-256 it names and the recipe it was made by
(:func:`recipe`: the thresholds, the stemmers' languages, the stop words, :data:`RECIPE`); missing,
damaged, of another file or another recipe, it is ignored and the build reads every term, as a
full build does (the result is the same index either way: ``tests/index/test_incremental.py``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from derive.index import sidecar
from legal.canonical import digest

SCHEMA = "lex-index-terms/1"
#: Bumped whenever :func:`derive.index.analysis.word_forms` or the groups' rule changes in a way the
#: digest of :func:`recipe` does not see (a kept group is then computed again, never reused).
RECIPE = 1

#: one match group of a term: its FTS5 match string and its terms
Group = tuple[str, tuple[str, ...]]


@dataclass
class Terms:
    """Every ``provision_vocab`` term of at least the groups' threshold rows (``docs``: term → rows)
    and, per such term, its match groups before the build drops a match string met already
    (``groups``), under the recipe digest ``recipe``."""

    recipe: str
    docs: dict[str, int] = field(default_factory=dict)
    groups: dict[str, list[Group]] = field(default_factory=dict)


def recipe(*parts: object) -> str:
    """The digest of what a term's groups are a function of besides the index's rows (the caller's
    thresholds, languages and stop words), with :data:`SCHEMA` and :data:`RECIPE`."""
    return digest([SCHEMA, RECIPE, [p if isinstance(p, (int, str)) else sorted(p) if isinstance(p, (set, frozenset))
                                    else p for p in parts]])


def path_of(out_dir: Path, publisher: str) -> Path:
    return out_dir / f".{publisher}.terms.z"


def dump(terms: Terms, index_sha256: str) -> bytes:
    """A :func:`derive.index.sidecar.frame` whose head holds everything: the index file, the recipe, and
    per term its count and groups."""
    return sidecar.frame({"schema": SCHEMA, "index_sha256": index_sha256, "recipe": terms.recipe,
                          "terms": [[t, terms.docs[t], [[m, list(ts)] for m, ts in terms.groups.get(t, [])]]
                                    for t in sorted(terms.docs)]})


def load(path: Path, index_sha256: str, wanted_recipe: str) -> Terms | None:
    """The sidecar at ``path`` when it describes the index of SHA-256 ``index_sha256`` under
    ``wanted_recipe``, else None (missing, damaged, of another file or recipe: every term is read)."""
    found = sidecar.unframe(path, SCHEMA, index_sha256)
    if found is None or found[0].get("recipe") != wanted_recipe:
        return None
    out = Terms(wanted_recipe)
    try:
        for term, docs, groups in found[0]["terms"]:
            if not isinstance(term, str) or not isinstance(docs, int) or isinstance(docs, bool):
                return None
            out.docs[term] = docs
            out.groups[term] = [(str(m), tuple(str(t) for t in ts)) for m, ts in groups]
    except (ValueError, TypeError, KeyError):
        return None
    return out


def write(path: Path, terms: Terms | None, index_sha256: str) -> None:
    """Write (or, with no ``terms`` or no frequent term to keep, remove) the sidecar, through a file
    renamed into place (absent, the next incremental build reads every term: a small index's few)."""
    sidecar.write(path, dump(terms, index_sha256) if terms is not None and terms.docs else None)


def changed_terms(conn: sqlite3.Connection, rows: Iterable[Sequence[object]], columns: Sequence[str],
                  tokenizer: str) -> set[str]:
    """Every term of ``rows`` (``(rowid, *column values)`` as inserted in, or deleted from, an FTS5
    table of ``columns`` and ``tokenizer``): the rows indexed again in a scratch FTS5 table, its
    vocabulary read."""
    conn.execute(f"CREATE VIRTUAL TABLE temp.terms_fts USING fts5({', '.join(columns)}, content='', "
                 f"tokenize='{tokenizer}')")
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.terms_vocab USING fts5vocab(temp, terms_fts, 'row')")
        marks = ",".join("?" * (len(columns) + 1))
        conn.executemany(f"INSERT INTO temp.terms_fts(rowid, {', '.join(columns)}) VALUES ({marks})",
                         ((n, *row[1:]) for n, row in enumerate(rows, 1)))
        return {str(t) for (t,) in conn.execute("SELECT term FROM temp.terms_vocab")}
    finally:
        conn.execute("DROP TABLE IF EXISTS temp.terms_vocab")
        conn.execute("DROP TABLE IF EXISTS temp.terms_fts")


def term_docs(conn: sqlite3.Connection, vocab: str, terms: Iterable[str]) -> dict[str, int]:
    """``term → rows`` of each of ``terms`` in the fts5vocab ``vocab`` table (``row`` type), 0 when
    no row holds it: one lookup of the term each, not a scan."""
    out: dict[str, int] = {}
    for term in sorted(set(terms)):
        found = conn.execute(f"SELECT doc FROM {vocab} WHERE term = ?", (term,)).fetchone()
        out[term] = int(found[0]) if found else 0
    return out


def updated_docs(previous: Mapping[str, int], changed: Mapping[str, int], least: int) -> dict[str, int]:
    """``previous`` (the terms of at least ``least`` rows) with the ``changed`` terms' new counts."""
    out = dict(previous)
    for term, docs in changed.items():
        if docs >= least:
            out[term] = docs
        else:
            out.pop(term, None)
    return out
