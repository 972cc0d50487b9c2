"""The sample demonstrates what the pipeline must handle: each required feature is really there."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from lxml import etree

from legal.dotnet_json import parse_ordered
from tests.sample.conftest import HeldVersion

AKN = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13"
SCL = "http://www.scl.lu"
XHTML = "http://www.w3.org/1999/xhtml"
NS = {"akn": AKN, "x": XHTML}
CELEX = "http://publications.europa.eu/resource/celex/"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "sample-corpus.md"

LOI = "lu-legilux:loi-2017-03-01-n901"
CODE = "lu-legilux:loi-2016-05-20-n904"
REG = "eu-eurlex:32018r9901"


def _root(held: HeldVersion, file: str) -> etree._Element:
    return etree.fromstring(held.body(file), etree.XMLParser(resolve_entities=False, no_network=True))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def akn_article_text(held: HeldVersion, eid: str) -> str | None:
    """The wording of one AKN article: its AKN text without the ``scl:`` metadata blocks."""
    found = _root(held, "fr.xml").find(f".//akn:article[@id='{eid}']", NS)
    if found is None:
        return None
    article = copy.deepcopy(found)
    for element in list(article.iter(f"{{{SCL}}}*")):
        parent = element.getparent()
        if parent is not None:
            parent.remove(element)
    return _squash("".join(article.itertext()))


def xhtml_article_text(held: HeldVersion, file: str, eid: str) -> str | None:
    found = _root(held, file).find(f".//x:div[@id='{eid}']", NS)
    return None if found is None else _squash("".join(found.itertext()))


def _at(by_work: dict[str, list[HeldVersion]], work: str, valid_from: str, marker: str = "") -> HeldVersion:
    return next(v for v in by_work[work]
                if v.record["valid_from"] == valid_from and marker in v.record["publisher_version_identifier"])


def eli_slug(href: str) -> str | None:
    """The citation rule of the index: segments after ``/eli/``, minus ``etat/leg``, ``jo``, ``consolide``."""
    if "/eli/" not in href:
        return None
    parts = [p for p in href.split("/eli/", 1)[1].split("/") if p][2:]
    return "-".join(p for p in parts if p not in {"jo", "consolide"})


def test_at_least_six_works_and_twenty_versions(by_work: dict[str, list[HeldVersion]]) -> None:
    assert len(by_work) >= 6
    assert sum(len(v) for v in by_work.values()) >= 20
    assert len([w for w in by_work if w.startswith("lu-legilux:")]) >= 3
    assert len([w for w in by_work if w.startswith("eu-eurlex:")]) >= 3


def test_same_day_pair_has_two_publisher_version_identifiers(by_work: dict[str, list[HeldVersion]]) -> None:
    pair = [v for v in by_work[CODE] if v.record["valid_from"] == "2022-01-01"]
    assert len(pair) == 2
    pvids = sorted(v.record["publisher_version_identifier"] for v in pair)
    assert pvids[0].endswith("/eli/etat/leg/code/demo/20220101")
    assert pvids[1].endswith("/eli/etat/leg/loi/2016/05/20/n904/consolide/20220101")
    assert pair[0].key[:12] == pair[1].key[:12] and pair[0].key != pair[1].key
    for held in pair:
        assert "withdrawn_from_source" not in {e["event"] for e in held.record["events"]}
        assert held.record.get("valid_to") is None
        assert held.expression("fr")["text"]["available"] is True


def test_same_day_twins_say_the_same_thing(by_work: dict[str, list[HeldVersion]]) -> None:
    code = _at(by_work, CODE, "2022-01-01", "/code/demo/")
    twin = _at(by_work, CODE, "2022-01-01", "/consolide/")
    for eid in ("art_l_111-1", "art_l_111-2", "art_l_112-1", "art_l_112-2"):
        assert akn_article_text(code, eid) == akn_article_text(twin, eid) is not None
    assert akn_article_text(twin, "art_1er") is not None and akn_article_text(code, "art_1er") is None


def test_future_dated_states_exist_for_both_publishers(versions: list[HeldVersion]) -> None:
    future = [v for v in versions if v.record["valid_from"] > "2027-12-31"]
    assert {v.publisher for v in future} == {"lu-legilux", "eu-eurlex"}
    lu = next(v for v in future if v.publisher == "lu-legilux")
    assert lu.record["in_force_status"] == "not-yet-applicable"
    assert lu.expression("fr")["text"]["available"] is True


def test_text_less_state_is_publisher_metadata_only(versions: list[HeldVersion]) -> None:
    textless = [(v, e) for v in versions for e in v.record["expressions"] if not e["text"]["available"]]
    assert len(textless) == 1
    held, expression = textless[0]
    assert expression["text"]["reason"] == "publisher_metadata_only"
    assert expression["observations"] == []
    assert expression["text"]["url"] == expression["source_uri"]
    assert [p.name for p in held.path.iterdir()] == ["meta.json"]


def test_eu_state_without_expressions(versions: list[HeldVersion]) -> None:
    empty = [v for v in versions if v.record["expressions"] == []]
    assert len(empty) == 1 and empty[0].publisher == "eu-eurlex"
    assert empty[0].record["raw"]["consolidation_status"] == "published"


def test_akn_ref_cites_another_sample_work(by_work: dict[str, list[HeldVersion]]) -> None:
    held_slugs = {w.split(":", 1)[1] for w in by_work if w.startswith("lu-legilux:")}
    edges = set()
    for work, held in by_work.items():
        for version in held:
            if version.publisher != "lu-legilux" or not (version.path / "fr.xml").exists():
                continue
            for ref in _root(version, "fr.xml").iterfind(".//akn:article//akn:ref", NS):
                target = eli_slug(str(ref.get("href")))
                if target in held_slugs and f"lu-legilux:{target}" != work:
                    edges.add((work, target))
    assert ("lu-legilux:rgd-2018-06-12-n903", "loi-2017-03-01-n901") in edges
    assert ("lu-legilux:rmin-2021-04-12-n907", "rgd-2018-06-12-n903") in edges
    assert ("lu-legilux:loi-2016-05-20-n904", "loi-2017-03-01-n901") in edges


def test_xhtml_link_cites_another_sample_work(by_work: dict[str, list[HeldVersion]]) -> None:
    held_slugs = {w.split(":", 1)[1] for w in by_work if w.startswith("eu-eurlex:")}
    edges = set()
    for work, held in by_work.items():
        for version in held:
            for name in ("en.html", "fr.html"):
                if version.publisher != "eu-eurlex" or not (version.path / name).exists():
                    continue
                for link in _root(version, name).iterfind(".//x:div[@class='eli-subdivision']//x:a[@href]", NS):
                    href = str(link.get("href"))
                    target = href[len(CELEX):].lower() if href.startswith(CELEX) else None
                    if target in held_slugs and f"eu-eurlex:{target}" != work:
                        edges.add((work, target))
    assert edges == {("eu-eurlex:32018r9901", "32020l9902"), ("eu-eurlex:32020l9902", "32022r9903")}


def test_lu_article_that_changes_and_one_that_does_not(by_work: dict[str, list[HeldVersion]]) -> None:
    states = by_work[LOI]
    assert [v.record["valid_from"] for v in states] == ["2017-03-15", "2019-01-01", "2021-07-01", "2028-01-01"]
    first = akn_article_text(states[0], "art_1er")
    assert first and all(akn_article_text(v, "art_1er") == first for v in states)
    art_3 = [akn_article_text(v, "art_3") for v in states]
    assert art_3[0] != art_3[1] != art_3[2] == art_3[3]
    assert "trente jours" in str(art_3[0]) and "soixante jours" in str(art_3[1])
    assert [akn_article_text(v, "art_3bis") is not None for v in states] == [False, False, True, True]
    art_4 = [akn_article_text(v, "art_4") for v in states]
    assert art_4[0] == art_4[1] == art_4[2] != art_4[3]


def test_code_article_that_changes_and_one_that_does_not(by_work: dict[str, list[HeldVersion]]) -> None:
    states = [v for v in by_work[CODE] if "/code/demo/" in v.record["publisher_version_identifier"]]
    assert len(states) == 3
    assert len({akn_article_text(v, "art_l_112-1") for v in states}) == 1
    assert len({akn_article_text(v, "art_l_111-2") for v in states}) == 3


def test_per_article_dates_can_predate_the_version(by_work: dict[str, list[HeldVersion]]) -> None:
    state = _at(by_work, LOI, "2021-07-01")
    root = _root(state, "fr.xml")
    dates = {}
    for article in root.iterfind(".//akn:article", NS):
        value = article.find(".//{http://www.scl.lu}jolux[@{http://www.scl.lu}name='dateApplicability']")
        assert value is not None
        dates[article.get("id")] = value.text
    assert dates["art_1er"] == "2017-03-15" and dates["art_3"] == "2021-07-01"


def test_eu_article_that_changes_and_one_that_does_not(by_work: dict[str, list[HeldVersion]]) -> None:
    before = _at(by_work, REG, "2018-04-03")
    after = _at(by_work, REG, "2021-01-01")
    for name in ("en.html", "fr.html"):
        assert xhtml_article_text(before, name, "art_1") == xhtml_article_text(after, name, "art_1") is not None
        assert xhtml_article_text(before, name, "art_3") != xhtml_article_text(after, name, "art_3")
    assert "30 days" in str(xhtml_article_text(before, "en.html", "art_3"))
    assert "15 days" in str(xhtml_article_text(after, "en.html", "art_3"))


def test_french_is_present_for_an_eu_work(by_work: dict[str, list[HeldVersion]]) -> None:
    french = [v for v in by_work[REG] for e in v.record["expressions"] if e["language"] == "fr" and e["observations"]]
    assert len(french) >= 3


def test_everything_is_labelled_as_a_demonstration(roots: dict[str, Path], versions: list[HeldVersion]) -> None:
    for root in roots.values():
        assert "synthetic" in (root / "NOTICE").read_text("utf-8").lower()
        for meta in root.glob("works/*/meta.json"):
            assert "monstration" in parse_ordered(meta.read_bytes())["title"].lower()
    for held in versions:
        for expression in held.record["expressions"]:
            assert "monstration" in expression["title"].lower()
            for observation in expression["observations"]:
                assert b"monstration" in held.body(observation["file"]).lower(), observation["file"]


def test_docs_table_lists_every_version(versions: list[HeldVersion]) -> None:
    text = DOCS.read_text("utf-8")
    assert f"{len(versions)} versions:" in text
    for held in versions:
        assert f"`{held.slug}`" in text, held.slug
        assert held.key[:20] in text, held.key
