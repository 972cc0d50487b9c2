"""Text normalisation shared by the index builder and the query side.

One normalisation is used for every comparison the index offers outside FTS5 (work names,
identifiers, article numbers), so that a name stored at build time and the same name typed
in a query meet on identical strings:

- :func:`normalize`: the text cut into words and folded exactly as the FTS5 tokenizer
  (``unicode61 remove_diacritics 2``) cuts and folds it, words joined by one space; a sequence
  of single letters is joined (``"C R R"`` → ``crr``). A normalised query word is therefore
  the very term the index holds (``Großherzogtum`` → ``großherzogtum``, ``Łódź`` → ``łodz``,
  ``l'État`` → ``l etat``), see :func:`fts_tokens`.
- :func:`article_key`: the comparable form of an article number, from an anchor
  (``art_1er``), a publisher number (``Art. 1er.``) or a query (``article 1``): letter and
  digit runs joined by ``-``; ``1er``/``1re`` widen to ``1`` and nothing else is widened, so
  ``42`` never meets ``42ter``.
- :func:`fts_query`: user text turned into a safe FTS5 expression (every token a quoted
  string), so no input can inject FTS5 syntax.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import unicodedata
from collections.abc import Iterable

from derive.index.schema import FTS_TOKENIZER

#: Identity of :func:`normalize`, recorded in the index stamp (``text_normalization``): names
#: stored by the builder and words typed in a query meet only if both sides normalise alike.
NORMALIZATION = f"fts5-tokens/1 ({FTS_TOKENIZER})"

_RUNS = re.compile(r"[a-z]+|[0-9]+")
_ASCII_WORDS = re.compile(r"[0-9a-z]+")
_ARTICLE_PREFIX = re.compile(r"^(?:articles?|art)(?=[^a-z]|$)")
_ORDINAL_ONE = {"1-er", "1-re", "1-ier", "premier"}


class _Folds(dict[int, str]):
    """Code point → its compatibility decomposition (NFKD) without combining marks, filled as
    characters are met: a ``str.translate`` table for :func:`fold`. Decomposing a text
    character by character then dropping the marks gives what decomposing it whole then dropping
    them gives: canonical reordering moves only combining marks, and every one of them is dropped."""

    def __missing__(self, code: int) -> str:
        decomposed = unicodedata.normalize("NFKD", chr(code))
        folded = self[code] = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
        return folded


_FOLDS = _Folds()


def fold(text: str) -> str:
    """Lower-case ``text`` and drop combining marks (``Règlement`` → ``reglement``): its NFKD
    decomposition without combining marks, lower-cased (one table lookup a character)."""
    if text.isascii():  # no ASCII character decomposes or is a combining mark
        return text.lower()
    return text.translate(_FOLDS).lower()


class _Tokenizer:
    """How the FTS5 tokenizer treats each character, learnt from SQLite itself and cached.

    ``unicode61`` decides per code point: a separator, or a token character folded to one
    character (lower case, Latin diacritics removed) or to nothing (a combining mark). ASCII is
    answered directly (``[0-9A-Za-z]`` are the token characters); any other character is put,
    once, to the same tokenizer in a private in-memory FTS5 table (``fts5vocab`` instance
    view), so the answer is the tokenizer's by construction, for the SQLite version in use,
    including the Unicode tables it was compiled with.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        #: code point → folded text ("" = token character folded to nothing); None = separator.
        self.fold: dict[str, str | None] = {chr(c): (chr(c).lower() if chr(c).isalnum() else None) for c in range(128)}
        #: the same as a ``str.translate`` table: a separator → one space, a token character → its folding
        self.table: dict[int, str] = {ord(ch): " " if folded is None else folded for ch, folded in self.fold.items()}

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(":memory:", check_same_thread=False)
            conn.execute(f"CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='{FTS_TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, 'instance')")
            self._conn = conn
        return self._conn

    def learn(self, chars: Iterable[str]) -> None:
        """Classify every character of ``chars`` not yet known (one SQLite round trip)."""
        with self._lock:
            todo = sorted({ch for ch in chars if ch not in self.fold})
            if not todo:
                return
            for ch in [c for c in todo if 0xD800 <= ord(c) < 0xE000]:  # lone surrogates: not encodable text
                self.table[ord(ch)] = " "
                self.fold[ch] = None
            todo = [c for c in todo if c not in self.fold]
            conn = self._connection()
            # Each character between two ASCII letters: a separator leaves ``q``,``q``; a token
            # character folded to ``x`` gives ``qxq``; one folded to nothing gives ``qq``.
            conn.executemany("INSERT INTO probe(rowid, x) VALUES (?, ?)",
                             [(i + 1, f"q{ch}q") for i, ch in enumerate(todo)])
            terms: dict[int, list[str]] = {}
            for doc, term in conn.execute("SELECT doc, term FROM probe_terms ORDER BY doc, offset"):
                terms.setdefault(int(doc), []).append(str(term))
            conn.execute("DELETE FROM probe")
            for i, ch in enumerate(todo):
                found = terms.get(i + 1, [])
                folded = found[0][1:-1] if len(found) == 1 and len(found[0]) >= 2 else None
                # the table first: a reader that finds ``ch`` in :attr:`fold` finds it in the table
                self.table[ord(ch)] = " " if folded is None else folded
                self.fold[ch] = folded


