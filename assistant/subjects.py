"""Subject preflight: resolve the work(s) a turn names, in code, before any planner runs.

Only identity may authorise a work: a publisher identifier (CELEX, ELI, slug, lex id), an exact
title or an exact official short title found word-bounded in the reader's turn, or a *dated
citation* — an act form and a day ("la loi du 17 décembre 1925", "Gesetz vom 17. Dezember
1925", "the Law of 17 December 1925") — that matches exactly one held act by the type and date
its official identifier carries (a Legilux ELI ``…/eli/etat/leg/loi/1925/12/17/n1``); the
reply discloses the words that selected it. A citation matching several held acts, or none,
asks (at most three candidates). Aliases and metadata never authorise; a date alone never
selects an act, and the date of a citation is never the instant. Several candidates become either a decided choice (containment, trailing-clause
demotion, title over identifier) that carries its runner-up disclosure, a compound subject when
each mention names exactly one work, or a clarification that ends the turn. The planner sees
only opaque ``subject_1..N`` refs (N ≤ 8) and the reader's own words for them.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from assistant.catalog import MAX_SUBJECTS
from assistant.datereader import MONTH_WORDS, fold_keep
from assistant.text import find_spans, normalize
from legal.identifiers import (
    EURLEX_ID,
    LEGILUX_ID,
    URL_IN_TEXT,
    celex_numbers,
    celex_to_slug,
    lex_ids_in_text,
    lu_eli_segments,
    url_identifier,
)

TRUSTED_KINDS = ("identifier", "title", "short_title")
#: Kinds that may authorise a work, strongest first: a dated citation authorises only when it
#: matches exactly one held act, and is the weakest source of a member.
AUTHORISING_KINDS = (*TRUSTED_KINDS, "dated_citation")
KIND_FROM_INDEX = {
    "official_identifier": "identifier", "official_title": "title",
    "publisher_short_title": "short_title", "alias": "alias",
}
ACT_FORMS = frozenset(
    ["regulation", "regulations", "directive", "directives", "decision", "decisions", "reglement", "reglements", "loi", "lois", "law", "laws", "act", "acts", "code", "decret", "decrets", "arrete", "arretes", "ordonnance", "ordonnances", "convention", "treaty", "traite", "constitution", "protocol", "protocole", "charter", "charte", "accord", "agreement"]
)
DEMOTING_WORDS = frozenset(
    ["repealing", "amending", "replacing", "supplementing", "abrogeant", "modifiant", "remplacant", "completant"]
)
ANAPHORA = (
    " it ", " its ", " that law ", " that act ", " that one ", " this law ", " this act ",
    " this one ", " the same law ", " celui ci ", " celle ci ", " cette loi ", " cet acte ",
    " ce texte ", " le meme ", " la meme ",
)
NONE_OF_THESE = "none of these"
CHOICE_PREFIX = "Clarification choice: "
MENU_WORKS = 3

_EU_NUMBER = re.compile(
    r"\b(regulation|directive|decision|r[eè]glement|d[eé]cision|verordnung|richtlinie|beschluss)\s*"
    r"(?:\((?:eu|ec|eec|ue|ce|cee|ewg|eg|euratom)\)\s*)?"
    r"(?:no\.?\s*|nr\.?\s*|n[°o]\s*)?(\d{1,4})/(\d{1,4})(?:/(?:eu|ec|eec|ue|ce|cee|ewg|eg))?",
    re.IGNORECASE,
)
_EU_BARE_NUMBER = re.compile(r"(?<![\w/])((?:19|20)\d{2})/(\d{1,4})(?![\w/])")
_ARTICLE = re.compile(
    r"\b(?:article|articles|art|artikel|artikels)\s((?:[a-z]\s)?\d+[a-z]*(?:\s\d+)*(?:\s(?:bis|ter|quater))?|premier)\b"
)
_EU_KIND = {"regulation": "R", "reglement": "R", "verordnung": "R", "directive": "L", "richtlinie": "L",
            "decision": "D", "beschluss": "D"}


POPULAR_NAMES = Path(__file__).with_name("popular_names.json")


def popular_names(held: Iterable[str], path: Path = POPULAR_NAMES) -> list[WorkName]:
    """The reviewed popular names (``popular_names.json``) of held works, as short titles.

    Each entry is reviewed and names exactly one work, so it authorises like an official short
    title; a name whose work is not held is ignored.
    """
    held_works = set(held)
    doc = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for entry in doc["aliases"]:
        work, alias = str(entry["work"]), str(entry["alias"])
        if work in held_works and normalize(alias):
            out.append(WorkName(work, "short_title", normalize(alias), alias))
    return out


@dataclass(frozen=True, order=True)
class WorkName:
    """One stored name of a held work (kinds: identifier, title, short_title, alias)."""

    work: str
    kind: str
    normalized: str
    value: str


class CatalogueSource(Protocol):
    """Read-only view of the works catalogue of the mounted corpus."""

    def names(self) -> Iterable[WorkName]: ...

    def title(self, work: str) -> str | None: ...


@dataclass
class StaticCatalogue:
    """A catalogue held in memory (used for evaluation fixtures and tests)."""

    entries: Sequence[WorkName]
    titles: Mapping[str, str] = field(default_factory=dict)

    def names(self) -> Iterable[WorkName]:
        return self.entries

    def title(self, work: str) -> str | None:
        return self.titles.get(work)

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]]) -> StaticCatalogue:
        """From ``{work, title, short_titles[], identifiers[], aliases[]}`` records."""
        names: list[WorkName] = []
        titles: dict[str, str] = {}
        for record in records:
            work = str(record["work"])
            slug = work.split(":", 1)[1]
            groups = {
                "identifier": [work, slug, *record.get("identifiers", [])],
                "title": [record.get("title") or "", *record.get("titles", [])],
                "short_title": list(record.get("short_titles", [])),
                "alias": list(record.get("aliases", [])),
            }
            for kind, values in groups.items():
                names.extend(WorkName(work, kind, normalize(v), v) for v in values if normalize(v))
            if record.get("title"):
                titles[work] = str(record["title"])
        return cls(sorted(set(names)), titles)


@dataclass(frozen=True)
class Mention:
    """Words of the turn that named works through one kind of stored name (or a dated citation)."""

    text: str
    kind: str
    works: frozenset[str]
    span: tuple[int, int]
    citation: Citation | None = None


@dataclass(frozen=True)
class SubjectMember:
    work: str
    title: str | None
    mentions: tuple[str, ...]
    source: str
    exact_lex_id: str | None = None
    #: The dated citation that selected this work (when ``source`` is ``dated_citation``).
    citation: Citation | None = None


@dataclass(frozen=True)
class Disclosure:
    """A decided choice's runner-up, always disclosed to the reader."""

    runner_up_work: str
    runner_up_title: str | None


