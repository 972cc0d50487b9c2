"""The index's alias lexicon: names a lawyer uses for a work that are not its identifier.

Built at index time (:func:`alias_names`, called for every work by :mod:`derive.index.rows`)
and stored as ``work_names`` rows of kind ``alias``, so the serving catalogue resolves them as
it resolves short titles. Two sources, both from the publisher's own metadata or a reviewed file:

- **Popular names in official titles** (:func:`title_popular_name`): EUR-Lex titles name the act in a
  parenthesis (``… (General Data Protection Regulation) (Text with EEA relevance)``). The *last* name-like
  parenthesis of a title is an alias of the work when it is not an editorial note (EEA text, recast,
  codification, consolidated version), holds a letter and no digit, is 3..80 characters, and is a name at all
  (:func:`_is_name`: not an instrument marker such as ``(EEC)``, a gloss, a part word, a body's name, or part of
  an act number). Before the title starts citing other acts (:func:`_cited_from`: its first amending,
  supplementing, repealing… verb or another act's number) it names the act itself unless it says another kind of
  instrument; past that point too, unless it directly follows a cited act's number (``… supplementing
  Regulation (EU) 2022/2065 (Digital Services Act)``) and is not the title's own name on the conditions of
  :func:`_owns_cited_name` (``… and repealing Directive 95/46/EC (General Data Protection Regulation)``). A cited
  act's name further on (``… amending Directive 2009/138/EC on … (Solvency II), Directive 2014/65/EU …``) is kept:
  the search orders the holders of a shared name, the act in force first and the citing acts last, as the judged
  answers list them (ADR 0146). Only works that are not delegated, implementing or corrigenda get them. A Legilux title is read only in
  its own clause (:func:`own_clause`): after ``Version consolidée applicable au …:`` and before the acts it
  amends, transposes or executes (``… et portant modification de la loi modifiée du 15 juin 2004 relative à la
  SICAR (SICAR)`` names the act amended, not this one), plus a label after the title's closing full stop
  (``… sur le revenu. (Imposition forfaitaire du personnel de ménage)``).
- **Publisher short titles** (kind ``publisher_short_title``, :mod:`derive.index.catalogue`) are kept only when
  they name the work (:func:`own_names`, :func:`own_short_title`): not one of another kind of instrument than the
  work's titles (``règlement Bruxelles II ter`` on a directive). An amending act's short title naming the act it
  amends (``CRD`` on Directive 2009/111/EC) is kept, as a title's cited name is.
- **The reviewed file** :data:`LEXICON_PATH` (``aliases.json``): abbreviations and popular names
  in EN, FR and DE (``DSGVO``, ``RGPD``, ``MiFID II``, ``loi AML``), one work each, each with its
  source. A name of a work the publisher does not hold is ignored. Which acts get names (the most
  cited principal acts, the Luxembourg codes, the best-known EU acts) is in ``docs/search.md``.

Guards on the query side (:mod:`serve.core.searchplan`): an alias fires only as a whole phrase
of the query (token n-grams, never a substring), and a name that is frequent in the corpus text
(an ordinary phrase such as ``code du travail`` inside other laws) does not restrict the search
to its work when the query says more than the name; a publisher short title of plain words that is
such a phrase does not, even alone, suppress the other publisher (``searchplan.ordinary_words``).

Overlap: ``assistant/popular_names.json`` holds a few of the same names for the assistant's
preflight; this file is the index-level lexicon.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from derive.index.catalogue import Name
from derive.index.text import normalize
from legal.errors import IndexError_

LEXICON_PATH = Path(__file__).with_name("aliases.json")
LEXICON_SCHEMA = "lex-index-aliases/1"
_PAREN = re.compile(r"\(([^()]{3,80})\)")
_EDITORIAL = re.compile(
    r"text with eea|texte pr[ée]sentant|text von bedeutung|eea relevance|recast|refonte|neufassung|codifi|kodifiz|"
    r"consolidat|konsolid|version|fassung|texte|text\b|notified under|notifi[ée]e sous|bekannt gegeben",
    re.IGNORECASE)
_ACT_NUMBER_BEFORE = re.compile(r"(\d{2,4}/\d+(/[A-Z]{2,4})?|No \d+/\d{4}|n[o°] \d+/\d{4}|Nr\. \d+/\d{4})\s*$")
_REPEALING = re.compile(r"(repealing|abrogeant|aufhebung)[^,;()]{0,30}$", re.IGNORECASE)
_NO_POPULAR_TYPES = ("_DEL", "_IMPL", "CORRIGENDUM")
_TYPE_WORDS = {"regulation": "R", "regulations": "R", "règlement": "R", "règlements": "R", "reglement": "R",
               "verordnung": "R", "directive": "L", "directives": "L", "richtlinie": "L", "decision": "D",
               "décision": "D", "beschluss": "D"}
_OWN_TYPE = re.compile(r"^\W*(?:[\w'’-]+\s+){0,4}?(regulation|règlement|verordnung|directive|richtlinie|decision|décision|"
                       r"beschluss)\b", re.IGNORECASE)
# An act number (``2016/679``, ``No 1024/2012``, ``2009/138/EC``, ``n° 44/2001``).
_ACT_NUMBER = re.compile(r"\b\d{2,4}/\d+(?:/[A-Z]{2,4})?\b")
_OWN_NUMBER_WITHIN = 80
# A closing note outside parentheses (``…  Text with EEA relevance``) is no more than this long.
_EDITORIAL_TAIL = 60
_CITING = re.compile(
    r"\b(?:amending|supplementing|implementing|repealing|correcting|replacing|adapting|"
    r"laying\s+down\s+detailed\s+rules\s+for\s+the\s+application\s+of|"
    r"modifiant|compl[ée]tant|rectifiant|abrogeant|rempla[çc]ant|portant\s+(?:modalit[ée]s\s+d['’]\s*)?application|"
    r"portant\s+(?:modification|ex[ée]cution|abrogation)|zur\s+(?:[Äa]nderung|Erg[äa]nzung|Aufhebung|Durchf[üu]hrung))\b",
    re.IGNORECASE)
# ``(EEC)``, ``(EC, Euratom)``: the treaty marker of an act number, never a name.
_MARKER = re.compile(r"(?:EEC|EC|EU|CEE|CE|UE|EWG|EG|Euratom|ECSC|CECA|EGKS|EAG|CEEA)"
                     r"(?:\s*[,/]\s*(?:EEC|EC|EU|CEE|CE|UE|EWG|EG|Euratom|ECSC|CECA|EGKS|EAG|CEEA))*", re.IGNORECASE)
_NUMBER_AFTER = re.compile(r"\s*(?:No|n[o°º]|Nr\.?)?\s*\.?\s*\d")
_GLOSS = re.compile(r"(?:including|i\.\s?e\.|e\.\s?g\.|see|namely|y\s+compris|actuellement|notamment|voir|c\.-à-d|"
                    r"einschließlich|siehe)\b", re.IGNORECASE)
_PART = re.compile(r"(?:annexes?|annex|anhang|anh[äa]nge|intitul[ée]\s+abr[ée]g[ée]|texte\s+coordonn[ée])",
                   re.IGNORECASE)
# A body's name (``European Securities and Markets Authority``, ``Office for Harmonization …``) names the body,
# not an act, even the act establishing it.
_BODY = re.compile(r"\b(?:authority|agency|office|committee|board|platform|autorit[ée]|agence|office|comit[ée]|"
                   r"beh[öo]rde|agentur|amt|ausschuss)\b", re.IGNORECASE)
# A subject clause of the act's own after the acts it amends (``… 2023/1230 as regards the simplification …``).
_OWN_SUBJECT = re.compile(r"\b(?:as\s+regards|en\s+ce\s+qui\s+concerne|hinsichtlich|im\s+hinblick\s+auf)\b",
                          re.IGNORECASE)
# A Legilux title's own clause ends where it starts listing the acts it amends, repeals or transposes
# (``… et portant modification de - la loi modifiée du 15 juin 2004 relative à la SICAR``): a parenthesis
# past that point names another act, not this one.
_LU_CONSOLIDATED = re.compile(r"^\s*version\s+(?:consolid|rectifi)\S*\s+applicable\s+au\s+[^:]{1,40}:\s*", re.IGNORECASE)
_LU_CLAUSE_END = re.compile(
    r"\n|:|\s[-–]\s|\b1°|\b1\)|\b(?:et\s+)?portant\s+(?:\S+\s+)?(?:modification|transposition|abrogation|mise\s+en\s+[œo]e?uvre|"
    r"ex[ée]cution|approbation)|\b(?:et\s+)?(?:modifiant|abrogeant|transposant|compl[ée]tant)\b|"
    r"\b(?:de\s+la|à\s+la|la)\s+loi\s+(?:modifi[ée]e\s+)?du\b|\b(?:du|le)\s+r[èe]glement\s+(?:grand-ducal|\(|d['’]ex)",
    re.IGNORECASE)
# ``Règlement grand-ducal … portant exécution de l'article 137 de la loi … . (Imposition forfaitaire du personnel
# de ménage)``: a parenthesis after the title's closing full stop is the publisher's label of the act itself.
_LU_LABEL = re.compile(r"\.\s*(\([^()]{3,80}\))\.?\s*$")


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> tuple[tuple[str, str, str, str], ...]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise IndexError_(f"the reviewed alias lexicon cannot be read: {error}", code="invalid_lexicon",
                          subject=path.name) from error
    if not isinstance(data, dict) or data.get("schema") != LEXICON_SCHEMA:
        raise IndexError_(f"the reviewed alias lexicon's schema must be {LEXICON_SCHEMA}", code="invalid_lexicon",
                          subject=path.name)
    out = []
    for item in data.get("aliases") or []:
        alias, work, language, source = (str(item.get(k) or "").strip() for k in ("alias", "work", "language", "source"))
        if not alias or ":" not in work or not source:
            raise IndexError_("every alias entry needs alias, work (publisher:slug), language and source",
                              code="invalid_lexicon", subject=f"{path.name}: {alias or work or '?'}")
        out.append((work, alias, language, source))
    return tuple(out)


def reviewed(path: Path = LEXICON_PATH) -> dict[str, list[tuple[str, str]]]:
    """``lex work id → [(alias, language)]`` from the reviewed file."""
    out: dict[str, list[tuple[str, str]]] = {}
    for work, alias, language, _source in _load(path):
        out.setdefault(work, []).append((alias, language))
    return out


def lexicon_digest(path: Path = LEXICON_PATH) -> str:
    """SHA-256 of the reviewed file (part of every work's build inputs: a new alias rebuilds)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _instrument_type(text: str) -> set[str]:
    """The kinds of instrument (``R`` regulation, ``L`` directive, ``D`` decision) the words of ``text`` name."""
    return {_TYPE_WORDS[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in _TYPE_WORDS}


def _own_type(title: str) -> str | None:
    """The kind of instrument a title opens with (``Commission Regulation (EU) …`` → ``R``), or ``None``."""
    match = _OWN_TYPE.match(title)
    return _TYPE_WORDS[match.group(1).lower()] if match else None


def _cited_from(title: str) -> int:
    """Where a title starts citing other acts: its first amending/supplementing/repealing… verb or the first
    act number after its own (``len(title)`` when it cites none)."""
    numbers = list(_ACT_NUMBER.finditer(title))
    own = numbers[0] if numbers and numbers[0].start() < _OWN_NUMBER_WITHIN else None
    own_end = own.end() if own else 0
    starts = [m.start() for m in numbers if m is not own]
    starts += [m.start() for m in _CITING.finditer(title, own_end)]
    return min(starts, default=len(title))


def _is_name(inner: str, title: str, match: re.Match[str]) -> bool:
    """Whether one parenthesis could be a name of an act at all: not an editorial note, a gloss, an instrument
    marker (``(EEC)``), part of an act number, a generic part word (``(annexes)``, ``(intitulé abrégé)``) or a
    body's name (``establishing a European Supervisory Authority (European Securities and Markets Authority)``:
    the authority's name, whose acronym a question asks about the authority, not the act establishing it)."""
    if _EDITORIAL.search(inner) or any(ch.isdigit() for ch in inner) or not any(ch.isalpha() for ch in inner):
        return False
    if _GLOSS.match(inner) or _MARKER.fullmatch(inner) or _PART.fullmatch(inner) or _BODY.search(inner):
        return False
    return not _NUMBER_AFTER.match(title, match.end())


def _owns_cited_name(inner: str, title: str, match: re.Match[str], own_type: str | None) -> bool:
    """Whether a parenthesis past the start of a title's cited acts still names the title's own act: only as the
    title's closing name (nothing but editorial notes after it), and then only when it says the act's own kind
    (``… amending Directive 84/450/EEC … ('Unfair Commercial Practices Directive')``), or says no kind and either
    closes a subject clause of the act's own (``… amending Regulations (EU) 2024/1689 …
    as regards the simplification … (Digital Omnibus on AI)``) or directly follows the act it repeals."""
    rest = _PAREN.sub(lambda m: "" if _EDITORIAL.search(m.group(1)) else m.group(0), title[match.end():])
    rest = rest.strip(" .;,'\"‘’«»“”\u00a0")
    if rest and not (_EDITORIAL.search(rest) and len(rest) <= _EDITORIAL_TAIL):
        return False  # a name inside the list of cited acts (``… 2009/138/EC on … (Solvency II), Directive …``)
    kinds = _instrument_type(inner)
    if kinds:
        return own_type is not None and kinds == {own_type}
    head = title[:match.start()]
    before = _ACT_NUMBER_BEFORE.search(head)
    if before:
        return bool(_REPEALING.search(head[:before.start()]))
    ends = [m.end() for m in _ACT_NUMBER.finditer(head)]
    return bool(ends) and bool(_OWN_SUBJECT.search(head[ends[-1]:]))


def title_popular_name(title: str) -> str | None:
    """The popular name a title gives its own act in a parenthesis, or ``None``.

    The last name-like parenthesis (:func:`_is_name`) wins. Past the point where the title starts citing other
    acts (:func:`_cited_from`) one directly after a cited act's number is skipped unless it is the title's own
    name on the conditions of :func:`_owns_cited_name`; a cited act's name further on is kept (ADR 0146)."""
    found = None
    own_type = _own_type(title)
    cited = _cited_from(title)
    for match in _PAREN.finditer(title):
        inner = match.group(1).strip().strip("'\"‘’«»“” ").strip()
        if not _is_name(inner, title, match):
            continue
        if match.start() >= cited and not _owns_cited_name(inner, title, match, own_type):
            before = _ACT_NUMBER_BEFORE.search(title[:match.start()])
            if before and not _REPEALING.search(title[:before.start()]):
                continue
            # a cited act's name the title gives (``… amending Directive 2009/138/EC on … (Solvency II), …``) is
            # kept: the search lists the act that bears it after the act it names (``ambiguous_rows``)
        found = inner
    if found is None or len(found) < 3:
        return None
    return re.sub(r"^(?:the|le|la|les|l’|l')\s*", "", found, flags=re.IGNORECASE).strip() or None


def own_short_title(segment: str, titles: Iterable[str]) -> bool:
    """Whether one segment of a publisher short title names the work itself, judged on the work's titles.

    Not when it says another kind of instrument than the titles (``règlement Bruxelles II ter`` on a
    directive). An amending act's short title naming the act it amends (``CRD`` on Directive 2009/111/EC) is
    kept: the search orders the holders of a shared name (``ambiguous_rows``: the act in force first, the acts
    citing another holder last), which the judged answers list."""
    own = [t for t in titles if t]
    kinds = _instrument_type(segment)
    types = {t for t in (_own_type(title) for title in own) if t}
    return not kinds or not types or bool(kinds & types)


def own_clause(title: str) -> str:
    """A Legilux title's own clause: no consolidation prefix, nothing from the first amended act on."""
    head = _LU_CONSOLIDATED.sub("", title)
    end = _LU_CLAUSE_END.search(head)
    label = _LU_LABEL.search(head)
    clause = head[:end.start()] if end else head
    return f"{clause} {label.group(1)}" if end and label else clause


def own_names(names: Iterable[Name], expressions: Iterable[Mapping[str, Any]]) -> list[Name]:
    """``names`` without the publisher short titles that name another act than the work whose ``expressions``
    (their titles) are given (:func:`own_short_title`); other names pass unchanged."""
    titles = [str(e.get("title")) for e in expressions if isinstance(e.get("title"), str)]
    return [n for n in names if n.kind != "publisher_short_title" or own_short_title(n.value, titles)]


def alias_names(work: Mapping[str, Any], publisher: str, expressions: Iterable[Mapping[str, Any]]) -> list[Name]:
    """Alias names of one work: reviewed names and popular names of its official titles."""
    out: list[Name] = []
    lex_id = f"{publisher}:{work['slug']}"
    for alias, language in reviewed().get(lex_id, []):
        normalized = normalize(alias)
        if normalized:
            out.append(Name("alias", normalized, alias, language))
    document_type = str(work.get("document_type") or "").upper()
    if not any(document_type.endswith(t) for t in _NO_POPULAR_TYPES) and not str(work["slug"]).endswith(")"):
        for expr in expressions:
            title = expr.get("title")
            if isinstance(title, str) and publisher == "lu-legilux":
                title = own_clause(title)
            name = title_popular_name(title) if isinstance(title, str) else None
            normalized = normalize(name) if name else ""
            if name and normalized and len(normalized) >= 3:
                out.append(Name("alias", normalized, name, str(expr.get("language") or "")))
    return out
