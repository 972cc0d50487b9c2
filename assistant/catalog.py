"""The closed catalog: the ten legal operations plus ``legal_boundary`` and ``clarification``.

Argument schemas come from the legal core (``serve.core.OPERATIONS`` is the single source of
schemas); this module adds only what the application knows about each operation: its result
class, the effects it may render, whether it needs a resolved work, which argument is its
point-in-time instant, and its defaults. :class:`Catalog` turns the core's JSON schemas into
:class:`ArgSpec` values the argument gate checks, and projects the per-request planner schema
in which work-specific operations take an opaque ``subject_ref`` instead of a work.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from assistant.vocab import Disposition, Effect, ResultClass
from legal.errors import ConfigError

ArgKind = Literal["string", "integer", "boolean", "date", "enum", "list"]

LEGAL_TOOLS: tuple[str, ...] = (
    "search", "as_of", "diff", "timeline", "article_history",
    "changes_in_period", "in_force_on", "coverage", "cited_by", "provenance",
)
APPLICATION_TOOLS: tuple[str, ...] = ("legal_boundary", "clarification")
PLANNER_TOOLS: tuple[str, ...] = LEGAL_TOOLS + APPLICATION_TOOLS
INVENTORY_TOOLS = frozenset({"coverage", "cited_by", "in_force_on"})

#: Arguments the server owns: a planner may never write them (``known_on``, the transaction-time
#: day, is a date no reader's question attests here: the assistant always answers as held now).
SERVER_OWNED = frozenset({
    "work", "work_query", "lex_id", "article_number", "anchor", "anchors", "version_key",
    "from_version_key", "to_version_key", "publisher_metadata_identifier", "known_on",
})
#: Arguments that are never dropped when stray: dropping one would let a default answer a
#: different instant, law or provision.
NEVER_DROPPED = frozenset({
    "date", "as_of", "from_date", "to_date", "work", "work_query", "lex_id", "article_number",
    "anchor", "anchors", "works",
})
#: Closed-set arguments whose unsupported value is dropped (and defaulted) rather than refused.
RECOVERABLE_ENUMS = frozenset({"retrieval_mode", "time_scope", "fuzzy", "mode"})
DATE_ARGUMENTS = frozenset({"date", "as_of", "from_date", "to_date"})
OPAQUE_ARGUMENTS = frozenset({"version_key", "from_version_key", "to_version_key"})
SUBJECT_REF_MAX = 64
MAX_SUBJECTS = 8


@dataclass(frozen=True)
class ToolPolicy:
    """What the application knows about one operation (never its argument schema)."""

    name: str
    primary: Effect
    result_class: ResultClass | None = None
    disposition: Disposition | None = None
    extra: tuple[Effect, ...] = ()
    identity: Literal["work", "lex_id"] | None = None
    anchor_argument: Literal["anchors", "anchor"] | None = None
    instant: str | None = None
    window: tuple[str, str] | None = None
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    today_defaults: tuple[str, ...] = ()

    @property
    def needs_work(self) -> bool:
        return self.identity is not None

    @property
    def declared_effects(self) -> frozenset[Effect]:
        """Effects frozen into every planned operation of this tool."""
        return frozenset((self.primary, *self.extra, Effect.GAP))


def _defaults(**values: Any) -> Mapping[str, Any]:
    return MappingProxyType(dict(values))


POLICIES: Mapping[str, ToolPolicy] = MappingProxyType({
    "search": ToolPolicy("search", Effect.WORKSPACE, ResultClass.SEARCH,
                         defaults=_defaults(retrieval_mode="keyword", fuzzy="auto", limit=10)),
    "as_of": ToolPolicy("as_of", Effect.PROVISION, ResultClass.EXACT_TEXT, identity="work",
                        anchor_argument="anchors", instant="date", today_defaults=("date",)),
    "diff": ToolPolicy("diff", Effect.DIFF, ResultClass.COMPARISON, identity="work",
                       anchor_argument="anchor", window=("from_date", "to_date")),
    "timeline": ToolPolicy("timeline", Effect.TIMELINE, ResultClass.TIMELINE, identity="work",
                           defaults=_defaults(limit=100, offset=0)),
    "article_history": ToolPolicy("article_history", Effect.HISTORY, ResultClass.TIMELINE,
                                  identity="work", anchor_argument="anchor",
                                  window=("from_date", "to_date")),
    "changes_in_period": ToolPolicy("changes_in_period", Effect.RANKING, ResultClass.RANKING,
                                    extra=(Effect.WORKSPACE,), window=("from_date", "to_date"),
                                    defaults=_defaults(order="by_date", limit=20, offset=0)),
    "in_force_on": ToolPolicy("in_force_on", Effect.IN_FORCE, ResultClass.INVENTORY,
                              extra=(Effect.WORKSPACE,), instant="date", today_defaults=("date",),
                              defaults=_defaults(limit=50, offset=0)),
    "coverage": ToolPolicy("coverage", Effect.COVERAGE, ResultClass.INVENTORY),
    "cited_by": ToolPolicy("cited_by", Effect.CITED_BY, ResultClass.INVENTORY, identity="work",
                           defaults=_defaults(limit=50)),
    "provenance": ToolPolicy("provenance", Effect.VERIFICATION, ResultClass.VERIFICATION,
                             identity="lex_id"),
    "legal_boundary": ToolPolicy("legal_boundary", Effect.GAP,
                                 disposition=Disposition.LEGAL_BOUNDARY),
    "clarification": ToolPolicy("clarification", Effect.GAP, disposition=Disposition.CLARIFICATION),
})

_APPLICATION_SCHEMAS: Mapping[str, Mapping[str, Any]] = MappingProxyType({
    "legal_boundary": {
        "type": "object",
        "properties": {"reason": {"type": "string", "minLength": 1, "maxLength": 1000}},
        "required": ["reason"],
        "additionalProperties": False,
    },
    "clarification": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 1, "maxLength": 280},
            "options": {"type": "array", "minItems": 2, "maxItems": 4,
                        "items": {"type": "string", "minLength": 1, "maxLength": 100}},
        },
        "required": ["question", "options"],
        "additionalProperties": False,
    },
})


@dataclass(frozen=True)
class ArgSpec:
    """One argument of one operation, as the gate checks it."""

    name: str
    kind: ArgKind
    max_length: int = 1000
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    opaque: bool = False
    min_items: int = 1
    max_items: int = 50
    item_max_length: int = 512
    pattern: str | None = None
    description: str = ""


@dataclass(frozen=True)
class ToolSpec:
    """Policy plus argument specs of one offered tool."""

    policy: ToolPolicy
    description: str
    arguments: Mapping[str, ArgSpec]
    required: frozenset[str]

    @property
    def name(self) -> str:
        return self.policy.name


_DATE_PATTERN_HINT = re.compile(r"\\d\{4\}-")


def arg_spec(name: str, schema: Mapping[str, Any]) -> ArgSpec:
    """The gate's view of one JSON-schema property."""
    kind = schema.get("type")
    description = str(schema.get("description") or "")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer" or kind == "number":
        return ArgSpec(name, "integer", minimum=_int(schema.get("minimum")),
                       maximum=_int(schema.get("maximum")), description=description)
    if kind == "boolean":
        return ArgSpec(name, "boolean", description=description)
    if kind == "array":
        items = schema.get("items") or {}
        return ArgSpec(name, "list", min_items=_int(schema.get("minItems")) or 1,
                       max_items=_int(schema.get("maxItems")) or 50,
                       item_max_length=_int(items.get("maxLength")) or 512, description=description)
    max_length = _int(schema.get("maxLength")) or 1000
    if "enum" in schema:
        return ArgSpec(name, "enum", max_length=64, choices=tuple(str(v) for v in schema["enum"]),
                       description=description)
    pattern = str(schema.get("pattern") or "")
    if name in DATE_ARGUMENTS or schema.get("format") == "date" or _DATE_PATTERN_HINT.search(pattern):
        return ArgSpec(name, "date", max_length=10, description=description)
    return ArgSpec(name, "string", max_length=max_length, opaque=name in OPAQUE_ARGUMENTS,
                   pattern=pattern or None, description=description)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def tool_spec(policy: ToolPolicy, description: str, schema: Mapping[str, Any]) -> ToolSpec:
    properties = schema.get("properties") or {}
    arguments = {name: arg_spec(name, prop) for name, prop in properties.items()}
    required = frozenset(str(r) for r in schema.get("required") or ())
    return ToolSpec(policy, description, MappingProxyType(arguments), required)


