"""Search planning against one mounted catalogue: which works a query names, what text is left.

Work identity comes only from exact matches: identifiers (slug, CELEX, ELI, lex id, alias)
and official names contained in the query as whole tokens (publisher short titles of at least
3 characters; titles with a space and at least 12 characters or starting with an act form).
A name held by several works is *ambiguous* and constrains nothing, unless exactly one of them
is a principal act in force (a popular name shared by a recast and its repealed predecessor, a
law and the laws amending it): that one is chosen (``preferred: in_force_principal``). EuroVoc
labels and Legilux subjects never make identity (they feed the weak metadata lane of the search).

Names include the index's alias lexicon (kind ``alias``: reviewed common names, popular names
of official titles, :mod:`derive.index.aliases`); every name fires only as a whole run of query
tokens. A name that is an ordinary phrase of the corpus text (held as a phrase by the
provisions of more than :data:`FREQUENT_PHRASE_WORKS` works) in a query that says more than the name is *soft*:
its work is boosted in the ranking, its words stay search words, and it restricts nothing. So
is a name of a Legilux *recueil* (a thematic collection, not an act).

A publisher short title that is the whole query and an *ordinary phrase* (:func:`ordinary_words`:
plain lower-case words, at least two of them, and frequent in the corpus text, like ``droit
d'auteur``) is soft too, and is marked ``ordinary``: it ranks its act up in its own publisher's
section but does not say which publisher the question is about (:attr:`Plan.names_publisher`),
so the other publisher's results are not suppressed. Acronyms and numbered names (``TFEU``,
``MiFID``, ``CRD``, ``Solvency II``) are never ordinary: one word, capitals inside a word or
a whole word in capitals, digits or roman numerals.

An **everyday word** of the reviewed synonym file (``derive/index/synonyms.json``: "arrêt maladie",
"bankrupt", "Kündigung") is OR-ed with the legal terms the acts use for it ("incapacité de travail",
"insolvency"/"faillite", "licenciement"/"résiliation"): ``Plan.synonyms``, never a filter. A word
that is no entry as written matches one by its Snowball stem in the entry's language (the
question's, when :func:`derive.index.xlang.query_language` tells it): "Hinweisgebern",
"Insidergeschäften", "holidays".

A question in **English or German on French-only text** (an English question searched in Legilux, a
German one in either publisher: :func:`text_languages`, :func:`derive.index.xlang.query_language`) has
its words OR-ed with their French terms from the cross-language lexicon (:mod:`derive.index.xlang`:
mined from the aligned EN/FR EUR-Lex provisions and EuroVoc labels, plus a reviewed file):
``Plan.synonyms`` again, never a filter, never choosing an act, and reported as
``Plan.translations`` (``query_plan.translations``); the question's own stop words (German ones the
query parser keeps: "über", "die") leave the search words when two others are left, and so do its frame words
nothing translates ("rules", "welche": :data:`derive.index.xlang.FRAME_FILLERS`, reported as
``query_plan.translations.fillers``; such a section routes no other publisher's section out). The section's text
hits then carry the match reason ``translated`` (weaker evidence, ordered after a section answered in
the question's own words: :func:`serve.core.ops.search.mark_translated`).

A **stop word of one language that is a content word of another** (« l'*Our* », « sans *but* lucratif »,
"can my *son* inherit": :data:`derive.index.relax.CONTENT_ELSEWHERE`) leaves the search words only when the
question's language lists it (:func:`question_stop_words`: the language its other words tell, else the
caller's language filter; after « l' / d' » French), and is a search word like any other otherwise.

The search words of a **question asked in plain words** leave out the words that only frame it
(:func:`without_question_frame`: "combien", "peut-on", "faut-il", "must", "darf" — see
:data:`derive.index.relax.QUESTION_WORDS`, and the measure word after an interrogative, "combien de
*temps*", "how *fast*": :func:`derive.index.relax.frame_pair_words`) when at least two other words are left.

A **role intent** ("which acts amend X", "actes délégués du X") with a resolved work X sets
``intent`` (:func:`serve.core.ranking.role_intent`); its words leave the search words.
"""

from __future__ import annotations

import functools
import itertools
import re
import sqlite3
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from derive.index import analysis, relax, xlang
from derive.index.identifiers import celex_numbers, celex_to_slug
from derive.index.query import GERMAN_CITING_WORDS, MONTHS, STOP_WORDS, ParsedQuery, ngrams
from derive.index.text import fold, normalize
from serve.core import ranking
from serve.core.mount import Catalogue, MountedIndex, NameEntry

ACT_FORMS = ("loi", "reglement", "arrete", "code", "constitution", "convention", "ordonnance", "decret",
             "directive", "regulation", "traite", "treaty", "decision")
MAX_NAME_TOKENS = 30
#: The longest a vocabulary look-up (:func:`holds_word`) may take; the enclosing call's deadline if sooner.
VOCABULARY_SECONDS = 5.0
MAX_CANDIDATES = 20
#: A non-identifier name held as a phrase by the text of more works than this is an ordinary phrase.
FREQUENT_PHRASE_WORKS = 3
_KIND_REASON = {"official_identifier": "identifier", "alias": "alias", "publisher_short_title": "publisher_short_title",
                "official_title": "title"}


@dataclass
class Mention:
    text: str
    status: str  # resolved | ambiguous | unresolved
    reason: str
    works: list[int] = field(default_factory=list)
    #: An ordinary phrase of the corpus: boosts its work, restricts nothing.
    soft: bool = False
    #: Why one of several candidates was chosen (``in_force_principal``).
    preferred: str | None = None
    #: The other works holding the same name when one was preferred (a repealed predecessor, …).
    shared: list[int] = field(default_factory=list)
    #: A publisher short title standing alone that is an ordinary phrase: says nothing about
    #: which publisher the question is about.
    ordinary: bool = False

    def to_dict(self, catalogue: Catalogue, publisher: str) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "status": self.status, "reason": self.reason,
                               "works": [f"{publisher}:{catalogue.slug_of[w]}" for w in self.works[:MAX_CANDIDATES]]}
        if self.soft:
            out["soft"] = True
        if self.preferred:
            out["preferred"] = self.preferred
        if self.ordinary:
            out["ordinary"] = True
        return out


@dataclass
class Plan:
    terms: list[str]
    article_key: str | None
    anchor: str | None
    mentions: list[Mention]
    constraints: list[int]
    explicit_works: bool
    foreign_mentions: int = 0
    #: Works named by a soft mention (ranked up, not restricted to).
    boost: list[int] = field(default_factory=list)
    #: A role intent towards the one constrained work (``amending``, ``delegated``…).
    intent: str | None = None
    #: The query holds an act number (``2031/4444``) that resolved no work: never relaxed.
    act_number: bool = False
    #: The query is nothing but a reference to an act by number (``Règlement (UE) 2019/9999``,
    #: ``Directive 2031/4444``) that names no act this publisher holds: answered with no hits and
    #: the typed reason ``unresolved_act_number``, not with other acts holding the same words.
    act_reference_only: bool = False
    #: The question cites an EU act number that may stand for no act this publisher holds, and asks for no act
    #: holding a role towards it (:func:`unheld_number_cited`): the texts citing the number are not the act
    #: asked for, so the keyword lanes answer nothing (``unresolved_act_number``; neg50, ADR 0171).
    number_not_held: bool = False
    #: The query is shaped like an act's name that no held name holds (``{"reason": "name_not_held",
    #: …}``, set by :func:`serve.core.ops.search.named_act`), or cites by form and date only acts no
    #: index holds (``{"reason": "dated_reference_not_held", …}``,
    #: :func:`serve.core.ops.search.dated_reference_not_held`): answered with no hits.
    name_not_held: dict[str, Any] | None = None
    #: Each everyday word (or phrase) of the terms → the legal terms OR-ed with it
    #: (:func:`derive.index.relax.with_synonyms`).
    synonyms: dict[str, list[str]] = field(default_factory=dict)
    #: The question's language when it is one the searched index holds no text in (``en``/``de``)
    #: and its words were translated: ``{"language", "used": [{"from", "to", "source"}], "dropped"}`` (and
    #: ``untranslated`` / ``fillers`` when such words were left out)
    #: (:func:`derive.index.xlang.translate`), or ``None``.
    translations: dict[str, Any] | None = None
    #: The translated question's words that no mounted index holds in any form although one of them
    #: holds text in the question's language (set by :func:`serve.core.ops.search.mark_unheld_words`):
    #: what the question is about, never dropped as an untranslated filler.
    unheld_words: frozenset[str] = frozenset()

    @property
    def strong(self) -> bool:
        return any(m.status == "resolved" and not m.soft for m in self.mentions)

    @property
    def names_publisher(self) -> bool:
        """Whether the query names a work of this publisher: a strong name, or a soft one other
        than an ordinary-phrase short title standing alone (which must not suppress the other
        publisher's section)."""
        ordinary = {w for m in self.mentions if m.ordinary for w in m.works}
        return self.strong or any(w not in ordinary for w in self.boost)

    @property
    def status(self) -> str:
        statuses = {m.status for m in self.mentions}
        for status in ("ambiguous", "unresolved", "resolved"):
            if status in statuses:
                return status
        return "not_requested"