@dataclass(frozen=True)
class SubjectAuthority:
    members: tuple[SubjectMember, ...]
    article_number: str | None = None
    disclosure: Disclosure | None = None
    status: str = "resolved"

    def refs(self) -> dict[str, SubjectMember]:
        """``subject_1..N`` → member, N at most eight."""
        return {f"subject_{i + 1}": m for i, m in enumerate(self.members[:MAX_SUBJECTS])}

    def refs_for(self, identity: str) -> list[str]:
        """Refs usable for a work (``work``) or an exact version (``lex_id``) identity."""
        if identity == "lex_id":
            return [ref for ref, m in self.refs().items() if m.exact_lex_id]
        return list(self.refs())

    def context(self) -> dict[str, Any]:
        """The structured subject context a thread carries to the next turn."""
        return {
            "members": [{"work": m.work, "title": m.title, "exact_lex_id": m.exact_lex_id}
                        for m in self.members],
            "article_number": self.article_number,
        }


@dataclass(frozen=True)
class Choice:
    label: str
    value: str


@dataclass(frozen=True)
class SubjectClarification:
    question: str
    choices: tuple[Choice, ...]
    status: str


@dataclass(frozen=True)
class Preflight:
    """The preflight's answer: an authority, a clarification, or neither (no named subject)."""

    authority: SubjectAuthority | None
    clarification: SubjectClarification | None
    trace: Mapping[str, Any]


_LU_DATED_SLUG = re.compile(r"^([a-z]+)-(\d{4})-(\d{2})-(\d{2})-[a-z]*\d+$")


