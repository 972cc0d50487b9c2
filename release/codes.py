"""The closed vocabulary of release refusals, and the one way to raise them.

Every refusal in :mod:`release` is a :class:`legal.errors.ReleaseError` whose ``code`` is one
member of :class:`Reason`. Shells (CLI, server) switch on the code, never on the message.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NoReturn

from legal.errors import ReleaseError


class Reason(StrEnum):
    """Why a release operation refused. Values are the stable ``ReleaseError.code`` strings."""

    # keys and trust roots
    KEY_EXISTS = "key_exists"
    KEY_UNREADABLE = "key_unreadable"
    PASSPHRASE_MISSING = "passphrase_missing"
    UNSUPPORTED_ALGORITHM = "unsupported_algorithm"
    NO_TRUST_ROOTS = "no_trust_roots"
    TRUST_ROOT_UNREADABLE = "trust_root_unreadable"
    TRUST_ROOT_IN_ARTIFACT_DIR = "trust_root_in_artifact_dir"
    # the envelope and its signatures
    UNSIGNED = "unsigned"
    MALFORMED_ENVELOPE = "malformed_envelope"
    MALFORMED_SIGNATURE = "malformed_signature"
    UNKNOWN_KEY = "unknown_key"
    BAD_SIGNATURE = "bad_signature"
    WRONG_PAYLOAD_TYPE = "wrong_payload_type"
    # the statement
    MALFORMED_STATEMENT = "malformed_statement"
    WRONG_PREDICATE_TYPE = "wrong_predicate_type"
    SET_ID_MISMATCH = "set_id_mismatch"
    # assembling a set
    SET_DIR_EXISTS = "set_dir_exists"
    ASSEMBLY_INPUT_MISSING = "assembly_input_missing"
    ASSEMBLY_CONFLICT = "assembly_conflict"
    # the files
    NOT_A_DIRECTORY = "not_a_directory"
    EMPTY_SET = "empty_set"
    UNSAFE_PATH = "unsafe_path"
    MISSING_FILE = "missing_file"
    EXTRA_FILE = "extra_file"
    SIZE_MISMATCH = "size_mismatch"
    DIGEST_MISMATCH = "digest_mismatch"
    INCOMPLETE_DATASET = "incomplete_dataset"
    # sigstore
    NO_OIDC_IDENTITY = "no_oidc_identity"
    SIGSTORE_UNAVAILABLE = "sigstore_unavailable"
    SIGSTORE_BUNDLE_INVALID = "sigstore_bundle_invalid"
    SIGSTORE_VERIFICATION_FAILED = "sigstore_verification_failed"
    SIGSTORE_POLICY_INVALID = "sigstore_policy_invalid"
    # benchmark reports
    MALFORMED_REPORT = "malformed_report"
    BAD_REPORT_SIGNATURE = "bad_report_signature"
    REPORT_INCONSISTENT = "report_inconsistent"
    REPORT_FOR_OTHER_IDENTITY = "report_for_other_identity"
    GATE_FAILED = "gate_failed"
    GATE_POLICY_INVALID = "gate_policy_invalid"
    # promotion and the ledger
    NO_REPORT = "no_report"
    UNKNOWN_SET = "unknown_set"
    NOT_A_CANDIDATE = "not_a_candidate"
    NO_ROLLBACK = "no_rollback"
    ALREADY_CURRENT = "already_current"
    POINTERS_CORRUPT = "pointers_corrupt"
    RELEASE_ROOT_LOCKED = "release_root_locked"
    LEDGER_CORRUPT = "ledger_corrupt"
    LEDGER_BROKEN_CHAIN = "ledger_broken_chain"
    LEDGER_HEAD_MISMATCH = "ledger_head_mismatch"
    POINTERS_MISMATCH = "pointers_mismatch"
    NOT_NEWER = "not_newer"
    ALREADY_RELEASED = "already_released"
    ROLLBACK_REASON_MISSING = "rollback_reason_missing"
    # the ledger read as history (lex release history)
    LEDGER_TIME_DISORDER = "ledger_time_disorder"
    INVALID_INSTANT = "invalid_instant"


def refuse(reason: Reason, message: str, subject: str | None = None) -> NoReturn:
    """Raise the :class:`ReleaseError` for ``reason``."""
    raise ReleaseError(message, code=reason.value, subject=subject)
