"""The search-index stage's inputs and quick check, shared by the ``search_index`` asset and by
:func:`pipelines.currency.stage_current` (kept out of ``assets.py`` so that deciding whether the
stage has anything to do needs no Dagster)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus_tree import CorpusTree
from legal.ids import Publisher
from pipelines.settings import LexSettings
from pipelines.state import StageState


def index_state(lex: LexSettings, publisher: Publisher,
                tree: CorpusTree) -> tuple[StageState, dict[str, Any], dict[str, Path]]:
    """The index's state, inputs (the tree's records digest, the build instant, the builder,
    index format and normalisation versions, each dataset JSONL file's SHA-256 — through the
    state's quick check) and outputs (the index and its stamp): the stage builds nothing when the
    state holds them."""
    from derive.index.schema import INDEX_FORMAT
    from derive.index.stamp import BUILDER
    from derive.index.text import NORMALIZATION

    dataset_dir = lex.derived(publisher.value)
    out_dir = lex.indexes()
    state = StageState(lex.root, f"index-{publisher.value}", rehash=lex.rehash)
    inputs = {"records": tree.manifest().get("records_digest"), "built_at": lex.built_at_stamp(),
              "builder": [BUILDER, INDEX_FORMAT, NORMALIZATION],
              "dataset": {p.name: state.sha256(p) for p in sorted(dataset_dir.glob("*.jsonl"))}}
    outputs = {"index": out_dir / f"{publisher.value}.sqlite", "stamp": out_dir / f"{publisher.value}.stamp.json"}
    return state, inputs, outputs


def texts_to_verify(state: StageState, previous_sha256: str | None, texts_from_block: int) -> int:
    """The first text block the stage's check inflates and hashes after a build (``docs/adr/0026``):
    ``texts_from_block`` (the build's, :attr:`derive.index.build.BuildResult.texts_from_block`) when the
    build updated a previous file whose SHA-256 this stage recorded — recorded only once that file's
    own check passed, so its blocks were verified —, else 1 (every text)."""
    if previous_sha256 is None or state.recorded_outputs().get("index") != previous_sha256:
        return 1
    return texts_from_block