def act_identity(name: WorkName) -> tuple[str, dt.date] | None:
    """The act type and date an identifier of a held work carries, else ``None``.

    A dated Legilux ELI (``…/eli/etat/leg/loi/1925/12/17/n1``) or the work key built from it
    (``lu-legilux:loi-1925-12-17-n1``) → ``("loi", 1925-12-17)``. Titles never count.
    """
    if name.kind != "identifier":
        return None
    value = name.value.strip().lower()
    segments = lu_eli_segments(value) if "/eli/" in value or value.startswith("etat/") else None
    if segments is not None:
        slug = "-".join(segments[:5]) if len(segments) >= 5 else ""
    elif value.startswith(LEGILUX_ID + ":") or (":" not in value and name.work.startswith(LEGILUX_ID + ":")):
        slug = value.split(":", 1)[-1]
    else:
        return None
    match = _LU_DATED_SLUG.match(slug)
    if match is None:
        return None
    try:
        day = dt.date(int(match.group(2)), int(match.group(3)), int(match.group(4)))
    except ValueError:
        return None
    return match.group(1), day


class CatalogueIndex:
    """Names grouped for word-bounded scanning, and held acts by type and date (built once)."""

    def __init__(self, source: CatalogueSource) -> None:
        self.source = source
        self.by_prefix: dict[tuple[str, ...], list[WorkName]] = defaultdict(list)
        self.works_by_name: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.works: set[str] = set()
        self.acts: dict[tuple[str, dt.date], set[str]] = defaultdict(set)
        names = [n for n in source.names() if n.normalized]
        for name in names:
            self.works.add(name.work)
            identity = act_identity(name)
            if identity is not None:
                self.acts[identity].add(name.work)
        for name in [*names, *popular_names(self.works)]:
            self.by_prefix[tuple(name.normalized.split()[:2])].append(name)
            self.works_by_name[(name.kind, name.normalized)].add(name.work)

    def title(self, work: str) -> str | None:
        return self.source.title(work)

    def held(self, work: str) -> bool:
        return work in self.works

    def acts_dated(self, types: Iterable[str], day: dt.date) -> list[str]:
        """Held acts of one of ``types`` whose identifier carries ``day`` (sorted)."""
        return sorted({w for t in types for w in self.acts.get((t, day), ())})

    def acts_near(self, types: Iterable[str], day: dt.date, limit: int) -> list[str]:
        """Held acts of one of ``types`` from the same year, nearest date first (at most ``limit``)."""
        wanted = set(types)
        found = sorted((abs((d - day).days), w) for (t, d), works in self.acts.items()
                       if t in wanted and d.year == day.year for w in works)
        return list(dict.fromkeys(w for _, w in found))[:limit]


# --- dated citations ---------------------------------------------------------------------------

_S = r"[\s-]+"
#: Act forms of a dated citation (accent-folded) and the Legilux ELI types each names. A form
#: with no type ("règlement", "regulation", "directive", …) is detected — the turn then asks —
#: but never resolved: it does not say which kind of held act it is.
_CITATION_FORMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (rf"reglements?{_S}grand{_S}ducaux|reglements?{_S}grand{_S}ducal|grand{_S}ducal{_S}regulations?|"
     rf"gro(?:ss|ß)herzogliche[nrs]?{_S}verordnung(?:en)?", ("rgd",)),
    (rf"arretes?{_S}grand{_S}ducaux|arretes?{_S}grand{_S}ducal|grand{_S}ducal{_S}(?:decrees?|orders?)|"
     rf"gro(?:ss|ß)herzogliche[nrs]?{_S}beschlu(?:ss|ß)(?:es)?", ("agd",)),
    (rf"reglements?{_S}ministeriels?|ministerial{_S}regulations?|ministerielle[nrs]?{_S}verordnung(?:en)?",
     ("rmin",)),
    (rf"arretes?{_S}ministeriels?|ministerial{_S}(?:decrees?|orders?)", ("amin",)),
    (r"lois?|laws?|acts?|statutes?|gesetz(?:es|e)?", ("loi",)),
    (r"ordonnances?", ("ord",)),
    (r"reglements?|arretes?|decrets?|regulations?|verordnung(?:en)?|directives?|richtlinien?|decisions?|"
     r"beschlu(?:ss|ß)(?:es)?|ordinances?|decrees?", ()),
)
_MONTH_NAMES = "|".join(sorted(MONTH_WORDS, key=len, reverse=True))
_CITATION = re.compile(
    r"(?<![\w])(?P<form>" + "|".join(form for form, _ in _CITATION_FORMS) + r")"
    r"(?:,?\s+(?:modifiee?s?|amended|as\s+amended|coordonnee?s?|geandert(?:e[nrs]?)?),?)?"
    r"\s+(?:du|of|vom|dated|en\s+date\s+du)\s+(?:the\s+)?(?:"
    r"(?P<d1>\d{1,2})(?:er|re|st|nd|rd|th|\.)?\s+(?:of\s+)?(?P<m1>" + _MONTH_NAMES + r")\.?,?\s+(?P<y1>\d{4})|"
    r"(?P<m2>" + _MONTH_NAMES + r")\.?\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{4})|"
    r"(?P<d3>\d{1,2})[./ ](?P<m3>\d{1,2})[./ ](?P<y3>\d{4})|"
    r"(?P<y4>\d{4})-(?P<m4>\d{2})-(?P<d4>\d{2}))(?![\w/])")


