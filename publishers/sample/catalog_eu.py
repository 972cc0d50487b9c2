"""The EU (EUR-Lex / Cellar) demonstration works: invented acts, real publisher shapes.

CELEX numbers use the sector-3 form with a 99xx act number (``32018R9901``), which no real
act carries; Official Journal references use issue numbers above 900 for the same reason.
EuroVoc concepts are real thesaurus entries (with their real labels), attached to invented acts.
"""

from __future__ import annotations

import datetime as dt

from legal.identifiers import CELEX_RESOURCE
from publishers.sample.eurlex import (
    Amender,
    Consolidation,
    EuText,
    OjRef,
    formex_names,
    render_consolidated,
    render_formex_doc,
    render_formex_main,
    render_original,
)
from publishers.sample.model import (
    FIRST_RUN,
    SECOND_RUN,
    Article,
    Block,
    Body,
    Division,
    Event,
    Expression,
    Metadata,
    Node,
    Version,
    Work,
    det_uuid,
)

EU = "eu-eurlex"
EURLEX = "https://eur-lex.europa.eu/legal-content/{lang}/TXT/?uri=CELEX:{celex}"
EUROVOC = "http://eurovoc.europa.eu/"
SHORT_TITLE = "http://publications.europa.eu/ontology/cdm#expression_title_short"
DIRECTORY = "http://publications.europa.eu/resource/authority/dir-eu-legal-act/"


def eurlex(lang: str, celex: str) -> str:
    """The official EUR-Lex page of a CELEX expression (the expression ``source_uri``)."""
    return EURLEX.format(lang=lang.upper(), celex=celex)


def display_title(title: str) -> str:
    """EUR-Lex short display title: the text before " of the European Parliament", else 90 chars + "…"."""
    cut = title.find(" of the European Parliament")
    if cut > 0:
        return title[:cut]
    return title[:90] + "…"


def _seen(at: str = FIRST_RUN) -> Event:
    return Event("first_sighting", at)


def _concept(kind: str, number: str, en: str, fr: str) -> tuple[Metadata, ...]:
    uri = (EUROVOC if kind.startswith("eurovoc") else DIRECTORY) + number
    return (Metadata(kind, uri, en, uri, "en"), Metadata(kind, uri, fr, uri, "fr"))


def _short_titles(celex: str, en: str, fr: str | None) -> tuple[Metadata, ...]:
    out: tuple[Metadata, ...] = (Metadata("publisher_short_title", SHORT_TITLE, en, eurlex("en", celex), "en"),)
    if fr:
        out += (Metadata("publisher_short_title", SHORT_TITLE, fr, eurlex("fr", celex), "fr"),)
    return out


def _raw(celex: str, legal_form: str, status: str) -> tuple[tuple[str, str], ...]:
    return (("celex", celex), ("legal_form", legal_form), ("hierarchy", "secondary_eu_law"),
            ("binding_status", "in_force"), ("consolidation_status", status))


def _day_before(date: str) -> str:
    return (dt.date.fromisoformat(date) - dt.timedelta(days=1)).isoformat()


# --------------------------------------------------------------------------- Regulation 2018/9901

REG = "32018R9901"
REG_OJ = OjRef("L", "901", "3.4.2018", "2018-04-03")
REG_TITLE = {
    "en": "Demonstration Regulation (EU) 2018/9901 of the European Parliament and of the Council of "
          "14 March 2018 on a fictitious public register of demonstration data sets (Demonstration text "
          "— not Union law)",
    "fr": "Règlement de démonstration (UE) 2018/9901 du Parlement européen et du Conseil du 14 mars 2018 "
          "relatif à un registre public fictif de jeux de données de démonstration (texte de "
          "démonstration — sans valeur juridique)",
}