def _eligible(kind: str, phrase: str) -> bool:
    if kind == "publisher_short_title":
        return len(phrase) >= 3
    if kind == "official_title":
        return " " in phrase and (len(phrase) >= 12 or phrase.split()[0] in ACT_FORMS)
    if kind == "official_identifier":
        return len(phrase) >= 4 and any(ch.isdigit() for ch in phrase)
    return kind == "alias"


def _slug_rowid(catalogue: Catalogue, slug: str) -> int | None:
    rowid = catalogue.rowid_of.get(slug)
    if rowid is not None:
        return rowid
    aliases = [e.work_rowid for e in catalogue.names.get(slug, []) if e.kind == "alias"]
    return aliases[0] if aliases else None


def _identifier_mentions(index: MountedIndex, parsed: ParsedQuery, plan: Plan) -> None:
    for ident in parsed.identifiers:
        if ident.publisher is not None and ident.publisher != index.publisher.value:
            plan.foreign_mentions += 1
            continue
        if not ident.slugs:
            continue
        rowid = next((r for r in (_slug_rowid(index.catalogue, s) for s in ident.slugs) if r is not None), None)
        exact = normalize(parsed.raw) == normalize(ident.text)
        reason = ("exact_" if exact else "contained_") + "identifier"
        if rowid is None:
            plan.mentions.append(Mention(ident.text, "unresolved", reason))
            continue
        plan.mentions.append(Mention(ident.text, "resolved", reason, [rowid]))
        if ident.anchor:
            plan.anchor = ident.anchor


Frequent = Callable[[str], bool]
#: The works among a name's works that were held on the question's date (``as_of``): a name names,
#: on a date, only an act that existed by then (:func:`serve.core.resolve.enacted_by`).
Enacted = Callable[[Sequence[int]], list[int]]
_ROMAN = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+|\d+")


def ordinary_words(value: str) -> bool:
    """Whether a name, as the publisher writes it, reads as plain words rather than a proper name:
    at least two words of three letters or more, and no word with a digit, a capital after its
    first letter (``MiFID``, ``TFEU``), or that is a roman numeral (``Solvency II``). Whether the
    phrase is also *frequent* in the corpus text is decided by the caller."""
    words = _WORD.findall(value)
    if sum(len(w) >= 3 for w in words) < 2:
        return False
    return not any(w.isdigit() or w[1:] != w[1:].lower() or _ROMAN.fullmatch(w) or
                   (len(w) == 1 and w.isupper()) for w in words)


_ACT_NUMBER = re.compile(r"(?<![\w/])\d{1,4}/\d{1,4}(?:/[A-Za-z]{2,4})?(?![\w/])")
_NUMBER_WORD = re.compile(r"[\d/]+")


def reference_only(terms: Sequence[str]) -> bool:
    """Whether the search words are only those of a reference to an act by number (kind,
    ``UE``/``EU``, ``No``, numbers): nothing else the question asks about."""
    return bool(terms) and all(t in _REFERENCE_WORDS or _NUMBER_WORD.fullmatch(t) for t in terms)


def _prefer_in_force(works: list[int], profiles: Mapping[int, ranking.WorkProfile] | None) -> int | None:
    if not profiles:
        return None
    best = [w for w in works if w in profiles and profiles[w].status == "in_force" and profiles[w].role == "principal"]
    return best[0] if len(best) == 1 else None


#: The kinds of name found whatever their spacing (:func:`compact_names`): the names people type.
COMPACT_KINDS = ("alias", "publisher_short_title")
#: Names of at most this many words are found whatever their spacing.
COMPACT_MAX_WORDS = 4
#: A question's runs of at most this many words are looked up by their spaceless form.
COMPACT_QUERY_WORDS = 6


def compact(phrase: str) -> str:
    """A normalised phrase without its spaces (« brussels i bis » → ``brusselsibis``). Pure."""
    return phrase.replace(" ", "")


def compact_names(catalogue: Catalogue, conn: sqlite3.Connection | None = None) -> dict[str, str]:
    """The aliases and publisher short titles of two to :data:`COMPACT_MAX_WORDS` words, by their
    spaceless form (:func:`compact`) → the normalised name, when that form names one name only and is
    itself no name nor, with ``conn``, a word of the index's texts (``vocabulary``: a word the texts
    use is that word): how a question finds "Brussels Ibis" (« Brussels I bis »), « CRDIV »,
    « Datenschutzgrundverordnung » (issue #15, names42). Read once per mounted index
    (``MountedIndex.memo``). Read-only."""
    found: dict[str, set[str]] = {}
    for phrase, entries in catalogue.names.items():
        if " " in phrase and len(phrase.split()) <= COMPACT_MAX_WORDS \
                and any(e.kind in COMPACT_KINDS for e in entries):
            found.setdefault(compact(phrase), set()).add(phrase)
    words: set[str] = set()
    if conn is not None and found:
        keys = sorted(found)
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            words |= {str(t) for (t,) in conn.execute(
                f"SELECT term FROM vocabulary WHERE term IN ({','.join('?' * len(part))})", part)}
    return {key: next(iter(names)) for key, names in found.items()
            if len(names) == 1 and key not in catalogue.names and key not in words}


def spaced_names(index: MountedIndex) -> dict[str, str]:
    """:func:`compact_names` of ``index``'s catalogue, read once per mounted index (at warm-up:
    ``serve.core.mount.warm_index``)."""
    return index.memo("compact_names", lambda conn: compact_names(index.catalogue, conn))


def in_force_kind(entries: Sequence[NameEntry], kind: str, works: list[int],
                  profiles: Mapping[int, ranking.WorkProfile] | None,
                  enacted: Enacted | None = None) -> tuple[str, list[int]]:
    """The kind of name and the works a name stands for: those of its strongest kind (``kind``,
    ``works``), unless none of them is a principal act in force and exactly one work holding the name
    as a weaker kind (not an identifier) is. Then that kind and its works, the act in force first
    (:func:`_prefer_in_force` chooses it, the others are shared): the name a repealed act bears as a
    title-derived alias and its recast in force as a publisher short title ("General Block Exemption
    Regulation": Regulation (EC) No 800/2008's alias, Regulation (EU) No 651/2014's short title) is
    the act in force's (issue #15, names42, class 3: recast pairs). Pure."""
    if not profiles or kind == "official_identifier" or _prefer_in_force(works, profiles) is not None \
            or any(w in profiles and profiles[w].status == "in_force" and profiles[w].role == "principal"
                   for w in works):
        return kind, works
    order = list(_KIND_REASON)
    for weaker in order[order.index(kind) + 1:]:
        held = sorted({e.work_rowid for e in entries if e.kind == weaker})
        if enacted is not None:
            held = enacted(held)
        if _prefer_in_force(held, profiles) is not None:
            return weaker, sorted({*works, *held})
    return kind, works


