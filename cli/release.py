"""``lex release``: keys, signing, verification, benchmark reports, promotion and the ledger.

A thin shell over :mod:`release`; every refusal is a ``ReleaseError`` printed once by
``cli.main`` with its ``release/<code>``.
"""

from __future__ import annotations

import getpass
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from cli.output import json_option
from legal.errors import ReleaseError
from legal.ids import Publisher
from release.keys import (
    ALGORITHMS,
    DEFAULT_PASSPHRASE_ENV,
    DEFAULT_TRUST_ROOTS_ENV,
    Algorithm,
    TrustStore,
    keygen,
    load_signer,
    load_trust_roots,
    passphrase_from_env,
    trust_roots_from_env,
)

F = TypeVar("F", bound=Callable[..., Any])
EXISTING_DIR = click.Path(exists=True, file_okay=False, path_type=Path)
EXISTING_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
ANY_PATH = click.Path(path_type=Path)


@click.group(name="release")
def group() -> None:
    """Assemble, sign, verify, evaluate, promote and roll back artifact sets.

    The order of operations, over the work directory of `make demo` (var/demo); the
    passphrase comes from $LEX_SIGNING_PASSPHRASE, the trust roots from --trust-root or
    $LEX_TRUST_ROOTS; SET_ID is the id `candidate` prints (any unique prefix).

    \b
    Example:
      LEX_SIGNING_PASSPHRASE=... lex release keygen --out keys/
      lex release assemble build/ --index-dir var/demo/indexes --dataset-root var/demo/derived \\
          --corpus-root var/demo/trees --scope eu-scope.json=publishers/eurlex/scope.json
      lex bench retrieval --index-dir build/ --judgments evals/sample_judgments.json \\
          --out benchmark.json --sign-key keys/release-signing.key.pem
      lex release sign build/ --key keys/release-signing.key.pem
      lex release verify build/ --trust-root keys/release-signing.pub.pem
      lex release candidate var/releases build/ --trust-root keys/release-signing.pub.pem
      lex release evaluate var/releases SET_ID --report benchmark.dsse.json
      lex release promote var/releases SET_ID
      lex release status var/releases
      lex release ledger verify var/releases

    Once a second set was promoted, `lex release rollback var/releases --reason "..."`
    makes the previous one current again.
    """


# -- shared options ------------------------------------------------------------------------


def trust_options(func: F) -> F:
    func = click.option("--trust-roots-env", default=DEFAULT_TRUST_ROOTS_ENV, show_default=True,
                        help="Environment variable holding trust-root PEM paths (path-separator separated), "
                             "used when no --trust-root is given.")(func)
    return click.option("--trust-root", "trust_root", multiple=True, type=EXISTING_FILE,
                        help="Pinned public key (PEM). Repeatable. Never a file inside the artifact set.")(func)


def load_trust(trust_root: tuple[Path, ...], trust_roots_env: str) -> TrustStore:
    return load_trust_roots(trust_root) if trust_root else trust_roots_from_env(trust_roots_env)


def actor_option(func: F) -> F:
    return click.option("--actor", default=None,
                        help="Who performs the transition (default: $LEX_RELEASE_ACTOR or the login name).")(func)


def gates_option(func: F) -> F:
    return click.option("--gates", type=EXISTING_FILE, default=None,
                        help='Gate thresholds JSON: {"thresholds": {"mrr": "0.6", ...}}; default: the file '
                             "named by $LEX_RELEASE_GATES, else the default thresholds (docs/release.md §5).")(func)


def resolve_actor(actor: str | None) -> str:
    if actor:
        return actor
    try:
        return os.environ.get("LEX_RELEASE_ACTOR") or getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))


# -- keys and signing ----------------------------------------------------------------------


@group.command("keygen")
@click.option("--out", "out_dir", required=True, type=ANY_PATH, help="Directory for the key pair.")
@click.option("--algorithm", type=click.Choice(ALGORITHMS), default="ed25519", show_default=True)
@click.option("--passphrase-env", default=DEFAULT_PASSPHRASE_ENV, show_default=True,
              help="Environment variable holding the passphrase that encrypts the private key.")
