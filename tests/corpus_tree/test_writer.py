"""The writer: events per change, withdrawals, refusals, idempotence, crash safety."""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from corpus_tree import (
    CorpusTree,
    Enumeration,
    ExpressionInput,
    ObservationInput,
    VersionInput,
    WorkInput,
    writer,
)
from corpus_tree import txn as txn_module
from corpus_tree.verify import verify_tree
from corpus_tree.writer import apply_enumeration
from legal.errors import CorpusError, IntegrityError
from legal.ids import Publisher, VersionKey

from .conftest import snapshot

T0 = dt.datetime(2026, 8, 1, 2, 0, tzinfo=dt.UTC)
T1 = dt.datetime(2026, 8, 2, 2, 0, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 8, 3, 2, 0, tzinfo=dt.UTC)
WORK_URI = "http://publications.europa.eu/resource/celex/32016R0679"
SLUG = "32016r0679"
ORIGINAL = WORK_URI
CONSOLIDATED = "http://publications.europa.eu/resource/celex/02016R0679-20160504"
EN_BODY = b"<html><body><p>Article 1</p>\r\n</body></html>"
FR_BODY = b"<html><body><p>Article premier</p>\r\n</body></html>"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _expr(lang: str, body: bytes | None, *, title: str = "Regulation (EU) 2016/679", celex: str = "32016R0679",
          when: dt.datetime = T0) -> ExpressionInput:
    url = f"https://eur-lex.europa.eu/legal-content/{lang.upper()}/TXT/?uri=CELEX:{celex}"
    obs = () if body is None else (ObservationInput(f"{lang}.html", _sha(body), url, when),)
    return ExpressionInput(language=lang, source_uri=url, title=title, observations=obs)


def _version(pvid: str, valid_from: dt.date, *, valid_to: dt.date | None = None,
             expressions: tuple[ExpressionInput, ...] = (), **kw: object) -> VersionInput:
    return VersionInput(slug=SLUG, publisher_version_identifier=pvid, work_identifier=WORK_URI,
                        valid_from=valid_from, valid_to=valid_to, document_type="REG", in_force_status="1",
                        expressions=expressions, raw={"celex": pvid.rsplit("/", 1)[1]}, **kw)  # type: ignore[arg-type]


def _enum(*versions: VersionInput, complete: bool = True) -> Enumeration:
    work = WorkInput(slug=SLUG, work_identifier=WORK_URI, document_type="REG", title="Regulation (EU) 2016/679",
                     title_language="en")
    return Enumeration(Publisher.EURLEX, complete, (work,), versions)


def _original(**kw: object) -> VersionInput:
    return _version(ORIGINAL, dt.date(2016, 4, 27), expressions=(_expr("en", EN_BODY),), **kw)  # type: ignore[arg-type]


def _consolidated(**kw: object) -> VersionInput:
    return _version(CONSOLIDATED, dt.date(2016, 5, 4), **kw)  # type: ignore[arg-type]


@pytest.fixture
def tree(tmp_path: Path) -> CorpusTree:
    return CorpusTree.create(tmp_path / "tree")


def _events(tree: CorpusTree, pvid: str, day: dt.date) -> list[tuple[str, str | None]]:
    key = VersionKey.create(day, pvid)
    record = tree.version(f"eu-eurlex:{SLUG}:{key}")
    return [(e.event.value, e.detail) for e in record.events]


def _apply(tree: CorpusTree, enumeration: Enumeration, now: dt.datetime, **bodies: bytes) -> object:
    body_map = {_sha(b): b for b in (EN_BODY, FR_BODY)}
    return apply_enumeration(tree, enumeration, body_map, now, durable=False)


def test_first_sighting_writes_records_bodies_and_manifest(tree: CorpusTree) -> None:
    report = apply_enumeration(tree, _enum(_original(), _consolidated()), {_sha(EN_BODY): EN_BODY}, T0)
    assert report.events == {"first_sighting": 2}
    assert report.bodies_added == 1 and report.records_written == 2
    assert _events(tree, ORIGINAL, dt.date(2016, 4, 27)) == [("first_sighting", None)]
    assert tree.evidence.read(_sha(EN_BODY)) == EN_BODY
    v = tree.versions(SLUG)[0]
    assert v.valid_to_convention.value == "inclusive"
    assert v.expressions[0].text.available and v.expressions[0].observations[0].retrieved_at == "2026-08-01T02:00:00Z"
    consolidated = tree.versions(SLUG)[1]
    assert consolidated.expressions == ()
    assert verify_tree(tree.root).ok