def _name_mentions(index: MountedIndex, tokens: list[str], whole: str, plan: Plan,
                   profiles: Mapping[int, ranking.WorkProfile] | None = None,
                   frequent: Frequent | None = None, enacted: Enacted | None = None) -> set[int]:
    consumed: set[int] = set()
    spaced: dict[str, str] | None = None
    longest = min(index.catalogue.longest_name_tokens, MAX_NAME_TOKENS)
    for start, end, phrase in ngrams(tokens, longest):
        if consumed & set(range(start, end)) or all(t in STOP_WORDS for t in tokens[start:end]):
            continue
        entries = [e for e in index.catalogue.names.get(phrase, []) if _eligible(e.kind, phrase)]
        respaced = False
        if not entries and end - start <= COMPACT_QUERY_WORDS:
            # a name written with other spacing ("Brussels Ibis" for « Brussels I bis », « CRDIV »)
            if spaced is None:
                spaced = spaced_names(index)
            entries = [e for e in index.catalogue.names.get(spaced.get(compact(phrase), ""), [])
                       if e.kind in COMPACT_KINDS]
            respaced = bool(entries)
        if not entries:
            continue
        kind = min(entries, key=lambda e: list(_KIND_REASON).index(e.kind)).kind
        works = sorted({e.work_rowid for e in entries if e.kind == kind})
        if enacted is not None:
            # asked as of a date, a name stands for the acts held by then: the 2018 data-protection
            # law's alias names nothing on 1993-03-01, its words are the question's (titles28)
            works = enacted(works)
            if not works:
                continue
        kind, works = in_force_kind(entries, kind, works, profiles, enacted)
        reason = ("exact_" if phrase == whole else "contained_") + _KIND_REASON[kind]
        status = "resolved" if len(works) == 1 else "ambiguous"
        preferred, shared = None, []
        if status == "ambiguous" and kind != "official_identifier":
            chosen = _prefer_in_force(works, profiles)
            if chosen is not None:
                shared = [w for w in works if w != chosen]
                status, works, preferred = "resolved", [chosen], "in_force_principal"
        compilation = status == "resolved" and profiles is not None and works[0] in profiles \
            and profiles[works[0]].role == "compilation"  # a recueil names a subject, not an act
        soft = status == "resolved" and kind != "official_identifier" and (
            compilation or (phrase != whole and frequent is not None and frequent(phrase))
            or (respaced and phrase != whole))  # respaced inside a longer question: ranked up, nothing restricted
        ordinary = status == "resolved" and not soft and phrase == whole and kind == "publisher_short_title" \
            and frequent is not None and frequent(phrase) \
            and all(ordinary_words(value) for value in index.spellings(phrase, kind))
        plan.mentions.append(Mention(phrase, status, reason, works, soft=soft or ordinary, preferred=preferred,
                                     shared=shared, ordinary=ordinary))
        if not soft:
            consumed.update(range(start, end))
    return consumed


_ACT_NUMBER_PARTS = re.compile(r"(?<![\w/])(\d{1,4})/(\d{1,4})(?:/[A-Za-z]{2,4})?(?![\w/])")
_ACT_KINDS = (("r", ("regulation", "reglement", "verordnung")), ("l", ("directive", "richtlinie")),
              ("d", ("decision", "beschluss", "entscheidung")))
#: Words that only frame a reference to an EU act by number: its kind, the Union's abbreviations,
#: "No"/"Nr", and the enacting institutions — with the adjective's feminine forms ("Commission
#: européenne", "Europäische Kommission") and the European Central Bank, which also enacts
#: regulations and decisions (names32).
_REFERENCE_WORDS = frozenset({name for _, names in _ACT_KINDS for name in names} | {
    "ue", "eu", "eg", "ce", "cee", "ewg", "euratom", "no", "nr", "n", "numero", "delegated", "implementing",
    "delegue", "execution", "delegierte", "durchfuhrungsverordnung", "council", "conseil", "rates", "commission",
    "kommission", "european", "europeen", "europeenne", "europaischen", "europaische", "parliament", "parlement",
    "parlaments", "des", "der", "central", "centrale", "bank", "banque", "zentralbank"})


#: Whether an EU act number no held act bears empties the EUR-Lex section even when texts citing it hold the
#: question's words (:attr:`Plan.number_not_held`; neg50, ADR 0171).
UNHELD_NUMBER_CITED = True
#: Words asking for an act by its relation to the act a number names (its transposition, its citing acts),
#: beside the role intents :func:`serve.core.ranking.role_intent` reads (amending, implementing, delegated,
#: corrigendum): such a question is about the acts citing the number, which the texts holding it may be.
RELATION_WORDS = frozenset({"transposing", "transposes", "transpose", "transposed", "transposition", "transposant",
                            "transposee", "umsetzung", "umgesetzt", "umsetzen", "citing", "cites",
                            "cite", "citant", "referring", "refers", "repealing", "repealed", "repeals", "abrogeant",
                            "abroge", "abrogee", "replacing", "replaced", "replaces", "remplace", "remplacant",
                            "aufgehoben", "aufhebung", "ersetzt", "successor", "successeur", "nachfolger"})


def unheld_number_cited(raw: str) -> bool:
    """Whether ``raw`` cites an EU act by number (``Directive 2015/2436``) as the act it asks about: some number
    of the act-number shape that is not a span of two years (``2023/2024``, a school or marketing year), in a
    question asking for no act by its role towards it (:func:`serve.core.ranking.role_intent`,
    :data:`RELATION_WORDS`). The caller checks that no held act bears the number. Pure."""
    if not UNHELD_NUMBER_CITED:
        return False
    spans = [len(m.group(1)) == len(m.group(2)) == 4 and int(m.group(2)) == int(m.group(1)) + 1
             for m in _ACT_NUMBER_PARTS.finditer(raw)]
    if all(spans):  # no number, or only spans of two years
        return False
    words = set(normalize(raw).split())
    return ranking.role_intent(" ".join(sorted(words))) is None and not words & RELATION_WORDS


def number_held_as_any_kind(index: MountedIndex, parsed: ParsedQuery) -> bool:
    """Whether an act number of the question names a held act of any kind, whatever kind the question calls it
    ("Directive 2016/679" for the Regulation): a wrong kind is a slip of the user's, not an act no index holds
    (:attr:`Plan.number_not_held` is then left unset)."""
    return any(index.catalogue.rowid_of.get(s) is not None for m in _ACT_NUMBER_PARTS.finditer(parsed.residual)
               for s in _act_slugs("", m.group(1), m.group(2)))


def number_in_titles(index: MountedIndex, parsed: ParsedQuery) -> bool:
    """Whether a held act's title cites an act number of the question ("Commission Delegated Directive (EU)
    2024/1405 amending Annex IX to Directive (EU) 2018/2001"): the act the number names is held through the acts
    its title says amend, supplement or implement it, which hold its replaced parts (« annexe IX de la directive
    (UE) 2018/2001 »), so :attr:`Plan.number_not_held` is left unset. One FTS lookup on the titles per number."""
    with index.session(VOCABULARY_SECONDS) as conn:
        for m in _ACT_NUMBER_PARTS.finditer(parsed.residual):
            phrase = '"' + " ".join(normalize(m.group()).split()[:2]) + '"'
            if conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                            ("{titles short_titles} : " + phrase,)).fetchone() is not None:
                return True
    return False


def _act_slugs(before: str, first: str, second: str) -> list[str]:
    """CELEX slugs an act number may stand for (``2016/679``, ``575/2013``, ``95/46``), of the act
    kind named just before it when there is one."""
    words = normalize(before).split()[-4:]
    kinds = [k for k, names in _ACT_KINDS if any(w in names for w in words)] or [k for k, _ in _ACT_KINDS]
    pairs = []
    for year, number in ((first, second), (second, first)):
        if len(year) == 2:
            year = ("19" if int(year) > 50 else "20") + year
        if len(year) == 4 and 1950 <= int(year) <= 2099 and number.isdigit() and 0 < int(number) < 10000:
            pairs.append((year, int(number)))
    return [f"3{year}{kind}{number:04d}" for year, number in pairs for kind in kinds]


#: An EEC regulation of the first years cited by its number alone, which carried no year until 1967
#: ("Regulation No 17", "règlement n° 59", "Verordnung Nr. 17"; CELEX ``3YYYYRNNNN``): the form word,
#: "No"/"n°"/"Nr.", one to three digits not followed by "/" (``No 17/62``, ``n° 1033/2008`` are numbers
#: with a year). Matched on the folded, lower-cased residual.
_EARLY_REGULATION = re.compile(r"\b(?:regulation|reglement|verordnung)\s+(?:no\.?|n\s?°|n\s?o\.?|nr\.?|numero)"
                               r"\s*(\d{1,3})(?![\d/])")
#: The years of the EEC regulations numbered without their year (the first, Regulation No 1, 1958).
EARLY_REGULATION_YEARS = range(1958, 1968)


def early_regulation_slugs(residual: str) -> list[tuple[str, list[str]]]:
    """``(number, CELEX slugs it may stand for)`` for each early EEC regulation cited by its number
    alone (:data:`_EARLY_REGULATION`). Pure."""
    return [(m.group(1), [f"3{year}r{int(m.group(1)):04d}" for year in EARLY_REGULATION_YEARS])
            for m in _EARLY_REGULATION.finditer(fold(residual).lower()) if int(m.group(1)) > 0]


