"""A small hand-made corpus (tree records + dataset rows) for index and legal-core tests.

It holds, on purpose: a work with two dated versions and a changed article (EUR-Lex
convention, inclusive ``valid_to``), a text-less work, two *live* same-day states of a
Legilux work (so a bare date is ambiguous), a withdrawn same-day twin, a future state, a
cross-publisher citation, a publisher short title and EuroVoc labels.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from derive.index.inputs import DatasetInput, TreeInput, provision_row
from legal.canonical import digest
from legal.ids import VersionKey, parse_date

EU = "eu-eurlex"
LU = "lu-legilux"
OBSERVED = "2026-01-01T00:00:00Z"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def expression(language: str, title: str, *, available: bool = True, reason: str | None = None,
               title_short: str | None = None, body: str | None = None) -> dict[str, Any]:
    url = f"https://example.test/{language}/{sha(title)[:8]}"
    observations = []
    if available:
        observations.append({"file": f"{language}.html", "sha256": sha(body or title), "source_uri": url,
                             "retrieved_at": OBSERVED, "observed_from": OBSERVED})
    text: dict[str, Any] = {"available": available, "url": url}
    if reason:
        text["reason"] = reason
    out: dict[str, Any] = {"language": language, "valid_time_source": "publisher", "title": title,
                           "source_uri": url, "observations": observations, "text": text}
    if title_short:
        out["title_short"] = title_short
    return out


def version(publisher: str, slug: str, pvid: str, valid_from: str, valid_to: str | None,
            expressions: Sequence[dict[str, Any]], *, withdrawn: bool = False,
            metadata: Sequence[dict[str, Any]] = (), document_type: str = "REG") -> dict[str, Any]:
    key = VersionKey.create(parse_date(valid_from), pvid)
    events = [{"event": "first_sighting", "observed_from": OBSERVED}]
    if withdrawn:
        events.append({"event": "withdrawn_from_source", "observed_from": "2026-02-01T00:00:00Z", "scope": "version"})
    record: dict[str, Any] = {
        "schema": "lex-tree/1", "lex_id": f"{publisher}:{slug}:{key}", "publisher_version_identifier": pvid,
        "work_identifier": f"https://example.test/work/{slug}", "publisher": publisher,
        "document_type": document_type, "valid_from": valid_from,
        "valid_to_convention": "exclusive" if publisher == LU else "inclusive",
        "valid_time_source": "publisher", "events": events, "expressions": list(expressions), "relations": [],
        "raw": {}, "publisher_metadata": list(metadata), "document_roles": [],
    }
    if valid_to:
        record["valid_to"] = valid_to
    record["record_sha256"] = digest(record)
    return record


def rows(record: dict[str, Any], language: str, provisions: Sequence[tuple[str, str | None, str | None, str]],
         *, profile: str = "test/1", citations: dict[str, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    lex_id = record["lex_id"]
    out = []
    position = 0
    for anchor, num, heading, text in provisions:
        out.append({
            "provision_id": f"{lex_id}#{anchor}", "lex_id": lex_id,
            "work_id": lex_id.rsplit(":", 1)[0], "publisher": record["publisher"],
            "version_key": lex_id.rsplit(":", 1)[1], "language": language,
            "valid_from": record["valid_from"], "valid_to": record.get("valid_to"),
            "valid_to_convention": record["valid_to_convention"], "anchor": anchor,
            "type": "article" if anchor.startswith("art_") else "annex", "num": num, "heading": heading,
            "path": ["Chapter I"], "article_valid_from": None, "text_md": text, "text_sha256": sha(text),
            "citations": (citations or {}).get(anchor, []), "profile": profile,
            "evidence_sha256": record["expressions"][0]["observations"][0]["sha256"],
            "evidence_file": f"{language}.html", "record_sha256": record["record_sha256"],
            "span": {"start": position, "end": position + len(text)},
        })
        position += len(text) + 2
    return out


class MemoryTree:
    """An in-memory stand-in for :class:`corpus_tree.CorpusTree` (the builder's read side)."""

    def __init__(self, publisher: str, works: Sequence[dict[str, Any]], versions: dict[str, list[dict[str, Any]]]):
        self._publisher = publisher
        self._works = list(works)
        self._versions = versions

    def manifest(self) -> dict[str, Any]:
        return {"schema": "lex-tree/1", "publisher": {"id": self._publisher}, "text_public": True}

    def works(self) -> Iterator[dict[str, Any]]:
        return iter(self._works)

    def versions(self, slug: str) -> list[dict[str, Any]]:
        return self._versions.get(slug, [])


def work(publisher: str, slug: str, title: str, language: str) -> dict[str, Any]:
    return {"schema": "lex-tree/1", "lex_work_id": f"{publisher}:{slug}", "publisher": publisher, "slug": slug,
            "work_identifier": f"https://example.test/work/{slug}", "title": title, "title_language": language,
            "document_type": "REG"}


SHORT_TITLE = {"kind": "publisher_short_title", "identifier": "http://publications.europa.eu/ontology/cdm#expression_title_short",
               "language": "en", "label": "Thing Regulation, tr", "source_uri": "https://example.test/st"}
EUROVOC = {"kind": "eurovoc", "identifier": "http://eurovoc.europa.eu/4441", "language": "en",
           "label": "consumer protection", "source_uri": "http://eurovoc.europa.eu/4441"}

W1_V1 = [("art_1", "Article 1", "Scope", "The thing applies everywhere."),
         ("art_2", "Article 2", "Penalties", "Penalties are light.")]
W1_V2 = [("art_1", "Article 1", "Scope", "The thing applies everywhere, revised."),
         ("art_2", "Article 2", "Penalties", "Penalties are light."),
         ("art_3", "Article 3", "Protection", "Personal data protection requires a lawful basis.")]


def eu_corpus() -> tuple[MemoryTree, list[dict[str, Any]], list[dict[str, Any]]]:
    w1 = "32099r0001"
    v1 = version(EU, w1, "http://example.test/celex/02099R0001-20200101", "2020-01-01", "2021-12-31",
                 [expression("en", "Regulation on the thing", title_short="Regulation 2099/1")],
                 metadata=[SHORT_TITLE, EUROVOC])
    v2 = version(EU, w1, "http://example.test/celex/02099R0001-20220101", "2022-01-01", None,
                 [expression("en", "Regulation on the thing", title_short="Regulation 2099/1")],
                 metadata=[SHORT_TITLE, EUROVOC])
    w2 = "32099r0002"
    v3 = version(EU, w2, "http://example.test/celex/32099R0002", "2019-06-01", None,
                 [expression("en", "Regulation without text", available=False, reason="publisher_metadata_only")])
    tree = MemoryTree(EU, [work(EU, w1, "Regulation (EU) 2099/1", "en"), work(EU, w2, "Regulation (EU) 2099/2", "en")],
                      {w1: [v1, v2], w2: [v3]})
    data = rows(v1, "en", W1_V1) + rows(v2, "en", W1_V2)
    gaps: list[dict[str, Any]] = []
    return tree, data, gaps


LU_SLUG = "loi-2099-01-01-n1"


def lu_corpus() -> tuple[MemoryTree, list[dict[str, Any]], list[dict[str, Any]]]:
    base = "http://data.legilux.public.lu/eli/etat/leg"
    v1 = version(LU, LU_SLUG, f"{base}/loi/2099/01/01/n1/consolide/20240101", "2024-01-01", "2025-07-28",
                 [expression("fr", "Loi du 1er janvier 2099 sur les choses")], document_type="LOI")
    twin_a = version(LU, LU_SLUG, f"{base}/code/choses/20250728", "2025-07-28", None,
                     [expression("fr", "Code des choses")], document_type="CODE")
    twin_b = version(LU, LU_SLUG, f"{base}/loi/2099/01/01/n1/consolide/20250728", "2025-07-28", None,
                     [expression("fr", "Loi du 1er janvier 2099 sur les choses (consolidée)")], document_type="LOI")
    withdrawn = version(LU, LU_SLUG, f"{base}/loi/2099/01/01/n1/consolide/20250728/old", "2025-07-28", None,
                        [expression("fr", "Retirée", available=False, reason="pending-gate")], withdrawn=True)
    future = version(LU, LU_SLUG, f"{base}/code/choses/20300101", "2030-01-01", None,
                     [expression("fr", "Code des choses (futur)", available=False, reason="publisher_metadata_only")],
                     document_type="CODE")
    cite = {"art_1er": [{"href": "http://data.europa.eu/eli/reg/2099/1/oj", "text": "règlement (UE) 2099/1"}]}
    data = (rows(v1, "fr", [("art_1er", "Art. 1er.", None, "Les choses sont régies par la présente loi."),
                            ("art_42ter", "Art. 42ter.", None, "Disposition quarante-deux ter.")], citations=cite)
            + rows(twin_a, "fr", [("art_1er", "Art. 1er.", None, "Les choses sont régies par le présent code.")],
                   citations=cite)
            + rows(twin_b, "fr", [("art_1er", "Art. 1er.", None, "Les choses sont régies par la loi consolidée.")]))
    tree = MemoryTree(LU, [work(LU, LU_SLUG, "Loi du 1er janvier 2099 sur les choses", "fr")],
                      {LU_SLUG: [v1, twin_a, twin_b, withdrawn, future]})
    gaps = [{"lex_id": future["lex_id"], "work_id": f"{LU}:{LU_SLUG}", "language": "fr",
             "gap": "text_not_available", "reason": "publisher_metadata_only"}]
    return tree, data, gaps


def dataset(row_dicts: Sequence[dict[str, Any]], gap_dicts: Sequence[dict[str, Any]]) -> DatasetInput:
    from derive.index.inputs import gap_row

    return DatasetInput(rows=tuple(provision_row(r, i, f"row {i}") for i, r in enumerate(row_dicts)),
                        gaps=tuple(gap_row(g, "gap") for g in gap_dicts))


def build_handmade(out: Path, built_at: str = "2026-08-01T00:00:00Z") -> dict[str, Path]:
    """Build both hand-made indexes into ``out``; returns publisher → index path."""
    from derive.index.build import build_index
    from derive.index.inputs import read_tree
    from legal.ids import Publisher

    paths = {}
    for publisher, (tree, data, gaps) in ((EU, eu_corpus()), (LU, lu_corpus())):
        result = build_index(Publisher.parse(publisher), read_tree(tree), dataset(data, gaps), out, built_at=built_at)
        paths[publisher] = result.index_path
    return paths


def tree_input(tree: MemoryTree) -> TreeInput:
    from derive.index.inputs import read_tree

    return read_tree(tree)
