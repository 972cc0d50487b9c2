"""A toy third publisher (``xx-toy``), registered from this test only, end to end.

The toy declares what ``docs/adding-a-publisher.md`` asks of a publisher — facts
(:class:`legal.publishers.PublisherFacts`) and a plugin with an adapter factory and a replay
projection — and nothing else in the repository knows it. Its two works have two versions
each; their bodies are Akoma Ntoso bytes of the shape the ``akn-lu/1`` profile reads (built
here, not copied from fixtures). The chain:

1. the toy's catalogue is recorded once into a seed tree (an in-memory adapter);
2. the replay publisher plays the seed tree on loopback through the toy's projection (its own
   SPARQL path and file route, no branch in the replay);
3. ``publishers.wiring.run_ingest`` ingests it over HTTP into a fresh tree through the toy's
   adapter (built by the plugin);
4. ``derive.dataset.build_dataset`` derives its provisions, ``derive.index.build`` indexes them;
5. ``serve.core.LegalCore`` answers ``as_of`` with the right version's wording.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from rdflib import RDF, Graph, Literal, Namespace, URIRef

from corpus_tree import CorpusTree
from corpus_tree.model import Enumeration, ExpressionInput, VersionInput, WorkInput
from legal.errors import PublisherError
from legal.ids import Publisher
from legal.outcomes import FetchOutcome, TimelineSemantics, ValidToConvention
from legal.publishers import IdentifierRules, PublisherFacts
from publishers.http import HttpClient, HttpPolicy, SparqlClient
from publishers.ingest import ingest
from publishers.protocol import (
    FetchResult,
    Manifestation,
    PublisherEnumeration,
    require_nonempty,
    sha256_member,
    status_result,
)
from publishers.registry import PublisherPlugin, register_plugin, unregister_plugin
from publishers.replay import ReplayPublisher, load_source, serve_in_thread
from publishers.replay.projection import (
    Body,
    FileRequest,
    FileRoute,
    Plain,
    Record,
    ReplayProjection,
    ServedFile,
    primary_observation,
    rewrite_expression,
    twin_of,
)
from publishers.wiring import run_ingest

# -- the toy publisher: facts ---------------------------------------------------------------------------

HOST = "https://toy.example/"
TOY_NS = Namespace(HOST + "ns#")


def _work_slug(uri: str) -> str:
    return uri.rsplit("/", 1)[-1].lower()


def _url_slugs(url: str) -> list[str]:
    return [url[len(HOST + "act/"):].split("/", 1)[0].lower()] if url.startswith(HOST + "act/") else []


TOY = PublisherFacts(
    id="xx-toy", jurisdiction="XX", valid_to_convention=ValidToConvention.EXCLUSIVE,
    timeline_semantics=TimelineSemantics.PUBLISHER_APPLICABILITY, name="Toy (XX)", authority="Toy office",
    identifiers=IdentifierRules(work_slug=_work_slug, url_slugs=_url_slugs), profiles=("akn-lu/1",),
)

# -- the toy's catalogue: two works, two versions each ------------------------------------------------------

#: work → [(valid_from, valid_to), …]; ``valid_to`` as the publisher gives it (exclusive: next start).
CATALOGUE: dict[str, list[tuple[str, str | None]]] = {
    "ACT-1": [("2020-01-01", "2022-01-01"), ("2022-01-01", None)],
    "ACT-2": [("2019-05-01", "2023-03-01"), ("2023-03-01", None)],
}


def wording(work: str, valid_from: str, article: int) -> str:
    return f"The toy rule {article} of {work} as worded from {valid_from}."


def akn(work: str, valid_from: str) -> bytes:
    """An Akoma Ntoso body shaped like a Legilux one (``akn-lu/1`` reads it)."""
    articles = "".join(
        f'<article id="art_{n}"><num>Art. {n}.</num><content><p>{wording(work, valid_from, n)}</p></content></article>'
        for n in (1, 2))
    return ('<?xml version="1.0" encoding="UTF-8"?>'
            '<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0">'
            f'<act name="toy"><body>{articles}</body></act></akomaNtoso>').encode()


def _rows() -> list[dict[str, str]]:
    """The catalogue as the toy's SPARQL endpoint answers it (one row per version)."""
    rows = []
    for work, versions in CATALOGUE.items():
        for valid_from, valid_to in versions:
            row = {"v": f"{HOST}act/{work}/{valid_from}", "work": f"{HOST}act/{work}", "from": valid_from,
                   "title": f"Toy act {work}", "file": f"{HOST}files/{work.lower()}/{valid_from}/fr.xml"}
            if valid_to:
                row["to"] = valid_to
            rows.append(row)
    return rows


# -- the toy publisher: adapter -----------------------------------------------------------------------------

