"""``diff``: what changed in a work between two dates, provision by provision, word by word."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, NamedTuple

from derive.index.serving import (
    MAX_PAIR_MATCHES,
    MAX_PAIR_WORDS,
    StoredPair,
    stored_pairs,
)
from derive.index.textstore import Located, locate, read_located
from derive.index.worddiff import (
    DiffCost,
    changes_of,
    common_ends,
    cost_bounds,
    diff_cost_of,
    middle_bounds,
    opcodes_of,
)
from legal.canonical import json_loads, orjson_module
from legal.errors import IndexError_
from legal.outcomes import DiffElision, Outcome
from serve.core.anchors import match_anchor
from serve.core.envelope import Answer, CallContext, answer, is_provisional
from serve.core.known import (
    KnownVersion,
    KnownView,
    disclosures,
    expression_text_at,
    known_expressions,
    not_yet_known,
    text_refusal,
    unseen_key,
    work_view,
)
from serve.core.mount import MountedIndex, check_deadline
from serve.core.ops.as_of import AMBIGUITY_HINT, version_choices
from serve.core.resolve import DateResolution, locate_work, resolve_on
from serve.core.shapes import choose_expression, text_outcome, version_doc
from serve.core.store import (
    Expression,
    ProvisionKey,
    Version,
    Work,
    expressions_of,
    provision_keys,
    versions_of,
)

MAX_ANCHOR_LIST = 100
#: What one answer may hand to the word diff beyond the precomputed pairs (``diff_cost``): words,
#: and matching word pairs walked (about 0.25 µs each; repetitive tables make them explode). A
#: one-anchor diff may use the per-pair bounds (``MAX_PAIR_WORDS``, :data:`ONE_PAIR_MATCHES`).
WORD_BUDGET = 6_000
MATCH_BUDGET = 60_000
ONE_PAIR_MATCHES = 1_000_000
#: Characters of added/removed text one answer may return (twice the ``as_of`` text budget).
TEXT_BUDGET = 500_000
#: Texts of added/removed provisions read in one batch before the budget is applied.
TEXT_PREFETCH = 200


@dataclass(frozen=True)
class Side:
    version: Version
    expression: Expression | None
    provisions: tuple[ProvisionKey, ...]


def _side(conn: sqlite3.Connection, version: Version, language: str | None, primary: str | None,
          cache: dict[int, tuple[ProvisionKey, ...]], anchor: str | None, known: KnownVersion | None = None) -> Side:
    """One side of the comparison; with ``anchor`` only that provision is read (all of them only when
    the exact anchor is absent, to match another spelling or list what is held). ``known``: only the
    languages held on ``known_on``."""
    expressions = expressions_of(conn, version.rowid)
    if known is not None:
        expressions = known_expressions(expressions, known)
    expression = choose_expression(expressions, language, primary)
    if expression is None or not expression.has_text:
        return Side(version, expression, ())
    if expression.rowid not in cache:
        keys = tuple(provision_keys(conn, expression.rowid, [anchor])) if anchor else ()
        cache[expression.rowid] = keys or tuple(provision_keys(conn, expression.rowid))
    return Side(version, expression, cache[expression.rowid])


def _date_refusal(ctx: CallContext, index: MountedIndex, conn: sqlite3.Connection, work: Work,
                  sides: dict[str, DateResolution], base: dict[str, Any], provisional: bool,
                  view: KnownView | None = None) -> Answer | None:
    ambiguous = {k: r for k, r in sides.items() if r.ambiguous}
    if ambiguous:
        payload = {**base, "hint": AMBIGUITY_HINT.replace("version_key", "from_version_key / to_version_key")}
        for k, r in ambiguous.items():
            payload[f"{k}_version_choices"] = version_choices(conn, work, r.choices, view)
        return answer(ctx, index, Outcome.AMBIGUOUS_VERSION, payload, provisional=provisional)
    missing = [k for k, r in sides.items() if r.version is None]
    if missing:
        resolved = {f"{k}_resolved": r.version is not None for k, r in sides.items()}
        return answer(ctx, index, Outcome.NO_VERSION_FOR_DATE, {**base, **resolved}, provisional=provisional)
    return None


class _Budget:
    """What one diff answer may spend: words and word matches handed to the word diff, characters of
    text returned."""

    def __init__(self, words: int, matches: int, characters: int) -> None:
        self.word_budget, self.match_budget = words, matches
        self.words, self.matches = words, matches
        self.characters = characters
        self.elided: list[dict[str, str]] = []

    def elide(self, anchor: str, part: str, reason: DiffElision) -> None:
        self.elided.append({"anchor": anchor, "part": part, "reason": reason.value})

    def report(self) -> dict[str, Any]:
        reasons = sorted({e["reason"] for e in self.elided})
        return {"elided_count": len(self.elided), "elided": self.elided, "reasons": reasons,
                "word_budget": self.word_budget, "match_budget": self.match_budget,
                "pair_word_limit": MAX_PAIR_WORDS, "pair_match_limit": MAX_PAIR_MATCHES, "text_budget": TEXT_BUDGET,
                "detail": "the listed provisions are still counted and listed in changes; their word spans "
                          "(words: null) or text (text: null) were left out to keep the answer bounded. "
                          "Ask for one of them with anchor=… to get it."}


class _Texts:
    """The texts one diff may need: located up front in one statement (word counts and places,
    nothing inflated; any other is located when asked for), read in batches (each block inflated
    once; a text in a block read before is cut from what was read), split into words once."""

    def __init__(self, conn: sqlite3.Connection, shas: Iterable[str]) -> None:
        self.conn = conn
        self.located = locate(conn, shas)
        self.bodies: dict[str, str] = {}
        self.split: dict[str, list[str]] = {}
        self.raws: dict[int, bytes] = {}  # the blocks read so far, as far as read

    def where(self, sha: str) -> Located:
        found = self.located.get(sha)
        if found is None:
            self.located.update(locate(self.conn, [sha]))
            found = self.located.get(sha)
        if found is None:
            raise IndexError_("text not stored in the index", code="text_missing", subject=sha)
        return found

    def read(self, shas: Iterable[str]) -> None:
        wanted = {sha: self.where(sha) for sha in shas if sha not in self.bodies}
        if wanted:
            self.bodies.update(read_located(self.conn, wanted, self.raws))

    def text(self, sha: str) -> str:
        if sha not in self.bodies:
            self.read([sha])
        return self.bodies[sha]

    def words(self, sha: str) -> list[str]:
        """The text's whitespace words (split once)."""
        found = self.split.get(sha)
        if found is None:
            found = self.split[sha] = self.text(sha).split()
        return found