@dataclass(frozen=True)
class Citation:
    """An act named by its form and day in the reader's words ("la loi du 17 décembre 1925")."""

    words: str
    types: tuple[str, ...]
    day: dt.date | None


def read_citations(text: str) -> list[Citation]:
    """Every dated citation of ``text`` with the reader's exact words (an impossible day: ``None``)."""
    folded = fold_keep(text)
    out: list[Citation] = []
    for match in _CITATION.finditer(folded):
        form = match.group("form")
        types = next(t for pattern, t in _CITATION_FORMS if re.fullmatch(pattern, form))
        groups = match.groupdict()
        index = next(i for i in "1234" if groups.get(f"y{i}"))
        raw_month = groups[f"m{index}"]
        month = MONTH_WORDS[raw_month] if raw_month in MONTH_WORDS else int(raw_month)
        try:
            day: dt.date | None = dt.date(int(groups[f"y{index}"]), month, int(groups[f"d{index}"]))
        except ValueError:
            day = None
        out.append(Citation(text[match.start():match.end()], types, day))
    return out


def citation_mentions(index: CatalogueIndex, raw: str, normalized_turn: str) -> list[Mention]:
    """Each dated citation as a mention of the held acts of its type and day (possibly none)."""
    out: list[Mention] = []
    for citation in read_citations(raw):
        spans = find_spans(normalized_turn, normalize(citation.words))
        works = index.acts_dated(citation.types, citation.day) if citation.day else []
        out.append(Mention(citation.words, "dated_citation", frozenset(works), spans[0] if spans else (0, 0),
                           citation))
    return out


def _name_eligible(name: WorkName, normalized_turn: str) -> bool:
    words = name.normalized.split()
    if name.normalized == normalized_turn or name.kind == "identifier":
        return True
    if name.kind == "short_title":
        return len(words) >= 2 or len(words[0]) >= 3
    if name.kind == "title":
        has_digit = any(ch.isdigit() for ch in name.normalized)
        return len(words) >= 2 and (has_digit or words[0] in ACT_FORMS)
    return len(words) >= 1 and len(name.normalized) >= 3


def scan_names(index: CatalogueIndex, normalized_turn: str) -> list[Mention]:
    """Every held name found word-bounded in the turn, one mention per (kind, span)."""
    words = normalized_turn.split()
    found: dict[tuple[str, tuple[int, int]], set[str]] = defaultdict(set)
    for start, word in enumerate(words):
        candidates = [*index.by_prefix.get((word,), ()), *index.by_prefix.get(tuple(words[start:start + 2]), ())]
        for name in candidates:
            size = len(name.normalized.split())
            if words[start:start + size] == name.normalized.split() and _name_eligible(name, normalized_turn):
                found[(name.kind, (start, start + size))].add(name.work)
    return [Mention(" ".join(words[s:e]), kind, frozenset(works), (s, e))
            for (kind, (s, e)), works in sorted(found.items(), key=lambda kv: kv[0][1])]


def _eu_candidates(kind_word: str | None, first: str, second: str) -> list[str]:
    a, b = int(first), int(second)
    pairs = []
    if len(first) == 4 and 1950 <= a <= 2099:
        pairs.append((a, b))
    if len(second) == 4 and 1950 <= b <= 2099:
        pairs.append((b, a))
    if len(first) == 2 and not pairs:
        pairs.append((1900 + a if a > 50 else 2000 + a, b))
    kinds = [_EU_KIND.get(normalize(kind_word), "")] if kind_word else ["R", "L", "D"]
    return [f"{EURLEX_ID}:3{year}{k}{number:04d}".lower() for year, number in pairs for k in kinds if k]


