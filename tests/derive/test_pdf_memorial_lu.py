"""``pdf-memorial-lu/3``: one act cut out of a Mémorial gazette issue, only when that is safe."""

from __future__ import annotations

import re

import pytest

from derive.dispatch import derive_body
from derive.profiles.pdf_lu import _pages
from derive.profiles.pdf_memorial_lu import Act, extract, fold
from derive.text import collapse_ws
from legal.outcomes import TextGap
from tests.derive.conftest import read_jsonl

ISSUE = "{slug}/{date}/fr.pdf-memorial/*.pdf"


def _run(lu_body, slug: str, date: str, *, valid_from: str | None = None, first: bool = True, issue_of=None):
    body = lu_body(ISSUE.format(slug=issue_of or slug, date=date))
    return body, extract(body, language="fr", act=Act.from_slug(slug, valid_from or date, first))


def _refused(result, words: str) -> None:
    assert result.provisions == () and result.gap is not None
    assert result.gap.gap is TextGap.UNSUPPORTED_MANIFESTATION and result.profile == "pdf-memorial-lu/3"
    assert result.gap.reason.startswith("Mémorial issue: ") and words in result.gap.reason, result.gap.reason


def _words(body: bytes) -> set[str]:
    # the PDFium text layer, as the profile reads it (normalised by pdf_lu._tidy)
    layer = collapse_ws(" ".join(_pages(body, "test")))
    return set(re.findall(r"\w+", layer))


def test_act_identity_from_the_slug():
    assert Act.from_slug("loi-1973-02-19-n1", "1992-03-30", False).needle == "loidu19fevrier1973"
    assert Act.from_slug("rgc-1974-03-01-n1", "1974-03-05", True).needle == \
        "reglementdugouvernementenconseildu1ermars1974"
    assert Act.from_slug("constitution-1868-10-17-n1", "2023-07-01", False) is None
    assert fold("T e x t e  coordonné") == "textecoordonne" and fold("Loidu25mars1991") == "loidu25mars1991"


def test_original_act_ends_at_its_closing_formula(lu_body):
    body, result = _run(lu_body, "loi-1969-07-11-n1", "1969-07-20")
    assert result.gap is None and result.profile == "pdf-memorial-lu/3"
    assert [p.anchor for p in result.provisions] == ["art_1er", "art_2", "art_3", "art_4"]
    by = {p.anchor: p for p in result.provisions}
    assert by["art_1er"].num == "Art. 1er." and by["art_1er"].heading is None
    assert "« Art. 2. Le taux horaire minimum" in by["art_1er"].text_md  # quoted amending text stays inside
    assert by["art_4"].text_md.endswith("la réglementation du salaire social minimum.")
    assert [p.derived_from.pages for p in result.provisions] == [(1, 1), (2, 2), (2, 2), (2, 2)]
    text = " ".join(p.text_md for p in result.provisions)
    assert "Mandons" not in text and "TEXTE COORDONNE" not in text and "Dupong" not in text
    assert "910" not in text  # page numbers are not text
    words = _words(body)
    assert all(set(re.findall(r"\w+", p.text_md)) <= words for p in result.provisions)


def test_an_annexed_document_after_the_act_is_not_the_act(lu_body):
    _body, result = _run(lu_body, "agc-2000-11-10-n1", "2000-12-16")
    assert [p.anchor for p in result.provisions] == ["art_1er", "art_2"]
    art2 = result.provisions[1].text_md
    assert art2.endswith("pour exécution.") and "Juncker" not in art2 and "KOLLEKTIVVERTRAG" not in art2
    assert any("305 characters after it left out" in n for n in result.notes)


@pytest.mark.parametrize("date,first", [("1987-05-24", True), ("1991-04-15", False)])
def test_coordinated_text_with_sections_and_grouped_repeals(lu_body, date, first):
    body, result = _run(lu_body, "agd-1909-12-23-n1", date, first=first)
    assert result.gap is None and any("texte coordonné" in n for n in result.notes)
    anchors = [p.anchor for p in result.provisions]
    assert anchors == ["art_1er", *(f"art_{n}" for n in range(2, 41))]
    by = {p.anchor: p for p in result.provisions}
    assert by["art_1er"].text_md == "(abrogé par règl. g.-d. du 27 décembre 1980)"
    assert by["art_26"].text_md == by["art_28"].text_md and "27 décembre 1980" in by["art_27"].text_md
    assert by["art_6"].path == () and by["art_7"].path == ("Déclaration et procédure",)
    assert by["art_30"].path[0].startswith("(Règl. g.-d. du 26 avril 1987) «Dépôt et publication")
    assert not by["art_6"].text_md.endswith("procédure")  # the section heading is not article text
    assert "Texte abrogé" not in by["art_40"].text_md and "Imprimerie" not in by["art_40"].text_md
    words = _words(body)
    assert all(set(re.findall(r"\w+", p.text_md)) <= words for p in result.provisions)