def _certain_elision(low: DiffCost, high: DiffCost, budget: _Budget) -> DiffElision | None:
    """The elision a pair whose cost lies between ``low`` and ``high`` gets whatever its exact cost
    (None: it depends). The exact rule, below, elides a pair over a pair limit as too large, else
    one over what is left of the budget."""
    if low.words > MAX_PAIR_WORDS or low.pairs > MAX_PAIR_MATCHES:
        return DiffElision.PROVISION_TOO_LARGE
    if high.words <= MAX_PAIR_WORDS and high.pairs <= MAX_PAIR_MATCHES and (
            low.words > budget.words or low.pairs > budget.matches):
        return DiffElision.WORD_BUDGET
    return None


_ORJSON = orjson_module()


def _dumps(value: Any) -> bytes:
    """A remembered pair's changes as JSON bytes (``orjson`` where installed: a tenth of the CPU)."""
    if _ORJSON is None:  # pragma: no cover - orjson is a dependency; json is the fallback
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    return bytes(_ORJSON.dumps(value))


_loads = json_loads()


class KnownPair(NamedTuple):
    """What one answer learnt of a pair of wordings, for the next: whether ``word_diffs`` holds it
    (``stored``: its changes never count against the budget); for a computed pair, bounds of its
    :class:`DiffCost` (``low == high``: the cost itself; else the middle bounds that elided it
    unpriced), by which a pair is elided, or charged, exactly as when they are worked out again;
    and its word changes as JSON (None: not computed yet, it was elided)."""

    stored: bool
    low: DiffCost | None
    high: DiffCost | None
    changes: bytes | None

    @property
    def size(self) -> int:
        return 640 + (len(self.changes) if self.changes is not None else 0)  # the key and tuples too


