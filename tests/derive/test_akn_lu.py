"""``akn-lu/1`` on real Legilux Akoma Ntoso bodies, one named test per corpus trap (corpus.md §6)."""

from __future__ import annotations

import re

import pytest

from derive.dispatch import derive_body
from derive.profiles import akn_lu

CONSTITUTION = "constitution-1868-10-17-n1/2023-07-01/{lang}.xml"


@pytest.mark.parametrize(("lang", "first"), [("fr", "art_1er"), ("de", "art_1"), ("lb", "art_1")])
def test_constitution_2023_keeps_each_language_s_published_anchors(lu_body, lang, first):
    result = akn_lu.extract(lu_body(CONSTITUTION.format(lang=lang)), language=lang)
    anchors = [p.anchor for p in result.provisions]
    assert anchors[0] == first
    assert len(anchors) == 132 and len(set(anchors)) == 132
    assert all(p.language == lang and p.profile == "akn-lu/3" for p in result.provisions)


def test_constitution_french_article_1er_metadata(lu_body):
    result = akn_lu.extract(lu_body(CONSTITUTION.format(lang="fr")), language="fr")
    art = result.provisions[0]
    assert art.num == "Art. 1er."  # <sup>er</sup> folded, <b> stripped
    assert art.heading is None
    assert art.path == ("Chapitre Ier. — De l’État, de son territoire et de ses habitants",
                        "Section 1re. — De l’État, de sa forme politique et de la souveraineté")
    assert art.eli == "http://data.legilux.public.lu/eli/etat/leg/constitution/1868/10/17/n1/art_1er/20230701"
    assert art.article_valid_from == "2023-07-01"
    assert art.text_md == "Le Grand-Duché de Luxembourg est un État démocratique, libre, indépendant et indivisible."
    span = art.derived_from.span
    assert span is not None and result.document_md[span.start:span.end] == art.text_md


def test_constitution_paragraphs_and_publisher_list_symbols(lu_body):
    result = akn_lu.extract(lu_body(CONSTITUTION.format(lang="fr")), language="fr")
    by = {p.anchor: p for p in result.provisions}
    assert by["art_4"].text_md.startswith("**(1)** La langue du Grand-Duché de Luxembourg est le luxembourgeois.")
    assert "\n\n1° le Sud avec les cantons" in by["art_63"].text_md  # scl:symbol="1°", not "1."
    # nested list: the reference lost "de neuf membres effectifs :"
    assert "1° de neuf membres effectifs :\n\na) le Président de la Cour Supérieure" in by["art_112"].text_md


def test_trap_13_deleted_text_is_excluded(lu_body):
    result = akn_lu.extract(lu_body("rgd-2020-06-20-a537/2022-06-30/fr.xml"), language="fr")
    art = next(p for p in result.provisions if p.anchor == "art_2bis")
    for repealed in ("Algérie", "Albanie", "Brunei Darussalam", "Monténégro"):  # struck-through <del> only
        assert repealed not in art.text_md
    assert "Arabie saoudite" in art.text_md  # current wording kept
    assert any("deleted text excluded" in n for n in result.notes)


def test_trap_13_wholly_repealed_article_is_an_empty_provision(lu_body):
    result = akn_lu.extract(lu_body("constitution-1868-10-17-n1/2009-03-16/fr.xml"), language="fr")
    art = next(p for p in result.provisions if p.anchor == "art_10_20090316")
    assert art.text_md == "" and art.num is None and art.is_empty


def test_trap_15_mod_milestones_keep_their_wording(lu_body):
    # <mod class="mod-start"> wraps real text; the reference dropped it ("jusqu'au 31 décembre 2021 inclus")
    result = akn_lu.extract(lu_body("rgd-2020-06-20-a537/2021-10-11/fr.xml"), language="fr")
    assert any("31 décembre 2021" in p.text_md for p in result.provisions)


def test_trap_15_note_markers_and_metadata_never_render(lu_body):
    result = akn_lu.extract(lu_body("rgd-2020-06-20-a537/2022-06-30/fr.xml"), language="fr")
    for p in result.provisions:
        assert "http://data.legilux.public.lu" not in p.text_md  # scl:JOLUX blocks
        assert not re.search(r"#M\d", p.text_md)


def test_trap_12_quoted_articles_stay_inside_the_amending_article(lu_body):
    result = akn_lu.extract(lu_body("rmin-2024-07-18-a293/2024-10-29/fr.xml"), language="fr")
    assert [p.anchor for p in result.provisions] == ["art_1er", "art_2", "art_3"] or \
        all(not p.anchor.startswith("article_") for p in result.provisions)
    art2 = next(p for p in result.provisions if p.anchor == "art_2")
    # the replaced article stays in the amending one (scl:hide-quote="true": shown unquoted, as Legilux does)
    assert "est remplacé par ce qui suit :\n\n**Art. 1er.**\n\n**(1)** La représentation indirecte" in art2.text_md


