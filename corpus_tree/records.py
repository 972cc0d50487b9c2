"""Work and version records of a ``lex-tree/1`` corpus tree: typed readers, hashing, rendering.

A record on disk is ``legal.canonical.pretty_bytes(record)``. A version record's
``record_sha256`` is ``legal.canonical.digest`` of the record without ``record_sha256``, so
it is recomputed over the parsed value and a read then re-write never changes it.

The readers (:class:`WorkRecord`, :class:`VersionRecord` and their parts) are frozen
dataclasses with typed fields; they also behave as read-only mappings over the record as
stored (``record["valid_from"]``, ``record.get("document_type")``), and :meth:`to_dict`
returns a deep copy of the stored value.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from legal.canonical import digest, json_loads, orjson_module, pretty_bytes, pretty_bytes_unchecked
from legal.errors import CorpusError, IdentityError, IntegrityError
from legal.ids import Publisher, VersionId, VersionKey, WorkId, WorkSlug, parse_date
from legal.outcomes import RecordEvent, ValidToConvention
from legal.validity import Interval, convention_of

SCHEMA = "lex-tree/1"
_HEX64 = re.compile(r"[0-9a-f]{64}")
RECORD_FILE = "meta.json"

#: Members a version record may carry, in the documented order (rendering sorts keys anyway).
VERSION_MEMBERS = (
    "schema", "lex_id", "publisher_version_identifier", "work_identifier", "publisher",
    "document_type", "valid_from", "valid_to", "valid_to_convention", "valid_time_source",
    "in_force_status", "publication_date", "events", "expressions", "relations", "raw",
    "publisher_metadata", "document_roles", "provenance", "record_sha256",
)
REQUIRED_VERSION_MEMBERS = (
    "schema", "lex_id", "publisher_version_identifier", "work_identifier", "publisher", "valid_from",
    "valid_to_convention", "valid_time_source", "events", "expressions", "relations", "raw",
    "publisher_metadata", "document_roles", "record_sha256",
)
WORK_MEMBERS = (
    "schema", "lex_work_id", "work_identifier", "publisher", "slug", "document_type", "title",
    "title_language", "source_uri",
)
EXPRESSION_MEMBERS = (
    "language", "valid_from", "valid_to", "valid_time_source", "title", "title_short", "source_uri",
    "observations", "text",
)
OBSERVATION_MEMBERS = (
    "file", "sha256", "size", "source_uri", "retrieved_at", "observed_from", "format", "held_elsewhere",
)
EVENT_MEMBERS = ("event", "observed_from", "scope", "detail")
TEXT_MEMBERS = ("available", "reason", "url")

_LIFECYCLE = (RecordEvent.WITHDRAWN_FROM_SOURCE.value, RecordEvent.RESIGHTED.value)


# -- hashing and rendering ----------------------------------------------------------------------


def record_sha256(record: Mapping[str, Any]) -> str:
    """``digest`` of the canonical JSON of ``record`` without its ``record_sha256`` member."""
    return digest({k: v for k, v in record.items() if k != "record_sha256"})


def seal(record: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` with ``record_sha256`` (re)computed."""
    out = {k: v for k, v in record.items() if k != "record_sha256"}
    out["record_sha256"] = digest(out)
    return out


def render(record: Mapping[str, Any]) -> bytes:
    """The on-disk bytes of a record (pretty, sorted keys, LF, final newline)."""
    return pretty_bytes(record)


def render_unchecked(record: Mapping[str, Any]) -> bytes:
    """:func:`render` without its canonicalisability pre-check.

    Only for values already known to be canonical JSON without floats (e.g. just hashed with
    :func:`legal.canonical.digest`, or parsed by :func:`parse_record_bytes`, which refuses floats);
    byte-identical to :func:`render` for those (:func:`legal.canonical.pretty_bytes_unchecked`:
    ``orjson``, ``json`` for what it refuses; a lone surrogate raises ``UnicodeEncodeError``).
    """
    return pretty_bytes_unchecked(record)


