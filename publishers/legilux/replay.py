"""Legilux's replay projection: its records as a JOLux graph and a filestore (what the live
publisher has), played by :mod:`publishers.replay`.

Per record: a ``jolux:Consolidation`` (the publisher version identifier) member of its work,
with dates, type, in-force status and publication date; one ``jolux:Expression`` per
language whose page is not the consolidation page itself (those are the adapter's synthetic
expressions); per expression, the XML manifestation of the primary body and one PDF
manifestation per alternative file, each exemplified by a filestore URL on the data host.
Official discovery metadata (subject levels, ``owl:sameAs`` aliases) goes back onto the work.

Routes: SPARQL at ``/sparqlendpoint``; files at ``/filestore/<path>``.
"""


from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib import OWL, RDF, SKOS, XSD, Graph, Literal, Namespace, URIRef

from publishers.replay.projection import (
    Body,
    FileRequest,
    FileRoute,
    Plain,
    Record,
    ReplayProjection,
    ServedFile,
    alt_observations,
    primary_observation,
    rewrite_expression,
    twin_of,
)

LU_PUBLIC = "https://legilux.public.lu/"
LU_DATA = "http://data.legilux.public.lu/"

JOLUX = Namespace("http://data.legilux.public.lu/resource/ontology/jolux#")
AUTHORITY = "http://data.legilux.public.lu/resource/authority/"
FILESTORE = LU_DATA + "filestore/"
LANGUAGE_CODES = {"fr": "FRA", "de": "DEU", "en": "ENG", "lb": "LTZ"}
SCHEMES = {"theme": "legal-subject-theme", "organisation": "legal-subject-organisation",
           "place": "legal-subject-place", "legal_resource": "legal-subject-legal-resource",
           "country": "legal-subject-country"}


@dataclass
class Projection:
    """A publisher graph and the files it serves, by URL path (without the leading ``/``)."""

    graph: Graph
    files: dict[str, ServedFile] = field(default_factory=dict)


def data_uri(public: str) -> str:
    """``https://legilux.public.lu/x`` → ``http://data.legilux.public.lu/x``."""
    return LU_DATA + public[len(LU_PUBLIC):] if public.startswith(LU_PUBLIC) else public


def project_legilux(records: Iterable[Mapping[str, Any]]) -> Projection:
    """The JOLux graph and filestore of the given current records."""
    projection = Projection(Graph())
    metadata: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        _consolidation(projection, record)
        metadata.setdefault(record["work_identifier"], []).extend(record.get("publisher_metadata", []))
    for work, entries in metadata.items():
        _work_metadata(projection.graph, URIRef(work), entries)
    return projection


def _consolidation(p: Projection, record: Mapping[str, Any]) -> None:
    g = p.graph
    c = URIRef(record["publisher_version_identifier"])
    g.add((c, RDF.type, JOLUX.Consolidation))
    g.add((c, JOLUX.isMemberOf, URIRef(record["work_identifier"])))
    g.add((c, JOLUX.dateApplicability, Literal(record["valid_from"], datatype=XSD.date)))
    if record.get("valid_to"):
        g.add((c, JOLUX.dateEndApplicability, Literal(record["valid_to"], datatype=XSD.date)))
    if record.get("publication_date"):
        g.add((c, JOLUX.publicationDate, Literal(record["publication_date"], datatype=XSD.date)))
    if record.get("document_type"):
        g.add((c, JOLUX.typeDocument, URIRef(AUTHORITY + "resource-type/" + record["document_type"])))
    if record.get("in_force_status"):
        g.add((c, JOLUX.inForceStatus, URIRef(AUTHORITY + "in-force-status/" + record["in_force_status"])))
    page = str(c).replace(LU_DATA, LU_PUBLIC, 1)
    for e in record.get("expressions", []):
        if e.get("source_uri") in (None, page):
            primary = primary_observation(e)
            if primary is None or primary["source_uri"] == page:
                continue  # the adapter's synthetic expression: the publisher lists none
            # A body observed from an expression page the record does not name: list that
            # expression so the body stays reachable (its page becomes the source_uri).
            e = {**e, "source_uri": primary["source_uri"]}
        _expression(p, c, e)


