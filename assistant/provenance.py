"""Date provenance: every instant and window of a frozen plan says where it came from.

A date argument (``date``, ``as_of``, ``from_date``, ``to_date``) may come only from

- ``stated``: a span of the reader's own words (a day, a month, a year, a window);
- ``relative``: a relative expression of the reader's words ("last year", "il y a deux ans",
  "vor 3 Jahren"), resolved deterministically from the request date and always disclosed;
- ``today``: the operation's default when the turn states no date for it (disclosed);
- ``clarification``: the day the reader picked in a clarification menu.

:func:`attest` runs inside the one gate every planner's output passes (rule planner or
model): it attaches a :class:`DateSource` to every date argument, widens a day the planner
built from a period into the period (``as_of`` → ``article_history``/``timeline``), turns a
single-instant operation over a period into a clarification, and refuses (``invented_date``)
any other date. An impossible or unanchored date in the turn is a clarification, never today.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assistant.arguments import PlanViolation
from assistant.catalog import DATE_ARGUMENTS
from assistant.datereader import DateMention, instants, read_dates
from assistant.plan import RequestedOperation
from assistant.untrusted import own_words

Source = Literal["stated", "relative", "today", "clarification"]
CHOICE_PREFIX = "Clarification choice: "
WIDENED = "date widened_to_stated_period"
_ISO_CHOICE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})\s*$")


@dataclass(frozen=True)
class DateSource:
    """Where one date argument of one operation came from."""

    argument: str
    value: str
    source: Source
    words: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"argument": self.argument, "value": self.value, "source": self.source,
                **({"words": self.words} if self.words else {})}


@dataclass(frozen=True)
class DateReading:
    """The dates of the reader's own words for one turn."""

    mentions: tuple[DateMention, ...]
    today: dt.date
    choice: dt.date | None = None

    @property
    def usable(self) -> list[DateMention]:
        return [m for m in instants(self.mentions) if m.first is not None]

    @property
    def invalid(self) -> list[DateMention]:
        return [m for m in instants(self.mentions) if m.kind in ("invalid", "unanchored")]

    def days(self) -> list[DateMention]:
        return [m for m in self.usable if m.is_day]

    def windows(self) -> list[DateMention]:
        return [m for m in self.usable if m.is_window]


def reading_for(question: str, today: dt.date, previous: str | None = None) -> DateReading:
    """The turn's dates; a date-menu click reads the previous question plus the chosen day."""
    choice: dt.date | None = None
    text = question
    if question.strip().startswith(CHOICE_PREFIX):
        picked = _ISO_CHOICE.match(question.strip()[len(CHOICE_PREFIX):])
        if picked:
            try:
                choice = dt.date.fromisoformat(picked.group(1))
            except ValueError:
                choice = None
        text = previous or ""
    mentions = tuple(read_dates(own_words(text).text, today))
    return DateReading(mentions, today, choice)


def _source(mention: DateMention) -> Source:
    return "relative" if mention.relative else "stated"


def _matches(reading: DateReading, argument: str, value: str) -> DateSource | None:
    if reading.choice is not None and value == reading.choice.isoformat():
        return DateSource(argument, value, "clarification")
    for mention in reading.usable:
        assert mention.first is not None and mention.last is not None
        edges = {mention.first.isoformat(), mention.last.isoformat()} if mention.is_day else (
            {mention.first.isoformat()} if argument == "from_date" else
            {mention.last.isoformat()} if argument == "to_date" else set())
        if value in edges:
            return DateSource(argument, value, _source(mention), mention.text)
    return None


def _containing(reading: DateReading, value: str) -> DateMention | None:
    for mention in reading.windows():
        assert mention.first is not None and mention.last is not None
        if mention.first.isoformat() <= value <= mention.last.isoformat():
            return mention
    return None


class NeedsClarification(Exception):
    """The turn needs a date from the reader before any operation runs."""

    def __init__(self, question: str, options: Sequence[str], repair: str) -> None:
        super().__init__(question)
        self.question = question
        self.options = list(options)
        self.repair = repair


