"""``scripts/anchor_churn.py``: anchors that come and go between versions with no wording change."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "anchor_churn.py"


def _churn() -> Any:
    spec = importlib.util.spec_from_file_location("anchor_churn", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module by name
    spec.loader.exec_module(module)
    return module


def _row(version: str, profile: str, anchor: str, text: str) -> dict[str, str]:
    return {"work_id": "eu-eurlex:x", "language": "en", "version_key": f"{version}--k", "valid_from": version,
            "profile": profile, "anchor": anchor, "text_sha256": text}


def test_renamed_flicker_and_moved_are_counted(tmp_path):
    rows = [
        _row("2001-01-01", "xhtml-eu/2", "art_1", "a"), _row("2001-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2002-01-01", "fmx4-eu/2", "art_1", "a"), _row("2002-01-01", "fmx4-eu/2", "anx_i", "x2"),
        _row("2003-01-01", "xhtml-eu/2", "art_1", "a"), _row("2003-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2003-01-01", "xhtml-eu/2", "art_7_bis", "b"),
        _row("2004-01-01", "xhtml-eu/2", "art_1", "a"), _row("2004-01-01", "xhtml-eu/2", "anx_I", "x"),
        _row("2004-01-01", "xhtml-eu/2", "art_7a", "b"),
    ]
    (tmp_path / "provisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = _churn().anchor_churn(tmp_path)
    assert (report.renamed, report.flicker, report.moved) == (2, 1, 0)  # at the profile switches
    assert report.same_profile_moved == 1  # art_7_bis → art_7a between two XHTML versions
    assert report.works_mixing_profiles == 1 and report.churn == 3


def test_stable_anchors_have_no_churn(tmp_path):
    rows = [_row(v, p, "anx_I", "x") for v, p in (("2001-01-01", "xhtml-eu/2"), ("2002-01-01", "fmx4-eu/2"),
                                                  ("2003-01-01", "xhtml-eu/2"))]
    (tmp_path / "provisions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert _churn().anchor_churn(tmp_path).churn == 0
