"""The shells' test corpus: one small Legilux work built into a *real* index (no stand-in core).

Three states of ``lu-legilux:loi-2020-01-01-a1``: V1 from 2020-01-01, then two live states
beginning the same day (V2A, V2B, 2022-01-01), so a bare date after it is ``ambiguous_version``.
The texts carry markup-like characters (``<toute>``) so the pages' escaping is exercised, and
V1 → V2A changes one article, adds one and removes one. Built with the index builder over the
helpers of :mod:`tests.index.handmade`; the legal core then answers for real.
"""

from __future__ import annotations

from pathlib import Path

from tests.index.handmade import LU, MemoryTree, dataset, expression, rows, version, work

PUB = LU
SLUG = "loi-2020-01-01-a1"
WORK = f"{PUB}:{SLUG}"
TITLE = "Loi du 1er janvier 2020 <test>"
_BASE = "http://data.legilux.public.lu/eli/etat/leg/loi/2020/01/01/a1/consolide"

_V1 = version(PUB, SLUG, f"{_BASE}/20200101", "2020-01-01", "2022-01-01", [expression("fr", TITLE)], document_type="LOI")
_V2A = version(PUB, SLUG, f"{_BASE}/20220101", "2022-01-01", None, [expression("fr", TITLE)], document_type="LOI")
_V2B = version(PUB, SLUG, f"{_BASE}/20220101/bis", "2022-01-01", None, [expression("fr", TITLE)],
               document_type="LOI")
V1, V2A, V2B = (state["lex_id"].rsplit(":", 1)[1] for state in (_V1, _V2A, _V2B))
#: The record hash of V1 (its provenance page shows it).
V1_RECORD_SHA256 = _V1["record_sha256"]

_TEXTS = {
    _V1["lex_id"]: [("art_1", "Art. 1er", "Objet", "La loi s'applique à <toute> chose."),
                    ("art_2", "Art. 2", None, "Les peines sont légères.")],
    _V2A["lex_id"]: [("art_1", "Art. 1er", "Objet", "La loi s'applique partout, révisée."),
                     ("art_3", "Art. 3", None, "Un article nouveau.")],
    _V2B["lex_id"]: [("art_1", "Art. 1er", "Objet", "La loi s'applique partout.")],
}


def build(out: Path) -> Path:
    """Build the corpus's Legilux index into ``out`` (created); returns ``out``."""
    from derive.index.build import build_index
    from derive.index.inputs import read_tree
    from legal.ids import Publisher

    states = [_V1, _V2A, _V2B]
    tree = MemoryTree(PUB, [work(PUB, SLUG, TITLE, "fr")], {SLUG: states})
    data = [row for state in states for row in rows(state, "fr", _TEXTS[state["lex_id"]])]
    out.mkdir(parents=True, exist_ok=True)
    build_index(Publisher.parse(PUB), read_tree(tree), dataset(data, []), out, built_at="2026-08-01T00:00:00Z")
    return out
