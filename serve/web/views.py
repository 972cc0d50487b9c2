"""The server-rendered pages: search, work timeline, version as of a date, diff, provenance, verify.

Permalinks:

- ``/{publisher}/{work}``: the work's timeline;
- ``/{publisher}/{work}/{date}`` or ``/{publisher}/{work}/{version key}`` (``#anchor`` for one
  provision): the wording on a date or of one exact version. A bare date that falls on two
  states answers **409** with links to the exact keys; a date with no version answers **404**,
  also with the exact keys;
- ``/{publisher}/{work}/diff/{A}/{B}``: provision-by-provision comparison (A, B: date or key);
- ``/{publisher}/{work}/{version key}/provenance``: the hash chain of one version.

Every page of a work, version, diff, provenance and search takes ``?known_on=YYYY-MM-DD``: the
answer as held that day (a banner says so; links keep it); a day before anything about the work
was held answers **404** ``not_yet_known``, a day that is not a date or is after the index was
built **400**.

Pages need no JavaScript. Every core call goes through the admission gate like the API.
"""

from __future__ import annotations

import functools
from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from legal.errors import LexError, RequestError
from serve.core.params import Date
from serve.http.validation import validate_arguments
from serve.mount import DiffPageCore, ServeState, with_refusal
from serve.web import diffing
from serve.web.render import page
from serve.web.shape import (
    Point,
    choices_of,
    diff_url,
    first,
    is_future,
    items,
    mapping,
    outcome_of,
    parse_point,
    point_url,
    provenance_url,
    sections,
    split_work,
    valid_work,
    version_link,
    work_url,
)

TIMELINE_LIMIT = 200
SEARCH_LIMIT = 20
ANCHORS_PER_CALL = 50
#: Changes one diff page shows (the summary counts them all; the page says when more exist).
DIFF_PAGE_CHANGES = 100
#: ``?known_on=YYYY-MM-DD`` on a page: the answer as held that day (checked like the API's argument).
KNOWN_ON = Date("known_on", "As known on this day.")


def _known_on(request: Request) -> str | None:
    """The page's ``known_on`` (raises :class:`RequestError` for a value that is not a date)."""
    raw = request.query_params.get("known_on")
    return None if not raw else str(KNOWN_ON.check(raw))


def _add_known_on(request: Request, args: dict[str, Any]) -> None:
    """Put the page's ``known_on`` into an operation's ``args`` when it has one (raises as
    :func:`_known_on`)."""
    known_on = _known_on(request)
    if known_on is not None:
        args["known_on"] = known_on


def _as_known(url: str | None, known_on: str | None) -> str | None:
    """``url`` keeping the page's ``known_on`` (before any ``#anchor``)."""
    if url is None or known_on is None:
        return url
    path, hashmark, anchor = url.partition("#")
    return f"{path}?known_on={known_on}{hashmark}{anchor}"


def _kept_known_on(request: Request) -> str | None:
    """The forms' ``known_on`` when it is a date (the target page checks it again)."""
    try:
        return _known_on(request)
    except RequestError:
        return None


def _known_on_refused(request: Request, error: RequestError) -> Response:
    return _error_page(request, 400, "Not accepted", error.message, code=error.code)


def _not_yet_known(request: Request, publisher: str, slug: str, body: Any) -> Response:
    message = (f"Nothing about {publisher}:{slug} was held on {body.get('known_on')}; "
               f"its first state was recorded on {body.get('first_known')}.")
    return _error_page(request, 404, "Not yet known then", message, publisher=publisher,
                       links=[{"url": work_url(publisher, slug), "label": "The timeline as held now"}],
                       code="not_yet_known")


async def _call(request: Request, operation: str, arguments: dict[str, Any], *, keep: bool = False) -> Any:
    """The core's answer through the admission gate. A new answer is kept in the answer cache only
    with ``keep``: the pages that make the other calls are kept whole (:mod:`serve.web.kept`)."""
    state: ServeState = request.app.state.lex
    return await state.call(operation, arguments, keep=keep)


def _error_page(request: Request, status: int, title: str, message: str, *,
                publisher: str | None = None, links: list[dict[str, Any]] | None = None,
                code: str | None = None) -> Response:
    context = {"title": title, "message": message, "links": links or [], "code": code, "status": status}
    return page(request, "error.html", context, status=status, publisher=publisher)


def _not_found(request: Request, what: str = "No such page.") -> Response:
    return _error_page(request, 404, "Not found", what, code="not_found")


