"""The measured stages, each run in a fresh process (``python -m bench.scale _stage NAME``).

Every stage reads the previous stage's output under one run directory and returns a small
dict of stage facts (counts, output sizes); the parent process measures time and memory.

| stage | does | writes |
|---|---|---|
| ``ingest`` | both adapters over the loopback replay (politeness 0) → one new tree | ``tree/`` |
| ``derive`` | :func:`derive.dataset.build_dataset` | ``dataset/`` |
| ``index`` | :func:`derive.index.build_index` for each publisher | ``index/`` |
| ``sign`` | temp Ed25519 key; the release set (hard links) signed by ``sign_artifact_set`` | ``release/`` |
| ``verify`` | :func:`release.verify.verify_artifact_set` against the temp key | nothing |

Legilux's paging caps (20,000 catalogue rows, a 10,000-row sorted window) are safety bounds
sized for the live catalogue; a replicated corpus passes them from N ≈ 16 on, so the ingest
stage scales them with N (page size unchanged: 5,000 rows per request, as live).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from legal.artifacts import DATASET_FILES as CONTRACT_FILES

STAGES = ("ingest", "derive", "index", "sign", "verify")
PUBLISHERS = ("lu-legilux", "eu-eurlex")
#: every file of the dataset contract (what an artifact set carries) and the JSONL rows, errors, summary
DATASET_FILES = (*CONTRACT_FILES, "provisions.jsonl", "errors.jsonl", "summary.json")
CREATED_BY = "bench.scale"
#: The index's store of distinct wordings (deduplicated by text hash, so shared by replicas).
TEXT_TABLES = frozenset({"texts", "sqlite_autoindex_texts_1"})


@dataclass(frozen=True)
class RunDirs:
    """The directories of one N's run."""

    root: Path

    @property
    def tree(self) -> Path:
        return self.root / "tree"

    @property
    def dataset(self) -> Path:
        return self.root / "dataset"

    @property
    def index(self) -> Path:
        return self.root / "index"

    @property
    def release(self) -> Path:
        return self.root / "release"

    @property
    def keys(self) -> Path:
        return self.root / "keys"

    @property
    def served(self) -> Path:
        return self.root / "served.json"


def tree_bytes(path: Path) -> int:
    """Apparent size of every regular file under ``path`` (hard links counted once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


# -- ingest ------------------------------------------------------------------------------------


def _adapter(publisher: str, client: Any, url: str, n: int) -> Any:
    from publishers import adapter_for
    from publishers.http import HttpClient, Paging
    from publishers.legilux import LegiluxAdapter, LegiluxConfig, legilux_policy

    if publisher != "lu-legilux":
        return adapter_for(publisher, client, replay_url=url, delay=0.0)
    rows = 20000 * max(n, 1)
    paging = Paging(page_size=5000, max_rows=rows, window=rows)
    config = LegiluxConfig.for_replay(url, catalogue=paging, manifestations=Paging(5000, 2 * rows, 2 * rows))
    return LegiluxAdapter(HttpClient(client, legilux_policy(politeness_delay=0.0)), config)


def ingest_stage(dirs: RunDirs, url: str, n: int) -> dict[str, Any]:
    from corpus_tree import CorpusTree

    tree = CorpusTree.create(dirs.tree)
    facts = ingest_publishers(tree, dirs, url, n)
    counts = tree.manifest()["counts"]
    facts["manifest_counts"] = counts
    facts["output_bytes"] = tree_bytes(dirs.tree)
    return facts


def ingest_publishers(tree: Any, dirs: RunDirs, url: str, n: int, *, now: Any = None,
                      after: Callable[[str], None] | None = None,
                      publishers: Sequence[str] = PUBLISHERS) -> dict[str, Any]:
    """Ingest ``publishers`` (default both: Legilux, then EUR-Lex in the scope the replay serves) of
    the replay at ``url`` into ``tree``, in this process and in that order; ``now`` fixes the ingest
    clock; ``after(publisher)`` runs after each."""
    import httpx

    from publishers.ingest import ingest

    served = json.loads(dirs.served.read_text())["publishers"]
    facts: dict[str, Any] = {}
    with httpx.Client(timeout=600) as client:
        for publisher in publishers:
            seeds = served[publisher]["seeds"]
            scope = _replay_scope(seeds) if seeds else None
            report = ingest(_adapter(publisher, client, url, n), tree, scope=scope, now=now)
            facts[publisher] = _ingest_facts(report)
            # not held through the next publisher's run: its apply's list of every lex id written (issue #13)
            del report
            if after is not None:
                after(publisher)
    return facts


def _replay_scope(seeds: list[str]) -> Any:
    """The EUR-Lex scope of the replay's seeds: every seed, no related works; its ``max_works`` guard
    (2,000 by default) raised to the seeds' number when they are more (N replicas of the full corpus:
    1,250 works each), so that the guard does not refuse a replay that serves exactly its seeds."""
    from dataclasses import replace

    from publishers.eurlex import EurlexScope

    scope = EurlexScope.of(seeds)
    if len(scope.seeds) > scope.relations.max_works:
        scope = replace(scope, relations=replace(scope.relations, max_works=len(scope.seeds)))
    return scope


def _ingest_facts(report: Any) -> dict[str, Any]:
    keep = ("works", "versions", "expressions", "manifestations_fetched", "bodies_fetched", "bodies_new",
            "bodies_held_elsewhere", "body_bytes", "requests", "bytes_downloaded", "retries")
    out = {k: getattr(report, k) for k in keep}
    out["timings_s"] = {k: round(v, 3) for k, v in report.timings.items()}
    out["events"] = report.events
    return out


# -- derive and index ------------------------------------------------------------------------


def derive_stage(dirs: RunDirs) -> dict[str, Any]:
    from corpus_tree import CorpusTree
    from derive.dataset import build_dataset

    report = build_dataset(CorpusTree.open(dirs.tree), dirs.dataset)
    summary = json.loads((dirs.dataset / "summary.json").read_text())
    return {"works": report.works, "versions": report.versions, "provisions": report.provisions,
            "errors": len(report.errors), "gaps": summary.get("gaps"), "profiles": summary.get("profiles"),
            "output_bytes": tree_bytes(dirs.dataset)}


def index_stage(dirs: RunDirs) -> dict[str, Any]:
    from corpus_tree import CorpusTree
    from derive.index.build import build_from_paths
    from derive.index.inputs import latest_transaction_time
    from legal.ids import Publisher

    tree = CorpusTree.open(dirs.tree)
    built_at = latest_transaction_time(tree) or "2026-01-01T00:00:00Z"
    facts: dict[str, Any] = {"built_at": built_at}
    for publisher in PUBLISHERS:
        result = build_from_paths(Publisher(publisher), tree, dirs.dataset, dirs.index, built_at=built_at)
        facts[publisher] = {"index_bytes": result.index_bytes,
                            "provisions": int(result.stamp.get("count.provisions", 0)),
                            "texts": int(result.stamp.get("count.texts", 0)),
                            "versions": int(result.stamp.get("count.versions", 0)),
                            "table_bytes": table_bytes(result.index_path)}
    for key in ("index_bytes", "provisions", "texts"):
        facts[key] = sum(facts[p][key] for p in PUBLISHERS)
    facts["text_bytes"] = sum(b for p in PUBLISHERS for name, b in facts[p]["table_bytes"].items()
                              if name in TEXT_TABLES)
    facts["output_bytes"] = tree_bytes(dirs.index)
    return facts


def table_bytes(path: Path) -> dict[str, int]:
    """Bytes of every table and index of an SQLite file (``dbstat``: pages × page size)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
    except sqlite3.OperationalError:  # SQLite built without dbstat
        return {}
    finally:
        conn.close()
    return {str(name): int(size) for name, size in sorted(rows)}