def parse_canonical_record(data: bytes) -> dict[str, Any] | None:
    """The record in ``data`` when ``data`` is exactly :func:`render_unchecked` of a float-free
    JSON object, else None (then :func:`parse_record_bytes` reads it and says what is wrong).

    For those bytes this is :func:`parse_record_bytes`'s very value, by a C parser: bytes that are
    the rendering of the value they parse to have no duplicate member (a rendering holds each
    member once) and are strict UTF-8 JSON; floats are looked for in the value. Anything the C
    parser refuses, or whose rendering differs, is None."""
    loads = json_loads()
    try:
        value = loads(data)
    except ValueError:  # orjson's and json's decode errors are ValueErrors
        return None
    if type(value) is not dict or _holds_float(value):
        return None
    try:
        if render_unchecked(value) != data:
            return None
    except UnicodeEncodeError:
        return None
    return value


def _holds_float(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            return True
    return False


def parse_record_bytes(data: bytes, path: str) -> dict[str, Any]:
    """Parse a record file strictly: UTF-8, JSON object, no duplicate members, no floats."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"record is not UTF-8 ({exc.reason} at byte {exc.start})", code="not_utf8",
                          subject=path) from None

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise CorpusError(f"duplicate member {key!r}", code="duplicate_member", subject=path)
            out[key] = value
        return out

    def no_float(text: str) -> Any:
        raise CorpusError(f"number {text!r} is not allowed in a record", code="float_not_allowed", subject=path)

    try:
        value = json.loads(text, object_pairs_hook=no_duplicates, parse_float=no_float,
                           parse_constant=no_float)
    except json.JSONDecodeError as exc:
        raise CorpusError(f"malformed JSON: {exc.msg} (line {exc.lineno} column {exc.colno})",
                          code="malformed_json", subject=path) from None
    if not isinstance(value, dict):
        raise CorpusError("a record must be a JSON object", code="not_an_object", subject=path)
    return value


# -- small typed accessors ---------------------------------------------------------------------


def _fail(message: str, path: str | None, code: str = "invalid_record") -> CorpusError:
    return CorpusError(message, code=code, subject=path)


def _str(d: Mapping[str, Any], key: str, path: str | None, *, required: bool = True) -> str | None:
    value = d.get(key)
    if value is None:
        if required:
            raise _fail(f"missing member {key!r}", path)
        return None
    if not isinstance(value, str):
        raise _fail(f"member {key!r} must be a string", path)
    return value


def _req(d: Mapping[str, Any], key: str, path: str | None) -> str:
    value = _str(d, key, path)
    assert value is not None
    return value


def _list(d: Mapping[str, Any], key: str, path: str | None) -> list[Any]:
    value = d.get(key, [])
    if not isinstance(value, list):
        raise _fail(f"member {key!r} must be a list", path)
    return value


def _check_members(d: Mapping[str, Any], allowed: Sequence[str], what: str, path: str | None) -> None:
    unknown = sorted(set(d) - set(allowed))
    if unknown:
        raise _fail(f"unknown {what} member(s): {', '.join(unknown)}", path, code="unknown_member")


def _date(text: str | None, what: str, path: str | None) -> _dt.date | None:
    if text is None:
        return None
    try:
        return parse_date(text, what=what)
    except IdentityError as exc:
        raise _fail(exc.message, path, code="invalid_date") from None


# -- parts ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    """One transaction-time event of a version record."""

    event: RecordEvent
    observed_from: str
    scope: str | None = None
    detail: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str | None = None) -> Event:
        if not isinstance(d, Mapping):
            raise _fail("an event must be an object", path)
        _check_members(d, EVENT_MEMBERS, "event", path)
        name = _req(d, "event", path)
        try:
            event = RecordEvent(name)
        except ValueError:
            raise _fail(f"unknown event {name!r}", path, code="unknown_event") from None
        return cls(event, _req(d, "observed_from", path), _str(d, "scope", path, required=False),
                   _str(d, "detail", path, required=False))

    def to_dict(self) -> dict[str, str]:
        out = {"event": self.event.value, "observed_from": self.observed_from}
        if self.scope is not None:
            out["scope"] = self.scope
        if self.detail is not None:
            out["detail"] = self.detail
        return out


@dataclass(frozen=True, slots=True)
class Observation:
    """One sighting of a manifestation: the body is in the evidence store under ``sha256``
    unless ``held_elsewhere`` (the record names it but this store does not hold its bytes)."""

    file: str
    sha256: str
    source_uri: str
    retrieved_at: str
    format: str | None = None
    size: int | None = None
    held_elsewhere: bool = False
    observed_from: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str | None = None) -> Observation:
        if not isinstance(d, Mapping):
            raise _fail("an observation must be an object", path)
        _check_members(d, OBSERVATION_MEMBERS, "observation", path)
        sha = _req(d, "sha256", path)
        if not _HEX64.fullmatch(sha):
            raise _fail(f"observation sha256 {sha!r} is not 64 lower-case hex", path, code="invalid_sha256")
        size = d.get("size")
        if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
            raise _fail("observation size must be a non-negative integer", path)
        held = d.get("held_elsewhere", False)
        if not isinstance(held, bool):
            raise _fail("held_elsewhere must be a boolean", path)
        return cls(_req(d, "file", path), sha, _req(d, "source_uri", path), _req(d, "retrieved_at", path),
                   _str(d, "format", path, required=False), size, held,
                   _str(d, "observed_from", path, required=False))

    @property
    def is_primary(self) -> bool:
        return self.format is None


@dataclass(frozen=True, slots=True)
class TextStatus:
    available: bool
    reason: str | None = None
    url: str | None = None

    @classmethod
    def from_dict(cls, d: Any, path: str | None = None) -> TextStatus:
        if not isinstance(d, Mapping):
            raise _fail("expression text must be an object", path)
        _check_members(d, TEXT_MEMBERS, "text", path)
        available = d.get("available")
        if not isinstance(available, bool):
            raise _fail("text.available must be a boolean", path)
        return cls(available, _str(d, "reason", path, required=False), _str(d, "url", path, required=False))


@dataclass(frozen=True, slots=True)
class Expression:
    """A version in one language, with its own interval and observations."""

    language: str
    valid_from: str
    valid_to: str | None
    title: str | None
    title_short: str | None
    source_uri: str | None
    observations: tuple[Observation, ...]
    text: TextStatus
    valid_time_source: str | None = None

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str | None = None) -> Expression:
        if not isinstance(d, Mapping):
            raise _fail("an expression must be an object", path)
        _check_members(d, EXPRESSION_MEMBERS, "expression", path)
        valid_from = _req(d, "valid_from", path)
        valid_to = _str(d, "valid_to", path, required=False)
        _date(valid_from, "expression valid_from", path)
        _date(valid_to, "expression valid_to", path)
        return cls(
            language=_req(d, "language", path), valid_from=valid_from, valid_to=valid_to,
            title=_str(d, "title", path, required=False), title_short=_str(d, "title_short", path, required=False),
            source_uri=_str(d, "source_uri", path, required=False),
            observations=tuple(Observation.from_dict(o, path) for o in _list(d, "observations", path)),
            text=TextStatus.from_dict(d.get("text"), path),
            valid_time_source=_str(d, "valid_time_source", path, required=False),
        )

    @property
    def has_text(self) -> bool:
        """Text available and at least one observation recorded."""
        return self.text.available and bool(self.observations)

    def primary(self) -> Observation | None:
        """The latest primary (non-``format``) observation, if any."""
        found = [o for o in self.observations if o.is_primary]
        return found[-1] if found else None


def is_withdrawn(events: Sequence[Event] | Sequence[Mapping[str, Any]]) -> bool:
    """The last of {withdrawn_from_source, resighted} is withdrawn_from_source."""
    last = None
    for e in events:
        name = e.event.value if isinstance(e, Event) else e.get("event")
        if name in _LIFECYCLE:
            last = name
    return last == RecordEvent.WITHDRAWN_FROM_SOURCE.value


class _MappingView(Mapping[str, Any]):
    """Read-only mapping access to the stored value (``data``)."""

    data: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the record as stored."""
        return copy.deepcopy(dict(self.data))


# -- work records --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class WorkRecord(_MappingView):
    """``works/<slug>/meta.json``: a work across its life (not hashed itself; the manifest's
    ``records_digest`` covers it)."""

    lex_work_id: str
    work_identifier: str
    publisher: Publisher
    slug: str
    document_type: str | None
    title: str | None
    title_language: str | None
    source_uri: str | None
    data: Mapping[str, Any] = field(repr=False)
    path: str | None = field(default=None, repr=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str | None = None) -> WorkRecord:
        _check_members(d, WORK_MEMBERS, "work", path)
        if d.get("schema") != SCHEMA:
            raise _fail(f"work record schema {d.get('schema')!r} is not {SCHEMA!r}", path, code="unknown_schema")
        try:
            publisher = Publisher.parse(_req(d, "publisher", path))
            slug = WorkSlug(_req(d, "slug", path))
        except IdentityError as exc:
            raise _fail(exc.message, path, code=exc.code) from None
        return cls(
            lex_work_id=_req(d, "lex_work_id", path), work_identifier=_req(d, "work_identifier", path),
            publisher=publisher, slug=slug.value, document_type=_str(d, "document_type", path, required=False),
            title=_str(d, "title", path, required=False), title_language=_str(d, "title_language", path, required=False),
            source_uri=_str(d, "source_uri", path, required=False), data=d, path=path,
        )

    @property
    def work_id(self) -> WorkId:
        return WorkId(self.publisher, WorkSlug(self.slug))

    def digest(self) -> str:
        """``digest`` of the work record (what the manifest's ``records_digest`` covers)."""
        return digest(self.data)


def build_work_record(
    publisher: Publisher, slug: str, work_identifier: str, *, document_type: str | None = None,
    title: str | None = None, title_language: str | None = None, source_uri: str | None = None,
) -> dict[str, Any]:
    """A ``lex-tree/1`` work record (``None`` members omitted)."""
    wid = WorkId(publisher, WorkSlug(slug))
    out: dict[str, Any] = {
        "schema": SCHEMA, "lex_work_id": str(wid), "work_identifier": work_identifier,
        "publisher": publisher.value, "slug": wid.slug.value,
    }
    for key, value in (("document_type", document_type), ("title", title), ("title_language", title_language),
                       ("source_uri", source_uri)):
        if value is not None:
            out[key] = value
    return out


# -- version records -------------------------------------------------------------------------------


class _VersionIdentity:
    """The identity and key of a version, derived from its ``lex_id``, ``valid_from``,
    ``publisher_version_identifier`` and ``expressions`` (shared by :class:`VersionRecord` and
    :class:`VersionSummary`)."""

    __slots__ = ()
    lex_id: str
    publisher_version_identifier: str
    valid_from: str
    expressions: tuple[Expression, ...]

    @property
    def version_id(self) -> VersionId:
        return VersionId.parse(self.lex_id)

    @property
    def version_key(self) -> VersionKey:
        return self.version_id.key

    @property
    def work_id(self) -> WorkId:
        return self.version_id.work

    def expected_key(self) -> VersionKey:
        """The v4 key the record's own ``valid_from`` and identifier determine."""
        return VersionKey.create(parse_date(self.valid_from), self.publisher_version_identifier)

    def expression(self, language: str) -> Expression | None:
        for e in self.expressions:
            if e.language == language:
                return e
        return None


@dataclass(frozen=True, eq=False)
class VersionRecord(_MappingView, _VersionIdentity):
    """``works/<slug>/versions/<version_key>/meta.json``: one dated state, hashed."""

    lex_id: str
    publisher_version_identifier: str
    work_identifier: str
    publisher: Publisher
    document_type: str | None
    valid_from: str
    valid_to: str | None
    valid_to_convention: ValidToConvention
    valid_time_source: str
    in_force_status: str | None
    publication_date: str | None
    events: tuple[Event, ...]
    expressions: tuple[Expression, ...]
    relations: tuple[Mapping[str, Any], ...]
    raw: Mapping[str, Any]
    publisher_metadata: tuple[Mapping[str, Any], ...]
    document_roles: tuple[str, ...]
    provenance: Mapping[str, Any] | None
    record_sha256: str
    data: Mapping[str, Any] = field(repr=False)
    path: str | None = field(default=None, repr=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], path: str | None = None) -> VersionRecord:
        """Parse and type a version record. Shape errors are :class:`CorpusError`; the hash is
        *not* checked here (see :meth:`hash_ok` and :func:`corpus_tree.verify.verify_tree`)."""
        _check_members(d, VERSION_MEMBERS, "version", path)
        for key in REQUIRED_VERSION_MEMBERS:
            if key not in d:
                raise _fail(f"missing member {key!r}", path)
        if d["schema"] != SCHEMA:
            raise _fail(f"record schema {d['schema']!r} is not {SCHEMA!r}", path, code="unknown_schema")
        try:
            publisher = Publisher.parse(_req(d, "publisher", path))
            convention = ValidToConvention(_req(d, "valid_to_convention", path))
        except (IdentityError, ValueError) as exc:
            raise _fail(str(exc), path) from None
        valid_from = _req(d, "valid_from", path)
        valid_to = _str(d, "valid_to", path, required=False)
        publication_date = _str(d, "publication_date", path, required=False)
        _date(valid_from, "valid_from", path)
        _date(valid_to, "valid_to", path)
        _date(publication_date, "publication_date", path)
        raw = d.get("raw")
        if not isinstance(raw, Mapping):
            raise _fail("member 'raw' must be an object", path)
        provenance = d.get("provenance")
        if provenance is not None and not isinstance(provenance, Mapping):
            raise _fail("member 'provenance' must be an object", path)
        sha = _req(d, "record_sha256", path)
        roles = _list(d, "document_roles", path)
        if not all(isinstance(r, str) for r in roles):
            raise _fail("document_roles must be strings", path)
        relations = _list(d, "relations", path)
        metadata = _list(d, "publisher_metadata", path)
        if not all(isinstance(x, Mapping) for x in (*relations, *metadata)):
            raise _fail("relations and publisher_metadata entries must be objects", path)
        return cls(
            lex_id=_req(d, "lex_id", path),
            publisher_version_identifier=_req(d, "publisher_version_identifier", path),
            work_identifier=_req(d, "work_identifier", path), publisher=publisher,
            document_type=_str(d, "document_type", path, required=False),
            valid_from=valid_from, valid_to=valid_to, valid_to_convention=convention,
            valid_time_source=_req(d, "valid_time_source", path),
            in_force_status=_str(d, "in_force_status", path, required=False), publication_date=publication_date,
            events=tuple(Event.from_dict(e, path) for e in _list(d, "events", path)),
            expressions=tuple(Expression.from_dict(e, path) for e in _list(d, "expressions", path)),
            relations=tuple(relations), raw=raw, publisher_metadata=tuple(metadata), document_roles=tuple(roles),
            provenance=provenance, record_sha256=sha, data=d, path=path,
        )

    # identity (and expected_key, expression: _VersionIdentity)
    @property
    def slug(self) -> str:
        return self.version_id.work.slug.value

    # time
    @property
    def valid_from_date(self) -> _dt.date:
        return parse_date(self.valid_from)

    @property
    def valid_to_date(self) -> _dt.date | None:
        return None if self.valid_to is None else parse_date(self.valid_to)

    def interval(self) -> Interval:
        """The half-open view ``[start, end)`` of the publisher's verbatim bounds (may raise
        :class:`legal.errors.TemporalError` for an inverted publisher interval)."""
        return Interval.from_publisher(self.valid_from_date, self.valid_to_date, self.valid_to_convention)

    @property
    def is_withdrawn(self) -> bool:
        return is_withdrawn(self.events)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(e.language for e in self.expressions)

    def observations(self) -> Iterator[tuple[Expression, Observation]]:
        for e in self.expressions:
            for o in e.observations:
                yield e, o

    # hash
    def computed_sha256(self) -> str:
        return record_sha256(self.data)

    def hash_ok(self) -> bool:
        return self.computed_sha256() == self.record_sha256


