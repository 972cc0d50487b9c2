"""The deterministic rule-based planner: serves typed questions when no model is configured.

It reads the reader's first sentence (later sentences and quoted notes are data, never
instructions), splits explicit compound requests ("…; then …", "… and then …", "… puis …"),
classifies each clause by keyword into one catalog operation, and writes the same plan
object a model would: tools, typed arguments and ``subject_ref`` refs only. Its output passes
the same gate, date provenance and freeze as a model's. Every reply it plans is labelled
``deterministic``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from assistant.datereader import DateMention
from assistant.planning import PlannerRequest, PlanningResult, gate_plan
from assistant.subjects import CHOICE_PREFIX, read_citations
from assistant.text import normalize
from assistant.untrusted import own_words
from legal.publishers import registry as publisher_registry

# A sentence ends at . ! ? — not after an ordinal day ("am 1. Januar") or "Art.".
_SENTENCE = re.compile(r"(?<=[.!?])(?<!\d\.)(?<![Aa]rt\.)(?<!No\.)\s+(?=\S)|\n\s*\n")
# Explicit compounds only: "; then", ", then", "and then", "puis"/"ensuite" as conjunctions,
# "und dann"/", dann". A bare adverbial "then" ("the text in force then") never splits.
_COMPOUND = re.compile(
    r"\s*(?:;\s*(?:and\s+)?(?:then\s+|puis\s+|ensuite\s+|dann\s+|danach\s+)?|,\s*(?:and\s+)?then\b|"
    r"\band\s+then\b|,?\s*\bet\s+(?:puis|ensuite)\b|,\s*(?:puis|ensuite)\b(?!\s*-?\s*je)|"
    r"\bpuis\b(?!\s*-?\s*je)(?=\s+\w+\s)|,?\s*\bund\s+(?:dann|danach)\b|,\s*(?:dann|danach)\b|"
    r"\band\s+also\b|\bas\s+well\s+as\b)\s*",
    re.IGNORECASE)

BOUNDARY = (
    # English
    "should i", "should we", "do i have to", "do i need to", "must i", "am i ", "are we ",
    "compliant", "comply", "legal advice", "advise", "recommend", "my company", "my employer",
    "my landlord", "my tenant", "my rent", "my boss", "my contract", "my lease", "can i ", "may i ",
    "how can i avoid", "how do i avoid", "evade", "loophole", "is it legal", "am i allowed",
    "can my", "can they", "sue ", "lawsuit", "my rights",
    # French
    "dois je", "devons nous", "suis je", "conseil juridique", "conforme", "puis je", "est ce que je",
    "mon employeur", "ma societe", "mon entreprise", "mon proprietaire", "mon bailleur", "mon locataire",
    "mon loyer", "mon bail", "mon patron", "mon contrat", "peut il ", "peut elle ", "ai je le droit",
    "ai je droit", "est ce legal", "est il legal", "est ce permis", "a t il le droit", "a t elle le droit",
    "que risque", "je risque", "suis je oblige", "mes droits", "attaquer en justice", "porter plainte",
    # German
    "muss ich", "darf ich", "kann ich", "soll ich", "sollte ich", "bin ich", "mein vermieter",
    "meine vermieterin", "meine miete", "mein mieter", "mein arbeitgeber", "mein chef", "mein vertrag",
    "darf mein", "darf meine", "ist es legal", "ist das legal", "ist es erlaubt", "rechtsberatung",
    "rechtlich beraten", "meine rechte", "verklagen",
)
COVERAGE = ("coverage", "couverture", "what do you hold", "what does lex hold", "which publishers",
            "what corpus", "quelles sources", "what is held", "corpus held", "sources loaded",
            "loaded sources", "which sources", "what sources", "what data", "what is loaded",
            "what do you have", "which corpora", "what corpora", "is loaded", "are loaded",
            "sources chargees", "quelles donnees", "qu est ce qui est charge", "quels corpus",
            "que contient", "welche quellen", "welche daten", "geladen", "abdeckung", "welche korpora")
CHANGES = ("changed", "changes", "change ", "modified", "amended", "modifie", "modifies", "modifiee",
           "modifiees", "changements", "churn", "change", "amend", "geandert", "anderungen", "anderung",
           "modifications", "modification")
WHEN = ("when did", "when was", "when were", "quand", "a quelle date", "wann", "seit wann")
POPULATION = ("which laws", "what laws", "which acts", "which instruments", "what instruments",
              "which regulations", "quelles lois", "quels textes", "quels actes", "laws changed",
              "laws were", "lois ont", "welche gesetze", "welche rechtsakte", "welche texte", "welche eu rechtsakte",
              "welche verordnungen")
IN_FORCE = ("in force", "en vigueur", "applicable on", "applicable at", "in kraft")
CITED_BY = ("cite", "cites", "citing", "cited", "refer to", "refers to", "referring to",
            "references to", "citent", "renvoient", "mentionnent", "point to")
PROVENANCE = ("provenance", "verify", "verification", "signature", "where does", "origin",
              "record hash", "verifier")
DIFF = ("compare", "comparison", "difference", "differences", "diff ", "comparer", "comparez",
        "difference entre", "differe", "vergleiche", "vergleich", "unterschied", "unterschiede")
HISTORY = ("history", "historique", "how has", "evolved", "evolution", "over time", "changed over",
           "geschichte", "verlauf", "entwicklung")
TIMELINE = ("timeline", "versions", "version list", "consolidations", "chronologie", "versionen", "fassungen",
            "zeitleiste",
            "when was", "amendments", "consolidated versions")
SEARCH = ("find", "search", "laws about", "which laws mention", "recherche", "cherche", "textes sur",
          "lois sur", "about ", "concerning", "relating to", "suche", "finde")
EXPLICIT_SEARCH = ("find", "search", "mention", "mentions", "recherche", "cherche", "trouve", "suche", "finde")
# Only an explicit request to explain or summarise asks for prose ("describe" does not).
SYNTHESIS = ("explain", "summarise", "summarize", "summary", "resume", "resumer", "explique",
             "expliquer", "erklare", "erklaren", "zusammenfassung", "fasse")
LANGUAGES = {
    "fr": ("in french", "en francais", "auf franzosisch", "french text", "texte francais", "version francaise",
           "franzosische fassung"),
    "en": ("in english", "en anglais", "auf englisch", "english text", "english version", "version anglaise"),
    "de": ("in german", "en allemand", "auf deutsch", "german text", "german version", "version allemande",
           "deutsche fassung"),
    "lb": ("in luxembourgish", "en luxembourgeois", "auf luxemburgisch"),
}

_CLARIFY = {
    "en": ("Which law, date or topic should Lex look at?",
           ["Name a law, title or identifier", "Show the coverage of the corpus"]),
    "fr": ("Quelle loi, quelle date ou quel sujet Lex doit-il examiner ?",
           ["Nommer une loi, un titre ou un identifiant", "Afficher la couverture du corpus"]),
}
_BOUNDARY_REASON = "The question asks for legal advice or the application of law to facts."


def _has(text: str, words: Sequence[str]) -> bool:
    padded = f" {text} "
    return any(f" {w.strip()} " in padded if not w.endswith(" ") else f" {w}" in padded
               for w in words)


def first_sentence(question: str) -> str:
    """The first non-empty sentence of the reader's own words (quotes and injections blanked)."""
    text = own_words(question).text
    for part in _SENTENCE.split(text.strip()):
        if part.strip():
            return part
    return text.strip()