_REG_ART = {
    ("en", 1): Article("art_1", "Article 1", (Block((
        "This Regulation establishes a fictitious public register of demonstration data sets. It is a "
        "demonstration text written for the lex-evidence sample corpus and is not Union law.",)),),
        heading="Subject matter"),
    ("fr", 1): Article("art_1", "Article premier", (Block((
        "Le présent règlement institue un registre public fictif de jeux de données de démonstration. Il "
        "s’agit d’un texte de démonstration rédigé pour le corpus d’exemple de lex-evidence; ce n’est pas "
        "du droit de l’Union.",)),), heading="Objet"),
    ("en", 2): Article("art_2", "Article 2", (Block(
        ("For the purposes of this Regulation, the following definitions apply:",),
        items=(("‘data set’ means a fictitious collection of records described in the register;",),
               ("‘keeper’ means the fictitious body that maintains the register.",))),),
        heading="Definitions"),
    ("fr", 2): Article("art_2", "Article 2", (Block(
        ("Aux fins du présent règlement, on entend par:",),
        items=(("«jeu de données»: un ensemble fictif d’enregistrements décrit dans le registre;",),
               ("«gestionnaire»: l’organisme fictif qui tient le registre.",))),),
        heading="Définitions"),
    ("en", 3): Article("art_3", "Article 3", (
        Block(("Each entry shall state the title of the data set and the name of its keeper.",), num="1."),
        Block(("The keeper shall make an entry within 30 days of a complete request.",), num="2.")),
        heading="Entries"),
    ("fr", 3): Article("art_3", "Article 3", (
        Block(("Chaque inscription indique le titre du jeu de données et le nom de son gestionnaire.",),
              num="1."),
        Block(("Le gestionnaire procède à l’inscription dans un délai de 30 jours à compter d’une "
               "demande complète.",), num="2.")),
        heading="Inscriptions"),
    ("en", 4): Article("art_4", "Article 4", (Block(("The register shall be accessible free of charge.",)),),
                       heading="Access"),
    ("fr", 4): Article("art_4", "Article 4", (Block(("Le registre est accessible gratuitement.",)),),
                       heading="Accès"),
    ("en", 5): Article("art_5", "Article 5", (Block((
        "This Regulation shall enter into force on the twentieth day following that of its publication in "
        "the Official Journal of the European Union.",)),), heading="Entry into force"),
    ("fr", 5): Article("art_5", "Article 5", (Block((
        "Le présent règlement entre en vigueur le vingtième jour suivant celui de sa publication au "
        "Journal officiel de l’Union européenne.",)),), heading="Entrée en vigueur"),
}

_REG_ART_3_M1 = {
    "en": Article("art_3", "Article 3", (
        Block(("Each entry shall state the title of the data set and the name of its keeper.",), num="1."),
        Block(("The keeper shall make an entry within 15 days of a complete request and shall notify the "
               "users of the data set.",), num="2.")),
        heading="Entries", changed_by="32020L9902"),
    "fr": Article("art_3", "Article 3", (
        Block(("Chaque inscription indique le titre du jeu de données et le nom de son gestionnaire.",),
              num="1."),
        Block(("Le gestionnaire procède à l’inscription dans un délai de 15 jours à compter d’une demande "
               "complète et en informe les utilisateurs du jeu de données.",), num="2.")),
        heading="Inscriptions", changed_by="32020L9902"),
}
_REG_ART_4_M2 = {
    "en": Article("art_4", "Article 4", (Block((
        "The register shall be accessible free of charge through a single demonstration portal, in a "
        "machine-readable format.",)),), heading="Access", changed_by="32026R9904"),
    "fr": Article("art_4", "Article 4", (Block((
        "Le registre est accessible gratuitement au moyen d’un portail de démonstration unique, dans un "
        "format lisible par machine.",)),), heading="Accès", changed_by="32026R9904"),
}

_REG_M1 = Amender("M1", "32020L9902", "DEMONSTRATION DIRECTIVE (EU) 2020/9902 OF THE EUROPEAN PARLIAMENT "
                  "AND OF THE COUNCIL of 15 September 2020", "L 902", "1", "18.9.2020")
_REG_M2 = Amender("M2", "32026R9904", "DEMONSTRATION REGULATION (EU) 2026/9904 OF THE EUROPEAN PARLIAMENT "
                  "AND OF THE COUNCIL of 10 June 2026", "L 904", "1", "15.6.2026")