@dataclass(frozen=True, slots=True)
class VersionSummary(_VersionIdentity):
    """What planning a write and building the manifest read of a version record, without the
    rest of it (``raw``, ``publisher_metadata``, ``relations``, events and the parsed ``data``).

    An ingest holds one per version of its publisher (:meth:`corpus_tree.CorpusTree.publisher_summaries`);
    a full :class:`VersionRecord` is read again, by ``path``, only for a version the run may revise.
    ``expressions`` equal the record's typed expressions; they are held packed (``packed``: their
    fields as compact JSON, deflated — about a quarter of the objects' memory, ADR 0048) and made
    again, as new objects, each time they are read: read them once per use."""

    lex_id: str
    publisher: Publisher
    publisher_version_identifier: str
    valid_from: str
    valid_to_convention: ValidToConvention
    is_withdrawn: bool
    packed: bytes
    record_sha256: str
    path: str | None = None

    @property
    def expressions(self) -> tuple[Expression, ...]:  # type: ignore[override]
        return unpack_expressions(self.packed)


#: the JSON of :func:`pack_expressions` where ``orjson`` is missing or refuses a value (a lone
#: surrogate, an integer past 64 bits): the standard library's C encoder, any string passed through
_PACK = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
_ORJSON = orjson_module()


def _pack_json(rows: list[Any]) -> bytes:
    if _ORJSON is not None:
        try:
            packed: bytes = _ORJSON.dumps(rows)
            return packed
        except TypeError:  # orjson.JSONEncodeError is a TypeError
            pass
    return _PACK.encode(rows).encode("utf-8", "surrogatepass")


