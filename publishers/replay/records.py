"""Record-level helpers of the replay: plain dicts of the current records, and the faults that
change *what the publisher says* (withdrawn records, a same-day state added, shuffled order).

Projections work on plain record dicts (``VersionRecord.to_dict()``) so that a fault can
clone or drop records without touching the source tree.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from legal.errors import PublisherError
from legal.ids import Publisher

Record = dict[str, Any]

LU_PUBLIC = "https://legilux.public.lu/"
LU_DATA = "http://data.legilux.public.lu/"
CELEX_BASE = "http://publications.europa.eu/resource/celex/"
EURLEX_TXT = "https://eur-lex.europa.eu/legal-content/"


def state_records(records: Iterable[Mapping[str, Any]], *, withdrawn: Iterable[str] = (),
                  same_day: Sequence[Mapping[str, str]] = (), shuffle_seed: int | None = None,
                  publisher: Publisher) -> list[Record]:
    """The records the replay publishes after the record-level faults."""
    gone = set(withdrawn)
    out = [dict(r) for r in records if r["publisher_version_identifier"] not in gone]
    by_pvid = {r["publisher_version_identifier"]: r for r in out}
    for twin in same_day:
        original = by_pvid.get(twin["of"])
        if original is not None and twin["identifier"] not in by_pvid:
            out.append(clone(original, twin["identifier"], publisher))
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(out)
    return out


def clone(record: Mapping[str, Any], identifier: str, publisher: Publisher) -> Record:
    """A same-day twin of ``record`` under another publisher version identifier.

    Official URIs derived from the identifier follow it (Legilux expression pages; the
    EUR-Lex CELEX and page URLs); bodies are shared.
    """
    old = record["publisher_version_identifier"]
    twin = {k: v for k, v in record.items() if k not in ("record_sha256", "lex_id", "provenance")}
    twin["publisher_version_identifier"] = identifier
    if publisher is Publisher.LEGILUX:
        old_page, new_page = _lu_public(old), _lu_public(identifier)
        twin["expressions"] = [_rewrite_expression(e, old_page, new_page) for e in record["expressions"]]
    elif publisher is Publisher.EURLEX:
        old_celex, new_celex = old[len(CELEX_BASE):], identifier[len(CELEX_BASE):]
        twin["raw"] = {**record.get("raw", {}), "celex": new_celex}
        twin["expressions"] = [_rewrite_expression(e, _escape(old_celex), _escape(new_celex))
                               for e in record["expressions"]]
    else:
        raise PublisherError(f"the replay cannot clone records of {publisher}", code="replay_unsupported_publisher",
                             subject=str(publisher))
    return twin


def _rewrite_expression(e: Mapping[str, Any], old: str, new: str) -> Record:
    out = dict(e)
    for key in ("source_uri",):
        if isinstance(out.get(key), str):
            out[key] = out[key].replace(old, new)
    text = dict(out.get("text", {}))
    if isinstance(text.get("url"), str):
        text["url"] = text["url"].replace(old, new)
    out["text"] = text
    out["observations"] = [dict(o, source_uri=o["source_uri"].replace(old, new)) if o.get("format") is None
                           else dict(o) for o in e.get("observations", [])]
    return out


def _lu_public(identifier: str) -> str:
    return identifier.replace(LU_DATA, LU_PUBLIC, 1)


def _escape(celex: str) -> str:
    return "CELEX:" + quote(celex, safe="")


def primary_observation(expression: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The latest observation without ``format`` (the primary body), if any."""
    found = [o for o in expression.get("observations", []) if o.get("format") is None]
    return found[-1] if found else None


def alt_observations(expression: Mapping[str, Any], fmt: str) -> list[Mapping[str, Any]]:
    return [o for o in expression.get("observations", []) if o.get("format") == fmt]
