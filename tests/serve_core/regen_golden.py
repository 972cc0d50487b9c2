"""Regenerate ``tests/serve_core/golden/*.json`` from the real fixtures (after a deliberate change
of answers only)::

    LEX_FIXTURES=../shared/fixtures python -m tests.serve_core.regen_golden
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from serve.core import LegalCore
from tests.index.pipeline import SOURCES, build_indexes
from tests.serve_core.golden_calls import answers

GOLDEN = Path(__file__).parent / "golden"


def main() -> int:
    from corpus_tree import CorpusTree, importer
    from derive import dataset

    fixtures = Path(os.environ.get("LEX_FIXTURES", Path(__file__).resolve().parents[3] / "shared" / "fixtures"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        trees, datasets = {}, {}
        for name, folder in SOURCES:
            trees[name] = root / f"tree-{name}"
            importer.import_published(fixtures / folder, trees[name], durable=False)
            datasets[name] = root / f"dataset-{name}"
            dataset.build_dataset(CorpusTree.open(trees[name]), datasets[name])
        build_indexes(trees, datasets, root / "index")
        with LegalCore.mount(root / "index", {"set_id": "golden"}) as core:
            for name, search in (("answers.json", False), ("search.json", True)):
                found = answers(core, search=search)
                (GOLDEN / name).write_text(json.dumps(found, indent=0, sort_keys=True, ensure_ascii=False) + "\n")
                print(f"{name}: {len(found)} answers", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
