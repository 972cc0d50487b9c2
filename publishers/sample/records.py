"""``lex-corpus/4`` records for the sample: version and work ``meta.json``, ``manifest.json``.

Member order, omitted nulls, the record hash and the on-disk bytes follow the published
trees (``reference/corpus.md`` §1.2-§1.6): the hash is
:func:`legal.dotnet_json.published_record_sha256`; the file is the same .NET-style
serialisation with LF newlines and a trailing newline.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import Any

from legal.dotnet_json import dotnet_serialize, published_record_sha256
from legal.ids import Publisher, VersionKey, WorkSlug
from publishers.sample.model import Expression, Version, Work

SCHEMA = "lex-corpus/4"
NO_COMMIT = "0" * 40

PUBLISHERS: dict[str, dict[str, str]] = {
    Publisher.LEGILUX.value: {
        "id": Publisher.LEGILUX.value,
        "name": "Service central de législation (Legilux) — synthetic demonstration sample",
        "jurisdiction": "LU",
        "homepage": "https://legilux.public.lu",
    },
    Publisher.EURLEX.value: {
        "id": Publisher.EURLEX.value,
        "name": "Publications Office of the EU (EUR-Lex / Cellar) — synthetic demonstration sample",
        "jurisdiction": "EU",
        "homepage": "https://eur-lex.europa.eu",
    },
}

SOURCE_TERMS = {
    Publisher.LEGILUX.value: "https://data.public.lu/en/datasets/legilux-journal-officiel-du-grand-duche-de-luxembourg/",
    Publisher.EURLEX.value: "https://eur-lex.europa.eu/content/legal-notice/legal-notice.html",
}

ATTRIBUTION = (
    "Synthetic demonstration corpus written for the lex-evidence project. Not published by {name}; "
    "the acts, numbers and texts are invented and have no legal value."
)
MODIFICATIONS = (
    "Synthetic: records and bodies written by publishers/sample/generate.py in the shapes the "
    "publisher serves (Akoma Ntoso, CONVEX XHTML, Formex 4, PDF); no publisher text reproduced."
)


def on_disk(record: Mapping[str, Any]) -> bytes:
    """The bytes of a record file: the .NET serialisation with LF newlines and a final newline."""
    return dotnet_serialize(record).replace(b"\r\n", b"\n") + b"\n"


def is_eu(work: Work) -> bool:
    return work.publisher == Publisher.EURLEX.value


def work_slug(work: Work) -> str:
    return WorkSlug.of_work(work.publisher, work.work_identifier).value


def version_key(version: Version) -> str:
    return str(VersionKey.create(dt.date.fromisoformat(version.valid_from), version.pvid))


def valid_to_of(work: Work) -> dict[str, str | None]:
    """``valid_to`` per publisher version identifier, by each publisher's convention.

    Legilux gives the next state's ``valid_from`` (exclusive end); EUR-Lex the day before it
    (inclusive end). Same-date siblings are skipped; the last date stays open.
    """
    dates = sorted({v.valid_from for v in work.versions})
    out: dict[str, str | None] = {}
    for version in work.versions:
        later = [d for d in dates if d > version.valid_from]
        if not later:
            out[version.pvid] = None
        elif is_eu(work):
            out[version.pvid] = (dt.date.fromisoformat(later[0]) - dt.timedelta(days=1)).isoformat()
        else:
            out[version.pvid] = later[0]
    return out


def _expression(expr: Expression, version: Version, valid_to: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"language": expr.language, "valid_from": version.valid_from}
    if valid_to:
        record["valid_to"] = valid_to
    record["valid_time_source"] = "publisher"
    if expr.title:
        record["title"] = expr.title
    if expr.title_short:
        record["title_short"] = expr.title_short
    record["source_uri"] = expr.source_uri
    observations: list[dict[str, Any]] = []
    for body in expr.bodies:
        observation: dict[str, Any] = {
            "file": body.file,
            "sha256": body.sha256,
            "source_uri": body.source_uri,
            "retrieved_at": body.retrieved_at,
            "observed_from": body.retrieved_at,
        }
        if body.format:
            observation["format"] = body.format
        observations.append(observation)
    record["observations"] = observations
    text: dict[str, Any] = {"available": bool(expr.bodies)}
    if not expr.bodies:
        text["reason"] = expr.text_reason or "not-fetched"
    text["url"] = expr.source_uri
    record["text"] = text
    return record


def version_record(work: Work, version: Version, valid_to: str | None) -> dict[str, Any]:
    """The hashed version record, members in the published order, ``record_sha256`` last."""
    record: dict[str, Any] = {
        "lex_id": f"{work.publisher}:{work_slug(work)}:{version_key(version)}",
        "publisher_version_identifier": version.pvid,
        "work_identifier": work.work_identifier,
        "publisher": work.publisher,
    }
    if version.document_type:
        record["document_type"] = version.document_type
    record["valid_from"] = version.valid_from
    if valid_to:
        record["valid_to"] = valid_to
    record["valid_time_source"] = "publisher"
    if version.in_force_status:
        record["in_force_status"] = version.in_force_status
    if version.publication_date:
        record["publication_date"] = version.publication_date
    events: list[dict[str, Any]] = []
    for event in version.events:
        entry: dict[str, Any] = {"event": event.event, "observed_from": event.observed_from}
        if event.scope:
            entry["scope"] = event.scope
        if event.detail:
            entry["detail"] = event.detail
        events.append(entry)
    record["events"] = events
    record["expressions"] = [_expression(e, version, valid_to) for e in version.expressions]
    record["relations"] = [{"type": kind, "target": target} for kind, target in version.relations]
    record["raw"] = dict(version.raw)
    if version.publisher_metadata:
        entries = []
        for meta in sorted(version.publisher_metadata, key=lambda m: m.sort_key()):
            item: dict[str, Any] = {"kind": meta.kind, "identifier": meta.identifier}
            if meta.language:
                item["language"] = meta.language
            item["label"] = meta.label
            item["source_uri"] = meta.source_uri
            entries.append(item)
        record["publisher_metadata"] = entries
    if version.document_roles:
        record["document_roles"] = sorted(version.document_roles)
    record["record_sha256"] = published_record_sha256(record)
    return record


def work_record(work: Work) -> dict[str, Any]:
    """The work ``meta.json`` (not hashed)."""
    slug = work_slug(work)
    record: dict[str, Any] = {
        "lex_work_id": f"{work.publisher}:{slug}",
        "work_identifier": work.work_identifier,
        "publisher": work.publisher,
        "document_type": work.document_type,
        "slug": slug,
        "title": work.title,
    }
    if work.title_language:
        record["title_language"] = work.title_language
    record["source_uri"] = work.source_uri
    return record


def manifest(publisher: str, works: tuple[Work, ...]) -> dict[str, Any]:
    """``manifest.json`` counters for the current (complete) enumeration of ``works``."""
    versions = [v for w in works for v in w.versions]
    expressions = [e for v in versions for e in v.expressions]
    with_text = sum(1 for e in expressions if e.bodies)
    types = Counter(v.document_type for v in versions if v.document_type)
    name = PUBLISHERS[publisher]["name"].split(" — ")[0]
    return {
        "schema": SCHEMA,
        "publisher": PUBLISHERS[publisher],
        "tier": "A",
        "attribution": ATTRIBUTION.format(name=name),
        "source_terms_url": SOURCE_TERMS[publisher],
        "text_included": True,
        "text_public": True,
        "modifications": MODIFICATIONS,
        "document_types": [
            {"code": code, "versions": count}
            for code, count in sorted(types.items(), key=lambda item: (-item[1], item[0]))
        ],
        "languages": sorted({e.language for e in expressions}),
        "works": len(works),
        "versions": len(versions),
        "expressions": len(expressions),
        "expressions_with_text": with_text,
        "expressions_without_text": len(expressions) - with_text,
        "scope_expected_works": len(works),
        "acquisition_retry_maximum_attempts": 4,
        "build_issues": [],
        "valid_from_earliest": min(v.valid_from for v in versions),
        "valid_to_latest": max(v.valid_from for v in versions),
        "history_begins": "publisher",
        "ingester_version": "0.1.0",
        "ingester_code_commit": NO_COMMIT,
        "source_configuration_kind": "code_only",
    }


NOTICE = """NOTICE — synthetic demonstration sample (three layers, as in the published lex-corpus trees)

1. UNDERLYING ACTS AND DOCUMENTS
   There are none. Every act, number, date and sentence in this tree was invented for the
   lex-evidence project and written by publishers/sample/generate.py. The bodies imitate the
   shapes {publisher} serves so that the pipeline can be exercised without the network;
   they reproduce no publisher text and have no legal value. Titles carry the word
   "démonstration" / "Demonstration"; the first article of every act says it is not law.

2. THE COMPILATION
   The selection, arrangement and observation history (events, observations) are part of the
   lex-evidence repository and are distributed with it, under its licence.

3. DO NOT CITE
   Nothing here is the law of Luxembourg or of the European Union. For real texts use
   https://legilux.public.lu and https://eur-lex.europa.eu.
"""

GITATTRIBUTES = "works/** -text -diff\nworks/**/meta.json text eol=lf\nmanifest.json text eol=lf\nNOTICE text eol=lf\n"
