"""``html-eu-tolerant/1``: EUR-Lex bodies that are not well-formed XML (web pages, HTML 4.01).

The bytes are parsed by ``lxml.html`` (libxml2's recovering HTML parser; no network) — only the
in-memory DOM is repaired, the evidence is untouched. Then, in order:

1. the ``xhtml-eu/1`` layouts (eli-subdivisions, flat article titles) on the repaired DOM;
2. the official text fragment of an EUR-Lex page (``div#TexteOnly`` / ``TXT_TE`` of the HTML 4.01
   pages, ``div#text``/``#document1`` of later pages) split at paragraphs whose whole text is an
   article heading (``Article 83``, ``Article premier``) or an annex heading (``ANNEX II``, or
   with its upper-case title, ``ANNEX A LIST OF AGRICULTURAL PRODUCTION ACTIVITIES``) — except the
   headings an amending act *quotes* (see ``quoted_paragraphs``: the structure it inserts or replaces
   in another act stays inside the amending provision, never an anchor of its own);
3. that fragment as one ``document`` provision when it exposes no such heading;
4. otherwise a typed gap ``unsupported_manifestation``: a page with only title and metadata
   (e.g. an HTML5 EUR-Lex page without its text tab) is never turned into text.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from derive.limits import DEFAULT_LIMITS, Limits, body_sha256, check_size, local
from derive.model import Draft, ExtractionResult, Gap
from derive.profiles.xhtml_eu import Walker, drafts_for, stream_drafts
from derive.render import Context, finish
from legal.errors import DerivationError
from legal.outcomes import TextGap

PROFILE = "html-eu-tolerant/5"
FRAGMENT_IDS = ("TexteOnly", "text", "document1", "textTabContent")
# an article title, with the footnote call the HTML 4.01 pages print after the number (``Article 26 (6)``,
# 32000R1346 2000: the article was glued into the one before)
_ARTICLE = re.compile(r"^(Article|Artikel|Articolo|Art\.)\s+(premier|1er|\d+\s?[a-z]{0,9})(?:\s*\(\d{1,2}\))?\s*$",
                      re.IGNORECASE)
_ANNEX = re.compile(r"^(ANNEX|ANNEXE|ANHANG)(\s+(?:[IVXLC]+[a-z]{0,2}|[A-Z]|\d+))?\s*:?\s*$")  # ``ANNEX III:`` (32004R0802)
# an annex heading with its title in the same paragraph, as the HTML 4.01 pages print them:
# ``ANNEX A LIST OF AGRICULTURAL PRODUCTION ACTIVITIES``, ``ANNEX C (1) COMMON METHOD …`` — the
# title is upper-case (no lower-case letter), so running text that starts with "ANNEX" is not one
_ANNEX_TITLED = re.compile(r"^(ANNEX|ANNEXE|ANHANG)\s+(?:[IVXLC]+|[A-Z]|\d+)(?:\s+\(\d+\))?\s+\S.*$")
# quotation marks: an opening mark and the mark that closes it (``„`` closes with ``“`` in German; the
# ASCII ``"`` opens or closes by its place, see ``quote_depth``; the ASCII apostrophe only as a paragraph
# of its own, see ``quoted_paragraphs``)
_QUOTES = {'"': '"', "“": "”", "„": "“", "«": "»", "‘": "’"}
_QUOTE_MARKS_ONLY = re.compile(r'^[\s"“”„«»‘’]+$')
DOCUMENT_PREFIX = '<a id="document"></a>\n\n### Document\n\n'


def _encoding(data: bytes) -> str:
    """UTF-8 when the bytes are valid UTF-8 (all EUR-Lex bodies measured are), else cp1252."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8"


