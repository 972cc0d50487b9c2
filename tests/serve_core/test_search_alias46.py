"""Issue #15 (alias46): the names derived at index time are names of acts (ADR 0146).

Two derived sources (:mod:`derive.index.aliases`): the popular name in a title's parenthesis
(:func:`~derive.index.aliases.title_popular_name`) and the publisher's short titles
(:func:`~derive.index.aliases.own_names`). What is not a name of an act at all
(an instrument marker, a gloss, a part word, a body's name) and a name of another kind of instrument are dropped;
a cited act's name that an amending act's title or short title gives is kept, for the search orders the holders
of a shared name (the act in force first, the citing acts last). Checked on the fixture corpus's own titles and
metadata, and on real EUR-Lex titles of the full catalogue quoted below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from derive.index.aliases import alias_names, own_names, own_short_title, title_popular_name
from derive.index.catalogue import metadata_names, short_title_segments
from derive.index.text import normalize

EU = "eu-eurlex"


def _meta(eu_fixture: Path, slug: str) -> dict[str, Any]:
    """The newest version record of one fixture work."""
    newest = sorted((eu_fixture / "works" / slug / "versions").glob("*/meta.json"))[-1]
    return dict(json.loads(newest.read_text(encoding="utf-8")))


def _derived(eu_fixture: Path, slug: str) -> set[str]:
    """The names the build derives for one fixture work: its title names and the short titles it keeps."""
    meta = _meta(eu_fixture, slug)
    expressions = meta.get("expressions") or []
    names = own_names(metadata_names(meta.get("publisher_metadata") or []), expressions)
    names += alias_names({"slug": slug, "document_type": meta.get("document_type") or ""}, EU, expressions)
    return {n.normalized for n in names}


# -- the fixture corpus: own names stay, cited acts give none ------------------------------------------

def test_the_fixture_acts_keep_the_names_their_own_titles_and_metadata_give(eu_fixture: Path) -> None:
    # the GDPR's title introduces its name after the act it repeals; its short titles are its own
    assert {"general data protection regulation", "reglement general sur la protection des donnees", "gdpr",
            "personal data"} <= _derived(eu_fixture, "32016r0679")
    # the CRR's title amends EMIR, but its subject is its own (prudential requirements): "crr" stays
    assert {"crr", "capital requirements regulation"} <= _derived(eu_fixture, "32013r0575")


@pytest.mark.parametrize("slug", ["32015l2302", "32013d1359", "32013r1336", "31962r0059"])
def test_a_fixture_act_that_amends_others_takes_no_name_from_them(eu_fixture: Path, slug: str) -> None:
    meta = _meta(eu_fixture, slug)
    titles = [str(e["title"]) for e in meta.get("expressions") or []]
    assert all(title_popular_name(t) is None for t in titles)


def test_a_fixture_amending_acts_short_title_is_kept_unless_of_another_kind(eu_fixture: Path) -> None:
    # Decision No 1359/2013/EU amends the ETS Directive 2003/87/EC: its short title "EU ETS" (the amended act's)
    # is kept, the search orders the holders of a shared name; a "Regulation" name on a decision is not its own
    meta = _meta(eu_fixture, "32013d1359")
    expressions = meta.get("expressions") or []
    titles = [str(e["title"]) for e in expressions]
    assert own_short_title("EU ETS", titles)
    assert not own_short_title("ETS Regulation", titles)
    label = [{"kind": "publisher_short_title", "label": "EU ETS; ETS Regulation", "language": "en"}]
    assert [n.value for n in own_names(metadata_names(label), expressions)] == ["EU ETS"]


def test_a_fixture_legilux_gloss_is_no_name(fixtures_dir: Path) -> None:
    # « (actuellement la Confédération des métiers de la santé a.s.b.l.) » glosses a party's name in a convention
    newest = sorted((fixtures_dir / "lex-corpus-lu-legilux" / "works" / "conv-2020-11-25-a1029" / "versions")
                    .glob("*/meta.json"))[-1]
    expressions = json.loads(newest.read_text(encoding="utf-8"))["expressions"]
    assert "actuellement" in expressions[0]["title"]
    names = alias_names({"slug": "conv-2020-11-25-a1029", "document_type": "CONV"}, "lu-legilux", expressions)
    assert not [n for n in names if "actuellement" in n.normalized]


# -- real EUR-Lex titles of the full catalogue -------------------------------------------------------

SOLVENCY_AMENDMENT = ("Directive (EU) 2019/2177 of the European Parliament and of the Council of 18 December 2019 "
                      "amending Directive 2009/138/EC on the taking-up and pursuit of the business of Insurance and "
                      "Reinsurance (Solvency II), Directive 2014/65/EU on markets in financial instruments and "
                      "Directive (EU) 2015/849 on the prevention of the use of the financial system for the purposes "
                      "of money-laundering or terrorist financing (Text with EEA relevance)")
POSTING_ENFORCEMENT = ("Directive 2014/67/EU of the European Parliament and of the Council of 15 May 2014 on the "
                       "enforcement of Directive 96/71/EC concerning the posting of workers in the framework of the "
                       "provision of services and amending Regulation (EU) No 1024/2012 on administrative cooperation "
                       "through the Internal Market Information System ( ‘the IMI Regulation’ )  Text with EEA "
                       "relevance")
IMI = ("Regulation (EU) No 1024/2012 of the European Parliament and of the Council of 25 October 2012 on administrative "
       "cooperation through the Internal Market Information System and repealing Commission Decision 2008/49/EC "
       "( ‘the IMI Regulation’ )  Text with EEA relevance")
ESA_POWERS = ("Directive 2014/51/EU of the European Parliament and of the Council of 16 April 2014 amending Directives "
              "2003/71/EC and 2009/138/EC and Regulations (EC) No 1060/2009, (EU) No 1094/2010 and (EU) No 1095/2010 "
              "in respect of the powers of the European Supervisory Authority (European Insurance and Occupational "
              "Pensions Authority) and the European Supervisory Authority (European Securities and Markets Authority)")
ESMA = ("Regulation (EU) No 1095/2010 of the European Parliament and of the Council of 24 November 2010 establishing a "
        "European Supervisory Authority (European Securities and Markets Authority), amending Decision No 716/2009/EC "
        "and repealing Commission Decision 2009/77/EC")
TRADE_MARKS = ("Regulation (EU) 2015/2424 of the European Parliament and of the Council of 16 December 2015 amending "
               "Council Regulation (EC) No 207/2009 on the Community trade mark and Commission Regulation (EC) No "
               "2868/95 implementing Council Regulation (EC) No 40/94 on the Community trade mark, and repealing "
               "Commission Regulation (EC) No 2869/95 on the fees payable to the Office for Harmonization in the "
               "Internal Market (Trade Marks and Designs) (Text with EEA relevance)")
AI_OMNIBUS = ("Regulation (EU) 2026/1744 of the European Parliament and of the Council of 8 July 2026 amending "
              "Regulations (EU) 2024/1689, (EU) 2018/1139 and (EU) 2023/1230 as regards the simplification of the "
              "implementation of harmonised rules on artificial intelligence (Digital Omnibus on AI) (Text with EEA "
              "relevance)")
UCPD = ("Directive 2005/29/EC of the European Parliament and of the Council of 11 May 2005 concerning unfair "
        "business-to-consumer commercial practices in the internal market and amending Council Directive 84/450/EEC, "
        "Directives 97/7/EC, 98/27/EC and 2002/65/EC of the European Parliament and of the Council and Regulation "
        "(EC) No 2006/2004 of the European Parliament and of the Council (‘Unfair Commercial Practices Directive’)   "
        "(Text with EEA relevance)")
RESTRUCTURING = ("Directive (EU) 2019/1023 of the European Parliament and of the Council of 20 June 2019 on preventive "
                 "restructuring frameworks, on discharge of debt and disqualifications, and on measures to increase "
                 "the efficiency of procedures concerning restructuring, insolvency and discharge of debt, and "
                 "amending Directive (EU) 2017/1132 (Directive on restructuring and insolvency) (Text with EEA "
                 "relevance.)")
EASA = ("Regulation (EU) 2018/1139 of the European Parliament and of the Council of 4 July 2018 on common rules in the "
        "field of civil aviation and establishing a European Union Aviation Safety Agency, and amending Regulations "
        "(EC) No 2111/2005, and repealing Regulations (EC) No 552/2004 and (EC) No 216/2008 of the European "
        "Parliament and of the Council and Council Regulation (EEC) No 3922/91 (Text with EEA relevance.)")
ANNEXES = ("Commission Regulation (EC) No 1496/2002 of 21 August 2002 amending Annex I (the rules of jurisdiction "
           "referred to in Article 3(2) and Article 4(2)) and Annex II (the list of competent courts and authorities) "
           "to Council Regulation (EC) No 44/2001 on jurisdiction and the recognition and enforcement of judgements "
           "in civil and commercial matters")


@pytest.mark.parametrize(("title", "name"), [
    (SOLVENCY_AMENDMENT, "Solvency II"),  # kept: the search lists it after the act it names (ambiguous_rows)
    (POSTING_ENFORCEMENT, "IMI Regulation"),  # kept likewise
    (IMI, "IMI Regulation"),  # the regulation's own title introduces it
    (ESA_POWERS, None),  # the authorities' names, after the regulations establishing them
    (ESMA, None),  # the authority's name, even in the establishing act's own clause (its acronym asks the body)
    (TRADE_MARKS, "Trade Marks and Designs"),  # kept likewise
    (AI_OMNIBUS, "Digital Omnibus on AI"),  # an amending act's own name, after its own subject ("as regards")
    (UCPD, "Unfair Commercial Practices Directive"),  # the act's own kind, closing the title
    (RESTRUCTURING, "Directive on restructuring and insolvency"),  # the same, right after the act it amends
    (EASA, None),  # "(EEC)" is the treaty marker of a repealed act's number
    (ANNEXES, "list of competent courts and authorities"),  # kept likewise
])
def test_a_title_names_its_own_act_not_the_acts_it_cites(title: str, name: str | None) -> None:
    assert title_popular_name(title) == name


@pytest.mark.parametrize(("segment", "title", "own"), [
    ("CRD", "Directive 2009/111/EC of the European Parliament and of the Council of 16 September 2009 amending "
            "Directives 2006/48/EC, 2006/49/EC and 2007/64/EC as regards banks affiliated to central institutions",
     True),  # kept: the search lists it after the act it names (ambiguous_rows)
    ("aml directive", "Directive (EU) 2018/843 of the European Parliament and of the Council of 30 May 2018 amending "
                      "Directive (EU) 2015/849 on the prevention of the use of the financial system", True),
    ("amld5", "Directive (EU) 2018/843 of the European Parliament and of the Council of 30 May 2018 amending "
              "Directive (EU) 2015/849 on the prevention of the use of the financial system", True),
    ("CRDV Directive", "Directive (EU) 2019/878 of the European Parliament and of the Council of 20 May 2019 amending "
                       "Directive 2013/36/EU as regards exempted entities", True),
    ("règlement bruxelles ii ter", "Directive (EU) 2016/680 of the European Parliament and of the Council of 27 April "
                                   "2016 on the protection of natural persons", False),
    ("Law Enforcement Directive", "Directive (EU) 2016/680 of the European Parliament and of the Council of 27 April "
                                  "2016 on the protection of natural persons", True),
])
def test_a_publisher_short_title_is_kept_only_when_it_names_the_work(segment: str, title: str, own: bool) -> None:
    assert own_short_title(segment, [title]) is own


def test_a_short_title_label_splits_on_semicolons_too() -> None:
    assert [normalize(s) for s in short_title_segments("Law Enforcement Directive; LED")] == [
        "law enforcement directive", "led"]
