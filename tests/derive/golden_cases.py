"""The golden cases of the derive tests, shared with ``scripts/regen_golden_derive.py``.

Each case names a real fixture body by path (relative to the fixtures directory), the
language and the profile the dispatcher must pick. Goldens freeze each profile's output
fingerprint ``sha256("|".join(anchor + ":" + text_sha256))``: a profile whose output changes
is a new profile version, never an edited golden (regenerate only for a new profile id).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from derive.dispatch import derive_body
from derive.history import VersionTexts, build_history
from derive.profiles.pdf_memorial_lu import Act

LU = "lex-corpus-lu-legilux/works/"
EU = "lex-corpus-eu-eurlex/works/"

FINGERPRINT_CASES: dict[str, tuple[str, str, str]] = {
    # name: (glob relative to the fixtures dir, language, expected profile)
    "constitution-2023-fr": (LU + "constitution-1868-10-17-n1/versions/2023-07-01/fr.xml", "fr", "akn-lu/3"),
    "constitution-2023-de": (LU + "constitution-1868-10-17-n1/versions/2023-07-01/de.xml", "de", "akn-lu/3"),
    "constitution-2023-lb": (LU + "constitution-1868-10-17-n1/versions/2023-07-01/lb.xml", "lb", "akn-lu/3"),
    "covid-rgd-2022-06-30": (LU + "rgd-2020-06-20-a537/versions/2022-06-30/fr.xml", "fr", "akn-lu/3"),
    "ncpc-2025-12-19": (LU + "rgd-1998-08-03-n4/versions/2025-12-19/fr.xml", "fr", "akn-lu/3"),
    "div-notice-document": (LU + "div-2023-06-21-a323/versions/*/fr.xml", "fr", "akn-lu-document/3"),
    "gdpr-2016-05-04-en-formex": (EU + "32016r0679/versions/2016-05-04--*/en.fmx4/CL2016R0679EN0000020.0001.xml",
                                  "en", "fmx4-eu/4"),
    "crr-2021-06-29-en-formex": (EU + "32013r0575/versions/2021-06-29--*/en.fmx4/CL2013R0575EN0100010.0001.xml",
                                 "en", "fmx4-eu/4"),
    "gdpr-2016-05-04-en-xhtml": (EU + "32016r0679/versions/2016-05-04--*/en.html", "en", "xhtml-eu/4"),
    "gdpr-2016-05-04-fr-xhtml": (EU + "32016r0679/versions/2016-05-04--*/fr.html", "fr", "xhtml-eu/4"),
    "gdpr-2016-04-27-en-convex": (EU + "32016r0679/versions/2016-04-27--*/en.xml", "en", "xhtml-eu/4"),
    "flat-fmx2xhtml-32013r1336": (EU + "32013r1336/versions/2016-04-18--*/en.html", "en", "xhtml-eu/4"),
    "eurlex-html401-11997e083": (EU + "11997e083/versions/*/en.html", "en", "html-eu-tolerant/5"),
    "pdf-rgd-2020-03-18-a165": (LU + "rgd-2020-03-18-a165/versions/2020-06-12/fr.pdf/*.pdf", "fr", "pdf-lu/2"),
}

MEMORIAL_CASES: dict[str, tuple[str, str, str, bool]] = {
    # name: (glob of the Mémorial issue, work slug, version valid_from, first version) → pdf-memorial-lu/2
    "memorial-loi-1969-07-11-original": (LU + "loi-1969-07-11-n1/versions/1969-07-20/fr.pdf-memorial/*.pdf",
                                         "loi-1969-07-11-n1", "1969-07-20", True),
    "memorial-agc-2000-11-10-original": (LU + "agc-2000-11-10-n1/versions/2000-12-16/fr.pdf-memorial/*.pdf",
                                         "agc-2000-11-10-n1", "2000-12-16", True),
    "memorial-agd-1909-coordinated-1987": (LU + "agd-1909-12-23-n1/versions/1987-05-24/fr.pdf-memorial/*.pdf",
                                           "agd-1909-12-23-n1", "1987-05-24", True),
    "memorial-agd-1909-coordinated-1991": (LU + "agd-1909-12-23-n1/versions/1991-04-15/fr.pdf-memorial/*.pdf",
                                           "agd-1909-12-23-n1", "1991-04-15", False),
}

CRR_VERSIONS = ("2013-06-28", "2019-12-25", "2020-06-27", "2021-06-29")
CRR_LEX_ID = "eu-eurlex:32013r0575:{date}"


def one(fixtures: Path, pattern: str) -> Path:
    found = sorted(fixtures.glob(pattern))
    if len(found) != 1:
        raise AssertionError(f"{pattern!r} matched {len(found)} files")
    return found[0]


def fingerprints(fixtures: Path) -> dict[str, Any]:
    out = {}
    for name, (pattern, language, _profile) in sorted(FINGERPRINT_CASES.items()):
        result = derive_body(one(fixtures, pattern).read_bytes(), language=language)
        out[name] = {"profile": result.profile, "provisions": len(result.provisions),
                     "empty_provisions": result.empty_provisions, "fingerprint": result.fingerprint}
    for name, (pattern, slug, valid_from, first) in sorted(MEMORIAL_CASES.items()):
        act = Act.from_slug(slug, valid_from, first)
        result = derive_body(one(fixtures, pattern).read_bytes(), language="fr", fmt="pdf-memorial", act=act)
        out[name] = {"profile": result.profile, "provisions": len(result.provisions),
                     "empty_provisions": result.empty_provisions, "fingerprint": result.fingerprint}
    return dict(sorted(out.items()))


def profile_versions(fixtures: Path, cases: dict[str, Any] | None = None) -> dict[str, Any]:
    """Profile id (with version) → its cases and one fingerprint over their outputs, under the
    declared versions that shape a body's extraction (:data:`derive.cache.BODY_VERSIONS`).

    The same profile ids key the derive cache (:func:`derive.cache.route_profiles`): a profile
    whose fingerprint here changes under the same id would leave stale works in every cache.
    """
    from derive.cache import BODY_VERSIONS, declared_versions
    from legal.canonical import digest

    cases = fingerprints(fixtures) if cases is None else cases
    by_profile: dict[str, dict[str, Any]] = {}
    for name, case in sorted(cases.items()):
        by_profile.setdefault(case["profile"], {})[name] = case
    declared = declared_versions()
    return {
        "declared": {name: declared[name] for name in BODY_VERSIONS},
        "profiles": {pid: {"cases": sorted(named), "fingerprint": digest(named)}
                     for pid, named in sorted(by_profile.items())},
    }


def gdpr_article_6(fixtures: Path) -> dict[str, Any]:
    out = {}
    for language in ("en", "fr"):
        body = one(fixtures, EU + f"32016r0679/versions/2016-05-04--*/{language}.html").read_bytes()
        result = derive_body(body, language=language)
        art = next(p for p in result.provisions if p.anchor == "art_6")
        out[language] = {"profile": result.profile, "num": art.num, "heading": art.heading, "path": list(art.path),
                         "text_sha256": art.text_sha256, "text_md": art.text_md}
    return out


def crr_article_92_history(fixtures: Path) -> dict[str, Any]:
    """History of CRR art_92 over the four held Formex versions (the others hold no bytes here)."""
    versions = []
    for date in CRR_VERSIONS:
        path = next(p for p in sorted(fixtures.glob(EU + f"32013r0575/versions/{date}--*/en.fmx4/*.xml"))
                    if not p.name.endswith(".doc.xml"))
        result = derive_body(path.read_bytes(), language="en")
        texts = VersionTexts(CRR_LEX_ID.format(date=date), date, date, profiles={result.profile})
        texts.texts["en"] = {p.anchor: (p.text_sha256, None) for p in result.provisions if not p.is_empty}
        versions.append(texts)
    history = build_history("eu-eurlex:32013r0575", versions)
    return {"states": history["anchors_by_language"]["en"]["art_92"],
            "note": "derived valid_to here uses only the four held versions; in the tree the "
                    "versions without bytes also bound the intervals"}


def regenerate(fixtures: Path, golden_dir: Path) -> list[Path]:
    from legal.canonical import pretty_bytes

    golden_dir.mkdir(parents=True, exist_ok=True)
    written = []
    cases = fingerprints(fixtures)
    for name, value in (("fingerprints.json", cases),
                        ("profile-versions.json", profile_versions(fixtures, cases)),
                        ("gdpr-art_6-2016-05-04.json", gdpr_article_6(fixtures)),
                        ("crr-art_92-formex-history.json", crr_article_92_history(fixtures))):
        path = golden_dir / name
        path.write_bytes(pretty_bytes(value))
        written.append(path)
    return written


__all__ = ["CRR_VERSIONS", "FINGERPRINT_CASES", "MEMORIAL_CASES", "crr_article_92_history", "fingerprints",
           "gdpr_article_6", "one", "profile_versions", "regenerate"]