# -- release -----------------------------------------------------------------------------------


def assemble_release(dirs: RunDirs) -> list[str]:
    """Hard-link the indexes, stamps, dataset files and corpus manifest into ``release/``."""
    dirs.release.mkdir(parents=True)
    sources = [*sorted(dirs.index.glob("*.sqlite")), *sorted(dirs.index.glob("*.stamp.json")),
               *(dirs.dataset / name for name in DATASET_FILES)]
    names = []
    for path in sources:
        os.link(path, dirs.release / path.name)
        names.append(path.name)
    os.link(dirs.tree / "manifest.json", dirs.release / "corpus-manifest.json")
    return [*names, "corpus-manifest.json"]


def sign_stage(dirs: RunDirs) -> dict[str, Any]:
    from release.keys import keygen, load_signer
    from release.signing import sign_artifact_set

    names = assemble_release(dirs)
    passphrase = secrets.token_bytes(24)
    keys = keygen(dirs.keys, "ed25519", passphrase)
    signed = sign_artifact_set(dirs.release, [load_signer(keys.private_key, passphrase)], created_by=CREATED_BY)
    return {"files": len(names), "set_id": signed.set_id, "key_id": keys.key_id,
            "signed_bytes": tree_bytes(dirs.release), "output_bytes": signed.envelope_path.stat().st_size}


def verify_stage(dirs: RunDirs) -> dict[str, Any]:
    from release.keys import PUBLIC_KEY_NAME
    from release.verify import verify_artifact_set

    verified = verify_artifact_set(dirs.release, [dirs.keys / PUBLIC_KEY_NAME])
    return {"set_id": verified.set_id, "files": len(verified.subjects), "output_bytes": 0}


def run_stage(name: str, dirs: RunDirs, *, url: str | None = None, n: int = 1) -> dict[str, Any]:
    """Run one stage in this process; its facts plus this process's I/O counters."""
    table: dict[str, Callable[[], dict[str, Any]]] = {
        "ingest": lambda: ingest_stage(dirs, url or "", n),
        "derive": lambda: derive_stage(dirs),
        "index": lambda: index_stage(dirs),
        "sign": lambda: sign_stage(dirs),
        "verify": lambda: verify_stage(dirs),
    }
    facts = table[name]()
    facts["io"] = proc_io()
    facts["vm_hwm_kb"] = vm_hwm_kb()
    facts["frozen_code"] = runs_from_cwd()
    return facts


def runs_from_cwd() -> bool:
    """True when every loaded pipeline module comes from the working directory (the snapshot)."""
    import sys

    cwd = Path.cwd().resolve()
    roots = ("legal", "corpus_tree", "publishers", "derive", "release", "bench")
    files = [getattr(m, "__file__", None) for name, m in list(sys.modules.items()) if name.split(".")[0] in roots]
    return all(Path(f).resolve().is_relative_to(cwd) for f in files if f)


def vm_hwm_kb() -> int | None:
    """This process's peak RSS (``VmHWM`` of ``/proc/self/status``, KiB; Linux only).

    Read by the stage itself because ``ru_maxrss`` of a child also counts the parent's RSS at
    fork time (Linux folds the pre-``exec`` memory map into it).
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def proc_io() -> dict[str, int]:
    """``/proc/self/io`` counters (``wchar``: bytes passed to write calls; Linux only)."""
    try:
        lines = Path("/proc/self/io").read_text().splitlines()
    except OSError:
        return {}
    pairs = (line.split(":", 1) for line in lines if ":" in line)
    return {k.strip(): int(v) for k, v in pairs}