_TEXTS = {
    "en": {
        "invalid": 'The date "{words}" does not exist. Which date should Lex use?',
        "unanchored": 'Lex cannot tell which date "{words}" is counted from. Which date should Lex use?',
        "period": 'This lookup is about one day, and "{words}" is a period ({first} to {last}). '
                  "Which date should Lex use?",
        "valid": "Give a valid date (YYYY-MM-DD)",
        "versions": "Show the list of versions instead",
    },
    "fr": {
        "invalid": "La date « {words} » n'existe pas. Quelle date Lex doit-il utiliser ?",
        "unanchored": "Lex ne sait pas à partir de quelle date compter « {words} ». Quelle date Lex "
                      "doit-il utiliser ?",
        "period": "Cette consultation porte sur un jour, et « {words} » est une période (du {first} au "
                  "{last}). Quelle date Lex doit-il utiliser ?",
        "valid": "Indiquer une date valide (AAAA-MM-JJ)",
        "versions": "Afficher plutôt la liste des versions",
    },
}


def check_turn(reading: DateReading, locale: str) -> None:
    """An impossible or unanchored date in the reader's words asks; it never becomes today."""
    texts = _TEXTS.get(locale, _TEXTS["en"])
    for mention in reading.invalid:
        key = "invalid" if mention.kind == "invalid" else "unanchored"
        raise NeedsClarification(texts[key].format(words=mention.text), [texts["valid"], texts["versions"]],
                                 f"date {key}_in_question")


def _widen(op: RequestedOperation, mention: DateMention) -> RequestedOperation:
    """``as_of`` over a period: the article's history over it, else the work's versions."""
    assert mention.first is not None and mention.last is not None
    args = op.arguments
    window = {"from_date": mention.first.isoformat(), "to_date": mention.last.isoformat()}
    article = args.get("article_number")
    listed = args.get("anchors")
    anchor = str(listed[0]) if isinstance(listed, list) and listed else None
    source = _source(mention)
    if article or anchor:
        new_args: dict[str, Any] = {"work": args["work"], **window}
        new_args.update({"article_number": article} if article else {"anchor": anchor})
        if "language" in args:
            new_args["language"] = args["language"]
        widened = op.with_arguments("article_history", new_args, f"as_of.{WIDENED}")
        return widened.with_dates(tuple(DateSource(k, v, source, mention.text) for k, v in window.items()))
    new_args = {"work": args["work"], **({"language": args["language"]} if "language" in args else {})}
    widened = op.with_arguments("timeline", new_args, f"as_of.{WIDENED}")
    return widened.with_dates((DateSource("period", f"{window['from_date']}..{window['to_date']}",
                                          source, mention.text),))


def _defaulted(op: RequestedOperation, argument: str) -> bool:
    return f"{op.tool}.{argument} defaulted" in op.repairs


def attest(operations: Sequence[RequestedOperation], reading: DateReading,
           locale: str) -> list[RequestedOperation]:
    """Every operation with the provenance of each of its dates, or a refusal/clarification."""
    check_turn(reading, locale)
    used: set[int] = set()
    out: list[RequestedOperation] = []
    pending: list[tuple[int, RequestedOperation, str]] = []
    for op in operations:
        sources: list[DateSource] = []
        args = op.arguments
        replaced: RequestedOperation | None = None
        for argument in sorted(DATE_ARGUMENTS & set(args)):
            value = str(args[argument])
            found = _matches(reading, argument, value)
            if found is not None:
                sources.append(found)
                used.update(i for i, m in enumerate(reading.usable) if m.text == found.words)
                continue
            if _defaulted(op, argument):
                pending.append((len(out), op, argument))
                sources.append(DateSource(argument, value, "today"))
                continue
            period = _containing(reading, value)
            if period is not None and argument in ("date", "as_of") and op.tool in ("as_of", "in_force_on"):
                used.update(i for i, m in enumerate(reading.usable) if m is period)
                replaced = _single_instant_over_period(op, period, locale)
                break
            raise PlanViolation("invented_date",
                                f"{op.tool}.{argument} is not a date the question states; derive every "
                                "date from the reader's words or omit it.")
        out.append(replaced if replaced is not None else op.with_dates(tuple(sources)))
    unused = [m for i, m in enumerate(reading.usable) if i not in used]
    for position, op, argument in pending:
        out[position] = _resolve_default(op, argument, unused, out[position], locale)
    return out


