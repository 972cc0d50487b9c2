"""Fast answers to the adapters' own SPARQL queries: the same documents rdflib gives, sooner.

The replay publisher answers every query with rdflib (:mod:`publishers.replay.sparql`), so
the SPARQL protocol stays honest. Parsing and evaluating the adapters' batch queries with
rdflib costs tens to hundreds of milliseconds each, though, and a first ingest sends dozens.
This module recognises the adapters' query *templates* (the ``queries/*.rq`` files of
:mod:`publishers.legilux` and :mod:`publishers.eurlex`, filled in by ``string.Template``) and
answers them directly from the projection's graph indexes:

1. the query text must be exactly a template with its parameters filled in (``LIMIT`` /
   ``OFFSET`` integers, a list of IRIs, ``("literal" <iri>)`` pairs), and the template text
   must be the one each solver was written for (its SHA-256 is pinned here: an edited query
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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from rdflib import OWL, RDF, SKOS, XSD, BNode, Graph, Literal, Namespace, URIRef, Variable
from rdflib.plugins.sparql.operators import _lang_range_check

JOLUX = Namespace("http://data.legilux.public.lu/resource/ontology/jolux#")
CDM = Namespace("http://publications.europa.eu/ontology/cdm#")
EV = Namespace("http://eurovoc.europa.eu/schema#")
EUROVOC_GRAPH = URIRef("http://eurovoc.europa.eu/100141")
_LANG = "http://publications.europa.eu/resource/authority/language/"
EU_LANGUAGES = frozenset({URIRef(_LANG + "ENG"), URIRef(_LANG + "FRA")})
LU_USER_FORMATS = frozenset({URIRef("http://data.legilux.public.lu/resource/authority/user-format/xml"),
                             URIRef("http://data.legilux.public.lu/resource/authority/user-format/pdf")})
IN_FORCE = URIRef(str(CDM) + "resource_legal_in-force")
RESOURCE_TYPE = URIRef(str(CDM) + "work_has_resource-type")
DIRECTORY = URIRef(str(CDM) + "resource_legal_is_about_concept_directory-code")

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


# -- graph look-ups ----------------------------------------------------------------------------------


def _objects(g: Graph, s: Term, p: URIRef) -> list[Term]:
    if isinstance(s, Literal):
        return []  # a literal is never a subject
    return [o for _, _, o in g.triples((s, p, None))]


def _subjects(g: Graph, p: URIRef, o: Term) -> list[Term]:
    return [s for s, _, _ in g.triples((None, p, o))]


def _has(g: Graph, s: Term, p: URIRef, o: Term) -> bool:
    if isinstance(s, Literal):
        return False
    return next(iter(g.triples((s, p, o))), None) is not None


def _or_unbound(values: list[Term]) -> list[Term]:
    """An OPTIONAL over one triple pattern: its values, or one unbound solution."""
    return values or [None]


def _in(term: Term, allowed: frozenset[URIRef]) -> bool:
    """``FILTER(?x IN (<a>, <b>))`` for IRIs (rdflib: ``x == term``, which needs equal types)."""
    return type(term) is URIRef and term in allowed


def _languages_of(g: Graph, expression: Term) -> list[Term]:
    return [lang for lang in _objects(g, expression, CDM.expression_uses_language) if _in(lang, EU_LANGUAGES)]


# -- solvers (one per template): the solution multiset, projected ---------------------------------------


def _catalogue(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for c in _subjects(g, RDF.type, JOLUX.Consolidation):
        expressions = [
            (e, lang, title, short)
            for e in _objects(g, c, JOLUX.isRealizedBy)
            for lang in _or_unbound(_objects(g, e, JOLUX.language))
            for title in _or_unbound(_objects(g, e, JOLUX.title))
            for short in _or_unbound(_objects(g, e, JOLUX.titleShort))
        ] or [(None, None, None, None)]
        for work, start, kind, end, status, published, (e, lang, title, short) in itertools.product(
                _or_unbound(_objects(g, c, JOLUX.isMemberOf)),
                _or_unbound(_objects(g, c, JOLUX.dateApplicability)),
                _or_unbound(_objects(g, c, JOLUX.typeDocument)),
                _or_unbound(_objects(g, c, JOLUX.dateEndApplicability)),
                _or_unbound(_objects(g, c, JOLUX.inForceStatus)),
                _or_unbound(_objects(g, c, JOLUX.publicationDate)),
                expressions):
            yield (c, work, kind, start, end, status, published, e, lang, title, short)


def _manifestations(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for c in _subjects(g, RDF.type, JOLUX.Consolidation):
        for e in _objects(g, c, JOLUX.isRealizedBy):
            for m in _objects(g, e, JOLUX.isEmbodiedBy):
                files = _objects(g, m, JOLUX.isExemplifiedBy)
                for fmt in _objects(g, m, JOLUX.userFormat):
                    if _in(fmt, LU_USER_FORMATS):
                        for file in files:
                            yield (c, e, fmt, file)


def _same_as(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for work in p["works"]:
        for identifier in [*_objects(g, work, OWL.sameAs), *_subjects(g, OWL.sameAs, work)]:
            if type(identifier) is not URIRef:
                raise Unsupported("FILTER(!=) on a non-IRI")
            if str(identifier) != str(work):
                yield (work, identifier)


_LEVELS = ((Literal("1"), JOLUX.subjectLevel1), (Literal("2"), JOLUX.subjectLevel2))
_FR = Literal("fr")


def _french(label: Term) -> bool:
    """``langMatches(lang(?label), "fr")``: false for a non-literal (an error) or no language tag."""
    return isinstance(label, Literal) and bool(label.language) and bool(
        _lang_range_check(_FR, Literal(label.language)))


def _subjects_of_works(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for work in p["works"]:
        for act in _subjects(g, JOLUX.isMemberOf, work):
            if not _has(g, act, RDF.type, JOLUX.Act):
                continue
            for level, predicate in _LEVELS:
                for concept in _objects(g, act, predicate):
                    labels = _or_unbound([x for x in _objects(g, concept, SKOS.prefLabel) if _french(x)])
                    schemes = _or_unbound(_objects(g, concept, SKOS.inScheme))
                    for label, scheme in itertools.product(labels, schemes):
                        yield (work, level, concept, label, scheme)


def _works_of(g: Graph, alias: Term) -> list[Term]:
    return _subjects(g, OWL.sameAs, alias)


def _work(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            expressions = [
                (lang, title, short)
                for e in _subjects(g, CDM.expression_belongs_to_work, w)
                for lang in _languages_of(g, e)
                for title in _or_unbound(_objects(g, e, CDM.expression_title))
                for short in _or_unbound(_objects(g, e, CDM.expression_title_short))
            ] or [(None, None, None)]
            for date, legacy, in_force, kind, (lang, title, short) in itertools.product(
                    _or_unbound(_objects(g, w, CDM.work_date_document)),
                    _or_unbound(_objects(g, w, CDM.date_creation_legacy)),
                    _or_unbound(_objects(g, w, IN_FORCE)),
                    _or_unbound(_objects(g, w, RESOURCE_TYPE)),
                    expressions):
                yield (alias, date, legacy, in_force, kind, lang, title, short)


_AMENDS, _CORRECTS = Literal("amends"), Literal("corrects")


def _roles(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            for _ in _objects(g, w, CDM.resource_legal_amends_resource_legal):
                yield (alias, _AMENDS)
            for _ in _objects(g, w, CDM.resource_legal_corrects_resource_legal):
                yield (alias, _CORRECTS)


def _consolidations(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            for s in _subjects(g, CDM.act_consolidated_based_on_resource_legal, w):
                expressions = [
                    (lang, title)
                    for e in _subjects(g, CDM.expression_belongs_to_work, s)
                    for lang in _languages_of(g, e)
                    for title in _or_unbound(_objects(g, e, CDM.expression_title))
                ] or [(None, None)]
                for celex, date, (lang, title) in itertools.product(
                        _objects(g, s, CDM.resource_legal_id_celex),
                        _or_unbound(_objects(g, s, CDM.act_consolidated_date)),
                        expressions):
                    yield (alias, celex, date, lang, title)


_KINDS = {name: Literal(name) for name in ("directory", "eurovoc", "eurovoc_alt_label", "eurovoc_broader",
                                           "eurovoc_subdomain", "eurovoc_domain")}
_LABEL_LANGUAGES = (Literal("en"), Literal("fr"))


def _metadata(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    ev = g.get_context(EUROVOC_GRAPH) if hasattr(g, "get_context") else None
    if ev is None:
        raise Unsupported("GRAPH on a graph that is not a dataset")
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            found: list[tuple[str, Term, Term]] = []
            for i in _objects(g, w, DIRECTORY):
                found += [("directory", i, label) for label in _objects(g, i, SKOS.prefLabel)]
            concepts = _objects(g, w, CDM.work_is_about_concept_eurovoc)
            for i in concepts:
                found += [("eurovoc", i, label) for label in _objects(ev, i, SKOS.prefLabel)]
            for i in concepts:
                found += [("eurovoc_alt_label", i, label) for label in _objects(ev, i, SKOS.altLabel)]
            for c in concepts:
                for i in _objects(ev, c, SKOS.broader):
                    found += [("eurovoc_broader", i, label) for label in _objects(ev, i, SKOS.prefLabel)]
            for c in concepts:
                for i in _objects(ev, c, SKOS.inScheme):
                    if _has(ev, i, RDF.type, EV.MicroThesaurus):
                        found += [("eurovoc_subdomain", i, label) for label in _objects(ev, i, SKOS.prefLabel)]
            for c in concepts:
                for mt in _objects(ev, c, SKOS.inScheme):
                    if _has(ev, mt, RDF.type, EV.MicroThesaurus):
                        for i in _objects(ev, mt, EV.domain):
                            found += [("eurovoc_domain", i, label) for label in _objects(ev, i, SKOS.prefLabel)]
            for kind, i, label in found:
                if not isinstance(label, Literal):
                    continue  # lang() of a non-literal is an error: ?labelLang unbound, FILTER false
                label_lang = Literal((label.language or "").lower())
                if label_lang in _LABEL_LANGUAGES:
                    yield (alias, _KINDS[kind], i, label, label_lang)


_OUT, _IN = Literal("out"), Literal("in")


def _relations(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    predicates = p["predicates"]
    for seed, alias in p["seeds"]:
        for w in _works_of(g, alias):
            for pred in predicates:
                linked = [(_OUT, o) for o in _objects(g, w, pred)] + [(_IN, s) for s in _subjects(g, pred, w)]
                for direction, other in linked:
                    celexes = _objects(g, other, CDM.resource_legal_id_celex)
                    if celexes and any(_languages_of(g, e)
                                       for e in _subjects(g, CDM.expression_belongs_to_work, other)):
                        for celex in celexes:
                            yield (seed, pred, direction, celex)


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


_LU, _EU = "publishers.legilux", "publishers.eurlex"

TEMPLATES = (
    Template(_LU, "catalogue.rq", "e745b1609892e6b3afd8562288542024f9de97c56d3841ae15b12a07670a3ddb",
             ("c", "work", "type", "from", "to", "status", "pub", "expr", "lang", "title", "titleShort"),
             ("c", "expr", "work", "from", "type", "to", "status", "pub", "lang", "title", "titleShort"),
             distinct=False, paged=True, solve=_catalogue),
    Template(_LU, "manifestations.rq", "6926bfff320ffac4e787428e2359709fbc657b886d2e595fcec6510dd7b26bec",
             ("c", "expr", "fmt", "file"), ("c", "expr", "fmt", "file"),
             distinct=False, paged=True, solve=_manifestations),
    Template(_LU, "same_as.rq", "528ccaee2692e24ed0dd8c818c8332eb1aa1ea2ea6e3892d3e80deed70681fed",
             ("work", "identifier"), ("work", "identifier"),
             distinct=True, paged=False, solve=_same_as),
    Template(_LU, "subjects.rq", "8a855d1682eff287711ee68ebf9dd1d9bc4c8db8e37f15e8bffc8081e4f18100",
             ("work", "level", "concept", "label", "scheme"), ("work", "level", "concept", "label", "scheme"),
             distinct=True, paged=False, solve=_subjects_of_works),
    Template(_EU, "work.rq", "854c81820606a036919ac4d00bdced51b5a46c4b9e7e9f5df4a855300da7f552",
             ("alias", "date", "legacyDate", "inForce", "type", "lang", "title", "titleShort"),
             ("alias", "lang", "date", "legacyDate", "inForce", "type", "title", "titleShort"),
             distinct=False, paged=False, solve=_work),
    Template(_EU, "roles.rq", "4b4c2e40df7148a49ec8730b5473a8f0a5cbbfec8db01d86e7320e996db3b551",
             ("alias", "role"), ("alias", "role"),
             distinct=True, paged=False, solve=_roles),
    Template(_EU, "consolidations.rq", "7ddfc2f78759efc693ca7749eee62f305104432e0f025cb66e8a70126f78da2f",
             ("alias", "celex", "date", "lang", "title"), ("alias", "celex", "date", "lang", "title"),
             distinct=False, paged=False, solve=_consolidations),
    Template(_EU, "metadata.rq", "ac9f01e78bef9b0372f01499e50f165fc3d16e4ea5467ff798cc66876cf538d5",
             ("alias", "kind", "id", "label", "labelLang"), ("alias", "kind", "id", "labelLang", "label"),
             distinct=True, paged=False, solve=_metadata),
    Template(_EU, "relations.rq", "6b360bd156ab9be8800722e043a162960fb61adea1f4d5bed4fb795d275c66d0",
             ("seed", "pred", "dir", "celex"), ("seed", "pred", "dir", "celex"),
             distinct=True, paged=False, solve=_relations),
)


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


_COMPILED: list[_Compiled] | None = None


def compiled() -> list[_Compiled]:
    global _COMPILED
    if _COMPILED is None:
        _COMPILED = _compile(TEMPLATES)
    return _COMPILED


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

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._full: dict[tuple[str, tuple[tuple[str, Any], ...]], list[Row]] = {}

    def answer(self, query: str) -> dict[str, Any] | None:
        for c in compiled():
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


__all__ = ["TEMPLATES", "FastAnswers", "Template", "Unsupported", "document", "template_text", "term_json"]
