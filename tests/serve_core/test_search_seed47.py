"""Helper seed47 (ADR 0153): the search answers the same whatever Python's hash seed.

The act terms' coverage (:meth:`serve.core.actterms.TermIndex.covered`, :func:`serve.core.actterms.partly_covered`)
summed the weights of the question's words a work's terms say over a ``set`` of strings: the order of that float
sum, and so its last bits, followed ``PYTHONHASHSEED``. A whole cover came out ``1.0000000000000002`` in most
processes and ``1.0`` in others, and two acts whose coverages tie swapped places between two processes (a full
index's « interconnexion des registres du commerce des États membres »: an act at rank 3 or 6). The sums now run in the
question's order.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from serve.core import actterms
from tests.index.pipeline import FixtureBuild

#: Six words of distinct rarity: a float sum of their weights depends on its order (before the fix, a whole cover
#: came out 1.0 under ``PYTHONHASHSEED`` 0 and 1.0000000000000002 under 1, 2 and 12345).
ROWS = [(1, "alpha beta gamma delta epsilon zeta", "en"), *((10 + i, "beta", "en") for i in range(2)),
        *((20 + i, "gamma", "en") for i in range(5)), *((30 + i, "delta", "en") for i in range(11)),
        *((50 + i, "epsilon", "en") for i in range(23)), *((80 + i, "zeta", "en") for i in range(47)),
        (200, "alpha beta eta", "en")]
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
#: Fixture questions that reach the act terms' step (and the golden searches).
QUESTIONS = ("interconnexion des registres du commerce des États membres", "protection des données",
             "personal data", "capital requirements", "congé parental", "Datenschutz", "protecton donnes",
             "customer personal information", "data protection rules for companies")
ROOT = Path(__file__).resolve().parents[2]

COVERAGE = """
import json
from serve.core import actterms
from tests.serve_core.test_search_seed47 import ROWS, WORDS
index = actterms.term_index(ROWS, frozenset())
print(json.dumps([[m.work, repr(m.coverage), list(m.terms)] for m in actterms.partly_covered(index, WORDS)]))
"""

SEARCH = """
import json, sys
from pathlib import Path
from serve.core import LegalCore
from tests.serve_core.test_search_seed47 import QUESTIONS
out = []
with LegalCore.mount(Path(sys.argv[1]), {}) as core:
    for q in QUESTIONS:
        answer = core.call("search", {"query": q})
        out.append([[h.get("work"), h.get("score"), h.get("match_reasons")] for h in answer["merged"]])
        out.append([[h.get("work") for h in s.get("hits") or []] for s in answer.get("sections") or []])
print(json.dumps(out))
"""


def _run(code: str, seed: str, *args: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    return done.stdout


def test_a_whole_cover_is_exactly_one() -> None:
    index = actterms.term_index(ROWS, frozenset())
    matches = index.covered(WORDS)
    assert matches[0].work == 1
    assert matches[0].coverage == 1.0  # the sum of the words said is the sum of all, term for term
    assert actterms.partly_covered(index, WORDS)[0].coverage == 1.0


def test_the_coverage_is_the_same_under_any_hash_seed() -> None:
    answers = {_run(COVERAGE, seed) for seed in ("0", "1", "2", "12345")}
    assert len(answers) == 1


def test_a_search_answers_the_same_under_two_hash_seeds(fixture_indexes: FixtureBuild) -> None:
    first, second = (_run(SEARCH, seed, str(fixture_indexes.index_dir)) for seed in ("1", "12345"))
    assert json.loads(first) == json.loads(second)
    assert any(json.loads(first))  # the questions found something