def _act_number_mentions(index: MountedIndex, parsed: ParsedQuery, plan: Plan) -> tuple[set[str], bool]:
    """Act numbers (``Regulation 1336/2013``, ``directive 95/46``) that name exactly one held act:
    resolved like an identifier. Returns the normalised number words they consume, and whether
    some act number of the query may stand for a held act (one or several)."""
    consumed: set[str] = set()
    any_held = False
    for m in _ACT_NUMBER_PARTS.finditer(parsed.residual):
        held = sorted({r for r in (index.catalogue.rowid_of.get(s) for s in
                                   _act_slugs(parsed.residual[:m.start()], m.group(1), m.group(2))) if r is not None})
        any_held = any_held or bool(held)
        if len(held) == 1:
            plan.mentions.append(Mention(m.group(), "resolved", "contained_identifier", held))
            consumed.update(normalize(m.group()).split())
    for number, slugs in early_regulation_slugs(parsed.residual):
        held = sorted({r for r in (index.catalogue.rowid_of.get(s) for s in slugs) if r is not None})
        any_held = any_held or bool(held)
        if len(held) == 1 and not any(held == m.works for m in plan.mentions):
            plan.mentions.append(Mention(number, "resolved", "contained_identifier", held))
            consumed.add(number)
    return consumed, any_held


def explicit_works(index: MountedIndex, works: Sequence[str]) -> list[int]:
    out: list[int] = []
    for text in works:
        value = text.strip()
        publisher, _, slug = value.rpartition(":") if ":" in value else ("", "", value)
        if publisher and publisher.split(":")[0].lower() != index.publisher.value:
            continue
        slug = slug.split("#")[0].lower()
        found = celex_numbers(slug)
        candidates = [slug] + ([celex_to_slug(found[0][2])] if found else [])
        rowid = next((r for r in (_slug_rowid(index.catalogue, s) for s in candidates) if r is not None), None)
        if rowid is not None and rowid not in out:
            out.append(rowid)
    return out


#: Act forms that end an English popular name ("Companies Act 2006", "Luxembourg Labour Code"):
#: the publishers' official titles never end so, a name of that shape is a short title or alias.
NAME_TAIL_FORMS = frozenset({"act", "code"})
#: The EU act forms that end a popular name ("Platform Work Directive", "Batteries Regulation",
#: "European Climate Law") and the publisher document types each stands for: basic acts only (a
#: popular name is given to a legislative act, not to a delegated or implementing one). Such a
#: name is often in neither the metadata nor the texts of the act that bears it, so it is held on
#: weaker evidence than a ``name`` (``serve.core.ops.search.popular_name_held``).
POPULAR_TAIL_FORMS: dict[str, frozenset[str]] = {"directive": frozenset({"DIR"}), "regulation": frozenset({"REG"}),
                                                 "law": frozenset({"DIR", "REG"})}
#: The country adjective a user adds to a code's name ("Code luxembourgeois de l'environnement"):
#: not part of the name the act bears, so left out of the words a held name must carry.
CODE_COUNTRY_WORDS = frozenset({"luxembourgeois", "luxembourgeoise", "europeen", "europeenne"})
#: Act forms that open a question about a subject ("directive on …", "loi sur les …",
#: "Verordnung über …") and the word that links them to it.
SUBJECT_FORMS = frozenset({"directive", "regulation", "decision", "loi", "reglement", "verordnung",
                           "richtlinie", "gesetz"})
SUBJECT_LINKS = frozenset({"on", "concerning", "regarding", "relating", "sur", "relative", "relatif", "relatifs",
                           "relatives", "concernant", "portant", "uber", "zur", "zum"})
#: Words naming Luxembourg: "Luxembourg nationality law" asks about Luxembourg's law in other words,
#: it is not an EU act's popular name.
LUXEMBOURG_WORDS = frozenset({"luxembourg", "luxembourgish", "luxemburg", "luxemburger", "luxemburgisches",
                              "luxembourgeois", "luxembourgeoise", "grand", "ducal"})
#: At most this many words before a tail form: a longer query says more than a name.
NAME_MAX_WORDS = 5
#: Whether an act's name ending in a capitalised "Act" inside a longer question is read as a name
#: (:func:`embedded_act_name`; nohit28, docs/adr/0075). Off: measured, not adopted. It emptied one
#: readable negative ("European Media Freedom Act …") but a popular name the alias file does not hold
#: is no evidence that the act is not held — "Listing Act … capital markets … SMEs", "Whistleblower
#: Protection Act reporting channels" found their acts by the other words and answered nothing with it.
EMBEDDED_ACT_NAMES = False
_CODE_LINKS = frozenset({"de", "du", "des", "d", "l", "la"})


@dataclass(frozen=True)
class ActName:
    """A query shaped like the name of an act (``kind`` ``name``: "Code de la famille", "Companies
    Act 2006", "Loi Informatique et Libertés") or like a question about an act's subject (``kind``
    ``subject``: "directive on time travel tourism") or like an EU act's popular name (``kind``
    ``popular``: "Platform Work Directive"), with the words a held act must carry (:func:`act_name`)."""
    kind: str
    words: tuple[str, ...]
    #: The name as the query writes it (normalised, stop words kept, no trailing year).
    phrase: str = ""
    #: For ``kind`` ``popular``: the form (a key of :data:`POPULAR_TAIL_FORMS`) and the name
    #: without it, as written (normalised, stop words kept).
    form: str = ""
    bare: str = ""
    #: For a ``subject`` opened by an EU act's form ("directive sur …", "Richtlinie über …") or a
    #: German compound headed by one ("Aktionärsrechterichtlinie"): the :data:`POPULAR_TAIL_FORMS`
    #: key (:data:`EU_SUBJECT_FORMS`). Derived from the words, so not part of the shape's identity.
    eu_form: str = field(default="", compare=False)
    #: Per word of ``words``, the French terms the cross-language lexicon gives a German word
    #: (:func:`german_alternatives`): a German name is matched against the works' French titles.
    alternatives: tuple[tuple[str, ...], ...] = field(default=(), compare=False)


def act_name(raw: str) -> ActName | None:
    """The act-name shape of a query, or ``None``. Pure: it reads only the query's words.

    - ``Code de/du/des …`` (French): the code's name, ``code`` and its words;
    - ``Loi`` + a capitalised word ("Loi Informatique et Libertés"), no digit: a law's popular name;
    - ``… Act`` / ``… Code`` at the end (a year may follow), at most :data:`NAME_MAX_WORDS` words
      before it: an English popular name, its words with the form (``… Directive`` /
      ``… Regulation`` are ``popular`` below: an EU act's popular name is often in its text only
      — "Right to Repair Directive", "Pillar Two Directive" — so no held name is no evidence the
      act is not held);
    - ``Code luxembourgeois de …``: as ``Code de …``, the country adjective left out
      (:data:`CODE_COUNTRY_WORDS`);
    - ``… Directive`` / ``… Regulation`` / ``… Law`` at the end, capitalised as a name is, one to
      :data:`NAME_MAX_WORDS` words before it, no digit, no word naming Luxembourg
      (:data:`LUXEMBOURG_WORDS`: "Luxembourg nationality law" describes a Luxembourg act): kind
      ``popular``, the words before the form (the form in ``form``), checked on weaker evidence
      than a ``name``. Not in French ("règlement Taxonomie": the publisher's aliases are English,
      and the French name of a held act is often in no French title, nor a name of one text);
    - such a capitalised popular name followed by other words ("Common Charger Directive USB-C"):
      kind ``popular`` too (:func:`embedded_popular_name`); a capitalised ``… Act`` followed by other
      words ("European Media Freedom Act editorial independence …"): kind ``name``
      (:func:`embedded_act_name`);
    - an act form and a link word first, then at least two subject words ("directive on …",
      "loi sur les …", "Verordnung über …"): kind ``subject``, the subject words; an EU act's form
      (:data:`EU_SUBJECT_FORMS`) is kept in ``eu_form``, and a German form's words carry their French
      terms (``alternatives``): such a name is matched against the works' titles
      (``serve.core.ops.search.form_titled_works``, names24);
    - one German word headed by "Richtlinie" / "Verordnung" whose modifier the lexicon cuts whole
      ("Aktionärsrechterichtlinie"): kind ``subject`` too (:func:`compound_form_name`).

    Stop words and years are left out of the words. A query of another shape (a subject with no
    act form, a dated or numbered reference) has none."""
    words = normalize(raw).split()
    raw_words = raw.split()
    if len(words) == 1:
        return compound_form_name(words[0])
    if len(words) < 2:
        return None

    def kept(values: Sequence[str]) -> tuple[str, ...]:
        return tuple(w for w in values if not relax.relaxable(w))

    if words[0] == "code" and len(words) > 2 and words[1] in CODE_COUNTRY_WORDS and words[2] in _CODE_LINKS:
        words = [words[0], *words[2:]]
    if words[0] == "code" and words[1] in _CODE_LINKS and len(kept(words)) >= 2:
        return ActName("name", kept(words), " ".join(words))
    if words[0] == "loi" and raw_words[0][:1] == "L" and len(raw_words) > 1 and raw_words[1][:1].isupper() \
            and not relax.relaxable(words[1]) and not any(c.isdigit() for c in raw):
        return ActName("name", kept(words), " ".join(words))
    body = words[:-1] if re.fullmatch(r"(?:1[89]|20)\d\d", words[-1]) else words
    if 2 <= len(body) <= NAME_MAX_WORDS + 1 and body[-1] in NAME_TAIL_FORMS \
            and not any(c.isdigit() for w in body for c in w) and len(kept(body)) >= 2:
        return ActName("name", kept(body), " ".join(body))
    if 2 <= len(words) <= NAME_MAX_WORDS + 1 and words[-1] in POPULAR_TAIL_FORMS and raw_words[-1][:1].isupper() \
            and name_numbers_ok(words[:-1]) and kept(words[:-1]) and not set(words) & LUXEMBOURG_WORDS:
        return ActName("popular", kept(words[:-1]), " ".join(words), form=words[-1], bare=" ".join(words[:-1]))
    if len(words) >= 4 and words[0] in SUBJECT_FORMS and words[1] in SUBJECT_LINKS \
            and not any(c.isdigit() for c in raw):
        subject = tuple(w for w in kept(words[2:]) if w not in SUBJECT_LINKS)
        if len(subject) >= 2 and not set(subject) & SUBJECT_FORMS:  # "loi sur X et loi sur Y": two acts
            form = EU_SUBJECT_FORMS.get(words[0], "")
            return ActName("subject", subject, " ".join(words), eu_form=form,
                           alternatives=german_alternatives(subject) if words[0] in GERMAN_FORMS else ())
    return embedded_popular_name(raw_words) or form_first_popular_name(raw_words) or (
        embedded_act_name(raw_words) if EMBEDDED_ACT_NAMES else None)


