"""The deterministic rule-based planner: serves typed questions when no model is configured.

It reads the reader's first sentence (later sentences and quoted notes are data, never
instructions), splits explicit compound requests ("…; then …", "… and then …", "… puis …"),
classifies each clause by keyword into one catalog operation, and writes the same plan
object a model would: tools, typed arguments and ``subject_ref`` refs only. Its output passes
the same gate, date guard and freeze as a model's. Every reply it plans is labelled
``deterministic``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from assistant.dates import free_years, ordered_days
from assistant.planning import PlannerRequest, PlanningResult, gate_plan
from assistant.subjects import CHOICE_PREFIX
from assistant.text import normalize
from legal.publishers import registry as publisher_registry

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'«(])")
_COMPOUND = re.compile(r"\s*(?:;|\band then\b|\bthen\b|\bpuis\b|\bensuite\b|\band also\b|\bas well as\b)\s*",
                       re.IGNORECASE)

BOUNDARY = (
    "should i", "should we", "do i have to", "do i need to", "must i", "am i ", "are we ",
    "compliant", "comply", "legal advice", "advise", "recommend", "my company", "my employer",
    "my landlord", "can i ", "may i ", "how can i avoid", "how do i avoid", "evade", "loophole",
    "dois je", "devons nous", "suis je", "conseil juridique", "conforme", "puis je",
    "est ce que je", "mon employeur", "ma societe",
)
COVERAGE = ("coverage", "couverture", "what do you hold", "what does lex hold", "which publishers",
            "what corpus", "quelles sources", "what is held", "corpus held")
CHANGES = ("changed", "changes", "change ", "modified", "amended", "modifie", "modifies", "modifiee",
           "modifiees", "changements", "churn")
POPULATION = ("which laws", "what laws", "which acts", "which instruments", "what instruments",
              "which regulations", "quelles lois", "quels textes", "quels actes", "laws changed",
              "laws were", "lois ont")
IN_FORCE = ("in force", "en vigueur", "applicable on", "applicable at")
CITED_BY = ("cite", "cites", "citing", "cited", "refer to", "refers to", "referring to",
            "references to", "citent", "renvoient", "mentionnent", "point to")
PROVENANCE = ("provenance", "verify", "verification", "signature", "where does", "origin",
              "record hash", "verifier")
DIFF = ("compare", "comparison", "difference", "differences", "diff ", "comparer", "comparez",
        "difference entre", "differe")
HISTORY = ("history", "historique", "how has", "evolved", "evolution", "over time", "changed over")
TIMELINE = ("timeline", "versions", "version list", "consolidations", "chronologie",
            "when was", "amendments", "consolidated versions")
SEARCH = ("find", "search", "laws about", "which laws mention", "recherche", "cherche", "textes sur",
          "lois sur", "about ", "concerning", "relating to")
EXPLICIT_SEARCH = ("find", "search", "mention", "mentions", "recherche", "cherche", "trouve")
SYNTHESIS = ("explain", "summarise", "summarize", "summary", "describe", "resume", "resumer",
             "explique", "expliquer", "decris", "decrire")

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
    return _SENTENCE.split(question.strip(), maxsplit=1)[0]


def clauses(question: str) -> list[str]:
    """The explicit compound parts of the first sentence, in the reader's order."""
    parts = [p.strip() for p in _COMPOUND.split(first_sentence(question)) if p and p.strip()]
    return parts or [question.strip()]


def wants_synthesis(question: str) -> bool:
    return _has(normalize(first_sentence(question)), SYNTHESIS)


@dataclass(frozen=True)
class _Clause:
    raw: str
    norm: str
    days: list[str]
    years: list[int]


def _subject_ref(request: PlannerRequest, clause: _Clause) -> str | None:
    if request.authority is None:
        return None
    refs = request.authority.refs()
    for ref, member in refs.items():
        if any(f" {normalize(m)} " in f" {clause.norm} " for m in member.mentions if m):
            return ref
    return next(iter(refs), None)


