"""``scripts/anchor_churn.py``: anchors that come and go between versions with no wording change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.scripts_loader import load_script

EXCERPTS = Path(__file__).resolve().parent / "excerpts"

# Wording of 31977L0388 (EUR-Lex, en): Articles 31 and 32 of the 1977-05-17 page (en.html) as derived, and
# Article 31 of the 2004-05-01 consolidation (en.xml) as derived; in 2004 Article 32 is deleted ("▼M8 —————",
# excerpt 31977l0388-2004-05-01-en-art_31-32.xml) and Article 22a inserted (its first sentence).
ART_31_1977 = ("1. The unit of account used in this Directive shall be the European unit of account (EUA) defined "
               "by Decision 75/250/EEC (1).\n\n2. When converting this unit of account into national currencies, "
               "Member States shall have the option of rounding the amounts resulting from this conversion either "
               "upwards or downwards by up to 10 %.")
ART_31_2004 = ("1. The unit of account used in the Directive shall be the European unit of account (EUA) defined by "
               "Decision 75/250/EEC[^1].\n\n2. When converting this unit of account into national currencies, "
               "Member States shall have the option of rounding the amounts resulting from this conversion either "
               "upwards or downwards by up to 10%.\n\n[^1]: JO No L 104, 24. 4. 1975, p. 35.")
ART_32_1977 = ("The Council, acting unanimously on a proposal from the Commission, shall adopt before 31 December "
               "1977 a Community taxation system to be applied to used goods, works of art, antiques and "
               "collectors' items.\n\nUntil this Community system becomes applicable, Member States applying a "
               "special system to these items at the time this Directive comes into force may retain that system.")
ART_22A_2004 = ("When a taxable person stores invoices which he issues or receives by an electronic means "
                "guaranteeing on-line access to the data and when the place of storage is in a Member State other "
                "than that in which he is established, the competent authorities in the Member State in which he is "
                "established shall have a right to access by electronic means, download and use these invoices.")


def _churn() -> Any:
    return load_script("anchor_churn")


def _row(version: str, profile: str, anchor: str, text: str, wording: str | None = None,
         evidence: str = "e") -> dict[str, str]:
    return {"work_id": "eu-eurlex:x", "language": "en", "version_key": f"{version}--k", "valid_from": version,
            "profile": profile, "anchor": anchor, "text_sha256": text,
            "text_md": wording if wording is not None else f"the wording of {text} " * 3, "evidence_sha256": evidence}


def _write(tmp_path: Path, rows: list[dict[str, str]]) -> Path:
    (tmp_path / "provisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return tmp_path


class _Store:
    def __init__(self, bodies: dict[str, bytes]) -> None:
        self.bodies = bodies

    def read(self, sha: str) -> bytes:
        return self.bodies[sha]


class _Tree:
    def __init__(self, bodies: dict[str, bytes]) -> None:
        self.evidence = _Store(bodies)


def test_renamed_flicker_and_moved_are_counted(tmp_path):
    rows = [
        _row("2001-01-01", "xhtml-eu/2", "art_1", "a"), _row("2001-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2002-01-01", "fmx4-eu/2", "art_1", "a"), _row("2002-01-01", "fmx4-eu/2", "anx_i", "x"),
        _row("2003-01-01", "xhtml-eu/2", "art_1", "a"), _row("2003-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2003-01-01", "xhtml-eu/2", "art_7_bis", "b"),
        _row("2004-01-01", "xhtml-eu/2", "art_1", "a"), _row("2004-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2004-01-01", "xhtml-eu/2", "art_7a", "b"),
    ]
    report = _churn().anchor_churn(_write(tmp_path, rows))
    # anx_I → anx_i → anx_I: the same wording renamed at both profile switches, and anx_I flickers
    assert (report.renamed, report.moved, report.flicker) == (2, 2, 1)
    assert report.same_profile_moved == 1  # art_7_bis → art_7a between two XHTML versions
    assert report.works_mixing_profiles == 1 and report.churn == 3
    # art_7_bis appears at the Formex → XHTML switch with wording no earlier version had: an insertion
    assert (report.deleted, report.inserted) == (0, 1) and report.amendments[0]["anchor"] == "art_7_bis"


def test_same_wording_under_another_anchor_is_a_rename_even_when_the_bytes_differ(tmp_path):
    # the 1977 page and the 2004 consolidation give Article 31 with other footnote calls and spacing
    rows = [_row("1977-05-17", "html-eu-tolerant/3", "art_31", "h1", ART_31_1977),
            _row("2004-05-01", "xhtml-eu/3", "art_31_unit_of_account", "h2", ART_31_2004)]
    report = _churn().anchor_churn(_write(tmp_path, rows))
    assert (report.renamed, report.moved, report.churn) == (1, 0, 1)
    assert report.examples[0]["anchor"] == "art_31" and report.examples[0]["to"] == "art_31_unit_of_account"


def test_an_amendment_at_a_profile_switch_is_not_churn_and_the_deletion_mark_confirms_it(tmp_path):
    """31977L0388 en 1977 → 2004: Article 32 deleted (▼M8 —————), Article 22a inserted (▼M markers)."""
    consolidation = (EXCERPTS / "31977l0388-2004-05-01-en-art_31-32.xml").read_bytes()
    rows = [_row("1977-05-17", "html-eu-tolerant/3", "art_31", "h1", ART_31_1977, "page"),
            _row("1977-05-17", "html-eu-tolerant/3", "art_32", "h32", ART_32_1977, "page"),
            _row("2004-05-01", "xhtml-eu/3", "art_22a", "h22a", ART_22A_2004, "cons"),
            _row("2004-05-01", "xhtml-eu/3", "art_31", "h2", ART_31_2004, "cons")]
    module = _churn()
    report = module.anchor_churn(_write(tmp_path, rows), tree=_Tree({"cons": consolidation}))
    assert report.churn == 0
    assert (report.deleted, report.inserted, report.confirmed, report.unconfirmed) == (1, 1, 2, 0)
    found = {(a["kind"], a["anchor"], a["evidence"]) for a in report.amendments}
    assert found == {("deleted", "art_32", "deletion mark"), ("inserted", "art_22a", "amendment markers")}
    # without the tree the wording alone tells the amendment; the evidence was not read
    plain = module.anchor_churn(tmp_path)
    assert plain.churn == 0 and (plain.deleted, plain.inserted, plain.confirmed, plain.unconfirmed) == (1, 1, 0, 0)
    assert {a["evidence"] for a in plain.amendments} == {"not read"}


def test_an_original_page_has_no_amendment_marks():
    module = _churn()
    consolidation = (EXCERPTS / "31977l0388-2004-05-01-en-art_31-32.xml").read_bytes()
    original = (EXCERPTS / "31977l0388-1977-05-17-en-tail.html").read_bytes()
    assert module.marks([consolidation]) == (True, True)
    assert module.marks([original]) == (False, False)


def test_wording_kept_inside_another_provision_is_churn_not_an_amendment(tmp_path):
    # one profile cut Article 32 out, the other left its wording at the end of Article 31: a regrouping
    rows = [_row("1977-05-17", "html-eu-tolerant/3", "art_31", "h1", ART_31_1977),
            _row("1977-05-17", "html-eu-tolerant/3", "art_32", "h32", ART_32_1977),
            _row("2004-05-01", "xhtml-eu/3", "art_31", "h2", ART_31_2004 + "\n\nArticle 32\n\n" + ART_32_1977)]
    report = _churn().anchor_churn(_write(tmp_path, rows))
    assert (report.regrouped, report.churn, report.deleted) == (1, 1, 0)
    assert report.examples[0] == {"kind": "merged", "work": "eu-eurlex:x", "language": "en",
                                  "between": ["1977-05-17", "2004-05-01"],
                                  "profiles": ["html-eu-tolerant/3", "xhtml-eu/3"], "anchor": "art_32",
                                  "within": "art_31"}


def test_stable_anchors_have_no_churn(tmp_path):
    rows = [_row(v, p, "anx_I", "x") for v, p in (("2001-01-01", "xhtml-eu/2"), ("2002-01-01", "fmx4-eu/2"),
                                                  ("2003-01-01", "xhtml-eu/2"))]
    report = _churn().anchor_churn(_write(tmp_path, rows))
    assert report.churn == 0 and not report.amendments