def _unpack_json(data: bytes) -> Any:
    if _ORJSON is not None:
        try:
            return _ORJSON.loads(data)
        except ValueError:  # orjson.JSONDecodeError: what _PACK wrote for a value orjson refused
            pass
    return json.loads(data.decode("utf-8", "surrogatepass"))


def pack_expressions(expressions: Sequence[Expression]) -> bytes:
    """``expressions`` as :attr:`VersionSummary.packed`: their fields in order, as compact JSON
    (one array per expression, one per observation; ``orjson``, else the standard library's encoder
    with a lone surrogate passed through), deflated (level 1). Equal expressions pack to equal bytes."""
    rows = [[e.language, e.valid_from, e.valid_to, e.title, e.title_short, e.source_uri,
             [[o.file, o.sha256, o.source_uri, o.retrieved_at, o.format, o.size, o.held_elsewhere, o.observed_from]
              for o in e.observations],
             e.text.available, e.text.reason, e.text.url, e.valid_time_source] for e in expressions]
    return zlib.compress(_pack_json(rows), 1)


def unpack_expressions(packed: bytes) -> tuple[Expression, ...]:
    """The expressions :func:`pack_expressions` packed (equal values, new objects)."""
    return tuple(
        Expression(language, valid_from, valid_to, title, title_short, source_uri,
                   tuple(Observation(*o) for o in observations), TextStatus(available, reason, url), time_source)
        for (language, valid_from, valid_to, title, title_short, source_uri, observations, available, reason, url,
             time_source) in _unpack_json(zlib.decompress(packed)))