class PairCache:
    """The :class:`KnownPair` of the pairs of wordings recent diffs met, per mounted index file
    (the key names it), least recently used dropped first, at most ``capacity`` bytes of JSON and
    bookkeeping. A pair's changes are a pure function of its two texts and the file is immutable
    while mounted, so a hit gives the answer a miss would; each hit is decoded afresh (no answer
    shares a list with another)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._pairs: OrderedDict[Hashable, KnownPair] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._pairs.clear()
            self._size = 0

    def get(self, key: Hashable) -> KnownPair | None:
        return self.get_many([key]).get(key)

    def get_many(self, keys: Iterable[Hashable]) -> dict[Hashable, KnownPair]:
        """``key → its pair`` of the ``keys`` held, each made the most recently used in turn (as
        :meth:`get` of each would), under one lock."""
        out: dict[Hashable, KnownPair] = {}
        with self._lock:
            pairs = self._pairs
            for key in keys:
                found = pairs.get(key)
                if found is not None:
                    pairs.move_to_end(key)
                    out[key] = found
        return out

    def put(self, key: Hashable, known: KnownPair) -> None:
        self.put_many([(key, known)])

    def put_many(self, items: Iterable[tuple[Hashable, KnownPair]]) -> None:
        """:meth:`put` of each ``(key, pair)`` in turn (the same pairs kept, in the same order, as
        one put after another), under one lock: a pair larger than an eighth of the capacity is
        not kept; the least recently used are dropped past the capacity."""
        limit = self.capacity // 8
        with self._lock:
            pairs = self._pairs
            for key, known in items:
                size = known.size
                if size > limit:
                    continue
                previous = pairs.pop(key, None)
                if previous is not None:
                    self._size -= previous.size
                pairs[key] = known
                self._size += size
                while self._size > self.capacity and pairs:
                    _, dropped = pairs.popitem(last=False)
                    self._size -= dropped.size


#: Bytes of word changes (JSON) the process keeps of recently met pairs (:class:`PairCache`).
PAIR_CACHE_BYTES = 8 << 20
PAIRS = PairCache(PAIR_CACHE_BYTES)


def _stored_words(stored: StoredPair, remember: Callable[[KnownPair], None]) -> list[dict[str, Any]]:
    raw = stored.changes_json()  # the JSON as stored is remembered: not encoded again
    value: list[dict[str, Any]] = _loads(raw)
    remember(KnownPair(True, None, None, raw))
    return value


def _charge(anchor: str, cost: DiffCost, budget: _Budget) -> bool:
    """The exact rule: elide a pair over a pair limit as too large, else one over what is left of
    the budget; else charge the budget with its cost. Whether the pair is diffed."""
    if cost.words > MAX_PAIR_WORDS or cost.pairs > MAX_PAIR_MATCHES:
        budget.elide(anchor, "words", DiffElision.PROVISION_TOO_LARGE)
        return False
    if cost.words > budget.words or cost.pairs > budget.matches:
        budget.elide(anchor, "words", DiffElision.WORD_BUDGET)
        return False
    budget.words -= cost.words
    budget.matches -= cost.pairs
    return True


def _words(anchor: str, before: ProvisionKey, after: ProvisionKey, stored: StoredPair | None,
           texts: _Texts, budget: _Budget, known: KnownPair | None = None,
           remember: Callable[[KnownPair], None] = lambda _known: None) -> list[dict[str, Any]] | None:
    """A changed provision's word changes: stored, remembered (``known``) or computed within the
    budget; None when elided. ``remember``: what was learnt of the pair, for the next answer."""
    if known is not None and known.stored and known.changes is not None:
        value: list[dict[str, Any]] = _loads(known.changes)
        return value
    if stored is not None:
        return _stored_words(stored, remember)
    check_deadline()
    if budget.words <= 0 or budget.matches <= 0:  # spent: not even the texts are read
        budget.elide(anchor, "words", DiffElision.WORD_BUDGET)
        return None
    if known is not None and known.low is not None and known.high is not None:
        # tighter bounds than the word counts' below: certain whenever those are, with the same
        # elision (the exact rule's, whatever the cost)
        certain = _certain_elision(known.low, known.high, budget)
        if certain is not None:
            budget.elide(anchor, "words", certain)
            return None
        if known.low == known.high:  # the cost itself
            if not _charge(anchor, known.low, budget):
                return None
            if known.changes is not None:
                remembered: list[dict[str, Any]] = _loads(known.changes)
                return remembered
            a, b = texts.words(before.text_sha256), texts.words(after.text_sha256)
            changes = changes_of(a, b, opcodes_of(a, b))
            remember(KnownPair(False, known.low, known.high, _dumps(changes)))
            return changes
    # The stored word counts bound the cost: a pair certainly over a limit is elided unread; then
    # the common ends bound it before any word is counted.
    certain = _certain_elision(*cost_bounds(texts.where(before.text_sha256).words,
                                            texts.where(after.text_sha256).words), budget)
    old: list[str] = []
    new: list[str] = []
    ends = (0, 0)
    if certain is None:
        texts.read((before.text_sha256, after.text_sha256))  # the two in one read: a block they share inflated once
        old, new = texts.words(before.text_sha256), texts.words(after.text_sha256)
        ends = common_ends(old, new)
        low, high = middle_bounds(old, new, ends)
        certain = _certain_elision(low, high, budget)
        if certain is not None:
            remember(KnownPair(False, low, high, None))
    if certain is not None:
        budget.elide(anchor, "words", certain)
        return None
    cost = diff_cost_of(old, new, ends)
    if not _charge(anchor, cost, budget):
        remember(KnownPair(False, cost, cost, None))
        return None
    changes = changes_of(old, new, opcodes_of(old, new, ends))
    remember(KnownPair(False, cost, cost, _dumps(changes)))
    return changes


def _certainly_too_long(length: int, characters: int) -> bool:
    """Whether a text of ``length`` UTF-8 bytes has more than ``characters`` characters whatever it
    says (a character takes at most four bytes)."""
    return length > 4 * characters


def _full_text(anchor: str, key: ProvisionKey, texts: _Texts, budget: _Budget) -> str | None:
    if _certainly_too_long(texts.where(key.text_sha256).length, budget.characters):  # elided unread
        budget.elide(anchor, "text", DiffElision.TEXT_BUDGET)
        return None
    text = texts.text(key.text_sha256)
    if len(text) > budget.characters:
        budget.elide(anchor, "text", DiffElision.TEXT_BUDGET)
        return None
    budget.characters -= len(text)
    return text


#: Whether this call's ``diff`` computes the changed provisions' word spans (``words``). Only a
#: shell that shows its own comparison turns it off, around one call (:func:`without_word_spans`):
#: not an argument, so the catalogue, OpenAPI and MCP schemas are unchanged.
_WORD_SPANS: ContextVar[bool] = ContextVar("diff_word_spans", default=True)


@contextmanager
def without_word_spans() -> Iterator[None]:
    """``diff`` calls in this block (this thread / context) leave out the changed provisions' word
    spans: no ``words`` key, nothing read, computed or remembered for them (their texts are not
    read at all); every other field, the counts and the added / removed texts are as usual. For
    the web diff page, which shows its own word comparison (:mod:`serve.web.diffing`)."""
    token = _WORD_SPANS.set(False)
    try:
        yield
    finally:
        _WORD_SPANS.reset(token)


def _change(kind: str, anchor: str, before: ProvisionKey | None, after: ProvisionKey | None,
            stored: dict[tuple[str, str], StoredPair], texts: _Texts, budget: _Budget,
            known: dict[tuple[str, str], KnownPair], learnt: _Learnt | None, spans: bool = True) -> dict[str, Any]:
    ref = after or before
    assert ref is not None
    out: dict[str, Any] = {
        "anchor": anchor, "change": kind, "num": ref.num, "heading": ref.heading,
        "from_text_sha256": before.text_sha256 if before else None,
        "to_text_sha256": after.text_sha256 if after else None,
    }
    if kind == "changed" and before and after:
        if spans:
            key = (before.text_sha256, after.text_sha256)
            out["words"] = _words(anchor, before, after, stored.get(key), texts, budget, known.get(key),
                                  _remember(learnt, key))
    elif kind == "added" and after:
        out["text"] = _full_text(anchor, after, texts, budget)
    elif kind == "removed" and before:
        out["text"] = _full_text(anchor, before, texts, budget)
    return out


class _Learnt:
    """What one answer learnt of its pairs (:class:`KnownPair`), in the order learnt, handed to
    :data:`PAIRS` together once the answer's changes are made (:meth:`PairCache.put_many`: the
    pairs kept as one put after another would keep them, one lock taken instead of one per pair)."""

    def __init__(self, file: Hashable) -> None:
        self.file = file
        self.items: list[tuple[Hashable, KnownPair]] = []

    def keep(self) -> None:
        if self.items:
            PAIRS.put_many(self.items)
            self.items = []


def _remember(learnt: _Learnt | None, pair: tuple[str, str]) -> Callable[[KnownPair], None]:
    if learnt is None:
        return lambda _known: None
    append, key = learnt.items.append, (learnt.file, *pair)
    return lambda known: append((key, known))


def _needs_no_texts(known: KnownPair | None) -> bool:
    """Whether a remembered pair's answer is at hand without its texts."""
    return known is not None and known.changes is not None


