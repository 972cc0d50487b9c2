"""Akoma Ntoso 3.0 (CSD13) bodies in the shapes Legilux publishes.

Three shapes are reproduced, each after real Legilux files:

- ``consolide``: a consolidation of an act (``<work>/consolide/<yyyymmdd>`` in the FRBR
  block), tab-indented with CRLF line ends, with lifecycle, passive modifications, notes
  and ``mod-start``/``mod-end`` markers around amended wording;
- ``jo``: the older "casemates" export (``<work>/jo`` in the FRBR block), one element a line, LF;
- ``code``: a code state (``…/eli/etat/leg/code/<name>/<yyyymmdd>``), ``act name="Code …"``,
  ``livre``/``titre``/``chapitre`` containers, ``scl:indexterms`` in articles.

Every article carries its own JOLUX block with the versioned article ELI and the per-article
``dateApplicability``; anchors are the publisher ``id`` attributes (``art_1er``, ``art_l_111-2``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from publishers.sample.model import Article, Block, Division, Inline, Node, Ref, det_uuid

AKN_NS = "http://docs.oasis-open.org/legaldocml/ns/akn/3.0/CSD13"
SCL_NS = "http://www.scl.lu"
DATA = "http://data.legilux.public.lu"
AUTHORITY = DATA + "/resource/authority"
JOLUX = DATA + "/resource/ontology/jolux#"
LANGUAGE_FRA = "http://publications.europa.eu/resource/authority/language/FRA"
COUNTRY_LUX = "http://publications.europa.eu/resource/authority/country/LUX"
RIGHTS = "Texte de démonstration rédigé pour le projet lex-evidence – sans valeur juridique"
DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>'

_SUP = re.compile(r"(\d)(er|re)\b")


@dataclass(frozen=True)
class PassiveMod:
    """One ``textualMod`` of the analysis block, with its note (``M<n>``) and source act."""

    number: int
    type: str
    source: str
    destination: str
    applies: str
    journal: str
    title: str


@dataclass(frozen=True)
class LuDocument:
    """Everything one ``fr.xml`` says: identity, JOLUX metadata, amendments and the body."""

    style: str
    crlf: bool
    work_uri: str
    version_uri: str
    article_base: str
    type_code: str
    institution: str
    date_document: str
    date_applicability: str
    date_entry_into_force: str
    title: str
    body: tuple[Node, ...]
    publication_date: str | None = None
    title_short: str | None = None
    cites: tuple[str, ...] = ()
    mods: tuple[PassiveMod, ...] = ()
    act_name: str = ""
    memorial: str | None = None


def compact(date: str) -> str:
    """``2017-03-15`` → ``20170315`` (Legilux URI suffixes)."""
    return date.replace("-", "")



def _text(value: str) -> str:
    return escape(value)


def _num_markup(num: str) -> str:
    return _SUP.sub(r"\1<sup>\2</sup>", _text(num))


class _Writer:
    """Collects indented lines; ``jo`` documents are not indented."""

    def __init__(self, doc: LuDocument) -> None:
        self.doc = doc
        self.lines: list[str] = []
        self.refs = 0

    def add(self, depth: int, text: str) -> None:
        indent = "" if self.doc.style == "jo" else "\t" * depth
        self.lines.append(indent + text)

    def jolux(self, depth: int, name: str, value: str, *, lang: bool = False) -> None:
        lg = ' scl:lg="fra"' if lang else ""
        self.add(depth, f'<scl:jolux{lg} scl:name="{name}">{_text(value)}</scl:jolux>')

    def rdf(self, depth: int, *types: str) -> None:
        for kind in types:
            self.add(depth, f'<scl:rdf scl:name="type">{JOLUX}{kind}</scl:rdf>')

    def inline(self, parts: tuple[Inline, ...]) -> str:
        out: list[str] = []
        for part in parts:
            if isinstance(part, Ref):
                self.refs += 1
                ref_id = det_uuid(self.doc.version_uri, part.href, str(self.refs))
                out.append(f"<ref href={quoteattr(part.href)} id=\"{ref_id}\">{_text(part.text)}</ref>")
            else:
                out.append(_text(part))
        return "".join(out)


def render(doc: LuDocument) -> bytes:
    """The UTF-8 bytes of ``doc`` as Legilux would serve them."""
    w = _Writer(doc)
    act = _act_open(doc)
    w.lines.append(f'{DECLARATION}<akomaNtoso xmlns="{AKN_NS}" xmlns:scl="{SCL_NS}">')
    w.add(1, act)
    w.add(2, "<meta>")
    _identification(w)
    if doc.mods:
        _amendments(w)
    w.add(2, "</meta>")
    w.add(2, "<preface>")
    w.add(3, "<longTitle>")
    w.add(4, f"<p>{_text(doc.title)}</p>")
    w.add(3, "</longTitle>")
    w.add(2, "</preface>")
    w.add(2, "<body>")
    for node in doc.body:
        _node(w, node, 3)
    w.add(2, "</body>")
    w.add(1, "</act>")
    w.add(0, "</akomaNtoso>")
    newline = "\r\n" if doc.crlf else "\n"
    return newline.join(w.lines).encode("utf-8")


def _act_open(doc: LuDocument) -> str:
    if doc.style == "code":
        code_uri = doc.article_base.replace(DATA, "http://eli.legilux.public.lu")
        return f"<act name={quoteattr(doc.act_name)} scl:uri={quoteattr(code_uri)}>"
    return '<act contains="originalVersion" name="">'


def _frbr_this(doc: LuDocument) -> str:
    return doc.version_uri if doc.style != "jo" else doc.work_uri + "/jo"


def _identification(w: _Writer) -> None:
    doc = w.doc
    this = _frbr_this(doc)
    source = {"consolide": "#somebody", "jo": "#casemates", "code": "#" + doc.version_uri}[doc.style]
    w.add(3, f'<identification source="{source}">')
    author = f"{AUTHORITY}/legal-institution/{doc.institution}"
    for level, suffix in (("FRBRWork", ""), ("FRBRExpression", "/fr"), ("FRBRManifestation", "/fr/xml")):
        w.add(4, f"<{level}>")
        w.add(5, f'<FRBRthis value="{this}{suffix}"/>')
        w.add(5, '<FRBRuri value=""/>')
        w.add(5, f'<FRBRdate date="{doc.date_document}" name="document"/>')
        w.add(5, f'<FRBRauthor as="#author" href="{author if level == "FRBRWork" else ""}"/>')
        if level == "FRBRWork":
            w.add(5, f'<FRBRcountry value="{COUNTRY_LUX}"/>')
        if level == "FRBRExpression":
            w.add(5, f'<FRBRlanguage language="{LANGUAGE_FRA}"/>')
        w.add(4, f"</{level}>")
    _jolux_work(w, this, author)
    _jolux_expression(w, this)
    _jolux_manifestation(w, this)
    w.add(3, "</identification>")


def _jolux_work(w: _Writer, this: str, author: str) -> None:
    doc = w.doc
    w.add(4, "<scl:JOLUXWork>")
    w.add(5, "<scl:JOLUXComplexWork>")
    complex_work = doc.article_base if doc.style == "code" else doc.work_uri
    w.jolux(6, "uriThis", complex_work)
    w.add(5, "</scl:JOLUXComplexWork>")
    w.add(5, "<scl:JOLUXLegalResource>")
    w.jolux(6, "uriThis", this)
    if doc.style == "code":
        w.jolux(6, "isMemberOf", doc.work_uri)
        w.jolux(6, "typeDocument", f"{AUTHORITY}/resource-type/{doc.type_code}")
        w.jolux(6, "version", "1")
        w.jolux(6, "dateApplicability", doc.date_applicability)
        if doc.publication_date:
            w.jolux(6, "publicationDate", doc.publication_date)
        w.jolux(6, "responsibilityOf", author)
        w.rdf(6, "Code", "Consolidation", "Work", "LegalResource", "NationalLegalResource")
    else:
        if doc.publication_date:
            w.jolux(6, "publicationDate", doc.publication_date)
        w.jolux(6, "typeDocument", f"{AUTHORITY}/resource-type/{doc.type_code}")
        w.jolux(6, "dateDocument", doc.date_document)
        w.jolux(6, "isMemberOf", doc.work_uri)
        if doc.style == "consolide":
            w.jolux(6, "basicAct", doc.work_uri)
        w.jolux(6, "responsibilityOf", author)
        w.jolux(6, "dateApplicability", doc.date_applicability)
        w.jolux(6, "dateEntryInForce", doc.date_entry_into_force)
        if doc.memorial:
            w.jolux(6, "isPartOf", doc.memorial)
        kinds = ("Consolidation", "Act", "Work") if doc.style == "consolide" else ("Act",)
        w.rdf(6, *kinds, "LegalResource", "NationalLegalResource")
        if doc.style == "jo":
            w.rdf(6, "Work")
    w.add(5, "</scl:JOLUXLegalResource>")
    w.add(4, "</scl:JOLUXWork>")


def _jolux_expression(w: _Writer, this: str) -> None:
    doc = w.doc
    w.add(4, "<scl:JOLUXExpression>")
    w.jolux(5, "uriThis", this + "/fr")
    if doc.style == "jo":
        w.jolux(5, "isEmbodiedBy", this + "/fr/xml")
    else:
        w.jolux(5, "realizes", this)
    w.jolux(5, "language", LANGUAGE_FRA)
    w.jolux(5, "title", doc.title, lang=True)
    if doc.title_short:
        w.jolux(5, "titleShort", doc.title_short, lang=True)
    for cited in doc.cites:
        w.jolux(5, "cites", cited)
    w.add(4, "</scl:JOLUXExpression>")


def _jolux_manifestation(w: _Writer, this: str) -> None:
    doc = w.doc
    w.add(4, "<scl:JOLUXManifestation>")
    w.jolux(5, "uriThis", this + "/fr/xml")
    if doc.style != "jo":
        w.jolux(5, "embodies", this + "/fr")
    w.jolux(5, "rights", RIGHTS, lang=True)
    w.jolux(5, "userFormat", f"{AUTHORITY}/user-format/xml-akomantoso")
    w.jolux(5, "format", "http://publications.europa.eu/resource/authority/file-type/XML")
    file_name = this.replace(DATA + "/", "").replace("/", "-") + "-fr-xml.xml"
    w.jolux(5, "isExemplifiedBy", f"{DATA}/file/{file_name}")
    w.add(4, "</scl:JOLUXManifestation>")


def _sources(mods: tuple[PassiveMod, ...]) -> list[PassiveMod]:
    """The first modification of each distinct amending act, in order."""
    seen: dict[str, PassiveMod] = {}
    for mod in mods:
        seen.setdefault(mod.source, mod)
    return list(seen.values())


def _amendments(w: _Writer) -> None:
    doc = w.doc
    sources = _sources(doc.mods)
    rp = {mod.source: f"rp{i + 2}" for i, mod in enumerate(sources)}
    original = doc.work_uri.replace(DATA, "") + "/jo"
    w.add(3, '<lifecycle source="#">')
    w.add(4, f'<eventRef date="{doc.date_entry_into_force}" id="e1" originatingExpression="true" '
             'source="#ro1" type="generation"/>')
    for i, mod in enumerate(sources):
        w.add(4, f'<eventRef date="{mod.applies}" id="e{i + 2}" originatingExpression="true" '
                 f'source="#{rp[mod.source]}" type="amendment"/>')
    w.add(3, "</lifecycle>")
    w.add(3, '<analysis source="#">')
    w.add(4, "<passiveModifications>")
    for mod in doc.mods:
        w.add(5, f'<textualMod id="pm{mod.number}" incomplete="false" type="{mod.type}">')
        w.add(6, f'<source href="{mod.source}"/>')
        w.add(6, f'<destination href="#{mod.destination}"/>')
        w.add(5, "</textualMod>")
    w.add(4, "</passiveModifications>")
    w.add(3, "</analysis>")
    w.add(3, '<references source="#">')
    w.add(4, f'<original href="{original}" id="ro1" showAs="Original"/>')
    for mod in sources:
        w.add(4, f'<passiveRef href="{mod.source}" id="{rp[mod.source]}" showAs={quoteattr(mod.title)}/>')
    w.add(3, "</references>")
    for mod in doc.mods:
        w.add(3, f'<notes scl:type="modification" source="#{rp[mod.source]}">')
        w.add(4, f'<note id="M{mod.number}" marker="{mod.number}" refersTo="pm{mod.number}" '
                 f'title="{mod.journal}">')
        w.add(5, "<content>")
        w.add(6, f'<p><ref href="{DATA}{mod.source}">{_text(mod.title)}</ref></p>')
        w.add(5, "</content>")
        w.add(4, "</note>")
        w.add(3, "</notes>")


def _node(w: _Writer, node: Node, depth: int) -> None:
    if isinstance(node, Article):
        _article(w, node, depth)
        return
    _division(w, node, depth)


def _division(w: _Writer, div: Division, depth: int) -> None:
    w.add(depth, f'<{div.kind} id="{div.eid}">')
    w.add(depth + 1, f"<num>{_num_markup(div.num)}</num>")
    w.add(depth + 1, f'<heading scl:style-format="b">{_text(div.heading)}</heading>')
    for child in div.children:
        _node(w, child, depth + 1)
    w.add(depth, f"</{div.kind}>")


def _article(w: _Writer, art: Article, depth: int) -> None:
    doc = w.doc
    base = f"{doc.article_base}/{art.eid}"
    w.add(depth, f'<article id="{art.eid}">')
    w.add(depth + 1, "<scl:JOLUXWork>")
    w.add(depth + 2, "<scl:JOLUXComplexWork>")
    w.jolux(depth + 3, "uriThis", base)
    w.add(depth + 2, "</scl:JOLUXComplexWork>")
    w.add(depth + 2, "<scl:JOLUXLegalResource>")
    w.jolux(depth + 3, "uriThis", f"{base}/{compact(art.since)}")
    w.jolux(depth + 3, "isMemberOf", doc.work_uri)
    w.jolux(depth + 3, "title", art.num, lang=True)
    w.jolux(depth + 3, "dateApplicability", art.since)
    w.rdf(depth + 3, "Article")
    w.add(depth + 2, "</scl:JOLUXLegalResource>")
    w.add(depth + 1, "</scl:JOLUXWork>")
    if art.index_terms:
        w.add(depth + 1, "<scl:indexterms>")
        for term in art.index_terms:
            w.add(depth + 2, "<scl:indexterm>")
            w.add(depth + 3, f"<scl:label>{_text(term)}</scl:label>")
            w.add(depth + 2, "</scl:indexterm>")
        w.add(depth + 1, "</scl:indexterms>")
    marked = isinstance(art.changed_by, int) and doc.style != "code"
    start = f'<mod class="mod-start" for="#pm{art.changed_by}"/>' if marked else ""
    w.add(depth + 1, f"<num>{start}{_num_markup(art.num)}</num>")
    if art.heading:
        w.add(depth + 1, f"<heading>{_text(art.heading)}</heading>")
    end = f'<mod class="mod-end" for="#pm{art.changed_by}"/><noteRef href="#M{art.changed_by}" ' \
          f'marker="{art.changed_by}"/>' if marked else ""
    for i, block in enumerate(art.blocks):
        tail = end if i == len(art.blocks) - 1 else ""
        if block.num:
            number = re.sub(r"\D", "", block.num)
            w.add(depth + 1, f'<paragraph id="paragraph_{number}">')
            w.add(depth + 2, f"<num>{_text(block.num)}</num>")
            _alinea(w, block, depth + 2, tail)
            w.add(depth + 1, "</paragraph>")
        else:
            _alinea(w, block, depth + 1, tail)
    w.add(depth, "</article>")


def _alinea(w: _Writer, block: Block, depth: int, tail: str) -> None:
    w.add(depth, "<alinea>")
    w.add(depth + 1, "<content>")
    w.add(depth + 2, f"<p>{w.inline(block.text)}{'' if block.items else tail}</p>")
    if block.items:
        w.add(depth + 2, '<ol scl:start="1" scl:symbol="1°">')
        for j, item in enumerate(block.items):
            last = tail if j == len(block.items) - 1 else ""
            w.add(depth + 3, f"<li>{w.inline(item)}{last}</li>")
        w.add(depth + 2, "</ol>")
    w.add(depth + 1, "</content>")
    w.add(depth, "</alinea>")
