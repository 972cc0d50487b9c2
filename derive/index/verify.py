"""Full verification of a built index (``lex index verify``).

Beyond the mount checks of :mod:`derive.index.read`: the content digest is recomputed and
compared with the stamp, every work's digest recomputed from its rows and compared with its
``work_digests`` row (what an incremental build takes for the works it did not rebuild); every
stored text hashes to its key (the index stage's check of an incremental build: every text it
wrote, ``texts_from_block``); every lexical state has an FTS
row; and, when ``<publisher>.stamp.json`` is beside the file, it must name this file's size
and SHA-256 and repeat the embedded stamp exactly.

``sealed_digest``: the builder's own check of the file it just wrote (the index stage) passes the
content digest the build computed over this file's content tables after their last write
(:func:`derive.index.build.build_from_paths`). The digest is then not computed a second time:
the stamp must name that digest, and the stamp file must be beside the index and name this
file's size and SHA-256 (which the build took of the file it wrote). Everything else — mount
checks, every text inflated and hashed to its key, word counts, FTS rows, the stamp file — is
checked as without it (``docs/adr/0016-one-digest-pass-per-build.md``), except that with
``texts_from_block`` only the texts of the blocks an incremental build wrote are inflated and hashed
(``docs/adr/0026-index-stage-verifies-what-it-wrote.md``).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from derive.index.digest import combine, stored_work_digests, work_digests
from derive.index.read import mount_problems, open_readonly, read_stamp
from derive.index.schema import stamp_file_name
from derive.index.textstore import check_utf8, stored_utf8, utf8_text
from derive.index.worddiff import word_count
from legal.canonical import hash_file
from legal.errors import IndexError_, LexError


@dataclass
class VerifyReport:
    index: str
    problems: list[str] = field(default_factory=list)
    stamp: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _text_problems(conn: sqlite3.Connection, from_block: int = 1) -> list[str]:
    """Each text of the blocks numbered ``from_block`` or more (from 1: every text) inflated, hashed to
    its key, decoded and counted; and every text lies in a stored block."""
    out = []
    seen = 0
    try:
        for sha, words, raw in stored_utf8(conn, from_block):  # each text's bytes hashed and counted as stored
            seen += 1
            text = utf8_text(raw)
            try:
                check_utf8(sha, raw)
            except LexError as exc:
                out.append(f"text {sha[:12]}…: {exc.message}")
                continue
            if word_count(text, raw) != words:
                out.append(f"text {sha[:12]}… has {word_count(text)} words, not {words}")
    except (LexError, zlib.error) as exc:
        out.append(f"text blocks unreadable: {exc}")
    stored = conn.execute("SELECT COUNT(*) FROM texts WHERE block_rowid >= ?", (from_block,)).fetchone()[0]
    if not out and seen != stored:
        out.append(f"{stored - seen} texts lie in no stored block")
    if from_block > 1:  # the texts not inflated: each still lies in a stored block (no block read)
        lost = conn.execute("SELECT COUNT(*) FROM texts WHERE block_rowid < ? AND block_rowid NOT IN "
                            "(SELECT block_rowid FROM text_blocks)", (from_block,)).fetchone()[0]
        if lost:
            out.append(f"{lost} texts lie in no stored block")
    return out


def _work_digest_problems(computed: dict[int, str], stored: dict[int, str]) -> list[str]:
    """The works whose ``work_digests`` row is not the digest of their rows (or is missing, or names no work)."""
    wrong = sorted(w for w in set(computed) | set(stored) if computed.get(w) != stored.get(w))
    if not wrong:
        return []
    shown = ", ".join(str(w) for w in wrong[:10])
    return [f"{len(wrong)} work digests differ from their rows (work_rowid {shown}{'…' if len(wrong) > 10 else ''})"]


def _stamp_file_problems(path: Path, stamp: dict[str, str], *, required: bool = False) -> list[str]:
    stamp_path = path.with_name(stamp_file_name(stamp.get("publisher", "")))
    if not stamp_path.is_file():
        return [f"{stamp_path.name} is missing: the build's digest cannot be tied to this file"] if required else []
    doc = json.loads(stamp_path.read_text(encoding="utf-8"))
    sha256, size = hash_file(path)  # streamed: never the whole file in memory
    problems = []
    index = doc.get("index") or {}
    if index.get("sha256") != sha256 or index.get("bytes") != size:
        problems.append(f"{stamp_path.name} names another index file (size or sha256 differ)")
    if doc.get("stamp") != stamp:
        problems.append(f"{stamp_path.name} does not repeat the embedded stamp")
    return problems


def verify_index(path: Path, *, sealed_digest: str | None = None, texts_from_block: int = 1) -> VerifyReport:
    """Every check of the module docstring; with ``sealed_digest`` the content digest is the one the
    build computed over this file (not recomputed) and the stamp file is required. ``texts_from_block``
    (only with ``sealed_digest``: the build's own check of an incremental build, its
    :attr:`derive.index.build.BuildResult.texts_from_block`): only the texts of the blocks from that
    one on — those the build wrote — are inflated and hashed; the blocks before it are the previous
    file's, checked when that file was built (``docs/adr/0026-index-stage-verifies-what-it-wrote.md``)."""
    if texts_from_block != 1 and sealed_digest is None:
        raise IndexError_("a full verification checks every text: texts_from_block needs the build's sealed digest",
                          code="verify_scope", subject=path.name)
    report = VerifyReport(index=path.name)
    conn = open_readonly(path)
    try:
        report.problems.extend(mount_problems(conn))
        if report.problems:
            return report
        report.stamp = read_stamp(conn)
        if sealed_digest is not None:
            digest = sealed_digest
        else:
            works = work_digests(conn)
            report.problems.extend(_work_digest_problems(works, stored_work_digests(conn)))
            digest = combine(conn, works)
        if digest != report.stamp.get("content_digest"):
            report.problems.append(f"content digest {digest} differs from the stamp's {report.stamp.get('content_digest')}")
        report.problems.extend(_text_problems(conn, texts_from_block))
        states = conn.execute("SELECT COUNT(*) FROM lexical_states").fetchone()[0]
        fts = conn.execute("SELECT COUNT(*) FROM provision_fts_docsize").fetchone()[0]
        if states != fts:
            report.problems.append(f"{states} lexical states but {fts} FTS rows")
    finally:
        conn.close()
    report.problems.extend(_stamp_file_problems(path, report.stamp, required=sealed_digest is not None))
    return report