def identifier_mentions(index: CatalogueIndex, raw: str, normalized_turn: str) -> list[Mention]:
    """Identifiers parsed from the raw turn; an unheld one is kept with no works (unresolved)."""
    out: list[Mention] = []

    def add(text: str, works: Iterable[str]) -> None:
        spans = find_spans(normalized_turn, normalize(text))
        span = spans[0] if spans else (0, 0)
        out.append(Mention(text, "identifier", frozenset(w for w in works if index.held(w)), span))

    for lex in lex_ids_in_text(raw):
        add(lex.text.split("#", 1)[0], [lex.work])
    urls = [(m.span(), url_identifier(m.group(0))) for m in URL_IN_TEXT.finditer(raw)]
    for start, end, celex in celex_numbers(raw):
        if not any(s <= start and end <= e for (s, e), _ in urls):  # a URL's CELEX is the URL's
            add(celex, [f"{EURLEX_ID}:{celex_to_slug(celex)}"])
    for _span, ident in urls:
        if ident is not None:
            works = ident.works
            add(ident.text, [next((w for w in works if index.held(w)), works[0])])
    for match in _EU_NUMBER.finditer(raw):
        add(match.group(0), _eu_candidates(match.group(1), match.group(2), match.group(3)))
    covered = {m.span for m in out}
    for match in _EU_BARE_NUMBER.finditer(raw):
        spans = find_spans(normalized_turn, normalize(match.group(0)))
        if spans and not any(_inside(spans[0], c) for c in covered):
            add(match.group(0), _eu_candidates(None, match.group(1), match.group(2)))
    return out