@json_option
def keygen_command(out_dir: Path, algorithm: str, passphrase_env: str, as_json: bool) -> None:
    """Create an encrypted signing key and its public key (the trust root to pin).

    \b
    Example:
      LEX_SIGNING_PASSPHRASE=... lex release keygen --out keys/p256/ --algorithm p256
    """
    files = keygen(out_dir, cast(Algorithm, algorithm), passphrase_from_env(passphrase_env))
    if as_json:
        echo_json({"private_key": str(files.private_key), "public_key": str(files.public_key),
                   "key_id": files.key_id, "algorithm": files.algorithm})
        return
    click.echo(f"private key  {files.private_key}")
    click.echo(f"public key   {files.public_key}   (pin this file as a trust root)")
    click.echo(f"key id       {files.key_id}")


@group.command("assemble")
@click.argument("directory", type=ANY_PATH)
@click.option("--index-dir", required=True, type=EXISTING_DIR,
              help="Directory holding <publisher>.sqlite and <publisher>.stamp.json.")
@click.option("--dataset-root", required=True, type=EXISTING_DIR,
              help="Directory holding <publisher>/ with every dataset file (provisions, states, "
                   "version_events, version_visibility .parquet and gaps.jsonl).")
@click.option("--corpus-root", required=True, type=EXISTING_DIR,
              help="Directory holding the corpus trees, <publisher>/manifest.json.")
@click.option("--publisher", "publishers", multiple=True, type=click.Choice([p.value for p in Publisher]),
              help="Only these publishers (repeatable; default: every publisher).")
@click.option("--scope", "scopes", multiple=True, metavar="[NAME=]FILE",
              help="A scope file, copied as scope/NAME (default: its file name). Repeatable.")
@click.option("--report", "report_json", type=EXISTING_FILE, default=None,
              help="A retrieval benchmark report (lex bench retrieval --out) measured on these indexes; "
                   "bound to the set's index files and signed with --key into reports/.")
@click.option("--key", "key_path", type=EXISTING_FILE, default=None, help="Encrypted PEM private key (with --report).")
@click.option("--passphrase-env", default=DEFAULT_PASSPHRASE_ENV, show_default=True)
@json_option
def assemble_command(directory: Path, index_dir: Path, dataset_root: Path, corpus_root: Path,
                     publishers: tuple[str, ...], scopes: tuple[str, ...], report_json: Path | None,
                     key_path: Path | None, passphrase_env: str, as_json: bool) -> None:
    """Lay out a new artifact set in DIRECTORY (which must not exist), ready to sign.

    The layout is the one the server mounts: indexes/, dataset/<publisher>/,
    corpus/<publisher>/manifest.json, scope/, reports/ (see docs/release.md).

    \b
    Example (over the work directory of `make demo`):
      lex bench retrieval --index-dir var/demo/indexes --judgments evals/sample_judgments.json \\
          --out var/report.json
      LEX_SIGNING_PASSPHRASE=... lex release assemble var/build --index-dir var/demo/indexes \\
          --dataset-root var/demo/derived --corpus-root var/demo/trees \\
          --scope eu-scope.json=publishers/eurlex/scope.json --report var/report.json --key keys/release-signing.key.pem
      lex release sign var/build --key keys/release-signing.key.pem
      lex release verify var/build --trust-root keys/release-signing.pub.pem
    """
    from release.assemble import SetSources, add_report, assemble_set, publisher_sources

    if (report_json is None) != (key_path is None):
        raise click.UsageError("--report and --key go together")
    signer = load_signer(key_path, passphrase_from_env(passphrase_env)) if key_path is not None else None
    report = _read_json(report_json, "--report") if report_json is not None else None
    names = publishers or tuple(p.value for p in Publisher)
    sources = SetSources(publisher_sources(names, index_dir=index_dir, dataset_root=dataset_root,
                                           corpus_root=corpus_root),
                         dict(_scope_file(item) for item in scopes))
    files: dict[str, int] = {}

    def added(name: str, size: int) -> None:
        files[name] = size
        if not as_json:
            click.echo(f"  {name}  {size} bytes")

    assembled = assemble_set(directory, sources, progress=added)
    if report is not None and signer is not None:
        for path in add_report(directory, report, [signer]):
            added(path.relative_to(directory).as_posix(), path.stat().st_size)
    if as_json:
        echo_json({"directory": str(directory), "files": files, "total_bytes": assembled.total_bytes})
        return
    click.echo(f"assembled {directory} ({len(assembled.files)} files, {assembled.total_bytes} bytes); "
               f"next: lex release sign {directory} --key ...")


