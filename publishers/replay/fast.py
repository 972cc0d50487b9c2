"""Fast answers to the adapters' own SPARQL queries: the same documents rdflib gives, sooner.

The replay publisher answers every query with rdflib (:mod:`publishers.replay.sparql`), so
the SPARQL protocol stays honest. Parsing and evaluating the adapters' batch queries with
rdflib costs tens to hundreds of milliseconds each, though, and a first ingest sends dozens.
This module recognises the adapters' query *templates* (a publisher's ``queries/*.rq`` files,
filled in by ``string.Template``) and answers them directly from the projection's graph
indexes. The templates and their solvers live in each publisher's folder
(``publishers/<name>/replay_answers.py``) and are declared by its replay projection
(:class:`publishers.replay.projection.ReplayProjection`); this module is the shared machinery:

1. the query text must be exactly a template with its parameters filled in (``LIMIT`` /
   ``OFFSET`` integers, a list of IRIs, ``("literal" <iri>)`` pairs), and the template text
   must be the one each solver was written for (its SHA-256 is pinned with it: an edited query
   falls back to rdflib until its solver is reviewed);
2. the solver computes the solution multiset of the template's graph pattern with plain
   index look-ups (``graph.triples``), following SPARQL's semantics (OPTIONAL as a left join
   with the inner FILTER as its condition, UNION, BIND, VALUES, FILTER EXISTS, the default
   graph as the union of all graphs of a ``Dataset``, ``GRAPH <g>`` as that graph alone);
3. the rows are ordered exactly as rdflib orders them — one stable sort per ``ORDER BY``
   key, last key first, with rdflib's own ordering key (``evalutils._val``) —, then made
   DISTINCT (first occurrence kept) and sliced by ``OFFSET`` / ``LIMIT``;
4. if two different rows tie on every ``ORDER BY`` key, their relative order would depend on
   rdflib's internal evaluation order, so the query is handed to rdflib instead; so is any
   query on which a solver raises (rdflib then gives its own answer or error).

Every template's ``ORDER BY`` covers all its projected variables, so equal keys mean equal
rows and the answer does not depend on evaluation order. ``tests/publishers/test_replay_fast.py``
compares the fast and the generic answers, as bytes, for every template on both fixture
projections.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rdflib import XSD, BNode, Graph, Literal, URIRef, Variable

Term = Any  # an rdflib term (URIRef, Literal, BNode) or None for an unbound variable
Row = tuple[Term, ...]


class Unsupported(Exception):
    """The fast path does not answer this query (rdflib does)."""


# -- query parameters ------------------------------------------------------------------------------

_IRI = r'<[^<>"{}|^`\\\x00-\x20]*>'
_IRI_LIST = re.compile(rf"{_IRI}(?: {_IRI})*")
_IRI_ONE = re.compile(r"<([^<>\"{}|^`\\\x00-\x20]*)>")
_PAIR = re.compile(rf'\("([^"\\\n\r]*)" ({_IRI})\)')
_PAIR_LIST = re.compile(rf'\("[^"\\\n\r]*" {_IRI}\)(?: \("[^"\\\n\r]*" {_IRI}\))*')


def _iris(text: str) -> list[URIRef]:
    if not _IRI_LIST.fullmatch(text):
        raise Unsupported("not a list of IRIs")
    out = []
    for value in _IRI_ONE.findall(text):
        if ":" not in value:
            raise Unsupported("relative IRI")  # rdflib would resolve it against a base
        out.append(URIRef(value))
    return out


def _pairs(text: str) -> list[tuple[Literal, URIRef]]:
    if not _PAIR_LIST.fullmatch(text):
        raise Unsupported("not a list of (literal IRI) pairs")
    return [(Literal(lit), _iris(iri)[0]) for lit, iri in _PAIR.findall(text)]


def _int(text: str) -> int:
    return int(text)


#: How each template parameter is read (anything else is not answered here).
_PARAMS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "limit": (r"[0-9]{1,9}", _int),
    "offset": (r"[0-9]{1,9}", _int),
    "works": (r"[^{}]+?", _iris),
    "aliases": (r"[^{}]+?", _iris),
    "predicates": (r"[^{}]+?", _iris),
    "seeds": (r"[^{}]+?", _pairs),
}


# -- graph look-ups (for the publishers' solvers) ------------------------------------------------------


def objects(g: Graph, s: Term, p: URIRef) -> list[Term]:
    if isinstance(s, Literal):
        return []  # a literal is never a subject
    return [o for _, _, o in g.triples((s, p, None))]


def subjects(g: Graph, p: URIRef, o: Term) -> list[Term]:
    return [s for s, _, _ in g.triples((None, p, o))]


def has(g: Graph, s: Term, p: URIRef, o: Term) -> bool:
    if isinstance(s, Literal):
        return False
    return next(iter(g.triples((s, p, o))), None) is not None


def or_unbound(values: list[Term]) -> list[Term]:
    """An OPTIONAL over one triple pattern: its values, or one unbound solution."""
    return values or [None]


def is_in(term: Term, allowed: frozenset[URIRef]) -> bool:
    """``FILTER(?x IN (<a>, <b>))`` for IRIs (rdflib: ``x == term``, which needs equal types)."""
    return type(term) is URIRef and term in allowed


# -- templates ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """One adapter query template and how to answer it."""

    package: str
    name: str
    sha256: str  # of the template text the solver was written for
    variables: tuple[str, ...]  # projected, in SELECT order
    order: tuple[str, ...]  # ORDER BY (all ascending)
    distinct: bool
    paged: bool  # LIMIT and OFFSET are parameters (the full ordered answer is kept and sliced)
    solve: Callable[[Graph, Mapping[str, Any]], Iterable[Row]]


def registered_templates() -> tuple[Template, ...]:
    """The templates of every registered publisher's replay projection, in registration order."""
    from publishers.registry import plugins

    out: list[Template] = []
    for plugin in plugins().values():
        if plugin.replay_projection is not None:
            out.extend(plugin.replay_projection().templates)
    return tuple(out)


