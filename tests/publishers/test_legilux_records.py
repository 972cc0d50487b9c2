"""Legilux rows → typed records (no network)."""

from __future__ import annotations

import datetime as _dt

import pytest

from legal.errors import PublisherError
from publishers.legilux import records
from publishers.legilux.vocab import official_file_uri, public_uri

J = "http://data.legilux.public.lu/"
WORK = J + "eli/etat/leg/loi/2011/04/08/n2"
CODE = J + "eli/etat/leg/code/consommation/20240910"
TWIN = WORK + "/consolide/20240910"


def row(c: str = CODE, **extra: str) -> dict[str, str]:
    base = {"c": c, "work": WORK, "from": "2024-09-10", "to": "2024-12-31",
            "type": J + "resource/authority/resource-type/CODE",
            "status": J + "resource/authority/in-force-status/not-applicable", "pub": "2024-09-10",
            "expr": c + "/fr", "lang": J + "resource/authority/language/FRA", "title": "Code de la consommation"}
    base.update(extra)
    return {k: v for k, v in base.items() if v != ""}


def test_a_consolidation_and_its_expression() -> None:
    (c,) = records.consolidations([row()])
    assert (c.uri, c.work, c.slug) == (CODE, WORK, "loi-2011-04-08-n2")
    assert (c.valid_from, c.valid_to) == (_dt.date(2024, 9, 10), _dt.date(2024, 12, 31))
    assert (c.document_type, c.in_force_status) == ("CODE", "not-applicable")
    (e,) = c.expressions
    assert (e.language, e.source_uri) == ("fr", "https://legilux.public.lu/eli/etat/leg/code/consommation/20240910/fr")


def test_no_expression_gives_a_synthetic_french_one_on_the_consolidation_page() -> None:
    (c,) = records.consolidations([row(TWIN, expr="", lang="", title="")])
    (e,) = c.expressions
    assert e.uri is None and e.language == "fr"
    assert e.source_uri == "https://legilux.public.lu/eli/etat/leg/loi/2011/04/08/n2/consolide/20240910"


def test_same_day_states_are_two_versions_with_their_own_identifiers() -> None:
    states = records.consolidations([row(TWIN, expr="", lang="", title=""), row()])
    assert [s.uri for s in states] == [CODE, TWIN]
    assert {s.valid_from for s in states} == {_dt.date(2024, 9, 10)}


def test_expressions_deduplicated_by_language_and_sorted() -> None:
    c = J + "eli/etat/leg/constitution/1868/10/17/n1/consolide/20230701"
    work = J + "eli/etat/leg/constitution/1868/10/17/n1"
    rows = [row(c, work=work, expr=c + "/" + code.lower()[:2], lang=J + "resource/authority/language/" + code)
            for code in ("LTZ", "FRA", "DEU")]
    rows.append(row(c, work=work, expr=c + "/fr2", lang=J + "resource/authority/language/FRA"))
    (state,) = records.consolidations(rows)
    assert [e.language for e in state.expressions] == ["de", "fr", "lb"]


@pytest.mark.parametrize(("override", "code", "needle"), [
    ({"from": "20142209"}, "enumeration_parser_failure", "dateApplicability '20142209'"),
    ({"from": "2014-22-09"}, "enumeration_parser_failure", "dateApplicability"),
    ({"from": ""}, "enumeration_parser_failure", "no jolux:dateApplicability"),
    ({"work": ""}, "enumeration_parser_failure", "no jolux:isMemberOf"),
    ({"lang": J + "resource/authority/language/ITA"}, "unknown_language", "ITA"),
    ({"to": "31/12/2024"}, "enumeration_parser_failure", "dateEndApplicability"),
])
def test_bad_publisher_data_names_the_consolidation(override: dict[str, str], code: str, needle: str) -> None:
    with pytest.raises(PublisherError) as info:
        records.consolidations([row(**override)])
    assert info.value.code == code and info.value.subject == CODE and needle in info.value.message


def test_conflicting_single_values_are_refused() -> None:
    with pytest.raises(PublisherError) as info:
        records.consolidations([row(), row(**{"from": "2024-09-11"})])
    assert "conflicting values for from" in info.value.message and info.value.subject == CODE