def _no_corpus(request: Request, answer: Any) -> Response:
    state: ServeState = request.app.state.lex
    reason = state.mounted.refusal.to_dict() if state.mounted.refusal else None
    detail = str(first(answer).get("detail") or "No verified index is mounted on this server.")
    return page(request, "no_corpus.html", {"title": "No corpus mounted", "detail": detail, "reason": reason},
                status=503)


def _work_args(request: Request) -> tuple[str, str] | None:
    publisher = str(request.path_params.get("publisher", ""))
    slug = str(request.path_params.get("work", ""))
    return (publisher, slug) if valid_work(publisher, slug) else None


# -- home, search, verify ----------------------------------------------------------------------


async def home(request: Request) -> Response:
    answer = await _call(request, "coverage", {}, keep=True)
    if outcome_of(answer) == "no_corpus_mounted":
        return _no_corpus(request, answer)
    return page(request, "home.html", {"title": "Point-in-time legal evidence", "coverage": sections(answer)})


def _search_arguments(request: Request) -> dict[str, Any]:
    params = request.query_params
    args: dict[str, Any] = {"query": params.get("q", "").strip(), "limit": SEARCH_LIMIT}
    if params.get("publisher"):
        args["publisher"] = params["publisher"]
    if params.get("as_of"):
        args.update(time_scope="as_of", as_of=params["as_of"])
    if params.get("known_on"):
        args["known_on"] = params["known_on"]
    return args


async def search(request: Request) -> Response:
    args = _search_arguments(request)
    context: dict[str, Any] = {"title": "Search", "args": args, "results": [], "searched": False}
    if not args["query"]:
        return page(request, "search.html", context)
    try:
        args = validate_arguments(request.app.state.catalog["search"], args)
    except LexError as error:
        return _error_page(request, 400, "Search not accepted", error.message, code=error.code)
    known_on = args.get("known_on")

    def render(answer: Any) -> Response:  # shaping and rendering twenty hits: on the pool, with the search
        if outcome_of(answer) == "no_corpus_mounted":
            return _no_corpus(request, answer)
        context.update(results=[_search_element(e, known_on) for e in sections(answer)], searched=True,
                       known_on=known_on)
        return page(request, "search.html", context)

    state: ServeState = request.app.state.lex
    try:
        return await state.call_then("search", args, render)
    except RequestError as error:
        return _error_page(request, 400, "Search not accepted", error.message, code=error.code)


def _search_element(element: Any, known_on: str | None = None) -> dict[str, Any]:
    publisher = str(element.get("publisher") or "")
    hits = [_hit(publisher, hit, known_on) for hit in items(element.get("hits"))]
    return {"publisher": publisher, "status": outcome_of(element), "hits": hits,
            "semantics": element.get("timeline_semantics")}


def _hit(publisher: str, hit: Any, known_on: str | None = None) -> dict[str, Any]:
    pub, slug = split_work(str(hit.get("work") or hit.get("work_id") or ""))
    pub = pub or publisher
    key = str(hit.get("version_key") or "")
    anchor = hit.get("anchor")
    target = point_url(pub, slug, key, anchor) if key else work_url(pub, slug)
    return {**hit, "url": _as_known(target, known_on), "work_url": _as_known(work_url(pub, slug), known_on)}


async def verify(request: Request) -> Response:
    state: ServeState = request.app.state.lex
    mounted = state.mounted
    artifact = mounted.artifact
    answer = await _call(request, "coverage", {}, keep=True)
    coverage = [] if outcome_of(answer) == "no_corpus_mounted" else sections(answer)
    context = {"title": "Verification", "readiness": mounted.readiness(),
               "files": list(artifact.files) if artifact else [], "coverage": coverage}
    return page(request, "verify.html", context, status=200)


# -- work timeline ----------------------------------------------------------------------------


async def _timeline(request: Request, publisher: str, slug: str, known_on: str | None = None) -> Any:
    return await _call(request, "timeline", _timeline_arguments(publisher, slug, known_on))