def _scope_file(item: str) -> tuple[str, bytes]:
    name, sep, file = item.partition("=")
    path = Path(file if sep else item)
    try:
        return (name if sep else path.name), path.read_bytes()
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc.strerror}", param_hint="--scope") from exc


def _read_json(path: Path, hint: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint=hint) from exc


@group.command("sign")
@click.argument("directory", type=EXISTING_DIR)
@click.option("--key", "key_path", type=EXISTING_FILE, default=None, help="Encrypted PEM private key.")
@click.option("--passphrase-env", default=DEFAULT_PASSPHRASE_ENV, show_default=True)
@click.option("--created-by", default=None, help="Builder identity recorded in the predicate.")
@click.option("--index-format", default="lex-index/1", show_default=True)
@click.option("--label", "labels", multiple=True, help="KEY=VALUE recorded in predicate.labels. Repeatable.")
@click.option("--sigstore", "use_sigstore", is_flag=True,
              help="Also sign the same statement keylessly with sigstore (needs an OIDC identity, online).")
@click.option("--sigstore-staging", is_flag=True, help="Use the sigstore staging instance.")
@json_option
def sign_command(directory: Path, key_path: Path | None, passphrase_env: str, created_by: str | None,
                 index_format: str, labels: tuple[str, ...], use_sigstore: bool, sigstore_staging: bool,
                 as_json: bool) -> None:
    """Hash every file of DIRECTORY and write statement.dsse.json (and statement.sigstore.json).

    \b
    Example:
      lex release sign build/ --key keys/release-signing.key.pem --label corpus_commit=abc123
    """
    from release.signing import sign_statement, statement_for

    if key_path is None and not use_sigstore:
        raise click.UsageError("give --key, --sigstore, or both")
    token = _sigstore_token() if use_sigstore else None
    signer = load_signer(key_path, passphrase_from_env(passphrase_env)) if key_path is not None else None
    statement = statement_for(directory, created_by=created_by or _default_creator(),
                              index_format=index_format, labels=_parse_labels(labels))
    result: dict[str, Any] = {"directory": str(directory), "files": len(statement["subject"])}
    if signer is not None:
        signed = sign_statement(directory, statement, [signer])
        result.update(set_id=signed.set_id, key_id=signer.key_id)
        if not as_json:
            click.echo(f"signed set {signed.set_id} ({len(statement['subject'])} files) with key {signer.key_id}")
    if token is not None:
        result["sigstore_bundle"] = str(_sigstore_sign(directory, statement, token, sigstore_staging, not as_json))
    if as_json:
        echo_json(result)


def _sigstore_token() -> str:
    from release.sigstore_support import identity_token

    return identity_token()


def _sigstore_sign(directory: Path, statement: dict[str, Any], token: str, staging: bool, say: bool) -> Path:
    from legal.canonical import canonical_bytes
    from release.sigstore_support import sign_payload, write_bundle

    bundle = sign_payload(canonical_bytes(statement), token, staging=staging)
    written = Path(write_bundle(directory, bundle))
    if say:
        click.echo(f"sigstore bundle {written}")
    return written


def _default_creator() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"lex-evidence/{version('lex-evidence')}"
    except PackageNotFoundError:
        return "lex-evidence"


def _parse_labels(labels: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in labels:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint="--label")
        out[key] = value
    return out


@group.command("verify")
@click.argument("directory", type=EXISTING_DIR)
@trust_options
@click.option("--sigstore-bundle", type=EXISTING_FILE, default=None, help="Verify this sigstore bundle too.")
@click.option("--identity", default=None, help="Pinned signer identity (certificate SAN), with --sigstore-bundle.")
@click.option("--issuer", default=None, help="Pinned OIDC issuer URL, with --sigstore-bundle.")
@click.option("--sigstore-trusted-root", type=EXISTING_FILE, default=None,
              help="Pinned sigstore trusted_root.json (default: the one embedded in sigstore-python).")
