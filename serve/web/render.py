"""Rendering of the server-side pages: one Jinja environment, escaped output, shared context.

Every page receives the artifact identity it was served from and the timeline semantics of
the publisher it is about (Legilux: dates of applicability; EUR-Lex: dates of consolidated
wording states, never "entry into force"). Autoescaping is always on; templates never mark
user text safe.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    ChainableUndefined,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
)
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from legal.publishers import DISPLAY_NAMES, TIMELINE_SEMANTICS
from serve.mount import Mounted, ServeState

SEMANTICS_LABELS: Mapping[str, str] = {
    "publisher_applicability": "Legilux timeline: the publisher's dates of applicability.",
    "official_consolidation_state": "EUR-Lex timeline: dates of consolidated wording states.",
}
PUBLISHER_SEMANTICS: Mapping[str, str] = TIMELINE_SEMANTICS  # from the publisher registry
PUBLISHER_NAMES: Mapping[str, str] = DISPLAY_NAMES
#: The pages need no script; the only scripts allowed are inline ones carrying this response's
#: nonce (an extension's work panel: the assistant's ask panel), and they may only call this origin.
PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'; connect-src 'self'; script-src 'nonce-{nonce}'")


@lru_cache(maxsize=4)
def environment(extra: tuple[Path, ...] = ()) -> Environment:
    """The Jinja environment (autoescape on): serve's templates, then the ``extra`` directories
    an app's extensions brought (:class:`serve.app.Extension`)."""
    loaders: list[BaseLoader] = [PackageLoader("serve.web", "templates")]
    loaders.extend(FileSystemLoader(str(directory)) for directory in extra)
    env = Environment(loader=ChoiceLoader(loaders), autoescape=True, undefined=ChainableUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    env.globals["semantics_labels"] = SEMANTICS_LABELS
    env.globals["publisher_names"] = PUBLISHER_NAMES
    env.filters["short"] = short_hash
    env.filters["emphasis"] = emphasis
    env.filters["word_diff"] = word_diff
    return env


_STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
_EM = re.compile(r"(?<![*\w])\*(\S(?:.*?\S)?)\*(?![*\w])")


def emphasis(text: object) -> Markup:
    """Escape ``text``, then render Markdown ``**strong**`` and ``*emphasis*`` (nothing else)."""
    escaped = str(escape("" if text is None else str(text)))
    return Markup(_EM.sub(r"<em>\1</em>", _STRONG.sub(r"<strong>\1</strong>", escaped)))


_JOIN = "\x00"  # joins a row's segment texts for one escape (escaping neither makes nor moves it)


def word_diff(segments: Iterable[Any]) -> Markup:
    """A changed row's word diff as markup: each segment's text escaped, a removed one in
    ``<del>``, an added one in ``<ins>``, a kept one bare; the bytes of the template loop it
    replaces (``{% for s in segments %}…{{ s.text }}…{% endfor %}``), with one escape per row
    instead of one per segment (escaping is character by character, so the joined texts escape
    to the joined escapes)."""
    chosen = list(segments)
    texts = [str(s.text) for s in chosen]
    joined = _JOIN.join(texts)
    if len(texts) > 1 and joined.count(_JOIN) == len(texts) - 1:
        escaped = str(escape(joined)).split(_JOIN)
    else:  # one segment, or a text holding the joiner itself: escaped one by one
        escaped = [str(escape(text)) for text in texts]
    out = []
    for segment, text in zip(chosen, escaped, strict=True):
        if segment.op == "del":
            out.append(f"<del>{text}</del>")
        elif segment.op == "ins":
            out.append(f"<ins>{text}</ins>")
        else:
            out.append(text)
    return Markup("".join(out))


def short_hash(value: object, length: int = 12) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= length else f"{text[:length]}…"


def semantics_for(publisher: str | None, envelope: Mapping[str, Any] | None = None) -> str | None:
    """The timeline-semantics label for a publisher (the envelope's own value wins)."""
    key = envelope.get("timeline_semantics") if envelope else None
    if not isinstance(key, str) or key not in SEMANTICS_LABELS:
        key = PUBLISHER_SEMANTICS.get(publisher or "")
    return SEMANTICS_LABELS.get(key) if key else None


def artifact_view(mounted: Mounted) -> dict[str, Any]:
    """What the footer says about the served artifact set."""
    artifact = mounted.artifact
    if mounted.status == "mounted" and artifact is not None:
        return {"status": "mounted", "signed": artifact.signed, "set_id": artifact.set_id,
                "key_ids": list(artifact.key_ids), "publishers": list(mounted.publishers)}
    reason = mounted.refusal.to_dict() if mounted.refusal else None
    return {"status": mounted.status, "signed": False, "set_id": None, "key_ids": [],
            "publishers": [], "reason": reason}


def page(request: Request, template: str, context: Mapping[str, Any], *, status: int = 200,
         publisher: str | None = None, envelope: Mapping[str, Any] | None = None) -> HTMLResponse:
    """Render ``template`` with the shared context (artifact identity, semantics, work panel)."""
    state: ServeState = request.app.state.lex
    panel = getattr(request.app.state, "work_panel", None)
    nonce = secrets.token_urlsafe(16)
    shared = {
        "csp_nonce": nonce,
        "artifact": artifact_view(state.mounted),
        "semantics": semantics_for(publisher, envelope),
        "publisher": publisher,
        "work_panel": panel,
        "query": request.query_params.get("q", ""),
    }
    html = environment(getattr(request.app.state, "templates", ())).get_template(template).render({**shared, **context})
    return HTMLResponse(html, status_code=status, headers={"content-security-policy": PAGE_CSP.format(nonce=nonce)})
