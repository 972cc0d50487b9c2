"""EUR-Lex's answers to its adapter's query templates, for the replay's fast path
(:mod:`publishers.replay.fast`): one solver per ``queries/*.rq`` template, over the CDM
dataset the projection (:mod:`publishers.eurlex.replay`) builds."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import Any

from rdflib import OWL, RDF, SKOS, Graph, Literal, Namespace, URIRef

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

CDM = Namespace("http://publications.europa.eu/ontology/cdm#")
EV = Namespace("http://eurovoc.europa.eu/schema#")
EUROVOC_GRAPH = URIRef("http://eurovoc.europa.eu/100141")
_LANG = "http://publications.europa.eu/resource/authority/language/"
EU_LANGUAGES = frozenset({URIRef(_LANG + "ENG"), URIRef(_LANG + "FRA")})
IN_FORCE = URIRef(str(CDM) + "resource_legal_in-force")
RESOURCE_TYPE = URIRef(str(CDM) + "work_has_resource-type")
DIRECTORY = URIRef(str(CDM) + "resource_legal_is_about_concept_directory-code")


def _languages_of(g: Graph, expression: Term) -> list[Term]:
    return [lang for lang in objects(g, expression, CDM.expression_uses_language) if is_in(lang, EU_LANGUAGES)]



def _works_of(g: Graph, alias: Term) -> list[Term]:
    return subjects(g, OWL.sameAs, alias)


def _work(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            expressions = [
                (lang, title, short)
                for e in subjects(g, CDM.expression_belongs_to_work, w)
                for lang in _languages_of(g, e)
                for title in or_unbound(objects(g, e, CDM.expression_title))
                for short in or_unbound(objects(g, e, CDM.expression_title_short))
            ] or [(None, None, None)]
            for date, legacy, in_force, kind, (lang, title, short) in itertools.product(
                    or_unbound(objects(g, w, CDM.work_date_document)),
                    or_unbound(objects(g, w, CDM.date_creation_legacy)),
                    or_unbound(objects(g, w, IN_FORCE)),
                    or_unbound(objects(g, w, RESOURCE_TYPE)),
                    expressions):
                yield (alias, date, legacy, in_force, kind, lang, title, short)


_AMENDS, _CORRECTS = Literal("amends"), Literal("corrects")


def _roles(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            for _ in objects(g, w, CDM.resource_legal_amends_resource_legal):
                yield (alias, _AMENDS)
            for _ in objects(g, w, CDM.resource_legal_corrects_resource_legal):
                yield (alias, _CORRECTS)


def _consolidations(g: Graph, p: Mapping[str, Any]) -> Iterator[Row]:
    for alias in p["aliases"]:
        for w in _works_of(g, alias):
            for s in subjects(g, CDM.act_consolidated_based_on_resource_legal, w):
                expressions = [
                    (lang, title)
                    for e in subjects(g, CDM.expression_belongs_to_work, s)
                    for lang in _languages_of(g, e)
                    for title in or_unbound(objects(g, e, CDM.expression_title))
                ] or [(None, None)]
                for celex, date, (lang, title) in itertools.product(
                        objects(g, s, CDM.resource_legal_id_celex),
                        or_unbound(objects(g, s, CDM.act_consolidated_date)),
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
            for i in objects(g, w, DIRECTORY):
                found += [("directory", i, label) for label in objects(g, i, SKOS.prefLabel)]
            concepts = objects(g, w, CDM.work_is_about_concept_eurovoc)
            for i in concepts:
                found += [("eurovoc", i, label) for label in objects(ev, i, SKOS.prefLabel)]
            for i in concepts:
                found += [("eurovoc_alt_label", i, label) for label in objects(ev, i, SKOS.altLabel)]
            for c in concepts:
                for i in objects(ev, c, SKOS.broader):
                    found += [("eurovoc_broader", i, label) for label in objects(ev, i, SKOS.prefLabel)]
            for c in concepts:
                for i in objects(ev, c, SKOS.inScheme):
                    if has(ev, i, RDF.type, EV.MicroThesaurus):
                        found += [("eurovoc_subdomain", i, label) for label in objects(ev, i, SKOS.prefLabel)]
            for c in concepts:
                for mt in objects(ev, c, SKOS.inScheme):
                    if has(ev, mt, RDF.type, EV.MicroThesaurus):
                        for i in objects(ev, mt, EV.domain):
                            found += [("eurovoc_domain", i, label) for label in objects(ev, i, SKOS.prefLabel)]
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
                linked = [(_OUT, o) for o in objects(g, w, pred)] + [(_IN, s) for s in subjects(g, pred, w)]
                for direction, other in linked:
                    celexes = objects(g, other, CDM.resource_legal_id_celex)
                    if celexes and any(_languages_of(g, e)
                                       for e in subjects(g, CDM.expression_belongs_to_work, other)):
                        for celex in celexes:
                            yield (seed, pred, direction, celex)


_EU = "publishers.eurlex"

TEMPLATES = (
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
