"""The Luxembourg (Legilux) demonstration works: invented acts, real publisher shapes.

Act numbers use the historic ``n`` suffix with numbers above 900, which no real act since
2017 carries (modern Legilux acts are numbered ``a<Mémorial issue>``), so no identifier here
can collide with a real work. Every act says in its first article that it is not law.
"""

from __future__ import annotations

from publishers.sample.akn import LuDocument, PassiveMod, compact, render
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
    Ref,
    Version,
    Work,
)
from publishers.sample.pdf import render_pdf

LU = "lu-legilux"
DATA = "http://data.legilux.public.lu"
ELI = DATA + "/eli/etat/leg"
WEB = "https://legilux.public.lu"


def web(uri: str) -> str:
    """A consolidation URI's French expression on the public site (how Legilux links it)."""
    return uri.replace(DATA, WEB) + "/fr"


def banner(date: str, name: str) -> str:
    """``Version consolidée applicable au dd/mm/yyyy : <name>`` (Legilux consolidation titles)."""
    y, m, d = date.split("-")
    return f"Version consolidée applicable au {d}/{m}/{y} : {name}"


def _seen(at: str = FIRST_RUN) -> Event:
    return Event("first_sighting", at)


def _xml_expression(doc: LuDocument, *, title: str, title_short: str | None = None,
                    retrieved_at: str = FIRST_RUN) -> Expression:
    source = web(doc.version_uri)
    body = Body("fr.xml", render(doc), source, retrieved_at)
    return Expression("fr", source, title=title, title_short=title_short, bodies=(body,))


# --------------------------------------------------------------------------- loi n901

LOI = f"{ELI}/loi/2017/03/01/n901"
LOI_NAME = "Loi de démonstration du 1er mars 2017 relative au registre fictif des jardins partagés."
LOI_SHORT = "Loi de démonstration sur les jardins partagés"
LOI_REF = "/eli/etat/leg/loi/2017/03/01/n901/jo"

_L_ART_1 = Article("art_1er", "Art. 1er.", (Block((
    "La présente loi de démonstration institue un registre fictif des jardins partagés. Elle a été "
    "rédigée pour le corpus d’exemple du projet lex-evidence et n’a aucune valeur juridique.",)),),
    since="2017-03-15")
_L_ART_2 = Article("art_2", "Art. 2.", (Block(
    ("Au sens de la présente loi, on entend par :",),
    items=(("« jardin partagé » : un terrain fictif cultivé en commun par plusieurs personnes ;",),
           ("« gestionnaire » : la personne fictive chargée de tenir le registre.",))),),
    heading="Définitions", since="2017-03-15")
_L_ART_3_2017 = Article("art_3", "Art. 3.", (
    Block(("Toute demande d’inscription au registre fictif est adressée au gestionnaire dans un délai "
           "de trente jours à compter de la création du jardin partagé.",), num="(1)"),
    Block(("Le gestionnaire statue sur la demande dans un délai de deux mois.",), num="(2)")),
    since="2017-03-15")
_L_ART_3_2019 = Article("art_3", "Art. 3.", (
    Block(("Toute demande d’inscription au registre fictif est adressée au gestionnaire dans un délai "
           "de soixante jours à compter de la création du jardin partagé.",), num="(1)"),
    Block(("Le gestionnaire statue sur la demande dans un délai de deux mois.",), num="(2)")),
    since="2019-01-01", changed_by=1)
_L_ART_3_2021 = Article("art_3", "Art. 3.", (
    Block(("Toute demande d’inscription au registre fictif est adressée au gestionnaire par voie "
           "électronique dans un délai de soixante jours à compter de la création du jardin partagé.",),
          num="(1)"),
    Block(("Le gestionnaire statue sur la demande dans un délai d’un mois.",), num="(2)"),
    Block(("Le silence du gestionnaire à l’expiration de ce délai vaut acceptation de la demande.",),
          num="(3)")),
    since="2021-07-01", changed_by=2)
_L_ART_3BIS = Article("art_3bis", "Art. 3bis.", (Block((
    "Le registre fictif est consultable gratuitement en ligne. Il ne contient aucune donnée réelle.",)),),
    since="2021-07-01", changed_by=3)
