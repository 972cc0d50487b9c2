"""Derivation: publisher bytes → provisions → the per-article dataset (docs/derive.md).

- :mod:`derive.profiles` — immutable, versioned profiles (``akn-lu/1``, ``fmx4-eu/1``,
  ``xhtml-eu/1``, ``html-eu-tolerant/1``, ``pdf-lu/2``, ``akn-lu-document/1``,
  ``pdf-memorial-lu/3``);
- :mod:`derive.dispatch` — :func:`derive_body`, the profile for one body by sniffing;
- :mod:`derive.dataset` — :func:`build_dataset` from a corpus tree (incremental through
  :mod:`derive.cache`, replaced atomically by :mod:`derive.staging`, sharded and
  :func:`merge_shards`); :mod:`derive.verify`; :mod:`derive.ratchet` (empty-provision ratchet);
- :mod:`derive.git_lens` — the generated legal-history git repository;
- :mod:`derive.index` — the SQLite FTS5 index built from the dataset.

Imports here stay lazy: importing :mod:`derive` has no side effect.
"""
