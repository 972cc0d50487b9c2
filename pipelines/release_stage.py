"""The release stage: assemble the artifact set, benchmark it, sign it, verify it, promote it.

1. The set's files are staged by :func:`release.assemble.assemble_set` (the layout is release's):
   each publisher's index and stamp, the dataset (its four Parquet tables — provisions, states,
   version_events, version_visibility — and gaps), the corpus manifests, the EUR-Lex scope file.
2. The retrieval benchmark runs in process over the staged indexes; its report is bound to the
   index files' digests, signed, and travels inside the set (``reports/``).
3. The set is signed (``statement.dsse.json``) and verified against the pinned trust root.
4. The release root (``<workdir>/release``) takes it as a candidate, evaluates it with the signed
   report, and promotes it — unless it is already current (same set id: nothing moves).

The signing key is ``settings.signing_key`` (passphrase from ``LEX_SIGNING_PASSPHRASE``). With no
key configured, a development key is generated under ``<workdir>/keys`` with a development
passphrase, and everything says so: such a set is for the demo only.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from legal.canonical import pretty_bytes
from legal.ids import Publisher
from pipelines.settings import LexSettings
from pipelines.state import StageState

if TYPE_CHECKING:
    from release.assemble import SetSources
    from release.verify import VerifiedSet

DEV_PASSPHRASE = "lex-development-only"
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class ReleaseResult:
    set_id: str
    set_dir: Path
    promoted: bool
    report_passed: bool
    metrics: dict[str, str] = field(default_factory=dict)
    gates: list[dict[str, Any]] = field(default_factory=list)
    verified: bool = False
    development_key: bool = False
    skipped: bool = False


def key_paths(lex: LexSettings) -> tuple[Path, Path, bytes, bool]:
    """(private key, trust root public key, passphrase, is_development_key)."""
    from release.keys import PRIVATE_KEY_NAME, PUBLIC_KEY_NAME, keygen

    if lex.signing_key:
        private = Path(lex.signing_key)
        public = private.with_name(PUBLIC_KEY_NAME)
        return private, public, os.environ.get("LEX_SIGNING_PASSPHRASE", "").encode(), False
    keys = lex.root / "keys"
    passphrase = os.environ.get("LEX_SIGNING_PASSPHRASE", DEV_PASSPHRASE).encode()
    if not (keys / PRIVATE_KEY_NAME).is_file():
        keygen(keys, "ed25519", passphrase)
    return keys / PRIVATE_KEY_NAME, keys / PUBLIC_KEY_NAME, passphrase, True


def judgments_for(lex: LexSettings) -> Path:
    """The judgments that fit the configured corpus (``settings.judgments`` when given)."""
    if lex.judgments:
        return Path(lex.judgments)
    name = "sample_judgments.json" if lex.source in ("sample", "replay") else "retrieval_judgments.json"
    return ROOT / "evals" / name


def gate_policy_for(lex: LexSettings) -> Any:
    """The release gate policy: ``settings.gate_policy`` (a ``{"thresholds": {...}}`` file) or the
    defaults of :mod:`release.report`. The thresholds used are written into the signed report, so an
    override is visible in every set it let through."""
    from release.report import GatePolicy, load_gate_policy

    return load_gate_policy(Path(lex.gate_policy)) if lex.gate_policy else GatePolicy()


EU_SCOPE_FILE = "eu-scope.json"


def set_sources(lex: LexSettings) -> SetSources:
    """What the set is made of, from the work directory (the benchmark report aside)."""
    from release.assemble import PublisherSources, SetSources

    publishers = tuple(PublisherSources(p.value, lex.indexes(), lex.derived(p.value), lex.tree(p.value))
                       for p in Publisher)
    return SetSources(publishers, {EU_SCOPE_FILE: _scope_bytes(lex)})


def stage_files(lex: LexSettings, staging: Path) -> None:
    """Assemble the set (reports aside) into ``staging``, replacing what a previous run left. Its
    input files are hard links to the work directory's (no bytes copied: nothing writes to a
    staged file, the benchmark opens the indexes read-only and immutable, and the release root
    copies the set in and verifies every byte of its copy)."""
    from release.assemble import assemble_set

    if staging.exists():
        shutil.rmtree(staging)
    assemble_set(staging, set_sources(lex), link=True)


def _scope_bytes(lex: LexSettings) -> bytes:
    from dataclasses import asdict

    if lex.source == "sample":
        from pipelines.sources import sample_scope

        return pretty_bytes(_jsonable(asdict(sample_scope())))
    if lex.eu_scope:
        return Path(lex.eu_scope).read_bytes()
    from importlib import resources

    # the bundled scope file, read from the ``publishers`` package: naming ``publishers.eurlex``
    # would import the EUR-Lex adapter (≈ 0.3 CPU-s in a fresh step process) for 1.5 kB of JSON
    return resources.files("publishers").joinpath("eurlex", "scope.json").read_bytes()


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def benchmark(lex: LexSettings, staging: Path, signer: Any, created_at: str,
              known: dict[str, tuple[int, str]] | None = None) -> dict[str, Any]:
    """Run the retrieval benchmark over the staged indexes; the set takes the signed report
    (bound to the staged index files: ``known`` hashes, :func:`staged_hashes`, are not read again).
    The gate scores ranked works and provisions, never a snippet: its searches cut none from the
    stored texts (:func:`serve.core.ops.search.without_snippets`; the hits and their order are a
    served search's, and its latencies leave out the snippets' share)."""
    from release.assemble import INDEXES_DIR, add_report
    from release.benchmark import load_judgments, retrieval_benchmark
    from serve.core import LegalCore
    from serve.core.ops.search import without_snippets

    judgments = load_judgments(judgments_for(lex))
    prefix = f"{INDEXES_DIR}/"
    indexes = {name[len(prefix):]: held for name, held in (known or {}).items() if name.startswith(prefix)}
    with LegalCore.mount(staging / INDEXES_DIR) as core, without_snippets():
        report, _ = retrieval_benchmark(core, staging / INDEXES_DIR, judgments, created_at=created_at,
                                        policy=gate_policy_for(lex), known=indexes)
    add_report(staging, report, [signer], known)
    return report


def staged_hashes(lex: LexSettings, state: StageState) -> dict[str, tuple[int, str]]:
    """``{name in the set: (size, sha256)}`` of the files :func:`stage_files` just copied into the
    staging set from sources whose hash the stage holds (:meth:`StageState.sha256`: the quick
    check; a source changed since it was hashed is read again). The set is signed with them
    instead of reading the copies; the copy the release root takes in is then read whole and
    verified against the signed hashes (:meth:`release.promotion.ReleaseRoot.candidate`), so a
    copy that is not its source's bytes is refused there."""
    return {name: (path.stat().st_size, state.sha256(path)) for name, path in set_sources(lex).files().items()}