_L_ART_4_2017 = Article("art_4", "Art. 4.", (Block((
    "Le gestionnaire radie du registre fictif le jardin partagé dont le responsable en fait la demande.",)),),
    since="2017-03-15")
_L_ART_4_2028 = Article("art_4", "Art. 4.", (Block((
    "Le gestionnaire radie du registre fictif le jardin partagé dont le responsable en fait la demande. "
    "Il procède d’office à la radiation d’un jardin partagé inactif depuis deux ans.",)),),
    since="2028-01-01", changed_by=4)
_L_ART_5 = Article("art_5", "Art. 5.", (Block((
    "La présente loi de démonstration peut être citée sous l’intitulé abrégé « loi de démonstration "
    "sur les jardins partagés ».",)),), since="2017-03-15")

_LOI_MODS = (
    PassiveMod(1, "replacement", "/eli/etat/leg/loi/2018/12/10/n908/jo", "art_3", "2019-01-01",
               "A|2018-12-20|2018-12-10|L|908",
               "Loi de démonstration du 10 décembre 2018 modifiant la loi de démonstration du 1er mars "
               "2017 relative au registre fictif des jardins partagés."),
    PassiveMod(2, "replacement", "/eli/etat/leg/loi/2021/06/18/n909/jo", "art_3", "2021-07-01",
               "A|2021-06-25|2021-06-18|L|909",
               "Loi de démonstration du 18 juin 2021 portant modernisation du registre fictif des "
               "jardins partagés."),
    PassiveMod(3, "insertion", "/eli/etat/leg/loi/2021/06/18/n909/jo", "art_3bis", "2021-07-01",
               "A|2021-06-25|2021-06-18|L|909",
               "Loi de démonstration du 18 juin 2021 portant modernisation du registre fictif des "
               "jardins partagés."),
    PassiveMod(4, "replacement", "/eli/etat/leg/loi/2026/06/30/n910/jo", "art_4", "2028-01-01",
               "A|2026-07-15|2026-06-30|L|910",
               "Loi de démonstration du 30 juin 2026 relative à la radiation d’office des jardins "
               "partagés inactifs."),
)


def _loi_body(art_3: Article, art_4: Article, with_3bis: bool) -> tuple[Node, ...]:
    inscription: tuple[Node, ...] = (art_3, _L_ART_3BIS) if with_3bis else (art_3,)
    return (
        Division("chapter", "chapitre_1er", "Chapitre 1er", "Objet et définitions", (_L_ART_1, _L_ART_2)),
        Division("chapter", "chapitre_2", "Chapitre 2", "Du registre fictif", (
            Division("section", "chapitre_2.section_1re", "Section 1re", "Inscription", inscription),
            Division("section", "chapitre_2.section_2", "Section 2", "Radiation", (art_4,)),
        )),
        Division("chapter", "chapitre_3", "Chapitre 3", "Disposition finale", (_L_ART_5,)),
    )


def _loi_version(valid_from: str, body: tuple[Node, ...], mods: int, *, status: str, published: str,
                 demonstrates: str) -> Version:
    uri = f"{LOI}/consolide/{compact(valid_from)}"
    title = banner(valid_from, LOI_NAME)
    doc = LuDocument(
        style="consolide", crlf=True, work_uri=LOI, version_uri=uri, article_base=LOI, type_code="LOI",
        institution="ME", date_document="2017-03-01", date_applicability=valid_from,
        date_entry_into_force="2017-03-15", title=title, title_short=LOI_SHORT, body=body,
        publication_date=published, mods=_LOI_MODS[:mods])
    return Version(
        uri, valid_from, (_xml_expression(doc, title=title, title_short=LOI_SHORT),),
        demonstrates, document_type="LOI", in_force_status=status, publication_date=published,
        events=(_seen(),))