def _clause_spans(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Spans of the explicit compound parts of the first own sentence (from ``offset``)."""
    stripped = text[offset:].strip()
    lead = text.index(stripped, offset) if stripped else offset
    first = next((m for m in [_SENTENCE.search(stripped)] if m), None)
    end = lead + (first.start() if first else len(stripped))
    spans: list[tuple[int, int]] = []
    cursor = lead
    for m in _COMPOUND.finditer(text, lead, end):
        spans.append((cursor, m.start()))
        cursor = m.end()
    spans.append((cursor, end))
    kept: list[tuple[int, int]] = []
    for start, stop in spans:
        if len(text[start:stop].split()) < 2 and kept:
            kept[-1] = (kept[-1][0], stop)  # a fragment joins the clause before it
        elif text[start:stop].strip():
            kept.append((start, stop))
    return kept or [(lead, end)]


def clauses(question: str) -> list[str]:
    """The explicit compound parts of the first own sentence, in the reader's order."""
    text = own_words(question).text
    return [text[a:b].strip() for a, b in _clause_spans(text)] or [question.strip()]


def wants_synthesis(question: str) -> bool:
    return _has(normalize(first_sentence(question)), SYNTHESIS)


@dataclass(frozen=True)
class _Clause:
    """One clause: its words, their normalised form without dated citations (what the intent
    keywords read: "la loi modifiée du …" asks for no change history), its dates."""

    raw: str
    norm: str
    mentions: tuple[DateMention, ...] = ()
    choice: str | None = None
    named: str = ""

    @property
    def days(self) -> list[str]:
        if self.choice:
            return [self.choice]
        return [m.first.isoformat() for m in self.mentions if m.is_day and m.first]

    @property
    def windows(self) -> list[DateMention]:
        return [] if self.choice else [m for m in self.mentions if m.is_window]

    @property
    def years(self) -> list[int]:
        return [m.first.year for m in self.windows if m.kind == "year" and m.first]


def _subject_ref(request: PlannerRequest, clause: _Clause) -> str | None:
    if request.authority is None:
        return None
    refs = request.authority.refs()
    for ref, member in refs.items():
        if any(f" {normalize(m)} " in f" {clause.named} " for m in member.mentions if m):
            return ref
    return next(iter(refs), None)


def _window(clause: _Clause) -> dict[str, str] | None:
    """A from/to window from the clause's own dates (days, periods, or both)."""
    edges: list[tuple[str, str]] = []
    for m in clause.mentions:
        if m.first and m.last:
            edges.append((m.first.isoformat(), m.last.isoformat()))
    if clause.choice:
        edges = [(clause.choice, clause.choice)]
    if len(edges) >= 2:
        return {"from_date": edges[0][0], "to_date": edges[1][1]}
    if len(edges) == 1:
        return {"from_date": edges[0][0], "to_date": edges[0][1]}
    return None


def _diff_window(clause: _Clause) -> dict[str, str] | None:
    """Two instants in date order: days as stated, periods by their outer edges."""
    days = sorted(clause.days)
    if len(days) >= 2:
        return {"from_date": days[0], "to_date": days[-1]}
    if len(clause.mentions) >= 2:
        return _window(clause)
    return None


def _instant(clause: _Clause) -> dict[str, str]:
    """The one stated day; a period alone is left to the gate (widened or clarified there)."""
    return {"date": clause.days[0]} if clause.days else {}


def _language(clause: _Clause, request: PlannerRequest, tool: str) -> dict[str, str]:
    """The text language the reader asked for, when the operation takes one."""
    spec = request.catalog.spec(tool)
    if spec is None or "language" not in spec.arguments:
        return {}
    asked = [code for code, words in LANGUAGES.items() if _has(clause.norm, words)]
    return {"language": asked[0]} if len(asked) == 1 else {}


def _scope(clause: _Clause) -> dict[str, str]:
    """A publisher filter when the clause names exactly one registered publisher's jurisdiction."""
    named = [f.id for f in publisher_registry().all() if f.scope_words and _has(clause.norm, f.scope_words)]
    return {"publisher": named[0]} if len(named) == 1 else {}


def _work_operation(request: PlannerRequest, clause: _Clause, ref: str) -> dict[str, Any]:
    op = _work_operation_core(request, clause, ref)
    op["arguments"].update(_language(clause, request, op["tool"]))
    return op


def _work_operation_core(request: PlannerRequest, clause: _Clause, ref: str) -> dict[str, Any]:
    text = clause.norm
    article = request.authority.article_number if request.authority else None
    offered = request.offered
    if _has(text, CITED_BY) and "cited_by" in offered:
        return {"tool": "cited_by", "arguments": {"subject_ref": ref}}
    if _has(text, PROVENANCE) and "provenance" in offered:
        lex_refs = request.refs_for.get("lex_id", [])
        return {"tool": "provenance", "arguments": {"subject_ref": lex_refs[0]}}
    window = _window(clause)
    two_instants = _diff_window(clause)
    if (_has(text, DIFF) or _has(text, CHANGES)) and two_instants and not _has(text, WHEN):
        return {"tool": "diff", "arguments": {"subject_ref": ref, **two_instants}}
    when_changed = _has(text, WHEN) and (_has(text, CHANGES) or _has(text, TIMELINE))
    if article and (_has(text, HISTORY) or when_changed or (_has(text, CHANGES) and not clause.days)):
        args: dict[str, Any] = {"subject_ref": ref}
        if window and not clause.days:
            args.update(window)
        return {"tool": "article_history", "arguments": args}
    if when_changed or _has(text, TIMELINE) or _has(text, HISTORY) or _has(text, PROVENANCE) or (
            _has(text, CHANGES) and not clause.mentions):
        return {"tool": "timeline", "arguments": {"subject_ref": ref}}
    # A period with no day is left undated: the gate widens it to the period and says so.
    args = {"subject_ref": ref, **_instant(clause)}
    if _has(text, ("outline", "table of contents", "sommaire", "structure", "inhaltsverzeichnis")):
        args["mode"] = "outline"
    return {"tool": "as_of", "arguments": args}


def _corpus_operation(request: PlannerRequest, clause: _Clause) -> dict[str, Any] | None:
    text = clause.norm
    if _has(text, COVERAGE):
        return {"tool": "coverage", "arguments": {**_scope(clause)}}
    window = _window(clause)
    if _has(text, CHANGES) and window and (_has(text, POPULATION) or request.authority is None):
        order = "by_churn" if _has(text, ("most", "le plus", "les plus", "churn", "am meisten")) else "by_date"
        return {"tool": "changes_in_period",
                "arguments": {**window, "order": order, **_scope(clause)}}
    if _has(text, IN_FORCE) and (request.authority is None or _has(text, POPULATION)):
        return {"tool": "in_force_on", "arguments": {**_instant(clause), **_scope(clause)}}
    return None


_REQUEST_WORDS = re.compile(
    r"^\s*(?:please\s+)?(?:find|search(?:\s+for)?|look\s+for|show\s+me|list|which|what|"
    r"recherche[rz]?|cherche[rz]?|trouve[rz]?)\s+(?:(?:the|all|les|des)\s+)?"
    r"(?:(?:provisions?|laws?|texts?|articles?|acts?|instruments?|dispositions?|textes?|lois?)\s+)?"
    r"(?:(?:about|on|concerning|mentioning|that\s+mention|which\s+mention|mention|relating\s+to|sur|"
    r"concernant|mentionnant)\s+)?",
    re.IGNORECASE,
)


def search_terms(raw: str) -> str:
    """The reader's topic words without the request phrasing ("Find provisions about …")."""
    stripped = _REQUEST_WORDS.sub("", raw.strip(), count=1).strip().rstrip("?.!").strip()
    return (stripped or raw.strip())[:1000]


def _search(clause: _Clause) -> dict[str, Any] | None:
    if not _has(clause.norm, SEARCH) or len(clause.norm.split()) < 2:
        return None
    args: dict[str, Any] = {"query": search_terms(_undated(clause))}
    if clause.days:
        args.update({"time_scope": "as_of", "as_of": clause.days[0]})
    return {"tool": "search", "arguments": args}


def _undated(clause: _Clause) -> str:
    """The clause without its date words (a date is a filter, not a search term)."""
    text = clause.raw
    for mention in sorted(clause.mentions, key=lambda m: -len(m.text)):
        text = text.replace(mention.text, " ")
    text = re.sub(r"\b(?:on|as of|at|au|le|am|zum|in force|en vigueur)\s*(?=[?.!]?\s*$)", "", text.strip())
    return " ".join(text.split()) or clause.raw


_LEADING_SEARCH = re.compile(r"^(?:please\s+)?(?:find|search|look\s+for|cherche|recherche|trouve|suche|finde)\b")


def classify(request: PlannerRequest, raw: str, mentions: tuple[DateMention, ...] = (),
             choice: str | None = None) -> dict[str, Any]:
    """One operation for one clause."""
    intent = raw
    for citation in read_citations(raw):
        intent = intent.replace(citation.words, " ")
    clause = _Clause(raw, normalize(intent), mentions, choice, normalize(raw))
    if _has(clause.norm, BOUNDARY):
        return {"tool": "legal_boundary", "arguments": {"reason": _BOUNDARY_REASON}}
    if _LEADING_SEARCH.match(clause.norm):
        found = _search(clause)
        if found is not None:
            return found
    corpus = _corpus_operation(request, clause)
    if corpus is not None:
        return corpus
    if _has(clause.norm, EXPLICIT_SEARCH):
        found = _search(clause)
        if found is not None:
            return found
    ref = _subject_ref(request, clause)
    if ref is not None:
        return _work_operation(request, clause, ref)
    return _search(clause) or _clarification(request.locale)


def _clarification(locale: str) -> dict[str, Any]:
    question, options = _CLARIFY.get(locale, _CLARIFY["en"])
    return {"tool": "clarification", "arguments": {"question": question, "options": list(options)}}


def effective_question(request: PlannerRequest) -> str:
    """The turn to plan: a clarification click plans the reader's previous question."""
    if request.question.strip().startswith(CHOICE_PREFIX):
        previous = [m["content"] for m in request.history if m.get("role") == "user"]
        if previous:
            return previous[-1]
    return request.question


def propose(request: PlannerRequest) -> dict[str, Any]:
    """The planner output (same shape a model submits) for one request."""
    question = effective_question(request)
    own = own_words(question).text
    reading = request.reading
    choice = reading.choice.isoformat() if reading.choice else None
    spans = _clause_spans(own)
    operations = _operations(request, own, spans, reading.usable, choice)
    framing_end = spans[-1][1]
    if all(op["tool"] == "clarification" for op in operations) and own[:framing_end] != question[:framing_end] \
            and own[framing_end:].strip():
        # The first sentence only introduced a quoted passage: the request is the next own sentence.
        spans = _clause_spans(own, framing_end + 1)
        operations = _operations(request, own, spans, reading.usable, choice)
    kept = [op for op in operations if op["tool"] != "clarification"]
    operations = kept or operations[:1]
    legal = [op for op in operations if op["tool"] not in ("clarification", "legal_boundary")]
    return {"operations": operations, "synthesis": bool(legal) and wants_synthesis(question)}


def _operations(request: PlannerRequest, own: str, spans: list[tuple[int, int]],
                instants: list[DateMention], choice: str | None) -> list[dict[str, Any]]:
    operations = []
    for i, (start, stop) in enumerate(spans[:8]):
        last = i == len(spans[:8]) - 1
        # Dates of later own sentences belong to the last clause (never to a new operation).
        mine = tuple(m for m in instants if start <= m.start < stop or (last and m.start >= stop))
        operations.append(classify(request, own[start:stop].strip(), mine, choice))
    return operations


@dataclass
class RulePlanner:
    """The deterministic planner (labelled ``deterministic`` in every reply)."""

    @property
    def label(self) -> str:
        return "deterministic"

    async def plan(self, request: PlannerRequest,
                   remaining: Callable[[], float] | None = None) -> PlanningResult:
        return PlanningResult(gate_plan(propose(request), request), self.label)
