"""The argument gate: normalise one proposed operation's arguments, recording every repair.

Stages run in a load-bearing order: argument names, per-value types and bounds, closed sets,
defaults, hard validation. A repair is logged as ``"<tool>.<argument|unrecognized> <verb>"``
(verbs ``dropped | coerced | aliased | quarantined | defaulted | widened``), never with a
value. Anything that would change which law, instant or provision is answered is refused
with a :class:`PlanViolation` naming one closed violation class.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from assistant.catalog import NEVER_DROPPED, RECOVERABLE_ENUMS, ArgSpec, Catalog, ToolSpec
from assistant.text import parse_iso_date
from legal.errors import RequestError

VIOLATION_CLASSES = frozenset({
    "unknown_operation", "reversed_window", "wrong_type", "unparsable_instant", "unparsable_date",
    "missing_work_identity", "unsupported_argument", "unsupported_value", "missing_required",
    "out_of_bounds", "server_owned", "unoffered_subject", "invented_date", "other",
})
#: Violations a correction turn would only "fix" by choosing the answer: never retried.
NOT_RETRIED = frozenset({"unparsable_instant", "reversed_window"})
ARTICLE_NUMBER = ArgSpec("article_number", "string", max_length=64)


class PlanViolation(RequestError):
    """A proposed plan breaks the contract; ``code`` is the closed violation class."""

    default_code = "other"

    def __init__(self, violation: str, message: str) -> None:
        super().__init__(message, code=violation if violation in VIOLATION_CLASSES else "other")

    @property
    def violation(self) -> str:
        return self.code


def normalize_arguments(catalog: Catalog, tool: str, proposed: Any, today: dt.date, *,
                        hybrid_servable: bool = True) -> tuple[dict[str, Any], list[str]]:
    """Normalised arguments and repair lines, or :class:`PlanViolation`."""
    spec = catalog.spec(tool)
    if spec is None:
        raise PlanViolation("unknown_operation", "Unknown legal operation or application action.")
    if not isinstance(proposed, Mapping):
        raise PlanViolation("wrong_type", f"Operation '{tool}' arguments must be an object.")
    repairs: list[str] = []
    named = _names(catalog, spec, proposed, repairs)
    values = _values(spec, named, repairs)
    values = _closed_sets(spec, values, repairs, hybrid_servable)
    values = _apply_defaults(spec, values, repairs, today)
    _validate(spec, values)
    return values, repairs


def _allowed(spec: ToolSpec) -> Mapping[str, ArgSpec]:
    if spec.policy.anchor_argument is None:
        return spec.arguments
    return {**spec.arguments, "article_number": ARTICLE_NUMBER}


def _names(catalog: Catalog, spec: ToolSpec, proposed: Mapping[str, Any],
           repairs: list[str]) -> dict[str, Any]:
    allowed = _allowed(spec)
    known = {n for t in catalog.tools.values() for n in t.arguments} | {"subject_ref"}
    out: dict[str, Any] = {}
    for raw_name, value in proposed.items():
        name = str(raw_name)
        if name in allowed:
            if name in out and out[name] != value:
                raise PlanViolation("unsupported_argument",
                                    f"Operation '{spec.name}' contains unsupported argument '{name}'.")
            out[name] = value
        elif spec.name == "as_of" and name == "as_of":
            _alias_date(spec, value, proposed, out, repairs)
        elif name in NEVER_DROPPED:
            raise PlanViolation("unsupported_argument",
                                f"Operation '{spec.name}' contains unsupported argument '{name}'.")
        else:
            shown = name if name in known else "unrecognized"
            repairs.append(f"{spec.name}.{shown} dropped")
    return out


def _alias_date(spec: ToolSpec, value: Any, proposed: Mapping[str, Any], out: dict[str, Any],
                repairs: list[str]) -> None:
    if value is None or (isinstance(value, str) and not value.strip()):
        repairs.append(f"{spec.name}.as_of dropped")
        return
    if not isinstance(value, str):
        raise PlanViolation("wrong_type", "Argument 'as_of' must be a string.")
    existing = proposed.get("date")
    if existing is not None and existing != value:
        raise PlanViolation("unsupported_argument",
                            f"Operation '{spec.name}' contains unsupported argument 'as_of'.")
    out["date"] = value
    repairs.append(f"{spec.name}.date aliased")


def _values(spec: ToolSpec, named: Mapping[str, Any], repairs: list[str]) -> dict[str, Any]:
    allowed = _allowed(spec)
    out: dict[str, Any] = {}
    for name, value in named.items():
        if value is None:
            continue
        kept = _value(spec.name, allowed[name], value, repairs)
        if kept is not None:
            out[name] = kept
    return out


def _value(tool: str, arg: ArgSpec, value: Any, repairs: list[str]) -> Any:
    if arg.kind == "list":
        return _list(tool, arg, value, repairs)
    if arg.kind == "integer":
        return _integer(tool, arg, value, repairs)
    if arg.kind == "boolean":
        if not isinstance(value, bool):
            raise PlanViolation("wrong_type", f"Argument '{arg.name}' must be a boolean.")
        return value
    if not isinstance(value, str):
        raise PlanViolation("wrong_type", f"Argument '{arg.name}' must be a string. "
                                          f"Received {type(value).__name__}.")
    text = value if arg.opaque else value.strip()
    if not text:
        repairs.append(f"{tool}.{arg.name} dropped")
        return None
    if len(text) > arg.max_length:
        raise PlanViolation("out_of_bounds", f"Argument '{arg.name}' is too long.")
    if arg.pattern and not re.search(arg.pattern, text):
        raise PlanViolation("unsupported_value", f"Argument '{arg.name}' has an unsupported value.")
    return text


def _list(tool: str, arg: ArgSpec, value: Any, repairs: list[str]) -> list[str] | None:
    if isinstance(value, str):
        value = value.split(",")
        repairs.append(f"{tool}.{arg.name} coerced")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PlanViolation("wrong_type", f"Argument '{arg.name}' must be a list of strings.")
    items = list(dict.fromkeys(v.strip() for v in value if v.strip()))
    if not items:
        repairs.append(f"{tool}.{arg.name} dropped")
        return None
    if not arg.min_items <= len(items) <= arg.max_items or any(
            len(v) > arg.item_max_length for v in items):
        raise PlanViolation("out_of_bounds", f"Argument '{arg.name}' needs {arg.min_items} to "
                                             f"{arg.max_items} items of at most "
                                             f"{arg.item_max_length} characters.")
    return items


def _integer(tool: str, arg: ArgSpec, value: Any, repairs: list[str]) -> int | None:
    number: int | None = None
    verb = ""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number, verb = int(value.strip()), "coerced"
    in_range = number is not None and (arg.minimum is None or number >= arg.minimum) and (
        arg.maximum is None or number <= arg.maximum)
    if not in_range:
        repairs.append(f"{tool}.{arg.name} dropped")
        return None
    if verb:
        repairs.append(f"{tool}.{arg.name} {verb}")
    return number


def _closed_sets(spec: ToolSpec, values: dict[str, Any], repairs: list[str],
                 hybrid_servable: bool) -> dict[str, Any]:
    out = dict(values)
    for name, value in values.items():
        arg = _allowed(spec)[name]
        if arg.kind != "enum":
            continue
        canonical = next((c for c in arg.choices if c.lower() == str(value).lower()), None)
        if canonical is not None:
            out[name] = canonical
        elif name in RECOVERABLE_ENUMS:
            del out[name]
            repairs.append(f"{spec.name}.{name} dropped")
        else:
            raise PlanViolation("unsupported_value", f"Argument '{name}' has an unsupported value.")
    if out.get("retrieval_mode") == "hybrid" and not hybrid_servable:
        del out["retrieval_mode"]
        repairs.append(f"{spec.name}.retrieval_mode quarantined")
    return out


def _apply_defaults(spec: ToolSpec, values: dict[str, Any], repairs: list[str],
                    today: dt.date) -> dict[str, Any]:
    out = dict(values)
    for name in spec.policy.today_defaults:
        if name in spec.arguments and name not in out:
            out[name] = today.isoformat()
            repairs.append(f"{spec.name}.{name} defaulted")
    for name, value in spec.policy.defaults.items():
        if name in spec.arguments and name not in out:
            out[name] = value
    if spec.name == "search" and out.get("time_scope") == "as_of" and "as_of" not in out:
        out["as_of"] = today.isoformat()
        repairs.append("search.as_of defaulted")
    if spec.name == "as_of" and "mode" in spec.arguments:
        _as_of_mode(out, repairs)
    return out


def _as_of_mode(out: dict[str, Any], repairs: list[str]) -> None:
    has_selection = "anchors" in out or "article_number" in out
    if "mode" not in out:
        out["mode"] = "select" if has_selection else "full"
    elif out["mode"] == "select" and not has_selection:
        out["mode"] = "full"
        repairs.append("as_of.mode widened")


def _validate(spec: ToolSpec, values: Mapping[str, Any]) -> None:
    policy = spec.policy
    if policy.identity is not None and policy.identity not in values:
        raise PlanViolation("missing_work_identity", f"Operation '{spec.name}' requires a work identity.")
    if policy.name == "article_history" and not ({"anchor", "article_number"} & set(values)):
        raise PlanViolation("missing_required",
                            "article_history requires an article named in the question.")
    _validate_dates(spec, values)
    for name in sorted(spec.required):
        if name in values or (name == "anchor" and "article_number" in values):
            continue
        violation = "unparsable_date" if name in ("from_date", "to_date") else "missing_required"
        raise PlanViolation(violation, f"Operation '{spec.name}' requires argument '{name}'.")
    if values.get("time_scope") == "as_of" and "as_of" not in values:
        raise PlanViolation("missing_required", "search time_scope as_of requires as_of.")
    if "anchors" in values and values.get("mode") not in ("outline", "select"):
        raise PlanViolation("unsupported_value", "as_of anchors require mode outline or select.")


def _validate_dates(spec: ToolSpec, values: Mapping[str, Any]) -> None:
    for name in ("date", "as_of", "from_date", "to_date"):
        if name in values and _allowed(spec)[name].kind == "date" and parse_iso_date(values[name]) is None:
            violation = "unparsable_instant" if name in ("date", "as_of") else "unparsable_date"
            raise PlanViolation(violation, f"Argument '{name}' must be an ISO date.")
    window = spec.policy.window
    if window and window[0] in values and window[1] in values and values[window[0]] > values[window[1]]:
        raise PlanViolation("reversed_window", f"{spec.name} from_date must not follow to_date.")