LOI_WORK = Work(
    LU, LOI, "LOI", LOI_SHORT, web(f"{LOI}/consolide/20280101"),
    (
        _loi_version("2017-03-15", _loi_body(_L_ART_3_2017, _L_ART_4_2017, False), 0,
                     status="not-applicable", published="2017-03-20",
                     demonstrates="first state; art_1er here is identical in every later state"),
        _loi_version("2019-01-01", _loi_body(_L_ART_3_2019, _L_ART_4_2017, False), 1,
                     status="not-applicable", published="2019-02-04",
                     demonstrates="art_3 (1) changes: trente → soixante jours (mod-start/mod-end, note M1); "
                                  "publication after valid_from"),
        _loi_version("2021-07-01", _loi_body(_L_ART_3_2021, _L_ART_4_2017, True), 3,
                     status="applicable", published="2021-06-25",
                     demonstrates="art_3 changes again and gains (3); art_3bis inserted (anchor appears)"),
        _loi_version("2028-01-01", _loi_body(_L_ART_3_2021, _L_ART_4_2028, True), 4,
                     status="not-yet-applicable", published="2026-07-15",
                     demonstrates="future-dated state (valid_from after 2027, not-yet-applicable): art_4 changes"),
    ),
    "LOI with chapters and sections, art_1er-style anchors, per-article dateApplicability, "
    "four states incl. a future one (CRLF, tab-indented consolidation bodies)",
)


# --------------------------------------------------------------------------- rgd n903

RGD = f"{ELI}/rgd/2018/06/12/n903"
RGD_NAME = ("Règlement grand-ducal de démonstration du 12 juin 2018 précisant les modalités "
            "d’inscription au registre fictif des jardins partagés.")

_R_ART_1 = Article("art_1er", "Art. 1er.", (Block((
    "Le présent règlement de démonstration précise les modalités d’inscription prévues à l’article 3 de la ",
    Ref(LOI_REF, "loi de démonstration du 1er mars 2017 relative au registre fictif des jardins partagés"),
    ". Il n’a aucune valeur juridique.")),), since="2018-07-01")
_R_ART_2_2018 = Article("art_2", "Art. 2.", (Block((
    "La demande d’inscription mentionne le nom du jardin partagé fictif, son adresse et sa superficie.",)),),
    since="2018-07-01")
_R_ART_2_2020 = Article("art_2", "Art. 2.", (Block((
    "La demande d’inscription mentionne le nom du jardin partagé fictif, son adresse, sa superficie et "
    "le nombre de parcelles cultivées.",)),), since="2020-01-01", changed_by=1)
_R_ART_3 = Article("art_3", "Art. 3.", (Block((
    "Notre ministre ayant les jardins fictifs dans ses attributions est chargé de l’exécution du présent "
    "règlement de démonstration.",)),), since="2018-07-01")

_RGD_MOD = PassiveMod(
    1, "replacement", "/eli/etat/leg/rgd/2019/11/29/n906/jo", "art_2", "2020-01-01",
    "A|2019-12-06|2019-11-29|RGD|906",
    "Règlement grand-ducal de démonstration du 29 novembre 2019 modifiant le règlement grand-ducal de "
    "démonstration du 12 juin 2018 précisant les modalités d’inscription au registre fictif des "
    "jardins partagés.")


def _rgd_version(valid_from: str, art_2: Article, *, status: str, published: str, events: tuple[Event, ...],
                 demonstrates: str) -> Version:
    uri = f"{RGD}/consolide/{compact(valid_from)}"
    title = banner(valid_from, RGD_NAME)
    doc = LuDocument(
        style="jo", crlf=False, work_uri=RGD, version_uri=uri, article_base=RGD, type_code="RGD",
        institution="ME", date_document="2018-06-12", date_applicability=valid_from,
        date_entry_into_force="2018-07-01", title=title, body=(_R_ART_1, art_2, _R_ART_3),
        publication_date=published, cites=(LOI_REF,), mods=(_RGD_MOD,) if art_2.changed_by else ())
    return Version(uri, valid_from, (_xml_expression(doc, title=title),), demonstrates,
                   document_type="RGD", in_force_status=status, publication_date=published, events=events)


def _rgd_textless() -> Version:
    uri = f"{RGD}/consolide/20240501"
    expression = Expression("fr", web(uri), title=banner("2024-05-01", RGD_NAME),
                            text_reason="publisher_metadata_only")
    return Version(
        uri, "2024-05-01", (expression,),
        "text-less state: the publisher announces it (metadata only) without any manifestation; "
        "text.available false, reason publisher_metadata_only, no observations; first seen on the second run",
        document_type="RGD", in_force_status="applicable", publication_date="2024-04-26",
        events=(_seen(SECOND_RUN),))