def _expression(p: Projection, c: URIRef, e: Mapping[str, Any]) -> None:
    g = p.graph
    expr = URIRef(data_uri(e["source_uri"]))
    g.add((c, JOLUX.isRealizedBy, expr))
    g.add((expr, JOLUX.language, URIRef(AUTHORITY + "language/" + LANGUAGE_CODES[e["language"]])))
    if e.get("title") is not None:
        g.add((expr, JOLUX.title, Literal(e["title"])))
    if e.get("title_short") is not None:
        g.add((expr, JOLUX.titleShort, Literal(e["title_short"])))
    primary = primary_observation(e)
    if primary is not None:
        eli_path = str(expr)[len(LU_DATA):].strip("/")
        path = f"filestore/{eli_path}/xml/{eli_path.replace('/', '-')}-xml.xml"
        _manifestation(p, expr, "xml", path, primary, "application/xml")
    for i, alt in enumerate([*alt_observations(e, "pdf"), *alt_observations(e, "pdf-memorial")]):
        source = alt["source_uri"]
        path = source[len(LU_PUBLIC):] if source.startswith(LU_PUBLIC) else source.split("://", 1)[-1]
        _manifestation(p, expr, f"pdf/{i}", path, alt, "application/pdf")


def _manifestation(p: Projection, expr: URIRef, name: str, path: str, obs: Mapping[str, Any],
                   content_type: str) -> None:
    m = URIRef(f"{expr}/{name}")
    fmt = "xml" if name == "xml" else "pdf"
    p.graph.add((expr, JOLUX.isEmbodiedBy, m))
    p.graph.add((m, JOLUX.userFormat, URIRef(AUTHORITY + "user-format/" + fmt)))
    p.graph.add((m, JOLUX.isExemplifiedBy, URIRef(LU_DATA + path)))
    p.files[path] = ServedFile(obs["file"], obs["sha256"], obs.get("size"), content_type)


def _work_metadata(g: Graph, work: URIRef, entries: Iterable[Mapping[str, Any]]) -> None:
    act = URIRef(f"{work}/jo")
    for entry in entries:
        kind = entry.get("kind", "")
        if kind == "legilux_same_as":
            g.add((work, OWL.sameAs, URIRef(entry["identifier"])))
        elif kind.startswith("legilux_subject_level"):
            level, _, scheme = kind[len("legilux_subject_level"):].partition("_")
            concept = URIRef(entry["identifier"])
            g.add((act, RDF.type, JOLUX.Act))
            g.add((act, JOLUX.isMemberOf, work))
            g.add((act, JOLUX[f"subjectLevel{level}"], concept))
            g.add((concept, SKOS.prefLabel, Literal(entry["label"], lang="fr")))
            g.add((concept, SKOS.inScheme, URIRef(AUTHORITY + "legal-subject")))
            g.add((concept, SKOS.inScheme, URIRef(AUTHORITY + SCHEMES[scheme])))


def clone(record: Mapping[str, Any], identifier: str) -> Record:
    """A same-day twin of ``record``: its expression pages follow the new consolidation URI."""
    twin = twin_of(record, identifier)
    old_page, new_page = _public(record["publisher_version_identifier"]), _public(identifier)
    twin["expressions"] = [rewrite_expression(e, old_page, new_page) for e in record["expressions"]]
    return twin


def _public(identifier: str) -> str:
    return identifier.replace(LU_DATA, LU_PUBLIC, 1)


def _filestore(projection: Projection | None, request: FileRequest) -> Body | Plain:
    served = projection.files.get("filestore/" + request.params["path"]) if projection else None
    if served is None:
        return Plain(404, "not found")
    return Body([served], served.content_type)


@functools.cache
def replay_projection() -> ReplayProjection:
    """Legilux as the replay plays it (``PublisherPlugin.replay_projection``)."""
    from publishers.legilux.replay_answers import TEMPLATES

    return ReplayProjection(project=project_legilux, clone=clone, sparql_path="/sparqlendpoint",
                            file_routes=(FileRoute("/filestore/{path:path}", _filestore),), templates=TEMPLATES)