QUERY = f"""PREFIX toy: <{TOY_NS}>
SELECT ?v ?work ?from ?to ?title ?file WHERE {{
  ?v a toy:Version ; toy:work ?work ; toy:validFrom ?from ; toy:title ?title ; toy:file ?file .
  OPTIONAL {{ ?v toy:validTo ?to }}
}} ORDER BY ?v"""


def listing(rows: Sequence[Mapping[str, str]], base_url: str) -> PublisherEnumeration:
    publisher = Publisher.parse(TOY.id)
    works: dict[str, WorkInput] = {}
    versions, manifestations = [], []
    for row in rows:
        slug = _work_slug(row["work"])
        works.setdefault(slug, WorkInput(slug=slug, work_identifier=row["work"], title=row["title"],
                                         title_language="fr"))
        valid_from = _dt.date.fromisoformat(row["from"])
        valid_to = _dt.date.fromisoformat(row["to"]) if row.get("to") else None
        versions.append(VersionInput(slug=slug, publisher_version_identifier=row["v"], work_identifier=row["work"],
                                     valid_from=valid_from, valid_to=valid_to,
                                     expressions=(ExpressionInput(language="fr", source_uri=row["v"] + "/fr",
                                                                  title=row["title"]),)))
        manifestations.append(Manifestation(slug=slug, publisher_version_identifier=row["v"], valid_from=valid_from,
                                            language="fr", url=f"{base_url}/toy/{row['file'][len(HOST):]}",
                                            source_uri=row["file"], file="fr.xml"))
    enumeration = Enumeration(publisher=publisher, complete=True, works=tuple(works.values()),
                              versions=tuple(versions))
    return PublisherEnumeration(enumeration, tuple(manifestations))


@dataclass
class ToyAdapter:
    """The toy's adapter: one SPARQL query for the catalogue, one GET per body."""

    http: HttpClient
    base_url: str
    publisher: Publisher = field(default_factory=lambda: Publisher.parse(TOY.id))

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        rows = SparqlClient(self.http, self.base_url + "/toy/sparql").select(QUERY, subject="toy catalogue")
        return listing(rows, self.base_url)

    def fetch(self, m: Manifestation) -> FetchResult:
        response = self.http.get(m.url)
        refused = status_result(m, response.status, response.url)
        if refused is not None:
            return refused
        member = sha256_member(m, m.file or "fr.xml", require_nonempty(m, response.body))
        return FetchResult(FetchOutcome.OK, m, body=response.body, members=(member,), status=200,
                           final_url=response.url)


@dataclass
class CatalogueAdapter:
    """The toy publisher itself, in memory: records the catalogue into a seed tree."""

    publisher: Publisher = field(default_factory=lambda: Publisher.parse(TOY.id))

    def enumerate(self, scope: object | None = None) -> PublisherEnumeration:
        return listing(_rows(), "memory:")

    def fetch(self, m: Manifestation) -> FetchResult:
        work, valid_from = m.source_uri[len(HOST + "files/"):].split("/")[:2]
        body = akn(work.upper(), valid_from)
        return FetchResult(FetchOutcome.OK, m, body=body, members=(sha256_member(m, "fr.xml", body),), status=200)


def make_adapter(client: httpx.Client, replay_url: str | None, policy: dict[str, Any],
                 extra: dict[str, Any]) -> ToyAdapter:
    if replay_url is None:
        raise PublisherError("the toy publisher is played by the replay only", code="invalid_option")
    return ToyAdapter(HttpClient(client, HttpPolicy(**policy), **extra), replay_url)


# -- the toy publisher: replay projection ---------------------------------------------------------------------


@dataclass
class ToyProjection:
    graph: Graph
    files: dict[str, ServedFile] = field(default_factory=dict)


def project(records: list[Record]) -> ToyProjection:
    p = ToyProjection(Graph())
    for record in records:
        v = URIRef(record["publisher_version_identifier"])
        p.graph.add((v, RDF.type, TOY_NS.Version))
        p.graph.add((v, TOY_NS.work, URIRef(record["work_identifier"])))
        p.graph.add((v, TOY_NS.validFrom, Literal(record["valid_from"])))
        if record.get("valid_to"):
            p.graph.add((v, TOY_NS.validTo, Literal(record["valid_to"])))
        for e in record["expressions"]:
            primary = primary_observation(e)
            if e.get("title"):
                p.graph.add((v, TOY_NS.title, Literal(e["title"])))
            if primary is not None:
                p.graph.add((v, TOY_NS.file, URIRef(primary["source_uri"])))
                p.files[primary["source_uri"][len(HOST):]] = ServedFile(primary["file"], primary["sha256"],
                                                                        primary.get("size"), "application/xml")
    return p


def clone(record: Mapping[str, Any], identifier: str) -> Record:
    twin = twin_of(record, identifier)
    twin["expressions"] = [rewrite_expression(e, record["publisher_version_identifier"], identifier)
                           for e in record["expressions"]]
    return twin


