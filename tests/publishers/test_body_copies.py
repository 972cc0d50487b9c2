"""A fetched body is held once while it is read, unpacked and checked (issue #13, mem27).

The largest real Formex member (32013R0575's consolidated text, 1.9 MB) is unpacked with at most
one copy of itself alive besides the archive (``ZipFile.read`` held ≈ 3.6× the member); an HTTP
body streamed in chunks is held once (a chunk list and its join held it twice); the blank-body and
XML-declaration checks copy nothing. The bytes, the CRC check and the typed errors are unchanged.
"""

from __future__ import annotations

import datetime as _dt
import io
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from legal.errors import PublisherError
from publishers.eurlex import formex
from publishers.eurlex.adapter import primary_extension
from publishers.http import HttpClient, HttpPolicy
from publishers.http.client import BodyBuffer
from publishers.protocol import Manifestation, require_nonempty

T = TypeVar("T")
R0575 = "lex-corpus-eu-eurlex/works/32013r0575/versions"


def r0575_member(fixtures_dir: Path) -> bytes:
    """The first state's main Formex member (the fixtures' largest EUR-Lex body)."""
    found = sorted((fixtures_dir / R0575).glob("2013-06-28--*/en.fmx4/CL2013R0575EN0000020.0001.xml"))
    assert found, "the 32013R0575 Formex fixture is missing"
    return found[0].read_bytes()


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buffer.getvalue()


def traced_rise(function: Callable[[], T]) -> tuple[T, int]:
    """``function()`` and the traced peak above what was allocated when it started (bytes)."""
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        value = function()
        return value, tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()


def test_formex_members_are_the_zip_members_bytes(fixtures_dir: Path) -> None:
    body = r0575_member(fixtures_dir)
    archive = zipped({"sub/CL.0001.xml": body, "CL.0001.doc.xml": b"<DOC/>", "empty.xml": b""})
    assert formex.unpack(archive, subject="t") == [("CL.0001.doc.xml", b"<DOC/>"), ("CL.0001.xml", body),
                                                   ("empty.xml", b"")]


def test_formex_member_is_held_once_while_unpacked(fixtures_dir: Path) -> None:
    body = r0575_member(fixtures_dir)
    archive = zipped({"CL.0001.xml": body})
    members, rise = traced_rise(lambda: formex.unpack(archive, subject="t"))
    assert members == [("CL.0001.xml", body)]
    # the member (1.9 MB) and its buffer's growth; ZipFile.read rose ≈ 3.6× the member
    assert rise < 1.5 * len(body), f"unpacking rose {rise / len(body):.2f}× the member"


def test_formex_member_with_a_bad_crc_is_a_typed_error(fixtures_dir: Path) -> None:
    body = r0575_member(fixtures_dir)
    archive = bytearray(zipped({"CL.0001.xml": body}))
    info = zipfile.ZipFile(io.BytesIO(bytes(archive))).infolist()[0]
    crc = info.CRC.to_bytes(4, "little")
    assert archive.count(crc) == 2  # the local header's and the central directory's
    wrong = ((info.CRC + 1) % 2**32).to_bytes(4, "little")
    with pytest.raises(PublisherError) as caught:
        formex.unpack(bytes(archive).replace(crc, wrong), subject="t")
    assert caught.value.code == "body_parser_failure" and "CL.0001.xml" in caught.value.message


def chunked_client(body: bytes, chunk: int) -> HttpClient:
    def stream() -> Iterator[bytes]:
        for start in range(0, len(body), chunk):
            yield body[start:start + chunk]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=stream(), headers={"Content-Length": str(len(body))})

    return HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), HttpPolicy(politeness_delay=0),
                      sleep=lambda s: None)


def test_http_body_streamed_in_chunks_is_held_once(fixtures_dir: Path) -> None:
    body = r0575_member(fixtures_dir)
    client = chunked_client(body, 64 * 1024)
    response, rise = traced_rise(lambda: client.get("https://example.test/body"))
    assert response.body == body
    # the body and its buffer's growth (a chunk list and its join held 2×)
    assert rise < 1.5 * len(body), f"reading rose {rise / len(body):.2f}× the body"