def _reg_body(lang: str, stage: int) -> tuple[Node, ...]:
    art_3 = _REG_ART_3_M1[lang] if stage >= 1 else _REG_ART[(lang, 3)]
    art_4 = _REG_ART_4_M2[lang] if stage >= 2 else _REG_ART[(lang, 4)]
    chapter = {"en": ("CHAPTER I", "General provisions", "CHAPTER II", "The register"),
               "fr": ("CHAPITRE I", "Dispositions générales", "CHAPITRE II", "Le registre")}[lang]
    return (
        Division("chapter", "cpt_I", chapter[0], chapter[1], (_REG_ART[(lang, 1)], _REG_ART[(lang, 2)])),
        Division("chapter", "cpt_II", chapter[2], chapter[3], (art_3, art_4, _REG_ART[(lang, 5)])),
    )


def _reg_text(lang: str, stage: int) -> EuText:
    if lang == "en":
        return EuText(
            "en",
            ("DEMONSTRATION REGULATION (EU) 2018/9901 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL",
             "of 14 March 2018", "on a fictitious public register of demonstration data sets",
             "(Demonstration text — not Union law)"),
            ("THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,",
             "Having regard to the demonstration needs of the lex-evidence project,"),
            ("This Regulation is a demonstration text. It was written for the sample corpus of the "
             "lex-evidence project and has never been adopted by any institution.",
             "A small register with a few articles is enough to show how articles are found, dated and "
             "compared."),
            "HAVE ADOPTED THIS REGULATION:", _reg_body("en", stage),
            ("This Regulation is a demonstration text and binds no one.", "Done at Brussels, 14 March 2018."),
            ("For the European Parliament", "The President", "A. DEMO", "For the Council", "The President",
             "B. SAMPLE"))
    return EuText(
        "fr",
        ("RÈGLEMENT DE DÉMONSTRATION (UE) 2018/9901 DU PARLEMENT EUROPÉEN ET DU CONSEIL",
         "du 14 mars 2018", "relatif à un registre public fictif de jeux de données de démonstration",
         "(Texte de démonstration — sans valeur juridique)"),
        ("LE PARLEMENT EUROPÉEN ET LE CONSEIL DE L’UNION EUROPÉENNE,",
         "vu les besoins de démonstration du projet lex-evidence,"),
        ("Le présent règlement est un texte de démonstration. Il a été rédigé pour le corpus d’exemple du "
         "projet lex-evidence et n’a jamais été adopté par aucune institution.",
         "Un petit registre de quelques articles suffit pour montrer comment les articles sont retrouvés, "
         "datés et comparés."),
        "ONT ADOPTÉ LE PRÉSENT RÈGLEMENT:", _reg_body("fr", stage),
        ("Le présent règlement est un texte de démonstration et n’oblige personne.",
         "Fait à Bruxelles, le 14 mars 2018."),
        ("Par le Parlement européen", "Le président", "A. DEMO", "Par le Conseil", "Le président", "B. SAMPLE"))


_REG_META = (
    *_concept("eurovoc", "4821", "database", "base de données"),
    *_concept("eurovoc", "453", "access to information", "accès à l'information"),
    *_concept("eurovoc_domain", "100150", "32 EDUCATION AND COMMUNICATIONS", "32 ÉDUCATION ET COMMUNICATION"),
    *_short_titles(REG, "demonstration register, demo data sets register",
                   "registre de démonstration, registre fictif des jeux de données"),
)


# --------------------------------------------------------------------------- Directive 2020/9902

DIR = "32020L9902"
DIR_OJ = OjRef("L", "902", "18.9.2020", "2020-09-18")
DIR_TITLE = {
    "en": "Demonstration Directive (EU) 2020/9902 of the European Parliament and of the Council of "
          "15 September 2020 on fictitious notices to users of demonstration data sets and amending "
          "Demonstration Regulation (EU) 2018/9901 (Demonstration text — not Union law)",
}

