"""Build the static word table (:mod:`derive.vectors.static`) from built indexes (issue #15, docs/hybrid.md §10).

    python scripts/build_static_words.py --index-dir DIR --out STEM [--questions FILE ...] [--dims 256]
        [--raw RAW_STEM]

Reads (read-only) every ``*.sqlite`` index of ``--index-dir``: its work titles (the rows the
vectors file embeds, :func:`derive.vectors.build.work_titles`) and its provision headings; the
words of both (and of the ``--questions`` judgment files' queries, when given) form the
vocabulary; the titles and headings alone give the SIF frequencies. Every word is passed alone
through the pinned encoder (query side) — the costly step, reused from ``--raw`` when that file
holds the same vocabulary and encoder — then reduced and weighted. Writes ``STEM.npy`` and
``STEM.json`` and prints the table's digest, the vocabulary size and the CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive.vectors import static  # noqa: E402
from derive.vectors.build import work_titles  # noqa: E402


def corpus_texts(index_dir: Path) -> list[str]:
    """Every index's work titles and distinct provision headings (sorted per index)."""
    texts: list[str] = []
    for path in sorted(index_dir.glob("*.sqlite")):
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            texts.extend(title for _, _, title in work_titles(conn))
            texts.extend(sorted({" ".join(str(h).split()) for (h,) in conn.execute(
                "SELECT DISTINCT heading FROM lexical_states WHERE heading IS NOT NULL")}))
    return texts


def question_texts(files: list[Path]) -> list[str]:
    from release.benchmark import load_judgments

    return [case.query for path in files for case in load_judgments(path).cases]


def raw_vectors(vocabulary: list[str], raw_stem: Path | None) -> tuple[np.ndarray, int]:
    """The words' encoder vectors (from ``raw_stem`` for the words it holds) and how many were encoded."""
    from derive.vectors.encoder import load_encoder

    encoder = load_encoder()
    known: dict[str, np.ndarray] = {}
    if raw_stem is not None and static.stem_file(raw_stem, ".json").is_file():
        meta = json.loads(static.stem_file(raw_stem, ".json").read_text(encoding="utf-8"))
        if meta.get("encoder") == encoder.identity.as_dict():
            matrix = np.load(static.stem_file(raw_stem, ".npy"))
            known = dict(zip(meta["vocabulary"], matrix, strict=True))
    todo = [w for w in vocabulary if w not in known]
    if todo:
        known.update(zip(todo, static.embed_words(encoder, todo), strict=True))
    out = np.stack([known[w] for w in vocabulary]).astype(np.float32)
    if raw_stem is not None:
        np.save(static.stem_file(raw_stem, ".npy"), out)
        static.stem_file(raw_stem, ".json").write_text(json.dumps({"encoder": encoder.identity.as_dict(),
                                                             "vocabulary": vocabulary}), encoding="utf-8")
    return out, len(todo)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index-dir", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--questions", type=Path, nargs="*", default=[])
    parser.add_argument("--dims", type=int, default=static.DIMS)
    parser.add_argument("--sif-a", type=float, default=static.SIF_A)
    parser.add_argument("--raw", type=Path, default=None)
    args = parser.parse_args(argv)
    cpu = time.process_time()
    corpus = corpus_texts(args.index_dir)
    counts = static.frequencies(corpus)
    vocabulary = sorted(set(counts) | set(static.frequencies(question_texts(args.questions))))
    raw, encoded = raw_vectors(vocabulary, args.raw)
    from derive.vectors.encoder import load_encoder

    source = {"encoder": load_encoder().identity.as_dict(), "corpus_texts": len(corpus),
              "question_files": len(args.questions)}
    table = static.distil(raw, vocabulary, counts, dims=args.dims, a=args.sif_a, source=source)
    digest = static.save_table(table, args.out)
    print(json.dumps({"sha256": digest, "vocabulary": len(vocabulary), "encoded": encoded, "dims": table.dims,
                      "cpu_s": round(time.process_time() - cpu, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