def embedded_act_name(raw_words: Sequence[str]) -> ActName | None:
    """An act's name ending in a capitalised ``Act`` followed by the question's other words
    ("European Media Freedom Act editorial independence of public service media"): kind ``name``, as
    when the name ends the query — the run of one to :data:`NAME_MAX_WORDS` capitalised words before
    ``Act`` and ``act`` its words. English writes an act's short title with capitals and the words
    about it in lower case, so the words after the name do not change which act is named. Not when
    a word of the name has a digit or names Luxembourg, nor when the words after it hold another
    act's form (two acts compared: "Digital Services Act and Digital Markets Act compared"; nohit28,
    docs/adr/0075). Pure."""
    for k, word in enumerate(raw_words[1:-1], start=1):
        if word != "Act":
            continue
        run: list[str] = []
        for before in reversed(raw_words[:k]):
            if not before[:1].isupper() or len(run) == NAME_MAX_WORDS:
                break
            run.insert(0, before)
        name = [*normalize(" ".join(run)).split(), "act"]
        rest = set(normalize(" ".join(raw_words[k + 1:])).split())
        kept = tuple(w for w in name if not relax.relaxable(w))
        if len(kept) < 2 or any(c.isdigit() for w in run for c in w) or set(name) & LUXEMBOURG_WORDS \
                or rest & (SUBJECT_FORMS | NAME_TAIL_FORMS | POPULAR_TAIL_FORMS.keys()):
            return None
        return ActName("name", kept, " ".join(name))
    return None


def embedded_popular_name(raw_words: Sequence[str]) -> ActName | None:
    """A popular name written as one inside a longer query ("Common Charger Directive USB-C"): the
    first capitalised ``Directive`` / ``Regulation`` / ``Law`` after a run of one to
    :data:`NAME_MAX_WORDS` capitalised words, naming no Luxembourg, with no digit but a short
    number (:func:`name_numbers_ok`: "Euro 7 Regulation"). The words after the form do not change
    which act is named. Also an EU act named in lower case after the user's ``EU`` (:data:`EU_MARKS`:
    "EU air passenger rights regulation compensation …"): the lower-case words between the mark and
    the form (:func:`eu_marked_name`)."""
    for k, word in enumerate(raw_words):
        form = normalize(word)
        if k == 0 or form not in POPULAR_TAIL_FORMS:
            continue
        if not word[:1].isupper():
            marked = eu_marked_name(raw_words[:k], form)
            if marked is not None:
                return marked
            continue
        run: list[str] = []
        for before in reversed(raw_words[:k]):
            if not (before[:1].isupper() or before.isdigit()) or len(run) == NAME_MAX_WORDS:
                break
            run.insert(0, before)
        name = normalize(" ".join(run)).split()
        kept = tuple(w for w in name if not relax.relaxable(w))
        if kept and name_numbers_ok(name) and not set(name) & LUXEMBOURG_WORDS:
            return ActName("popular", kept, " ".join([*name, form]), form=form, bare=" ".join(name))
    return None


#: The EU act forms that open a subject question ("directive sur …", "Verordnung über …") or head
#: a German compound name ("Aktionärsrechterichtlinie"), and the :data:`POPULAR_TAIL_FORMS` key each
#: stands for: such a question names an act of that form by its title's words
#: (``serve.core.ops.search.form_titled_works``). "loi" / "Gesetz" name Luxembourg's acts (or
#: none): not here; nor "décision" (four decisions are held, no popular name among them).
EU_SUBJECT_FORMS = {"directive": "directive", "richtlinie": "directive", "regulation": "regulation",
                    "reglement": "regulation", "verordnung": "regulation"}
#: The German ones: their subject words are German, matched through the lexicon's French terms.
GERMAN_FORMS = frozenset({"richtlinie", "verordnung"})


