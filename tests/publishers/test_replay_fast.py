"""The replay's fast answers to the adapters' query templates are rdflib's answers, byte for byte.

Every template is rendered the way its adapter renders it (``load_query`` + ``substitute``,
IRIs through ``iri``/``literal``), answered by :class:`publishers.replay.fast.FastAnswers`
and by the generic rdflib path, and the two JSON documents are compared as bytes — on both
fixture projections, under the record-level faults that keep the fast path on, and on graphs
with extra triples that exercise the parts the fixtures leave empty (subjects, aliases,
relations, several values per OPTIONAL).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rdflib import OWL, RDF, SKOS, Dataset, Graph, Literal, URIRef

from legal.ids import Publisher
from publishers.eurlex.replay import CDM, EUROVOC_GRAPH, node, project_eurlex
from publishers.eurlex.scope import PREDICATES, EurlexScope
from publishers.http import iri, literal, load_query
from publishers.legilux.replay import JOLUX, project_legilux
from publishers.replay import ReplayPublisher, load_source
from publishers.replay.app import results_json
from publishers.replay.fast import FastAnswers, compiled, registered_templates
from publishers.replay.projection import quiet_rdflib
from publishers.replay.records import state_records
from publishers.replay.sparql import evaluate
from tests.publishers.conftest import Harness

LU, EU = "publishers.legilux", "publishers.eurlex"
XSD_DATE = URIRef("http://www.w3.org/2001/XMLSchema#date")
XSD_INTEGER = URIRef("http://www.w3.org/2001/XMLSchema#integer")
XSD_DECIMAL = URIRef("http://www.w3.org/2001/XMLSchema#decimal")


def _generic(graph: Graph, query: str) -> bytes:
    with quiet_rdflib():
        return json.dumps(results_json(evaluate(graph, query))).encode("utf-8")


def _fast(graph: Graph, query: str) -> bytes | None:
    with quiet_rdflib():
        document = FastAnswers(graph).answer(query)
    return None if document is None else json.dumps(document).encode("utf-8")


def _same(graph: Graph, query: str) -> int:
    """Assert the fast path answers ``query`` exactly as rdflib does; returns the row count."""
    fast = _fast(graph, query)
    assert fast is not None, query[:200]
    generic = _generic(graph, query)
    assert fast == generic, query[:200]
    return len(json.loads(generic)["results"]["bindings"])


def _batches(items: list[str], size: int) -> Iterator[list[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _lu_queries(works: list[str]) -> Iterator[str]:
    for name in ("catalogue.rq", "manifestations.rq"):
        yield load_query(LU, name).substitute(limit=5001, offset=0)
    for name, offset in (("catalogue.rq", 0), ("catalogue.rq", 200), ("manifestations.rq", 100_000)):
        yield load_query(LU, name).substitute(limit=37, offset=offset)  # pages, and past the end
    for batch in [works, *_batches(works, 8)]:
        values = " ".join(iri(w) for w in batch)
        for name in ("subjects.rq", "same_as.rq"):
            yield load_query(LU, name).substitute(works=values, limit=len(batch) * 512 + 1)
    yield load_query(LU, "subjects.rq").substitute(works=iri(works[0]), limit=1)  # LIMIT cuts the answer


def _eu_queries(aliases: list[str], seeds: list[str]) -> Iterator[str]:
    for batch in [aliases, *_batches(aliases, 16)]:
        values = " ".join(iri(a) for a in batch)
        for name in ("work.rq", "roles.rq", "consolidations.rq", "metadata.rq"):
            yield load_query(EU, name).substitute(aliases=values, limit=len(batch) * 512 + 1)
    yield load_query(EU, "metadata.rq").substitute(aliases=iri(aliases[0]), limit=3)
    predicates = " ".join(iri(p) for p in PREDICATES.values())
    for batch in _batches(seeds, 50):
        pairs = " ".join(f"({literal(c)} {iri('http://publications.europa.eu/resource/celex/' + c)})"
                         for c in batch)
        yield load_query(EU, "relations.rq").substitute(seeds=pairs, predicates=predicates,
                                                       limit=len(batch) * 500 + 1)


def _lu_works(graph: Graph) -> list[str]:
    return sorted({str(o) for o in graph.objects(None, JOLUX.isMemberOf)})


def _eu_aliases(graph: Graph) -> list[str]:
    with quiet_rdflib():
        return sorted({str(o) for s, o in graph.subject_objects(OWL.sameAs) if (s, RDF.type, CDM.act_consolidated)
                       not in graph})


def _celex(alias: str) -> str:
    return alias.rsplit("/", 1)[-1]


@pytest.fixture(scope="module")
def lu_records(lu_tree: Path) -> list[dict[str, Any]]:
    return [v.to_dict() for v in load_source(lu_tree).current]


@pytest.fixture(scope="module")
def eu_records(eu_tree: Path) -> list[dict[str, Any]]:
    return [v.to_dict() for v in load_source(eu_tree).current]


def test_every_template_has_a_solver_for_its_current_text() -> None:
    """An edited ``.rq`` file disables its fast path (pinned SHA-256): review the solver, then
    update the pin."""
    assert [c.template.name for c in compiled()] == [t.name for t in registered_templates()]
    assert {t.name for t in registered_templates()} == {
        "catalogue.rq", "manifestations.rq", "same_as.rq", "subjects.rq", "work.rq", "roles.rq",
        "consolidations.rq", "metadata.rq", "relations.rq"}


def test_legilux_templates_on_the_fixture_projection(lu_records: list[dict[str, Any]]) -> None:
    graph = project_legilux(state_records(lu_records, publisher=Publisher.LEGILUX)).graph
    works = _lu_works(graph)
    rows = [_same(graph, q) for q in _lu_queries(works)]
    assert rows[0] > 200 and rows[1] > 200  # the whole catalogue and the manifestations
    assert rows[2:5] == [37, 37, 0]


def test_eurlex_templates_on_the_fixture_projection(eu_records: list[dict[str, Any]]) -> None:
    graph = project_eurlex(state_records(eu_records, publisher=Publisher.EURLEX)).graph
    aliases = _eu_aliases(graph)
    scope = EurlexScope.load()
    rows = [_same(graph, q) for q in _eu_queries(aliases, [*scope.seeds, *map(_celex, aliases)])]
    assert sum(rows) > 1000


@pytest.mark.parametrize("fault", ["withdrawn", "same_day", "shuffle_seed"])
def test_templates_under_record_level_faults(fault: str, lu_records: list[dict[str, Any]],
                                             eu_records: list[dict[str, Any]]) -> None:
    for publisher, records in ((Publisher.LEGILUX, lu_records), (Publisher.EURLEX, eu_records)):
        pvid = records[0]["publisher_version_identifier"]
        twin = pvid + ("-bis" if publisher is Publisher.LEGILUX else "R(01)")
        options: dict[str, Any] = {"withdrawn": {"withdrawn": [pvid]},
                                   "same_day": {"same_day": [{"of": pvid, "identifier": twin}]},
                                   "shuffle_seed": {"shuffle_seed": 7}}[fault]
        states = state_records(records, publisher=publisher, **options)
        if publisher is Publisher.LEGILUX:
            graph = project_legilux(states).graph
            queries = list(_lu_queries(_lu_works(graph)))[:2]
        else:
            graph = project_eurlex(states).graph
            aliases = _eu_aliases(graph)
            queries = list(_eu_queries(aliases, []))[:4]
        for q in queries:
            _same(graph, q)


def test_legilux_subjects_and_aliases(lu_records: list[dict[str, Any]]) -> None:
    """Discovery metadata (absent from the fixture) projected back and asked for."""
    records = [dict(r) for r in lu_records[:40]]
    scheme = ("theme", "organisation", "place", "legal_resource", "country")
    for i, r in enumerate(records):
        work = r["work_identifier"]
        r["publisher_metadata"] = [
            {"kind": f"legilux_subject_level{1 + i % 2}_{scheme[i % 5]}",
             "identifier": f"http://data.legilux.public.lu/resource/authority/subject/{i % 7}",
             "label": f"Sujet {i % 7}", "language": "fr", "source_uri": work},
            {"kind": "legilux_same_as", "identifier": work.replace("/loi/", "/code/") + f"/alias{i % 3}",
             "label": "alias", "source_uri": work},
        ]
    graph = project_legilux(state_records(records, publisher=Publisher.LEGILUX)).graph
    concept = URIRef("http://data.legilux.public.lu/resource/authority/subject/3")
    graph.add((concept, SKOS.prefLabel, Literal("Subject 3", lang="en")))  # not French: left out
    graph.add((concept, SKOS.prefLabel, Literal("Sujet trois", lang="fr-LU")))  # a French sub-tag
    graph.add((concept, SKOS.prefLabel, Literal("sans langue")))
    works = _lu_works(graph)
    subjects = load_query(LU, "subjects.rq")
    same_as = load_query(LU, "same_as.rq")
    found = 0
    for batch in [works, *_batches(works, 8)]:
        values = " ".join(iri(w) for w in batch)
        found += _same(graph, subjects.substitute(works=values, limit=len(batch) * 1024 + 1))
        found += _same(graph, same_as.substitute(works=values, limit=len(batch) * 512 + 1))
    assert found > 80


def test_eurlex_relations_and_repeated_values(eu_records: list[dict[str, Any]]) -> None:
    graph = project_eurlex(state_records(eu_records, publisher=Publisher.EURLEX)).graph
    assert isinstance(graph, Dataset)
    aliases = _eu_aliases(graph)
    celexes = list(map(_celex, aliases))
    with quiet_rdflib():
        for i, (a, b) in enumerate(itertools.pairwise(celexes)):
            predicate = URIRef(list(PREDICATES.values())[i % len(PREDICATES)])
            graph.add((node(a), predicate, node(b)))
        first = node(celexes[0])
        graph.add((first, CDM.work_date_document, Literal("1999-01-01", datatype=XSD_DATE)))  # two dates
        graph.add((first, CDM.date_creation_legacy, Literal("1998-12-31", datatype=XSD_DATE)))
        concept = URIRef("http://eurovoc.europa.eu/replay-test-concept")
        graph.add((first, CDM.work_is_about_concept_eurovoc, concept))
        eurovoc = graph.graph(EUROVOC_GRAPH)
        eurovoc.add((concept, SKOS.altLabel, Literal("Alt", lang="EN")))
        eurovoc.add((concept, SKOS.prefLabel, Literal("Pref", lang="fr")))
        eurovoc.add((concept, SKOS.prefLabel, Literal("Ohne", lang="de")))  # not en/fr: left out
        eurovoc.add((concept, SKOS.prefLabel, URIRef("http://example.org/not-a-literal")))
    predicates = " ".join(iri(p) for p in PREDICATES.values())
    pairs = " ".join(f"({literal(c)} {iri('http://publications.europa.eu/resource/celex/' + c)})" for c in celexes)
    relations = load_query(EU, "relations.rq").substitute(seeds=pairs, predicates=predicates, limit=100_000)
    assert _same(graph, relations) > 10
    values = " ".join(iri(a) for a in aliases)
    for name in ("work.rq", "metadata.rq", "roles.rq", "consolidations.rq"):
        _same(graph, load_query(EU, name).substitute(aliases=values, limit=100_000))


def test_other_queries_and_doubtful_orders_go_to_rdflib(lu_records: list[dict[str, Any]]) -> None:
    graph = project_legilux(state_records(lu_records[:20], publisher=Publisher.LEGILUX)).graph
    catalogue = load_query(LU, "catalogue.rq").substitute(limit=1000, offset=0)
    assert _fast(graph, "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1") is None
    assert _fast(graph, catalogue.replace("LIMIT 1000", "LIMIT 1000 ")) is None  # not the template
    assert _fast(graph, catalogue.replace("?c a jolux", "?c a  jolux")) is None
    works = " ".join(iri(w) for w in _lu_works(graph))
    assert _fast(graph, load_query(LU, "same_as.rq").substitute(works=works + " <relative>", limit=9)) is None
    # Two titles that rdflib orders as equal (1 = 1.0) although they are different terms: the
    # order of those rows would depend on rdflib's evaluation order, so rdflib answers.
    consolidation = next(iter(graph.subjects(RDF.type, JOLUX.Consolidation)))
    expression = next(iter(graph.objects(consolidation, JOLUX.isRealizedBy)))
    for title in list(graph.objects(expression, JOLUX.title)):
        graph.remove((expression, JOLUX.title, title))
    graph.add((expression, JOLUX.title, Literal("1", datatype=XSD_INTEGER)))
    graph.add((expression, JOLUX.title, Literal("1.0", datatype=XSD_DECIMAL)))
    assert _fast(graph, catalogue) is None
    _generic(graph, catalogue)  # rdflib still answers


def test_the_server_answers_adapter_queries_fast_and_others_with_rdflib(lu_small: Harness) -> None:
    catalogue = load_query(LU, "catalogue.rq").substitute(limit=50, offset=0)
    other = "SELECT ?c WHERE { ?c a <http://data.legilux.public.lu/resource/ontology/jolux#Consolidation> } LIMIT 2"
    graph = lu_small.replay._built.projected["lu-legilux"].graph
    with httpx.Client(base_url=lu_small.base_url) as c:
        first = c.post("/sparqlendpoint", data={"query": catalogue})
        again = c.post("/sparqlendpoint", data={"query": catalogue})
        assert c.post("/sparqlendpoint", data={"query": other}).status_code == 200
        assert first.content == again.content == _generic(graph, catalogue)
        assert lu_small.replay.stats["sparql_fast"] == 1 and lu_small.replay.stats["sparql_evaluated"] == 1
        # While N-Triples patches are applied every query goes to rdflib.
        patch = (f"<{next(iter(graph.subjects(RDF.type, JOLUX.Consolidation)))}> "
                 "<http://data.legilux.public.lu/resource/ontology/jolux#titleShort> \"x\" .")
        assert c.post("/_replay/faults", json={"patch_add": [patch]}).status_code == 200
        patched = c.post("/sparqlendpoint", data={"query": catalogue})
        assert patched.status_code == 200 and lu_small.replay.stats["sparql_fast"] == 1
        assert lu_small.replay.stats["sparql_evaluated"] == 2


def test_replay_publisher_builds_fast_answers_only_without_patches(lu_tree: Path) -> None:
    replay = ReplayPublisher([load_source(lu_tree, works=["loi-2011-04-08-n2"])])
    assert replay._built.fast
    replay.set_faults(patch_remove=["<http://example.org/a> <http://example.org/b> <http://example.org/c> ."])
    assert not replay._built.fast
    replay.reset()
    assert replay._built.fast