def test_same_enumeration_twice_writes_nothing(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original(), _consolidated()), T0)
    before = snapshot(tree.root)
    report = apply_enumeration(tree, _enum(_original(), _consolidated()), {_sha(EN_BODY): EN_BODY}, T1)
    assert not report.wrote_anything and report.events == {}
    assert snapshot(tree.root) == before


def test_absent_version_is_withdrawn_then_resighted(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original(), _consolidated()), T0)
    report = apply_enumeration(tree, _enum(_original()), {}, T1, durable=False)
    assert report.events == {"withdrawn_from_source": 1}
    day = dt.date(2016, 5, 4)
    assert _events(tree, CONSOLIDATED, day)[-1] == (
        "withdrawn_from_source", "publisher record absent from the current enumeration")
    assert tree.versions(SLUG)[1].is_withdrawn
    assert tree.manifest()["counts"]["current_versions"] == 1
    again = apply_enumeration(tree, _enum(_original()), {}, T1, durable=False)
    assert again.events == {} and not again.wrote_anything
    back = apply_enumeration(tree, _enum(_original(), _consolidated()), {}, T2, durable=False)
    assert back.events == {"resighted": 1}
    assert not tree.versions(SLUG)[1].is_withdrawn
    assert [e for e, _ in _events(tree, CONSOLIDATED, day)] == [
        "first_sighting", "withdrawn_from_source", "resighted"]
    assert verify_tree(tree.root).ok


def test_valid_to_null_to_date_is_interval_closed(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original()), T0)
    _apply(tree, _enum(_original(valid_to=dt.date(2016, 5, 3))), T1)
    assert _events(tree, ORIGINAL, dt.date(2016, 4, 27))[-1] == ("interval_closed", "valid_to=2016-05-03")
    v = tree.versions(SLUG)[0]
    assert v.valid_to == "2016-05-03" and v.expressions[0].valid_to == "2016-05-03"


def test_changed_valid_to_is_validity_revised(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original(valid_to=dt.date(2016, 5, 3))), T0)
    _apply(tree, _enum(_original(valid_to=dt.date(2016, 5, 10))), T1)
    assert _events(tree, ORIGINAL, dt.date(2016, 4, 27))[-1] == (
        "validity_revised", "valid_to: 2016-05-03 -> 2016-05-10")
    _apply(tree, _enum(_original()), T2)
    assert _events(tree, ORIGINAL, dt.date(2016, 4, 27))[-1] == ("validity_revised", "valid_to: 2016-05-10 -> null")
    v = tree.versions(SLUG)[0]
    assert v.valid_to is None and v.expressions[0].valid_to is None


def test_new_language_is_expression_added(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original()), T0)
    both = _version(ORIGINAL, dt.date(2016, 4, 27), expressions=(_expr("en", EN_BODY), _expr("fr", FR_BODY, when=T1)))
    report = apply_enumeration(tree, _enum(both), {_sha(FR_BODY): FR_BODY}, T1, durable=False)
    assert report.events == {"expression_added": 1} and report.bodies_added == 1
    events = tree.versions(SLUG)[0].events
    assert (events[-1].event.value, events[-1].scope, events[-1].detail) == ("expression_added", "fr", "language=fr")
    assert tree.versions(SLUG)[0].languages == ("en", "fr")


def test_changed_metadata_is_one_metadata_revised_listing_the_fields(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original()), T0)
    changed = dataclasses.replace(
        _original(), in_force_status="0", raw={"celex": "32016R0679", "binding_status": "not_in_force"},
        document_roles=("corrigendum",), expressions=(_expr("en", EN_BODY, title="GDPR"),))
    _apply(tree, _enum(changed), T1)
    assert _events(tree, ORIGINAL, dt.date(2016, 4, 27))[-1] == (
        "metadata_revised", "fields=in_force_status,raw.binding_status,document_roles,expressions.en.title")


