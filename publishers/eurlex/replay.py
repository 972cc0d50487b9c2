"""EUR-Lex's replay projection: its records as a CDM graph and a Cellar (what the live
publisher has), played by :mod:`publishers.replay`.

Per work (CELEX ``C``): a Cellar work node ``owl:sameAs`` its CELEX resource, with its
document date (the original state's date), in-force flag, resource type, amends/corrects
edges (from the recorded roles), and its English/French expressions (titles; short titles
from ``publisher_short_title``); per consolidated state a consolidated act based on the work
(CELEX, date, expressions with titles); directory codes and EuroVoc concepts (in the EuroVoc
named graph) rebuilt from ``publisher_metadata`` so that the adapter's queries find exactly
the recorded entries again.

Routes: SPARQL at ``/webapi/rdf/sparql``; Cellar content negotiation at
``/resource/celex/<CELEX>`` (``Accept``, ``Accept-Language``: ``303`` to ``/resource/cellar/…``
for the XHTML or to the Formex zip path; ``406`` when that representation does not exist),
served from two indexes — ``(CELEX, language) → primary body`` and ``(CELEX, language) →
Formex members`` (with the Cellar zip path they were fetched from); the bytes at
``/resource/cellar/<path>``.
"""


from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from rdflib import OWL, RDF, SKOS, XSD, Dataset, Literal, Namespace, URIRef

from publishers.eurlex.vocab import CELEX_BASE
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
    quiet_rdflib,
    rewrite_expression,
    twin_of,
)

CDM = Namespace("http://publications.europa.eu/ontology/cdm#")
EV = Namespace("http://eurovoc.europa.eu/schema#")
CELLAR = "http://publications.europa.eu/resource/cellar/"
LANGUAGE = "http://publications.europa.eu/resource/authority/language/"
RESOURCE_TYPE = "http://publications.europa.eu/resource/authority/resource-type/"
EUROVOC_GRAPH = URIRef("http://eurovoc.europa.eu/100141")
OFFICIAL_CELLAR = "https://publications.europa.eu/"
LANGUAGE_CODES = {"en": "ENG", "fr": "FRA"}
IN_FORCE = URIRef(str(CDM) + "resource_legal_in-force")
RESOURCE_TYPE_P = URIRef(str(CDM) + "work_has_resource-type")
DIRECTORY_P = URIRef(str(CDM) + "resource_legal_is_about_concept_directory-code")


@dataclass(frozen=True, slots=True)
class Formex:
    """The Formex members of one expression and the Cellar path of their zip."""

    path: str
    members: tuple[ServedFile, ...]


@dataclass
class CellarProjection:
    """The CDM dataset and the content-negotiation indexes."""

    graph: Dataset
    primary: dict[tuple[str, str], ServedFile] = field(default_factory=dict)
    formex: dict[tuple[str, str], Formex] = field(default_factory=dict)
    by_sha: dict[str, ServedFile] = field(default_factory=dict)
    #: Formex members by Cellar zip path (the first expression naming a path, as a scan finds it)
    formex_paths: dict[str, Formex] = field(default_factory=dict)


def node(celex: str) -> URIRef:
    """A stable Cellar node for a CELEX (the real Cellar mints UUIDs)."""
    return URIRef(CELLAR + str(uuid.uuid5(uuid.NAMESPACE_URL, CELEX_BASE + celex)))


def celex_of(record: Mapping[str, Any]) -> str:
    celex = record.get("raw", {}).get("celex")
    return str(celex) if celex else str(record["publisher_version_identifier"])[len(CELEX_BASE):]


def project_eurlex(records: Iterable[Mapping[str, Any]]) -> CellarProjection:
    """The CDM dataset and Cellar indexes of the given current records."""
    with quiet_rdflib():
        return _project(records)


def _project(records: Iterable[Mapping[str, Any]]) -> CellarProjection:
    projection = CellarProjection(Dataset(default_union=True))
    by_work: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_work.setdefault(record["work_identifier"], []).append(record)
    for work, states in by_work.items():
        _work(projection, work, sorted(states, key=lambda r: (r["valid_from"], celex_of(r))))
    for formex in projection.formex.values():
        projection.formex_paths.setdefault(formex.path, formex)
    return projection


