"""Whether a step has anything to do, decided from the stage state alone — before a process is
started for it.

A step whose inputs are those its stage state recorded does nothing but report so: the
``corpus_tree`` step of a ``published`` source whose files and tree are those of the last import,
and whose tree was verified at that records digest; a ``provisions`` step whose every shard and
merged dataset were made for the tree's records digest and the code; a ``search_index`` step whose
index and stamp were built from the tree's records digest, the dataset's files, the build instant
and the builder. :func:`stage_current` asks exactly the questions the step itself asks first (the
same functions: :func:`pipelines.sources.import_state`, :func:`pipelines.sources.verified_state`,
:func:`pipelines.derive_stage.shard_tree_state`, :func:`pipelines.derive_stage.dataset_state`,
:func:`pipelines.index_stage.index_state`), so a launcher that asks it first — the bench's stage
chains do — starts no process, opens no Dagster run, and loses nothing the step would have done:
a step found current writes nothing but its state's remembered file hashes, which this check
writes the same way. Anything else (another source, the release, a missing or unreadable state)
is not current: the step runs and decides for itself.

What is not evaluated for a step decided here: its Dagster materialisation (none is recorded, as
none would be for a run not launched) and the ``provisions`` step's ratchet check, a function of
every publisher's dataset, evaluated by the run of the publisher whose dataset changed.
"""

from __future__ import annotations

from corpus_tree import CorpusTree
from legal.errors import LexError
from legal.ids import Publisher
from pipelines.settings import SHARDS, LexSettings


def stage_current(lex: LexSettings, asset: str, publisher: Publisher) -> bool:
    """Whether the ``asset`` step of ``publisher`` would find nothing to do (see the module)."""
    try:
        if asset == "corpus_tree":
            return _tree_current(lex, publisher)
        if asset == "provisions":
            return _dataset_current(lex, publisher)
        if asset == "search_index":
            return _index_current(lex, publisher)
    except (OSError, ValueError, LexError):
        return False  # let the step find out and report it
    return False


def _open(lex: LexSettings, publisher: Publisher) -> CorpusTree:
    return CorpusTree.open(lex.tree(publisher.value), evidence_dir=lex.evidence_dir or None)


def _tree_current(lex: LexSettings, publisher: Publisher) -> bool:
    from pipelines.sources import import_state, published_source, verified_state

    if not lex.published:
        return False  # an ingest asks the publisher: only the step can tell
    state, inputs, outputs = import_state(lex, publisher, published_source(lex, publisher), lex.tree(publisher.value))
    if not state.unchanged(inputs, outputs):
        return False
    verified, verified_inputs = verified_state(lex, publisher, _open(lex, publisher).manifest().get("records_digest"))
    return verified.unchanged(verified_inputs, {})


def _dataset_current(lex: LexSettings, publisher: Publisher) -> bool:
    from pipelines.derive_stage import dataset_state, shard_tree_state

    tree = _open(lex, publisher)
    for index in range(SHARDS):
        state, inputs, outputs = shard_tree_state(lex, publisher, index, SHARDS, tree)
        if not state.unchanged(inputs, outputs):
            return False
    state, inputs, outputs = dataset_state(lex, publisher, SHARDS, tree)
    return state.unchanged(inputs, outputs)


def _index_current(lex: LexSettings, publisher: Publisher) -> bool:
    from pipelines.index_stage import index_state

    state, inputs, outputs = index_state(lex, publisher, _open(lex, publisher))
    return state.unchanged(inputs, outputs)
