"""The index's alias lexicon: names a lawyer uses for a work that are not its identifier.

Built at index time (:func:`alias_names`, called for every work by :mod:`derive.index.rows`)
and stored as ``work_names`` rows of kind ``alias``, so the serving catalogue resolves them as
it resolves short titles. Two sources, both from the publisher's own metadata or a reviewed file:

- **Popular names in official titles**: EUR-Lex titles name the act in a closing parenthesis
  (``… (General Data Protection Regulation) (Text with EEA relevance)``). The *last* name-like
  parenthesis of a title is an alias of the work when it is not an editorial note (EEA text,
  recast, codification, consolidated version), holds a letter and no digit, is 3..80
  characters, and does not directly follow another act's number (``… supplementing Regulation
  (EU) 2022/2065 (Digital Services Act)`` names the supplemented act, not this one), unless that
  act is the one it repeals (``… and repealing Directive 95/46/EC (General Data Protection
  Regulation)`` names the repealing act itself). Only works
  that are not delegated, implementing or corrigenda get them. A Legilux title is read only in its
  own clause (:func:`own_clause`): after ``Version consolidée applicable au …:`` and before the
  acts it amends, transposes or executes (``… et portant modification de la loi modifiée du 15 juin
  2004 relative à la SICAR (SICAR)`` names the act amended, not this one), plus a label after the
  title's closing full stop (``… sur le revenu. (Imposition forfaitaire du personnel de ménage)``).
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


def title_popular_name(title: str) -> str | None:
    """The popular name a title gives its own act in a closing parenthesis, or ``None``."""
    found = None
    for match in _PAREN.finditer(title):
        inner = match.group(1).strip().strip("'\"‘’«»“” ").strip()
        if _EDITORIAL.search(inner) or any(ch.isdigit() for ch in inner) or not any(ch.isalpha() for ch in inner):
            continue
        before = _ACT_NUMBER_BEFORE.search(title[:match.start()])
        if before and not _REPEALING.search(title[:before.start()]):
            continue
        found = inner
    if found is None or len(found) < 3:
        return None
    return re.sub(r"^(?:the|le|la|les|l’|l')\s*", "", found, flags=re.IGNORECASE).strip() or None


def own_clause(title: str) -> str:
    """A Legilux title's own clause: no consolidation prefix, nothing from the first amended act on."""
    head = _LU_CONSOLIDATED.sub("", title)
    end = _LU_CLAUSE_END.search(head)
    label = _LU_LABEL.search(head)
    clause = head[:end.start()] if end else head
    return f"{clause} {label.group(1)}" if end and label else clause


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
