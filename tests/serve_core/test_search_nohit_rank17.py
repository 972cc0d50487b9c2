"""Issue #15, seventeenth pass (rank17): a question about nothing the corpora hold must not be
answered through a word that says no subject. On the real fixture corpus (``LEX_FIXTURES``).

- a word with which a subordinate act's title frames what it lays down for another act (``règles``,
  ``rules``, ``modalités``: :data:`serve.core.ranking.FRAME_WORDS`) does not keep that act's any-word hit
  on-subject;
- a translated question whose translated words all say no subject (an act form, the country's name)
  keeps its untranslated word required (:func:`derive.index.relax.untranslated_fillers`, ``framing``).
"""

from __future__ import annotations

from typing import Any

from derive.index import relax
from derive.index.text import normalize
from serve.core import LegalCore, ranking

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


def test_a_frame_word_in_a_title_does_not_keep_an_any_word_hit(fixture_core: LegalCore) -> None:
    # no provision holds the three words; "modalités" and "offreur" meet in a provision of Regulation
    # 2273/2003, which implements Directive 2003/6/EC and whose French title ("portant modalités
    # d'application de la directive 2003/6/CE …") holds only "modalités" of the question: before, that
    # title kept the hit on-subject
    section = _section(fixture_core, "modalités offreur passagers", EU, fuzzy="off")
    assert section["hits"] == [] and section["query_relaxed"] is None
    assert section["relaxation_withheld"]["reason"] == "off_subject"
    assert section["relaxation_withheld"]["relaxed"]["reason"] == "any_term"
    for word in ("regles", "rules", "regeln", "vorschriften", "modalites"):
        assert ranking.frames(word)
    assert not ranking.frames("circulation") and not ranking.frames("offreur")


def test_only_a_title_whose_object_is_an_act_frames() -> None:
    # a principal act's "rules" are its subject's ("laying down rules on …"): it stays on-subject
    principal = ranking.WorkProfile("in_force", "principal", None, "Regulation laying down rules on …")
    implementing = ranking.WorkProfile("in_force", "implementing", None, "laying down rules for the application …")
    assert not ranking.object_is_act(principal) and ranking.object_is_act(implementing)
    assert not ranking.object_is_act(None)


def test_a_word_of_the_act_s_subject_still_keeps_it(fixture_core: LegalCore) -> None:
    # the same relaxation keeps a work whose title holds a subject word of the question
    section = _section(fixture_core, "modalités allocations voyage", EU, fuzzy="off")
    assert section["hits"] and all("any_term" in h["match_reasons"] for h in section["hits"])
    assert f"{EU}:32003r2273" not in {h["work"] for h in section["hits"]}


def test_translated_frame_words_do_not_let_the_subject_word_drop() -> None:
    terms = ["luxemburger", "gesetz", "uber", "den", "lawinenwarndienst"]
    translated = {"luxemburger", "gesetz"}
    # before: two translated words were "left", so the unknown compound was dropped as a filler
    assert relax.untranslated_fillers(terms, ["lawinenwarndienst"], translated) == ["lawinenwarndienst"]
    assert relax.untranslated_fillers(terms, ["lawinenwarndienst"], translated, translated) == []
    # one translated subject word beside the act form is enough to let an untranslated word drop
    assert relax.untranslated_fillers(["law", "mutual", "societies"], ["mutual"], {"law", "societies"},
                                      {"law"}) == ["mutual"]
    # a translated subject word still lets a verb drop
    terms = ["krankschreibung", "arbeitgeber", "vorlegen"]
    assert relax.untranslated_fillers(terms, ["vorlegen"], {"krankschreibung", "arbeitgeber"}, set()) == ["vorlegen"]


def test_a_translated_question_on_an_unknown_subject_is_withheld(fixture_core: LegalCore) -> None:
    # "Luxemburger Gesetz" translates to "luxembourg loi"; the avalanche warning service is held by no
    # text: the EU section's relaxation is withheld for that word (before: relaxed to "luxembourg loi")
    answer = fixture_core.call("search", {"query": "Luxemburger Gesetz über den Lawinenwarndienst"})
    assert answer["merged"] == []
    for section in answer["publishers"]:
        assert section["relaxation_withheld"] == {"reason": "unknown_terms", "terms": ["lawinenwarndienst"]}


def test_an_eu_act_is_cited_as_other_titles_cite_it() -> None:
    # the relation tables (role intent, related rows) find the acts whose titles cite a work: a directive
    # is cited year first at every date, an old regulation with a two-digit year (before: "65 2014" and
    # "4064 1989", which no title writes)
    amending = normalize("Directive (EU) 2016/1034 of the European Parliament and of the Council of 23 June 2016"
                         " amending Directive 2014/65/EU on markets in financial instruments")
    merger = normalize("Council Regulation (EC) No 139/2004 of 20 January 2004 on the control of concentrations"
                          " between undertakings (the EC Merger Regulation)")
    assert ranking.title_citation("32014l0065") == "2014 65" and " 2014 65 " in f" {amending} "
    assert ranking.title_citation("31995l0046") == "95 46"
    assert ranking.title_citation("32013r0575") == "575 2013" and ranking.title_citation("32016r0679") == "2016 679"
    assert ranking.title_citation("31989r4064") == "4064 89" and ranking.title_citation("32004r0139") == "139 2004"
    assert f" {ranking.title_citation('32004r0139')} " in f" {merger} "
    assert ranking.title_citation("12016e153") is None
    assert ranking.title_reference("32014l0065", "Directive 2014/65/EU") == "2014 65"
