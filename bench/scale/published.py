"""Replicate an exported (published) corpus directory N times, in its own layout (issue #13).

::

    replicate_published(fixtures / "lex-corpus-eu-eurlex", out / "lex-corpus-eu-eurlex", n=16)

The scale harness replicates *trees* (:mod:`bench.scale.replicate`); ``lex corpus import`` reads
a published ``lex-corpus/3`` or ``lex-corpus/4`` directory, and the project has no exporter back
to that layout. This writes one: replica 0 is the source as it is (hard links), and replica ``r``
≥ 1 is every work renamed exactly as :mod:`bench.scale.replicate` renames a tree's records
(:func:`~bench.scale.replicate.renamer`: Legilux ELIs get ``scale-r<r>-``, CELEX numbers
``9<rrr>``; events, titles, files and hashes untouched), then:

- the work's ``slug`` and ``lex_work_id`` follow its renamed ``work_identifier``;
- a version directory named by a v4 key (``<valid_from>--<sha256 of the identifier>``, EUR-Lex)
  takes the key of its renamed ``publisher_version_identifier``; a ``lex-corpus/3`` directory
  (Legilux: the date) keeps its name; ``lex_id`` is ``<publisher>:<slug>:<directory>``;
- every XML-like body gets the replica's :func:`~bench.scale.replicate.marker` appended (so the
  evidence store's deduplication does not hide growth), and its observation the new ``sha256``;
  other bodies (PDFs) are hard links, shared by every replica, as in the harness; a body the
  source does not hold stays absent (held elsewhere);
- ``record_sha256`` is sealed again with the published recipe
  (:func:`legal.dotnet_json.published_record_sha256`), member order kept.

Files are written as :func:`legal.dotnet_json.dotnet_serialize` writes them (what the recipe
hashes). Idempotent per target: an existing target is removed first.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

from bench.scale.replicate import (
    Rename,
    is_xml_like,
    marker,
    rename_celex,
    renamer,
    rewrite_strings,
    slug_of,
)
from corpus_tree.records import RECORD_FILE, parse_record_bytes
from legal.dotnet_json import dotnet_serialize, published_record_sha256
from legal.ids import Publisher, VersionKey, parse_date


def replicate_published(src: Path, dst: Path, n: int, *, perturb: bool = True) -> dict[str, int]:
    """Write ``n`` replicas (0 … n-1) of the published corpus at ``src`` into ``dst``; counts.

    ``perturb=False`` (a full exported corpus, too large to copy per replica): every body of every
    replica is a hard link to the source's file, its ``sha256`` unchanged (records renamed and
    sealed again as above); the replicas then share their bodies in the evidence store, and an
    import verifies each replica's bodies as further files of listed hashes."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    manifest = parse_record_bytes((src / "manifest.json").read_bytes(), str(src))
    publisher = Publisher.parse(str(manifest["publisher"]["id"]))
    for entry in src.iterdir():
        if entry.is_file():
            os.link(entry, dst / entry.name)
    counts = {"works": 0, "versions": 0, "bodies_written": 0, "bodies_linked": 0}
    for wdir in sorted((src / "works").iterdir()):
        for replica in range(n):
            if replica == 0:
                shutil.copytree(wdir, dst / "works" / wdir.name, copy_function=os.link)
                counts["works"] += 1
                counts["versions"] += sum(1 for _ in (wdir / "versions").iterdir()) \
                    if (wdir / "versions").is_dir() else 0
                continue
            _replicate_work(wdir, dst / "works", publisher, replica, counts, perturb)
    return counts


def _replicate_work(wdir: Path, works: Path, publisher: Publisher, replica: int, counts: dict[str, int],
                    perturb: bool = True) -> None:
    rename = renamer(publisher, replica)
    work: dict[str, Any] = rewrite_strings(parse_record_bytes((wdir / RECORD_FILE).read_bytes(), str(wdir)),
                                           rename)
    slug = slug_of(publisher, work["work_identifier"])
    work["slug"], work["lex_work_id"] = slug, f"{publisher.value}:{slug}"
    target = works / slug
    target.mkdir()
    (target / RECORD_FILE).write_bytes(dotnet_serialize(work))
    counts["works"] += 1
    vbase = wdir / "versions"
    if not vbase.is_dir():
        return
    for vdir in sorted(vbase.iterdir()):
        _replicate_version(vdir, target / "versions", publisher, slug, replica, rename, counts, perturb)


def _replicate_version(vdir: Path, versions: Path, publisher: Publisher, slug: str, replica: int,
                       rename: Rename, counts: dict[str, int], perturb: bool = True) -> None:
    published = parse_record_bytes((vdir / RECORD_FILE).read_bytes(), str(vdir))
    record: dict[str, Any] = rewrite_strings({k: v for k, v in published.items() if k != "record_sha256"}, rename)
    if publisher is Publisher.EURLEX and isinstance(record.get("raw", {}).get("celex"), str):
        record["raw"] = dict(record["raw"], celex=rename_celex(record["raw"]["celex"], replica))
    name = vdir.name
    old_pvid, new_pvid = published.get("publisher_version_identifier"), record.get("publisher_version_identifier")
    if VersionKey.looks_like(name) and isinstance(old_pvid, str) and isinstance(new_pvid, str):
        valid_from = parse_date(str(record["valid_from"]))
        if name == str(VersionKey.create(valid_from, old_pvid)):
            name = str(VersionKey.create(valid_from, new_pvid))
    record["lex_id"] = f"{publisher.value}:{slug}:{name}"
    target = versions / name
    target.mkdir(parents=True)
    written: dict[str, str | None] = {}  # file -> its new sha256 (None: the source does not hold it)
    for expression in record.get("expressions", []):
        for observation in expression.get("observations", []):
            file = observation["file"]
            if file not in written:
                written[file] = _replicate_body(vdir / file, target / file, replica, counts, perturb)
            if written[file] is not None:
                observation["sha256"] = written[file]
    record["record_sha256"] = published_record_sha256(record)
    (target / RECORD_FILE).write_bytes(dotnet_serialize(record))
    counts["versions"] += 1


def _replicate_body(src: Path, dst: Path, replica: int, counts: dict[str, int], perturb: bool = True) -> str | None:
    """Copy one body as replica ``replica`` holds it; its sha256 (``None``: absent, or not changed)."""
    if not src.is_file():
        return None
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not perturb:
        os.link(src, dst)
        counts["bodies_linked"] += 1
        return None
    data = src.read_bytes()
    if not is_xml_like(data[:4096]):
        os.link(src, dst)
        counts["bodies_linked"] += 1
        return None
    data += marker(replica)
    dst.write_bytes(data)
    counts["bodies_written"] += 1
    return hashlib.sha256(data).hexdigest()