def template_text(template: Template) -> str:
    return resources.files(template.package).joinpath("queries", template.name).read_text(encoding="utf-8")


_PLACEHOLDER = re.compile(r"\$\{([a-z]+)\}")


def _pattern(text: str) -> re.Pattern[str] | None:
    """A regular expression matching ``text`` with its ``${name}`` placeholders filled in."""
    parts: list[str] = []
    seen: set[str] = set()
    last = 0
    for m in _PLACEHOLDER.finditer(text):
        literal, name = text[last:m.start()], m.group(1)
        if "$" in literal or name not in _PARAMS:
            return None
        parts.append(re.escape(literal))
        # a placeholder may appear more than once (e.g. in a comment): the same text each time
        parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>{_PARAMS[name][0]})")
        seen.add(name)
        last = m.end()
    if "$" in text[last:]:
        return None
    parts.append(re.escape(text[last:]))
    return re.compile("".join(parts), re.DOTALL)


@dataclass(frozen=True)
class _Compiled:
    template: Template
    pattern: re.Pattern[str]
    variables: tuple[Variable, ...]
    order: tuple[int, ...]


def _compile(templates: Sequence[Template]) -> list[_Compiled]:
    out = []
    for t in templates:
        text = template_text(t)
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != t.sha256:
            continue  # the query changed since its solver was written: rdflib answers it
        pattern = _pattern(text)
        if pattern is None:
            continue
        out.append(_Compiled(t, pattern, tuple(Variable(v) for v in t.variables),
                             tuple(t.variables.index(v) for v in t.order)))
    return out


_COMPILED: dict[tuple[Template, ...], list[_Compiled]] = {}


def compiled(templates: Sequence[Template] | None = None) -> list[_Compiled]:
    """``templates`` (default: every registered publisher's) compiled, once per set."""
    key = tuple(registered_templates() if templates is None else templates)
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = _compile(key)
    return found


# -- answering -------------------------------------------------------------------------------------


def _literal_keys(column: Iterable[Term]) -> Callable[[Literal], Any] | None:
    """A plain-Python key ordering the literals of one column exactly as rdflib's ``<`` does,
    when the column is simple enough to be sure of it; else ``None`` (compare the terms).

    - only literals without a datatype (plain or language-tagged): rdflib orders a plain
      literal before a tagged one, tags by their text, then by value (the string);
    - only ``xsd:date`` literals in canonical form: rdflib orders them by their date value.
    """
    literals = [t for t in column if type(t) is Literal]
    if all(t.datatype is None for t in literals):
        return lambda t: (1, t.language, str(t)) if t.language else (0, "", str(t))
    if all(t.datatype == XSD.date and type(t.value) is _dt.date and str(t) == t.value.isoformat()
           for t in literals):
        return lambda t: t.value
    return None


