"""Release: signed artifact sets, their verification, signed benchmark reports, promotion.

The server needs two calls::

    from release import current_set, verify_artifact_set
    directory = current_set(release_root)                  # Path | None
    verified = verify_artifact_set(directory, trust_roots)  # raises ReleaseError, else
    verified.set_id, verified.subjects                     # identity and file map

Everything else (signing, reports, promotion, sigstore) is for the ``lex release`` CLI and
the release pipeline. Nothing here runs at import time; sigstore is imported only by
:mod:`release.sigstore_support`.
"""

from __future__ import annotations

from release.keys import TrustStore, load_trust_roots, trust_roots_from_env
from release.promotion import current_set
from release.verify import VerifiedSet, verify_artifact_set

__all__ = [
    "TrustStore",
    "VerifiedSet",
    "current_set",
    "load_trust_roots",
    "trust_roots_from_env",
    "verify_artifact_set",
]
