"""verify_artifact_set: the happy path and one typed reason per failure."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from legal.canonical import canonical_bytes
from legal.errors import ReleaseError
from release import signatures, verify_artifact_set
from release.keys import KeySigner, TrustStore, load_trust_roots, public_pem
from release.statement import ENVELOPE_NAME, SIGSTORE_BUNDLE_NAME, compute_set_id, scan_subjects

from .conftest import FIXED_TIME, SignFn, write_build


def refused(directory: Path, trust: TrustStore | list[Path]) -> str:
    with pytest.raises(ReleaseError) as caught:
        verify_artifact_set(directory, trust)
    assert caught.value.family == "release"
    return caught.value.code


def test_sign_then_verify(build: Path, sign: SignFn, trust: TrustStore, ed_signer: KeySigner) -> None:
    signed = sign(build)
    verified = verify_artifact_set(build, trust)
    assert verified.set_id == signed.set_id
    assert verified.key_ids == (ed_signer.key_id,)
    assert sorted(verified.subjects) == [
        "corpus/manifest.json", "dataset/provisions.jsonl", "eu-scope.json",
        "indexes/eu-eurlex.sqlite", "indexes/eu-eurlex.stamp.json",
    ]
    sqlite = verified.subjects["indexes/eu-eurlex.sqlite"]
    assert sqlite.size == (build / "indexes/eu-eurlex.sqlite").stat().st_size
    assert verified.path("eu-scope.json") == build / "eu-scope.json"
    assert verified.predicate["created_at"] == FIXED_TIME
    assert verified.predicate["subject_count"] == 5


def test_p256_key_verifies(build: Path, sign: SignFn, trust: TrustStore, p256_signer: KeySigner) -> None:
    sign(build, p256_signer)
    assert verify_artifact_set(build, trust).key_ids == (p256_signer.key_id,)


def test_trust_roots_may_be_given_as_paths(build: Path, sign: SignFn, trust_dir: Path) -> None:
    sign(build)
    assert verify_artifact_set(build, [trust_dir / "ed.pub.pem"]).set_id


def test_set_id_is_the_digest_of_the_sorted_subject_list(build: Path, sign: SignFn) -> None:
    signed = sign(build)
    subjects = scan_subjects(build)
    expected = canonical_bytes([s.to_json() for s in sorted(subjects, key=lambda s: s.name)])
    import hashlib

    assert signed.set_id == hashlib.sha256(expected).hexdigest() == compute_set_id(reversed(subjects))


def test_set_id_does_not_depend_on_signer_or_time(build: Path, sign: SignFn, p256_signer: KeySigner) -> None:
    first = sign(build).set_id
    second = sign(build, p256_signer, labels={"run": "2"}).set_id
    assert first == second


def test_statement_is_canonical_in_toto(build: Path, sign: SignFn) -> None:
    signed = sign(build)
    envelope = signatures.read(build / ENVELOPE_NAME)
    assert envelope.payload_type == "application/vnd.in-toto+json"
    assert envelope.payload == canonical_bytes(json.loads(envelope.payload)) == signed.payload
    statement = json.loads(envelope.payload)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://lex-evidence.dev/artifact-set/v1"
    assert statement["subject"][0] == {
        "name": "corpus/manifest.json",
        "digest": {"sha256": statement["subject"][0]["digest"]["sha256"]},
        "annotations": {"size": 24},
    }


# -- the refusals named in the brief ---------------------------------------------------------


def test_one_flipped_byte_is_digest_mismatch(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    path = build / "indexes/eu-eurlex.sqlite"
    data = bytearray(path.read_bytes())
    data[1234] ^= 0x01
    path.write_bytes(bytes(data))
    assert refused(build, trust) == "digest_mismatch"


def test_an_added_file_is_extra_file(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    (build / "indexes/extra.sqlite").write_bytes(b"x")
    assert refused(build, trust) == "extra_file"


def test_an_added_hidden_file_is_extra_file(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    (build / ".DS_Store").write_bytes(b"")
    assert refused(build, trust) == "extra_file"


def test_a_removed_file_is_missing_file(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    (build / "eu-scope.json").unlink()
    assert refused(build, trust) == "missing_file"


def test_a_wrong_key_is_unknown_key(build: Path, sign: SignFn, trust: TrustStore, stranger: KeySigner) -> None:
    sign(build, stranger)
    assert refused(build, trust) == "unknown_key"


def test_a_key_not_pinned_by_this_verifier_is_unknown_key(build: Path, sign: SignFn, ed_trust: TrustStore,
                                                          p256_signer: KeySigner) -> None:
    sign(build, p256_signer)
    assert refused(build, ed_trust) == "unknown_key"


def test_a_truncated_signature_is_malformed_signature(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    path = build / ENVELOPE_NAME
    document = json.loads(path.read_bytes())
    document["signatures"][0]["sig"] = document["signatures"][0]["sig"][:-8]
    path.write_bytes(json.dumps(document).encode())
    assert refused(build, trust) == "malformed_signature"


def test_no_envelope_is_unsigned(build: Path, trust: TrustStore) -> None:
    assert refused(build, trust) == "unsigned"


def test_a_damaged_envelope_is_malformed_envelope(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    path = build / ENVELOPE_NAME
    path.write_bytes(path.read_bytes()[:100])
    assert refused(build, trust) == "malformed_envelope"


def test_an_edited_statement_is_bad_signature(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    path = build / ENVELOPE_NAME
    envelope = signatures.read(path)
    statement = json.loads(envelope.payload)
    statement["subject"] = statement["subject"][1:]
    forged = signatures.Envelope(envelope.payload_type, canonical_bytes(statement), envelope.signatures)
    path.write_bytes(forged.to_bytes())
    assert refused(build, trust) == "bad_signature"


def test_a_changed_size_is_size_mismatch(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    with open(build / "eu-scope.json", "ab") as handle:
        handle.write(b" ")
    assert refused(build, trust) == "size_mismatch"


def test_each_failure_has_its_own_code(build: Path, sign: SignFn, trust: TrustStore, stranger: KeySigner,
                                       tmp_path: Path) -> None:
    codes = set()
    for damage in (_flip, _add, _remove, _truncate_sig):
        directory = write_build(tmp_path / damage.__name__)
        sign(directory)
        damage(directory)
        codes.add(refused(directory, trust))
    wrong = write_build(tmp_path / "wrong-key")
    sign(wrong, stranger)
    codes.add(refused(wrong, trust))
    assert codes == {"digest_mismatch", "extra_file", "missing_file", "malformed_signature", "unknown_key"}


def _flip(directory: Path) -> None:
    path = directory / "dataset/provisions.jsonl"
    data = bytearray(path.read_bytes())
    data[0] ^= 0x80
    path.write_bytes(bytes(data))


def _add(directory: Path) -> None:
    (directory / "new.json").write_bytes(b"{}")


def _remove(directory: Path) -> None:
    (directory / "corpus/manifest.json").unlink()


def _truncate_sig(directory: Path) -> None:
    envelope = signatures.read(directory / ENVELOPE_NAME)
    sig = envelope.signatures[0]
    short = signatures.Envelope(envelope.payload_type, envelope.payload, (signatures.Signature(sig.keyid, sig.sig[:40]),))
    (directory / ENVELOPE_NAME).write_bytes(short.to_bytes())


# -- paths, links and trust roots ------------------------------------------------------------


def test_a_symlink_in_the_set_is_refused(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    os.symlink("/etc/hostname", build / "link")
    assert refused(build, trust) == "unsafe_path"


def test_the_set_directory_itself_may_be_a_symlink(build: Path, sign: SignFn, trust: TrustStore,
                                                   tmp_path: Path) -> None:
    signed = sign(build)
    os.symlink(build, tmp_path / "current")
    assert verify_artifact_set(tmp_path / "current", trust).set_id == signed.set_id


def test_a_trust_root_inside_the_artifact_dir_is_refused(build: Path, sign: SignFn, ed_signer: KeySigner,
                                                          trust_dir: Path) -> None:
    # even a genuine, correct public key: the location alone is refused
    sign(build)
    inside = build / "keys" / "root.pub.pem"
    inside.parent.mkdir()
    shutil.copy(trust_dir / "ed.pub.pem", inside)
    assert refused(build, [inside]) == "trust_root_in_artifact_dir"
    assert refused(build, load_trust_roots([inside])) == "trust_root_in_artifact_dir"


def test_a_missing_directory_is_refused(tmp_path: Path, trust: TrustStore) -> None:
    assert refused(tmp_path / "absent", trust) == "not_a_directory"


def test_no_trust_roots_is_refused(build: Path, sign: SignFn) -> None:
    sign(build)
    assert refused(build, []) == "no_trust_roots"


def test_the_sigstore_bundle_name_is_not_an_extra_file(build: Path, sign: SignFn, trust: TrustStore) -> None:
    sign(build)
    (build / SIGSTORE_BUNDLE_NAME).write_text("{}")
    assert verify_artifact_set(build, trust).set_id


def test_an_empty_directory_cannot_be_signed(tmp_path: Path, sign: SignFn) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReleaseError) as caught:
        sign(tmp_path / "empty")
    assert caught.value.code == "empty_set"


def test_a_forged_set_id_is_refused(build: Path, trust: TrustStore, ed_signer: KeySigner) -> None:
    from release.signing import sign_statement, statement_for

    statement = statement_for(build, created_by="tests", created_at=FIXED_TIME)
    statement["predicate"]["set_id"] = "0" * 64
    sign_statement(build, statement, [ed_signer])
    assert refused(build, trust) == "set_id_mismatch"


@pytest.mark.parametrize("name", ["../escape", "/abs", "a//b", "a/./b", "a\\b", ""])
def test_unsafe_subject_names_are_refused(build: Path, trust: TrustStore, ed_signer: KeySigner, name: str) -> None:
    from release.signing import sign_statement, statement_for

    statement = statement_for(build, created_by="tests", created_at=FIXED_TIME)
    statement["subject"][0]["name"] = name
    sign_statement(build, statement, [ed_signer])
    assert refused(build, trust) == "unsafe_path"


def test_a_non_canonical_payload_is_refused(build: Path, sign: SignFn, trust: TrustStore,
                                            ed_signer: KeySigner) -> None:
    sign(build)
    envelope = signatures.read(build / ENVELOPE_NAME)
    pretty = json.dumps(json.loads(envelope.payload), indent=1).encode()
    resigned = signatures.sign(pretty, envelope.payload_type, [ed_signer])
    (build / ENVELOPE_NAME).write_bytes(resigned.to_bytes())
    assert refused(build, trust) == "malformed_statement"


def test_large_files_stream_and_hash_in_parallel(tmp_path: Path, sign: SignFn, trust: TrustStore) -> None:
    big = {f"part-{i}.bin": os.urandom(3 * (1 << 20) + i) for i in range(12)}
    directory = write_build(tmp_path / "big", big)
    sign(directory)
    assert verify_artifact_set(directory, trust, workers=4).subjects["part-3.bin"].size == 3 * (1 << 20) + 3
    with open(directory / "part-7.bin", "r+b") as handle:
        handle.seek(2 * (1 << 20) + 5)
        handle.write(b"\x00" if handle.read(1) != b"\x00" else b"\x01")
    assert refused(directory, trust) == "digest_mismatch"


def test_the_public_key_id_is_the_spki_fingerprint(ed_signer: KeySigner, trust_dir: Path) -> None:
    import hashlib

    from cryptography.hazmat.primitives import serialization

    der = ed_signer.private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert ed_signer.key_id == hashlib.sha256(der).hexdigest()
    assert (trust_dir / "ed.pub.pem").read_bytes() == public_pem(ed_signer.private_key.public_key())