def _inputs(lex: LexSettings, state: StageState) -> dict[str, Any]:
    """What the set is made of (the benchmark report aside, whose latencies vary run to run); the
    files hashed through the stage's quick check (:meth:`pipelines.state.StageState.sha256`)."""
    files = {str(path.relative_to(lex.root)): state.sha256(path) for path in set_sources(lex).files().values()}
    policy = state.sha256(Path(lex.gate_policy)) if lex.gate_policy else "defaults"
    return {"files": files, "judgments": state.sha256(judgments_for(lex)), "gate_policy": policy,
            "source": "published" if lex.published else lex.source}


def current(lex: LexSettings) -> str | None:
    from release.promotion import read_pointers

    if not (lex.release_dir() / "pointers.json").is_file():
        return None
    return read_pointers(lex.release_dir()).current


def _result_path(lex: LexSettings) -> Path:
    return lex.root / "state" / "release-result.json"


def _skip(lex: LexSettings, state: StageState, inputs: dict[str, Any], public: Path,
          dev: bool) -> ReleaseResult | None:
    """The recorded outcome, when the inputs are those of the last run and its set is still held
    in the release root (re-verified); else ``None``. A set whose report failed a gate is not
    re-built night after night from the same inputs either.

    The re-verification checks the signature against today's trust root, the listing and the
    sizes, and takes each file's SHA-256 from the stage state where its size, time and inode are
    those recorded when the release root verified the set (:func:`remember_set`); any other file
    is read (all of them with ``rehash``)."""
    import json

    from release.files import list_files
    from release.verify import reverify_artifact_set

    path = _result_path(lex)
    try:
        recorded = json.loads(path.read_bytes())
        set_dir = lex.release_dir() / "sets" / str(recorded["set_id"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    outputs = {"result": path, "statement": set_dir / "statement.dsse.json"}
    if not state.unchanged(inputs, outputs):
        return None
    held = {name: sha for name in list_files(set_dir) if (sha := state.recorded_sha256(set_dir / name)) is not None}
    verified = reverify_artifact_set(set_dir, [public], held)
    if remember_set(state, verified):  # files read now (a state from before the record): next time a stat
        state.record(inputs, outputs, state.digests)
    return ReleaseResult(set_id=recorded["set_id"], set_dir=set_dir, promoted=False,
                         report_passed=bool(recorded["report_passed"]), metrics=dict(recorded["metrics"]),
                         gates=list(recorded["gates"]), verified=verified.set_id == recorded["set_id"],
                         development_key=dev, skipped=True)


def remember_set(state: StageState, verified: VerifiedSet) -> bool:
    """Record in ``state`` the digest of every file of a set the release root has just verified
    (read whole against its signed statement, or vouched for as :func:`release.verify.reverify_artifact_set`
    allows), so that the next check of the set (:func:`_skip`) and the next import linking its
    files (:attr:`release.promotion.ReleaseRoot.recorded`) read none of them while they are
    unchanged. True when any of it is news."""
    news = [state.remember(verified.root / name, subject.sha256) for name, subject in verified.subjects.items()]
    return any(news)


def remember_held(state: StageState, verified: VerifiedSet, held: list[Path]) -> None:
    """Record as well the files of the sets the root holds (``held``: its current and rollback set
    directories) that are the very files of ``verified`` (the same inode, size and time: linked
    into it, and read with it) — so that a set taken in while the current one stays (a candidate
    whose gate failed; the first release after an upgrade) still lets the next import link them
    unread (:attr:`release.promotion.ReleaseRoot.recorded`)."""
    from pipelines.state import stat_key

    for directory in held:
        if directory == verified.root or not directory.is_dir():
            continue
        for name, subject in verified.subjects.items():
            path = directory / name
            if path.is_file() and stat_key(path) == stat_key(verified.root / name):
                state.remember(path, subject.sha256)


def run(lex: LexSettings) -> ReleaseResult:
    from release.assemble import RETRIEVAL_REPORT_ENVELOPE
    from release.files import atomic_write
    from release.keys import load_signer
    from release.promotion import ReleaseRoot
    from release.signing import sign_artifact_set
    from release.verify import as_trust_store, verify_artifact_set

    private, public, passphrase, dev = key_paths(lex)
    state = StageState(lex.root, "release", rehash=lex.rehash)
    inputs = _inputs(lex, state)
    skipped = _skip(lex, state, inputs, public, dev)
    if skipped is not None:
        return skipped
    signer = load_signer(private, passphrase)
    created_at = lex.built_at_stamp()
    staging = lex.root / "release-staging"
    stage_files(lex, staging)
    known = staged_hashes(lex, state)
    report = benchmark(lex, staging, signer, created_at, known)
    signed = sign_artifact_set(staging, [signer], created_by="lex pipeline", created_at=created_at,
                               labels={"source": lex.source, "development_key": str(dev).lower()}, known=known)
    root = ReleaseRoot(lex.release_dir(), as_trust_store([public]), actor="pipeline", clock=lambda: created_at,
                       policy=gate_policy_for(lex), recorded=state.recorded_sha256)
    promoted = False
    if root.pointers().current != signed.set_id:
        # the root copies the set in and verifies the copy (every file read, against the signed
        # hashes): that is the set's verification; a set whose report passed is evaluated and
        # promoted in the same hold of the root's lock, without reading the copy twice more
        if report["passed"]:
            verified, _pointers = root.release(staging, staging / RETRIEVAL_REPORT_ENVELOPE)
            promoted = True
        else:
            verified = root.candidate(staging)
        remember_set(state, verified)  # the root's verified copy: recorded with the state below
        pointers = root.pointers()
        remember_held(state, verified, [root.set_dir(x) for x in (pointers.current, pointers.rollback) if x])
    else:
        verified = verify_artifact_set(staging, [public])
    result = ReleaseResult(
        set_id=signed.set_id, set_dir=root.set_dir(signed.set_id), promoted=promoted,
        report_passed=bool(report["passed"]), metrics=dict(report["metrics"]), gates=list(report["gates"]),
        verified=verified.set_id == signed.set_id, development_key=dev,
    )
    if result.verified and (result.set_dir / "statement.dsse.json").is_file():
        # the outcome, then the state (written last, atomically): a killed run redoes the stage
        path = _result_path(lex)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, pretty_bytes({"set_id": result.set_id, "report_passed": result.report_passed,
                                         "metrics": result.metrics, "gates": result.gates}))
        state.record(inputs, {"result": path, "statement": result.set_dir / "statement.dsse.json"})
    return result
