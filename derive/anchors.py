"""Stable EU anchors: the same provision keeps one anchor whichever manifestation it came from.

A work's versions alternate between Cellar XHTML (the publisher's ELI fragment ids,
``anx_I``, ``anx_ II``, ``anx_IIbis``), flat XHTML (annex titles ``ANNEXE XIV``) and Formex
(``CONS.ANNEX`` titles ``ANNEX I``). Read naively these give ``anx_I``, ``annexe_xiv``, ``anx_i``
for one annex, so the history shows appendices appear, vanish and reappear with no change of
wording. Every EU profile therefore maps its annex key through :func:`eu_annex_anchor`, which
yields the ELI fragment form:

- ``anx_<N>``: ``N`` the publisher's annex number without spaces — a Roman numeral upper-case
  with a lower-case suffix (``IIa``, ``IIbis``, ``XVIIa``), a single letter upper-case (``A``),
  digits as printed (``1``);
- ``anx`` for an unnumbered annex (XHTML ``anx_``, Formex ``ANNEX``);
- any other annex title keeps its slug (``anx_``-prefixed when it starts with "annex").

Appendices of an annex (XHTML ``anx_II.app_I`` siblings) belong to that annex, as in Formex,
where they sit inside the ``CONS.ANNEX``; the XHTML profile appends them to it.

Articles (:func:`eu_article_anchor`): ``art_<n><letter>`` as the ELI ids and the Formex
``IDENTIFIER`` (``016A`` → ``art_16a``) give them, whatever the language of the title
(``Article 7``, ``Článek 7``, ``Artikel 7``, ``Article premier`` → ``art_1``) and with the Latin
ordinals of inserted articles as the letters the publisher's identifiers use (``7 bis`` → ``7a``,
``ter`` → ``b``, … ``novodecies`` → ``r``), a Cyrillic or Greek letter as the Latin letter of
the same place (``Член 9а`` → ``art_9a``; EUR-Lex served a Bulgarian body as the English page of
31998L0070 2003-11-20): one article read from a flat title (``art_7_bis``) and from an ELI id
(``art_7a``) is one anchor.
"""

from __future__ import annotations

import re

from derive.text import annex_anchor, collapse_ws

# "Annex" in the official languages of the corpora (en, fr, de) and their neighbours.
_ANNEX_WORD = re.compile(
    r"^(?:ANNEX|ANNEXE|ANHANG|ALLEGATO|ANEXO|ANEXA|BIJLAGE|BILAG|BILAGA|ANEKS|LIITE|LISA|MELLÉKLET|PŘÍLOHA|PRÍLOHA"
    r"|PRILOGA|PRILOG|PRIEDAS|PIELIKUMS|ZAŁĄCZNIK|ПРИЛОЖЕНИЕ|ΠΑΡΑΡΤΗΜΑ|IARSCRÍBHINN|ANNESS)\b\.?\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NUMBER = re.compile(
    r"^([IVXLCDM]+|\d+|[A-Z])(?:([a-z]{1,2}|bis|ter|quater|quinquies)|\s+([A-Z]|bis|ter|quater|quinquies))?(?=$|[\s.:,—–(-])",
    re.IGNORECASE,
)
_ROMAN = re.compile(r"^[IVXLCDM]+$", re.IGNORECASE)


def annex_number(text: str) -> str | None:
    """The annex number of a title or ELI fragment (``ANNEX IIa`` → ``IIa``), ``""`` when the
    title is the bare word, ``None`` when the text does not name an annex."""
    value = collapse_ws(text)
    if value.lower().startswith("anx_"):
        value = value[4:].split(".", 1)[0]
        rest = value.replace(" ", "")
    else:
        match = _ANNEX_WORD.match(value)
        if match is None:
            return None
        rest = match.group(1).strip()
    if not rest:
        return ""
    number = _NUMBER.match(rest)
    if number is None:
        return None
    head, suffix = number.group(1), (number.group(2) or number.group(3) or "")
    if head.isdigit():
        return head + suffix.lower()
    if _ROMAN.match(head) and (suffix or len(head) > 1 or head.upper() in "IVX"):
        return head.upper() + suffix.lower()
    if len(head) == 1 and not suffix:
        return head.upper()
    return None


def eu_annex_anchor(key: str) -> str:
    """The stable anchor of an EU annex from its ELI fragment id or its title."""
    number = annex_number(key)
    if number is None:
        return annex_anchor(key)
    return f"anx_{number}" if number else "anx"


_LATIN = ("bis", "ter", "quater", "quinquies", "sexies", "septies", "octies", "nonies", "decies", "undecies",
          "duodecies", "terdecies", "quaterdecies", "quindecies", "sexdecies", "septdecies", "octodecies",
          "novodecies", "vicies")
_LATIN_LETTER = {word: chr(ord("a") + i) for i, word in enumerate(_LATIN)}
# the letter of an inserted article in the Cyrillic and Greek versions, by its place in the
# alphabet as the Latin versions' letter (Bulgarian ``Член 9а`` is ``Article 9a``, Greek ``9α``)
_ALPHABETS = ("абвгдежзийклмнопрстуфхцчшщъьюя", "αβγδεζηθικλμνξοπρστυφχψω")
_FOREIGN_LETTER = {ch: chr(ord("a") + i) for alphabet in _ALPHABETS for i, ch in enumerate(alphabet[:26])}
_ARTICLE_TITLE = re.compile(r"^(?:[^\W\d_]+\.?\s*)(premier|1er|\d+)\s*([a-z]{1,2}|[а-яα-ω]|" + "|".join(_LATIN)
                            + r")?(?:\s*\(\d{1,2}\))?$", re.IGNORECASE)  # a footnote call after the number: ``Article 26 (6)``
_ARTICLE_ID = re.compile(r"^art_(\d+)_?(" + "|".join(_LATIN) + r")$")


def eu_article_anchor(key: str) -> str | None:
    """``art_<n><letter>`` from an article title (``Article 7 bis``, ``Článek 7``) or an ELI id
    (``art_7_bis``, ``art_7a``); ``None`` when the title is not a plain article number."""
    value = collapse_ws(key)
    match = _ARTICLE_ID.match(value)
    if match:
        return f"art_{match.group(1)}{_LATIN_LETTER[match.group(2)]}"
    if value.startswith("art_"):
        return value
    match = _ARTICLE_TITLE.match(value)
    if match is None:
        return None
    number = "1" if match.group(1).lower() in ("premier", "1er") else str(int(match.group(1)))
    suffix = (match.group(2) or "").lower()
    return f"art_{number}{_LATIN_LETTER.get(suffix) or _FOREIGN_LETTER.get(suffix, suffix)}"