@dataclass(frozen=True)
class Catalog:
    """The closed catalog for one mounted core: tool specs in planner order."""

    tools: Mapping[str, ToolSpec]

    @classmethod
    def from_schemas(cls, schemas: Mapping[str, tuple[str, Mapping[str, Any]]]) -> Catalog:
        """Build from ``name → (description, JSON schema)`` of the ten legal operations."""
        missing = [name for name in LEGAL_TOOLS if name not in schemas]
        if missing:
            raise ConfigError("the legal core does not offer every catalog operation",
                              code="catalog_incomplete", subject=",".join(missing))
        tools: dict[str, ToolSpec] = {}
        for name in LEGAL_TOOLS:
            description, schema = schemas[name]
            tools[name] = tool_spec(POLICIES[name], description, schema)
        for name in APPLICATION_TOOLS:
            tools[name] = tool_spec(POLICIES[name], _APPLICATION_DESCRIPTIONS[name],
                                    _APPLICATION_SCHEMAS[name])
        return cls(MappingProxyType(tools))

    def spec(self, name: str) -> ToolSpec | None:
        return self.tools.get(name)

    def vocabulary(self, argument: str) -> tuple[str, ...]:
        """The enum values any tool declares for ``argument`` (mounted publishers, …)."""
        for tool in self.tools.values():
            spec = tool.arguments.get(argument)
            if spec is not None and spec.choices:
                return spec.choices
        return ()