@click.option("--sigstore-staging", is_flag=True)
@click.option("--json", "as_json", is_flag=True, help="Print the verified set as JSON.")
def verify_command(directory: Path, trust_root: tuple[Path, ...], trust_roots_env: str,
                   sigstore_bundle: Path | None, identity: str | None, issuer: str | None,
                   sigstore_trusted_root: Path | None, sigstore_staging: bool, as_json: bool) -> None:
    """Verify DIRECTORY: signature against pinned roots, then every file's size and SHA-256.

    \b
    Examples:
      lex release verify build/ --trust-root keys/release-signing.pub.pem
      lex release verify build/ --sigstore-bundle build/statement.sigstore.json \\
          --identity https://github.com/ORG/REPO/.github/workflows/release.yml@refs/heads/main \\
          --issuer https://token.actions.githubusercontent.com
    """
    from release.verify import verify_artifact_set

    results = []
    if trust_root:
        results.append(verify_artifact_set(directory, trust_root))
    elif sigstore_bundle is None:
        results.append(verify_artifact_set(directory, trust_roots_from_env(trust_roots_env)))
    if sigstore_bundle is not None:
        if not identity or not issuer:
            raise click.UsageError("--sigstore-bundle needs --identity and --issuer")
        from release.sigstore_support import verify_sigstore_set

        results.append(verify_sigstore_set(directory, sigstore_bundle, identity=identity, issuer=issuer,
                                           trusted_root=sigstore_trusted_root, staging=sigstore_staging))
    verified = results[0]
    if as_json:
        echo_json({"set_id": verified.set_id, "key_ids": [k for r in results for k in r.key_ids],
                   "subjects": {n: {"sha256": s.sha256, "size": s.size} for n, s in verified.subjects.items()}})
        return
    for result in results:
        total = sum(s.size for s in result.subjects.values())
        click.echo(f"OK set {result.set_id} ({len(result.subjects)} files, {total} bytes) "
                   f"signed by {', '.join(result.key_ids)}")


# -- benchmark reports ---------------------------------------------------------------------


@group.group("report")
def report_group() -> None:
    """Sign and verify retrieval benchmark reports."""


