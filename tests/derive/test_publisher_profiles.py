"""The profile families a publisher's facts declare are the profiles derive runs (any version)."""

from __future__ import annotations

from derive.profiles import registry
from legal.publishers import BUILT_IN


def test_every_declared_profile_family_is_a_runnable_profile() -> None:
    families = {profile_id.rsplit("/", 1)[0] for profile_id in registry()}
    declared = {family for facts in BUILT_IN for family in facts.profiles}
    assert declared == families
