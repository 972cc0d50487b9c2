"""Superseded by date provenance (`assistant/provenance.py`, ADR 0012); kept for its helpers.

The former date guard: every planned instant re-derived from the reader's own words.

For each point-in-time operation (``as_of``, ``in_force_on``) the guard asks whether the
planned day is one the turn states. If it is not, and the turn carries a bare year equal to
the planned year, the planner picked a day the reader never gave: ``as_of`` is widened to the
year's window (``article_history`` when an article is named, else ``timeline``) and
``in_force_on`` — a one-day snapshot with no window form — becomes a clarification. Citation
dates ("loi du 12 novembre 2004") authorise only themselves. Defaulted-to-today and widened
instants are disclosed in the reply (:func:`instant_source`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from assistant.plan import OperationPlan, RequestedOperation
from assistant.text import fold, parse_iso_date
from assistant.vocab import InstantSource

WIDENED = "date widened_to_year_window"
POINT_IN_TIME_TOOLS = ("as_of", "in_force_on")

_MONTHS: dict[str, int] = {
    "janvier": 1, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5, "juin": 6, "juillet": 7,
    "aout": 8, "septembre": 9, "octobre": 10, "novembre": 11, "decembre": 12,
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}
_MONTH = "(" + "|".join(_MONTHS) + ")"
# Not inside an identifier: "loi-2017-03-01-n901" or a version key states no day.
_ISO = re.compile(r"(?<![\w/.-])(\d{4})-(\d{2})-(\d{2})(?![\w/-])")
_NUMERIC = re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/.])")
_DAY_MONTH = re.compile(r"(?<!\d)(\d{1,2})(?:er|st|nd|rd|th)?\s+" + _MONTH + r",?\s+(\d{4})(?!\d)")
_MONTH_DAY = re.compile(_MONTH + r"\s+(\d{1,2})(?:er|st|nd|rd|th)?,?\s+(\d{4})(?!\d)")
_BARE_YEAR = re.compile(r"(?<!\d)((?:1[89]|20)\d{2})(?!\d)")

_CLARIFY = {
    "en": "A corpus-wide snapshot is about one day, not a year. Which date in {year} should Lex use?",
    "fr": "Un instantané du corpus porte sur un jour, pas sur une année. Quelle date de {year} "
          "Lex doit-il utiliser ?",
}


def _day(year: str, month: str | int, day: str) -> dt.date | None:
    try:
        return dt.date(int(year), int(month), int(day))
    except ValueError:
        return None


def stated_days(turn: str) -> set[dt.date]:
    """Every full calendar day the turn states (impossible dates are dropped, not raised)."""
    return set(ordered_days(turn))


def ordered_days(turn: str) -> list[dt.date]:
    """Stated days in the order the turn gives them (duplicates kept once)."""
    text = fold(turn)
    found: list[tuple[int, dt.date | None]] = []
    found += [(m.start(), _day(m.group(1), m.group(2), m.group(3))) for m in _ISO.finditer(text)]
    found += [(m.start(), _day(m.group(3), m.group(2), m.group(1))) for m in _NUMERIC.finditer(text)]
    found += [(m.start(), _day(m.group(3), _MONTHS[m.group(2)], m.group(1)))
              for m in _DAY_MONTH.finditer(text)]
    found += [(m.start(), _day(m.group(3), _MONTHS[m.group(1)], m.group(2)))
              for m in _MONTH_DAY.finditer(text)]
    out: list[dt.date] = []
    for _pos, day in sorted(found, key=lambda item: item[0]):
        if day is not None and day not in out:
            out.append(day)
    return out


_FREE_YEAR = re.compile(r"(?<![\w/.-])((?:1[89]|20)\d{2})(?![\w/-])")


def free_years(turn: str) -> list[int]:
    """Bare years outside stated days and identifier numbers (``2016/679``), in order."""
    text = fold(turn)
    for pattern in (_ISO, _NUMERIC, _DAY_MONTH, _MONTH_DAY):
        text = pattern.sub(" ", text)
    out: list[int] = []
    for year in (int(y) for y in _FREE_YEAR.findall(text)):
        if year not in out:
            out.append(year)
    return out


def bare_years(turn: str) -> list[int]:
    return [int(y) for y in _BARE_YEAR.findall(turn)]


def derived_year(turn: str, planned: str) -> int | None:
    """The bare year a planned day was invented from, or ``None`` when the day is stated."""
    day = parse_iso_date(planned or "")
    if not turn.strip() or day is None or day in stated_days(turn):
        return None
    return day.year if day.year in bare_years(turn) else None


def _widened(op: RequestedOperation, year: int) -> RequestedOperation:
    args = op.arguments
    window = {"from_date": f"{year}-01-01", "to_date": f"{year}-12-31"}
    article = args.get("article_number")
    listed = args.get("anchors")
    anchors = str(listed[0]) if isinstance(listed, list) and listed else None
    if article or anchors:
        new_args = {"work": args["work"], **window}
        new_args.update({"article_number": article} if article else {"anchor": anchors})
        if "language" in args:
            new_args["language"] = args["language"]
        return op.with_arguments("article_history", new_args, f"as_of.{WIDENED}")
    return op.with_arguments("timeline", {"work": args["work"]}, f"as_of.{WIDENED}")


def guard_instants(plan: OperationPlan, turn: str) -> tuple[OperationPlan, list[str]]:
    """The plan with every invented instant widened or turned into a clarification.

    Returns the new plan and diagnostics (``planner_date_invented op<N> <tool> <year>``).
    """
    diagnostics: list[str] = []
    ops: list[RequestedOperation] = []
    for op in plan.operations:
        year = derived_year(turn, str(op.arguments.get("date") or "")) \
            if op.tool in POINT_IN_TIME_TOOLS else None
        if year is None:
            ops.append(op)
            continue
        diagnostics.append(f"planner_date_invented op{op.user_order + 1} {op.tool} {year}")
        if op.tool == "in_force_on":
            return _snapshot_clarification(plan, year), diagnostics
        ops.append(_widened(op, year))
    if not diagnostics:
        return plan, diagnostics
    return plan.replace_operations(ops), diagnostics


def _snapshot_clarification(plan: OperationPlan, year: int) -> OperationPlan:
    question = _CLARIFY.get(plan.locale, _CLARIFY["en"]).format(year=year)
    op = RequestedOperation.create(plan.request_id, 0, "clarification", {
        "question": question, "options": [f"{year}-01-01", f"{year}-12-31"],
    }, ("in_force_on.date clarification_for_year",))
    return plan.replace_operations([op], synthesis=False)


def instant_source(repairs: Sequence[str]) -> InstantSource:
    """Where an operation's instant came from, read off its recorded repairs."""
    if any(r.endswith(WIDENED) for r in repairs):
        return InstantSource.WIDENED_FROM_YEAR
    if any(r.endswith(".date defaulted") or r.endswith(".as_of defaulted") for r in repairs):
        return InstantSource.DEFAULTED_TO_TODAY
    return InstantSource.STATED
