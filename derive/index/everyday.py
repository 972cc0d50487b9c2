"""Everyday words rare in law: a question's words that general language uses often and the acts seldom (ADR 0128).

A plain-word question says « fauteuil roulant … payant », « toucher la prime » where the act says
« aides techniques … participation », « bénéficier de la prime ». Such a word is common in everyday
language and rare in the acts, so it carries a large share of the question's IDF mass, and the act
that answers the question in its own words never reaches the share the any-word quorum asks
(:data:`serve.core.ops.search.IDF_QUORUM`). A rare *subject* word (« titrisation », « usufruit ») is
rare in both. This module tells them apart with one precomputed list:

- ``everyday_words.json`` — selected by ``scripts/everyday_words.py`` from the ``wordfreq`` package's
  general-language frequencies (FR, EN, DE; code Apache-2.0, data CC-BY-SA 4.0, © Robyn Speer and
  contributors; the file names the version): the words of the full indexes' vocabulary (accents folded)
  that at most 100 provisions of an index hold and whose Zipf frequency is at least 3.5 (about three
  times per million words). The file is committed and reviewed; neither
  serving nor CI reads wordfreq.

Held packed: the words' CRC-32 keys in one sorted ``array`` (four bytes a word: 65 KiB), read on first
use (:func:`is_everyday`) line by line from the file's text, which is dropped once read.
"""

from __future__ import annotations

import bisect
import re
import zlib
from array import array
from pathlib import Path

EVERYDAY_PATH = Path(__file__).with_name("everyday_words.json")


def word_key(word: str) -> int:
    """The packed key of a folded word: its CRC-32 (with ``n`` words listed, a word not listed
    matches one by chance with probability ``n / 2**32``: under one in 100,000 for 20,000 words). Pure."""
    return zlib.crc32(word.encode("utf-8"))


#: A kept word's line in the file's ``words`` object (one a line: ``"word": zipf,``).
_WORD_LINE = re.compile(r'^"([^"\\]+)": \d+,?$', re.MULTILINE)
_KEYS: dict[Path, array[int]] = {}


def read_keys(text: str) -> array[int]:
    """The sorted key array of the words of an ``everyday_words.json`` text, read line by line from its
    ``words`` object (never the whole document parsed: the list's strings would peak at megabytes). Pure."""
    body = text[text.index('"words": {'):]
    return array("I", sorted(word_key(m.group(1)) for m in _WORD_LINE.finditer(body)))


def is_everyday(word: str, path: Path = EVERYDAY_PATH) -> bool:
    """Whether ``word`` (folded, as the index holds it) is an everyday word rare in law (module docstring);
    the list is read on first use."""
    keys = _KEYS.get(path)
    if keys is None:
        keys = _KEYS[path] = read_keys(path.read_text(encoding="utf-8"))
    key = word_key(word)
    i = bisect.bisect_left(keys, key)
    return i < len(keys) and keys[i] == key