_TOKENIZER = _Tokenizer()


def fts_tokens(text: str) -> list[str]:
    """The words of ``text`` exactly as the index's FTS5 tokenizer cuts and folds them."""
    if text.isascii():  # ASCII: the token characters are [0-9A-Za-z] (see _Tokenizer), lower-cased
        return _ASCII_WORDS.findall(text.lower())
    fold_of = _TOKENIZER.fold
    if not all(ch in fold_of for ch in set(text)):
        _TOKENIZER.learn(text)
    # each character replaced by its folding, each separator by a space (one table lookup a
    # character); a word whose characters all fold to nothing is no word
    return [w for w in text.translate(_TOKENIZER.table).split(" ") if w]


def normalize(text: str) -> str:
    """The comparable form of a name or query (see the module docstring)."""
    words = fts_tokens(text)
    if len(words) > 1 and all(len(t) == 1 and t.isalpha() for t in words):
        return "".join(words)
    return " ".join(words)


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


#: A ``data:`` URI (RFC 2397): optional media type and parameters, then a comma and the payload up to
#: whitespace or a closing bracket/quote. Prose such as ``personal data: …`` has no comma right after the
#: colon and is not matched.
_DATA_URI = re.compile(r"\bdata:(?:[a-z]+/[\w.+-]+)?(?:;[\w.+=-]+)*,[^\s)\]\"'<>]*", re.IGNORECASE)


#: The typed figure placeholder derivation puts where an image stood (``derive.model.Figure.marker``).
_FIGURE_MARKER = re.compile(r"\[figure \d+: [^\]\n]*\]")


def fts_text(text: str) -> str:
    """The text a provision contributes to ``provision_fts``: its wording without figure placeholders
    (``[figure 1: image/png, 130114 bytes]``) and without any ``data:`` URI.

    Images are not text: their placeholders would index "figure", "png" and byte counts, and an inline
    base64 ``data:`` URI thousands of junk terms; the stored text (``texts``) keeps what derivation wrote.
    """
    if "[figure " in text:
        text = _FIGURE_MARKER.sub(" ", text)
    if "ata:" not in text and "ATA:" not in text:
        return text
    return _DATA_URI.sub(" ", text)


def fts_number(num: str | None, anchor: str) -> str:
    """The ``number`` column of ``provision_fts``: the provision number and its anchor as words."""
    return " ".join(p for p in (num, anchor.replace("_", " ")) if p)


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