def _window(clause: _Clause) -> dict[str, str] | None:
    if len(clause.days) >= 2:
        return {"from_date": clause.days[0], "to_date": clause.days[1]}
    if len(clause.years) >= 2:
        return {"from_date": f"{clause.years[0]}-01-01", "to_date": f"{clause.years[1]}-12-31"}
    if len(clause.years) == 1 and not clause.days:
        return {"from_date": f"{clause.years[0]}-01-01", "to_date": f"{clause.years[0]}-12-31"}
    return None


def _instant(clause: _Clause) -> dict[str, str]:
    if clause.days:
        return {"date": clause.days[0]}
    if clause.years:
        return {"date": f"{clause.years[0]}-12-31"}
    return {}


def _scope(clause: _Clause) -> dict[str, str]:
    """A publisher filter when the clause names exactly one registered publisher's jurisdiction."""
    named = [f.id for f in publisher_registry().all() if f.scope_words and _has(clause.norm, f.scope_words)]
    return {"publisher": named[0]} if len(named) == 1 else {}


def _work_operation(request: PlannerRequest, clause: _Clause, ref: str) -> dict[str, Any]:
    text = clause.norm
    article = request.authority.article_number if request.authority else None
    offered = request.offered
    if _has(text, CITED_BY) and "cited_by" in offered:
        return {"tool": "cited_by", "arguments": {"subject_ref": ref}}
    if _has(text, PROVENANCE) and "provenance" in offered:
        lex_refs = request.refs_for.get("lex_id", [])
        return {"tool": "provenance", "arguments": {"subject_ref": lex_refs[0]}}
    window = _window(clause)
    two_instants = len(clause.days) >= 2 or len(clause.years) >= 2
    if (_has(text, DIFF) or _has(text, CHANGES)) and two_instants and window:
        return {"tool": "diff", "arguments": {"subject_ref": ref, **window}}
    if article and _has(text, HISTORY):
        args: dict[str, Any] = {"subject_ref": ref}
        if window and (clause.years or len(clause.days) >= 2):
            args.update(window)
        return {"tool": "article_history", "arguments": args}
    if _has(text, TIMELINE) or _has(text, HISTORY) or _has(text, PROVENANCE):
        return {"tool": "timeline", "arguments": {"subject_ref": ref}}
    # A bare year is planned naively (its last day); the date guard then widens it to the
    # year's window and discloses that, exactly as for a model's plan.
    args = {"subject_ref": ref, **_instant(clause)}
    if _has(text, ("outline", "table of contents", "sommaire", "structure")):
        args["mode"] = "outline"
    return {"tool": "as_of", "arguments": args}


def _corpus_operation(request: PlannerRequest, clause: _Clause) -> dict[str, Any] | None:
    text = clause.norm
    if _has(text, COVERAGE):
        return {"tool": "coverage", "arguments": {}}
    window = _window(clause)
    if _has(text, CHANGES) and window and (_has(text, POPULATION) or request.authority is None):
        order = "by_churn" if _has(text, ("most", "le plus", "les plus", "churn")) else "by_date"
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
    return {"tool": "search", "arguments": {"query": search_terms(clause.raw)}}


def classify(request: PlannerRequest, raw: str) -> dict[str, Any]:
    """One operation for one clause."""
    clause = _Clause(raw, normalize(raw), [d.isoformat() for d in ordered_days(raw)], free_years(raw))
    if _has(clause.norm, BOUNDARY):
        return {"tool": "legal_boundary", "arguments": {"reason": _BOUNDARY_REASON}}
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
    operations = [classify(request, part) for part in clauses(question)][:8]
    kept = [op for op in operations if op["tool"] != "clarification"]
    operations = kept or operations[:1]
    legal = [op for op in operations if op["tool"] not in ("clarification", "legal_boundary")]
    return {"operations": operations, "synthesis": bool(legal) and wants_synthesis(question)}


@dataclass
class RulePlanner:
    """The deterministic planner (labelled ``deterministic`` in every reply)."""

    @property
    def label(self) -> str:
        return "deterministic"

    async def plan(self, request: PlannerRequest,
                   remaining: Callable[[], float] | None = None) -> PlanningResult:
        return PlanningResult(gate_plan(propose(request), request), self.label)
