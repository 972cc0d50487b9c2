"""The dispatcher sniffs bytes (never file names) and refuses bad inputs with typed errors."""

from __future__ import annotations

import io
import zipfile

import pytest

from derive.dispatch import derive_body, sniff
from derive.limits import Limits
from legal.canonical import sha256_hex
from legal.errors import DerivationError


def test_sniffing_ignores_the_file_extension(eu_body, lu_body, formex_main):
    assert sniff(lu_body("constitution-1868-10-17-n1/2023-07-01/fr.xml")) == "akn"
    assert sniff(formex_main("32016r0679", "2016-05-04", "en")) == "formex"
    assert sniff(eu_body("32016r0679/2016-05-04/en.html")) == "html"  # .html, CONVEX XHTML
    assert sniff(eu_body("32016r0679/2016-04-27/en.xml")) == "html"  # .xml, XHTML too
    assert sniff(lu_body("rgd-2020-03-18-a165/2020-03-20/fr.pdf/*.pdf")) == "pdf"


def test_profile_choice_per_family(eu_body, lu_body, formex_main):
    assert derive_body(lu_body("constitution-1868-10-17-n1/2023-07-01/de.xml"), language="de").profile == "akn-lu/3"
    assert derive_body(formex_main("32013r0575", "2020-06-27", "en"), language="en").profile == "fmx4-eu/4"
    assert derive_body(eu_body("32016r0679/2016-05-04/fr.html"), language="fr").profile == "xhtml-eu/4"
    assert derive_body(eu_body("11997e083/1957-03-25/fr.html"), language="fr").profile == "html-eu-tolerant/5"


def _refused(data: bytes, code: str, limits: Limits | None = None) -> DerivationError:
    with pytest.raises(DerivationError) as err:
        derive_body(data, language="fr", limits=limits or Limits())
    assert err.value.code == code
    assert err.value.subject == sha256_hex(data)  # always names the evidence hash
    return err.value


def test_malformed_akn_is_an_error_not_a_guess(lu_body):
    body = lu_body("constitution-1868-10-17-n1/2023-07-01/fr.xml")
    _refused(body[: len(body) // 2], "malformed_xml")


def test_unknown_namespace(lu_body):
    body = lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml").replace(
        b"http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13", b"urn:example:akn-lookalike")
    _refused(body, "unknown_namespace")
    _refused(b'<?xml version="1.0"?><doc xmlns="urn:x"><p>hi</p></doc>', "unknown_namespace")


def test_zip_bomb_in_a_formex_zip(formex_main):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("CL2016R0679EN0000020.0001.xml", formex_main("32016r0679", "2016-05-04", "en"))
        zf.writestr("L_2016119EN.01000101.tif", b"\0" * (64 * 1024 * 1024))  # 64 MiB of zeros, ~64 KiB deflated
    err = _refused(buf.getvalue(), "zip_bomb")
    assert "tif" in err.message


def test_oversize_member_in_a_formex_zip(formex_main):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("CL2016R0679EN0000020.0001.xml", formex_main("32016r0679", "2016-05-04", "en"))
    _refused(buf.getvalue(), "zip_bomb", Limits(max_member_bytes=10_000))


def test_body_over_the_size_bound(lu_body):
    body = lu_body("constitution-1868-10-17-n1/2023-07-01/fr.xml")
    _refused(body, "body_too_large", Limits(max_body_bytes=100_000))


def test_entity_declarations_are_refused():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE akomaNtoso [<!ENTITY a "aaaaaaaaaa">'
            b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            b'<akomaNtoso xmlns="http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13">&b;</akomaNtoso>')
    _refused(bomb, "xml_entities_refused")


def test_not_a_document_at_all():
    _refused(b"\x00\x01binary junk", "unknown_format")
