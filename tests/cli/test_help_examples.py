"""Every ``Example:`` of every ``lex … --help`` runs as printed and exits 0.

The click command tree is walked; each help's example block (a line ``Example:``,
``Examples:`` or ``Example (…):`` up to the next blank line; ``\\``-continued lines joined) is
run with ``bash`` in one workspace, in :data:`ORDER` (commands the list does not name run
last, so a new command's examples are run too). The workspace is the documented mapping:

- the current directory is an empty ``work/`` beside ``shared/fixtures`` (a link to the real
  fixtures), so ``../shared/fixtures/…`` resolves as printed;
- ``work/evals`` and ``work/publishers`` link to the repository's (judgments, scope files);
- ``work/var/demo`` is a copy of the work directory of ``make demo`` (:func:`demo_workdir`);
- ``lex`` on ``PATH`` runs this checkout's command line;
- the session has ``LEX_SIGNING_PASSPHRASE=...`` (as the keygen example sets it) and
  ``LEX_TRUST_ROOTS=keys/release-signing.pub.pem``;
- substituted text: the ports ``8765`` and ``8080`` become free loopback ports; the set id
  placeholders ``SET_ID`` and ``3f2a…`` become the ids of the examples' first set (``build/``)
  and second set (``var/build``);
- ``var/dataset.accepted`` (the ratchet's accepted baseline) is a copy of ``var/dataset``.

Servers (``lex replay serve``, ``lex serve``, ``lex mcp``) are started in the background on
127.0.0.1; a server example passes when it is still running (``serve``: answering) after
start-up; it is stopped when the next server starts and at the end. :data:`NOT_RUN` lists the
examples that cannot run offline, with the reason.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from cli.main import cli

ROOT = Path(__file__).resolve().parents[2]
HEADER = re.compile(r"^\s*Examples?\b.*:\s*$")

#: The order the command paths' examples run in (each builds what the next ones read).
ORDER = [
    "lex", "lex corpus", "lex corpus import", "lex corpus verify", "lex corpus stats", "lex corpus repair",
    "lex derive", "lex derive run", "lex derive merge", "lex derive verify", "lex derive git-lens",
    "lex derive ratchet", "lex index", "lex index build", "lex index verify", "lex index vectors",
    "lex replay", "lex ingest", "lex ingest scope", "lex ingest run", "lex replay serve",
    "lex ask", "lex release", "lex release keygen", "lex release assemble", "lex release sign",
    "lex release verify", "lex release report sign", "lex release report verify", "lex release candidate",
    "lex release evaluate", "lex release promote", "lex release rollback", "lex release status",
    "lex release ledger verify", "lex release ledger recover", "lex release history", "lex bench", "lex bench retrieval",
    "lex bench assistant", "lex serve", "lex mcp",
]

#: Examples that cannot run offline (prefix of the example → why).
NOT_RUN = {
    "lex release verify build/ --sigstore-bundle": "sigstore: needs an OIDC-signed bundle and the network",
    "lex index vectors": "embeds every provision with the optional encoder: minutes of CPU (tests/hybrid covers it)",
    "lex bench retrieval --index-dir var/index --mode hybrid": "needs the vectors of `lex index vectors` (above)",
}

SERVERS = ("lex replay serve", "lex serve", "lex mcp")


@dataclass(frozen=True)
class Example:
    command: str  # "lex release sign"
    line: str


def _walk(command: click.Command, path: list[str], parent: click.Context | None = None) -> Iterator[tuple[str, click.Command]]:
    ctx = click.Context(command, info_name=path[-1], parent=parent)
    yield " ".join(path), command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                yield from _walk(sub, [*path, name], ctx)


def example_lines(help_text: str) -> list[str]:
    """The example commands of one help text (continuations joined)."""
    out: list[str] = []
    inside, pending = False, ""
    for raw in help_text.splitlines():
        line = raw.strip()
        if HEADER.match(raw):
            inside = True
            continue
        if not inside or line == "\b":
            continue
        if not line:
            inside = False
            continue
        pending += line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip() + " "
            continue
        out.append(pending)
        pending = ""
    return out


def all_examples() -> list[Example]:
    found: dict[str, Example] = {}
    for path, command in _walk(cli, ["lex"]):
        for line in example_lines(command.help or ""):
            found.setdefault(line, Example(path, line))
    rank = {name: i for i, name in enumerate(ORDER)}
    return sorted(found.values(), key=lambda e: rank.get(e.command, len(ORDER)))


def test_examples_are_found() -> None:
    assert example_lines("Do it.\n\n\b\nExample:\n  lex a b \\\n      --c d\n  lex e\n\nMore.") == ["lex a b --c d", "lex e"]
    assert len(all_examples()) >= 40


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_port(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.2)
    return False


def _set_id(work: Path, directory: str) -> str | None:
    statement = work / directory / "statement.dsse.json"
    if not statement.is_file():
        return None
    from release.verify import verify_artifact_set

    return verify_artifact_set(work / directory, [work / "keys" / "release-signing.pub.pem"]).set_id


def _workspace(tmp_path: Path, fixtures_dir: Path, demo_workdir: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "fixtures").symlink_to(fixtures_dir, target_is_directory=True)
    work = tmp_path / "work"
    (work / "var").mkdir(parents=True)
    for name in ("evals", "publishers"):
        (work / name).symlink_to(ROOT / name, target_is_directory=True)
    shutil.copytree(demo_workdir, work / "var" / "demo", symlinks=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lex = bin_dir / "lex"
    lex.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m cli "$@"\n')
    lex.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "LEX_SIGNING_PASSPHRASE": "...",
           "LEX_TRUST_ROOTS": str(work / "keys" / "release-signing.pub.pem"), "DAGSTER_DISABLE_TELEMETRY": "1"}
    for name in ("LEX_INDEX_DIR", "LEX_HYBRID_REPORT", "LEX_RELEASE_GATES", "LEX_EVIDENCE_DIR"):
        env.pop(name, None)
    return work, env


@pytest.mark.timeout(1500)
def test_every_help_example_runs(tmp_path: Path, fixtures_dir: Path, demo_workdir: Path) -> None:
    work, env = _workspace(tmp_path, fixtures_dir, demo_workdir)
    ports = {"8765": str(_free_port()), "8080": str(_free_port())}
    server: subprocess.Popen[bytes] | None = None
    failures: list[str] = []
    ran = 0

    def stop() -> None:
        nonlocal server
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
        server = None

    try:
        for example in all_examples():
            if any(example.line.startswith(prefix) for prefix in NOT_RUN):
                continue
            line = example.line
            for printed, port in ports.items():
                line = re.sub(rf"\b{printed}\b", port, line)
            for placeholder, directory in (("SET_ID", "build"), ("3f2a…", "var/build")):
                if placeholder in line:
                    line = line.replace(placeholder, (_set_id(work, directory) or "missing-set")[:12])
            if "var/dataset.accepted" in line and not (work / "var" / "dataset.accepted").exists():
                shutil.copytree(work / "var" / "dataset", work / "var" / "dataset.accepted")
            ran += 1
            if line.split(" --", 1)[0].startswith(SERVERS) or any(line.startswith(s + " ") for s in SERVERS):
                stop()
                port = next((p for p in ports.values() if p in line), None)
                server = subprocess.Popen(["bash", "-c", line], cwd=work, env=env, stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                alive = _wait_port(int(port), server) if port and not line.startswith("lex mcp") else None
                if alive is None:
                    time.sleep(3)
                    alive = server.poll() is None
                if not alive:
                    stop_err = server.stderr.read().decode(errors="replace")[-800:] if server.stderr else ""
                    failures.append(f"[{example.command}] {example.line}\n    server did not start: {stop_err}")
                continue
            done = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=600, check=False)
            if done.returncode != 0:
                failures.append(f"[{example.command}] {example.line}\n    exit {done.returncode}: "
                                f"{(done.stderr or done.stdout)[-800:]}")
    finally:
        stop()
    assert ran >= 40
    assert not failures, f"{len(failures)} of {ran} help examples failed:\n" + "\n".join(failures)
