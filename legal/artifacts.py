"""File names that more than one package agrees on: a publisher's index and its stamp.

``derive`` writes these files, ``release`` lays them out in an artifact set, ``serve`` opens
them; none of those may import another's naming rule, so the rule lives here, once.
"""

from __future__ import annotations


def index_file_name(publisher: str) -> str:
    """The SQLite index of ``publisher``: ``<publisher>.sqlite``."""
    return f"{publisher}.sqlite"


def stamp_file_name(publisher: str) -> str:
    """The build stamp beside that index: ``<publisher>.stamp.json``."""
    return f"{publisher}.stamp.json"