def _sort_keys(rows: Sequence[Row], c: _Compiled) -> list[tuple[list[tuple[int, Any]], Row]]:
    """Each row with its ORDER BY keys: rdflib's ``_val`` (unbound → the variable itself, then
    blank nodes, IRIs, literals), with IRIs and blank nodes as their strings (rdflib compares
    two of them by their strings) and literals by :func:`_literal_keys` where possible — the
    same order without a Python-level comparison per pair."""
    columns = []
    for i in c.order:
        literal_key = _literal_keys(r[i] for r in rows)
        columns.append((i, c.variables[i], literal_key))
    out = []
    for r in rows:
        keys: list[tuple[int, Any]] = []
        for i, unbound, literal_key in columns:
            term = r[i]
            kind = type(term)
            if term is None:
                keys.append((0, unbound))
            elif kind is URIRef:
                keys.append((2, str(term)))
            elif kind is BNode:
                keys.append((1, str(term)))
            elif kind is Literal:
                keys.append((3, term if literal_key is None else literal_key(term)))
            else:
                raise Unsupported(f"unexpected term type {kind.__name__}")
        out.append((keys, r))
    return out


def _ordered(rows: list[Row], c: _Compiled) -> list[Row]:
    """rdflib's ORDER BY (one stable sort per key, last key first), DISTINCT, tie check."""
    keyed = _sort_keys(rows, c)
    for position in reversed(range(len(c.order))):
        keyed.sort(key=lambda kr, n=position: kr[0][n])  # type: ignore[misc]
    for (ka, a), (kb, b) in itertools.pairwise(keyed):
        if a != b and not any(x < y or y < x for x, y in zip(ka, kb, strict=True)):
            raise Unsupported("two different rows tie on every ORDER BY key")
    rows = [r for _, r in keyed]
    if c.template.distinct:
        seen: set[Row] = set()
        unique = []
        for r in rows:
            if r not in seen:
                seen.add(r)
                unique.append(r)
        rows = unique
    return rows


def term_json(term: Any) -> dict[str, str]:
    """One term of a SPARQL 1.1 JSON results binding."""
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    if isinstance(term, Literal):
        out = {"type": "literal", "value": str(term)}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype:
            out["datatype"] = str(term.datatype)
        return out
    return {"type": "literal", "value": str(term)}


def document(names: Sequence[str], rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """A SPARQL 1.1 JSON results document (unbound values, ``None``, are left out)."""
    bindings = [{name: term_json(value) for name, value in zip(names, row, strict=False) if value is not None}
                for row in rows]
    return {"head": {"vars": list(names)}, "results": {"bindings": bindings}}


class FastAnswers:
    """Answers the adapters' templates over one graph; ``answer`` returns ``None`` for any
    other query (or whenever in doubt), and the caller asks rdflib."""

    def __init__(self, graph: Graph, templates: Sequence[Template] | None = None) -> None:
        self.graph = graph
        self._compiled = compiled(templates)
        self._full: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Row]] = {}

    def answer(self, query: str) -> dict[str, Any] | None:
        for c in self._compiled:
            m = c.pattern.fullmatch(query)
            if m is None:
                continue
            try:
                return self._answer(c, m)
            except Exception:  # Unsupported, or anything unexpected: rdflib decides
                return None
        return None

    def _answer(self, c: _Compiled, m: re.Match[str]) -> dict[str, Any]:
        params = {name: _PARAMS[name][1](value) for name, value in m.groupdict().items()}
        limit, offset = params.pop("limit"), params.pop("offset", 0)
        key = (c.template.name, tuple(sorted((k, tuple(v)) for k, v in params.items())))
        rows = self._full.get(key) if c.template.paged else None
        if rows is None:
            rows = _ordered(list(c.template.solve(self.graph, params)), c)
            if c.template.paged:
                self._full[key] = rows
        return document(c.template.variables, rows[offset:offset + limit])


__all__ = ["FastAnswers", "Template", "Unsupported", "compiled", "document", "has", "is_in", "objects",
           "or_unbound", "registered_templates", "subjects", "template_text", "term_json"]
