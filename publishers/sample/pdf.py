"""A minimal born-digital PDF (one page, Helvetica, WinAnsi text), written byte for byte.

Legilux offers consolidated PDFs (``fr.pdf/<file>.pdf``, observation ``format: "pdf"``) when no
XML exists. The sample needs one such body; this writer produces a valid, deterministic PDF 1.4
(no timestamps, no document id) whose text layer reads line by line.
"""

from __future__ import annotations

_PAGE_TOP = 800
_LEADING = 15
_MARGIN = 56


def _pdf_string(text: str) -> bytes:
    raw = text.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def render_pdf(lines: tuple[str, ...], title: str) -> bytes:
    """One A4 page showing ``lines`` top to bottom; ``title`` goes into the document info."""
    content = bytearray(b"BT\n/F1 10 Tf\n%d TL\n%d %d Td\n" % (_LEADING, _MARGIN, _PAGE_TOP))
    for i, line in enumerate(lines):
        if i:
            content += b"T*\n"
        content += _pdf_string(line) + b" Tj\n"
    content += b"ET\n"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(content) + bytes(content) + b"endstream",
        b"<< /Title " + _pdf_string(title) + b" /Producer (lex-evidence sample generator) >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets: list[int] = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)