RGD_WORK = Work(
    LU, RGD, "RGD", banner("2024-05-01", RGD_NAME), web(f"{RGD}/consolide/20240501"),
    (
        _rgd_version("2018-07-01", _R_ART_2_2018, status="not-applicable", published="2018-06-20",
                     events=(_seen(),),
                     demonstrates="citation: art_1er <ref href> to the sample loi n901 (resolves to lu-legilux:"
                                  "loi-2017-03-01-n901)"),
        _rgd_version("2020-01-01", _R_ART_2_2020, status="not-applicable", published="2024-05-31",
                     events=(_seen(), Event("interval_closed", SECOND_RUN, detail="valid_to=2024-05-01")),
                     demonstrates="art_2 changes; published years after valid_from; interval closed on the "
                                  "second run (open as known at the first run)"),
        _rgd_textless(),
    ),
    "RGD executing the loi (citation), one amendment, then a metadata-only state "
    "(\"casemates\" export: one element a line, LF)",
)


# --------------------------------------------------------------------------- code (loi n904)

CODE_LAW = f"{ELI}/loi/2016/05/20/n904"
CODE = f"{ELI}/code/demo"
CODE_TITLE = "Code de démonstration"
CODE_LAW_NAME = "Loi de démonstration du 20 mai 2016 portant introduction d’un Code de démonstration."

_C_111_1 = Article("art_l_111-1", "Art. L. 111-1.", (Block((
    "Le présent code de démonstration rassemble des dispositions fictives sur les bibliothèques de prêt. "
    "Il a été rédigé pour le corpus d’exemple du projet lex-evidence et n’a aucune valeur juridique.",)),),
    since="2016-06-01", index_terms=("bibliothèque de prêt (définition)",))
_C_111_2 = {
    "2016-06-01": Article("art_l_111-2", "Art. L. 111-2.", (Block((
        "Les bibliothèques de prêt fictives ouvrent au moins trois jours par semaine.",)),),
        since="2016-06-01", index_terms=("horaires d’ouverture",)),
    "2019-09-01": Article("art_l_111-2", "Art. L. 111-2.", (Block((
        "Les bibliothèques de prêt fictives ouvrent au moins quatre jours par semaine.",)),),
        since="2019-09-01", changed_by=1, index_terms=("horaires d’ouverture",)),
    "2022-01-01": Article("art_l_111-2", "Art. L. 111-2.", (Block((
        "Les bibliothèques de prêt fictives ouvrent au moins cinq jours par semaine, dont le samedi.",)),),
        since="2022-01-01", changed_by=2, index_terms=("horaires d’ouverture",)),
}
_C_112_1 = Article("art_l_112-1", "Art. L. 112-1.", (Block((
    "Toute personne peut emprunter au plus cinq ouvrages fictifs à la fois.",)),), since="2016-06-01")
_C_112_2 = Article("art_l_112-2", "Art. L. 112-2.", (Block((
    "Le gestionnaire d’un jardin partagé inscrit au registre fictif institué par la ",
    Ref(LOI_REF, "loi de démonstration du 1er mars 2017"),
    " peut emprunter des ouvrages fictifs pour le compte des membres du jardin.")),),
    since="2022-01-01", changed_by=3)
_C_INTRO = Article("art_1er", "Art. 1er.", (Block((
    "Les dispositions annexées à la présente loi de démonstration constituent le Code de démonstration.",)),),
    since="2016-06-01")

_CODE_MODS = (
    PassiveMod(1, "replacement", "/eli/etat/leg/loi/2019/08/05/n911/jo", "art_l_111-2", "2019-09-01",
               "A|2019-08-09|2019-08-05|L|911",
               "Loi de démonstration du 5 août 2019 modifiant le Code de démonstration."),
    PassiveMod(2, "replacement", "/eli/etat/leg/loi/2021/12/20/n912/jo", "art_l_111-2", "2022-01-01",
               "A|2021-12-23|2021-12-20|L|912",
               "Loi de démonstration du 20 décembre 2021 portant extension des horaires des bibliothèques "
               "de prêt fictives."),
    PassiveMod(3, "insertion", "/eli/etat/leg/loi/2021/12/20/n912/jo", "art_l_112-2", "2022-01-01",
               "A|2021-12-23|2021-12-20|L|912",
               "Loi de démonstration du 20 décembre 2021 portant extension des horaires des bibliothèques "
               "de prêt fictives."),
)