def _work(p: CellarProjection, work_uri: str, states: list[Mapping[str, Any]]) -> None:
    g = p.graph
    base = work_uri[len(CELEX_BASE):]
    w = node(base)
    original = next((s for s in states if s["publisher_version_identifier"] == work_uri), None)
    first = original or states[0]
    g.add((w, OWL.sameAs, URIRef(work_uri)))
    g.add((w, CDM.resource_legal_id_celex, Literal(base)))
    g.add((w, CDM.work_date_document, Literal(first["valid_from"], datatype=XSD.date)))
    if first.get("in_force_status") is not None:
        g.add((w, IN_FORCE, Literal(first["in_force_status"])))
    if first.get("document_type"):
        g.add((w, RESOURCE_TYPE_P, URIRef(RESOURCE_TYPE + first["document_type"])))
    roles = set(first.get("document_roles", []))
    if "amending" in roles:
        g.add((w, CDM.resource_legal_amends_resource_legal, URIRef(CELLAR + "replay-amended-act")))
    if "corrigendum" in roles:
        g.add((w, CDM.resource_legal_corrects_resource_legal, URIRef(CELLAR + "replay-corrected-act")))
    metadata = states[-1].get("publisher_metadata", [])
    short_titles = {m["language"]: m["label"] for m in metadata if m.get("kind") == "publisher_short_title"}
    _expressions(g, w, first.get("expressions", []), short_titles)
    for state in states:
        if state is not original:
            _consolidation(g, w, state)
        _bodies(p, state)
    _metadata(g, w, base, metadata)


def _expressions(g: Dataset, subject: URIRef, expressions: Iterable[Mapping[str, Any]],
                 short_titles: Mapping[str, str]) -> None:
    languages = {e["language"]: e for e in expressions}
    for language in sorted(set(languages) | set(short_titles)):
        expr = URIRef(f"{subject}.{LANGUAGE_CODES[language]}")
        g.add((expr, CDM.expression_belongs_to_work, subject))
        g.add((expr, CDM.expression_uses_language, URIRef(LANGUAGE + LANGUAGE_CODES[language])))
        title = languages.get(language, {}).get("title")
        if title is not None:
            g.add((expr, CDM.expression_title, Literal(title)))
        if language in short_titles:
            g.add((expr, CDM.expression_title_short, Literal(short_titles[language])))


def _consolidation(g: Dataset, w: URIRef, state: Mapping[str, Any]) -> None:
    celex = celex_of(state)
    s = node(celex)
    g.add((s, RDF.type, CDM.act_consolidated))
    g.add((s, OWL.sameAs, URIRef(CELEX_BASE + celex)))
    g.add((s, CDM.act_consolidated_based_on_resource_legal, w))
    g.add((s, CDM.resource_legal_id_celex, Literal(celex)))
    g.add((s, CDM.act_consolidated_date, Literal(state["valid_from"], datatype=XSD.date)))
    _expressions(g, s, state.get("expressions", []), {})


def _bodies(p: CellarProjection, state: Mapping[str, Any]) -> None:
    celex = celex_of(state)
    for e in state.get("expressions", []):
        primary = primary_observation(e)
        if primary is not None:
            served = ServedFile(primary["file"], primary["sha256"], primary.get("size"),
                                _content_type(primary["file"]))
            p.primary[(celex, e["language"])] = served
            p.by_sha.setdefault(served.sha256, served)
        members = alt_observations(e, "fmx4")
        if members:
            source = members[0]["source_uri"]
            path = source[len(OFFICIAL_CELLAR):] if source.startswith(OFFICIAL_CELLAR) else source.split("/", 3)[-1]
            p.formex[(celex, e["language"])] = Formex(path, tuple(
                ServedFile(o["file"], o["sha256"], o.get("size"), "application/octet-stream") for o in members))


def _content_type(file: str) -> str:
    return "application/xhtml+xml;charset=UTF-8" if file.endswith(".xml") else "text/html;charset=UTF-8"


