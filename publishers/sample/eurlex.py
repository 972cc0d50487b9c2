"""EUR-Lex bodies in the shapes Cellar serves: CONVEX XHTML (OJ original and consolidated)
and Formex 4 (``CONS.ACT`` main member plus its ``DOC`` descriptor).

- OJ original (``<lang>.xml``): ``<?xml`` declaration, XHTML DOCTYPE, CONVEX converter comment,
  ``eli-subdivision`` divs ``pbl_1``/``cit_N``/``rct_N``/``enc_1``/``art_N``/``fnp_1``, classes
  ``oj-doc-ti``, ``oj-ti-art``, ``oj-sti-art``, ``oj-normal``; paragraph numbers are followed by
  no-break spaces as in the Official Journal.
- Consolidated (``<lang>.html``: no declaration, starts with a newline): ``p.reference``,
  ``p.disclaimer``, the ►B/►M table of modifying acts, ``div.eli-subdivision#art_N`` with
  ``title-article-norm``/``stitle-article-norm``, ``div.norm`` + ``span.no-parag``, and
  ``p.modref`` ▼M links to the modifying act's CELEX resource inside amended articles.
- Formex 4: ``CONS.ACT`` with ``INFO.CONSLEG START.DATE`` = the version date, ``ARTICLE
  IDENTIFIER="001"``, ``TI.ART``/``STI.ART``, ``PARAG``/``NO.PARAG``/``ALINEA``, ``LIST``/``ITEM``,
  and ``<?CLG.MDFO …?>``/``<?CLG.MDFC …?>`` processing instructions around amended articles.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from legal.identifiers import CELEX_RESOURCE
from publishers.sample.model import Article, Block, Division, Inline, Node, Ref, det_uuid

XHTML_NS = "http://www.w3.org/1999/xhtml"
DOCTYPE = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML//EN" "xhtml-strict.dtd">'
NBSP = "\u00a0"
ONCLICK = "window.open(this.href,'_blank'); return false;"
FORMEX_SCHEMA = "http://formex.publications.europa.eu/schema/formex-05.56-20160701.xd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"

_WORDS = {
    "en": {"oj": "Official Journal of the European Union", "whereas": "Whereas:",
           "amended": "Amended by:", "consolidated": "Consolidated TEXT"},
    "fr": {"oj": "Journal officiel de l’Union européenne", "whereas": "considérant ce qui suit:",
           "amended": "Modifié par:", "consolidated": "Texte consolidé"},
}

DISCLAIMER = {
    "en": "This text is a demonstration written for the lex-evidence sample corpus. It is not a "
          "consolidated text of the Publications Office and has no legal effect; no Union act "
          "bears this number.",
    "fr": "Ce texte est une démonstration rédigée pour le corpus d’exemple de lex-evidence. Ce n’est "
          "pas un texte consolidé de l’Office des publications et il n’a aucun effet juridique; "
          "aucun acte de l’Union ne porte ce numéro.",
}


@dataclass(frozen=True)
class Amender:
    """A modifying act listed in a consolidation (►M1, ►M2 …)."""

    label: str
    celex: str
    title: str
    oj: str
    page: str
    date: str


@dataclass(frozen=True)
class EuText:
    """One language of one act state: title, preamble, enacting terms, final formula."""

    lang: str
    title_lines: tuple[str, ...]
    preamble: tuple[str, ...]
    recitals: tuple[str, ...]
    adopted: str
    body: tuple[Node, ...]
    final: tuple[str, ...]
    signature: tuple[str, ...]


@dataclass(frozen=True)
class OjRef:
    """Where the original act was published: ``L 901``, page 1, 3.4.2018 (ISO date too)."""

    series: str
    number: str
    date: str
    iso: str

    @property
    def header(self) -> str:
        return f"{self.series} {self.number}/1"


def _t(text: str) -> str:
    return escape(text)


def _a(href: str, text: str, title: str) -> str:
    return f"<a href={quoteattr(href)} onclick={quoteattr(ONCLICK)} title={quoteattr(title)}>{_t(text)}</a>"


def _markers(count: int) -> list[str]:
    return [f"({string.ascii_lowercase[i]})" for i in range(count)]


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ids = 0

    def add(self, depth: int, text: str) -> None:
        self.lines.append("   " * depth + text)

    def next_id(self) -> int:
        self.ids += 1
        return self.ids


# --------------------------------------------------------------------------- OJ original


def render_original(celex: str, text: EuText, oj: OjRef) -> bytes:
    """The Official Journal CONVEX XHTML of an original act (stored as ``<lang>.xml``)."""
    lang = text.lang.upper()
    file_title = f"{oj.series}_{oj.iso[:4]}{oj.number}{lang}.01000101.xml"
    w = _Lines()
    w.lines += ['<?xml version="1.0" encoding="UTF-8"?>', DOCTYPE, f'<html xmlns="{XHTML_NS}">',
                "<!-- CONVEX # converter_version:9.15.0 # generated_on:20240314-0743 # ELI version:0.10 -->",
                "<head>"]
    w.add(1, '<meta http-equiv="content-type" content="text/html; charset=utf-8"/>')
    w.add(1, '<link type="text/css" rel="stylesheet" href="oj-convex.css"/>')
    w.add(1, f"<title>{file_title}</title>")
    w.lines += ["</head>", "<body>"]
    _oj_header(w, text.lang, oj)
    w.add(1, '<hr class="oj-separator"/>')
    w.add(1, '<div class="eli-container">')
    w.add(2, '<div class="eli-main-title" id="tit_1">')
    for i, line in enumerate(text.title_lines):
        ident = f' id="d1e{40 + i}-1-1"' if i == 0 else ""
        w.add(3, f'<p class="oj-doc-ti"{ident}>{_t(line)}</p>')
    w.add(2, "</div>")
    _oj_preamble(w, text)
    w.add(2, '<div class="eli-subdivision" id="enc_1">')
    for node in text.body:
        _oj_node(w, node, 3)
    w.add(2, "</div>")
    w.add(2, '<div class="eli-subdivision" id="fnp_1">')
    w.add(3, '<div class="oj-final">')
    for line in text.final:
        w.add(4, f'<p class="oj-normal">{_t(line)}</p>')
    w.add(4, '<div class="oj-signatory">')
    for line in text.signature:
        w.add(5, f'<p class="oj-signatory">{_t(line)}</p>')
    w.add(4, "</div>")
    w.add(3, "</div>")
    w.add(2, "</div>")
    w.add(1, "</div>")
    w.add(1, '<hr class="oj-doc-end"/>')
    w.lines += ["</body>", "</html>", ""]
    return "\n".join(w.lines).encode("utf-8")


def _oj_header(w: _Lines, lang: str, oj: OjRef) -> None:
    w.add(1, '<table width="100%" border="0" cellspacing="0" cellpadding="0">')
    for width in ("10%", "10%", "60%", "20%"):
        w.add(2, f'<col width="{width}"/>')
    w.add(2, "<tbody>")
    w.add(3, "<tr>")
    cells = (("oj-hd-date", oj.date + NBSP * 3), ("oj-hd-lg", lang.upper()),
             ("oj-hd-ti", _WORDS[lang]["oj"]), ("oj-hd-oj", oj.header))
    for css, value in cells:
        w.add(4, "<td>")
        w.add(5, f'<p class="{css}">{_t(value)}</p>')
        w.add(4, "</td>")
    w.add(3, "</tr>")
    w.add(2, "</tbody>")
    w.add(1, "</table>")


def _oj_preamble(w: _Lines, text: EuText) -> None:
    w.add(2, '<div class="eli-subdivision" id="pbl_1">')
    w.add(3, f'<p class="oj-normal">{_t(text.preamble[0])}</p>')
    for i, citation in enumerate(text.preamble[1:], start=1):
        w.add(3, f'<div class="eli-subdivision" id="cit_{i}">')
        w.add(4, f'<p class="oj-normal">{_t(citation)}</p>')
        w.add(3, "</div>")
    w.add(3, f'<p class="oj-normal">{_WORDS[text.lang]["whereas"]}</p>')
    for i, recital in enumerate(text.recitals, start=1):
        w.add(3, f'<div class="eli-subdivision" id="rct_{i}">')
        _oj_grid(w, 4, f"({i})", _t(recital))
        w.add(3, "</div>")
    w.add(3, f'<p class="oj-normal">{_t(text.adopted)}</p>')
    w.add(2, "</div>")


def _oj_grid(w: _Lines, depth: int, marker: str, body: str) -> None:
    w.add(depth, '<table width="100%" border="0" cellspacing="0" cellpadding="0">')
    w.add(depth + 1, '<col width="4%"/>')
    w.add(depth + 1, '<col width="96%"/>')
    w.add(depth + 1, "<tbody>")
    w.add(depth + 2, "<tr>")
    w.add(depth + 3, '<td valign="top">')
    w.add(depth + 4, f'<p class="oj-normal">{_t(marker)}</p>')
    w.add(depth + 3, "</td>")
    w.add(depth + 3, '<td valign="top">')
    w.add(depth + 4, f'<p class="oj-normal">{body}</p>')
    w.add(depth + 3, "</td>")
    w.add(depth + 2, "</tr>")
    w.add(depth + 1, "</tbody>")
    w.add(depth, "</table>")


def _inline(parts: tuple[Inline, ...]) -> str:
    out: list[str] = []
    for part in parts:
        if isinstance(part, Ref):
            out.append(f"<a href={quoteattr(part.href)}>{_t(part.text)}</a>")
        else:
            out.append(_t(part))
    return "".join(out)


def _oj_node(w: _Lines, node: Node, depth: int) -> None:
    if isinstance(node, Division):
        w.add(depth, f'<div id="{node.eid}">')
        w.add(depth + 1, f'<p id="d1e{100 + w.next_id()}-1-1" class="oj-ti-section-1">'
                         f'<span class="oj-italic">{_t(node.num)}</span></p>')
        w.add(depth + 1, f'<div class="eli-title" id="{node.eid}.tit_1">')
        w.add(depth + 2, f'<p class="oj-ti-section-2"><span class="oj-bold">{_t(node.heading)}</span></p>')
        w.add(depth + 1, "</div>")
        for child in node.children:
            _oj_node(w, child, depth + 1)
        w.add(depth, "</div>")
        return
    art = node
    number = int(art.eid.split("_")[1])
    w.add(depth, f'<div class="eli-subdivision" id="{art.eid}">')
    w.add(depth + 1, f'<p id="d1e{100 + w.next_id()}-1-1" class="oj-ti-art">{_t(art.num)}</p>')
    if art.heading:
        w.add(depth + 1, f'<div class="eli-title" id="{art.eid}.tit_1">')
        w.add(depth + 2, f'<p class="oj-sti-art">{_t(art.heading)}</p>')
        w.add(depth + 1, "</div>")
    for i, block in enumerate(art.blocks, start=1):
        if block.num:
            w.add(depth + 1, f'<div id="{number:03d}.{i:03d}">')
            w.add(depth + 2, f'<p class="oj-normal">{_t(block.num)}{NBSP * 3}{_inline(block.text)}</p>')
            _oj_items(w, depth + 2, block)
            w.add(depth + 1, "</div>")
        else:
            w.add(depth + 1, f'<p class="oj-normal">{_inline(block.text)}</p>')
            _oj_items(w, depth + 1, block)
    w.add(depth, "</div>")


def _oj_items(w: _Lines, depth: int, block: Block) -> None:
    for marker, item in zip(_markers(len(block.items)), block.items, strict=True):
        _oj_grid(w, depth, marker, _inline(item))


# --------------------------------------------------------------------------- consolidated


@dataclass(frozen=True)
class Consolidation:
    """What a consolidated state adds to the act: its date, production number, modifying acts."""

    celex: str
    date: str
    prod_seq: str
    oj: OjRef
    amenders: tuple[Amender, ...] = ()
    cellar: str = ""

    @property
    def consolidated_celex(self) -> str:
        return f"0{self.celex[1:]}-{self.date.replace('-', '')}"

    def dotted_date(self) -> str:
        y, m, d = self.date.split("-")
        return f"{d}.{m}.{y}"


def render_consolidated(cons: Consolidation, text: EuText) -> bytes:
    """The consolidated CONVEX XHTML of one state (no declaration: stored as ``<lang>.html``)."""
    lang = text.lang.upper()
    base = CELEX_RESOURCE + cons.celex
    w = _Lines()
    w.lines += ["", DOCTYPE, f'<html xmlns="{XHTML_NS}">',
                "<!-- CONVEX # converter_version:9.17.0 # generated_on:20250320-1508 -->", "<head>"]
    w.add(1, '<meta http-equiv="Content-Type" content="text/html; charset=utf-8"/>')
    w.add(1, f"<title>{_WORDS[text.lang]['consolidated']}: {cons.celex} — {lang} — {cons.dotted_date()}</title>")
    w.add(1, '<link type="text/css" rel="stylesheet" '
             'href="http://publications.europa.eu/resource/presentation-style-sheet/clg/clg.css"/>')
    w.lines += ["</head>", "<body>"]
    seq = ".".join(cons.prod_seq.split(".")[:2])
    w.add(1, f'<p class="reference">{cons.consolidated_celex[:10]} — {lang} — {cons.dotted_date()} — {seq}</p>')
    w.add(1, '<hr class="separator"/>')
    w.add(1, f'<p class="disclaimer">{_t(DISCLAIMER[text.lang])}</p>')
    _cons_masthead(w, cons, text, base)
    if cons.amenders:
        _cons_amenders(w, cons, text.lang)
    w.add(1, '<hr class="separator"/>')
    w.add(1, '<div class="eli-container">')
    w.add(2, f'<p class="arrow">{_a(base, "▼B", cons.celex)}</p>')
    w.add(2, '<div class="eli-main-title" id="tit_1">')
    for i, line in enumerate(text.title_lines):
        css = "title-doc-last" if i == len(text.title_lines) - 1 else "title-doc-first"
        w.add(3, f'<p class="{css}" id="id-{det_uuid(cons.consolidated_celex, lang, "tit", str(i))}">{_t(line)}</p>')
    w.add(2, "</div>")
    w.add(2, '<div class="eli-subdivision" id="enc_1">')
    for node in text.body:
        _cons_node(w, node, 3, cons, lang)
    w.add(2, "</div>")
    w.add(2, '<div class="eli-subdivision" id="fnp_1">')
    for line in text.final:
        w.add(3, f'<p class="norm">{_t(line)}</p>')
    w.add(2, "</div>")
    w.add(1, "</div>")
    w.lines += ["</body>", "</html>", ""]
    return "\n".join(w.lines).encode("utf-8")


def _cons_masthead(w: _Lines, cons: Consolidation, text: EuText, base: str) -> None:
    w.add(1, '<table width="100%" border="0" cellspacing="5" cellpadding="0">')
    w.add(2, '<col width="5%"/>')
    w.add(2, '<col width="95%"/>')
    w.add(2, "<tr>")
    w.add(3, '<td valign="top">')
    w.add(4, f'<p class="arrow">{_a(base, "►B", cons.celex)}</p>')
    w.add(3, "</td>")
    w.add(3, '<td valign="top">')
    for line in text.title_lines:
        w.add(4, f'<p class="title-doc-first">{_t(line)}</p>')
    ref = f"(OJ {cons.oj.series} {cons.oj.number} {cons.oj.date}, p. 1)"
    if text.lang == "fr":
        ref = f"(JO {cons.oj.series} {cons.oj.number} du {cons.oj.date}, p. 1)"
    w.add(4, f'<p class="title-doc-oj-reference">{_t(ref)}</p>')
    w.add(3, "</td>")
    w.add(2, "</tr>")
    w.add(1, "</table>")


def _cons_amenders(w: _Lines, cons: Consolidation, lang: str) -> None:
    w.add(1, f'<p class="hd-modifiers">{_WORDS[lang]["amended"]}</p>')
    w.add(1, '<table width="100%" border="0" cellspacing="5" cellpadding="0">')
    for width in ("10%", "55%", "10%", "10%", "15%"):
        w.add(2, f'<col width="{width}"/>')
    for amender in cons.amenders:
        href = CELEX_RESOURCE + amender.celex
        w.add(2, "<tr>")
        w.add(3, '<td valign="top">')
        w.add(4, f'<p class="arrow">{_a(href, "►" + amender.label, amender.celex)}</p>')
        w.add(3, "</td>")
        w.add(3, '<td valign="top">')
        w.add(4, f'<p class="title-fam-member">{_a(href, amender.title, amender.celex)}</p>')
        w.add(3, "</td>")
        for css, value in (("toc-1", amender.oj), ("toc-2", amender.page), ("toc-2", amender.date)):
            w.add(3, '<td valign="top">')
            w.add(4, f'<p class="{css}">{_t(value)}</p>')
            w.add(3, "</td>")
        w.add(2, "</tr>")
    w.add(1, "</table>")


def _cons_node(w: _Lines, node: Node, depth: int, cons: Consolidation, lang: str) -> None:
    uid = det_uuid(cons.consolidated_celex, lang, node.eid)
    if isinstance(node, Division):
        w.add(depth, f'<div id="{node.eid}">')
        w.add(depth + 1, f'<p class="title-division-1" id="id-{uid}"><span class="italics">{_t(node.num)}</span></p>')
        w.add(depth + 1, f'<p class="title-division-2"><span class="boldface">{_t(node.heading)}</span></p>')
        for child in node.children:
            _cons_node(w, child, depth + 1, cons, lang)
        w.add(depth, "</div>")
        return
    art = node
    w.add(depth, f'<div class="eli-subdivision" id="{art.eid}">')
    w.add(depth + 1, f'<p class="title-article-norm" id="id-{uid}">{_t(art.num)}</p>')
    if art.heading:
        w.add(depth + 1, f'<div class="eli-title" id="{art.eid}.tit_1">')
        w.add(depth + 2, f'<p class="stitle-article-norm">{_t(art.heading)}</p>')
        w.add(depth + 1, "</div>")
    amender = _amender_of(art, cons)
    if amender is not None:
        href = CELEX_RESOURCE + amender.celex
        w.add(depth + 1, f'<p class="modref">{_a(href, "▼" + amender.label, amender.celex + ": REPLACED")}</p>')
    for block in art.blocks:
        if block.num:
            w.add(depth + 1, '<div class="norm">')
            w.add(depth + 2, f'<span class="no-parag">{_t(block.num)}{NBSP * 2}</span>')
            if block.items:
                w.add(depth + 2, '<div class="norm inline-element">')
                w.add(depth + 3, f'<p class="norm inline-element">{_inline(block.text)}</p>')
                _cons_items(w, depth + 3, block)
                w.add(depth + 2, "</div>")
            else:
                w.add(depth + 2, f'<div class="norm inline-element">{_inline(block.text)}</div>')
            w.add(depth + 1, "</div>")
        else:
            w.add(depth + 1, f'<p class="norm">{_inline(block.text)}</p>')
            _cons_items(w, depth + 1, block)
    w.add(depth, "</div>")


def _amender_of(art: Article, cons: Consolidation) -> Amender | None:
    if not isinstance(art.changed_by, str):
        return None
    for amender in cons.amenders:
        if amender.celex == art.changed_by:
            return amender
    raise ValueError(f"{art.eid}: modifying act {art.changed_by} is not listed in {cons.consolidated_celex}")


def _cons_items(w: _Lines, depth: int, block: Block) -> None:
    for marker, item in zip(_markers(len(block.items)), block.items, strict=True):
        w.add(depth, '<div class="grid-container grid-list">')
        w.add(depth + 1, '<div class="list grid-list-column-1">')
        w.add(depth + 2, f"<span>{marker} </span>")
        w.add(depth + 1, "</div>")
        w.add(depth + 1, '<div class="grid-list-column-2">')
        w.add(depth + 2, f'<p class="norm">{_inline(item)}</p>')
        w.add(depth + 1, "</div>")
        w.add(depth, "</div>")


# --------------------------------------------------------------------------- Formex 4


def formex_names(cons: Consolidation, lang: str) -> tuple[str, str]:
    """``(main, descriptor)`` member names: ``CL2018R9901EN0000010.0001.xml`` and ``….doc.xml``."""
    celex = cons.celex
    stem = f"CL{celex[1:5]}{celex[5]}{celex[6:10]}{lang.upper()}{cons.prod_seq.replace('.', '')}.0001"
    return f"{stem}.xml", f"{stem}.doc.xml"


def _date_el(iso: str) -> str:
    compact = iso.replace("-", "")
    return f'<DATE ISO="{compact}">{compact}</DATE>'


def render_formex_doc(cons: Consolidation, text: EuText, legal_value: str, document_date: str) -> bytes:
    """The Formex ``DOC`` descriptor member (``….doc.xml``): OJ issue, CELEX, document date."""
    main, _ = formex_names(cons, text.lang)
    lang = text.lang.upper()
    title = " ".join(text.title_lines)
    out = (
        f'<?xml version="1.0" encoding="utf-8"?><DOC xmlns:xsi="{XSI}" xsi:noNamespaceSchemaLocation="{FORMEX_SCHEMA}">'
        f'<PUBLICATION.REF FILE="NA"><COLL>{cons.oj.series}</COLL><NO.OJ>{cons.oj.number}</NO.OJ>'
        f"{_date_el(cons.oj.iso)}<LG.OJ>{lang}</LG.OJ></PUBLICATION.REF>"
        f'<FMX><DOC.MAIN.PUB NO.SEQ="0001" SYNOPTISM="D0001"><LG.DOC>{lang}</LG.DOC>'
        f"<LEGAL.VALUE>{legal_value}</LEGAL.VALUE><NO.CELEX>{cons.celex}</NO.CELEX>{_date_el(document_date)}"
        "<PAGE.FIRST>1</PAGE.FIRST><PAGE.LAST>3</PAGE.LAST><PAGE.TOTAL>3</PAGE.TOTAL><PAGE.SEQ>1</PAGE.SEQ>"
        f'<REF.PHYS FILE="{main}" TYPE="DOC.XML"/></DOC.MAIN.PUB></FMX>'
        f'<PAPER><VOLUME.PAPER><ITEM.VOLUME REF.NO.SEQ="0001"><TITLE ID.TITLE="T0001"><TI><P>{_t(title)}</P></TI>'
        "</TITLE></ITEM.VOLUME></VOLUME.PAPER></PAPER>"
        f'<PDF><ITEM.VOLUME REF.NO.SEQ="0001"><TITLE REF.TITLE="T0001"/>'
        f'<ITEM.REF REF.PDF="{main[:-4]}.pdf">1</ITEM.REF></ITEM.VOLUME></PDF></DOC>'
    )
    return out.encode("utf-8")


def render_formex_main(cons: Consolidation, text: EuText, legal_value: str, document_date: str) -> bytes:
    """The Formex ``CONS.ACT`` main member: ``INFO.CONSLEG START.DATE`` is the version date."""
    _, doc_name = formex_names(cons, text.lang)
    lang = text.lang.upper()
    start = cons.date.replace("-", "")
    ref = cons.celex[1:]
    title = "".join(f"<P>{_t(line)}</P>" for line in text.title_lines)
    amends = "".join(
        f'<MOD.ACT EXISTS="YES" LEG.VAL="{_legal_value(a.celex)}" TYPE="MOD"><BIB.DATA>'
        f"<NO.CELEX>{a.celex}</NO.CELEX><TITLE><TI><P>{_t(a.title)}</P></TI></TITLE></BIB.DATA></MOD.ACT>"
        for a in cons.amenders
    )
    body = "".join(_fmx_node(node, cons) for node in text.body)
    out = (
        f'<?xml version="1.0" encoding="utf-8"?><CONS.ACT xmlns:fmx="{XSI}" xmlns:xsi="{XSI}" '
        f'xsi:noNamespaceSchemaLocation="{FORMEX_SCHEMA}">'
        f'<INFO.CONSLEG CONSLEG.REF="{ref}" CONSLEG.DATE="{start}" DATE.LAST.MOD="{start}" '
        f'PROD.SEQ="{cons.prod_seq}" START.DATE="{start}" END.DATE="99999999" END="NONE" LEG.VAL="{legal_value}"/>'
        f'<INFO.PROD PRODUCER="ES" PROD.SYSTEM="CONSLEG.NEW" PROD.DATE="{start}"/>'
        f'<CONS.DOC><BIB.INSTANCE><DOCUMENT.REF FILE="{doc_name}"><LG.OJ>{lang}</LG.OJ><PAGE.FIRST>1</PAGE.FIRST>'
        f"</DOCUMENT.REF>{_date_el(cons.date)}<LG.DOC>{lang}</LG.DOC><PAGE.FIRST>1</PAGE.FIRST>"
        "<PAGE.SEQ>1</PAGE.SEQ><PAGE.LAST>3</PAGE.LAST><PAGE.TOTAL>3</PAGE.TOTAL></BIB.INSTANCE>"
        f'<FAM.COMP LEG.VAL="{legal_value}"><BIB.DATA><BIB.INSTANCE.CONS><DOCUMENT.REF.CONS>'
        f"<COLL>{cons.oj.series}</COLL><NO.OJ>{cons.oj.number}</NO.OJ><YEAR>{cons.oj.iso[:4]}</YEAR>"
        f"<LG.OJ>{lang}</LG.OJ><PAGE.FIRST>1</PAGE.FIRST><PAGE.SEQ>1</PAGE.SEQ><VOLUME.REF>01</VOLUME.REF>"
        f"</DOCUMENT.REF.CONS>{_date_el(cons.oj.iso)}<LG.DOC>{lang}</LG.DOC><NO.SEQ>0001</NO.SEQ>"
        "</BIB.INSTANCE.CONS>"
        f"<NO.CELEX>{cons.celex}</NO.CELEX>{_date_el(document_date)}<TITLE><TI>{title}</TI></TITLE></BIB.DATA>"
        f"{'<GR.MOD.ACT>' + amends + '</GR.MOD.ACT>' if amends else ''}</FAM.COMP>"
        f"<TITLE><TI>{title}</TI></TITLE><PREAMBLE><PREAMBLE.INIT/><PREAMBLE.FINAL/></PREAMBLE>"
        f"<ENACTING.TERMS>{body}</ENACTING.TERMS>"
        f"<FINAL>{''.join(f'<P>{_t(line)}</P>' for line in text.final[:1])}</FINAL></CONS.DOC></CONS.ACT>"
    )
    return out.encode("utf-8")


def _legal_value(celex: str) -> str:
    return {"R": "REG", "L": "DIR", "D": "DEC"}.get(celex[5], "OTHER")


def _fmx_inline(parts: tuple[Inline, ...]) -> str:
    return "".join(_t(part.text) if isinstance(part, Ref) else _t(part) for part in parts)


def _fmx_node(node: Node, cons: Consolidation) -> str:
    if isinstance(node, Division):
        inner = "".join(_fmx_node(child, cons) for child in node.children)
        return (f'<DIVISION><TITLE><TI><P><HT TYPE="ITALIC">{_t(node.num)}</HT></P></TI>'
                f'<STI><P><HT TYPE="BOLD">{_t(node.heading)}</HT></P></STI></TITLE>{inner}</DIVISION>')
    art = node
    number = int(art.eid.split("_")[1])
    parts = [f'<ARTICLE IDENTIFIER="{number:03d}"><TI.ART>{_t(art.num)}</TI.ART>']
    if art.heading:
        parts.append(f"<STI.ART>{_t(art.heading)}</STI.ART>")
    for i, block in enumerate(art.blocks, start=1):
        alinea = _fmx_alinea(block)
        if block.num:
            parts.append(f'<PARAG IDENTIFIER="{number:03d}.{i:03d}"><NO.PARAG>{_t(block.num)}</NO.PARAG>'
                         f"{alinea}</PARAG>")
        else:
            parts.append(alinea)
    parts.append("</ARTICLE>")
    article = "".join(parts)
    amender = _amender_of(art, cons)
    if amender is None:
        return article
    mark = f"{number:03d}{amender.label[1:]:0>3}"
    return (f'<?CLG.MDFO ID="O{mark}M001000" IDREF="C{mark}M001000" ACTION="REPLACED" LEVEL="STRUCTURE" '
            f'COMMAND="EXPLICIT" ACTIVE.DOC="{amender.celex}" ACTIVE.LOC="AR:{number}" MOD.LEVEL="1"?>'
            f'{article}<?CLG.MDFC ID="C{mark}M001000" IDREF="O{mark}M001000"?>')


def _fmx_alinea(block: Block) -> str:
    text = _fmx_inline(block.text)
    if not block.items:
        return f"<ALINEA>{text}</ALINEA>"
    items = "".join(
        f"<ITEM><NP><NO.P>{marker}</NO.P><TXT>{_fmx_inline(item)}</TXT></NP></ITEM>"
        for marker, item in zip(_markers(len(block.items)), block.items, strict=True)
    )
    return f'<ALINEA><P>{text}</P><LIST TYPE="alpha">{items}</LIST></ALINEA>'
