"""Named deterministic lines: one sentence per completed legal operation, English or French.

Every line names the instrument (catalogue title and work key) and the instant or window it
answered; every number is copied from the core's answer. Nothing here is model text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assistant import core_port as cp
from assistant.vocab import LegalOutcome

GAP_OUTCOMES = frozenset({LegalOutcome.NEEDS_CLARIFICATION, LegalOutcome.NOT_AVAILABLE,
                          LegalOutcome.NOT_COMPARABLE, LegalOutcome.NOT_FOUND,
                          LegalOutcome.INVALID_REQUEST, LegalOutcome.LEGAL_BOUNDARY})

TEMPLATES: Mapping[str, Mapping[str, str]] = {
    "en": {
        "instrument": "the requested instrument",
        "gap": "The {tool} operation{subject} is {outcome}.",
        "gap_subject": " for {name}",
        "as_of_text": "The verified publisher text of {name}, state from {valid_from}, as asked for {date}, "
                      "{anchor}: \"{excerpt}\"",
        "as_of_outline": "The publisher table of contents of {name}, state from {valid_from}, is open below.",
        "as_of_count": "The verified publisher text of {name}, state from {valid_from}, as asked for {date}, "
                       "holds {count} provision(s), open below.",
        "timeline": "Lex holds {count} publisher version(s) of {name}; the timeline is open below.",
        "history": "The verified history of {anchor} in {name}{window} contains {count} distinct text(s). "
                   "These are publisher consolidation states, not conclusions about legal effect.",
        "window": " between {from_date} and {to_date}",
        "diff": "The publisher states of {name}{scope} on {from_date} and {to_date} {verdict}; the "
                "comparison is open below.",
        "scope": " at {anchor}",
        "differ": "differ", "same": "do not differ", "compared": "were compared",
        "ranking": "Between {from_date} and {to_date}, Lex found {count} instrument(s){versions}. The "
                   "verified ranking is open below.",
        "versions": " with {versions} publisher version date(s)",
        "in_force": "Lex found {count} publisher-observed state(s) covering {date}. This is not an "
                    "exhaustive legal-effect inventory.",
        "coverage": "Coverage of the mounted corpus: {sections} publisher section(s){works}; open below.",
        "works": ", {works} work(s)",
        "cited_by": "Lex found {count} article(s) referring to {name}.",
        "provenance": "The verification record of {lex_id} is open below.",
        "search": "Lex found {count} pointer(s) for your query; they are search hits, open below.",
    },
    "fr": {
        "instrument": "l'instrument demandé",
        "gap": "L'opération {tool}{subject} : {outcome}.",
        "gap_subject": " pour {name}",
        "as_of_text": "Le texte vérifié de l'éditeur pour {name}, état du {valid_from}, demandé au {date}, "
                      "{anchor} : « {excerpt} »",
        "as_of_outline": "La table des matières de l'éditeur pour {name}, état du {valid_from}, est ouverte "
                         "ci-dessous.",
        "as_of_count": "Le texte vérifié de l'éditeur pour {name}, état du {valid_from}, demandé au {date}, "
                       "compte {count} disposition(s), ouvertes ci-dessous.",
        "timeline": "Lex détient {count} version(s) de l'éditeur pour {name} ; la chronologie est ouverte "
                    "ci-dessous.",
        "history": "L'historique vérifié de {anchor} dans {name}{window} compte {count} texte(s) distinct(s). "
                   "Ce sont des états de consolidation de l'éditeur, pas des conclusions sur l'effet juridique.",
        "window": " entre le {from_date} et le {to_date}",
        "diff": "Les états de l'éditeur pour {name}{scope} au {from_date} et au {to_date} {verdict} ; la "
                "comparaison est ouverte ci-dessous.",
        "scope": " à {anchor}",
        "differ": "diffèrent", "same": "ne diffèrent pas", "compared": "ont été comparés",
        "ranking": "Entre le {from_date} et le {to_date}, Lex a trouvé {count} instrument(s){versions}. "
                   "Le classement vérifié est ouvert ci-dessous.",
        "versions": " avec {versions} date(s) de version de l'éditeur",
        "in_force": "Lex a trouvé {count} état(s) observé(s) chez l'éditeur couvrant le {date}. Ce n'est pas "
                    "un inventaire exhaustif des effets juridiques.",
        "coverage": "Couverture du corpus monté : {sections} section(s) d'éditeur{works} ; ouverte ci-dessous.",
        "works": ", {works} œuvre(s)",
        "cited_by": "Lex a trouvé {count} article(s) renvoyant à {name}.",
        "provenance": "La fiche de vérification de {lex_id} est ouverte ci-dessous.",
        "search": "Lex a trouvé {count} pointeur(s) pour votre recherche ; ce sont des résultats de "
                  "recherche, ouverts ci-dessous.",
    },
}

Values = dict[str, Any]
Builder = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, str]], tuple[str, Values]]


def _name(payload: Mapping[str, Any], work: Any, known_title: str | None, texts: Mapping[str, str]) -> str:
    title = known_title or cp.first(payload, "title")
    work = work or cp.first(payload, "work")
    if title and work:
        return f"{title} ({work})"
    return str(title or work or texts["instrument"])


def _as_of(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    values: Values = {"valid_from": cp.first(payload, "valid_from"), "date": args.get("date")}
    provisions = cp.rows(payload, ("provisions",))
    if len(provisions) == 1 and isinstance(provisions[0].get("text"), str):
        values.update(anchor=provisions[0].get("num") or provisions[0].get("anchor"),
                      excerpt=provisions[0]["text"][:600])
        return "as_of_text", values
    if args.get("mode") == "outline":
        return "as_of_outline", values
    return "as_of_count", {**values, "count": cp.count(payload, "total_provisions") or len(provisions)}


def _timeline(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    return "timeline", {"count": cp.count(payload, "total_count") or len(cp.rows(payload))}


def _history(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    window = texts["window"].format(**args) if "from_date" in args and "to_date" in args else ""
    count = cp.count(payload, "distinct_texts") or len(cp.rows(payload, ("states",)))
    return "history", {"anchor": args.get("anchor", "article"), "window": window, "count": count}


def _diff(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    changed = cp.first(payload, "changed")
    verdict = texts["differ"] if changed else texts["same"] if changed is False else texts["compared"]
    scope = texts["scope"].format(anchor=args["anchor"]) if "anchor" in args else ""
    return "diff", {"scope": scope, "verdict": verdict, "from_date": args.get("from_date"),
                    "to_date": args.get("to_date")}


def _ranking(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    versions = cp.count(payload, "new_versions")
    return "ranking", {"from_date": args.get("from_date"), "to_date": args.get("to_date"),
                       "count": cp.count(payload, "works_changed") or len(cp.rows(payload, ("changes",))),
                       "versions": texts["versions"].format(versions=versions) if versions is not None else ""}


def _in_force(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    count = cp.count(payload, "total_works_in_force") or len(cp.rows(payload, ("works",)))
    return "in_force", {"count": count, "date": args.get("date")}


def _coverage(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    works = cp.count(payload, "works")
    return "coverage", {"sections": len(cp.sections(payload)),
                        "works": texts["works"].format(works=works) if works is not None else ""}


def _cited_by(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    return "cited_by", {"count": cp.count(payload, "citing_articles") or len(cp.rows(payload, ("citations",)))}


def _provenance(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    return "provenance", {"lex_id": args.get("lex_id")}


def _search(payload: Mapping[str, Any], args: Mapping[str, Any], texts: Mapping[str, str]) -> tuple[str, Values]:
    return "search", {"count": len(cp.rows(payload, ("hits", "results")))}


BUILDERS: Mapping[str, Builder] = {
    "as_of": _as_of, "timeline": _timeline, "article_history": _history, "diff": _diff,
    "changes_in_period": _ranking, "in_force_on": _in_force, "coverage": _coverage,
    "cited_by": _cited_by, "provenance": _provenance, "search": _search,
}


MAX_DETAIL = 240
MAX_LISTED = 5
LANGUAGE_NAMES = {"en": {"fr": "French", "en": "English", "de": "German", "lb": "Luxembourgish"},
                  "fr": {"fr": "français", "en": "anglais", "de": "allemand", "lb": "luxembourgeois"}}
FACTS = {
    "en": {
        "asked": " (asked for {instant})",
        "provisional": "The answer is provisional: the publisher record of this date may still change.",
        "same_day": "The publisher also holds a withdrawn state starting the same day ({count}); Lex answered "
                    "with the live state.",
        "withdrawn": "This state has been withdrawn by the publisher.",
        "language_held": "You asked for the {language} text; it is the text shown.",
        "language_missing": "You asked for the {language} text; the publisher holds none for this state "
                            "(held: {held}).",
        "more": "… and {more} more ({total} in all).",
    },
    "fr": {
        "asked": " (demandé pour {instant})",
        "provisional": "La réponse est provisoire : l'enregistrement de l'éditeur pour cette date peut encore "
                       "changer.",
        "same_day": "L'éditeur détient aussi un état retiré commençant le même jour ({count}) ; Lex a répondu "
                    "avec l'état non retiré.",
        "withdrawn": "Cet état a été retiré par l'éditeur.",
        "language_held": "Vous avez demandé le texte en {language} ; c'est le texte affiché.",
        "language_missing": "Vous avez demandé le texte en {language} ; l'éditeur n'en détient pas pour cet "
                            "état (détenu : {held}).",
        "more": "… et {more} de plus ({total} au total).",
    },
}


def _instant_of(args: Mapping[str, Any]) -> str | None:
    if args.get("date") or args.get("as_of"):
        return str(args.get("date") or args.get("as_of"))
    if args.get("from_date") and args.get("to_date"):
        return f"{args['from_date']}..{args['to_date']}"
    return None


def bounded(detail: str, facts: Mapping[str, str]) -> str:
    """A gap detail kept short: at most five listed items with a count, at most ~240 characters."""
    parts = [p.strip() for p in detail.split(",")]
    if len(parts) > MAX_LISTED and len(detail) > MAX_DETAIL:
        return ", ".join(parts[:MAX_LISTED]) + " " + facts["more"].format(more=len(parts) - MAX_LISTED,
                                                                          total=len(parts))
    return detail if len(detail) <= MAX_DETAIL else detail[:MAX_DETAIL].rstrip() + "…"


def state_facts(tool: str, payload: Mapping[str, Any], args: Mapping[str, Any], locale: str) -> list[str]:
    """Provisional, same-day, withdrawn and requested-language facts of one answer."""
    facts = FACTS.get(locale, FACTS["en"])
    out: list[str] = []
    if payload.get("provisional") is True or any(s.get("provisional") is True for s in cp.sections(payload)):
        out.append(facts["provisional"])
    twins = payload.get("withdrawn_same_day")
    if isinstance(twins, list) and twins:
        out.append(facts["same_day"].format(count=len(twins)))
    version = payload.get("version")
    if isinstance(version, Mapping) and version.get("withdrawn") is True:
        out.append(facts["withdrawn"])
    asked = args.get("language")
    if isinstance(asked, str) and tool in ("as_of", "diff", "article_history"):
        names = LANGUAGE_NAMES.get(locale, LANGUAGE_NAMES["en"])
        held = payload.get("available_languages")
        shown = cp.first(payload, "language")
        if shown == asked or (isinstance(held, list) and asked in held
                              and not payload.get("text_unavailable_reason")):
            out.append(facts["language_held"].format(language=names.get(asked, asked)))
        else:
            listed = ", ".join(str(x) for x in held) if isinstance(held, list) and held else "-"
            out.append(facts["language_missing"].format(language=names.get(asked, asked), held=listed))
    return out


def named_line(tool: str, payload: Mapping[str, Any], outcome: LegalOutcome, args: Mapping[str, Any],
               locale: str = "en", known_title: str | None = None) -> str:
    """The one named sentence of a completed legal operation: instrument and instant always named,
    then the state facts (provisional, same-day, withdrawn, requested language)."""
    texts = TEMPLATES.get(locale, TEMPLATES["en"])
    facts = FACTS.get(locale, FACTS["en"])
    name = _name(payload, args.get("work"), known_title, texts)
    extra = state_facts(tool, payload, args, locale)
    if outcome in GAP_OUTCOMES:
        detail = cp.first(payload, "detail", "hint", "text_unavailable_reason")
        subject = texts["gap_subject"].format(name=name) if args.get("work") or cp.first(payload, "work") else ""
        instant = _instant_of(args)
        head = texts["gap"].format(tool=tool.replace("_", " "), subject=subject,
                                   outcome=outcome.value.replace("_", " "))
        if instant:
            head = head[:-1] + facts["asked"].format(instant=instant) + "."
        line = head + (f" {bounded(detail, facts)}" if isinstance(detail, str) else "")
        return " ".join([line, *extra])
    key, values = BUILDERS[tool](payload, args, texts)
    return " ".join([texts[key].format(name=name, **values), *extra])
