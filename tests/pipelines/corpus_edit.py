"""A copy of the bundled sample corpus with one Legilux work changed: a new consolidated state.

The changed work (``CHANGED_SLUG``) gains one version (``NEW_VALID_FROM``) whose AKN body is
the previous AKN state's body with one sentence rewritten, and its last state gets a
``valid_to``; every other work and every other record are untouched. The records are re-hashed
with the published recipe, so the copy is a valid ``lex-corpus/4`` tree the replay publisher
serves like the original.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from legal.dotnet_json import published_record_sha256

CHANGED_SLUG = "rmin-2021-04-12-n907"
WORK_ELI = "http://data.legilux.public.lu/eli/etat/leg/rmin/2021/04/12/n907"
SOURCE_STATE = "2021-05-01"  # the AKN state whose body the new state starts from
LAST_STATE = "2023-02-01"  # the state closed by the new one
NEW_VALID_FROM = "2024-06-01"
PHRASE = "comporte les rubriques suivantes"  # in art_1er of the source state
MARKER = "comporte les rubriques suivantes, modifiées pour le test du pipeline,"


def _version_dir(work: Path, valid_from: str) -> Path:
    (found,) = [d for d in (work / "versions").iterdir() if d.name.startswith(f"{valid_from}--")]
    return found


def _write_record(path: Path, record: dict[str, Any]) -> None:
    record["record_sha256"] = published_record_sha256(record)
    path.write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _rewrite_body(body: bytes) -> bytes:
    text = body.decode("utf-8")
    changed = text.replace(PHRASE, MARKER, 1)
    assert changed != text, "the sample body no longer contains the phrase this helper rewrites"
    return changed.encode("utf-8")


def changed_lu_corpus(sample_lu: Path, dest: Path) -> Path:
    """Copy ``sample_lu`` to ``dest`` and give ``CHANGED_SLUG`` a new state; returns ``dest``."""
    shutil.copytree(sample_lu, dest)
    work = dest / "works" / CHANGED_SLUG
    source_dir = _version_dir(work, SOURCE_STATE)
    record = json.loads((source_dir / "meta.json").read_bytes())
    compact = NEW_VALID_FROM.replace("-", "")
    pvid = f"{WORK_ELI}/consolide/{compact}"
    key = f"{NEW_VALID_FROM}--{hashlib.sha256(pvid.encode()).hexdigest()}"
    new_dir = work / "versions" / key
    new_dir.mkdir()
    body = _rewrite_body((source_dir / "fr.xml").read_bytes())
    (new_dir / "fr.xml").write_bytes(body)
    page = f"https://legilux.public.lu/eli/etat/leg/rmin/2021/04/12/n907/consolide/{compact}/fr"
    record.update({"lex_id": f"lu-legilux:{CHANGED_SLUG}:{key}", "publisher_version_identifier": pvid,
                   "valid_from": NEW_VALID_FROM, "in_force_status": "applicable",
                   "publication_date": NEW_VALID_FROM})
    record.pop("valid_to", None)
    (expr,) = record["expressions"]
    expr.update({"valid_from": NEW_VALID_FROM, "source_uri": page, "text": {"available": True, "url": page}})
    expr.pop("valid_to", None)
    (obs,) = expr["observations"]
    obs.update({"sha256": hashlib.sha256(body).hexdigest(), "source_uri": page})
    _write_record(new_dir / "meta.json", record)
    last_dir = _version_dir(work, LAST_STATE)
    last = json.loads((last_dir / "meta.json").read_bytes())
    last["valid_to"] = NEW_VALID_FROM
    for e in last["expressions"]:
        e["valid_to"] = NEW_VALID_FROM
    _write_record(last_dir / "meta.json", last)
    return dest
