"""Text normalisation shared by every profile (reference model §6.4).

Rules, exactly:

- :func:`collapse_ws` folds every run of whitespace *as .NET ``char.IsWhiteSpace`` defines it*
  into one space and trims the ends. That set is Unicode ``Zs``/``Zl``/``Zp`` plus
  ``\\t \\n \\v \\f \\r``, U+0085 and U+00A0. It is **not** Python's ``str.isspace``: U+001C–U+001F
  are not whitespace here, and zero-width characters (U+200B, U+FEFF) are kept.
- Blocks are joined with a blank line (``"\\n\\n"``); empty blocks are dropped.
- A paragraph number is prefixed as ``**<num>** `` to the first block, or becomes its own
  block when that block is a table, a list item or a quotation.
- Tables render as GitHub-flavoured Markdown, padded to the widest row.
- :func:`slug` is the reference's ``MdUtil.Slug``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from urllib.parse import unquote_to_bytes

from derive.model import Figure

# .NET char.IsWhiteSpace (Unicode 15): Zs + Zl + Zp + \t\n\v\f\r + U+0085 + U+00A0.
# Version of the shared text normalisation (this module and the list markers of derive/lists.py).
# It is part of every derive cache key: a change here that changes any derived text must bump it.
NORMALISATION_VERSION = 2  # 2: a linked figure's marker names its media type, never the link

DOTNET_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_WS_RUN = re.compile("[" + re.escape(DOTNET_WHITESPACE) + "]+")
_BLOCKY_START = re.compile(r"^(\||-(\s|$)|>|\d+[.)°](\s|$))")




def collapse_ws(text: str) -> str:
    """Fold whitespace runs (.NET definition) to one space and trim both ends.

    Python's ``str.split()`` uses exactly the .NET set except U+001C–U+001F, so it is the
    fast path whenever those four separators are absent.
    """
    if not text:
        return text
    if "\x1c" not in text and "\x1d" not in text and "\x1e" not in text and "\x1f" not in text:
        return " ".join(text.split())
    return _WS_RUN.sub(" ", text).strip(" ")


def is_ws(ch: str) -> bool:
    return ch in DOTNET_WHITESPACE


def join_blocks(blocks: Iterable[str]) -> str:
    """Blocks joined by a blank line; empty (whitespace-only) blocks dropped."""
    return "\n\n".join(b for b in blocks if b and b.strip())


def prefix_num(num: str | None, blocks: list[str]) -> list[str]:
    """Prefix a paragraph number to the first block, or give it its own block."""
    kept = [b for b in blocks if b and b.strip()]
    if not num:
        return kept
    label = f"**{num}**"
    if kept and not _BLOCKY_START.match(kept[0]):
        return [f"{label} {kept[0]}", *kept[1:]]
    return [label, *kept]


def emphasis(inner_raw: str, marker: str) -> str:
    """Wrap inline text in an emphasis marker, keeping edge whitespace outside the markers."""
    inner = collapse_ws(inner_raw)
    if not inner:
        return " " if inner_raw and is_ws(inner_raw[0]) else ""
    lead = " " if is_ws(inner_raw[0]) else ""
    trail = " " if is_ws(inner_raw[-1]) else ""
    return f"{lead}{marker}{inner}{marker}{trail}"


def strip_emphasis(text: str) -> str:
    """Plain text of an inline rendering (for ``num``/``heading``/paths)."""
    return collapse_ws(text.replace("**", "").replace("*", ""))


def gfm_table(rows: Sequence[Sequence[str]], *, folded: bool = False) -> str:
    """A GFM table: one line per row, cells folded (:func:`collapse_ws`), escaped and padded to the
    widest row. ``folded``: the caller's cells are already folded (each is its own
    :func:`collapse_ws`), so they are not folded again."""
    kept = [list(r) for r in rows if any(c.strip() for c in r)]
    if not kept:
        return ""
    width = max(len(r) for r in kept)
    lines = []
    for i, row in enumerate(kept):
        cells = [(c if folded else collapse_ws(c)).replace("|", "\\|") for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def slug(text: str) -> str:
    """``MdUtil.Slug``: NFD, drop marks, ASCII alnum lower-cased, rest ``_``, collapsed, trimmed."""
    out = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) == "Mn":
            continue
        out.append(ch.lower() if ch.isascii() and ch.isalnum() else "_")
    value = re.sub("_+", "_", "".join(out)).strip("_")
    return value or "item"


def article_anchor(num_text: str) -> str:
    """``Article 6`` → ``art_6``; ``Article 50a`` → ``art_50a`` (EU profiles)."""
    value = slug(num_text)
    return "art_" + value[len("article_"):] if value.startswith("article_") else value


def annex_anchor(title_text: str) -> str:
    """``ANNEX I`` → ``anx_i`` (EU Formex/flat XHTML annexes)."""
    value = slug(title_text)
    return "anx_" + value[len("annex_"):] if value.startswith("annex_") else value


# media types by file extension (a fixed table: the platform's ``mimetypes`` differs by machine)
MEDIA_TYPES = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "tif": "image/tiff",
               "tiff": "image/tiff", "svg": "image/svg+xml", "bmp": "image/bmp", "webp": "image/webp",
               "pdf": "application/pdf", "eps": "application/postscript", "cgm": "image/cgm"}


def media_type_of(name: str) -> str | None:
    """The media type a file name or link implies by its extension, else ``None``."""
    tail = name.split("?", 1)[0].split("#", 1)[0].rsplit("/", 1)[-1]
    return MEDIA_TYPES.get(tail.rsplit(".", 1)[-1].lower()) if "." in tail else None


_DATA_URI = re.compile(r"^data:([\w.+-]+/[\w.+-]+)?((?:;[^,;]*)*?)(;base64)?,", re.I)


def figure(n: int, src: str) -> Figure:
    """The ``n``-th figure of a provision from an image ``src``.

    A ``data:`` URI is decoded (whitespace inside the base64 ignored) and described by its media
    type, decoded size and SHA-256; it never becomes text. Any other ``src`` is kept as a link,
    with the media type its extension implies.
    """
    match = _DATA_URI.match(src.strip())
    if match is None:
        link = collapse_ws(src) or "no source"
        return Figure(n=n, media_type=media_type_of(link), src=link)
    media_type = (match.group(1) or "text/plain").lower()
    payload = src.strip()[match.end():]
    try:
        if match.group(3):
            raw = base64.b64decode("".join(payload.split()), validate=True)
        else:
            raw = unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return Figure(n=n, media_type=media_type)
    return Figure(n=n, media_type=media_type, size=len(raw), sha256=hashlib.sha256(raw).hexdigest())