def german_alternatives(words: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Per German word, the French terms the cross-language lexicon holds for it (normalised; empty
    when it holds none): how a German name is matched against the French titles. Pure."""
    lex = xlang.lexicon("de")
    return tuple(tuple(normalize(t) for t in lex.lookup(w, "de") or ()) for w in words)


def compound_form_name(word: str) -> ActName | None:
    """A German compound headed by an EU act's form (:data:`GERMAN_FORMS`: "Aktionärsrechterichtlinie",
    "Signaturrichtlinie"), its modifier cut into parts the cross-language lexicon holds
    (:func:`derive.index.xlang.compound_parts`): kind ``subject``, the parts as its words, their French
    terms as alternatives, the form in ``eu_form``. ``None`` for another word, or a modifier the
    lexicon cannot cut whole (a name the publisher holds as an alias is a mention before this). Pure."""
    parts = xlang.compound_parts(word, "de")
    if not parts or len(parts) < 2 or parts[-1] not in GERMAN_FORMS:
        return None
    subject = parts[:-1]
    return ActName("subject", subject, word, eu_form=EU_SUBJECT_FORMS[parts[-1]],
                   alternatives=german_alternatives(subject))


#: French act forms written before an EU act's popular name ("directive Oiseaux", "règlement
#: Taxonomie") and the :data:`POPULAR_TAIL_FORMS` key each stands for.
FORM_FIRST_FORMS = {"directive": "directive", "reglement": "regulation"}
#: Words after a French form that say whose act it is, not its name ("directive UE 2016/680").
_FORM_FIRST_NOT_NAMES = frozenset({"ue", "eu", "ce", "cee", "euratom", "delegue", "delegated", "d", "execution"})


def form_first_popular_name(raw_words: Sequence[str]) -> ActName | None:
    """An EU act's popular name written in the French order, form first: ``directive`` /
    ``règlement`` and one to :data:`NAME_MAX_WORDS` words, the first capitalised as a name is
    ("directive Oiseaux", "règlement Taxonomie", "règlement MiCA"), with no digit but a short number
    (:func:`name_numbers_ok`) and naming no Luxembourg ("règlement grand-ducal …" is a Luxembourg
    act's form). Kind ``popular``, checked as the English order is (issue #15: "directive Oiseaux"
    answered the acts whose texts speak of birds, though the Birds Directive is not held; the
    French names of held acts that their names do not carry are reviewed aliases,
    ``derive/index/aliases.json``). Pure."""
    if not 2 <= len(raw_words) <= NAME_MAX_WORDS + 1 or not raw_words[1][:1].isupper():
        return None
    form = FORM_FIRST_FORMS.get(normalize(raw_words[0]))
    name = normalize(" ".join(raw_words[1:])).split()
    kept = tuple(w for w in name if not relax.relaxable(w))
    if form is None or not kept or kept[0] in _FORM_FIRST_NOT_NAMES or not name_numbers_ok(name) \
            or set(name) & (LUXEMBOURG_WORDS | SUBJECT_LINKS):
        return None
    return ActName("popular", kept, " ".join([normalize(raw_words[0]), *name]), form=form, bare=" ".join(name))


#: The words by which a user says the act named next is the EU's ("EU air passenger rights regulation").
EU_MARKS = frozenset({"EU", "E.U."})
#: A number in a popular name ("Euro 7", "PSD 2") has at most this many digits: a longer one is a
#: year or an act number, which name acts otherwise.
NAME_NUMBER_DIGITS = 2


def name_numbers_ok(name: Sequence[str]) -> bool:
    """Whether a popular name's digits are those of a short number standing as a word of its own
    beside another word ("Euro 7": the act's generation), not a year, an act number or a word with
    digits in it. Pure."""
    numbered = [w for w in name if any(c.isdigit() for c in w)]
    return all(w.isdigit() and len(w) <= NAME_NUMBER_DIGITS for w in numbered) and len(numbered) < len(name)


def eu_marked_name(before: Sequence[str], form: str) -> ActName | None:
    """The popular name of an EU act written in lower case after the user's ``EU``: one to
    :data:`NAME_MAX_WORDS` lower-case words, none with a digit nor naming Luxembourg, between a word
    of :data:`EU_MARKS` and the lower-case ``form`` (the words before the form, ``before``, as
    written). Pure."""
    run: list[str] = []
    for word in reversed(before):
        if word in EU_MARKS:
            name = normalize(" ".join(run)).split()
            kept = tuple(w for w in name if not relax.relaxable(w))
            if kept and not any(c.isdigit() for w in run for c in w) and not set(name) & LUXEMBOURG_WORDS:
                return ActName("popular", kept, " ".join([*name, form]), form=form, bare=" ".join(name))
            return None
        if word[:1].isupper() or len(run) == NAME_MAX_WORDS:
            return None
        run.insert(0, word)
    return None


def without_question_frame(terms: Sequence[str], measures: Collection[str] = ()) -> list[str]:
    """The search words of a question asked in plain words without the words that only frame it
    (:data:`derive.index.relax.QUESTION_WORDS`: "combien", "peut-on", "faut-il", "must", "wie",
    "darf" …), when at least two other words are left: "peut-on licencier un salarié en arrêt
    maladie" searches ``licencier salarie arret maladie``. A law does not ask a question, so
    requiring such a word finds the provisions that happen to hold it (staff rules, collective
    agreements) before the act that answers. With fewer words left they are kept (the question
    may be about little else). With a frame word, the subject pronoun of an inverted question
    ("peut-il", "faut-il", "dois-je": :data:`derive.index.relax.QUESTION_PRONOUNS`) goes too, and so
    do the ``measures`` the question asks for after its interrogative ("combien de *temps*", "how
    *fast*": :func:`derive.index.relax.frame_pair_words`)."""
    frame = relax.QUESTION_WORDS | relax.QUESTION_PRONOUNS if any(t in relax.QUESTION_WORDS for t in terms) \
        else relax.QUESTION_WORDS
    frame = frame | set(measures)
    kept = [t for t in terms if t not in frame]
    return kept if len(kept) >= 2 else list(terms)


#: A language is one an index holds text in when at least this share of its provisions' states are in it.
TEXT_LANGUAGE_SHARE = 0.05


def load_text_languages(conn: sqlite3.Connection) -> frozenset[str]:
    """The languages an index holds text in: at least :data:`TEXT_LANGUAGE_SHARE` of its lexical
    states (Legilux: ``fr``; its few German states, the Constitution, do not make it German)."""
    rows = conn.execute("SELECT language, COUNT(*) FROM lexical_states GROUP BY language").fetchall()
    total = sum(int(n) for _, n in rows)
    return frozenset(str(lang) for lang, n in rows if int(n) >= TEXT_LANGUAGE_SHARE * total)


def text_languages(index: MountedIndex) -> frozenset[str]:
    """:func:`load_text_languages` of a mounted index, read once."""
    return index.memo("text_languages", load_text_languages)


def translated(terms: Sequence[str], words: Sequence[str], held: frozenset[str], covered: Collection[str] = (),
               vocabulary: Callable[[str], bool] | None = None
               ) -> tuple[list[str], dict[str, list[str]], dict[str, Any] | None]:
    """The search words of a question in a language the index holds no text in (``words``: all its
    normalised words, for telling the language; ``held``: :func:`text_languages`; ``covered``: the
    terms the synonym file maps to French terms already), its words' French terms, and the report;
    the terms unchanged when the question is in a held language, not told, or cannot be translated
    whole (:func:`derive.index.xlang.translate`; ``vocabulary``: whether the index holds a word, for
    a German or English learned word's cognates). Pure (``vocabulary`` aside)."""
    language = xlang.query_language(words)
    if language not in xlang.SOURCES or language in held or "fr" not in held:
        return list(terms), {}, None
    found = xlang.translate(terms, language, covered, vocabulary)
    if not found.used and not found.dropped and not found.fillers:
        return list(terms), {}, None
    report: dict[str, Any] = {"language": language, "used": found.used, "dropped": found.dropped}
    if found.untranslated:
        report["untranslated"] = found.untranslated
    if found.fillers:
        report["fillers"] = found.fillers
    return found.terms, found.alternatives, report


def holds_word(index: MountedIndex, word: str) -> bool:
    """Whether the index holds ``word`` (normalised) in its text vocabulary."""
    with index.session(VOCABULARY_SECONDS) as conn:
        return conn.execute("SELECT 1 FROM vocabulary WHERE term = ?", (word,)).fetchone() is not None


#: Letters a question's normalising leaves alone that are never its words: the English possessive
#: ("a provider*'s* policy", "an installation*'s* production"), the French elided pronouns and the
#: euphonic « t » (« *s'*appliquent », « *j'*ai », « *m'*a », « a-*t*-on »). Planned as search words they
#: were required in every provision (concepteu34, issue #15: "what a financial entity's policy …"
#: required « s », which the French text and a few English possessives hold, not the answer's
#: article). « l », « d », « n » are not among them: « l' » and « d' » are held by every French
#: provision, and « n » is the number sign of « n° » in a name.
ELIDED_LETTERS = frozenset({"s", "j", "m", "t"})


def question_stop_words(tokens: Sequence[str], language: str | None) -> Collection[str]:
    """The words a question's search words leave out (``tokens``: its normalised words, stop words
    included; ``language``: the caller's language filter): the query parser's stop words
    (:data:`derive.index.query.STOP_WORDS`) and the stop words of one language that are content
    words of another (:data:`derive.index.relax.CONTENT_ELSEWHERE`: « l'*Our* », « sans *but* lucratif »,
    "can my *son* inherit", "dog *fur*"), except those this question uses as content words
    (:func:`derive.index.relax.content_stop_words`). The question's language is told by its other
    words (:func:`derive.index.xlang.query_language` without the colliding words, which would
    otherwise vote for the language that lists them), else taken from ``language``. Pure."""
    colliding = [t for t in tokens if t in relax.CONTENT_ELSEWHERE]
    if not colliding:
        return STOP_WORDS
    told = xlang.query_language([t for t in tokens if t not in relax.CONTENT_ELSEWHERE]) or language
    kept = relax.content_stop_words(tokens, [told] if told else [])
    return (STOP_WORDS | set(colliding)) - kept


def _role(profiles: Mapping[int, ranking.WorkProfile], work: int) -> str | None:
    profile = profiles.get(work)
    return profile.role if profile is not None else None


#: Words that make the year after them the question's time ("en 1997", "in 2015", "im Jahr 2000",
#: "during 1990"), not a word of the act: "loi de 1979" (of) names the act's year and stays.
_TIME_PREPOSITIONS = frozenset({"en", "in", "im", "during", "durant", "pendant"})
_TIME_YEAR = re.compile(r"(?:1[89]|20)\d\d")
#: Words that ask for the act's state in a year ("dans sa version de 2017", "version 2020", "as of
#: 2018", "Stand 2017", "Fassung 2000", « version applicable en 2015 »): a run of frame words just
#: before the year holding one of these heads (or ending in "as of") …
_TIME_FRAME_HEADS = frozenset({"version", "versions", "fassung", "stand"})
_TIME_FRAME_LINKS = frozenset({"de", "du", "of", "vom", "von", "from"})
#: … the frame words (links, prepositions and the words of « version consolidée applicable », of "as it
#: stood in", « telle qu'en vigueur en »).
_TIME_FRAME_WORDS = _TIME_FRAME_HEADS | _TIME_FRAME_LINKS | _TIME_PREPOSITIONS | frozenset(
    {"as", "at", "dans", "sa", "its", "the", "der", "au", "le", "applicable", "vigueur", "force", "consolidee",
     "consolidated", "geltende", "geltenden", "gultig", "gultigen", "valid", "it", "stood", "applied", "telle",
     "tel", "tels", "telles", "qu", "kraft", "valable", "mois", "month", "monat", "annee", "year", "jahr", "jahre"})
#: A frame without a head word asks for the state at a time when it says "stood" or "applied" ("as it
#: stood in 1980"), "applicable", "valid" (« règlement valable en 2012 », "law applicable in 2012") or "in
#: force" (« telle qu'en vigueur en 2009 », "as in force in 2019").
_TIME_FRAME_VERBS = frozenset({"stood", "applied", "applicable", "valable", "valid", "gultig", "gultigen", "geltende",
                               "geltenden"})
_TIME_FRAME_PAIRS = frozenset({("in", "force"), ("en", "vigueur"), ("in", "kraft")})
#: Words that bound the question's time by a year ("avant 1993", "before 2021", "bis 2017", "seit 2018",
#: « entre 2017 et 2019 »): the year says when, it is no word of the act …
_TIME_BOUNDS = frozenset({"avant", "apres", "before", "after", "until", "till", "bis", "vor", "nach", "seit", "since",
                          "depuis", "jusqu", "jusque", "entre", "between", "zwischen", "cours"}) | _TIME_PREPOSITIONS
#: … or a part of it ("end of 2015", « début 2019 », "Anfang 2019", "mid-2018", « fin 2018 ») …
_TIME_PARTS = frozenset({"end", "early", "late", "mid", "beginning", "debut", "fin", "mi", "anfang", "ende", "mitte"})
#: … or a range of years (« entre 2017 et 2019 », "from 2012 to 2014", « de 2012 à 2014 », "von 2012 bis 2014").
_TIME_RANGE_LINKS = frozenset({"et", "and", "und", "to", "a", "au", "bis", "until", "till", "jusqu"})
#: "et", "and", "und" make a range only after a word that opens one (« entre 2017 et 2019 », "between
#: 2012 and 2014"): « en 2016 et 2018 », "in 2016 and in 2018" name two times (a comparison), and the second
#: year stays a word as before.
_TIME_CONJUNCTIONS = frozenset({"et", "and", "und"})
_TIME_RANGE_STARTS = frozenset({"from", "de", "du", "von", "vom", "entre", "between", "zwischen", "since", "depuis",
                                "seit"})
#: A year followed by a version head is the question's time too ("the 2015 version of …", « in der 2012
#: geltenden Fassung »), unless a link names it the act's year (« directive de 2000, version … »).
_TIME_HEADS_AFTER = frozenset({"version", "versions", "fassung"})
#: … also through a change named by its year ("before the 2020 amendment", « avant sa modification de
#: 2018 », « avant la réforme de 2025 », "vor der Änderung 2019"): the change's words go with the year.
_TIME_CHANGES = frozenset({"amendment", "amendments", "modification", "modifications", "reform", "reforme",
                           "revision", "anderung", "novelle", "recast", "refonte", "change", "changes"})
_TIME_BOUND_FILLERS = _TIME_CHANGES | _TIME_FRAME_LINKS | _TIME_PARTS | frozenset(
    {"the", "its", "their", "sa", "son", "ses", "la", "le", "l", "der", "die", "das", "au", "annee", "year", "jahr",
     "jahre", "jahres", "an"})
_TIME_BOUND_REACH = 5


def _frame_words_before(tokens: Sequence[str], at: int) -> range:
    """The positions of the run of frame words (:data:`_TIME_FRAME_WORDS`) just before ``at``. Pure."""
    j = at - 1
    while j >= 0 and tokens[j] in _TIME_FRAME_WORDS:
        j -= 1
    return range(j + 1, at)


def _time_frame(tokens: Sequence[str], at: int) -> range | None:
    """The frame words just before position ``at`` (:func:`_frame_words_before`) when they ask for a
    state at a time: a head word, "as of", a verb of state or "in force"; else ``None``."""
    run = _frame_words_before(tokens, at)
    frame = tokens[run.start:at]
    if (_TIME_FRAME_HEADS & set(frame) or frame[-2:] == ["as", "of"] or _TIME_FRAME_VERBS & set(frame)
            or any(pair in _TIME_FRAME_PAIRS for pair in itertools.pairwise(frame))):
        return run
    return None


def _time_bound(tokens: Sequence[str], at: int) -> range | None:
    """The bound word before position ``at`` and the words between (:data:`_TIME_BOUND_FILLERS`, at
    most :data:`_TIME_BOUND_REACH`): « avant 1993 », "before the 2020 amendment"; else ``None``."""
    j, start = at - 1, None
    while j >= 0 and at - j <= _TIME_BOUND_REACH and tokens[j] in _TIME_BOUND_FILLERS | _TIME_BOUNDS:
        if tokens[j] in _TIME_BOUNDS:  # the farthest: « jusqu'en 2015 », « au cours de l'année 2015 »
            start = j
        j -= 1
    if start is not None:  # a time preposition just before the year stays, as before (« en 1997 »)
        return range(at if start == at - 1 and tokens[start] in _TIME_PREPOSITIONS else start, at)
    if at and tokens[at - 1] in _TIME_PARTS:  # « fin 2018 », "Anfang 2019"
        return range(at - 1, at)
    if at >= 2 and tokens[at - 1] in _TIME_FRAME_LINKS and tokens[at - 2] in _TIME_PARTS:  # "end of 2015"
        return range(at - 2, at)
    return None


#: A month and year just after an act's form word and a link ("loi de juillet 2006", "règlement grand-ducal
#: de mars 2021", "Gesetz vom Mai 2021", "act of June 2006") are the act's date, which names it: not the
#: question's time (:func:`time_years`).
_ACT_DATE_LINKS = frozenset({"de", "du", "d", "des", "of", "vom", "von"})
_ACT_DATE_FORMS = frozenset(ACT_FORMS) | SUBJECT_FORMS | frozenset({"act", "law", "ducal", "ducale"})


def _names_act_date(tokens: Sequence[str], month: int) -> bool:
    """Whether the month at position ``month`` dates an act named just before it (a form word, then
    a link: :data:`_ACT_DATE_FORMS`, :data:`_ACT_DATE_LINKS`). Pure."""
    return month >= 2 and tokens[month - 1] in _ACT_DATE_LINKS and tokens[month - 2] in _ACT_DATE_FORMS


def time_years(tokens: Sequence[str]) -> set[int]:
    """Positions of the years a time preposition introduces ("… compatibilité électromagnétique en
    1997", "im Jahr 2000"): the question's time, not a word the act's text must hold (kept as a
    term, it would ask the text to hold the year); of the years a version frame introduces
    (« dans sa version de 2017 », "version 2020", "as of 2018", « Stand 2017 », "as it stood in 1980",
    « telle qu'en vigueur en 2009 »), with the frame's words (:func:`_time_frame`); of the years a
    bound introduces (« avant 1993 », "before the 2020 amendment", « entre 2017 et 2019 »), with the
    bound's words (:func:`_time_bound`) and a change word just after ("amendment"); a month name before
    the year (« en février 2021 », "as of June 2026", "im Mai 2021") goes with it, unless it dates the act
    named just before it ("loi de juillet 2006": :func:`_names_act_date`). Pure."""
    out: set[int] = set()
    for i, t in enumerate(tokens):
        if not (i and _TIME_YEAR.fullmatch(t)):
            continue
        at = i - 1 if tokens[i - 1] in MONTHS and not _names_act_date(tokens, i - 1) else i
        if at < i:
            out |= {at, i}
        prev = tokens[at - 1] if at else ""
        if prev in _TIME_PREPOSITIONS or (prev in {"jahr", "jahre"} and at >= 2 and tokens[at - 2] == "im"):
            out |= {at - 1, i} if at < i else {i}
        if prev in _TIME_RANGE_LINKS and at >= 2 and _TIME_YEAR.fullmatch(tokens[at - 2]) \
                and ((at - 2 in out and prev not in _TIME_CONJUNCTIONS)
                     or (at >= 3 and tokens[at - 3] in _TIME_RANGE_STARTS)):
            out |= {at - 3, at - 2, at - 1, i} if at - 2 not in out else {at - 1, i}
        after = i + 1
        while after < len(tokens) and tokens[after] in _TIME_FRAME_VERBS:  # « 2012 geltenden Fassung »
            after += 1
        if after < len(tokens) and tokens[after] in _TIME_HEADS_AFTER and prev not in _TIME_FRAME_LINKS:
            out |= set(range(i, after + 1)) | set(_frame_words_before(tokens, at))
        frame = _time_frame(tokens, at)
        if frame is not None:
            out |= set(frame) | {i}
        bound = _time_bound(tokens, at)
        if bound is not None:
            out |= set(bound) | {i} | set(_time_frame(tokens, bound.start) or ())  # "as of end of 2015"
            k = i + 1
            while k < len(tokens) and tokens[k] in _TIME_CHANGES:
                out.add(k)
                k += 1
    return out


def _named_by_own_form(tokens: Sequence[str], consumed: Collection[int], numbers: Collection[str], left: str,
                       role: str, own_role: str | None) -> bool:
    """Whether the question names its one act by the act's own form (:func:`ranking.names_own_form`)
    rather than asking for the acts holding ``role`` towards it: the whole of ``left`` is the form
    name, or the words just before the act's number are ("Durchführungsverordnung (EU) 2022/423 der
    Kommission", "règlement d'exécution (UE) 2025/848 de la Commission", "Implementing Regulation
    (EU) No 680/2014 on supervisory reporting": the form, the number, then the institution or title
    words) and the words after it ask no role of their own ("… 2016/7 amendments" still does)."""
    if ranking.names_own_form(left, role, own_role):
        return True
    at = [i for i, t in enumerate(tokens) if t in numbers and i in consumed]
    if not at:
        return False
    before = " ".join(t for i, t in enumerate(tokens[:at[0]]) if i not in consumed)
    after = " ".join(t for i, t in enumerate(tokens) if i > at[-1] and i not in consumed)
    return ranking.names_own_form(before, role, own_role) and (not after or ranking.role_intent(after) is None)


#: Words that make the article after them one the asked act's title cites, not the question's article:
#: « portant dérogation à l'article L. 121-6 du Code du travail », « portant exécution de l'article 143 de
#: la loi … », "derogating from Article 193 of Directive 2006/112/EC", « zur Durchführung von Artikel 5 ».
_CITING_WORDS = frozenset({"derogation", "derogations", "derogeant", "deroger", "derogating", "derogate",
                           "execution"}) | GERMAN_CITING_WORDS
_CITING_REACH = 4
_ASKING_PREPOSITIONS = frozenset({"under", "in", "per", "by", "pursuant", "according", "selon", "dans", "par", "en",
                                  "nach", "gemass", "im", "laut"})
_CITING_LINKS = frozenset({"a", "l", "au", "aux", "de", "des", "du", "la", "le", "from", "of", "to", "the", "von",
                           "vom", "zu", "zur", "der"})


def cited_article(parsed: ParsedQuery) -> list[str]:
    """The words of the question's article when a citing word (:data:`_CITING_WORDS`) stands just
    before it (at most :data:`_CITING_REACH` words back, over the links « à l' », "from", « aux » and
    at most one other word, « dérogation temporaire à l'article »):
    the asked act is the one whose title cites that article of another act, so its number and the
    other act's name are words of that title; else ``[]``. Pure."""
    if parsed.article is None:
        return []
    folded = normalize(parsed.raw)
    text = normalize(parsed.article.text)
    at = folded.find(text)
    if at < 0:
        return []
    before = folded[:at].split()
    j, skipped = len(before) - 1, 0
    while j >= 0 and len(before) - j <= _CITING_REACH and before[j] not in _CITING_WORDS:
        if before[j] not in _CITING_LINKS:
            skipped += 1  # one word between: « dérogation temporaire à l'article »
            if skipped > 1 or before[j] in _ASKING_PREPOSITIONS:
                return []  # "derogations under Article 23": the article asked for itself
        j -= 1
    if j < 0 or before[j] not in _CITING_WORDS:
        return []
    return [t for t in text.split() if t not in {"article", "articles", "art", "artikel", "artikeln"}]


def build_plan(index: MountedIndex, parsed: ParsedQuery, works: Sequence[str] | None,
               profiles: Mapping[int, ranking.WorkProfile] | None = None, frequent: Frequent | None = None,
               *, language: str | None = None, enacted: Enacted | None = None) -> Plan:
    """The plan of a query against one publisher (see the module docstring); ``language``, the
    caller's language filter: a question asked of the text in its own language is never translated;
    ``enacted``, for a question asked as of a date, the works of a name held by then (a name
    naming none of them is no mention: its words stay terms)."""
    plan = Plan(terms=[], article_key=parsed.article.key if parsed.article else None, anchor=None, mentions=[],
                constraints=[], explicit_works=bool(works))
    cited = cited_article(parsed)
    if cited:
        plan.article_key = None
    _identifier_mentions(index, parsed, plan)
    numbers, numbers_held = _act_number_mentions(index, parsed, plan) if index.publisher.value == "eu-eurlex" \
        else (set(), False)
    tokens = [t for t in normalize(parsed.residual.replace('"', " ")).split()]
    # a cited article's act is named by words of the asked act's title (« … du Code du travail »)
    consumed = set() if cited else _name_mentions(index, tokens, normalize(parsed.raw), plan, profiles, frequent,
                                                  enacted)
    consumed |= {i for i, t in enumerate(tokens) if t in numbers}
    consumed |= time_years(tokens)
    phrases = [normalize(p) for p in parsed.phrases]
    phrase_tokens = {t for p in phrases for t in p.split()}
    stops = question_stop_words(tokens, language)
    plan.terms = [t for i, t in enumerate(tokens) if i not in consumed and t not in stops and t not in phrase_tokens
                  and t not in ELIDED_LETTERS]
    plan.terms += [t for t in cited if not (len(t) == 1 and t.isalpha())]  # « L. 121-6 »: 121, 6
    plan.terms = list(dict.fromkeys(plan.terms)) + [p for p in phrases if p and p not in plan.terms]
    plan.terms = without_question_frame(plan.terms, relax.frame_pair_words(tokens) | relax.frame_end_words(tokens))
    plan.terms, plan.synonyms = relax.with_synonyms(plan.terms, analysis.stem_word, xlang.query_language(tokens))
    held = text_languages(index) | ({language} if language else set())
    plan.terms, french, plan.translations = translated(plan.terms, tokens, held, plan.synonyms,
                                                       functools.partial(holds_word, index))
    for term, alternatives in french.items():  # OR-ed with the word, as a synonym is
        plan.synonyms[term] = list(dict.fromkeys([*plan.synonyms.get(term, []), *alternatives]))
    if works:
        plan.constraints = explicit_works(index, works)
    else:
        plan.constraints = sorted({w for m in plan.mentions if m.status == "resolved" and not m.soft
                                   for w in m.works})
    known = profiles or {}  # a compilation is not boosted (each soft work looked up, not every profile scanned)
    plan.boost = sorted(w for w in {w for m in plan.mentions if m.soft for w in m.works} - set(plan.constraints)
                        if (p := known.get(w)) is None or p.role != "compilation")
    plan.act_number = bool(_ACT_NUMBER.search(parsed.raw)) and not plan.strong
    # only where act numbers are resolved (EUR-Lex): elsewhere the number is words of the text
    # (a Luxembourg act citing "règlement (UE) 2016/679" is found by them)
    plan.act_reference_only = plan.act_number and index.publisher.value == "eu-eurlex" and not works \
        and not numbers_held and reference_only(plan.terms)
    plan.number_not_held = plan.act_number and index.publisher.value == "eu-eurlex" and not works \
        and not numbers_held and unheld_number_cited(parsed.raw) and not number_held_as_any_kind(index, parsed) \
        and not number_in_titles(index, parsed)
    left = " ".join(t for i, t in enumerate(tokens) if i not in consumed)
    intent = ranking.role_intent(left) if len(plan.constraints) == 1 and not plan.article_key and left else None
    if intent is not None and _named_by_own_form(tokens, consumed, numbers, left, intent[0],
                                                 _role(known, plan.constraints[0])):
        intent = None
    if intent is not None:
        plan.intent = intent[0]
        plan.terms = [t for t in plan.terms if t not in intent[1] and t not in ranking.INTENT_WORDS]
    return plan
