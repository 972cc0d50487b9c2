"""Legilux's answers to its adapter's query templates, for the replay's fast path
(:mod:`publishers.replay.fast`): one solver per ``queries/*.rq`` template, over the JOLux
graph the projection (:mod:`publishers.legilux.replay`) builds."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from rdflib import OWL, RDF, SKOS, Graph, Literal, Namespace, URIRef
from rdflib.plugins.sparql.operators import _lang_range_check

from publishers.replay.fast import (
    Row,
    Template,
    Term,
    Unsupported,
    has,
    is_in,
    objects,
    or_unbound,
    subjects,
)

JOLUX = Namespace("http://data.legilux.public.lu/resource/ontology/jolux#")
LU_USER_FORMATS = frozenset({URIRef("http://data.legilux.public.lu/resource/authority/user-format/xml"),
                             URIRef("http://data.legilux.public.lu/resource/authority/user-format/pdf")})


def _catalogue(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for c in subjects(g, RDF.type, JOLUX.Consolidation):
        expressions = [
            (e, lang, title, short)
            for e in objects(g, c, JOLUX.isRealizedBy)
            for lang in or_unbound(objects(g, e, JOLUX.language))
            for title in or_unbound(objects(g, e, JOLUX.title))
            for short in or_unbound(objects(g, e, JOLUX.titleShort))
        ] or [(None, None, None, None)]
        for work, start, kind, end, status, published, (e, lang, title, short) in itertools.product(
                or_unbound(objects(g, c, JOLUX.isMemberOf)),
                or_unbound(objects(g, c, JOLUX.dateApplicability)),
                or_unbound(objects(g, c, JOLUX.typeDocument)),
                or_unbound(objects(g, c, JOLUX.dateEndApplicability)),
                or_unbound(objects(g, c, JOLUX.inForceStatus)),
                or_unbound(objects(g, c, JOLUX.publicationDate)),
                expressions):
            yield (c, work, kind, start, end, status, published, e, lang, title, short)


def _manifestations(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for c in subjects(g, RDF.type, JOLUX.Consolidation):
        for e in objects(g, c, JOLUX.isRealizedBy):
            for m in objects(g, e, JOLUX.isEmbodiedBy):
                files = objects(g, m, JOLUX.isExemplifiedBy)
                for fmt in objects(g, m, JOLUX.userFormat):
                    if is_in(fmt, LU_USER_FORMATS):
                        for file in files:
                            yield (c, e, fmt, file)


def _same_as(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for work in p["works"]:
        for identifier in [*objects(g, work, OWL.sameAs), *subjects(g, OWL.sameAs, work)]:
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
        for act in subjects(g, JOLUX.isMemberOf, work):
            if not has(g, act, RDF.type, JOLUX.Act):
                continue
            for level, predicate in _LEVELS:
                for concept in objects(g, act, predicate):
                    labels = or_unbound([x for x in objects(g, concept, SKOS.prefLabel) if _french(x)])
                    schemes = or_unbound(objects(g, concept, SKOS.inScheme))
                    for label, scheme in itertools.product(labels, schemes):
                        yield (work, level, concept, label, scheme)


_LU = "publishers.legilux"

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
)