def _inside(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer != (0, 0)


def article_number(normalized_turn: str) -> str | None:
    """The article a turn names (``article 6``, ``art 1er``, ``article 42 bis``)."""
    match = _ARTICLE.search(normalized_turn)
    if not match:
        return None
    value = match.group(1)
    return "1er" if value == "premier" else value


def cites_instrument_by_date(text: str) -> bool:
    """Whether the turn names an act by its form and date ("loi du 5 avril 1993")."""
    return bool(read_citations(text))


def exact_lex_ids(raw: str) -> dict[str, str]:
    """Full version keys literally present in the turn, by work."""
    out: dict[str, str] = {}
    for lex in lex_ids_in_text(raw):
        if lex.version_key:
            out.setdefault(lex.work, f"{lex.work}:{lex.version_key.lower()}")
    return out


def is_anaphoric(normalized_turn: str) -> bool:
    padded = f" {normalized_turn} "
    return any(marker in padded for marker in ANAPHORA)


def confirmed_work(raw: str, index: CatalogueIndex) -> str | None:
    """A clarification menu click (``Clarification choice: <work>``) or a bare held work key."""
    text = raw.strip()
    if text.startswith(CHOICE_PREFIX):
        text = text[len(CHOICE_PREFIX):].strip()
    text = text.lower()
    return text if ":" in text and index.held(text) else None


# --- the subject rule ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    span: tuple[int, int]
    works: frozenset[str]
    kinds: frozenset[str]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """The rule's verdict: chosen works (one, or a compound list), runner-up, or a menu."""

    works: tuple[str, ...]
    reason: str
    runner_up: str | None = None
    ordered: tuple[str, ...] = ()


def _spans(mentions: Sequence[Mention]) -> list[_Span]:
    grouped: dict[tuple[int, int], list[Mention]] = defaultdict(list)
    for mention in mentions:
        if mention.kind in AUTHORISING_KINDS and mention.works and mention.span != (0, 0):
            grouped[mention.span].append(mention)
    return [
        _Span(span, frozenset().union(*(m.works for m in ms)), frozenset(m.kind for m in ms),
              tuple(dict.fromkeys(m.text for m in ms)))
        for span, ms in sorted(grouped.items())
    ]


def _ordered(spans: Sequence[_Span], works: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for item in spans:
        out.extend(sorted(w for w in item.works if w not in out))
    out.extend(sorted(w for w in works if w not in out))
    return tuple(out)


def _contains(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    return outer[0] <= inner[0] and inner[1] <= outer[1] and outer != inner


def _containment(spans: Sequence[_Span]) -> _Span | None:
    if len(spans) < 2:
        return None
    containers = [s for s in spans if all(o is s or _contains(s.span, o.span) for o in spans)]
    if len(containers) == 1 and len(containers[0].works) == 1:
        return containers[0]
    return None


def _demoted(span: _Span, words: Sequence[str]) -> bool:
    window = words[max(0, span.span[0] - 3):span.span[0]]
    return any(w in DEMOTING_WORDS for w in window)


def decide(spans: Sequence[_Span], normalized_turn: str) -> Decision:
    """Containment, then trailing-clause demotion, then title over identifier, then compound."""
    works = frozenset().union(*(s.works for s in spans)) if spans else frozenset()
    ordered = _ordered(spans, works)
    if len(works) == 1:
        return Decision(tuple(works), "single", ordered=ordered)
    container = _containment(spans)
    if container is not None:
        return _decided(next(iter(container.works)), "contained", ordered)
    words = normalized_turn.split()
    kept = [s for s in spans if not _demoted(s, words)]
    kept_works = frozenset().union(*(s.works for s in kept)) if kept else frozenset()
    if len(kept_works) == 1 and len(kept) < len(spans) and kept[0] is spans[0]:
        return _decided(next(iter(kept_works)), "demoted", ordered)
    titled = [s for s in spans if s.kinds & {"title", "short_title"}]
    if len(titled) == 1 and len(titled[0].works) == 1 and all(
            s.kinds == {"identifier"} for s in spans if s is not titled[0]):
        return _decided(next(iter(titled[0].works)), "title_over_identifier", ordered)
    if all(len(s.works) == 1 for s in spans):
        return Decision(ordered[:MAX_SUBJECTS], "compound", ordered=ordered)
    return Decision((), "undecided", ordered=ordered)


def _decided(work: str, reason: str, ordered: Sequence[str]) -> Decision:
    runner_up = next((w for w in ordered if w != work), None)
    return Decision((work,), reason, runner_up, tuple(ordered))


# --- the preflight --------------------------------------------------------------------------

_TEXTS = {
    "en": {
        "ambiguous": "Your wording matches more than one held instrument. Which one should Lex use?",
        "short_title": "The official publisher short title you used identifies several held "
                       "instruments. Which one should Lex use?",
        "unresolved": "Lex could not match that name to a held instrument. Give an official "
                      "title, identifier, or CELEX number.",
        "none": "None of these; I will add more details",
    },
    "fr": {
        "ambiguous": "Votre formulation correspond à plusieurs instruments détenus. "
                     "Lequel Lex doit-il utiliser ?",
        "short_title": "Le titre court officiel utilisé désigne plusieurs instruments détenus. "
                       "Lequel Lex doit-il utiliser ?",
        "unresolved": "Lex n'a pas pu rattacher ce nom à un instrument détenu. Indiquez un titre "
                      "officiel, un identifiant ou un numéro CELEX.",
        "none": "Aucun de ceux-ci ; je vais préciser",
    },
}


_CITATION_TEXTS = {
    "en": {
        "ambiguous": 'Several held acts ({count}) match "{words}" (type {kind}, dated {day}). '
                     "Which one should Lex use?",
        "unresolved": 'No held act matches "{words}" (type {kind}, dated {day}).',
        "near": " The choices are held acts of that type from {year}, nearest date first.",
        "ask": " Which one should Lex use?",
        "give": " Give an official title, identifier or ELI.",
        "untyped": 'Lex cannot tell which kind of held act "{words}" is (a date alone never selects an act). '
                   "Give an official title, identifier, ELI or CELEX number.",
        "impossible": 'The date in "{words}" does not exist. Give an official title, identifier or ELI.',
    },
    "fr": {
        "ambiguous": "Plusieurs actes détenus ({count}) correspondent à « {words} » (type {kind}, daté du "
                     "{day}). Lequel Lex doit-il utiliser ?",
        "unresolved": "Aucun acte détenu ne correspond à « {words} » (type {kind}, daté du {day}).",
        "near": " Les choix sont les actes détenus de ce type de {year}, de la date la plus proche à la "
                "plus lointaine.",
        "ask": " Lequel Lex doit-il utiliser ?",
        "give": " Indiquez un titre officiel, un identifiant ou un ELI.",
        "untyped": "Lex ne peut pas dire quel type d'acte détenu est « {words} » (une date seule ne désigne "
                   "jamais un acte). Indiquez un titre officiel, un identifiant, un ELI ou un numéro CELEX.",
        "impossible": "La date de « {words} » n'existe pas. Indiquez un titre officiel, un identifiant ou un ELI.",
    },
}


def citation_trace(citation: Citation, works: Sequence[str]) -> dict[str, Any]:
    """A dated citation as the trace records it: the reader's words, type, day and matches."""
    return {"words": citation.words, "types": list(citation.types),
            "day": citation.day.isoformat() if citation.day else None, "works": list(works)}


def citation_clarification(index: CatalogueIndex, citation: Citation, works: Sequence[str], locale: str,
                           status: str) -> SubjectClarification:
    """The question a dated citation asks when it matches several held acts, or none."""
    texts = _CITATION_TEXTS.get(locale, _CITATION_TEXTS["en"])
    none = _TEXTS.get(locale, _TEXTS["en"])["none"]
    if citation.day is None:
        return SubjectClarification(texts["impossible"].format(words=citation.words), (), status)
    if not citation.types:
        return SubjectClarification(texts["untyped"].format(words=citation.words), (), status)
    fields = {"words": citation.words, "kind": "/".join(citation.types), "day": citation.day.isoformat(),
              "count": len(works), "year": citation.day.year}
    if status == "ambiguous":
        question = texts["ambiguous"].format(**fields)
    else:
        question = texts["unresolved"].format(**fields) + (
            texts["near"].format(**fields) + texts["ask"] if works else texts["give"])
    choices = [Choice(choice_label(w, index.title(w)), CHOICE_PREFIX + w) for w in works[:MENU_WORKS]]
    if choices:
        choices.append(Choice(none, NONE_OF_THESE))
    return SubjectClarification(question, tuple(choices), status)


def choice_label(work: str, title: str | None) -> str:
    """A menu label of at most 100 characters that always ends with the work key."""
    suffix = f" [k: {work[:28]}]"
    room = 100 - len(suffix)
    text = (title or work).strip()
    clause = re.split(r"[,;]", text, maxsplit=1)[0].strip()
    if len(text) > room:
        text = clause if 0 < len(clause) <= room else text[:room - 3].rsplit(" ", 1)[0] + "..."
    return text + suffix


def clarification_for(index: CatalogueIndex, works: Sequence[str], key: str, locale: str,
                      status: str) -> SubjectClarification:
    texts = _TEXTS.get(locale, _TEXTS["en"])
    choices = [Choice(choice_label(w, index.title(w)), CHOICE_PREFIX + w) for w in works[:MENU_WORKS]]
    if choices:
        choices.append(Choice(texts["none"], NONE_OF_THESE))
    return SubjectClarification(texts[key], tuple(choices), status)


def _member(index: CatalogueIndex, work: str, mentions: Sequence[Mention], source: str,
            lex_ids: Mapping[str, str]) -> SubjectMember:
    texts = tuple(dict.fromkeys(m.text for m in mentions if work in m.works))
    citation = next((m.citation for m in mentions if m.citation is not None and m.works == {work}), None)
    return SubjectMember(work, index.title(work), texts, source, lex_ids.get(work),
                         citation if source == "dated_citation" else None)


def _carried(context: Mapping[str, Any] | None, index: CatalogueIndex,
             article: str | None) -> SubjectAuthority | None:
    if not context:
        return None
    members = []
    for item in context.get("members") or []:
        work = str(item.get("work") or "")
        lex_id = item.get("exact_lex_id")
        if not index.held(work) or (lex_id and not str(lex_id).startswith(work + ":")):
            return None
        members.append(SubjectMember(work, index.title(work), (), "carried",
                                     str(lex_id) if lex_id else None))
    if not 1 <= len(members) <= MAX_SUBJECTS or len({m.work for m in members}) != len(members):
        return None
    stored = context.get("article_number")
    return SubjectAuthority(tuple(members), article or (str(stored) if stored else None),
                            status="carried")


def resolve_subject(index: CatalogueIndex, raw: str, locale: str, *,
                    context: Mapping[str, Any] | None = None,
                    previous_turn: str | None = None) -> Preflight:
    """The preflight over the current turn (and the carried context for anaphora)."""
    normalized_turn = normalize(raw)
    article = article_number(normalized_turn)
    confirmed = confirmed_work(raw, index)
    if confirmed is not None:
        previous_article = article_number(normalize(previous_turn or ""))
        member = SubjectMember(confirmed, index.title(confirmed), (), "confirmation")
        return _authority(SubjectAuthority((member,), previous_article, status="confirmed"))
    mentions = (identifier_mentions(index, raw, normalized_turn) + scan_names(index, normalized_turn)
                + citation_mentions(index, raw, normalized_turn))
    spans = _spans(mentions)
    if not spans and is_anaphoric(normalized_turn):
        carried = _carried(context, index, article)
        if carried is not None:
            return _authority(carried)
    lex_ids = exact_lex_ids(raw)
    if spans:
        return _from_spans(index, spans, mentions, normalized_turn, article, locale, lex_ids)
    return _without_authority(index, mentions, normalized_turn, locale)


def _from_spans(index: CatalogueIndex, spans: Sequence[_Span], mentions: Sequence[Mention],
                normalized_turn: str, article: str | None, locale: str,
                lex_ids: Mapping[str, str]) -> Preflight:
    decision = decide(spans, normalized_turn)
    if not decision.works:
        several = next((m for m in mentions if m.citation is not None and len(m.works) > 1
                        and any(s.span == m.span and s.kinds == {"dated_citation"} for s in spans)), None)
        if several is not None and several.citation is not None:
            return _clarify(citation_clarification(index, several.citation, decision.ordered, locale,
                                                   "ambiguous"), decision, several)
        key = "short_title" if any(s.kinds == {"short_title"} and len(s.works) > 1 for s in spans) \
            else "ambiguous"
        return _clarify(clarification_for(index, decision.ordered, key, locale, "ambiguous"), decision)
    members = tuple(_member(index, w, mentions, _source(spans, w), lex_ids) for w in decision.works)
    disclosure = None
    if decision.runner_up:
        disclosure = Disclosure(decision.runner_up, index.title(decision.runner_up))
    return _authority(SubjectAuthority(members, article, disclosure, status=decision.reason))


def _source(spans: Sequence[_Span], work: str) -> str:
    """The strongest kind of name that authorised ``work``: identifier, title, short title,
    dated citation."""
    kinds = {k for s in spans if work in s.works for k in s.kinds}
    return next((k for k in AUTHORISING_KINDS if k in kinds), "identifier")


def _without_authority(index: CatalogueIndex, mentions: Sequence[Mention], normalized_turn: str,
                       locale: str) -> Preflight:
    aliases = sorted({w for m in mentions if m.kind == "alias" for w in m.works})
    if aliases:
        return _clarify(clarification_for(index, aliases, "ambiguous", locale, "ambiguous"), None)
    unresolved = any(m.kind == "identifier" and not m.works for m in mentions)
    cited = next((m for m in mentions if m.citation is not None), None)
    if cited is not None and cited.citation is not None and not unresolved:
        citation = cited.citation
        near = index.acts_near(citation.types, citation.day, MENU_WORKS) if citation.day else []
        return _clarify(citation_clarification(index, citation, near, locale, "unresolved"), None, cited)
    if unresolved:
        return _clarify(clarification_for(index, [], "unresolved", locale, "unresolved"), None)
    return Preflight(None, None, {"phase": "subject_resolution", "status": "none"})


def _authority(authority: SubjectAuthority) -> Preflight:
    trace: dict[str, Any] = {
        "phase": "subject_resolution", "status": authority.status,
        "works": [m.work for m in authority.members],
        "sources": [m.source for m in authority.members],
        "article_number": authority.article_number,
    }
    if authority.disclosure:
        trace["runner_up"] = authority.disclosure.runner_up_work
    cited = [m for m in authority.members if m.citation is not None]
    if cited:
        trace["citations"] = [citation_trace(m.citation, [m.work]) for m in cited if m.citation]
    return Preflight(authority, None, trace)


def _clarify(clarification: SubjectClarification, decision: Decision | None,
            citation: Mention | None = None) -> Preflight:
    trace: dict[str, Any] = {"phase": "subject_resolution", "status": clarification.status,
                             "choices": [c.value for c in clarification.choices]}
    if citation is not None and citation.citation is not None:
        trace["citations"] = [citation_trace(citation.citation, sorted(citation.works))]
    if decision is not None:
        trace["ordered"] = list(decision.ordered)
    return Preflight(None, clarification, trace)
