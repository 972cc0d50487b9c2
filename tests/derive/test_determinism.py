"""Same bytes + same profile → byte-identical output; hostile bytes → typed errors only."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.dispatch import derive_body
from legal.errors import LexError
from tests.derive.golden_cases import FINGERPRINT_CASES, MEMORIAL_CASES, fingerprints, one


def test_frozen_profile_fingerprints(fixtures_dir, golden):
    """A profile never changes output under the same id: these are its frozen fingerprints."""
    expected = golden("fingerprints.json")
    actual = fingerprints(fixtures_dir)
    assert actual == expected
    for name, (_pattern, _lang, profile) in FINGERPRINT_CASES.items():
        assert actual[name]["profile"] == profile, name
    for name in MEMORIAL_CASES:
        assert actual[name]["profile"] == "pdf-memorial-lu/3" and actual[name]["provisions"] > 0, name


def test_rerun_is_byte_identical(fixtures_dir):
    for pattern, language, _profile in list(FINGERPRINT_CASES.values())[:6]:
        data = one(fixtures_dir, pattern).read_bytes()
        first, second = derive_body(data, language=language), derive_body(data, language=language)
        assert first == second
        assert first.document_md == second.document_md


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048) | st.text(max_size=512).map(lambda t: f"<html><body><p>{t}</p></body></html>".encode()))
def test_arbitrary_bytes_give_a_result_or_a_typed_error(data: bytes):
    try:
        result = derive_body(data, language="en")
    except LexError:
        return
    assert all(p.text_sha256 for p in result.provisions)


def test_crr_article_92_formex_history_is_golden(fixtures_dir, golden):
    from tests.derive.golden_cases import crr_article_92_history

    assert crr_article_92_history(fixtures_dir) == golden("crr-art_92-formex-history.json")
