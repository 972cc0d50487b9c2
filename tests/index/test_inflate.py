"""The text store's inflate (ISA-L where installed, else zlib) gives zlib's bytes back."""

from __future__ import annotations

import zlib

import pytest

from derive.index import textstore


def test_inflate_gives_back_what_zlib_deflated() -> None:
    raw = (
        "Art. 1er. La présente loi s'applique aux contrats conclus à partir du 1er janvier. " * 300
    ).encode()
    dictionary = b"La presente loi s'applique aux contrats\n"
    packer = zlib.compressobj(textstore.LEVEL, zdict=dictionary)
    body = packer.compress(raw) + packer.flush()
    whole = textstore.inflater(dictionary)
    assert whole.decompress(body) == raw and whole.eof
    part = textstore.inflater(dictionary)
    head = part.decompress(body, 1000)  # as far as asked, then on from the rest
    assert len(head) == 1000 and head + part.decompress(part.unconsumed_tail, 0) == raw
    assert textstore.inflate(zlib.compress(raw, textstore.LEVEL)) == raw


def test_a_damaged_body_is_refused_as_zlib_would() -> None:
    with pytest.raises(textstore.INFLATE_ERRORS):
        textstore.inflate(b"not a zlib stream")
    with pytest.raises(zlib.error):
        textstore.decode("zlib", b"not a zlib stream")
