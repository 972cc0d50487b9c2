"""EUR-Lex rows → typed records, the scope file, and Formex identity (no network)."""

from __future__ import annotations

import datetime as _dt
import io
import json
import zipfile
from pathlib import Path

import pytest

from legal.errors import ConfigError, IdentityError, PublisherError
from legal.identifiers import CELEX_RESOURCE
from legal.ids import celex_of_uri
from publishers.eurlex import EurlexScope, formex, records, vocab
from publishers.eurlex.adapter import primary_extension

LANG = vocab.LANGUAGE_BASE


def work_rows(**extra: str) -> list[dict[str, str]]:
    base = {"alias": vocab.celex_uri("32016R0679"), "date": "2016-04-27", "inForce": "1",
            "type": vocab.RESOURCE_TYPE_BASE + "REG"}
    base.update(extra)
    return [dict(base, lang=LANG + "ENG", title="Regulation (EU) 2016/679 of the European Parliament and of "
                 "the Council of 27 April 2016 on the protection of natural persons", titleShort="gdpr, personal data"),
            dict(base, lang=LANG + "FRA", title="Règlement (UE) 2016/679 du Parlement européen et du Conseil du "
                 "27 avril 2016 relatif à la protection des personnes physiques")]


def d(text: str) -> _dt.date:
    return _dt.date.fromisoformat(text)


def test_the_adapter_spells_celex_uris_with_the_one_grammar() -> None:
    """The adapter's CELEX resource URIs are the vocabulary's (``legal.identifiers``), read back by its
    parser, which names what it refuses."""
    state = vocab.celex_uri("02016R0679-20160504")
    assert state.startswith(CELEX_RESOURCE) and celex_of_uri(state) == "02016R0679-20160504"
    with pytest.raises(IdentityError) as err:
        celex_of_uri("http://data.europa.eu/eli/reg/2016/679/oj")
    assert (err.value.code, err.value.subject) == ("invalid_celex", "http://data.europa.eu/eli/reg/2016/679/oj")


def test_valid_to_skips_same_date_siblings() -> None:
    states = [records.State(c, d(day), True, ("en",)) for c, day in (
        ("02025R0001-20250728", "2025-07-28"), ("02025R0001-20250728R(01)", "2025-07-28"),
        ("02025R0001-20250804", "2025-08-04"))]
    assert records.valid_to_of(states) == [d("2025-08-03"), d("2025-08-03"), None]


@pytest.mark.parametrize(("original", "consolidations", "included"), [
    ("2014-09-17", ["2024-05-20", "2024-10-18"], True),
    ("2014-09-17", ["2014-09-17", "2024-10-18"], False),
    ("2025-01-01", ["2024-10-18"], False),
    ("2014-09-17", [], True),
])
def test_original_state_inclusion(original: str, consolidations: list[str], included: bool) -> None:
    assert records.include_original(d(original), [d(x) for x in consolidations]) is included


def test_gdpr_versions() -> None:
    base = records.work_meta("32016R0679", work_rows(), ["amends"])
    consolidations = records.consolidated_states([
        {"celex": "02016R0679-20160504", "date": "2016-05-04", "lang": LANG + "ENG", "title": "Regulation (EU) 2016/679"},
        {"celex": "02016R0679-20160504", "date": "2016-05-04", "lang": LANG + "FRA"},
    ])
    states = records.states_of(base, consolidations)
    built = records.versions(base, states, ("en", "fr"), [])
    original, consolidated = built
    assert original.publisher_version_identifier == vocab.celex_uri("32016R0679")
    assert (original.valid_from, original.valid_to) == (d("2016-04-27"), d("2016-05-03"))
    assert original.raw == {"celex": "32016R0679", "legal_form": "REG", "hierarchy": "secondary_eu_law",
                            "binding_status": "in_force", "consolidation_status": "original_official_expression"}
    assert original.expressions[0].title_short == "Regulation (EU) 2016/679"
    assert consolidated.relations == ({"type": "consolidates", "target": vocab.celex_uri("32016R0679")},)
    assert consolidated.document_roles == ("amending", "consolidated")
    fr = consolidated.expressions[1]
    assert fr.title and fr.title.startswith("Règlement")  # borrowed from the base work, same language
    assert fr.source_uri == "https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:02016R0679-20160504"
    (short,) = [m for m in consolidated.publisher_metadata if m["kind"] == "publisher_short_title"]
    assert short["label"] == "gdpr, personal data" and short["language"] == "en"
    work = records.work_input(base, built)
    assert (work.title, work.title_language, work.document_type) == ("Regulation (EU) 2016/679", "en", "REG")