def test_trap_12_embedded_structures_never_become_provisions(lu_body):
    for rel in ("loi-2018-07-13-a652/2021-09-15/fr.xml", "loi-2023-01-06-a16/2023-02-01/fr.xml"):
        result = akn_lu.extract(lu_body(rel), language="fr")
        assert all(not p.anchor.startswith("article_") for p in result.provisions), rel


def test_trap_16_postit_is_a_note_not_text(lu_body):
    body = lu_body("rgd-2001-10-18-n3/2026-02-24/fr.xml")
    postit = b'<scl:postit>attention date entr\xc3\xa9e en vigueur \xc3\xa0 corriger avant pub</scl:postit>'
    marker = body.index(b"<act")
    patched = body[:marker] + postit + body[marker:]
    plain = akn_lu.extract(body, language="fr")
    result = akn_lu.extract(patched, language="fr")
    assert result.fingerprint == plain.fingerprint
    assert any("scl:postit" in n and "corriger avant pub" in n for n in result.notes)


def test_codes_livre_titre_chapitre_section_paths_and_index_terms(lu_body):
    result = akn_lu.extract(lu_body("rgd-1998-08-03-n4/2025-12-19/fr.xml"), language="fr")
    assert len(result.provisions) == 1418
    by = {p.anchor: p for p in result.provisions}
    # scl:indexterms are a per-article keyword index, never text
    assert by["art_1er"].index_terms == ("Juge", "Juge — de paix", "Défendeur", "Compétence",
                                          "Compétence — d’attribution")
    assert by["art_1er"].text_md.startswith("En matière civile et commerciale, le juge de paix connaît")
    assert by["art_1007-24"].path == (
        "2. DEUXIEME PARTIE. — Procédures diverses",
        "LIVRE Ier. — (Décrété le 22 avril 1806. Promulgué le 2 mai suivant.)",
        "TITRE VIbis. — ( L. du 27 juin 2018 ) Du juge aux affaires familiales",
        "Chapitre II. — Dispositions applicables à la procédure de divorce",
        "Section III. — De la procédure de divorce pour rupture irrémédiable des relations conjugales des conjoints",
        "Sous-Section 1 re . — De la procédure relative au fond et aux mesures provisoires",
        "Paragraphe 1 er . — Du fond",
    )


def test_non_ascii_publisher_anchor_kept_verbatim(lu_body):
    result = akn_lu.extract(lu_body("rgd-1998-08-03-n4/2025-12-19/fr.xml"), language="fr")
    assert "art_250_à_253" in {p.anchor for p in result.provisions}


def test_articleless_notice_becomes_one_document_provision(lu_body):
    result = derive_body(lu_body("div-2023-06-21-a323/*/fr.xml"), language="fr")
    assert result.profile == "akn-lu-document/3"
    (doc,) = result.provisions
    assert doc.anchor == "document" and doc.type == "document"
    assert "le Luxembourg a dénoncé l’accord avec effet au 17 juin 2024." in doc.text_md


def test_refs_become_citations_with_inline_text_only(lu_body):
    result = akn_lu.extract(lu_body("conv-2020-11-25-a1029/2021-01-01/fr.xml"), language="fr")
    art = result.provisions[0]
    assert "convention amendée du 13 décembre 1993" in art.text_md
    assert "http" not in art.text_md and "](" not in art.text_md
    assert any(c.href.endswith("/eli/etat/leg/conv/1993/12/13/n7/jo") for c in art.citations)
    assert "\n\n**Filtre de Ryser :** membrane" in art.text_md  # embeddedStructure kept, bold kept


def test_unknown_namespace_is_refused_with_the_evidence_hash(lu_body):
    from legal.canonical import sha256_hex
    from legal.errors import DerivationError

    body = lu_body(CONSTITUTION.format(lang="fr")).replace(
        b"http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13", b"urn:example:not-akn")
    with pytest.raises(DerivationError) as err:
        akn_lu.extract(body, language="fr")
    assert err.value.code == "unknown_namespace" and err.value.subject == sha256_hex(body)


def test_trap_12_shown_quotations_render_as_markdown_quotes(lu_body):
    body = lu_body("rmin-2024-07-18-a293/2024-10-29/fr.xml").replace(b'scl:hide-quote="true"', b'scl:hide-quote="false"')
    art2 = next(p for p in akn_lu.extract(body, language="fr").provisions if p.anchor == "art_2")
    assert "\n\n> **Art. 1er.**\n\n> **(1)** La représentation indirecte" in art2.text_md
