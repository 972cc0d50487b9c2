"""Issue #14 (the web diff page): the changed provisions' texts read by the hashes the ``diff``
answer carries (:meth:`serve.core.LegalCore.stored_texts`) are the texts ``as_of`` returns for the
same anchors of the two exact versions, so the page's rows are the same by either path. On the
real fixture indexes (``LEX_FIXTURES``); the ``as_of`` path is the reference."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping
from typing import Any

from legal.errors import RequestError
from serve.core import LegalCore
from serve.web import diffing

CHUNK = 50  # anchors per as_of call, as the page asks


def _as_of_texts(
    core: LegalCore, work: str, doc: Mapping[str, Any], anchors: list[str]
) -> dict[str, str]:
    """The reference: the page's former path (``as_of`` of the exact version, by anchors)."""
    out: dict[str, str] = {}
    for start in range(0, len(anchors), CHUNK):
        answer = core.call(
            "as_of",
            {
                "work": work,
                "date": str(doc["valid_from"])[:10],
                "version_key": str(doc["version_key"]),
                "anchors": anchors[start : start + CHUNK],
            },
        )
        out.update(
            {str(p.get("anchor")): str(p.get("text") or "") for p in answer.get("provisions") or []}
        )
    return out


def _without_spans(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A diff answer as the page reads it: no word spans, nor what their budget elided."""
    out = {k: v for k, v in answer.items() if k not in ("diff_truncated", "envelope", "served_at")}
    out["changes"] = [
        {k: v for k, v in c.items() if k != "words"} for c in answer.get("changes") or []
    ]
    return out


def _works(core: LegalCore) -> list[str]:
    return sorted({entry.work_id for entry in core.catalogue_entries()})


def test_texts_by_hash_are_the_as_of_texts(fixture_core: LegalCore) -> None:
    compared = pages = spanned = 0
    for work in _works(fixture_core):
        timeline = fixture_core.call("timeline", {"work": work, "limit": 100})
        versions = [v for v in timeline.get("versions") or [] if v.get("valid_from")]
        pairs = list(itertools.pairwise(versions))
        if len(versions) > 2:
            pairs.append((versions[0], versions[-1]))
        for old, new in pairs:
            args = {
                "work": work,
                "from_date": str(old["valid_from"])[:10],
                "to_date": str(new["valid_from"])[:10],
                "limit": 100,
                "from_version_key": old["version_key"],
                "to_version_key": new["version_key"],
            }
            try:  # a state that does not cover its own first day (withdrawn, zero length) is not asked
                answer = fixture_core.call("diff", args)
            except RequestError:
                continue
            lean = fixture_core.diff_without_word_spans(args)
            assert _without_spans(answer) == _without_spans(lean), (work, args)
            assert not any("words" in c for c in lean.get("changes") or [])
            spanned += sum("words" in c for c in answer.get("changes") or [])
            changes = [c for c in answer.get("changes") or [] if isinstance(c, Mapping)]
            changed = [str(c["anchor"]) for c in changes if c.get("change") == "changed"]
            if answer.get("outcome") != "succeeded" or not changed:
                continue
            before = _as_of_texts(fixture_core, work, answer["from"], changed)
            after = _as_of_texts(fixture_core, work, answer["to"], changed)
            read = functools.partial(fixture_core.stored_texts, work.partition(":")[0])
            by_hash = diffing.rows_by_hash(changes, read)
            assert by_hash == diffing.rows_of(changes, before, after), (
                work,
                old["version_key"],
                new["version_key"],
            )
            assert all(before.get(a) for a in changed) and all(after.get(a) for a in changed)
            compared += len(changed)
            pages += 1
    assert pages >= 3 and compared >= 10 and spanned >= 10, (pages, compared, spanned)


def test_a_hash_not_stored_reads_as_no_text(fixture_core: LegalCore) -> None:
    assert fixture_core.stored_texts("eu-eurlex", ["0" * 64]) == {}
    assert fixture_core.stored_texts("no-such-publisher", ["0" * 64]) == {}
    assert fixture_core.stored_texts("eu-eurlex", []) == {}
    change = {
        "anchor": "art_1",
        "change": "changed",
        "from_text_sha256": "a" * 64,
        "to_text_sha256": "b" * 64,
    }
    rows = diffing.rows_by_hash([change], lambda shas: {"b" * 64: "new words"})
    assert rows == diffing.rows_of([change], {}, {"art_1": "new words"})
    assert diffing.rows_by_hash(
        [change], lambda shas: {"a" * 64: "x", "b" * 64: "y"}, sides=(False, True)
    ) == diffing.rows_of([change], {}, {"art_1": "y"})


def test_hashes_of_lists_each_changed_wording_once() -> None:
    changes = [
        {"anchor": "a", "change": "changed", "from_text_sha256": "1", "to_text_sha256": "2"},
        {"anchor": "b", "change": "added", "to_text_sha256": "3"},
        {"anchor": "c", "change": "changed", "from_text_sha256": "2", "to_text_sha256": "4"},
    ]
    assert diffing.hashes_of(changes) == ["1", "2", "4"]
