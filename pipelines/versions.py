"""The code version of each asset: the versions its code *declares* about its output.

Dagster compares an asset's ``code_version`` with the one its last materialisation recorded and
shows the asset as stale ("code version changed") when they differ; with the data versions each
asset reports, the UI then says which partitions are behind their inputs or their code. The
versions are the ones the stages already key their own skipping and caches on, so the two never
disagree:

- ``corpus_tree``: the tree record schema (:data:`corpus_tree.records.SCHEMA`);
- ``provision_shards`` / ``provisions``: the derivation declaration
  (:func:`derive.cache.derivation_digest`: profile ids and versions, shared code and citation
  resolver versions, parser versions, limits), shortened;
- ``search_index``: the index builder, index format and text normalisation versions;
- ``artifact_set``: the artifact-set and benchmark-report schemas.

No source file is hashed: a change that alters output without bumping a declared version is a
bug in that change (``docs/pipeline.md`` §4).
"""

from __future__ import annotations

from functools import cache


@cache
def corpus_tree() -> str:
    from corpus_tree.records import SCHEMA

    return SCHEMA


@cache
def derivation() -> str:
    from derive.cache import derivation_digest

    return f"derive:{derivation_digest()[:16]}"


@cache
def search_index() -> str:
    from derive.index.schema import INDEX_FORMAT
    from derive.index.stamp import BUILDER
    from derive.index.text import NORMALIZATION

    return f"{BUILDER}; {INDEX_FORMAT}; {NORMALIZATION}"


@cache
def artifact_set() -> str:
    from release.report import REPORT_SCHEMA
    from release.statement import SET_SCHEMA

    return f"{SET_SCHEMA}; {REPORT_SCHEMA}"