_DIR_ART = {
    1: Article("art_1", "Article 1", (Block((
        "This Directive lays down fictitious rules on notices to users of demonstration data sets. It is a "
        "demonstration text and is not Union law.",)),), heading="Subject matter"),
    2: Article("art_2", "Article 2", (Block((
        "Member States shall ensure that keepers send a notice to the users of a data set at least 14 days "
        "before its entry in the register is changed.",)),), heading="Notices"),
    3: Article("art_3", "Article 3", (
        Block(("In Article 3 of Demonstration Regulation (EU) 2018/9901, paragraph 2 is replaced by the "
               "following:",)),
        Block(("‘2. The keeper shall make an entry within 15 days of a complete request and shall notify the "
               "users of the data set.’",))),
        heading="Amendment to Demonstration Regulation (EU) 2018/9901"),
    4: Article("art_4", "Article 4", (Block((
        "Member States shall bring into force the fictitious measures necessary to comply with this "
        "Directive by 31 December 2020.",)),), heading="Transposition"),
}
_DIR_ART_2_M1 = Article("art_2", "Article 2", (Block((
    "Member States shall ensure that keepers send a notice to the users of a data set, by electronic means, "
    "at least 30 days before its entry in the register is changed.",)),), heading="Notices",
    changed_by="32022R9903")
_DIR_M1 = Amender("M1", "32022R9903", "DEMONSTRATION REGULATION (EU) 2022/9903 OF THE EUROPEAN PARLIAMENT "
                  "AND OF THE COUNCIL of 30 November 2022", "L 903", "1", "5.12.2022")


def _dir_text(amended: bool) -> EuText:
    arts = [_DIR_ART[n] for n in (1, 2, 3, 4)]
    if amended:
        arts[1] = _DIR_ART_2_M1
    return EuText(
        "en",
        ("DEMONSTRATION DIRECTIVE (EU) 2020/9902 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL",
         "of 15 September 2020",
         "on fictitious notices to users of demonstration data sets and amending Demonstration "
         "Regulation (EU) 2018/9901", "(Demonstration text — not Union law)"),
        ("THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,",
         "Having regard to Demonstration Regulation (EU) 2018/9901,"),
        ("This Directive is a demonstration text written for the lex-evidence sample corpus.",),
        "HAVE ADOPTED THIS DIRECTIVE:", tuple(arts),
        ("This Directive is addressed to the Member States, for demonstration purposes only.",
         "Done at Brussels, 15 September 2020."),
        ("For the European Parliament", "The President", "A. DEMO", "For the Council", "The President",
         "B. SAMPLE"))


_DIR_META = (
    *_concept("eurovoc", "1425", "consumer information", "information du consommateur"),
    *_concept("eurovoc", "5334", "disclosure of information", "communication des données"),
    *_concept("eurovoc_domain", "100150", "32 EDUCATION AND COMMUNICATIONS", "32 ÉDUCATION ET COMMUNICATION"),
    *_concept("directory", "152020", "Consumer information, education and representation",
              "Information, éducation et représentation des consommateurs"),
    *_short_titles(DIR, "demonstration notices directive", None),
)


# --------------------------------------------------------------------------- Regulation 2022/9903

REG2 = "32022R9903"
REG2_OJ = OjRef("L", "903", "5.12.2022", "2022-12-05")
REG2_TITLE = ("Demonstration Regulation (EU) 2022/9903 of the European Parliament and of the Council of "
              "30 November 2022 amending Demonstration Directive (EU) 2020/9902 as regards the notice "
              "period (Demonstration text — not Union law)")
REG2_TEXT = EuText(
    "en",
    ("DEMONSTRATION REGULATION (EU) 2022/9903 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL",
     "of 30 November 2022", "amending Demonstration Directive (EU) 2020/9902 as regards the notice period",
     "(Demonstration text — not Union law)"),
    ("THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,",
     "Having regard to Demonstration Directive (EU) 2020/9902,"),
    ("A longer notice period is needed to show an amendment between two demonstration acts.",),
    "HAVE ADOPTED THIS REGULATION:",
    (
        Article("art_1", "Article 1", (
            Block(("Article 2 of Demonstration Directive (EU) 2020/9902 is replaced by the following:",)),
            Block(("‘Member States shall ensure that keepers send a notice to the users of a data set, by "
                   "electronic means, at least 30 days before its entry in the register is changed.’",))),
            heading="Amendment to Demonstration Directive (EU) 2020/9902"),
        Article("art_2", "Article 2", (Block((
            "This Regulation shall enter into force on the day following that of its publication in the "
            "Official Journal of the European Union. It shall apply from 1 January 2023. It is a "
            "demonstration text and is not Union law.",)),), heading="Entry into force"),
    ),
    ("This Regulation is a demonstration text and binds no one.", "Done at Brussels, 30 November 2022."),
    ("For the European Parliament", "The President", "A. DEMO", "For the Council", "The President",
     "B. SAMPLE"),
)
_REG2_META = (
    *_concept("eurovoc", "5070", "administrative formalities", "formalité administrative"),
    *_short_titles(REG2, "demonstration notice period regulation", None),
)