_SAME_AS = Metadata("legilux_same_as", CODE, "code-demo", CODE)


def _code_tree(valid_from: str) -> Node:
    users: tuple[Node, ...] = (_C_112_1, _C_112_2) if valid_from >= "2022-01-01" else (_C_112_1,)
    book = Division("book", "title_i.livre_1", "LIVRE 1", "Dispositions générales", (
        Division("title", "title_i.livre_1.titre_1", "TITRE 1", "Des bibliothèques de prêt fictives", (
            Division("chapter", "title_i.livre_1.titre_1.chapitre_1", "Chapitre 1.", "Ouverture",
                     (_C_111_1, _C_111_2[valid_from])),
            Division("chapter", "title_i.livre_1.titre_1.chapitre_2", "Chapitre 2.", "Usagers", users),
        )),
    ))
    return Division("title", "title_i", "I.", "CODE DE DÉMONSTRATION - PARTIE LÉGISLATIVE", (book,))


def _code_state(valid_from: str, *, status: str, demonstrates: str) -> Version:
    uri = f"{CODE}/{compact(valid_from)}"
    doc = LuDocument(
        style="code", crlf=True, work_uri=CODE_LAW, version_uri=uri, article_base=CODE, type_code="CODE",
        institution="MJ", date_document="2016-05-20", date_applicability=valid_from,
        date_entry_into_force="2016-06-01", title=CODE_TITLE, title_short=CODE_TITLE,
        body=(_code_tree(valid_from),), publication_date=valid_from, act_name="Code démonstration")
    return Version(
        uri, valid_from, (_xml_expression(doc, title=CODE_TITLE, title_short=CODE_TITLE),), demonstrates,
        document_type="CODE", in_force_status=status, publication_date=valid_from, events=(_seen(),),
        publisher_metadata=(_SAME_AS,))


def _code_twin() -> Version:
    uri = f"{CODE_LAW}/consolide/20220101"
    title = banner("2022-01-01", CODE_LAW_NAME)
    doc = LuDocument(
        style="consolide", crlf=True, work_uri=CODE_LAW, version_uri=uri, article_base=CODE_LAW,
        type_code="LOI", institution="MJ", date_document="2016-05-20", date_applicability="2022-01-01",
        date_entry_into_force="2016-06-01", title=title, body=(_C_INTRO, _code_tree("2022-01-01")),
        mods=_CODE_MODS)
    return Version(
        uri, "2022-01-01", (_xml_expression(doc, title=title),),
        "same-day twin of the code state: the law's own consolidation on the same date, another "
        "publisher version identifier (no document_type, no publication_date); a bare-date question "
        "on or after 2022-01-01 is ambiguous_version",
        in_force_status="applicable", events=(_seen(),), publisher_metadata=(_SAME_AS,))


CODE_WORK = Work(
    LU, CODE_LAW, "CODE", CODE_TITLE, web(f"{CODE}/20220101"),
    (
        _code_state("2016-06-01", status="not-applicable",
                    demonstrates="code state (…/code/demo/20160601): livre/titre/chapitre containers, "
                                 "scl:indexterms, art_l_111-1-style anchors"),
        _code_state("2019-09-01", status="not-applicable", demonstrates="art_l_111-2 changes (trois → quatre jours)"),
        _code_state("2022-01-01", status="applicable",
                    demonstrates="art_l_111-2 changes again; art_l_112-2 inserted with a citation to loi n901; "
                                 "one of the same-day pair"),
        _code_twin(),
    ),
    "a code published as code states (…/eli/etat/leg/code/demo/<date>) plus the law's own "
    "consolidation on the same day; legilux_same_as alias code-demo",
)


# --------------------------------------------------------------------------- rmin n907

