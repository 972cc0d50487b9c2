"""Both adapters' ``fetch``: typed outcomes for every publisher answer (MockTransport)."""

from __future__ import annotations

import datetime as _dt
import io
import zipfile
from collections.abc import Callable

import httpx
import pytest

from legal.errors import PublisherError
from legal.outcomes import FetchOutcome
from publishers.eurlex import EurlexAdapter, EurlexConfig, eurlex_policy
from publishers.http import HttpClient
from publishers.legilux import LegiluxAdapter, LegiluxConfig, legilux_policy
from publishers.protocol import Manifestation

Handler = Callable[[httpx.Request], httpx.Response]
DAY = _dt.date(2016, 5, 4)
CELLAR = "https://publications.europa.eu/"


def lu(handler: Handler) -> LegiluxAdapter:
    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), legilux_policy(politeness_delay=0),
                      sleep=lambda s: None)
    return LegiluxAdapter(http, LegiluxConfig())


def eu(handler: Handler) -> EurlexAdapter:
    http = HttpClient(httpx.Client(transport=httpx.MockTransport(handler)), eurlex_policy(politeness_delay=0),
                      sleep=lambda s: None)
    return EurlexAdapter(http, EurlexConfig())


def lu_xml() -> Manifestation:
    return Manifestation(slug="loi-2011-04-08-n2", publisher_version_identifier="http://data.legilux.public.lu/x",
                         valid_from=DAY, language="fr", url="https://legilux.public.lu/filestore/x.xml",
                         source_uri="https://legilux.public.lu/eli/x/fr", file="fr.xml")


def lu_pdf() -> Manifestation:
    return Manifestation(slug="agd-1963-04-22-n1", publisher_version_identifier="http://data.legilux.public.lu/y",
                         valid_from=DAY, language="fr", url="https://legilux.public.lu/filestore/m.pdf",
                         source_uri="https://legilux.public.lu/filestore/m.pdf", format="pdf-memorial",
                         file="fr.pdf-memorial/m.pdf")


def eu_primary(fmt: str | None = None) -> Manifestation:
    return Manifestation(slug="32016r0679", publisher_version_identifier=CELLAR + "resource/celex/02016R0679-20160504",
                         valid_from=DAY, language="en", url=CELLAR + "resource/celex/02016R0679-20160504",
                         source_uri="https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:02016R0679-20160504",
                         format=fmt, accept="application/zip;mtype=fmx4" if fmt else "application/xhtml+xml, text/html",
                         accept_language="eng", optional=fmt is not None)


@pytest.mark.parametrize(("status", "outcome"), [
    (404, FetchOutcome.PERMANENT_NOT_FOUND), (410, FetchOutcome.GONE), (503, FetchOutcome.RETRY_EXHAUSTED)])
def test_status_outcomes(status: int, outcome: FetchOutcome) -> None:
    result = lu(lambda r: httpx.Response(status)).fetch(lu_xml())
    assert result.outcome is outcome and result.reason and not result.members


def test_ok_xml_is_one_member_recorded_under_the_expression_page() -> None:
    result = lu(lambda r: httpx.Response(200, content=b"<?xml version='1.0'?><akomaNtoso/>")).fetch(lu_xml())
    (member,) = result.members
    assert (member.file, member.source_uri, member.format) == ("fr.xml", "https://legilux.public.lu/eli/x/fr", None)
    assert member.size == len(result.body or b"")


@pytest.mark.parametrize(("body", "code"), [(b"   \n", "body_empty"), (b"<html>not a pdf</html>", "body_parser_failure")])
def test_bad_bytes_are_typed_errors_naming_the_manifestation(body: bytes, code: str) -> None:
    manifestation = lu_pdf()
    with pytest.raises(PublisherError) as info:
        lu(lambda r: httpx.Response(200, content=body)).fetch(manifestation)
    assert info.value.code == code and info.value.subject == manifestation.subject


def test_oversized_pdf_stays_record_only() -> None:
    result = lu(lambda r: httpx.Response(200, content=b"%PDF" + b"x" * (26 * 1024 * 1024))).fetch(lu_pdf())
    assert result.outcome is FetchOutcome.PUBLISHER_METADATA_ONLY


def test_legilux_follows_no_redirect() -> None:
    with pytest.raises(PublisherError) as info:
        lu(lambda r: httpx.Response(302, headers={"Location": "https://legilux.public.lu/z"})).fetch(lu_xml())
    assert info.value.code == "redirect_refused"


def test_cellar_negotiation_and_extension() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/resource/celex/"):
            assert request.headers["accept-language"] == "eng"
            return httpx.Response(303, headers={"Location": "http://publications.europa.eu/resource/cellar/abc/DOC_1"})
        assert request.url.scheme == "https"
        return httpx.Response(200, content=b"<html><body>GDPR</body></html>")

    result = eu(handler).fetch(eu_primary())
    (member,) = result.members
    assert member.file == "en.html" and member.source_uri.startswith("https://eur-lex.europa.eu/")
    assert result.final_url == CELLAR + "resource/cellar/abc/DOC_1"


def test_cellar_redirect_outside_the_publisher_is_refused() -> None:
    handler = lambda r: httpx.Response(303, headers={"Location": "https://mirror.example/doc"})  # noqa: E731
    with pytest.raises(PublisherError) as info:
        eu(handler).fetch(eu_primary())
    assert info.value.code == "redirect_refused" and info.value.subject == eu_primary().subject


def test_primary_406_is_not_found_but_formex_406_is_absent() -> None:
    assert eu(lambda r: httpx.Response(406)).fetch(eu_primary()).outcome is FetchOutcome.PERMANENT_NOT_FOUND
    result = eu(lambda r: httpx.Response(406)).fetch(eu_primary("fmx4"))
    assert result.outcome is FetchOutcome.OK and not result.members


def formex_zip(start: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("CL.0001.xml", f'<CONS.ACT><INFO.CONSLEG START.DATE="{start}"/></CONS.ACT>')
        z.writestr("CL.0001.doc.xml", "<DOC/>")
    return buffer.getvalue()


def test_formex_members_and_identity_guard() -> None:
    def ok(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/resource/celex/"):
            assert request.headers["accept"] == "application/zip;mtype=fmx4"
            return httpx.Response(303, headers={"Location": "/resource/cellar/5f25.0022.01/zip"})
        return httpx.Response(200, content=formex_zip("20160504"), headers={"Content-Type": "application/zip"})

    result = eu(ok).fetch(eu_primary("fmx4"))
    assert [m.file for m in result.members] == ["en.fmx4/CL.0001.doc.xml", "en.fmx4/CL.0001.xml"]
    assert {m.source_uri for m in result.members} == {CELLAR + "resource/cellar/5f25.0022.01/zip"}
    assert {m.format for m in result.members} == {"fmx4"}

    def other_state(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=formex_zip("20180523"), headers={"Content-Type": "application/zip"})

    discarded = eu(other_state).fetch(eu_primary("fmx4"))
    assert discarded.outcome is FetchOutcome.OK and not discarded.members and "identity" in (discarded.detail or "")
