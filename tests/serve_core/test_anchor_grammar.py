"""Real anchors carry accented letters, brackets and commas (``art_34_le_comité_des_élèves``,
``pt_(a)``): the operations accept every anchor the publishers write, and the published schema
says the same as the validation the server runs."""

from __future__ import annotations

import re

import pytest

from legal.errors import LexError
from legal.ids import ANCHOR_PATTERN, check_anchor
from serve.core import OPERATIONS

REAL = ["art_1er", "anx_I", "art_34_le_comité_des_élèves", "pt_(a)", "art_2,3", "annexe_—_tableau", "art_à"]
REFUSED = ["", "art 1", "art#1", "a/b", "a?b", "a%20", 'a"b', "a\tb", "a\u2028b"]


@pytest.mark.parametrize("anchor", REAL)
def test_real_anchors_are_accepted_everywhere(anchor: str) -> None:
    assert check_anchor(anchor) == anchor
    assert re.search(ANCHOR_PATTERN, anchor)
    args = OPERATIONS["article_history"].validate({"work": "lu-legilux:loi-2006-07-31-n2", "anchor": anchor})
    assert args["anchor"] == anchor


@pytest.mark.parametrize("anchor", REFUSED)
def test_delimiters_and_whitespace_are_refused_alike(anchor: str) -> None:
    assert not re.search(ANCHOR_PATTERN, anchor)
    with pytest.raises(LexError):
        check_anchor(anchor)
    with pytest.raises(LexError):
        OPERATIONS["article_history"].validate({"work": "lu-legilux:loi-2006-07-31-n2", "anchor": anchor})