# --------------------------------------------------------------------------- versions


def _original(celex: str, date: str, legal_form: str, texts: tuple[EuText, ...], oj: OjRef,
              titles: dict[str, str], meta: tuple[Metadata, ...], roles: tuple[str, ...],
              demonstrates: str) -> Version:
    expressions = []
    for text in texts:
        source = eurlex(text.lang, celex)
        body = Body(f"{text.lang}.xml", render_original(celex, text, oj), source, FIRST_RUN)
        title = titles[text.lang]
        expressions.append(Expression(text.lang, source, title=title, title_short=display_title(title),
                                      bodies=(body,)))
    return Version(
        CELEX_RESOURCE + celex, date, tuple(expressions), demonstrates, document_type=legal_form,
        in_force_status="1", publication_date=date, events=(_seen(),),
        raw=_raw(celex, legal_form, "original_official_expression"), publisher_metadata=meta,
        document_roles=roles)


def _consolidated(cons: Consolidation, legal_form: str, document_date: str, texts: tuple[EuText, ...],
                  titles: dict[str, str], meta: tuple[Metadata, ...], roles: tuple[str, ...],
                  demonstrates: str, *, formex: tuple[str, ...] = ("en",),
                  retrieved: dict[str, str] | None = None, events: tuple[Event, ...] = ()) -> Version:
    retrieved = retrieved or {}
    expressions = []
    for text in texts:
        at = retrieved.get(text.lang, FIRST_RUN)
        source = eurlex(text.lang, cons.consolidated_celex)
        bodies = [Body(f"{text.lang}.html", render_consolidated(cons, text), source, at)]
        if text.lang in formex:
            main, doc = formex_names(cons, text.lang)
            cellar = f"https://publications.europa.eu/resource/cellar/{cons.cellar}.0001.01/zip"
            bodies.append(Body(f"{text.lang}.fmx4/{doc}", render_formex_doc(cons, text, legal_form, document_date), cellar,
                               at, format="fmx4"))
            bodies.append(Body(f"{text.lang}.fmx4/{main}",
                               render_formex_main(cons, text, legal_form, document_date), cellar, at,
                               format="fmx4"))
        title = titles[text.lang]
        expressions.append(Expression(text.lang, source, title=title, title_short=display_title(title),
                                      bodies=tuple(bodies)))
    return Version(
        CELEX_RESOURCE + cons.consolidated_celex, cons.date, tuple(expressions), demonstrates,
        document_type=legal_form, in_force_status="1", publication_date=cons.date,
        events=events or (_seen(),), relations=(("consolidates", CELEX_RESOURCE + cons.celex),),
        raw=_raw(cons.consolidated_celex, legal_form, "published"), publisher_metadata=meta,
        document_roles=(*roles, "consolidated"))


def _cons(celex: str, date: str, seq: str, oj: OjRef, *amenders: Amender) -> Consolidation:
    return Consolidation(celex, date, seq, oj, amenders, cellar=det_uuid("cellar", celex, date))


