"""An act asked by its form: the shapes whose absence the corpus can tell (issue #15, nohit25).

A question that opens with an act's form and a link word and says its subject ("directive sur les
emballages", "règlement relatif aux produits cosmétiques", "regulation on novel foods") asks for one
act of that form; a French popular name after « loi » ("loi Sapin II
lutte contre la corruption") asks for one statute. When no act of the form is named by the subject's
specific words, the act is not held, and the acts whose texts hold those words by chance are not it
(``serve.core.ops.search.form_subject_not_held``, docs/adr/0052).

A statute asked by its subject after « loi » or "law" and a link word ("loi sur le séparatisme", "law on
the metaverse", nohit26) asks for one act of any form: a Luxembourg statute, a code that holds the
statute's rules, or an EU act a user calls a law ("loi sur l'intelligence artificielle"); an English
question's words are matched through their French terms too (Luxembourg's names are French), and a
word the lexicon does not translate leaves the question to the lanes (docs/adr/0060).

A popular name written as a sigle ("loi PACTE …": :func:`is_acronym`) is held only by a name writing
the same capitals, not by one holding the common noun it spells (« Pacte logement »; nohit27,
docs/adr/0066).

A popular name of two nouns joined by « et » (« loi Climat et résilience ») is held only by a name holding
both (``FormSubject.coordinated``); a popular name's number, digits or a roman numeral ("Rome III"), is part
of the name (:func:`is_name_number`; nohit28, docs/adr/0075).

German questions ("Richtlinie über …", "Verordnung über …", "Gesetz über …") are not read: the acts'
names are held in French and English, and the cross-language lexicon gives a German word one or two of
its French terms (« Gebäude » → « immeuble », where the names say « bâtiments »), so a name silent on those terms
does not show the act is absent (ADR 0052, "German questions"). One exception, read by
``serve.core.ops.search.compounds_not_held``: a compound held nowhere whose parts the lexicon translates
(:func:`compound_terms`), when those terms stand together in no name and no act's texts (ADR 0075).

Pure: these functions read only the query's words (and, for an English statute question, the
cross-language lexicon, loaded once).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from derive.index import relax, xlang
from derive.index.text import normalize
from serve.core.searchplan import LUXEMBOURG_WORDS, SUBJECT_FORMS, SUBJECT_LINKS

#: The forms whose subject question this module reads, and the publisher document types an act of
#: each form has: a directive is a directive of the EU (basic, delegated or implementing); a
#: regulation (« règlement », "regulation") is the EU's or Luxembourg's (a « règlement grand-ducal »
#: or « ministériel » is one too). A statute's popular name is a statute's (« loi »); a statute asked by
#: its subject (:data:`LAW`) may be any act (:func:`form_subject`).
FORM_DOCUMENT_TYPES: dict[str, frozenset[str]] = {
    "directive": frozenset({"DIR", "DIR_DEL", "DIR_IMPL"}),
    "regulation": frozenset({"REG", "REG_DEL", "REG_IMPL", "RGD", "RMIN"}),
    "law": frozenset({"LOI"}),
}
#: The words that open a form + subject question, and the form each stands for (French and English
#: only: see the module's note on German questions).
SUBJECT_OPENERS = {"directive": "directive", "reglement": "regulation", "regulation": "regulation"}
#: The form of a statute asked by its subject ("loi sur …", "law on …"): an act of any document type.
LAW = "law"
#: The words that open a statute's subject question, and the question's language (« loi » also opens
#: a popular name: :func:`popular_law_name`).
LAW_OPENERS = {"loi": "fr", "law": "en"}


@dataclass(frozen=True)
class FormSubject:
    """A question naming one act by its form (``form``, a key of :data:`FORM_DOCUMENT_TYPES`) and
    its subject's content words (``words``); ``popular``: the words are a statute's popular name
    ("loi Sapin II": ``("sapin",)``); ``terms``: for a statute asked by its subject (:data:`LAW`), per
    word the forms the names may hold it in — the word and, for an English question, its French terms
    from the cross-language lexicon (``()`` for an English word the lexicon does not translate);
    ``language``: the statute question's language (``"fr"``, ``"en"``), empty for a form's;
    ``acronym``: a popular name's first word is written in capitals (« loi PACTE »): a sigle, which
    only a name writing the same letters in capitals holds (:func:`is_acronym`); ``coordinated``: a
    popular name of two nouns joined by « et » (:func:`popular_law_name`)."""
    form: str
    words: tuple[str, ...]
    popular: bool = False
    terms: tuple[tuple[str, ...], ...] = ()
    language: str = ""
    acronym: bool = False
    #: A popular name of two nouns joined by « et » (« loi Climat et résilience », « loi Informatique et
    #: Libertés »): ``words`` holds both, and the name is held only by a name holding both (nohit28).
    coordinated: bool = False


#: A word of at least this many letters written all in capitals is a sigle (« PACTE », « ALUR »,
#: « SICAR »): a two-letter word in capitals is as often a roman numeral or a country code ("II", "UE").
ACRONYM_MIN_LETTERS = 3


def is_acronym(raw_word: str) -> bool:
    """Whether ``raw_word`` (as the user wrote it) is a sigle: at least :data:`ACRONYM_MIN_LETTERS`
    letters, every letter a capital (« PACTE », "SICAR"; not « Pacte », not "II"). French and
    English typography write a sigle in capitals and the common noun it may spell in lower case:
    « PACTE » (Plan d'action pour la croissance et la transformation des entreprises) is not the
    « pacte » of « Pacte logement ». Pure."""
    letters = [c for c in raw_word if c.isalpha()]
    return len(letters) >= ACRONYM_MIN_LETTERS and all(c.isupper() for c in letters)


#: A roman numeral of two letters or more, normalised ("ii", "iii", "iv", "vi" …): a series name's
#: number ("Rome III", "Dublin III", "Solvency II"). A one-letter "i", "v" or "x" is as often a
#: letter or a list mark as a number, so it is not read as one.
_ROMAN_NUMERAL = re.compile(r"(?=[ivx]{2})x{0,3}(?:ix|iv|v?i{0,3})")


def is_name_number(word: str) -> bool:
    """Whether a normalised word of a popular name is the name's number: digits ("Euro 7") or a roman
    numeral of two letters or more ("Rome III", "Seveso III"). EU private-law and asylum
    instruments are a series told apart by that number alone — "Rome I" (Regulation 593/2008, the law
    applicable to contracts), "Rome II" (864/2007, non-contractual obligations), "Rome III"
    (1259/2010, divorce); "Dublin II" and "Dublin III" — so the word before it with another number
    names another act: the name's word and its number are one phrase (nohit28, docs/adr/0075). Pure."""
    return word.isdigit() or _ROMAN_NUMERAL.fullmatch(word) is not None


def form_subject(raw: str) -> FormSubject | None:
    """The form + subject shape of a query, or ``None``:

    - an EU act's form in French or English (:data:`SUBJECT_OPENERS`), a link word (« sur »,
      « relatif », "on" …),
      then at least one content word, no digit (a numbered or dated act is named otherwise), no
      second act form (two acts compared) and no word naming Luxembourg;
    - « loi » followed by a capitalised word that is no stop word, no digit in the query: a
      popular name ("loi Sapin II …", "loi Hamon …"), the capitalised run after « loi » as words;
    - « loi » or "(the) law", a link word and a subject under the same conditions as a form's: a
      statute asked by its subject (:data:`LAW`, :func:`law_terms`).
    """
    words = normalize(raw).split()
    if words[:2] == ["the", "law"]:
        words = words[1:]
    if len(words) < 2 or any(c.isdigit() for c in raw):
        return None
    if words[0] == "loi" and words[1] not in SUBJECT_LINKS:
        return popular_law_name(raw.split())
    form = LAW if words[0] in LAW_OPENERS else SUBJECT_OPENERS.get(words[0])
    if form is None or words[1] not in SUBJECT_LINKS:
        return None
    subject = tuple(w for w in words[2:] if not relax.relaxable(w) and w not in SUBJECT_LINKS)
    if not subject or set(subject) & (SUBJECT_FORMS | LUXEMBOURG_WORDS):
        return None
    if form == LAW:
        language = LAW_OPENERS[words[0]]
        return FormSubject(form, subject, terms=law_terms(subject, language), language=language)
    return FormSubject(form, subject)


def law_terms(words: Sequence[str], language: str) -> tuple[tuple[str, ...], ...]:
    """Per subject word of a statute's question in ``language``, the forms the acts' names may hold it
    in: a French word itself; an English word itself (the EU's English titles) and its French terms
    (the cross-language lexicon, normalised: Luxembourg's names are French), or ``()`` when the lexicon
    has none — then no name can show the word absent ("abortion": the Luxembourg statute says
    « avortement »). Pure (the lexicon is read once, on first use)."""
    if language == "fr":
        return tuple((w,) for w in words)
    lexicon = xlang.lexicon(language)
    found = [lexicon.lookup(w, language) for w in words]
    return tuple((w, *dict.fromkeys(normalize(t) for t in f)) if f else ()
                 for w, f in zip(words, found, strict=True))


def compound_terms(word: str) -> tuple[tuple[str, ...], ...] | None:
    """A German word of a form question that the lexicon does not hold whole but cuts into parts it
    holds (:func:`derive.index.xlang.compound_parts`: "plattformarbeit" → « plateforme »,
    « travailleurs »), as its parts' French terms, each term as its content words (normalised,
    stop words left out); ``None`` for a word the lexicon cannot cut so. A compound names one thing,
    so its parts' terms stand together wherever that thing is named (nohit28, docs/adr/0075). Pure
    (the lexicon is read once, on first use)."""
    parts = xlang.compound_parts(word, "de")
    if parts is None or len(parts) < 2:
        return None
    lexicon = xlang.lexicon("de")
    found = [lexicon.lookup(part, "de") or () for part in parts]
    return tuple(tuple(dict.fromkeys(" ".join(w for w in normalize(t).split() if not relax.relaxable(w)) or normalize(t)
                                     for t in terms)) for terms in found)


def popular_law_name(raw_words: Sequence[str]) -> FormSubject | None:
    """« loi » and a statute's popular name, its capitalised words ("loi Sapin II lutte …": ``sapin
    ii``), or ``None`` when the word after « loi » is not capitalised, is a stop word ("Loi du …"),
    or names Luxembourg ("loi Grand-Ducale …"); ``acronym`` when its first word is a sigle
    (:func:`is_acronym`: « loi PACTE … »). Pure."""
    name: list[str] = []
    first = raw_words[1] if len(raw_words) > 1 else ""
    end = len(raw_words)
    for k, word in enumerate(raw_words[1:], start=1):
        if not word[:1].isupper():
            end = k
            break
        name.extend(normalize(word).split())
    kept = tuple(w for w in name if not relax.relaxable(w))
    if not name or relax.relaxable(name[0]) or not kept or set(name) & LUXEMBOURG_WORDS:
        return None
    # « et » and one word after the capitalised run: the name coordinates two nouns, and French writes
    # a name's first word only with a capital (« loi Climat et résilience »; « Informatique et Libertés »)
    joined = [w for w in normalize(" ".join(raw_words[end + 1:end + 2])).split() if not relax.relaxable(w)] \
        if end + 1 < len(raw_words) and normalize(raw_words[end]) == "et" else []
    if joined and not set(joined) & LUXEMBOURG_WORDS:
        return FormSubject("law", (*kept, *joined), popular=True, coordinated=True)
    return FormSubject("law", kept, popular=True, acronym=is_acronym(first) and normalize(first) == kept[0])