@report_group.command("sign")
@click.argument("report_json", type=EXISTING_FILE)
@click.option("--key", "key_path", type=EXISTING_FILE, required=True)
@click.option("--passphrase-env", default=DEFAULT_PASSPHRASE_ENV, show_default=True)
@click.option("--out", "out_path", type=ANY_PATH, required=True, help="Where to write the signed envelope.")
@json_option
def report_sign_command(report_json: Path, key_path: Path, passphrase_env: str, out_path: Path, as_json: bool) -> None:
    """Sign a report document (lex-retrieval-benchmark/1) as a DSSE envelope.

    \b
    Example:
      lex release report sign benchmark.json --key keys/release-signing.key.pem --out report.dsse.json
    """
    from release.report import sign_report
    from release.signatures import write_envelope

    try:
        document = json.loads(report_json.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise click.BadParameter(f"not JSON: {exc}", param_hint="REPORT_JSON") from exc
    envelope = sign_report(document, [load_signer(key_path, passphrase_from_env(passphrase_env))])
    write_envelope(out_path, envelope)
    if as_json:
        echo_json({"envelope": str(out_path), "passed": document.get("passed")})
        return
    click.echo(f"signed report {out_path} (passed={document.get('passed')})")


@report_group.command("verify")
@click.argument("envelope", type=EXISTING_FILE)
@trust_options
@click.option("--set", "set_dir", type=EXISTING_DIR, default=None,
              help="Also check the binding to this verified artifact set and the gates.")
@gates_option
@json_option
def report_verify_command(envelope: Path, trust_root: tuple[Path, ...], trust_roots_env: str,
                          set_dir: Path | None, gates: Path | None, as_json: bool) -> None:
    """Verify a signed report (and, with --set, its binding and gates).

    \b
    Example:
      lex release report verify report.dsse.json --trust-root keys/release-signing.pub.pem --set build/
    """
    from release.report import verify_report
    from release.verify import verify_artifact_set

    trust = load_trust(trust_root, trust_roots_env)
    expected = verify_artifact_set(set_dir, trust) if set_dir is not None else None
    checked = verify_report(envelope, trust, expected=expected, policy=_policy(gates))
    if as_json:
        echo_json({"payload_sha256": checked.payload_sha256, "bound": checked.report["bound"],
                   "gates": checked.gates or checked.report["gates"]})
        return
    click.echo(f"OK report {checked.payload_sha256} bound to {json.dumps(checked.report['bound'], sort_keys=True)}")
    for gate in checked.gates or checked.report["gates"]:
        click.echo(f"  {'pass' if gate['passed'] else 'FAIL'}  {gate['name']} {gate['comparison']} "
                   f"{gate['threshold']}: {gate['value']}")


def _policy(gates: Path | None) -> Any:
    from release.report import gate_policy

    return gate_policy(gates)


# -- promotion -----------------------------------------------------------------------------


def _release_root(root: Path, trust: TrustStore, actor: str | None, gates: Path | None = None) -> Any:
    from release.promotion import ReleaseRoot

    return ReleaseRoot(root, trust, actor=resolve_actor(actor), policy=_policy(gates))


@group.command("candidate")
@click.argument("root", type=ANY_PATH)
@click.argument("directory", type=EXISTING_DIR)
@trust_options
@actor_option
@json_option
def candidate_command(root: Path, directory: Path, trust_root: tuple[Path, ...], trust_roots_env: str,
                      actor: str | None, as_json: bool) -> None:
    """Copy a signed set into release ROOT as a candidate (verified, then frozen).

    \b
    Example:
      lex release candidate var/releases var/build --trust-root keys/release-signing.pub.pem
    """
    verified = _release_root(root, load_trust(trust_root, trust_roots_env), actor).candidate(directory)
    if as_json:
        echo_json({"candidate": verified.set_id})
        return
    click.echo(f"candidate {verified.set_id}")


@group.command("evaluate")
@click.argument("root", type=ANY_PATH)
@click.argument("set_id")
@click.option("--report", "report_path", type=EXISTING_FILE, required=True, help="Signed benchmark report (DSSE).")
@trust_options
@gates_option
@actor_option
@json_option
def evaluate_command(root: Path, set_id: str, report_path: Path, trust_root: tuple[Path, ...],
                     trust_roots_env: str, gates: Path | None, actor: str | None, as_json: bool) -> None:
    """Bind a signed benchmark report to candidate SET_ID; its gates must pass.

    \b
    Example:
      lex release evaluate var/releases 3f2a… --report benchmark.dsse.json
    """
    releaser = _release_root(root, load_trust(trust_root, trust_roots_env), actor, gates)
    full_id = releaser.resolve_set_id(set_id)
    checked = releaser.evaluate(full_id, report_path)
    if as_json:
        echo_json({"evaluated": full_id, "gates": checked.gates})
        return
    click.echo(f"evaluated {full_id}: {len(checked.gates)} gates passed")


@group.command("promote")
@click.argument("root", type=ANY_PATH)
@click.argument("set_id")
@trust_options
@gates_option
@actor_option
@json_option
def promote_command(root: Path, set_id: str, trust_root: tuple[Path, ...], trust_roots_env: str,
                    gates: Path | None, actor: str | None, as_json: bool) -> None:
    """Make evaluated candidate SET_ID current; the previous current becomes the rollback.

    \b
    Example:
      lex release promote var/releases 3f2a…
    """
    releaser = _release_root(root, load_trust(trust_root, trust_roots_env), actor, gates)
    _echo_pointers(releaser.promote(releaser.resolve_set_id(set_id)), as_json)


@group.command("rollback")
@click.argument("root", type=ANY_PATH)
@click.option("--reason", required=True, help="Why (recorded in the ledger), e.g. 'search regression in 4f2a'.")
@trust_options
@actor_option
@json_option
def rollback_command(root: Path, reason: str, trust_root: tuple[Path, ...], trust_roots_env: str,
                     actor: str | None, as_json: bool) -> None:
    """Swap current and the retained rollback set (re-verified; nothing is rebuilt).

    Rollback is the only way back to an older set: promotion only moves forward
    (docs/release.md, "Promotion is monotonic").

    \b
    Example:
      lex release rollback var/releases --reason "search regression in 4f2a"
    """
    _echo_pointers(_release_root(root, load_trust(trust_root, trust_roots_env), actor).rollback(reason), as_json)


def _echo_pointers(pointers: Any, as_json: bool) -> None:
    if as_json:
        echo_json(pointers.to_json())
    else:
        click.echo(f"current  {pointers.current}\nrollback {pointers.rollback}")


@group.command("status")
@click.argument("root", type=EXISTING_DIR)
@click.option("--json", "as_json", is_flag=True)
def status_command(root: Path, as_json: bool) -> None:
    """Show current, rollback, candidates (as the ledger records them) and the ledger's health.

    The ledger is the authority: the pointers shown are its last entry's. When pointers.json
    disagrees with it (or the chain is broken) the status says so and exits 2.

    \b
    Example:
      lex release status var/releases
    """
    from release.promotion import Pointers, ledger_state, ledger_status

    health = ledger_status(root)
    try:
        pointers = ledger_state(root)
    except ReleaseError:
        pointers = Pointers()
    if as_json:
        echo_json({**pointers.to_json(), "ledger": health})
    else:
        click.echo(f"current    {pointers.current or '-'}")
        click.echo(f"rollback   {pointers.rollback or '-'}")
        for set_id, state in sorted(pointers.candidates.items()):
            click.echo(f"candidate  {set_id}  {state}")
        click.echo(f"ledger     {health['entries']} entries, {'ok' if health['ok'] else 'BROKEN: ' + health['error']}")
    if not health["ok"]:
        raise click.exceptions.Exit(2)


#: ``lex release history --at``: exit status when no set was current at the instant.
NONE_CURRENT_EXIT = 3


@group.command("history")
@click.argument("root", type=EXISTING_DIR)
@click.option("--at", "at", default=None, metavar="INSTANT",
              help="Which set was current at INSTANT: YYYY-MM-DD (the end of that day, UTC) or "
                   "YYYY-MM-DDTHH:MM:SSZ.")
@json_option
def history_command(root: Path, at: str | None, as_json: bool) -> None:
    """The release ledger as history: every transition, or the set current at an instant.

    The ledger is verified first (chain and pointers.json, like `ledger verify`; a broken
    ledger is a release/ledger_* error naming the line). Without --at: each transition with
    the current and rollback sets after it. With --at: the set current at that instant, the
    transition that made it current, since when and until when (none: still current). A
    transition takes effect at its own instant. Exit status: 0 with an answer, 3 when no set
    was current at the instant (before the first promotion; the answer says so), 2 on an
    error (broken ledger, malformed instant).

    \b
    Example:
      lex release history var/releases
      lex release history var/releases --at "$(date -u +%F)"
      lex release history var/releases --at "$(date -u +%FT%TZ)" --json
    """
    from release.history import current_at, parse_instant, transitions
    from release.promotion import verified_entries

    instant = parse_instant(at) if at is not None else None
    entries = verified_entries(root)
    if instant is None:
        steps = transitions(entries)
        if as_json:
            echo_json({"transitions": [t.to_json() for t in steps], "entries": len(steps)})
            return
        for t in steps:
            click.echo(f"{t.seq:>4}  {t.at}  {t.action:<9} {_short(t.set_id)}  current {_short(t.current)}  "
                       f"rollback {_short(t.rollback)}  by {t.actor}")
        click.echo(f"{len(steps)} transitions")
        return
    answer = current_at(entries, instant)
    if as_json:
        echo_json(answer.to_json())
    elif answer.entry is None:
        first = answer.first_promotion
        click.echo(f"no set was current at {answer.instant} "
                   + (f"(the first promotion was at {first})" if first else "(no set has been promoted)"))
    else:
        made = answer.entry
        click.echo(f"at        {answer.instant}")
        click.echo(f"current   {answer.set_id}")
        click.echo(f"since     {answer.since}  (ledger seq {made.seq}: {made.action} by {made.actor})")
        click.echo(f"until     {answer.until or '- (still current at the ledger head)'}")
        click.echo(f"rollback  {answer.rollback or '-'}")
    if answer.none_current:
        raise click.exceptions.Exit(NONE_CURRENT_EXIT)


def _short(set_id: str | None) -> str:
    return set_id[:12] if set_id else "-" + " " * 11


@group.group("ledger")
def ledger_group() -> None:
    """Check the hash-chained release ledger."""


@ledger_group.command("verify")
@click.argument("root", type=EXISTING_DIR)
@json_option
def ledger_verify_command(root: Path, as_json: bool) -> None:
    """Detect any edited, deleted, inserted or reordered ledger line, and a pointers.json that
    is not the ledger's last entry (edited current/rollback), exit 2 if so.

    \b
    Example:
      lex release ledger verify var/releases
    """
    from release.promotion import ledger_pointers

    head = ledger_pointers(root).ledger_head
    if as_json:
        echo_json({"ok": True, "entries": head.seq + 1, "head": head.hash})
        return
    click.echo(f"OK ledger: {head.seq + 1} entries, head {head.hash}")


@ledger_group.command("recover")
@click.argument("root", type=EXISTING_DIR)
@json_option
def ledger_recover_command(root: Path, as_json: bool) -> None:
    """Re-apply the last ledger entry to pointers.json after an interrupted transition.

    \b
    Example:
      lex release ledger recover var/releases
    """
    from release.promotion import ReleaseRoot

    _echo_pointers(ReleaseRoot(root, TrustStore()).recover(), as_json)
