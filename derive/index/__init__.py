"""The SQLite FTS5 index of one publisher, built from a corpus tree and the per-article dataset.

Build: :func:`derive.index.build.build_from_paths` (or :func:`derive.index.build.build_index`
over inputs read with :mod:`derive.index.inputs`); verification: :mod:`derive.index.verify`.
Read side for servers: :mod:`derive.index.read` and :mod:`derive.index.schema` — importing this
package loads neither side, so a server never loads the builder. Format: ``docs/index.md``.
"""