def _timeline_arguments(publisher: str, slug: str, known_on: str | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {"work": f"{publisher}:{slug}", "limit": TIMELINE_LIMIT}
    if known_on is not None:
        args["known_on"] = known_on
    return args


async def work(request: Request) -> Response:
    """A work's timeline page: the core's ``timeline`` and the page made of it in one step on the
    worker pool (:meth:`serve.mount.ServeState.call_then`)."""
    parsed = _work_args(request)
    if parsed is None:
        return _not_found(request)
    publisher, slug = parsed
    state: ServeState = request.app.state.lex
    try:
        known_on = _known_on(request)
        return await state.call_then("timeline", _timeline_arguments(publisher, slug, known_on),
                                     functools.partial(_work_page, request, publisher, slug, known_on))
    except RequestError as error:
        return _known_on_refused(request, error)


def _work_page(request: Request, publisher: str, slug: str, known_on: str | None, answer: Any) -> Response:
    """The page of ``timeline``'s ``answer``: the timeline, or the page saying why there is none."""
    status = outcome_of(answer)
    if status == "no_corpus_mounted":
        return _no_corpus(request, answer)
    if status == "not_yet_known":
        return _not_yet_known(request, publisher, slug, first(answer))
    if status not in ("succeeded", "empty"):
        return _error_page(request, 404, "Unknown work", f"No work {publisher}:{slug} is held.",
                           publisher=publisher, code=status)
    body = first(answer)
    versions = [_known_link(version_link(publisher, slug, doc), known_on) for doc in items(body.get("versions"))]
    context = {"title": _work_title(body, slug), "work": f"{publisher}:{slug}", "slug": slug,
               "versions": versions, "total": body.get("total_count"), "truncated": body.get("truncated"),
               "work_url": work_url(publisher, slug), "known_on": known_on}
    return page(request, "work.html", context, publisher=publisher, envelope=body)


def _known_link(link: dict[str, Any], known_on: str | None) -> dict[str, Any]:
    return {**link, "url": _as_known(link.get("url"), known_on),
            "provenance_url": _as_known(link.get("provenance_url"), known_on)}


def _work_title(body: Any, slug: str) -> str:
    versions = items(body.get("versions"))
    title = body.get("title") or (versions[-1].get("title") if versions else None)
    return str(title or slug)


async def go_to_date(request: Request) -> Response:
    """The no-JavaScript date form: redirect to the permalink of the date."""
    parsed = _work_args(request)
    point = parse_point(request.query_params.get("date", ""))
    if parsed is None:
        return _not_found(request)
    if point is None:
        return _error_page(request, 400, "Not a date", "Give a date as YYYY-MM-DD.", publisher=parsed[0],
                           code="invalid_date")
    return RedirectResponse(_as_known(point_url(*parsed, point.text), _kept_known_on(request)) or "", status_code=303)


async def go_to_diff(request: Request) -> Response:
    """The no-JavaScript comparison form: redirect to the diff permalink."""
    parsed = _work_args(request)
    if parsed is None:
        return _not_found(request)
    a = parse_point(request.query_params.get("from", ""))
    b = parse_point(request.query_params.get("to", ""))
    if a is None or b is None:
        return _error_page(request, 400, "Not a date", "Give two dates as YYYY-MM-DD.", publisher=parsed[0],
                           code="invalid_date")
    return RedirectResponse(_as_known(diff_url(*parsed, a.text, b.text), _kept_known_on(request)) or "",
                            status_code=303)


# -- one version as of a date -----------------------------------------------------------------


async def _exact_keys(request: Request, publisher: str, slug: str) -> list[dict[str, Any]]:
    answer = await _timeline(request, publisher, slug)
    return [version_link(publisher, slug, doc) for doc in items(first(answer).get("versions"))]


async def _no_version_page(request: Request, publisher: str, slug: str, point: Point, message: str) -> Response:
    keys = await _exact_keys(request, publisher, slug)
    context = {"title": "No version for this point", "message": message, "point": point.text,
               "choices": keys, "work": f"{publisher}:{slug}", "work_url": work_url(publisher, slug),
               "conflict": False}
    return page(request, "choices.html", context, status=404, publisher=publisher)


def _ambiguous_page(request: Request, publisher: str, slug: str, point: Point,
                    choices: list[dict[str, Any]], envelope: Any) -> Response:
    starts = sorted({str(c.get("valid_from")) for c in choices if c.get("valid_from")})
    began = f", all beginning {', '.join(starts)}" if starts else ""
    message = (f"On {point.date}, {len(choices)} states of {publisher}:{slug} apply{began}. "
               "Choose one exact version:")
    context = {"title": "Ambiguous date", "message": message, "point": point.text, "choices": choices,
               "work": f"{publisher}:{slug}", "work_url": work_url(publisher, slug), "conflict": True}
    return page(request, "choices.html", context, status=409, publisher=publisher, envelope=envelope)


async def version(request: Request) -> Response:
    """A version's page: the core's ``as_of`` and the page made of it in one step on the worker pool
    (:meth:`serve.mount.ServeState.call_then`); a date with no version then asks for the timeline."""
    parsed = _work_args(request)
    point = parse_point(str(request.path_params.get("point", "")))
    if parsed is None or point is None:
        return _not_found(request)
    publisher, slug = parsed
    args: dict[str, Any] = {"work": f"{publisher}:{slug}", "date": point.date}
    if point.version_key:
        args["version_key"] = point.version_key
    state: ServeState = request.app.state.lex
    try:
        _add_known_on(request, args)
        made = await state.call_then("as_of", args, functools.partial(_version_page, request, publisher, slug, point))
    except RequestError as error:
        if error.subject == "known_on":
            return _known_on_refused(request, error)
        return await _no_version_page(request, publisher, slug, point, "No version with this exact key.")
    if made is not None:
        return made
    message = f"No state of {publisher}:{slug} is held for {point.date}."
    return await _no_version_page(request, publisher, slug, point, message)


def _version_page(request: Request, publisher: str, slug: str, point: Point, answer: Any) -> Response | None:
    """The page of ``as_of``'s ``answer``: the version, or the page saying why there is none; None
    when no state is held for the date (:func:`_no_version_page` lists the work's versions: one more
    call, made by the caller)."""
    body = first(answer)
    status = outcome_of(answer)
    if status == "no_corpus_mounted":
        return _no_corpus(request, answer)
    if status == "unknown_work":
        return _error_page(request, 404, "Unknown work", f"No work {publisher}:{slug} is held.",
                           publisher=publisher, code=status)
    if status == "not_yet_known":
        return _not_yet_known(request, publisher, slug, body)
    if status == "ambiguous_version":
        choices = [version_link(publisher, slug, d) for d in choices_of(body, "version_choices", "choices")]
        return _ambiguous_page(request, publisher, slug, point, choices, body)
    if status == "no_version_for_date":
        return None
    return page(request, "version.html", _version_context(publisher, slug, point, body),
                publisher=publisher, envelope=body)


def _version_context(publisher: str, slug: str, point: Point, body: Any) -> dict[str, Any]:
    document = mapping(body.get("version") or body.get("document"))
    key = str(document.get("version_key") or point.version_key or "")
    known_on = body.get("known_on")
    provisions = [{**p, "url": _as_known(point_url(publisher, slug, key, str(p.get("anchor") or "")), known_on)}
                  for p in items(body.get("provisions"))]
    freshness = mapping(body.get("freshness"))
    return {
        "known_on": known_on, "known_on_text": mapping(body.get("known_on_text")),
        "title": str(document.get("title") or slug), "work": f"{publisher}:{slug}", "slug": slug,
        "point": point, "document": document, "provisions": provisions, "status": outcome_of(body),
        "body": body, "version_key": key, "work_url": work_url(publisher, slug),
        "exact_url": _as_known(point_url(publisher, slug, key), known_on) if key else None,
        "provenance_url": _as_known(provenance_url(publisher, slug, key), known_on) if key else None,
        "provisional": bool(body.get("provisional")) or is_future(point.date, freshness.get("built_at")),
    }


# -- diff -------------------------------------------------------------------------------------


def _diff_arguments(publisher: str, slug: str, a: Point, b: Point) -> dict[str, Any]:
    args: dict[str, Any] = {"work": f"{publisher}:{slug}", "from_date": a.date, "to_date": b.date,
                            "limit": DIFF_PAGE_CHANGES}
    if a.version_key:
        args["from_version_key"] = a.version_key
    if b.version_key:
        args["to_version_key"] = b.version_key
    return args


async def diff(request: Request) -> Response:
    parsed = _work_args(request)
    a = parse_point(str(request.path_params.get("a", "")))
    b = parse_point(str(request.path_params.get("b", "")))
    if parsed is None or a is None or b is None:
        return _not_found(request)
    publisher, slug = parsed
    if a.date > b.date:
        links = [{"url": diff_url(publisher, slug, b.text, a.text), "label": "Compare in date order"}]
        return _error_page(request, 400, "Dates out of order", "The first point must not be after the second.",
                           publisher=publisher, links=links, code="dates_out_of_order")
    try:
        args = _diff_arguments(publisher, slug, a, b)
        _add_known_on(request, args)
        answer = await _diff_call(request, args, publisher, slug, (a, b))
    except RequestError as error:
        if error.subject == "known_on":
            return _known_on_refused(request, error)
        return await _no_version_page(request, publisher, slug, a, "No version with this exact key.")
    if isinstance(answer, Response):
        return answer
    return await _diff_answer(request, publisher, slug, (a, b), answer)


#: The outcomes of ``diff`` whose page :func:`_diff_answer` makes (an error page, or the choices),
#: some of them after further calls; every other outcome is a comparison.
_DIFF_REFUSALS = frozenset({"no_corpus_mounted", "unknown_work", "not_yet_known", "ambiguous_version",
                            "no_version_for_date"})


async def _diff_call(request: Request, args: dict[str, Any], publisher: str, slug: str,
                     points: tuple[Point, Point]) -> Any:
    """The core's ``diff`` for the page: without the word spans the page does not show when the
    core can leave them out (:class:`serve.mount.DiffPageCore`), through the same gate. With such a
    core a comparison is answered, its rows shaped and its page rendered in that same step on the
    worker pool (:func:`_diff_page`: the page is the Response returned); any other outcome is
    returned for :func:`_diff_answer`."""
    state: ServeState = request.app.state.lex
    mounted = state.mounted
    core = mounted.core
    if isinstance(core, DiffPageCore):
        def step() -> Any:
            answer = with_refusal(core.diff_without_word_spans(args), mounted.refusal)
            if outcome_of(answer) in _DIFF_REFUSALS:
                return answer
            body = first(answer)
            rows = _rows_by_hash(core, publisher, body)
            return _diff_page(request, publisher, slug, points, (outcome_of(answer), body), rows)

        return await state.run(step)
    return await _call(request, "diff", args)


async def _diff_answer(request: Request, publisher: str, slug: str, points: tuple[Point, Point],
                       answer: Any) -> Response:
    body = first(answer)
    status = outcome_of(answer)
    a, b = points
    if status == "no_corpus_mounted":
        return _no_corpus(request, answer)
    if status == "unknown_work":
        return _error_page(request, 404, "Unknown work", f"No work {publisher}:{slug} is held.",
                           publisher=publisher, code=status)
    if status == "not_yet_known":
        return _not_yet_known(request, publisher, slug, body)
    if status == "ambiguous_version":
        return _diff_ambiguous(request, publisher, slug, points, body)
    if status == "no_version_for_date":
        missing = a if body.get("from_resolved") is False else b
        return await _no_version_page(request, publisher, slug, missing,
                                      f"No state of {publisher}:{slug} is held for {missing.date}.")
    rows = await _provision_rows(request, publisher, slug, body)
    state: ServeState = request.app.state.lex
    return await state.run(_diff_page, request, publisher, slug, points, (status, body), rows)


def _diff_page(request: Request, publisher: str, slug: str, points: tuple[Point, Point], answered: tuple[str, Any],
               rows: list[diffing.Row]) -> Response:
    """The rendered page of a comparison (``answered``: the ``diff`` answer's outcome and body,
    ``rows``: its provision rows; CPU-bound: on the worker pool, never on the event loop)."""
    a, b = points
    status, body = answered
    left, right = mapping(body.get("from")), mapping(body.get("to"))
    context = {"title": f"Changes in {slug}", "work": f"{publisher}:{slug}", "slug": slug, "a": a, "b": b,
               "from_doc": left, "to_doc": right, "rows": rows, "summary": diffing.summary_of(body, rows),
               "body": body, "status": status, "work_url": work_url(publisher, slug),
               "known_on": body.get("known_on"),
               "from_url": _as_known(point_url(publisher, slug, str(left.get("version_key") or a.text)),
                                     body.get("known_on")),
               "to_url": _as_known(point_url(publisher, slug, str(right.get("version_key") or b.text)),
                                   body.get("known_on"))}
    return page(request, "diff.html", context, publisher=publisher, envelope=body)


def _diff_ambiguous(request: Request, publisher: str, slug: str, points: tuple[Point, Point],
                    body: Any) -> Response:
    a, b = points
    choices: list[dict[str, Any]] = []
    for side, docs in (("from", choices_of(body, "from_version_choices")), ("to", choices_of(body, "to_version_choices"))):
        for doc in docs:
            link = version_link(publisher, slug, doc)
            key = link["version_key"]
            link["url"] = diff_url(publisher, slug, key, b.text) if side == "from" else diff_url(publisher, slug, a.text, key)
            link["side"] = side
            choices.append(link)
    message = "One of the two dates falls on several states of this work. Choose exact versions:"
    context = {"title": "Ambiguous date", "message": message, "point": f"{a.text} → {b.text}",
               "choices": choices, "work": f"{publisher}:{slug}", "work_url": work_url(publisher, slug),
               "conflict": True}
    return page(request, "choices.html", context, status=409, publisher=publisher, envelope=body)


async def _texts(request: Request, publisher: str, slug: str, doc: Any, anchors: list[str]) -> dict[str, str]:
    """The texts of ``anchors`` in one exact version (as_of select, in chunks of 50)."""
    key, date = doc.get("version_key"), doc.get("valid_from")
    out: dict[str, str] = {}
    if not key or not date:
        return out
    for start in range(0, len(anchors), ANCHORS_PER_CALL):
        answer = await _call(request, "as_of", {"work": f"{publisher}:{slug}", "date": str(date)[:10],
                                                "version_key": str(key), "anchors": anchors[start:start + ANCHORS_PER_CALL]})
        out.update({str(p.get("anchor")): str(p.get("text") or "") for p in items(first(answer).get("provisions"))})
    return out


def _has_texts(doc: Any) -> bool:
    """Whether a diff side names an exact version (its texts can be read; see :func:`_texts`)."""
    return bool(doc.get("version_key") and doc.get("valid_from"))


async def _provision_rows(request: Request, publisher: str, slug: str, body: Any) -> list[diffing.Row]:
    """Rows for the provisions the core reports as added, removed or changed, with full texts.

    A core that reads stored texts by hash (:class:`serve.mount.DiffPageCore`) gives the changed
    provisions' two wordings from the hashes the diff answer carries, with the rows, in one call
    through the gate; another core is asked ``as_of`` for them (:func:`_texts`). Both give the
    same texts: the diff's hashes are those of the provisions ``as_of`` returns for these exact
    versions (the same expression; anchors are held once per version)."""
    changes = items(body.get("changes"))
    changed = [str(c.get("anchor")) for c in changes if c.get("change") == "changed"]
    state: ServeState = request.app.state.lex
    core = state.mounted.core
    if changed and isinstance(core, DiffPageCore):
        return await state.run(_rows_by_hash, core, publisher, body)
    before = await _texts(request, publisher, slug, mapping(body.get("from")), changed) if changed else {}
    after = await _texts(request, publisher, slug, mapping(body.get("to")), changed) if changed else {}
    return await state.run(diffing.rows_of, changes, before, after)


def _rows_by_hash(core: DiffPageCore, publisher: str, body: Any) -> list[diffing.Row]:
    """The rows of a ``diff`` answer with the changed provisions' texts read by their hashes from
    ``core`` (:func:`diffing.rows_by_hash`; a diff with no changed provision reads none)."""
    changes = items(body.get("changes"))
    if not any(c.get("change") == "changed" for c in changes):
        return diffing.rows_of(changes, {}, {})
    held_in = str(body.get("work") or "").partition(":")[0] or publisher  # the index that answered
    read = functools.partial(core.stored_texts, held_in)
    sides = (_has_texts(mapping(body.get("from"))), _has_texts(mapping(body.get("to"))))
    return diffing.rows_by_hash(changes, read, sides)


# -- provenance ---------------------------------------------------------------------------------


async def provenance(request: Request) -> Response:
    parsed = _work_args(request)
    point = parse_point(str(request.path_params.get("point", "")))
    if parsed is None or point is None or not point.is_exact:
        return _not_found(request, "Provenance is shown for exact version keys.")
    publisher, slug = parsed
    args: dict[str, Any] = {"lex_id": f"{publisher}:{slug}:{point.version_key}"}
    try:
        _add_known_on(request, args)
        known_on = args.get("known_on")
        answer = await _call(request, "provenance", args)
    except RequestError as error:
        return _known_on_refused(request, error)
    status = outcome_of(answer)
    if status == "no_corpus_mounted":
        return _no_corpus(request, answer)
    if status == "not_yet_known":
        return _not_yet_known(request, publisher, slug, first(answer))
    if status != "succeeded":
        return await _no_version_page(request, publisher, slug, point, "No version with this exact key.")
    body = first(answer)
    context = {"title": "Provenance", "work": f"{publisher}:{slug}", "slug": slug, "body": body,
               "events": items(body.get("events")), "expressions": items(body.get("expressions")),
               "chain": mapping(body.get("chain")),
               "known_on": known_on,
               "version_url": _as_known(point_url(publisher, slug, str(point.version_key)), known_on),
               "work_url": work_url(publisher, slug)}
    return page(request, "provenance.html", context, publisher=publisher, envelope=body)


async def not_found(request: Request) -> Response:
    return _not_found(request)