Entry = tuple[str, str, ProvisionKey | None, ProvisionKey | None]


def _entries(old: Sequence[ProvisionKey], new: Sequence[ProvisionKey]) -> tuple[list[Entry], dict[str, int]]:
    """``(kind, anchor, before, after)`` of every added, changed (document order of the later text)
    and removed provision (then, in the earlier text's order), and their counts with the unchanged.
    An anchor held twice on a side is compared with its last occurrence on the earlier side. One
    pass over each side: each later provision is exactly one of added, changed or unchanged."""
    before = {p.anchor: p for p in old}
    find = before.get
    entries: list[Entry] = []
    changed = 0
    for p in new:
        was = find(p.anchor)
        if was is None:
            entries.append(("added", p.anchor, None, p))
        elif was.text_sha256 != p.text_sha256:
            entries.append(("changed", p.anchor, was, p))
            changed += 1
    added = len(entries) - changed
    after = {p.anchor for p in new}
    entries.extend(("removed", p.anchor, p, None) for p in old if p.anchor not in after)
    return entries, {"added": added, "removed": len(entries) - added - changed, "changed": changed,
                     "unchanged": len(new) - added - changed}


def provision_changes(conn: sqlite3.Connection, old: Sequence[ProvisionKey], new: Sequence[ProvisionKey],
                      limit: int, one_pair: bool = False, file: Hashable | None = None) -> dict[str, Any]:
    """Added, removed and changed provisions (document order of the later text, then removals).

    Bounded: word spans come from the precomputed ``word_diffs`` when the two wordings followed each
    other in the work's time line, else are computed within :data:`WORD_BUDGET` words; full texts
    of added and removed provisions within :data:`TEXT_BUDGET` characters. What does not fit is
    listed in ``diff_truncated`` (present only then). The texts' stored word counts and byte
    lengths decide, before a text is read, what certainly does not fit; the texts to show are read
    together. ``file``: the mounted index file (its identity): what answers learn of its pairs is
    remembered for the next (:data:`PAIRS`), which then reads neither their row nor their texts.
    """
    if old is new:  # one state on both dates: nothing to compare
        return {"summary": {"added": 0, "removed": 0, "changed": 0, "unchanged": len(new)}, "changes": [],
                "truncated": False}
    entries, summary = _entries(old, new)
    shown = entries[:limit]
    spans = _WORD_SPANS.get()
    pairs = [(b.text_sha256, a.text_sha256) for kind, _, b, a in shown
             if spans and kind == "changed" and b is not None and a is not None]
    known: dict[tuple[str, str], KnownPair] = {}
    if file is not None:
        held = PAIRS.get_many([(file, *pair) for pair in pairs])
        if held:
            known = {pair: found for pair in pairs if (found := held.get((file, *pair))) is not None}
    stored = stored_pairs(conn, [pair for pair in pairs if pair not in known])
    texts = _Texts(conn, [p.text_sha256 for kind, _, b, a in shown for p in (b, a) if p is not None and (
        kind != "changed" or b is None or a is None or (
            spans and not _needs_no_texts(known.get((b.text_sha256, a.text_sha256)))
            and (b.text_sha256, a.text_sha256) not in stored))])
    first = [p.text_sha256 for kind, _, b, a in shown if kind != "changed"
             for p in (b, a) if p is not None][:TEXT_PREFETCH]
    texts.read([sha for sha in first if not _certainly_too_long(texts.where(sha).length, TEXT_BUDGET)])
    budget = (_Budget(MAX_PAIR_WORDS, ONE_PAIR_MATCHES, TEXT_BUDGET) if one_pair
              else _Budget(WORD_BUDGET, MATCH_BUDGET, TEXT_BUDGET))
    learnt = None if file is None else _Learnt(file)
    try:
        changes = [_change(*entry, stored, texts, budget, known, learnt, spans) for entry in shown]
    finally:  # what was learnt before a deadline is kept too
        if learnt is not None:
            learnt.keep()
    out: dict[str, Any] = {"summary": summary, "changes": changes, "truncated": len(entries) > limit}
    if budget.elided:
        out["diff_truncated"] = budget.report()
    return out