RMIN = f"{ELI}/rmin/2021/04/12/n907"
RMIN_NAME = ("Règlement ministériel de démonstration du 12 avril 2021 fixant les rubriques du formulaire "
             "fictif de demande d’inscription au registre des jardins partagés.")
RGD_REF = "/eli/etat/leg/rgd/2018/06/12/n903/jo"

_M_ART_1 = Article("art_1er", "Art. 1er.", (Block(
    ("Le formulaire fictif de demande d’inscription visé à l’article 3 du ",
     Ref(RGD_REF, "règlement grand-ducal de démonstration du 12 juin 2018"),
     " comporte les rubriques suivantes :"),
    items=(("le nom du jardin partagé ;",), ("l’adresse du jardin partagé ;",), ("la superficie cultivée.",))),),
    since="2021-05-01")
_M_ART_2 = Article("art_2", "Art. 2.", (Block((
    "Le présent règlement de démonstration n’est publié que dans le corpus d’exemple du projet "
    "lex-evidence ; il n’a aucune valeur juridique.",)),), since="2021-05-01")

_RMIN_PDF_LINES = (
    "Version consolidée applicable au 01/02/2023 : Règlement ministériel de démonstration du 12 avril",
    "2021 fixant les rubriques du formulaire fictif de demande d’inscription au registre des jardins",
    "partagés.",
    "TEXTE DE DÉMONSTRATION – SANS VALEUR JURIDIQUE",
    "Art. 1er.",
    "Le formulaire fictif de demande d’inscription visé à l’article 3 du règlement grand-ducal de",
    "démonstration du 12 juin 2018 comporte les rubriques suivantes :",
    "1° le nom du jardin partagé ;",
    "2° l’adresse du jardin partagé ;",
    "3° la superficie cultivée ;",
    "4° une adresse électronique de contact.",
    "Art. 2.",
    "Le présent règlement de démonstration n’est publié que dans le corpus d’exemple du projet",
    "lex-evidence ; il n’a aucune valeur juridique.",
)


def _rmin_xml() -> Version:
    uri = f"{RMIN}/consolide/20210501"
    title = banner("2021-05-01", RMIN_NAME)
    doc = LuDocument(
        style="jo", crlf=False, work_uri=RMIN, version_uri=uri, article_base=RMIN, type_code="RMIN",
        institution="ME", date_document="2021-04-12", date_applicability="2021-05-01",
        date_entry_into_force="2021-05-01", title=title, body=(_M_ART_1, _M_ART_2),
        publication_date="2021-04-20", cites=(RGD_REF,))
    return Version(uri, "2021-05-01", (_xml_expression(doc, title=title),),
                   "AKN body with a citation to the sample RGD n903", document_type="RMIN",
                   in_force_status="not-applicable", publication_date="2021-04-20", events=(_seen(),))


def _rmin_pdf() -> Version:
    uri = f"{RMIN}/consolide/20230201"
    title = banner("2023-02-01", RMIN_NAME)
    name = "eli-etat-leg-rmin-2021-04-12-n907-consolide-20230201-fr-pdf.pdf"
    filestore = f"{WEB}/filestore/eli/etat/leg/rmin/2021/04/12/n907/consolide/20230201/fr/pdf/{name}"
    body = Body(f"fr.pdf/{name}", render_pdf(_RMIN_PDF_LINES, title), filestore, FIRST_RUN, format="pdf")
    expression = Expression("fr", web(uri), title=title, bodies=(body,))
    return Version(uri, "2023-02-01", (expression,),
                   "consolidated PDF only (fr.pdf/<file>.pdf, format pdf, source = filestore URL); "
                   "art_1er gains a fourth item", document_type="RMIN", in_force_status="applicable",
                   publication_date="2023-02-01", events=(_seen(),))


RMIN_WORK = Work(
    LU, RMIN, "RMIN", banner("2023-02-01", RMIN_NAME), web(f"{RMIN}/consolide/20230201"),
    (_rmin_xml(), _rmin_pdf()),
    "ministerial regulation: one AKN state, then a state offered only as a born-digital PDF",
)


WORKS: tuple[Work, ...] = (LOI_WORK, RGD_WORK, CODE_WORK, RMIN_WORK)
