"""Pages kept for repeated requests: the rendered HTML of a page, in the answer cache.

A work, version, diff, search or provenance page is a function of the mounted set and of its
path and query string alone (:func:`kept_page` wraps such views), so once rendered with status
200 its HTML is kept in the mounted set's answer cache (:meth:`serve.mount.ServeState.answers`,
the same byte budget as the answers) and a repeated request is answered from it without calling
the core, shaping a word diff or rendering a template. Each response still gets a fresh
Content-Security-Policy nonce: the kept HTML is stored with the nonce it was rendered with — 128
random bits drawn after everything on the page was known, so no text of the page can hold it —
and every occurrence is replaced by the new response's nonce. Without a cache (``lex serve
--answer-cache 0``, tests) the view runs every time. A view that runs takes one slot of the
admission gate for all its steps (:meth:`serve.mount.ServeState.admitted`).
"""

from __future__ import annotations

import functools
import re
import secrets
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from serve.mount import ServeState
from serve.web.render import PAGE_CSP

View = Callable[[Request], Awaitable[Response]]
_NONCE = re.compile(r"'nonce-([A-Za-z0-9_\-]{16,})'")
#: what separates the kept nonce from the kept HTML (never in a nonce)
_SEPARATOR = b"\n"


def page_key(request: Request) -> bytes:
    """The key of a page in the answer cache: its method, path and query string."""
    scope = request.scope
    return b"page " + str(scope.get("method", "GET")).encode() + b" " + \
        str(scope.get("path", "")).encode("utf-8", "surrogateescape") + b"?" + bytes(scope.get("query_string", b""))


def kept_page(view: View) -> View:
    """``view``, answered from the answer cache when the same page was rendered before (see the module)."""

    @functools.wraps(view)
    async def kept(request: Request) -> Response:
        state: ServeState = request.app.state.lex
        cache = state.answers()
        if cache is None:
            async with state.admitted():
                return await view(request)
        key = page_key(request)
        found = cache.get(key)
        if found is not None:
            old, _, html = found.partition(_SEPARATOR)
            return _fresh(html, old)
        async with state.admitted():
            response = await view(request)
        if cache is state.answers():  # what is mounted did not change meanwhile
            _keep(cache.put, key, response)
        return response

    return kept


def _fresh(html: bytes, old: bytes) -> HTMLResponse:
    """A 200 page of ``html`` with a nonce of its own in place of ``old``."""
    nonce = secrets.token_urlsafe(16)
    body = html.replace(old, nonce.encode()) if old else html
    return HTMLResponse(body, headers={"content-security-policy": PAGE_CSP.format(nonce=nonce)})


def _keep(put: Callable[[bytes, bytes], bool], key: bytes, response: Response) -> None:
    """Keep a rendered 200 page with the nonce it carries (pages of any other status are not kept)."""
    if response.status_code != 200 or not isinstance(response, HTMLResponse):
        return
    found = _NONCE.search(response.headers.get("content-security-policy", ""))
    if found is None or set(response.headers) - {"content-security-policy", "content-type", "content-length"}:
        return
    put(key, found.group(1).encode() + _SEPARATOR + bytes(response.body))