def test_recueil_digits_are_an_identifier_not_a_date() -> None:
    recueil = J + "eli/etat/leg/recueil/sites_monuments/20142209"
    (c,) = records.consolidations([row(recueil, work=J + "eli/etat/leg/recueil/sites_monuments",
                                       **{"from": "2015-10-09"})])
    assert c.uri.endswith("/20142209") and c.valid_from == _dt.date(2015, 10, 9)


def test_work_record_rules() -> None:
    old = row(J + "eli/etat/leg/code/consommation/20170101", **{"from": "2017-01-01", "title": "Old title"})
    new = row(**{"titleShort": "Code de la consommation (court)"})
    twin = row(TWIN, expr="", lang="", title="", type="")
    states = records.consolidations([old, new, twin])
    work = records.work_input(WORK, states)
    assert work.slug == "loi-2011-04-08-n2" and work.document_type == "CODE"
    assert work.title == "Code de la consommation (court)"  # newest state, short title first
    assert work.source_uri == "https://legilux.public.lu/eli/etat/leg/loi/2011/04/08/n2/consolide/20240910"
    assert work.title_language is None


def test_dominant_type_ties_are_deterministic() -> None:
    assert records.dominant(["RGD", "LOI", "LOI", "RGD"]) == "LOI"
    assert records.dominant([]) is None


def test_subjects_and_aliases() -> None:
    auth = J + "resource/authority/"
    rows = [
        {"work": WORK, "level": "1", "concept": auth + "legal-subject/1151", "label": "Consommation",
         "scheme": auth + "legal-subject"},
        {"work": WORK, "level": "1", "concept": auth + "legal-subject/1151", "label": "Consommation",
         "scheme": auth + "legal-subject-theme"},
    ]
    (entry,) = records.subject_metadata(rows)[WORK]
    assert entry == {"kind": "legilux_subject_level1_theme", "identifier": auth + "legal-subject/1151",
                     "language": "fr", "label": "Consommation", "source_uri": auth + "legal-subject/1151"}
    rows.append({"work": WORK, "level": "1", "concept": auth + "legal-subject/1151", "label": "Autre",
                 "scheme": auth + "legal-subject-theme"})
    with pytest.raises(PublisherError, match="exactly one French label"):
        records.subject_metadata(rows)
    alias = J + "eli/etat/leg/code/consommation"
    (same,) = records.same_as_metadata([{"work": WORK, "identifier": alias}])[WORK]
    assert same == {"kind": "legilux_same_as", "identifier": alias, "label": "code-consommation", "source_uri": alias}


def test_official_uris() -> None:
    assert public_uri(J + "eli/x/fr") == "https://legilux.public.lu/eli/x/fr"
    assert official_file_uri(J + "filestore/eli/a.pdf", subject="c") == "https://legilux.public.lu/filestore/eli/a.pdf"
    with pytest.raises(PublisherError):
        official_file_uri("https://elsewhere.test/filestore/a.pdf", subject="c")


def test_a_catalogues_equal_values_are_held_once() -> None:
    """The states of one catalogue share their equal dates, types and statuses and hold one slug per work
    (issue #13: they are all held until the versions are made); each state is equal to one made alone."""
    old = row(J + "eli/etat/leg/code/consommation/20170101", **{"from": "2017-01-01"})
    first, second, third = records.consolidations([old, row(), row(TWIN, expr="", lang="", title="")])
    assert [s.uri for s in (first, second, third)] == [old["c"], CODE, TWIN]
    assert first.slug is second.slug is third.slug
    assert first.document_type is second.document_type is third.document_type == "CODE"
    assert first.in_force_status is second.in_force_status is third.in_force_status == "not-applicable"
    assert first.valid_to is second.valid_to is third.valid_to == _dt.date(2024, 12, 31)
    assert second.valid_from is third.valid_from is second.publication_date is first.publication_date
    assert second == records.consolidation(CODE, [row()]) and third == records.consolidation(TWIN, [row(
        TWIN, expr="", lang="", title="")])