def _one_anchor(sides: tuple[Side, Side], anchor: str) -> tuple[tuple[ProvisionKey, ...], tuple[ProvisionKey, ...],
                                                               str | None]:
    old, new = sides
    a = match_anchor(anchor, [p.anchor for p in old.provisions])
    b = match_anchor(anchor, [p.anchor for p in new.provisions])
    keep_old = tuple(p for p in old.provisions if p.anchor == a)
    keep_new = tuple(p for p in new.provisions if p.anchor == b)
    if a and b and a != b:  # one article under two spellings (art_1 / art_1er): compare them as one
        keep_old = tuple(ProvisionKey(b, p.text_sha256, p.num, p.heading) for p in keep_old)
    return keep_old, keep_new, a or b


def run(ctx: CallContext, args: dict[str, Any]) -> Answer:
    located = locate_work(ctx, args["work"], args["publisher"])
    if isinstance(located, dict):
        return located
    index, work = located.index, located.work
    base: dict[str, Any] = {"work": work.work_id, "from_date": args["from_date"], "to_date": args["to_date"]}
    provisional = is_provisional(index, args["from_date"], args["to_date"])
    known_on = args["known_on"]
    with index.session(ctx.deadline_seconds) as conn:
        versions = versions_of(conn, work.rowid)
        view = None if known_on is None else work_view(conn, versions, known_on)
        if view is not None:
            if not view.known:
                return not_yet_known(ctx, index, view, base)
            versions = view.versions
            base["as_known"] = disclosures(view)
            unseen = unseen_key(ctx, index, view, [args["from_version_key"], args["to_version_key"]], base)
            if unseen is not None:
                return unseen
        resolutions = {"from": resolve_on(versions, args["from_date"], args["from_version_key"]),
                       "to": resolve_on(versions, args["to_date"], args["to_version_key"])}
        refusal = _date_refusal(ctx, index, conn, work, resolutions, base, provisional, view)
        if refusal is not None:
            return refusal
        old_v, new_v = resolutions["from"].version, resolutions["to"].version
        assert old_v is not None and new_v is not None
        language = args["language"] or work.primary_language
        cache: dict[int, tuple[ProvisionKey, ...]] = {}
        knowns = (None, None) if view is None else (view.of(old_v), view.of(new_v))
        sides = (_side(conn, old_v, language, work.primary_language, cache, args["anchor"], knowns[0]),
                 _side(conn, new_v, language, work.primary_language, cache, args["anchor"], knowns[1]))
        payload: dict[str, Any] = {
            **base, "from": version_doc(work, old_v, sides[0].expression), "to": version_doc(work, new_v, sides[1].expression),
            "same_version": old_v.rowid == new_v.rowid,
        }
        if view is not None:
            payload["as_known"] = disclosures(view, [old_v, new_v])
        for name, side in zip(("from", "to"), sides, strict=True):
            blocked = text_outcome(index, side.expression)
            if blocked is not None:
                return answer(ctx, index, blocked[0], {**payload, "changed": old_v.rowid != new_v.rowid,
                                                       "provision_level_comparable": False,
                                                       f"{name}_text_unavailable_reason": blocked[1]},
                              provisional=provisional)
            then = None if known_on is None else expression_text_at(conn, side.expression, known_on)
            if then is not None and known_on is not None and side.expression is not None:
                return text_refusal(ctx, index, {**payload, "changed": old_v.rowid != new_v.rowid,
                                                 "provision_level_comparable": False},
                                    side.expression, then, known_on, provisional=provisional,
                                    key=f"{name}_text_unavailable_reason")
        profiles = (sides[0].expression.profile if sides[0].expression else None,
                    sides[1].expression.profile if sides[1].expression else None)
        if profiles[0] != profiles[1]:
            return answer(ctx, index, Outcome.NOT_COMPARABLE, {
                **payload, "changed": old_v.rowid != new_v.rowid, "provision_level_comparable": False,
                "detail": f"the two texts were derived by different profiles ({profiles[0]} / {profiles[1]}); "
                          "compare them with as_of on each date",
            }, provisional=provisional)
        old, new = sides[0].provisions, sides[1].provisions
        if args["anchor"]:
            old, new, matched = _one_anchor(sides, args["anchor"])
            if matched is None:
                held = sorted({p.anchor for s in sides for p in s.provisions})  # both sides read in full here
                return answer(ctx, index, Outcome.UNKNOWN_ANCHOR, {
                    **payload, "anchor": args["anchor"], "anchors_held": held[:MAX_ANCHOR_LIST],
                    "anchors_truncated": len(held) > MAX_ANCHOR_LIST}, provisional=provisional)
            payload.update({"anchor": matched, "anchor_from_present": bool(old), "anchor_to_present": bool(new)})
        payload.update(provision_changes(conn, old, new, args["limit"], one_pair=bool(args["anchor"]),
                                         file=index.identity))
    payload["changed"] = any(payload["summary"][k] for k in ("added", "removed", "changed"))
    payload["provision_level_comparable"] = True
    return answer(ctx, index, Outcome.SUCCEEDED, payload, provisional=provisional)