def test_zero_expression_state_is_kept() -> None:
    base = records.work_meta("32016R0007", work_rows(alias=vocab.celex_uri("32016R0007"), date="2016-01-05"), [])
    states = records.states_of(base, records.consolidated_states(
        [{"celex": "02016R0007-20160106", "date": "2016-01-06"}]))
    built = records.versions(base, states, ("en", "fr"), [])
    assert [len(v.expressions) for v in built] == [2, 0]


@pytest.mark.parametrize(("rows", "code"), [
    ([], "publisher_metadata_unavailable"),
    (work_rows(date="2016/04/27"), "enumeration_parser_failure"),
    ([dict(work_rows()[0], lang=LANG + "DEU")], "unknown_language"),
])
def test_bad_work_metadata_names_the_work(rows: list[dict[str, str]], code: str) -> None:
    with pytest.raises(PublisherError) as info:
        records.work_meta("32016R0679", rows, [])
    assert info.value.code == code and info.value.subject == vocab.celex_uri("32016R0679")


def test_consolidation_without_date_names_the_consolidation() -> None:
    with pytest.raises(PublisherError) as info:
        records.consolidated_states([{"celex": "02016R0679-20160504"}])
    assert info.value.subject == vocab.celex_uri("02016R0679-20160504")


def test_celex_helpers() -> None:
    assert vocab.document_type_from_celex("12012P/TXT") == "CHARTER"
    assert vocab.document_type_from_celex("12012E/TXT") == "TREATY"
    assert vocab.document_type_from_celex("32015L2366") == "DIR"
    assert vocab.hierarchy("12016E062") == "primary_eu_law"
    assert vocab.binding_status("true") == "in_force" and vocab.binding_status(None) == "unknown"
    assert vocab.expression_url("32016R0679R(02)", "en").endswith("CELEX:32016R0679R%2802%29")
    assert vocab.roles("REG_IMPL", amends=False, corrects=False, consolidated=True) == ("consolidated", "implementing")
    assert vocab.roles("CORRIGENDUM", amends=False, corrects=False, consolidated=False) == ("corrigendum",)
    assert vocab.official_display_title("x" * 100, "C") == "x" * 90 + "…"


def test_bundled_scope_is_reviewed_wave_one() -> None:
    scope = EurlexScope.load()
    assert "32016R0679" in scope.seeds and "32013R0575" in scope.seeds
    assert scope.relations.depth == 1 and scope.languages == ("en", "fr")
    assert scope.sha256 and len(scope.sha256) == 64


def test_scope_validation(tmp_path: Path) -> None:
    bad = {"schema": "lex-eu-scope/1", "approved_wave": 1, "languages": ["en"], "legal_forms": ["REG"],
           "history": {"manufacture_consolidations": True}, "domains": []}
    path = tmp_path / "scope.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ConfigError, match="manufacture_consolidations"):
        EurlexScope.load(path)
    bad["history"] = {}
    bad["domains"] = [{"id": "a", "wave": 2, "seeds": ["32016R0679"]}, {"id": "b", "wave": 1, "seeds": ["32013R0575"]}]
    path.write_text(json.dumps(bad))
    assert EurlexScope.load(path).seeds == ("32013R0575",)


def zipped(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buffer.getvalue()


def test_formex_identity_guard() -> None:
    main = b'<CONS.ACT><INFO.CONSLEG CONSLEG.DATE="20180523" START.DATE="20160504"/></CONS.ACT>'
    members = formex.unpack(zipped({"dir/CL.0001.xml": main, "CL.0001.doc.xml": b"<DOC/>"}), subject="s")
    assert [n for n, _ in members] == ["CL.0001.doc.xml", "CL.0001.xml"]
    assert formex.identity_ok(members, d("2016-05-04"))
    assert not formex.identity_ok(members, d("2018-05-23"))  # CONSLEG.DATE is not the state date
    with pytest.raises(PublisherError) as info:
        formex.unpack(b"PK\x03\x04 truncated", subject="s")
    assert info.value.code == "body_parser_failure"


def test_primary_extension() -> None:
    assert primary_extension(b'  <?xml version="1.0"?><html/>') == "xml"
    assert primary_extension(b'\xef\xbb\xbf<?xml version="1.0"?>') == "xml"
    assert primary_extension(b"<!DOCTYPE html><html/>") == "html"