def manifestation() -> Manifestation:
    return Manifestation(slug="32016r0679", publisher_version_identifier="http://x/v", valid_from=_dt.date(2016, 5, 4),
                         language="en", url="https://example.test/b", source_uri="https://example.test/b")


@pytest.mark.parametrize("blank", [b"", b" ", b" \t\n\r\x0b\x0c"], ids=["empty", "space", "ascii-whitespace"])
def test_blank_body_is_body_empty(blank: bytes) -> None:
    with pytest.raises(PublisherError) as caught:
        require_nonempty(manifestation(), blank)
    assert caught.value.code == "body_empty"


@pytest.mark.parametrize("body", [b"x", b" \n<p/>\n", b"\xa0", b"\x00"], ids=["char", "padded", "nbsp", "nul"])
def test_body_with_content_is_kept_as_is(body: bytes) -> None:
    assert require_nonempty(manifestation(), body) is body


def test_blank_check_copies_nothing(fixtures_dir: Path) -> None:
    body = b"\n" + r0575_member(fixtures_dir) + b"\n"  # padded: strip() would copy it
    _, rise = traced_rise(lambda: require_nonempty(manifestation(), body))
    assert rise < 64 * 1024


@pytest.mark.parametrize(("body", "extension"), [
    (b"<?xml version='1.0'?><a/>", "xml"),
    (b"\xef\xbb\xbf<?xml version='1.0'?><a/>", "xml"),
    (b"\xef\xbb\xbf \r\n\t\x0b\x0c<?xml version='1.0'?>", "xml"),
    (b"  \n<?xml?>", "xml"),
    (b"<!DOCTYPE html><html/>", "html"),
    (b"\xef\xbb\xbf\xef\xbb\xbf<?xml?>", "html"),
    (b"\xa0<?xml?>", "html"),
    (b"<?XML?>", "html"),
    (b"", "html"),
], ids=["plain", "bom", "bom-whitespace", "whitespace", "html", "two-boms", "nbsp", "upper-case", "empty"])
def test_primary_extension(body: bytes, extension: str) -> None:
    assert primary_extension(body) == extension
    old = body[3:] if body.startswith(b"\xef\xbb\xbf") else body  # the definition it replaces
    assert ("xml" if old.lstrip().startswith(b"<?xml") else "html") == extension


def test_extension_check_copies_nothing(fixtures_dir: Path) -> None:
    body = b"\xef\xbb\xbf\n" + r0575_member(fixtures_dir)  # a BOM and whitespace: slicing and lstrip copied it
    extension, rise = traced_rise(lambda: primary_extension(body))
    assert extension == "xml" and rise < 64 * 1024


@pytest.mark.parametrize(("hint", "chunks"), [
    (0, [b"abc", b"def"]), (6, [b"abc", b"def"]), (10, [b"abc", b"def"]), (4, [b"abc", b"def"]),
    (5, []), (0, []),
], ids=["no-hint", "exact", "shorter-than-declared", "longer-than-declared", "declared-but-empty", "empty"])
def test_body_buffer_holds_exactly_the_bytes_written(hint: int, chunks: list[bytes]) -> None:
    buffer = BodyBuffer(hint)
    for chunk in chunks:
        buffer.write(chunk)
    assert buffer.size == len(b"".join(chunks))
    value = buffer.value()
    assert type(value) is bytes and value == b"".join(chunks)


def test_http_body_shorter_than_its_content_length_is_refused() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=iter([b"abc"]), headers={"Content-Length": "10"})

    client = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)),
                        HttpPolicy(politeness_delay=0, max_attempts=1), sleep=lambda s: None)
    with pytest.raises(PublisherError) as caught:
        client.get("https://example.test/short")
    assert caught.value.code == "retry_exhausted" and "truncated" in caught.value.message
