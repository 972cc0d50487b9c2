"""Vectors of one publisher index for the hybrid retrieval lane (docs/hybrid.md).

- :mod:`derive.vectors.encoder` — the pinned sentence encoder (extra ``hybrid``) and its protocol;
- :mod:`derive.vectors.chunking` — provision text → chunks within a token budget;
- :mod:`derive.vectors.quantise` — int8 with one scale per file;
- :mod:`derive.vectors.build` — :func:`build_vectors`: ``<publisher>.vectors.npy`` + ``.vectors.json``;
- :mod:`derive.vectors.store` — read side: load and verify vectors against their index.

Imports stay lazy: importing :mod:`derive.vectors` loads no model.
"""