_APPLICATION_DESCRIPTIONS = {
    "legal_boundary": "Decline: the question asks for legal advice, a compliance decision, "
                      "the application of law to facts, a recommendation or evasion.",
    "clarification": "Ask one question when no law, date, topic or operation is identifiable. "
                     "Must be the only operation.",
}


def offered_tools(catalog: Catalog, subject_refs: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """Planner tools offered for this request.

    ``subject_refs`` maps a tool's identity kind (``work`` / ``lex_id``) to the refs that may
    stand for it; a work-specific tool without refs is not offered at all.
    """
    out: list[str] = []
    for name in PLANNER_TOOLS:
        policy = catalog.tools[name].policy
        if policy.identity is not None and not subject_refs.get(policy.identity):
            continue
        out.append(name)
    return tuple(out)


def planner_properties(spec: ToolSpec, refs: Sequence[str]) -> dict[str, Any]:
    """JSON-schema properties the planner may write for one tool."""
    props: dict[str, Any] = {}
    for name, arg in spec.arguments.items():
        if name in SERVER_OWNED or (spec.policy.needs_work and name == "publisher"):
            continue
        props[name] = _property_schema(arg)
    if spec.policy.needs_work:
        props["subject_ref"] = {"type": "string", "enum": list(refs), "maxLength": SUBJECT_REF_MAX,
                                "description": "opaque server reference of the resolved subject"}
    return props


def _property_schema(arg: ArgSpec) -> dict[str, Any]:
    out: dict[str, Any]
    if arg.kind == "integer":
        out = {"type": "integer"}
        if arg.minimum is not None:
            out["minimum"] = arg.minimum
        if arg.maximum is not None:
            out["maximum"] = arg.maximum
    elif arg.kind == "boolean":
        out = {"type": "boolean"}
    elif arg.kind == "enum":
        out = {"type": "string", "enum": list(arg.choices)}
    elif arg.kind == "date":
        out = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}
    elif arg.kind == "list":
        out = {"type": "array", "minItems": arg.min_items, "maxItems": arg.max_items,
               "items": {"type": "string", "minLength": 1, "maxLength": arg.item_max_length}}
    else:
        out = {"type": "string", "minLength": 1, "maxLength": arg.max_length}
    if arg.description and "description" not in out:
        out["description"] = arg.description[:300]
    return out


def planner_tool_schema(catalog: Catalog, offered: Sequence[str],
                        refs_for: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The parameters of the one forced function ``submit_operation_plan``."""
    branches = []
    for name in offered:
        spec = catalog.tools[name]
        refs = refs_for.get(spec.policy.identity or "", ())
        props = planner_properties(spec, refs)
        required = sorted(r for r in spec.required if r in props and r not in spec.policy.today_defaults)
        if spec.policy.needs_work:
            required = sorted({*required, "subject_ref"})
        branches.append({
            "type": "object",
            "description": spec.description[:500],
            "properties": {
                "tool": {"const": name},
                "arguments": {"type": "object", "properties": props, "required": required,
                              "additionalProperties": False},
            },
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        })
    return {
        "type": "object",
        "properties": {
            "operations": {"type": "array", "minItems": 1, "maxItems": 8, "items": {"anyOf": branches}},
            "synthesis": {"type": "boolean"},
        },
        "required": ["operations"],
        "additionalProperties": False,
    }
