"""Mount-time activation of the hybrid lane, publisher by publisher (never per query).

:func:`activate_hybrid` decides for every index mounted in a :class:`serve.core.LegalCore`:

1. the encoder loads with its pinned weights and engine — else ``encoder_unavailable``;
2. the index's vectors load and verify against the index and the manifest — else
   ``vectors_missing`` / ``vectors_unverified`` (also when they were built by another encoder);
3. a signed hybrid benchmark report binds exactly these files and this encoder and passes the
   gates (:mod:`hybrid.gate`) — else ``benchmark_missing`` / ``benchmark_invalid`` /
   ``benchmark_identity_mismatch`` / ``benchmark_gate_failed``, with the gate's details.

Only then is a :class:`~hybrid.lane.HybridLane` registered for the index. Whatever the
outcome, the keyword lane is untouched: it is still the default, and a refusal here never
unmounts anything. :func:`attach_for_measurement` skips step 3 and exists only for the benchmark
that produces the report (it is how the evidence is measured in the first place).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from derive.vectors.build import manifest_file_name, vectors_file_name
from derive.vectors.encoder import Encoder, load_encoder
from derive.vectors.store import LoadedVectors, load_vectors
from hybrid.gate import (
    ENCODER_ENGINE_SUBJECT,
    ENCODER_WEIGHTS_SUBJECT,
    HYBRID_POLICY,
    check_report,
)
from hybrid.lane import HybridLane
from hybrid.registry import Decision, record
from hybrid.sections import HYBRID_SEARCH
from legal.canonical import file_sha256
from legal.errors import IndexError_, LexError
from release.keys import TrustStore, trust_roots_from_env
from release.report import GatePolicy
from serve.core import MountedIndex, SearchLane


class HasIndexes(Protocol):
    """What activation needs of a :class:`serve.core.LegalCore`: its indexes and the lane slot."""

    @property
    def indexes(self) -> Mapping[str, MountedIndex]: ...

    def attach_search_lane(self, lane: SearchLane | None) -> None: ...


EncoderLoader = Callable[[], Encoder]


def artifact_subjects(index_dir: Path, vectors: Mapping[str, LoadedVectors], index_sha: Mapping[str, str],
                      encoder: Encoder) -> dict[str, str]:
    """The bound subjects a hybrid report must carry for these artifacts (name → sha256)."""
    subjects: dict[str, str] = {ENCODER_WEIGHTS_SUBJECT: encoder.identity.weights_sha256,
                                ENCODER_ENGINE_SUBJECT: encoder.identity.engine_sha256}
    for publisher, loaded in sorted(vectors.items()):
        subjects[Path(loaded.manifest["index"]["file"]).name] = index_sha[publisher]
        subjects[vectors_file_name(publisher)] = loaded.vectors_sha256
        subjects[manifest_file_name(publisher)] = loaded.manifest_sha256
    return subjects


def _load_all(core: HasIndexes, index_dir: Path, encoder: Encoder,
              decisions: dict[str, Decision]) -> tuple[dict[str, LoadedVectors], dict[str, str]]:
    vectors: dict[str, LoadedVectors] = {}
    shas: dict[str, str] = {}
    for publisher, index in sorted(core.indexes.items()):
        path = index_dir / index.name
        try:
            shas[publisher] = file_sha256(path)
            loaded = load_vectors(path, dict(index.stamp), index_sha256=shas[publisher])
        except (IndexError_, OSError) as exc:
            code = getattr(exc, "code", "vectors_missing")
            reason = code if code in ("vectors_missing", "vectors_unverified") else "vectors_unverified"
            decisions[publisher] = Decision(publisher, False, reason, (getattr(exc, "message", str(exc)),))
            continue
        if not encoder.identity.matches(loaded.encoder):
            decisions[publisher] = Decision(publisher, False, "vectors_unverified",
                                            ("the vectors were built by another encoder",))
            continue
        vectors[publisher] = loaded
    return vectors, shas


def activate_hybrid(core: HasIndexes, index_dir: Path, *, report: Path | None, trust: TrustStore | None,
                    encoder_loader: EncoderLoader = load_encoder,
                    policy: GatePolicy = HYBRID_POLICY) -> dict[str, Decision]:
    """Decide and register the hybrid lane of every mounted index (see the module docstring)."""
    decisions: dict[str, Decision] = {}
    try:
        encoder = encoder_loader()
    except IndexError_ as exc:
        for publisher, index in core.indexes.items():
            decisions[publisher] = Decision(publisher, False, "encoder_unavailable", (f"{exc.code}: {exc.message}",))
            record(index, decisions[publisher])
        core.attach_search_lane(HYBRID_SEARCH)
        return decisions
    vectors, shas = _load_all(core, index_dir, encoder, decisions)
    if vectors:
        refusal = check_report(report, trust, artifact_subjects(index_dir, vectors, shas, encoder),
                               encoder.identity.as_dict(), policy)
        for publisher, loaded in vectors.items():
            if refusal is not None:
                decisions[publisher] = Decision(publisher, False, refusal.reason, refusal.details)
            else:
                decisions[publisher] = Decision(publisher, True, None, (), HybridLane(loaded, encoder))
    for publisher, index in core.indexes.items():
        record(index, decisions[publisher])
    core.attach_search_lane(HYBRID_SEARCH)
    return decisions


def attach_for_measurement(core: HasIndexes, index_dir: Path, encoder: Encoder) -> tuple[
        dict[str, Decision], dict[str, str]]:
    """Register lanes without the report gate — for the benchmark that measures them, only.

    Returns the decisions and the subjects a report of this run must be bound to.
    """
    decisions: dict[str, Decision] = {}
    vectors, shas = _load_all(core, index_dir, encoder, decisions)
    for publisher, loaded in vectors.items():
        decisions[publisher] = Decision(publisher, True, None, ("measurement",), HybridLane(loaded, encoder))
    for publisher, index in core.indexes.items():
        record(index, decisions[publisher])
    core.attach_search_lane(HYBRID_SEARCH)
    return decisions, artifact_subjects(index_dir, vectors, shas, encoder)


def decisions_json(decisions: Mapping[str, Decision]) -> list[dict[str, Any]]:
    return [decisions[p].to_dict() for p in sorted(decisions)]


#: Path of the signed hybrid benchmark report (``*.dsse.json``) a server may activate hybrid with.
REPORT_ENV = "LEX_HYBRID_REPORT"


def activate_from_env(core: HasIndexes, index_dir: Path, environ: Mapping[str, str] | None = None) -> dict[
        str, Decision] | None:
    """The server's entry point: with ``LEX_HYBRID_REPORT`` set, decide hybrid for ``core``.

    The report is verified against the trust roots of ``LEX_TRUST_ROOTS`` (the same pinned keys
    as the artifact set). Never raises: every problem becomes a typed refusal and keyword serving
    is unaffected. Without the variable nothing is decided (hybrid answers ``not_activated``).
    """
    env = os.environ if environ is None else environ
    report = env.get(REPORT_ENV)
    if not report:
        return None
    try:
        trust: TrustStore | None = trust_roots_from_env(environ=env)
    except LexError:
        trust = None
    return activate_hybrid(core, index_dir, report=Path(report), trust=trust)
