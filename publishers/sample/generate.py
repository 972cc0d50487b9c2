"""Write the bundled sample corpus, or check that the committed copy is what this code writes.

    python -m publishers.sample.generate                 # rewrite publishers/sample/corpus/
    python -m publishers.sample.generate --out DIR       # write the two roots under DIR
    python -m publishers.sample.generate --check         # regenerate in a temp dir, byte-compare

The output is a pure function of this package: fixed transaction timestamps, fixed ids,
no clock, no environment. Each root (``lu-legilux/``, ``eu-eurlex/``) is a published
``lex-corpus/4`` tree: ``manifest.json``, ``NOTICE``, ``.gitattributes``,
``works/<slug>/meta.json`` and ``works/<slug>/versions/<valid_from>--<sha256(pvid)>/``
holding the hashed ``meta.json`` and the bodies it names.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from publishers.sample import CORPUS_DIR, ROOTS, catalog_eu, catalog_lu
from publishers.sample.model import Work
from publishers.sample.records import (
    GITATTRIBUTES,
    NOTICE,
    PUBLISHERS,
    manifest,
    on_disk,
    valid_to_of,
    version_key,
    version_record,
    work_record,
    work_slug,
)

WORKS: dict[str, tuple[Work, ...]] = {"lu-legilux": catalog_lu.WORKS, "eu-eurlex": catalog_eu.WORKS}


def corpus_files() -> Iterator[tuple[str, bytes]]:
    """Every file of the sample as ``(relative posix path, bytes)``, in sorted path order."""
    files: dict[str, bytes] = {}
    for publisher, root in ROOTS.items():
        works = WORKS[publisher]
        files[f"{root}/manifest.json"] = on_disk(manifest(publisher, works))
        files[f"{root}/NOTICE"] = NOTICE.format(publisher=PUBLISHERS[publisher]["name"].split(" — ")[0]).encode()
        files[f"{root}/.gitattributes"] = GITATTRIBUTES.encode()
        for work in works:
            base = f"{root}/works/{work_slug(work)}"
            files[f"{base}/meta.json"] = on_disk(work_record(work))
            ends = valid_to_of(work)
            for version in work.versions:
                vdir = f"{base}/versions/{version_key(version)}"
                _put(files, f"{vdir}/meta.json", on_disk(version_record(work, version, ends[version.pvid])))
                for expression in version.expressions:
                    for body in expression.bodies:
                        _put(files, f"{vdir}/{body.file}", body.data)
    yield from sorted(files.items())


def _put(files: dict[str, bytes], path: str, data: bytes) -> None:
    if path in files:
        raise ValueError(f"two sample files would be written at {path}")
    files[path] = data


def write(out: Path) -> list[str]:
    """Write both roots under ``out``, replacing any previous copy of them; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    for root in ROOTS.values():
        target = out / root
        if target.exists():
            shutil.rmtree(target)
    written = []
    for rel, data in corpus_files():
        path = out.joinpath(*PurePosixPath(rel).parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(rel)
    return written


def _tree(base: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for root in ROOTS.values():
        top = base / root
        if not top.is_dir():
            continue
        for path in sorted(top.rglob("*")):
            if path.is_file():
                out[path.relative_to(base).as_posix()] = path.read_bytes()
    return out


def compare(committed: Path) -> list[str]:
    """Differences between a fresh generation and the copy at ``committed`` (empty = identical)."""
    with tempfile.TemporaryDirectory(prefix="lex-sample-") as tmp:
        write(Path(tmp))
        fresh = _tree(Path(tmp))
    held = _tree(committed)
    problems = [f"missing: {rel}" for rel in sorted(fresh.keys() - held.keys())]
    problems += [f"unexpected: {rel}" for rel in sorted(held.keys() - fresh.keys())]
    problems += [f"differs: {rel}" for rel in sorted(fresh.keys() & held.keys()) if fresh[rel] != held[rel]]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m publishers.sample.generate",
        description="Write the bundled synthetic sample corpus (lex-corpus/4), or check the committed copy.",
        epilog="example: python -m publishers.sample.generate --check",
    )
    parser.add_argument("--out", type=Path, default=CORPUS_DIR,
                        help="directory that receives lu-legilux/ and eu-eurlex/ (default: the bundled copy)")
    parser.add_argument("--check", action="store_true",
                        help="regenerate into a temporary directory and byte-compare with --out; write nothing")
    args = parser.parse_args(argv)
    if args.check:
        problems = compare(args.out)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print(f"sample corpus at {args.out} is stale: {len(problems)} difference(s); "
                  "run python -m publishers.sample.generate", file=sys.stderr)
            return 1
        print(f"sample corpus at {args.out} matches the generator")
        return 0
    written = write(args.out)
    print(f"wrote {len(written)} files under {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