def _metadata(g: Dataset, w: URIRef, base: str, entries: Iterable[Mapping[str, Any]]) -> None:
    eurovoc = g.graph(EUROVOC_GRAPH)
    hub = URIRef(f"http://eurovoc.europa.eu/replay-hub-{uuid.uuid5(uuid.NAMESPACE_URL, base)}")
    hub_mt = URIRef(f"http://eurovoc.europa.eu/replay-mt-{uuid.uuid5(uuid.NAMESPACE_URL, base)}")
    for m in entries:
        kind, ident = m.get("kind"), URIRef(str(m.get("identifier")))
        label = Literal(m.get("label"), lang=m.get("language"))
        if kind == "directory":
            g.add((w, DIRECTORY_P, ident))
            g.add((ident, SKOS.prefLabel, label))
        elif kind == "eurovoc":
            g.add((w, CDM.work_is_about_concept_eurovoc, ident))
            eurovoc.add((ident, SKOS.prefLabel, label))
        elif kind == "eurovoc_alt_label":
            g.add((w, CDM.work_is_about_concept_eurovoc, ident))
            eurovoc.add((ident, SKOS.altLabel, label))
        elif kind == "eurovoc_broader":
            g.add((w, CDM.work_is_about_concept_eurovoc, hub))
            eurovoc.add((hub, SKOS.broader, ident))
            eurovoc.add((ident, SKOS.prefLabel, label))
        elif kind == "eurovoc_subdomain":
            g.add((w, CDM.work_is_about_concept_eurovoc, hub))
            eurovoc.add((hub, SKOS.inScheme, ident))
            eurovoc.add((ident, RDF.type, EV.MicroThesaurus))
            eurovoc.add((ident, SKOS.prefLabel, label))
        elif kind == "eurovoc_domain":
            g.add((w, CDM.work_is_about_concept_eurovoc, hub))
            eurovoc.add((hub, SKOS.inScheme, hub_mt))
            eurovoc.add((hub_mt, RDF.type, EV.MicroThesaurus))
            eurovoc.add((hub_mt, EV.domain, ident))
            eurovoc.add((ident, SKOS.prefLabel, label))


# -- same-day twins ----------------------------------------------------------------------------------


def clone(record: Mapping[str, Any], identifier: str) -> Record:
    """A same-day twin of ``record``: its CELEX and page URLs follow the new CELEX URI."""
    old_celex, new_celex = record["publisher_version_identifier"][len(CELEX_BASE):], identifier[len(CELEX_BASE):]
    twin = twin_of(record, identifier)
    twin["raw"] = {**record.get("raw", {}), "celex": new_celex}
    twin["expressions"] = [rewrite_expression(e, _escape(old_celex), _escape(new_celex))
                           for e in record["expressions"]]
    return twin


def _escape(celex: str) -> str:
    return "CELEX:" + quote(celex, safe="")


# -- Cellar routes -------------------------------------------------------------------------------------


def _celex(eu: CellarProjection | None, request: FileRequest) -> Body | Plain:
    if eu is None:
        return Plain(404, "no corpus for this publisher")
    celex = unquote(request.params["celex"])
    language = _language(request.headers.get("accept-language", ""))
    accept = request.headers.get("accept", "").replace(" ", "").lower()
    if language is None:
        return Plain(406, "Accept-Language required")
    if "mtype=fmx4" in accept:
        formex = eu.formex.get((celex, language))
        if formex is None:
            return Plain(406, "no Formex manifestation")
        return Plain(303, headers={"Location": f"/{formex.path}"})
    primary = eu.primary.get((celex, language))
    if primary is None:
        known = any(k[0] == celex for k in eu.primary) or any(k[0] == celex for k in eu.formex)
        return Plain(406 if known else 404, "no such expression")
    return Plain(303, headers={"Location": f"/resource/cellar/sha256-{primary.sha256}/DOC_1"})


def _cellar(eu: CellarProjection | None, request: FileRequest) -> Body | Plain:
    path = request.params["path"]
    if eu is None:
        return Plain(404, "not found")
    if path.startswith("sha256-") and path.endswith("/DOC_1"):
        served = eu.by_sha.get(path[len("sha256-"):-len("/DOC_1")])
        if served is None:
            return Plain(404, "not found")
        return Body([served], served.content_type)
    formex = eu.formex_paths.get("resource/cellar/" + path)
    if formex is not None:
        return Body(list(formex.members), "application/zip", zip_key=formex.path)
    return Plain(404, "not found")


def _language(header: str) -> str | None:
    for part in header.lower().split(","):
        tag = part.split(";")[0].strip()
        if tag in ("en", "eng"):
            return "en"
        if tag in ("fr", "fra", "fre"):
            return "fr"
    return None


def _archives(eu: CellarProjection) -> list[tuple[str, tuple[ServedFile, ...]]]:
    """Every Formex zip, as a real Cellar has them ready."""
    return [(formex.path, formex.members) for formex in eu.formex.values()]


@functools.cache
def replay_projection() -> ReplayProjection:
    """EUR-Lex as the replay plays it (``PublisherPlugin.replay_projection``)."""
    from publishers.eurlex.replay_answers import TEMPLATES

    return ReplayProjection(
        project=project_eurlex, clone=clone, sparql_path="/webapi/rdf/sparql",
        file_routes=(FileRoute("/resource/celex/{celex:path}", _celex),
                     FileRoute("/resource/cellar/{path:path}", _cellar)),
        templates=TEMPLATES, archives=_archives)