def parse_html(data: bytes, sha: str, limits: Limits) -> etree._Element:
    check_size(data, sha, limits)
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    parser = lxml.html.HTMLParser(no_network=True, huge_tree=False, remove_comments=True, recover=True,
                                  encoding=_encoding(body))
    try:
        root = lxml.html.document_fromstring(body, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise DerivationError(f"unparseable HTML: {exc}", code="malformed_html", subject=sha) from None
    return root


def _by_id(root: etree._Element, ident: str) -> etree._Element | None:
    return next((x for x in root.iter() if isinstance(x.tag, str) and x.get("id") == ident), None)


def _fragment(root: etree._Element) -> etree._Element | None:
    for ident in FRAGMENT_IDS:
        found = _by_id(root, ident)
        if found is not None:
            inner = [x for x in found.iter() if local(x.tag).lower() == "txt_te"]
            return inner[0] if inner else found
    return None


def _is_web_page(root: etree._Element) -> bool:
    return any(local(x.tag).lower() == "script" or x.get("id") in ("PP1Contents", "banner")
               for x in root.iter() if isinstance(x.tag, str))


def _heading_kind(walker: Walker, el: etree._Element) -> str | None:
    text = walker.plain(el) or ""
    if _ARTICLE.match(text):
        return "title-article-norm"
    if _ANNEX.match(text) or (_ANNEX_TITLED.match(text) and text == text.upper() and len(text) <= 200):
        return "title-annex-1"
    return None


def quote_depth(text: str, opener: str) -> int:
    """Quotations of ``opener``'s kind that ``text`` opens minus those it closes.

    An ASCII ``"`` opens at the start of the text or after a space or bracket when a character follows
    it (``"Article 10a``), else it closes (``… these duties."``); a ``’`` between letters or before one
    is an apostrophe (``l’article``), not a closing mark. An ASCII ``'`` (which the HTML 4.01 pages
    print for apostrophes too) closes only at the end of a paragraph, after a word (``… applied.';``).
    """
    if opener == "'":
        return -1 if re.search(r"\w[.!?)]?'\s*[.;,]?\s*$", text) else 0
    if opener == '"':
        depth = 0
        for found in re.finditer('"', text):
            at = found.start()
            before = text[at - 1] if at else " "
            after = text[at + 1] if at + 1 < len(text) else " "
            depth += 1 if (before.isspace() or before in '(["—-') and not after.isspace() else -1
        return depth
    closes = len(re.findall(r"’(?!\w)", text)) if opener == "‘" else text.count(_QUOTES[opener])
    return text.count(opener) - closes


def quoted_paragraphs(texts: list[str]) -> set[int]:
    """Indices of the paragraphs an amending act quotes, after the paragraph that opens the quotation.

    - After a paragraph ending with a colon (the amending formula: "the following Articles shall be
      inserted:", "… is replaced by the following:", "les articles suivants sont insérés :"), a
      paragraph that starts with a quotation mark and leaves it open (``"Article 10a``, ``«TITRE XVI
      bis``, a lone ``«`` or ``'``) opens a quotation that runs to the paragraph where its marks balance
      (nested quotations counted); a quotation that never closes is not read as one.
    - After an unnumbered annex heading (``ANNEX``: the act's only annex), a paragraph made only of
      quotation marks (``""``, as the HTML 4.01 page of 32002L0038 prints the annex it inserts) makes
      the rest of the text that quotation: a later annex heading (``ANNEX L``) is the quoted one.
    """
    inside: set[int] = set()
    i = 1
    while i < len(texts):
        text = texts[i].strip()
        before = texts[i - 1].strip()
        heading = _ANNEX.match(before)
        if heading and heading.group(2) is None and _QUOTE_MARKS_ONLY.match(text):
            inside.update(range(i + 1, len(texts)))
            break
        opener = text[:1]
        if before.endswith(":") and (opener in _QUOTES or text == "'"):
            depth = 1 if text == "'" else quote_depth(text, opener)
            j = i + 1
            while depth > 0 and j < len(texts):
                depth += quote_depth(texts[j], opener)
                j += 1
            if j > i + 1 and depth <= 0:
                inside.update(range(i + 1, j))
                i = j
                continue
        i += 1
    return inside


def _looks_like_subtitle(text: str) -> bool:
    return 0 < len(text) <= 100 and not text.endswith((".", ";", ":", ",")) and not text[0].isdigit() \
        and not text.startswith(("(", "-", "—", "\"", "‘", "«"))


def _split_fragment(fragment: etree._Element, walker: Walker) -> list[Draft]:
    stream = [el for el in fragment if isinstance(el.tag, str) and (walker.plain(el) or "")]
    quoted = quoted_paragraphs([walker.plain(el) or "" for el in stream])
    marked = False
    for i, el in enumerate(stream):
        kind = None if i in quoted else _heading_kind(walker, el)
        if kind:
            el.set("class", kind)
            marked = True
            nxt = stream[i + 1] if i + 1 < len(stream) else None
            if (kind == "title-article-norm" and nxt is not None and i + 2 < len(stream)
                    and not _heading_kind(walker, nxt) and _looks_like_subtitle(walker.plain(nxt) or "")):
                nxt.set("class", "stitle-article-norm")
    return stream_drafts(stream, walker) if marked else []


def _body(root: etree._Element) -> etree._Element | None:
    return next((x for x in root.iter() if local(x.tag).lower() == "body"), None)


def extract(data: bytes, *, language: str, limits: Limits = DEFAULT_LIMITS,
            sha256: str | None = None) -> ExtractionResult:
    """``html-eu-tolerant/1`` over an EUR-Lex HTML body."""
    sha = body_sha256(data, sha256)
    root = parse_html(data, sha, limits)
    ctx = Context(PROFILE, language, sha)
    walker = Walker()
    drafts, note = drafts_for(root, walker)
    if drafts:
        return finish(ctx, drafts, [note, "DOM repaired in memory (not well-formed XML); evidence untouched"])
    fragment = _fragment(root)
    if fragment is None and not _is_web_page(root):
        fragment = _body(root)
    if fragment is None:
        return finish(ctx, [], ["no official text fragment in this page"], gap=Gap(
            TextGap.UNSUPPORTED_MANIFESTATION,
            "EUR-Lex page carries no text fragment (title and metadata only); no text derived",
        ))
    walker.start()
    drafts = _split_fragment(fragment, walker)
    if drafts:
        return finish(ctx, drafts, ["boundaries: whole-paragraph article headings in the official EUR-Lex text "
                                    "fragment (DOM repaired in memory)"])
    walker.start()
    blocks = walker.children(fragment)
    if not blocks:
        return finish(ctx, [], ["official text fragment is empty"], gap=Gap(
            TextGap.UNSUPPORTED_MANIFESTATION, "EUR-Lex page text fragment is empty; no text derived"))
    draft = walker.fill(Draft(anchor="document", type="document", num=None, heading=None, path=(), body="",
                              citations=list(walker.citations)), blocks)
    return finish(ctx, [draft], ["boundaries: document-level fallback; publisher markup exposes no provision boundary"])