def _single_instant_over_period(op: RequestedOperation, period: DateMention,
                                locale: str) -> RequestedOperation:
    if op.tool == "as_of":
        return _widen(op, period)
    texts = _TEXTS.get(locale, _TEXTS["en"])
    assert period.first is not None and period.last is not None
    raise NeedsClarification(
        texts["period"].format(words=period.text, first=period.first.isoformat(), last=period.last.isoformat()),
        [period.first.isoformat(), period.last.isoformat()], f"{op.tool}.date clarification_for_period")


def _resolve_default(op: RequestedOperation, argument: str, unused: Sequence[DateMention],
                     current: RequestedOperation, locale: str) -> RequestedOperation:
    """A today default is kept only when the reader's words leave no date for this operation."""
    if not unused:
        return current
    mention = unused[0]
    if mention.is_window and op.tool in ("as_of", "in_force_on") and argument == "date":
        return _single_instant_over_period(op, mention, locale)
    raise PlanViolation("invented_date",
                        f"{op.tool}.{argument} was left to default although the question states a date.")


def require_provenance(operations: Sequence[RequestedOperation]) -> None:
    """The freeze check: a date argument without provenance never runs."""
    for op in operations:
        attested = {(d.argument, d.value) for d in op.dates}
        for argument in DATE_ARGUMENTS & set(op.arguments):
            if (argument, str(op.arguments[argument])) not in attested:
                raise PlanViolation("invented_date", f"{op.tool}.{argument} has no provenance.")


_SENTENCES = {
    "en": {
        "stated": 'Date used: {value}, from your words "{words}".',
        "relative": 'Date used: {value}, "{words}" read from the request date {today}.',
        "today": "Date used: today, {value}; the question states no date for this lookup.",
        "clarification": "Date used: {value}, the date you chose.",
        "widened": 'You gave "{words}", a period rather than a day, so Lex answers over {value} instead of '
                   "picking a day inside it.",
    },
    "fr": {
        "stated": "Date utilisée : {value}, d'après vos mots « {words} ».",
        "relative": "Date utilisée : {value}, « {words} » calculé à partir de la date de la demande ({today}).",
        "today": "Date utilisée : aujourd'hui, {value} ; la question n'indique pas de date pour cette "
                 "consultation.",
        "clarification": "Date utilisée : {value}, la date que vous avez choisie.",
        "widened": "Vous avez indiqué « {words} », une période et non un jour : Lex répond sur {value} "
                   "plutôt que de choisir un jour.",
    },
}


def date_sentences(op: RequestedOperation, locale: str, today: dt.date) -> list[str]:
    """The disclosure of every date of one operation: the value used and where it came from."""
    texts = _SENTENCES.get(locale, _SENTENCES["en"])
    widened = any(r.endswith(WIDENED) for r in op.repairs)
    grouped: dict[tuple[str, str], list[str]] = {}
    for d in op.dates:
        grouped.setdefault((d.source, d.words), []).append(d.value)
    out = []
    for (source, words), values in grouped.items():
        value = "..".join(values) if len(values) == 2 and values[0] != values[1] else values[0]
        if widened and source in ("stated", "relative"):
            out.append(texts["widened"].format(words=words, value=value))
        else:
            out.append(texts[source].format(value=value, words=words, today=today.isoformat()))
    return out


def trace_dates(op: RequestedOperation) -> list[Mapping[str, str]]:
    return [d.to_dict() for d in op.dates]
