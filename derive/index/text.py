"""Text normalisation shared by the index builder and the query side.

One normalisation is used for every comparison the index offers outside FTS5 (work names,
identifiers, article numbers), so that a name stored at build time and the same name typed
in a query meet on identical strings:

- :func:`normalize`: NFD, combining marks dropped, letters/digits lower-cased, every other
  run of characters one space; a sequence of single letters is joined (``"C R R"`` → ``crr``).
- :func:`article_key`: the comparable form of an article number, from an anchor
  (``art_1er``), a publisher number (``Art. 1er.``) or a query (``article 1``): letter and
  digit runs joined by ``-``; ``1er``/``1re`` widen to ``1`` and nothing else is widened, so
  ``42`` never meets ``42ter``.
- :func:`fts_query`: user text turned into a safe FTS5 expression (every token a quoted
  string), so no input can inject FTS5 syntax.
"""

from __future__ import annotations

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_RUNS = re.compile(r"[a-z]+|[0-9]+")
_ARTICLE_PREFIX = re.compile(r"^(?:articles?|art)(?=[^a-z]|$)")
_ORDINAL_ONE = {"1-er", "1-re", "1-ier", "premier"}


def fold(text: str) -> str:
    """Lower-case ``text`` and drop combining marks (``Règlement`` → ``reglement``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()


def normalize(text: str) -> str:
    """The comparable form of a name or query (see the module docstring)."""
    folded = _NON_ALNUM.sub(" ", fold(text)).strip()
    tokens = folded.split()
    if len(tokens) > 1 and all(len(t) == 1 and t.isalpha() for t in tokens):
        return "".join(tokens)
    return " ".join(tokens)


def tokens(text: str) -> list[str]:
    """The tokens of :func:`normalize`."""
    return normalize(text).split()


def article_key(text: str) -> str | None:
    """Comparable article number of an anchor, a publisher ``num`` or a query number.

    ``art_1er``, ``Art. 1er.``, ``article 1`` → ``1``; ``art_42ter`` → ``42-ter``;
    ``art_l_111-1``, ``L. 111-1`` → ``l-111-1``; ``art_6a`` → ``6-a``. ``None`` when the text
    holds no digit (annexes, recitals, documents).
    """
    folded = fold(text).strip()
    folded = folded.replace("_", " ")
    folded = _ARTICLE_PREFIX.sub("", folded)
    runs = _RUNS.findall(folded)
    if not any(r.isdigit() for r in runs):
        return None
    key = "-".join(runs)
    return "1" if key in _ORDINAL_ONE else key


def anchor_article_key(anchor: str) -> str | None:
    """:func:`article_key` of an ``art_…`` anchor; ``None`` for any other anchor family."""
    lowered = anchor.lower()
    if not lowered.startswith("art_") and not lowered.startswith("art-"):
        return None
    return article_key(lowered[4:])


def fts_string(token: str) -> str:
    """One FTS5 string literal (double quotes doubled, NUL characters dropped)."""
    return '"' + token.replace("\x00", "").replace('"', '""') + '"'


def fts_query(groups: list[list[str]], *, any_of: bool = False) -> str | None:
    """An FTS5 MATCH expression: groups joined by AND (OR with ``any_of``), alternatives in a
    group joined by OR.

    Each term is quoted as an FTS5 string, so operators, column filters, ``NEAR``, ``*`` and
    stray quotes in user text are plain characters. ``None`` when no term survives.
    """
    parts = []
    for group in groups:
        quoted = [fts_string(t) for t in group if t.strip()]
        if len(quoted) == 1:
            parts.append(quoted[0])
        elif quoted:
            parts.append("(" + " OR ".join(quoted) + ")")
    if not parts:
        return None
    return (" OR " if any_of else " AND ").join(parts)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance by Myers' bit-parallel algorithm (Hyyrö's formulation), O(len(b)) word ops."""
    if not a:
        return len(b)
    peq: dict[str, int] = {}
    for i, ch in enumerate(a):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    last = 1 << (len(a) - 1)
    pv, mv, score = full, 0, len(a)
    for ch in b:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = mv | (~(xh | pv) & full)
        mh = pv & xh
        if ph & last:
            score += 1
        elif mh & last:
            score -= 1
        ph = ((ph << 1) | 1) & full
        mh = (mh << 1) & full
        pv = mh | (~(xv | ph) & full)
        mv = ph & xv
    return score


def levenshtein_within(a: str, b: str, limit: int) -> int | None:
    """Levenshtein distance of ``a`` and ``b`` if it is at most ``limit``, else ``None``."""
    if abs(len(a) - len(b)) > limit:
        return None
    distance = edit_distance(a, b)
    return distance if distance <= limit else None
