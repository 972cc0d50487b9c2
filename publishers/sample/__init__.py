"""The bundled sample corpus: a small synthetic demonstration corpus, one root per publisher.

The texts were written for this project (every act says it is a demonstration, not law);
the records and bodies have the exact shapes of the published ``lex-corpus/4`` trees, so
the whole pipeline (replay publisher, corpus tree, derive, index, serve) runs on them
offline. ``python -m publishers.sample.generate`` writes the corpus; ``--check`` proves
the committed copy is what the generator writes. See ``docs/sample-corpus.md``.
"""

from __future__ import annotations

from pathlib import Path

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
"""Where the generated corpus is committed (inside the package, shipped as package data)."""

ROOTS: dict[str, str] = {"lu-legilux": "lu-legilux", "eu-eurlex": "eu-eurlex"}
"""Publisher id → directory name of its corpus root under :data:`CORPUS_DIR`."""


def sample_corpus_roots() -> dict[str, Path]:
    """Publisher id → root of its bundled ``lex-corpus/4`` tree (``manifest.json``, ``works/``)."""
    return {publisher: CORPUS_DIR / name for publisher, name in ROOTS.items()}


__all__ = ["CORPUS_DIR", "ROOTS", "sample_corpus_roots"]
