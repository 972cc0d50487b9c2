"""Scale harness: replicate the fixture corpora N times under new identities, serve them
through the replay publisher on loopback, and measure ingest, derive, index, sign and verify.

    python -m bench.scale --n 1 4 16 [--out bench/out/scale] [--publish]

Each stage runs in a fresh process, so its peak RSS is its own. Results: ``scale.json``,
``scale.md`` (tables and growth checks) and ``scale.png`` under ``--out``; ``--publish`` copies
the plot to ``docs/scale.png`` and the tables into ``docs/scale.md`` and ``bench/README.md``.
How identities and bodies are replicated: :mod:`bench.scale.replicate`; see ``docs/scale.md``.
"""
