"""Which work, which publisher, which dated state: identity and date resolution.

Work arguments accept a work lex id (``eu-eurlex:32016r0679``, a version lex id or provision
id — the version part is ignored), a CELEX number, an ELI URL, a bare slug, a Legilux alias
(``code-penal``) or an exact official name (short title, title) when it names one work only.

Date resolution follows ``legal.validity``: among the *live* (non-withdrawn) states whose
half-open interval contains the day, the latest start wins; several states with that start
are ambiguous and every key is offered. Withdrawn states never take part in a bare-date
answer (they are no longer published) but stay addressable by their exact ``version_key``,
and a withdrawn state sharing the winner's start is disclosed beside the answer.

A name asked of as of a day names only the works held by then (:func:`enacted_by`), and a
question's word written as an acronym names softly the works whose aliases or short titles it is
the initials of (:func:`named_acronyms`; issue #15, docs/adr/0076).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from derive.index.query import STOP_WORDS
from derive.index.text import normalize
from legal.errors import RequestError
from legal.identifiers import EURLEX_ID, celex_numbers, celex_to_slug, clean_url, url_candidates
from legal.publishers import registry as publisher_registry
from serve.core import ranking
from serve.core.envelope import Answer, CallContext, unknown_publisher, unknown_work
from serve.core.mount import MountedIndex
from serve.core.searchplan import Mention, Plan
from serve.core.store import Version, Work, work_by_slug

IDENTITY_KINDS = ("official_identifier", "alias", "publisher_short_title", "official_title")


@dataclass(frozen=True)
class Located:
    index: MountedIndex
    work: Work


@dataclass(frozen=True)
class DateResolution:
    version: Version | None
    choices: tuple[Version, ...] = ()
    withdrawn_same_day: tuple[Version, ...] = field(default=())

    @property
    def ambiguous(self) -> bool:
        return len(self.choices) > 1


def mounted_publisher(ctx: CallContext, requested: str | None) -> MountedIndex | Answer | None:
    """The mounted index named by ``requested`` (case-insensitive), an unknown_publisher answer, or None."""
    if requested is None:
        return None
    key = requested.strip().lower()
    if key in ctx.indexes:
        return ctx.indexes[key]
    by_jurisdiction = [i for i in ctx.indexes.values() if i.publisher.jurisdiction.lower() == key]
    if len(by_jurisdiction) == 1:
        return by_jurisdiction[0]
    return unknown_publisher(ctx, requested)


def slug_candidates(text: str) -> list[tuple[str | None, str]]:
    """``(publisher or None, slug)`` readings of a work argument, most specific first."""
    raw = text.strip()
    head = raw.split("#", 1)[0]
    parts = head.split(":")
    out: list[tuple[str | None, str]] = []
    if len(parts) >= 2 and publisher_registry().find(parts[0]) is not None:
        out.append((parts[0].lower(), parts[1].lower()))
    if raw.lower().startswith("http"):
        out.extend(url_candidates(clean_url(raw)))
    found = celex_numbers(head)
    if found and found[0][1] - found[0][0] >= len(head.strip()) - 6:
        out.append((EURLEX_ID, celex_to_slug(found[0][2])))
    if len(parts) == 1:
        out.append((None, raw.lower()))
    return out


def _by_slug(ctx: CallContext, candidates: Sequence[tuple[str | None, str]],
             only: MountedIndex | None) -> Located | Answer | None:
    for publisher, slug in candidates:
        if publisher is not None and publisher not in ctx.indexes:
            if only is None:
                return unknown_publisher(ctx, publisher)
            continue
        for index in ([only] if only else ctx.ordered()):
            if publisher is not None and index.publisher.value != publisher:
                continue
            rowid = index.catalogue.rowid_of.get(slug)
            if rowid is None:
                entries = [e for e in index.catalogue.names.get(slug, []) if e.kind == "alias"]
                rowid = entries[0].work_rowid if entries else None
            if rowid is not None:
                with index.session(ctx.deadline_seconds) as conn:
                    work = work_by_slug(conn, index.catalogue.slug_of[rowid])
                if work is not None:
                    return Located(index, work)
    return None


def _by_name(ctx: CallContext, text: str, only: MountedIndex | None) -> Located | list[str]:
    normalized = normalize(text)
    hits: dict[tuple[str, int], MountedIndex] = {}
    for kind in IDENTITY_KINDS:
        for index in ([only] if only else ctx.ordered()):
            for entry in index.catalogue.names.get(normalized, []):
                if entry.kind == kind:
                    hits[(index.publisher.value, entry.work_rowid)] = index
        if hits:
            break
    if len(hits) == 1:
        (_, rowid), index = next(iter(hits.items()))
        with index.session(ctx.deadline_seconds) as conn:
            work = work_by_slug(conn, index.catalogue.slug_of[rowid])
        if work is not None:
            return Located(index, work)
    return sorted(f"{pub}:{hits[(pub, rowid)].catalogue.slug_of[rowid]}" for pub, rowid in hits)[:20]


def locate_work(ctx: CallContext, work: str, publisher: str | None) -> Located | Answer:
    """The mounted index and work named by the arguments, or the answer explaining why not."""
    chosen = mounted_publisher(ctx, publisher)
    if isinstance(chosen, dict):
        return chosen
    found = _by_slug(ctx, slug_candidates(work), chosen)
    if found is not None:
        return found
    by_name = _by_name(ctx, work, chosen)
    if isinstance(by_name, Located):
        return by_name
    return unknown_work(ctx, work, by_name, chosen)


def resolve_on(versions: Sequence[Version], day: str, version_key: str | None = None, *,
               include_withdrawn: bool = False) -> DateResolution:
    """The state of a work on ``day`` (see the module docstring).

    ``include_withdrawn`` resolves over every state ever published for the work, withdrawn ones
    included (the transaction-time-inclusive view): a withdrawn same-day twin then makes the date
    ``ambiguous_version`` with both keys instead of being disclosed beside the live answer.
    """
    covering = [v for v in versions if v.covers(day)]
    if version_key is not None:
        chosen = next((v for v in versions if v.version_key == version_key), None)
        if chosen is None:
            raise RequestError("version_key names no state of this work", code="unknown_version_key",
                               subject=version_key)
        if chosen not in covering:
            raise RequestError(f"version_key names a state that does not cover {day}",
                               code="version_key_not_effective", subject=version_key)
        return DateResolution(chosen, (chosen,))
    live = list(covering) if include_withdrawn else [v for v in covering if not v.withdrawn]
    if not live:
        return DateResolution(None)
    start = max(v.valid_from for v in live)
    winners = tuple(sorted((v for v in live if v.valid_from == start), key=lambda v: v.version_key))
    twins = () if include_withdrawn else tuple(v for v in covering if v.withdrawn and v.valid_from == start)
    return DateResolution(winners[0] if len(winners) == 1 else None, winners, twins)


def neighbours(versions: Sequence[Version], day: str) -> tuple[Version | None, Version | None]:
    """The nearest live states before and after ``day`` (for no_version_for_date answers)."""
    live = [v for v in versions if not v.withdrawn]
    before = [v for v in live if v.valid_from <= day]
    after = [v for v in live if v.valid_from > day]
    return (before[-1] if before else None), (after[0] if after else None)


def enacted_by(conn: sqlite3.Connection, works: Sequence[int], day: str) -> list[int]:
    """The works among ``works`` (rowids, order kept) with a live state starting on or before
    ``day``: the acts held by then. A name asked of as of an earlier day (the alias « loi sur la
    protection des données » of the 2018 law, asked as of 1993) names none of the others: the act
    did not exist yet, and the question means the law of that time (issue #15, titles28). Read-only."""
    if not works:
        return []
    marks = ",".join("?" * len(works))
    held = {int(r[0]) for r in conn.execute(
        f"SELECT DISTINCT work_rowid FROM versions WHERE work_rowid IN ({marks}) AND withdrawn = 0 "
        "AND valid_from <= ?", (*works, day))}
    return [w for w in works if w in held]


#: An acronym a question may write for a held name: capitals only, at least this many letters
#: (three-letter sigles stand for too many names by chance).
ACRONYM_MIN_LETTERS = 4
#: Letters enough for a sigle written just before an act's form word ("EBA Regulation",
#: "CPC-Verordnung"): the form word says the sigle names an act, not a passing abbreviation.
FORM_ACRONYM_MIN_LETTERS = 3
#: Works whose names an acronym may stand for in one index (more: the initials say nothing of one act).
ACRONYM_WORKS_MAX = 3
_ACRONYM = re.compile(rf"^[A-Z]{{{ACRONYM_MIN_LETTERS},}}$")
_FORM_ACRONYM = re.compile(rf"^[A-Z]{{{FORM_ACRONYM_MIN_LETTERS},}}$")
#: An act's form word after a sigle, in English and German, and the form it names (EU acts: French
#: puts the form first and its sigles differ, « règlement ABE »).
ACRONYM_FORMS = {"regulation": "regulation", "verordnung": "regulation", "directive": "directive",
                 "richtlinie": "directive"}


def initials(name: str, min_words: int = ACRONYM_MIN_LETTERS) -> str:
    """The acronym a name is written as: the first letter of each of its normalised words, the
    linking words left out (« European Insurance and Occupational Pensions Authority » → ``eiopa``);
    empty when a word is not alphabetic (a number, an act number: no acronym of a name) or the name
    has fewer than ``min_words`` words. Pure."""
    words = [w for w in normalize(name).split() if w not in STOP_WORDS]
    if len(words) < min_words or not all(w.isalpha() for w in words):
        return ""
    return "".join(w[0] for w in words)


def form_initials(name: str) -> str:
    """The key a sigle written before a form word finds a name by: the initials of a name of at least
    :data:`FORM_ACRONYM_MIN_LETTERS` words before its closing form word, the form named after a
    ``+`` (« Consumer Protection Cooperation Regulation » → ``cpc+regulation``), or of a whole name
    of three words or more that ends in no form word (« European Banking Authority » → ``eba``: the
    body its founding regulation is named by). Empty otherwise. Pure."""
    words = [w for w in normalize(name).split() if w not in STOP_WORDS]
    if words and words[-1] in ACRONYM_FORMS:
        head = initials(" ".join(words[:-1]), FORM_ACRONYM_MIN_LETTERS)
        return f"{head}+{ACRONYM_FORMS[words[-1]]}" if head else ""
    return initials(name, FORM_ACRONYM_MIN_LETTERS)


def name_initials(conn: sqlite3.Connection) -> dict[str, frozenset[int]]:
    """Acronym (:func:`initials`, and :func:`form_initials` for a sigle written before a form word)
    → the works an alias or a publisher short title of which it is the initials of, whole: how an
    authority or an act is abbreviated (« EIOPA »: the alias « European Insurance and Occupational
    Pensions Authority » of Regulation (EU) No 1094/2010 establishing it). Read once per mounted
    index (``MountedIndex.memo``). Read-only."""
    found: dict[str, set[int]] = {}
    for work, value in conn.execute(
            "SELECT work_rowid, value FROM work_names WHERE kind IN ('alias', 'publisher_short_title')"):
        for key in {initials(str(value)), form_initials(str(value))} - {""}:
            found.setdefault(key, set()).add(int(work))
    return {key: frozenset(works) for key, works in found.items()}


def acronym_works(by_initials: Mapping[str, frozenset[int]], held_names: Mapping[str, object],
                  token: str, form: str | None = None, principal: Collection[int] | None = None) -> list[int]:
    """The works a question's word ``token`` names as the acronym of their names: written in
    capitals (:data:`ACRONYM_MIN_LETTERS` letters or more, or :data:`FORM_ACRONYM_MIN_LETTERS`
    before an act's form word ``form``), held by no name as itself (a sigle an alias already holds
    is resolved as a name), the initials of the whole names of one to :data:`ACRONYM_WORKS_MAX` works
    (:func:`name_initials`); before a form word, also of a name of that form without its form word
    (``cpc+regulation``). More than that many works, for a sigle before a form word: the
    ``principal`` acts among them, if few enough (a bare sigle in a question is the body it
    abbreviates, not the act establishing it). Empty otherwise. Pure."""
    key = token.lower()
    if key in held_names or not (_ACRONYM.match(token) or (form and _FORM_ACRONYM.match(token))):
        return []
    works = set(by_initials.get(key, frozenset()))
    if form:
        works |= by_initials.get(f"{key}+{form}", frozenset())
    if len(works) > ACRONYM_WORKS_MAX and form and principal is not None:
        # the acts amending a founding regulation repeat the body's name in their titles ("ESMA": the
        # regulation establishing it and three acts amending it): the principal acts among them
        works = {w for w in works if w in principal}
    return sorted(works) if len(works) <= ACRONYM_WORKS_MAX else []


def _principal_works(index: MountedIndex) -> Collection[int]:
    """The works of an index that are principal acts (no amending, delegated or implementing act,
    corrigendum nor compilation): a view of :func:`serve.core.ranking.profiles`, already held per
    mounted index (no new memory)."""
    with index.session(60.0) as conn:
        found = ranking.profiles(conn, index)
    return _Principal(found)


class _Principal(Collection[int]):
    """The principal acts among ``profiles`` (a view: membership reads the profile)."""

    def __init__(self, profiles: Mapping[int, ranking.WorkProfile]) -> None:
        self._profiles = profiles

    def __contains__(self, work: object) -> bool:
        profile = self._profiles.get(work) if isinstance(work, int) else None
        return profile is not None and profile.role == "principal"

    def __iter__(self) -> Iterator[int]:
        return (w for w, p in self._profiles.items() if p.role == "principal")

    def __len__(self) -> int:
        return sum(1 for _ in self)


def acronym_tokens(raw: str) -> list[tuple[str, str | None]]:
    """A question's capitalised words that may be acronyms, each with the act form written just
    after it (:data:`ACRONYM_FORMS`: "ESMA Regulation", "EIOPA-Verordnung") or ``None``: words of
    :data:`ACRONYM_MIN_LETTERS` capitals, or of :data:`FORM_ACRONYM_MIN_LETTERS` before a form
    word. Pure."""
    words = [t for t in re.split(r"[^\w]+", raw) if t]
    found: list[tuple[str, str | None]] = []
    for i, token in enumerate(words):
        form = ACRONYM_FORMS.get(normalize(words[i + 1])) if i + 1 < len(words) else None
        if _ACRONYM.match(token) or (form and _FORM_ACRONYM.match(token)):
            found.append((token, form))
    return found


def acronym_refused(plan: Plan, token: str) -> bool:
    """Whether a plan's refusal is only that the popular name this sigle and a form word make is
    held by no name ("ESMA Regulation": ``name_not_held``, shape ``popular``, words ``["esma"]``)."""
    refused = plan.name_not_held or {}
    return refused.get("reason") == "name_not_held" and refused.get("shape") == "popular" \
        and refused.get("words") == [token.lower()]


def named_acronyms(indexes: Sequence[MountedIndex], plans: Mapping[str, Plan], raw: str) -> None:
    """Name softly (reason ``acronym_name``: ranked first, nothing restricted; plans, in place) the
    works a question's capitalised word is the acronym of (:func:`acronym_works`): « EIOPA regulation »
    is the regulation establishing the European Insurance and Occupational Pensions Authority, whose
    names hold the authority's name, never its acronym (issue #15, titles28); a three-letter sigle
    before a form word too ("EBA Regulation", names42). Not for a plan that names a work otherwise
    (a mention, an article, an anchor) or says the act is not held, unless that refusal is only the
    popular name the sigle and its form word make (:func:`acronym_refused`): a sigle some index
    resolves is the name of its act, so that refusal is lifted from every plan."""
    tokens = acronym_tokens(raw)
    if not tokens:
        return
    if any(key in index.catalogue.names for index in indexes for key in (t.lower() for t, _ in tokens)):
        return  # a sigle some name holds as itself: the names resolve it
    resolved: list[tuple[Plan, str, list[int]]] = []
    for index in indexes:
        plan = plans[index.publisher.value]
        if plan.mentions or plan.article_key or plan.anchor:
            continue
        by_initials = index.memo("name_initials", name_initials)
        principal = _principal_works(index) if any(form for _, form in tokens) else None
        for token, form in tokens:
            if plan.name_not_held and not acronym_refused(plan, token):
                continue
            works = acronym_works(by_initials, index.catalogue.names, token, form, principal)
            if works:
                resolved.append((plan, token, works))
    lifted = {token for _, token, _ in resolved}
    for plan in plans.values():
        if plan.name_not_held and any(acronym_refused(plan, token) for token in lifted):
            plan.name_not_held = None
    for plan, token, works in resolved:
        plan.mentions.append(Mention(token.lower(), "resolved" if len(works) == 1 else "ambiguous",
                                     "acronym_name", works, soft=True))
        plan.boost = sorted(set(plan.boost) | set(works))