def files(p: ToyProjection | None, request: FileRequest) -> Body | Plain:
    served = p.files.get("files/" + request.params["path"]) if p is not None else None
    return Plain(404, "not found") if served is None else Body([served], served.content_type)


PROJECTION = ReplayProjection(project=project, clone=clone, sparql_path="/toy/sparql",
                              file_routes=(FileRoute("/toy/files/{path:path}", files),))
PLUGIN = PublisherPlugin(facts=TOY, make_adapter=make_adapter, replay_projection=lambda: PROJECTION)


# -- the chain ------------------------------------------------------------------------------------------------

NOW = _dt.datetime(2026, 12, 1, 6, 0, 0, tzinfo=_dt.UTC)
BUILT_AT = "2026-12-01T06:00:00Z"


@pytest.fixture
def toy() -> Iterator[Publisher]:
    register_plugin(PLUGIN)
    try:
        yield Publisher.parse(TOY.id)
    finally:
        unregister_plugin(TOY.id)


def _versions(tree: CorpusTree) -> list[tuple[str, str, str | None, tuple[str, ...]]]:
    out = []
    for v in tree.iter_versions(verify=True):
        d = v.to_dict()
        shas = tuple(o["sha256"] for e in d["expressions"] for o in e.get("observations", []))
        out.append((v.lex_id, d["valid_from"], d.get("valid_to"), shas))
    return sorted(out)


def test_the_toy_publisher_end_to_end(toy: Publisher, tmp_path: Path) -> None:
    seed = CorpusTree.open_or_create(tmp_path / "seed")
    ingest(CatalogueAdapter(), seed, now=NOW, durable=False)
    assert len(_versions(seed)) == 4

    replay = ReplayPublisher([load_source(tmp_path / "seed")])
    with serve_in_thread(replay.app()) as base_url:
        report = run_ingest(toy, tmp_path / "tree", replay_url=base_url)
    assert replay.stats["sparql"] == 1 and replay.stats["bodies"] == 4
    tree = CorpusTree.open(tmp_path / "tree")
    assert _versions(tree) == _versions(seed)  # the round trip through the replay keeps every record
    assert report.to_dict()["publisher"] == TOY.id

    from derive.dataset import build_dataset
    from derive.index.build import build_from_paths

    build_dataset(tree, tmp_path / "dataset")
    built = build_from_paths(toy, tree, tmp_path / "dataset", tmp_path / "index", built_at=BUILT_AT)
    assert {k: built.stamp[k] for k in ("publisher", "jurisdiction", "timeline_semantics", "valid_to_convention")} == {
        "publisher": TOY.id, "jurisdiction": "XX", "timeline_semantics": "publisher_applicability",
        "valid_to_convention": "exclusive"}  # from the facts

    from serve.core import LegalCore

    core = LegalCore.mount(tmp_path / "index", {"set_id": "toy-set"})
    for work, date, expected in (("act-1", "2021-06-01", "2020-01-01"), ("act-1", "2022-01-01", "2022-01-01"),
                                 ("act-2", "2023-02-28", "2019-05-01"), ("act-2", "2024-01-01", "2023-03-01")):
        answer = core.call("as_of", {"work": f"xx-toy:{work}", "date": date})
        assert answer["outcome"] == "succeeded", answer
        assert answer["publisher"] == TOY.id
        assert answer["version"]["valid_from"] == expected
        assert [p["text"] for p in answer["provisions"]] == [wording(work.upper(), expected, n) for n in (1, 2)]


def test_a_registered_publisher_without_a_projection_is_refused_by_the_replay(tmp_path: Path) -> None:
    register_plugin(PublisherPlugin(facts=TOY, make_adapter=make_adapter))
    try:
        seed = CorpusTree.open_or_create(tmp_path / "seed")
        ingest(CatalogueAdapter(), seed, now=NOW, durable=False)
        with pytest.raises(PublisherError) as err:
            ReplayPublisher([load_source(tmp_path / "seed")])
        assert err.value.code == "replay_unsupported_publisher"
    finally:
        unregister_plugin(TOY.id)


def test_the_toy_twin_follows_its_identifier(toy: Publisher) -> None:
    from publishers.replay.records import clone as replay_clone

    record = {"publisher_version_identifier": f"{HOST}act/ACT-1/2020-01-01", "lex_id": "x",
              "expressions": [{"language": "fr", "source_uri": f"{HOST}act/ACT-1/2020-01-01/fr", "text": {},
                               "observations": []}]}
    twin = replay_clone(record, f"{HOST}act/ACT-1/2020-01-01-bis", toy)
    assert twin["expressions"][0]["source_uri"] == f"{HOST}act/ACT-1/2020-01-01-bis/fr" and "lex_id" not in twin
