"""Bodies: hashes, naming, well-formedness, and the same markup shapes as the real publisher files."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pytest
from lxml import etree

from tests.sample.conftest import HeldVersion

AKN = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13"
SCL = "http://www.scl.lu"
XHTML = "http://www.w3.org/1999/xhtml"
NS = {"akn": AKN, "scl": SCL, "x": XHTML}


def _parse(data: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, remove_comments=False)
    return etree.fromstring(data, parser)


def _bodies(versions: list[HeldVersion]) -> list[tuple[HeldVersion, dict[str, object], dict[str, object]]]:
    return [(held, expression, observation)
            for held in versions
            for expression in held.record["expressions"]
            for observation in expression["observations"]]


def test_every_observation_names_the_exact_bytes(versions: list[HeldVersion]) -> None:
    seen = 0
    for held, _, observation in _bodies(versions):
        data = held.body(str(observation["file"]))
        assert hashlib.sha256(data).hexdigest() == observation["sha256"], (held.path, observation["file"])
        seen += 1
    assert seen >= 25


def test_no_body_file_is_unreferenced(versions: list[HeldVersion]) -> None:
    for held in versions:
        named = {str(o["file"]) for e in held.record["expressions"] for o in e["observations"]}
        on_disk = {p.relative_to(held.path).as_posix() for p in held.path.rglob("*") if p.is_file()}
        assert on_disk - {"meta.json"} == named, held.path


def test_file_names_follow_the_published_rule(versions: list[HeldVersion]) -> None:
    """Primary ``<lang>.xml`` iff the bytes start with ``<?xml``, else ``.html``; alternatives in ``<lang>.<format>/``."""
    for held, expression, observation in _bodies(versions):
        file, language = str(observation["file"]), expression["language"]
        fmt = observation.get("format")
        if fmt is None:
            starts_xml = held.body(file).lstrip().startswith(b"<?xml")
            assert file == f"{language}.{'xml' if starts_xml else 'html'}"
            assert observation["source_uri"] == expression["source_uri"]
        else:
            assert file.startswith(f"{language}.{fmt}/") and file.count("/") == 1


def test_structured_bodies_are_well_formed_xml(versions: list[HeldVersion]) -> None:
    for held, _, observation in _bodies(versions):
        file = str(observation["file"])
        if file.endswith((".xml", ".html")):
            _parse(held.body(file))


def test_legilux_bodies_use_the_real_declaration_and_namespaces(lu_fixture: Path,
                                                               versions: list[HeldVersion]) -> None:
    real = (lu_fixture / "works/a-1938-01-14-n1/versions/1955-06-21/fr.xml").read_bytes()
    real_root = _parse(real)
    declaration = real.split(b"?>", 1)[0]
    lu = [h for h, _, o in _bodies(versions) if h.publisher == "lu-legilux" and o["file"] == "fr.xml"]
    assert len(lu) >= 10
    for held in lu:
        data = held.body("fr.xml")
        root = _parse(data)
        assert data.split(b"?>", 1)[0] == declaration
        assert root.tag == real_root.tag == f"{{{AKN}}}akomaNtoso"
        assert root.nsmap == real_root.nsmap
        assert root.find("akn:act/akn:meta/akn:identification/akn:FRBRWork/akn:FRBRthis", NS) is not None


def test_legilux_articles_carry_their_jolux_block(versions: list[HeldVersion]) -> None:
    for held in (v for v in versions if v.publisher == "lu-legilux" and (v.path / "fr.xml").exists()):
        root = _parse(held.body("fr.xml"))
        articles = root.findall(".//akn:article", NS)
        ids = [a.get("id") for a in articles]
        assert articles and len(ids) == len(set(ids)), held.path
        for article in articles:
            assert str(article.get("id")).startswith("art_")
            resource = article.find("scl:JOLUXWork/scl:JOLUXLegalResource", NS)
            assert resource is not None
            values = {j.get(f"{{{SCL}}}name"): j.text for j in resource.findall("scl:jolux", NS)}
            since = str(values["dateApplicability"])
            assert str(values["uriThis"]).endswith(f"/{article.get('id')}/{since.replace('-', '')}")
            assert since <= held.record["valid_from"]


def test_some_legilux_bodies_keep_crlf_line_ends(versions: list[HeldVersion]) -> None:
    """As in 1,975 real Legilux files: the hash is over the CRLF bytes, so read bodies in binary mode."""
    lu = [v for v in versions if v.publisher == "lu-legilux" and (v.path / "fr.xml").exists()]
    crlf = [v for v in lu if b"\r\n" in v.body("fr.xml")]
    lf = [v for v in lu if b"\r" not in v.body("fr.xml")]
    assert crlf and lf
    data = crlf[0].body("fr.xml")
    assert hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest() != crlf[0].expression("fr")["observations"][0]["sha256"]


def test_eurlex_xhtml_has_the_convex_shape(eu_fixture: Path, versions: list[HeldVersion]) -> None:
    real = _parse(next(eu_fixture.glob("works/32016r0679/versions/2016-04-27--*/en.xml")).read_bytes())
    eu = [(h, str(o["file"])) for h, _, o in _bodies(versions)
          if h.publisher == "eu-eurlex" and "/" not in str(o["file"])]
    assert len(eu) >= 8
    for held, file in eu:
        data = held.body(file)
        assert b"<!-- CONVEX # converter_version:" in data
        root = _parse(data)
        assert root.tag == real.tag and root.nsmap == real.nsmap
        ids = root.xpath("//x:div[contains(@class, 'eli-subdivision')]/@id", namespaces=NS)
        assert "art_1" in ids and all(i.startswith(("art_", "pbl_", "cit_", "rct_", "enc_", "fnp_")) for i in ids)
        consolidated = file.endswith(".html")
        assert consolidated == (held.record["raw"]["consolidation_status"] == "published")
        title_class = "title-article-norm" if consolidated else "oj-ti-art"
        assert root.xpath(f"//x:div[@id='art_1']/x:p[@class='{title_class}']", namespaces=NS)


def test_formex_members_are_a_cons_act_and_its_descriptor(eu_fixture: Path, versions: list[HeldVersion]) -> None:
    real_dir = next(eu_fixture.glob("works/32016r0679/versions/2016-05-04--*/en.fmx4"))
    real_main = _parse(next(p for p in real_dir.iterdir() if not p.name.endswith(".doc.xml")).read_bytes())
    checked = 0
    for held, expression, observation in _bodies(versions):
        if observation.get("format") != "fmx4" or str(observation["file"]).endswith(".doc.xml"):
            continue
        main = str(observation["file"])
        descriptor = main[:-4] + ".doc.xml"
        root = _parse(held.body(main))
        assert root.tag == real_main.tag == "CONS.ACT"
        assert sorted(root.attrib) == sorted(real_main.attrib)
        info = root.find("INFO.CONSLEG")
        assert info is not None and info.get("START.DATE") == held.record["valid_from"].replace("-", "")
        assert root.findall(".//ARTICLE[@IDENTIFIER='001']/TI.ART")
        doc = _parse(held.body(descriptor))
        ref = doc.find(".//REF.PHYS")
        assert doc.tag == "DOC" and ref is not None and ref.get("FILE") == main.split("/", 1)[1]
        files = [o["file"] for o in expression["observations"]]
        assert descriptor in files
        checked += 1
    assert checked >= 4


def test_formex_marks_amended_articles_with_processing_instructions(versions: list[HeldVersion]) -> None:
    held = next(v for v in versions if v.record["publisher_version_identifier"].endswith("02018R9901-20210101"))
    main = next(str(o["file"]) for o in held.expression("en")["observations"]
                if o.get("format") == "fmx4" and not str(o["file"]).endswith(".doc.xml"))
    root = _parse(held.body(main))
    marks = [pi for pi in root.iter(etree.ProcessingInstruction) if pi.target == "CLG.MDFO"]
    assert marks and 'ACTIVE.DOC="32020L9902"' in str(marks[0].text)


def test_the_pdf_body_has_a_readable_text_layer(versions: list[HeldVersion]) -> None:
    pypdf = pytest.importorskip("pypdf")
    pdfs = [(h, str(o["file"])) for h, _, o in _bodies(versions) if o.get("format") == "pdf"]
    assert len(pdfs) == 1
    held, file = pdfs[0]
    assert file.startswith("fr.pdf/") and held.body(file).startswith(b"%PDF-1.4")
    text = "".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(held.body(file))).pages)
    assert "Art. 1er." in text and "démonstration" in text and "4° une adresse électronique" in text