def test_old_raw_keys_are_never_removed(tree: CorpusTree) -> None:
    _apply(tree, _enum(dataclasses.replace(_original(), raw={"celex": "32016R0679", "domains": "x"})), T0)
    _apply(tree, _enum(_original()), T1)
    assert tree.versions(SLUG)[0].raw == {"celex": "32016R0679", "domains": "x"}


def test_body_fetched_later_appends_an_observation(tree: CorpusTree) -> None:
    bare = _version(ORIGINAL, dt.date(2016, 4, 27), expressions=(_expr("en", None),))
    _apply(tree, _enum(bare), T0)
    first = tree.versions(SLUG)[0].expressions[0]
    assert not first.text.available and first.text.reason == "not-fetched"
    report = apply_enumeration(tree, _enum(_original()), {_sha(EN_BODY): EN_BODY}, T1, durable=False)
    assert report.observations_added == 1 and report.events == {}
    expr = tree.versions(SLUG)[0].expressions[0]
    assert expr.text.available and expr.text.reason is None and len(expr.observations) == 1


def test_incomplete_enumeration_writes_nothing(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original(), _consolidated()), T0)
    before = snapshot(tree.root)
    with pytest.raises(CorpusError) as err:
        apply_enumeration(tree, _enum(_original(), complete=False), {}, T1)
    assert err.value.code == "incomplete_enumeration"
    assert snapshot(tree.root) == before


def test_duplicate_identifier_in_a_work_is_refused(tree: CorpusTree) -> None:
    before = snapshot(tree.root)
    twin = _version(ORIGINAL, dt.date(2016, 4, 28))
    with pytest.raises(IntegrityError) as err:
        apply_enumeration(tree, _enum(_original(), twin), {_sha(EN_BODY): EN_BODY}, T0)
    assert err.value.code == "duplicate_version_identifier"
    assert snapshot(tree.root) == before


def test_existing_record_whose_identifier_is_not_its_key_is_refused(tree: CorpusTree) -> None:
    _apply(tree, _enum(_original()), T0)
    path = tree.versions(SLUG)[0].path
    assert path is not None
    from corpus_tree.records import parse_record_bytes, render, seal

    record = parse_record_bytes((tree.root / path).read_bytes(), path)
    record["publisher_version_identifier"] = CONSOLIDATED
    (tree.root / path).write_bytes(render(seal(record)))
    before = snapshot(tree.root)
    with pytest.raises(IntegrityError) as err:
        _apply(tree, _enum(_original()), T1)
    assert err.value.code == "identity_mismatch" and err.value.subject == path
    assert snapshot(tree.root) == before


def test_body_that_does_not_hash_to_its_sha_is_refused_naming_the_record(tree: CorpusTree) -> None:
    _apply(tree, _enum(_consolidated()), T0)
    before = snapshot(tree.root)
    with pytest.raises(IntegrityError) as err:
        apply_enumeration(tree, _enum(_original(), _consolidated()), {_sha(EN_BODY): EN_BODY + b"!"}, T1)
    assert err.value.code == "body_hash_mismatch"
    key = VersionKey.create(dt.date(2016, 4, 27), ORIGINAL)
    assert err.value.subject == f"eu-eurlex:{SLUG}:{key} en:en.html"
    assert snapshot(tree.root) == before


def test_body_given_as_a_staged_file(tree: CorpusTree, tmp_path: Path) -> None:
    staged = tmp_path / "en.html"
    staged.write_bytes(EN_BODY)
    apply_enumeration(tree, _enum(_original()), {_sha(EN_BODY): staged}, T0, durable=False)
    assert tree.evidence.read(_sha(EN_BODY)) == EN_BODY


def test_missing_body_bytes_are_refused(tree: CorpusTree) -> None:
    before = snapshot(tree.root)
    with pytest.raises(CorpusError) as err:
        apply_enumeration(tree, _enum(_original()), {}, T0)
    key = VersionKey.create(dt.date(2016, 4, 27), ORIGINAL)
    assert err.value.code == "missing_body" and err.value.subject == f"eu-eurlex:{SLUG}:{key} en:en.html"
    assert snapshot(tree.root) == before


