"""The corpus tree (``lex-tree/1``): evidence store, dated work/version records, writer,
integrity verification and importers for published ``lex-corpus`` trees.

Read side::

    from corpus_tree import CorpusTree
    tree = CorpusTree.open("var/tree")
    for work in tree.works():
        for version in tree.versions(work.slug):
            body = tree.evidence.read(version.expressions[0].observations[0].sha256)

Write side: :func:`corpus_tree.writer.apply_enumeration` (publisher adapters build an
:class:`Enumeration`), :func:`corpus_tree.importer.import_published`; checks:
:func:`corpus_tree.verify.verify_tree`. See ``docs/corpus-tree.md``.

Depends only on :mod:`legal` and the standard library.
"""

from corpus_tree.evidence import EvidenceStore
from corpus_tree.model import (
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
)
from corpus_tree.records import (
    SCHEMA,
    Event,
    Expression,
    Observation,
    TextStatus,
    VersionRecord,
    VersionSummary,
    WorkRecord,
    is_withdrawn,
    record_sha256,
)
from corpus_tree.tree import CorpusTree, listed_lex_ids

__all__ = [
    "SCHEMA",
    "CorpusTree",
    "Enumeration",
    "Event",
    "EvidenceStore",
    "Expression",
    "ExpressionInput",
    "Observation",
    "ObservationInput",
    "TextStatus",
    "VersionInput",
    "VersionRecord",
    "VersionSummary",
    "WorkInput",
    "WorkRecord",
    "is_withdrawn",
    "listed_lex_ids",
    "record_sha256",
]