@pytest.mark.parametrize("slug,date", [
    ("agd-1963-04-22-n1", "1967-11-21"),  # only inside a coordinated text of several acts, dated 1969
    ("agd-1965-06-25-n1", "1967-11-21"),  # an amending act listed in that coordinated text
    ("agd-1967-11-15-n1", "1967-11-28"),
    ("agd-1963-04-22-n1", "1970-01-03"),  # "Texte coordonné … des loi et arrêtés": several acts in one
])
def test_an_act_not_published_in_the_issue_is_refused(lu_body, slug, date):
    _body, result = _run(lu_body, slug, date, first=date != "1970-01-03")
    _refused(result, "not named in a heading of this issue")


def test_the_original_act_is_not_a_later_state(lu_body):
    _body, result = _run(lu_body, "loi-1969-07-11-n1", "1969-07-20", valid_from="1975-01-01", first=False)
    _refused(result, "not the act's first version")


def test_a_coordinated_text_with_later_amendments_is_not_this_state(lu_body):
    # the 1991 coordination includes the law of 25 March 1991: it is not the 1987-05-24 state
    _body, result = _run(lu_body, "agd-1909-12-23-n1", "1991-04-15", valid_from="1987-05-24")
    _refused(result, "amendments dated after this version's valid_from 1987-05-24 (1991-03-25)")
    _body, result = _run(lu_body, "agd-1909-12-23-n1", "1987-05-24", valid_from="1985-01-01", first=False)
    _refused(result, "(1987-04-26)")


def test_a_version_before_the_act_is_refused(lu_body):
    _body, result = _run(lu_body, "loi-1969-07-11-n1", "1969-07-20", valid_from="1969-01-01")
    _refused(result, "before the act's date")


def test_without_the_act_the_issue_stays_a_gap(lu_body):
    result = derive_body(lu_body(ISSUE.format(slug="loi-1969-07-11-n1", date="1969-07-20")), language="fr",
                         fmt="pdf-memorial")
    assert result.provisions == () and result.gap is not None and "Mémorial" in result.gap.reason


def test_in_the_dataset(lu_dataset):
    out, report = lu_dataset
    assert report.profiles["pdf-memorial-lu/3"] == 4
    rows = [r for r in read_jsonl(out / "provisions.jsonl") if r["profile"] == "pdf-memorial-lu/3"]
    assert {r["work_id"] for r in rows} == {"lu-legilux:loi-1969-07-11-n1", "lu-legilux:agc-2000-11-10-n1",
                                            "lu-legilux:agd-1909-12-23-n1"}
    assert all(r["evidence_file"].startswith("fr.pdf-memorial/") for r in rows)
    gaps = [g for g in read_jsonl(out / "gaps.jsonl") if g["reason"].startswith("Mémorial issue")]
    assert {g["work_id"] for g in gaps} == {"lu-legilux:agd-1963-04-22-n1", "lu-legilux:agd-1965-06-25-n1",
                                            "lu-legilux:agd-1967-11-15-n1"}


def test_issue_pages_are_kept_by_characters_least_recently_used_first_out(monkeypatch):
    from derive.profiles import pdf_memorial_lu as memorial

    parsed: list[str] = []

    def pages(data: bytes, sha: str) -> list[str]:
        parsed.append(sha)
        return [data.decode()] * 2

    monkeypatch.setattr(memorial, "_pages", pages)
    monkeypatch.setattr(memorial, "_PAGES", memorial.OrderedDict())
    monkeypatch.setattr(memorial, "_PAGES_HELD", [0])
    monkeypatch.setattr(memorial, "_PAGES_CHARS", 10)
    assert memorial._issue_pages(b"abc", "a") == ("abc", "abc")  # 6 characters held
    assert memorial._issue_pages(b"xyz", "a") == ("abc", "abc")  # the bytes are not read again
    assert memorial._issue_pages(b"de", "b") == ("de", "de")  # 10 held: both kept
    assert memorial._issue_pages(b"", "a") == ("abc", "abc") and parsed == ["a", "b"]
    assert memorial._issue_pages(b"f", "c") == ("f", "f")  # 12 > 10: "b", the least recently used, goes
    assert list(memorial._PAGES) == ["a", "c"] and memorial._PAGES_HELD == [8]
    assert memorial._issue_pages(b"0123456789ab", "d") == ("0123456789ab",) * 2  # alone over the bound: kept alone
    assert list(memorial._PAGES) == ["d"] and memorial._PAGES_HELD == [24]
    assert memorial._issue_pages(b"g", "e") == ("g", "g") and list(memorial._PAGES) == ["e"]
    assert memorial._PAGES_HELD == [2]