def test_held_elsewhere_observation_needs_no_bytes(tree: CorpusTree) -> None:
    url = "https://eur-lex.europa.eu/x"
    obs = ObservationInput("en.html", "ab" * 32, url, T0, held_elsewhere=True)
    v = _version(ORIGINAL, dt.date(2016, 4, 27), expressions=(ExpressionInput("en", url, observations=(obs,)),))
    apply_enumeration(tree, _enum(v), {}, T0, durable=False)
    assert tree.manifest()["counts"]["bodies_held_elsewhere"] == 1
    assert verify_tree(tree.root).ok


def test_naive_now_is_refused(tree: CorpusTree) -> None:
    with pytest.raises(Exception):  # noqa: B017 - legal.errors.TemporalError
        apply_enumeration(tree, _enum(_original()), {}, dt.datetime(2026, 1, 1))


# -- crash safety -----------------------------------------------------------------------------


class Boom(RuntimeError):
    pass


def _fail_nth_replace(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    real = os.replace
    calls = {"n": 0}

    def flaky(src: object, dst: object) -> None:
        calls["n"] += 1
        if calls["n"] == n:
            raise Boom(f"os.replace #{n} failed")
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", flaky)


def _changing_run(tree: CorpusTree) -> tuple[Enumeration, dict[str, bytes]]:
    _apply(tree, _enum(_original(), _consolidated()), T0)
    changed = dataclasses.replace(_original(valid_to=dt.date(2016, 5, 3)), in_force_status="0")
    both = dataclasses.replace(changed, expressions=(_expr("en", EN_BODY), _expr("fr", FR_BODY)))
    return _enum(both), {_sha(FR_BODY): FR_BODY}


def test_failure_at_every_rename_leaves_the_tree_byte_identical(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    probe = CorpusTree.create(tmp_path / "probe")
    enumeration, bodies = _changing_run(probe)
    calls = {"n": 0}
    real = os.replace

    def counting(src: object, dst: object) -> None:
        calls["n"] += 1
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", counting)
    apply_enumeration(probe, enumeration, bodies, T1)
    monkeypatch.undo()
    total = calls["n"]
    assert total >= 5  # blob, journal, records, manifest, committed journal
    for nth in range(1, total + 1):
        tree = CorpusTree.create(tmp_path / f"tree-{nth}")
        enumeration, bodies = _changing_run(tree)
        before = snapshot(tree.root)
        _fail_nth_replace(monkeypatch, nth)
        with pytest.raises(Boom):
            apply_enumeration(tree, enumeration, bodies, T1)
        monkeypatch.undo()
        assert snapshot(tree.root) == before, f"failure at os.replace #{nth} of {total}"
        assert verify_tree(tree.root).ok


@pytest.mark.parametrize("crash_after", [0, 1, 2])
def test_crash_without_rollback_is_recovered_on_open(tree: CorpusTree, monkeypatch: pytest.MonkeyPatch,
                                                     crash_after: int) -> None:
    """Simulate the process dying mid-commit: no in-process rollback, then re-open."""
    _apply(tree, _enum(_original(), _consolidated()), T0)
    before = snapshot(tree.root)
    real_apply_op = txn_module._apply_op
    done = {"n": 0}

    def dying_apply_op(*args: object) -> None:
        if done["n"] == crash_after:
            raise Boom("process died")
        done["n"] += 1
        real_apply_op(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(txn_module, "_apply_op", dying_apply_op)
    monkeypatch.setattr(txn_module, "rollback", lambda *a, **k: None)
    fr = dataclasses.replace(_original(valid_to=dt.date(2016, 5, 3)),
                             expressions=(_expr("en", EN_BODY), _expr("fr", FR_BODY)))
    with pytest.raises(Boom):
        apply_enumeration(tree, _enum(fr), {_sha(FR_BODY): FR_BODY}, T1)
    monkeypatch.undo()
    assert (tree.root / txn_module.JOURNAL).exists()
    assert not verify_tree(tree.root).ok  # the pending transaction is itself reported
    reopened = CorpusTree.open(tree.root)
    assert snapshot(reopened.root) == before
    assert verify_tree(reopened.root).ok


def test_committed_journal_is_rolled_forward_on_open(tree: CorpusTree, monkeypatch: pytest.MonkeyPatch) -> None:
    _apply(tree, _enum(_original()), T0)
    monkeypatch.setattr(txn_module, "_finish", lambda *a, **k: None)
    _apply(tree, _enum(_original(valid_to=dt.date(2016, 5, 3))), T1)
    monkeypatch.undo()
    assert (tree.root / txn_module.JOURNAL).exists()
    reopened = CorpusTree.open(tree.root)
    assert not (tree.root / txn_module.JOURNAL).exists()
    assert not (tree.root / txn_module.STAGING).exists()
    assert reopened.versions(SLUG)[0].valid_to == "2016-05-03"
    assert verify_tree(reopened.root).ok


def test_stale_staging_without_journal_is_removed_on_open(tree: CorpusTree) -> None:
    before = snapshot(tree.root)
    stale = tree.root / txn_module.STAGING / "deadbeef" / "files"
    stale.mkdir(parents=True)
    (stale / "x").write_bytes(b"partial")
    CorpusTree.open(tree.root)
    assert snapshot(tree.root) == before


def test_open_does_not_touch_a_live_writers_staging(tree: CorpusTree) -> None:
    stale = tree.root / txn_module.STAGING / "live-run"
    stale.mkdir(parents=True)
    with txn_module.tree_lock(tree.root):
        assert txn_module.recover(tree.root, tree.evidence) == "busy"
        assert stale.is_dir()
    CorpusTree.open(tree.root)
    assert not (tree.root / txn_module.STAGING).exists()


# -- observe: versions completed as the writer reaches them (ADR 0037) ---------------------------


def test_observe_completes_each_version_in_order_and_its_observations_are_checked(tree: CorpusTree) -> None:
    listed = _enum(_version(ORIGINAL, dt.date(2016, 4, 27), expressions=(_expr("en", None),)), _consolidated())
    asked: list[str] = []

    def observe(v: VersionInput) -> VersionInput:
        asked.append(v.publisher_version_identifier)
        if v.publisher_version_identifier != ORIGINAL:
            return v
        return dataclasses.replace(v, expressions=(_expr("en", EN_BODY),))

    report = apply_enumeration(tree, listed, {_sha(EN_BODY): EN_BODY}, T0, durable=False, observe=observe)
    assert asked == [ORIGINAL, CONSOLIDATED]
    assert report.records_written == 2 and report.bodies_added == 1
    assert tree.versions(SLUG)[0].expressions[0].observations[0].sha256 == _sha(EN_BODY)

    # an observation the hook returns is checked like the enumeration's: nothing is written
    before = snapshot(tree.root)

    def bad(v: VersionInput) -> VersionInput:
        obs = ObservationInput("../escape.html", _sha(FR_BODY), "https://example.org", T0)
        return dataclasses.replace(v, expressions=(dataclasses.replace(_expr("fr", None), observations=(obs,)),))

    with pytest.raises(CorpusError) as caught:
        apply_enumeration(tree, listed, {_sha(FR_BODY): FR_BODY}, T0 + dt.timedelta(days=1), durable=False,
                          observe=bad)
    assert caught.value.code == "path_escape"
    assert snapshot(tree.root) == before


def test_an_enumeration_handed_over_is_freed_before_the_commit(tree: CorpusTree,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer keeps no reference to the enumeration (nor to ``observe``) once its versions are
    staged: one the caller hands over is freed before the manifest and the commit (issue #13)."""
    import weakref

    owned = [_enum(_original(), _consolidated())]
    alive = {"enumeration": weakref.ref(owned[0]), "version": weakref.ref(owned[0].versions[0])}
    at_commit: list[list[str]] = []
    real_commit = txn_module.Stage.commit

    def commit(self: txn_module.Stage, **kw: object) -> txn_module.CommitReport:
        at_commit.append(sorted(name for name, ref in alive.items() if ref() is not None))
        return real_commit(self, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(txn_module.Stage, "commit", commit)
    report = apply_enumeration(tree, owned.pop(), {_sha(EN_BODY): EN_BODY}, T0, durable=False,
                               observe=lambda v: v)
    assert at_commit == [[]]  # before the writer dropped it: [["enumeration", "version"]]
    assert report.records_written == 2 and verify_tree(tree.root).ok


def _works_alive() -> int:
    """Work records alive in the process (other tests' included: compare two counts)."""
    import gc

    from corpus_tree.records import WorkRecord

    gc.collect()
    return sum(isinstance(o, WorkRecord) for o in gc.get_objects())


OTHER_SLUG, OTHER_URI = "32019r0401", "http://publications.europa.eu/resource/celex/32019R0401"


def test_the_apply_holds_the_works_as_manifest_rows_not_records(tree: CorpusTree) -> None:
    """While the versions are applied no work record is held: the tree's works are folded into the
    manifest's rows as they are read, those the enumeration lists once compared (and rewritten if they
    differ); the manifest is the one the tree's records give (issue #13, ADR 0063)."""
    other = WorkInput(slug=OTHER_SLUG, work_identifier=OTHER_URI, document_type="REG", title="Regulation 2019/401",
                      title_language="en")
    other_version = VersionInput(slug=OTHER_SLUG, publisher_version_identifier=OTHER_URI, work_identifier=OTHER_URI,
                                 valid_from=dt.date(2019, 3, 14), valid_to=None, document_type="REG",
                                 in_force_status="1", expressions=(), raw={"celex": "32019R0401"})
    first = _enum(_original())
    apply_enumeration(tree, dataclasses.replace(first, works=(*first.works, other),
                                                versions=(*first.versions, other_version)),
                      {_sha(EN_BODY): EN_BODY}, T0, durable=False)
    alive: list[int] = []
    before = _works_alive()

    def observe(v: VersionInput) -> VersionInput:
        alive.append(_works_alive() - before)
        return v

    # the listed work's title changes (rewritten); the other work is not listed (scoped: kept, folded)
    retitled = dataclasses.replace(first.works[0], title="General Data Protection Regulation")
    report = apply_enumeration(tree, dataclasses.replace(first, works=(retitled,), versions=(_original(),
                               _consolidated()), scoped=True), {}, T1, durable=False, observe=observe)
    assert alive == [0, 0]  # the old code held the 2 read and the 1 written through the loop: [3, 3]
    assert report.works_written == 1 and report.records_written == 1 and report.manifest_changed
    assert [w.title for w in tree.works()] == ["General Data Protection Regulation", "Regulation 2019/401"]
    assert verify_tree(tree.root).ok  # the manifest's rows are those of the records on disk

    tree_files = snapshot(tree.root)
    again = apply_enumeration(tree, dataclasses.replace(first, works=(retitled,), versions=(_original(),
                              _consolidated()), scoped=True), {}, T2, durable=False)
    assert not again.wrote_anything and snapshot(tree.root) == tree_files


def test_consume_empties_the_list_handed_over_and_writes_the_same_bytes(tmp_path: Path) -> None:
    """``consume=True`` pops the versions from the list it is handed (a tuple is only read); the
    tree is byte-identical to the one a tuple gives."""
    bodies = {_sha(EN_BODY): EN_BODY}
    read, consumed = CorpusTree.create(tmp_path / "read"), CorpusTree.create(tmp_path / "consumed")
    listed = [_original(), _consolidated()]
    given = _enum(*listed)
    apply_enumeration(read, given, bodies, T0, durable=False, consume=True)
    assert len(given.versions) == 2  # a tuple: read, not emptied
    handed = dataclasses.replace(given, versions=list(listed))
    apply_enumeration(consumed, handed, bodies, T0, durable=False, consume=True)
    assert handed.versions == []
    assert snapshot(read.root) == snapshot(consumed.root)


def test_a_digest_collision_is_not_taken_for_a_duplicate_version(monkeypatch: pytest.MonkeyPatch) -> None:
    # the validation holds a 64-bit digest per (work, version identifier); a digest seen before is
    # confirmed on the listed versions, so two distinct pairs colliding are not refused
    monkeypatch.setattr(writer, "_pair_digest", lambda slug, pvid: 0)
    versions = [SimpleNamespace(slug="loi-a", publisher_version_identifier=p) for p in ("v1", "v2")]
    assert not writer._listed_before(versions, 1, "loi-a", "v2")  # type: ignore[arg-type]
    assert writer._listed_before(versions, 1, "loi-a", "v1")  # type: ignore[arg-type]
    assert not writer._listed_before(versions, 1, "loi-b", "v1")  # type: ignore[arg-type]
