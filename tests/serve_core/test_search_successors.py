"""Issue #15, eighth pass: a popular name of a repealed EU act lists the act in force that
replaced it, and an act named alone lists the act it repealed (``_same_name_rows``): a recast
shares its predecessor's core subject (:func:`serve.core.ranking.core_subject`: "on markets in
financial instruments"), and a repealing act says so in its title ("… and repealing Directive
95/46/EC": :func:`serve.core.ranking.successors`, :func:`serve.core.ranking.predecessors`). A title
the publisher cut short says no subject (it grouped unrelated acts by their first letters). On the
real fixture corpus (``LEX_FIXTURES``) where it holds such a title.
"""

from __future__ import annotations

from serve.core import LegalCore, ranking

EU = "eu-eurlex"


def test_an_act_number_is_written_as_other_titles_cite_it() -> None:
    assert ranking.cited_number("31995l0046") == "95 46"
    assert ranking.cited_number("32006l0048") == "2006 48"
    assert ranking.cited_number("32013r0575") == "575 2013"
    assert ranking.cited_number("32016r0679") == "2016 679"
    assert ranking.cited_number("32016r0679r(02)") is None
    assert ranking.cited_number("loi-2006-07-31-n2") is None


def test_the_core_subject_stops_at_the_amending_repealing_or_recast_clause() -> None:
    recast = ranking.core_subject("on markets in financial instruments and amending directive 2002 92 ec and "
                                  "directive 2011 61 eu recast text with eea relevance")
    first = ranking.core_subject("on markets in financial instruments amending council directives 85 611 eec")
    assert recast == first == "on markets in financial instruments"
    assert ranking.core_subject("relative a la promotion de l utilisation de l energie refonte") \
        == "relative a la promotion de l utilisation de l energie"
    assert ranking.core_subject("amending directive 2002 92 ec") is None  # says only what it does to another act


def test_the_numbers_a_title_repeals_are_those_after_its_repealing_clause() -> None:
    title = ("regulation eu 2016 679 of the european parliament and of the council of 27 april 2016 on the "
             "protection of natural persons and repealing directive 95 46 ec general data protection regulation")
    assert ranking.repealed_numbers(title) == {"95 46"}
    assert "2016 679" not in ranking.repealed_numbers(title)
    assert ranking.repealed_numbers("amending directive 2002 92 ec") == set()


def test_a_truncated_title_says_no_subject() -> None:
    assert ranking.truncated("Directive 95/46/CE du Parlement européen et du Conseil, du 24 octobre 1995, relative à la pr…")


def test_the_gdpr_succeeds_the_directive_it_repeals(fixture_core: LegalCore) -> None:
    index = fixture_core.indexes[EU]
    gdpr = index.catalogue.rowid_of["32016r0679"]
    with index.session(60.0) as conn:
        profiles = ranking.profiles(conn, index)
        # 95/46 is not held by the fixtures: any rowid stands for it
        repealing = ranking.repealers(conn)
        assert ranking.successors(repealing, profiles, -1, "31995l0046") == [gdpr]
        assert ranking.predecessors(conn, gdpr, {"95 46": -1}) == [-1]
        assert ranking.successors(repealing, profiles, -1, "32013r0575") == []