def _reg_versions() -> tuple[Version, ...]:
    both = ("en", "fr")
    c2018 = _cons(REG, "2018-04-03", "000.001.0", REG_OJ)
    c2021 = _cons(REG, "2021-01-01", "001.001.0", REG_OJ, _REG_M1)
    c2028 = _cons(REG, "2028-07-01", "002.001.0", REG_OJ, _REG_M1, _REG_M2)
    empty = Version(
        CELEX_RESOURCE + "02018R9901-20190601", "2019-06-01", (),
        "consolidation held by Cellar with no English or French expression: expressions [] "
        "(no text for 2019-06-01 … 2020-12-31)",
        document_type="REG", in_force_status="1", publication_date="2019-06-01", events=(_seen(),),
        relations=(("consolidates", CELEX_RESOURCE + REG),), raw=_raw("02018R9901-20190601", "REG", "published"),
        publisher_metadata=_REG_META, document_roles=("consolidated",))
    return (
        _original(REG, "2018-03-14", "REG", tuple(_reg_text(lang, 0) for lang in both), REG_OJ, REG_TITLE,
                  _REG_META, (), "OJ original (CONVEX XHTML en.xml/fr.xml; pvid = the work URI); "
                  "valid_to = next − 1 day (inclusive)"),
        _consolidated(c2018, "REG", "2018-03-14", tuple(_reg_text(lang, 0) for lang in both), REG_TITLE,
                      _REG_META, (), "first consolidation: consolidated CONVEX en.html/fr.html + Formex 4 "
                      "(CONS.ACT + .doc.xml); French expression added on the second run",
                      retrieved={"fr": SECOND_RUN},
                      events=(_seen(), Event("expression_added", SECOND_RUN, scope="fr", detail="language=fr"))),
        empty,
        _consolidated(c2021, "REG", "2018-03-14", tuple(_reg_text(lang, 1) for lang in both), REG_TITLE,
                      _REG_META, (), "art_3 changes (▼M1 modref <a href> to the sample directive 32020L9902; "
                      "CLG.MDFO/MDFC in Formex); art_1 unchanged; interval closed on the second run",
                      events=(_seen(), Event("interval_closed", SECOND_RUN, detail=f"valid_to={_day_before('2028-07-01')}"))),
        _consolidated(c2028, "REG", "2018-03-14", (_reg_text("en", 2),), REG_TITLE,
                      _REG_META, (), "future-dated consolidation (after 2027): art_4 changes by ►M2 "
                      "(32026R9904, not in the sample: a dangling link); English only; first seen on "
                      "the second run", retrieved={"en": SECOND_RUN}, events=(_seen(SECOND_RUN),)),
    )


def _dir_versions() -> tuple[Version, ...]:
    c2023 = _cons(DIR, "2023-01-01", "001.001.0", DIR_OJ, _DIR_M1)
    return (
        _original(DIR, "2020-09-15", "DIR", (_dir_text(False),), DIR_OJ,
                  DIR_TITLE, _DIR_META, ("amending",),
                  "OJ original, English only; amends the sample regulation (document_roles amending)"),
        _consolidated(c2023, "DIR", "2020-09-15", (_dir_text(True),), DIR_TITLE, _DIR_META,
                      ("amending",), "art_2 changes (▼M1 modref <a href> to the sample regulation 32022R9903); "
                      "English only; metadata revised on the second run",
                      events=(_seen(), Event("metadata_revised", SECOND_RUN, scope="version",
                                             detail="fields=publisher_metadata"))),
    )


REG_WORK = Work(
    EU, CELEX_RESOURCE + REG, "REG", display_title(REG_TITLE["en"]), eurlex("en", "02018R9901-20280701"),
    _reg_versions(),
    "regulation: OJ original, four consolidations incl. one without expressions and one future-dated; "
    "chapters; English and French",
    title_language="en",
)
DIR_WORK = Work(
    EU, CELEX_RESOURCE + DIR, "DIR", display_title(DIR_TITLE["en"]), eurlex("en", "02020L9902-20230101"),
    _dir_versions(), "directive amending the regulation, itself amended by the 2022 regulation",
    title_language="en",
)
REG2_WORK = Work(
    EU, CELEX_RESOURCE + REG2, "REG", display_title(REG2_TITLE), eurlex("en", REG2),
    (_original(REG2, "2022-11-30", "REG", (REG2_TEXT,), REG2_OJ, {"en": REG2_TITLE}, _REG2_META, ("amending",),
               "single original state, English only, never consolidated (valid_to open)"),),
    "amending regulation: one original state",
    title_language="en",
)

WORKS: tuple[Work, ...] = (REG_WORK, DIR_WORK, REG2_WORK)