_V = TypeVar("_V")


class Shared:
    """One instance of each equal value among the summaries of one run (:meth:`CorpusTree.caching`).

    The versions of one work often share their ``valid_from``: a summary keeps the first equal
    instance instead of its own copy (its expressions are packed: :func:`pack_expressions`). Values
    are immutable, so sharing changes nothing but memory."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[Any, Any] = {}

    def __call__(self, value: _V) -> _V:
        shared: _V = self._values.setdefault(value, value)
        return shared


def summary_of(record: VersionRecord, share: Shared | None = None) -> VersionSummary:
    """The :class:`VersionSummary` of ``record`` (with ``share``, its ``valid_from`` is the instance
    shared with the run's other summaries: :class:`Shared`)."""
    return VersionSummary(record.lex_id, record.publisher, record.publisher_version_identifier,
                          record.valid_from if share is None else share(record.valid_from),
                          record.valid_to_convention, record.is_withdrawn, pack_expressions(record.expressions),
                          record.record_sha256, record.path)


def default_convention(publisher: Publisher) -> ValidToConvention:
    return convention_of(publisher)


def load_version(data: bytes, path: str) -> VersionRecord:
    """Parse the bytes of a version record file (shape only; no hash check): by the C parser when they
    are canonical (every file the tree writes is), else strictly (:func:`read_record_bytes`)."""
    return VersionRecord.from_dict(read_record_bytes(data, path), path)


def load_work(data: bytes, path: str) -> WorkRecord:
    """Parse the bytes of a work record file (shape only), as :func:`load_version`."""
    return WorkRecord.from_dict(read_record_bytes(data, path), path)


def read_record_bytes(data: bytes, path: str) -> dict[str, Any]:
    """:func:`parse_record_bytes` of ``data``: the same value, read by :func:`parse_canonical_record`'s C
    parser when ``data`` is canonical, and by :func:`parse_record_bytes` (its errors) otherwise (ADR 0137)."""
    value = parse_canonical_record(data)
    return parse_record_bytes(data, path) if value is None else value


def require_hash(record: VersionRecord) -> VersionRecord:
    """``record`` if its ``record_sha256`` matches, else an :class:`IntegrityError`."""
    if not record.hash_ok():
        raise IntegrityError(
            f"record_sha256 mismatch (stored {record.record_sha256[:12]}…, computed {record.computed_sha256()[:12]}…)",
            code="record_hash_mismatch", subject=record.path,
        )
    return record


__all__ = [
    "RECORD_FILE", "SCHEMA", "Event", "Expression", "Observation", "TextStatus", "VersionRecord",
    "VersionSummary", "WorkRecord", "build_work_record", "is_withdrawn", "load_version", "load_work", "parse_record_bytes",
    "record_sha256", "render", "require_hash", "seal", "summary_of",
]
