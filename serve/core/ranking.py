"""Work-level facts the search ranks and filters by: status, role, hierarchy; priors; role intent.

A **work profile** is read once per mounted index from the index's own tables (the newest
version the publisher still lists, its titles, its document type) and kept in memory:

- ``status``: ``in_force`` / ``repealed`` / ``not_yet`` / ``unknown`` — EUR-Lex: the newest
  version's ``in_force_status`` (``1`` in force, ``0`` not in force); Legilux: its applicability
  (``applicable``, ``not-applicable``, ``not-yet-applicable``).
- ``role``: ``principal`` / ``amending`` / ``delegated`` / ``implementing`` / ``corrigendum`` /
  ``budget`` (a Legilux yearly budget law, ``… concernant le budget des recettes et des dépenses de
  l'État pour l'exercice …``: it amends dozens of acts each year, so its provisions hold every fiscal
  and social subject; weighed as an amending act and listed among no act's related acts) /
  ``compilation`` (a Legilux *recueil*: a thematic collection of texts, not an act) —
  from the document type (``…_DEL``, ``…_IMPL``, ``CORRIGENDUM``, a CELEX ``…R(NN)`` slug) and,
  for acts whose only object is another act, from the official title: the words right after the
  act's date (``… of 20 May 2019 amending Regulation …``, ``Loi du 9 août 2018 modifiant …``,
  ``Règlement grand-ducal … portant exécution de l'article …``). The publisher's ``amending``
  document role is *not* used: EUR-Lex sets it on principal acts that also amend others (the
  CRR, Solvency II).
- ``hierarchy``: EUR-Lex ``primary`` / ``secondary`` (publisher ``hierarchy``); Legilux
  ``constitution`` / ``law`` (lois, codes) / ``regulation`` (règlements and arrêtés) / ``other``.
- ``code``: a Legilux code (document type ``CODE``: the Code du travail, civil, pénal …), the
  principal act of its field whose title names none of its subjects: the search takes it for a
  question's principal treatment when it holds the words in more provisions than any other act
  (``serve.core.ops.search.dominant_work``).

**Priors** (:data:`STATUS_PRIOR`, :data:`ROLE_PRIOR`) multiply a keyword hit's relevance
(``-bm25``) when works are ranked: a principal act in force keeps its score, a repealed
predecessor, an amending, delegated or implementing act or a corrigendum needs a clearly better
text match to outrank it; so does, on Legilux, a regulation or another text (a collective agreement,
an assembly's rules) against a law or code (:data:`HIERARCHY_PRIOR`, ``docs/search.md``). A
*texte coordonné* (``TC``) restates another act: a compilation. With ``as_of`` the status prior is not applied (the date already
chooses the state). The weights are module constants, documented in
``docs/retrieval-benchmark.md`` §8, and tuned only on the tuning split of the judgments.

**Parents** (:func:`parent_act`): a subordinate work (a Legilux regulation; an amending,
implementing or delegated act) executes the held principal act its provisions cite most (at least
:data:`PARENT_MIN_CITATIONS` times); the search places that act before it when the query names its
subject. **Title subjects** (:func:`title_subject`, :func:`subject_words`): an official title's
words after the act's date (on Legilux without the relation verb that opens them, « réglant »,
« fixant », « ayant pour objet »: :func:`lu_subject_opening`); the share of them a query holds weighs a
work up, and works with a title of one subject are "acts of the same title".

**Titled by a share of the question** (:func:`titled_by_share`, :func:`after_titled`): an everyday question
holds more words than an act's title, and other ones; the acts whose names hold three or more of its subject
words, and a third of whose title subject it says, answer a Legilux section no provision answers whole —
after the section's hits on acts titled by two of the words.

**The own country** (:func:`without_own_country`): asked of Legilux, the words naming Luxembourg
("Luxembourg law on …", "Luxemburger …gesetz", "… au Luxembourg", "droit luxembourgeois") say which
country's law is meant, which every Legilux act is; they are left out of the words its text must hold.

**Role intent** (:func:`role_intent`): "which acts amend X", "what implements X", "actes
délégués du X", "Berichtigung X" with X a resolved work → the works holding that role towards X:
works whose provisions cite X (``citations``) or whose official title names X (its number, or a
Legilux act's date), filtered by their role. The act's own form name is not a role question
(:func:`names_own_form`): "Implementing Regulation (EU) 2025/848" names an implementing regulation.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
import sqlite3
import threading
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from derive.index.query import STOP_WORDS
from derive.index.text import fold, normalize

#: Multiplier of a work's relevance by its status (no ``as_of``).
STATUS_PRIOR: Mapping[str, float] = {"in_force": 1.0, "not_yet": 0.9, "unknown": 0.9, "repealed": 0.5}
#: Multiplier of a work's relevance by its role.
ROLE_PRIOR: Mapping[str, float] = {"principal": 1.0, "implementing": 0.7, "delegated": 0.7, "amending": 0.55,
                                   "budget": 0.55, "compilation": 0.4, "corrigendum": 0.3}
ROLES = ("amending", "delegated", "implementing", "corrigendum")
#: Multiplier of a work's relevance by its place in the hierarchy (Legilux: a law or code before the
#: regulations executing it and the other texts — collective agreements, assemblies' rules).
HIERARCHY_PRIOR: Mapping[str, float] = {
    "regulation": 0.85, "other": 0.7}

#: The hierarchy levels :func:`hierarchy_of` gives Legilux works (EUR-Lex ones are primary/secondary).
LU_HIERARCHIES = frozenset({"constitution", "law", "regulation", "other"})

_CORRIGENDUM_SLUG = re.compile(r"r\(\d{2}\)$")
#: The act's own header: everything up to its date (``of 20 May 2019``, ``du 9 août 2018``).
_HEADER = re.compile(r"^.*?\b(?:of|du|vom|des)\s+(?:1er\s+|\d{1,2}\.?\s*)\w+\s+(?:an\s+\w+\s+\()?\d{4}\)?\s*[,:]?\s*",
                     re.IGNORECASE | re.DOTALL)
_AMENDING_START = re.compile(r"^(?:amending|modifying|correcting|modifiant|portant\s+(?:\S+\s+)?(?:modification|derogation)|"
                             r"rectifiant|zur\s+anderung|zur\s+berichtigung|abrogeant|repealing)\b")
_IMPLEMENTING_START = re.compile(r"^(?:laying down (?:detailed rules|implementing|rules for the (?:application|implementation))|"
                                 r"implementing|portant (?:\S+\s+)?execution|pris en execution|fixant les modalites d.execution|"
                                 r"zur durchfuhrung|mit durchfuhrungsbestimmungen)\b")
_DELEGATED_START = re.compile(r"^(?:supplementing|completant|zur erganzung)\b")
#: A Legilux yearly budget law: ``Loi du 19 décembre 2020 concernant le budget des recettes et des
#: dépenses de l'État pour l'exercice 2021`` (folded title, after the act's date).
_BUDGET_START = re.compile(r"^concernant le budget des recettes et des depenses de l.etat pour l.exercice\b")
_LU_REGULATION = ("RGD", "AGD", "RMIN", "AMIN", "RGC", "AGC", "RI", "AM", "ARR")


@dataclass(frozen=True)
class WorkProfile:
    status: str
    role: str
    hierarchy: str | None
    title: str
    #: A Legilux code (document type ``CODE``: the Code du travail, civil, pénal, de commerce, de la
    #: consommation …): the principal act of its field, whose title names none of its subjects.
    code: bool = False

    def prior(self, with_status: bool = True) -> float:
        status = STATUS_PRIOR.get(self.status, 1.0) if with_status else 1.0
        return status * ROLE_PRIOR.get(self.role, 1.0) * HIERARCHY_PRIOR.get(self.hierarchy or "", 1.0)


def _status(value: str | None) -> str:
    v = (value or "").strip().lower()
    if v in {"1", "applicable", "in_force", "true"}:
        return "in_force"
    if v in {"0", "not-applicable", "not_in_force", "false"}:
        return "repealed"
    if v == "not-yet-applicable":
        return "not_yet"
    return "unknown"


#: A title folded (:func:`derive.index.text.fold`, its spaces collapsed) and where the act's own
#: header (:data:`_HEADER`) ends in it (``None``: no dated header).
TitleHead = tuple[str, int | None]


def title_head(title: str, heads: dict[str, TitleHead] | None = None) -> TitleHead:
    """The folded title and its header's end; ``heads`` remembers them for one table build (the
    profiles' roles and the title subjects read the same titles)."""
    found = heads.get(title) if heads is not None else None
    if found is None:
        text = " ".join(fold(title).split())
        header = _HEADER.match(text)
        found = (text, header.end() if header is not None else None)
        if heads is not None:
            heads[title] = found
    return found


def title_role(title: str, heads: dict[str, TitleHead] | None = None) -> str | None:
    """``amending`` / ``implementing`` / ``delegated`` when the title's first words after the
    act's date say the act's object is another act; ``budget`` for a Legilux yearly budget law
    (:data:`_BUDGET_START`); ``None`` otherwise."""
    text, end = title_head(title, heads)
    rest = (text[end:] if end is not None else text).lstrip("0123456789.)°- ")
    if _AMENDING_START.match(rest):
        return "amending"
    if _IMPLEMENTING_START.match(rest):
        return "implementing"
    if _DELEGATED_START.match(rest):
        return "delegated"
    if _BUDGET_START.match(rest):
        return "budget"
    return None


def role_of(slug: str, document_type: str | None, titles: Iterable[str],
            heads: dict[str, TitleHead] | None = None) -> str:
    kind = (document_type or "").upper()
    # a Legilux recueil shelves texts on a subject; a CODE_RECUEIL is a code (Code de la route, and the
    # Code de la Sécurité sociale, identified by its 1925 law: loi-1925-12-17-n1), an act in its own right
    if slug.startswith(("recueil-", "tc-")) or kind in ("RECUEIL", "TC"):
        return "compilation"
    if "CORR" in kind or _CORRIGENDUM_SLUG.search(slug):
        return "corrigendum"
    if kind.endswith("_DEL"):
        return "delegated"
    if kind.endswith("_IMPL"):
        return "implementing"
    for title in titles:
        found = title_role(title, heads)
        if found:
            return found
    return "principal"


def hierarchy_of(raw: Mapping[str, Any], document_type: str | None, slug: str) -> str | None:
    value = str(raw.get("hierarchy") or "")
    if value:
        return value.split("_")[0]  # primary_eu_law → primary
    kind = (document_type or "").upper()
    if slug.startswith("constitution") or kind == "CONSTITUTION":
        return "constitution"
    if kind in {"LOI", "CODE"} or slug.startswith("code-") or slug.startswith("loi-"):
        return "law"
    if kind in _LU_REGULATION or slug.split("-")[0].upper() in _LU_REGULATION:
        return "regulation"
    return "other" if kind or slug else None


def load_profiles(conn: sqlite3.Connection, today: str = "9999-12-31",
                  heads: dict[str, TitleHead] | None = None) -> dict[int, WorkProfile]:
    """Every work's profile from its newest listed version valid by ``today`` (the build date; a
    future-dated state does not make a law "not yet" in force), see the module docstring
    (``heads``: :func:`title_head`)."""
    newest: dict[int, sqlite3.Row | tuple[Any, ...]] = {}
    for row in conn.execute(
            "SELECT v.work_rowid, v.version_rowid, v.in_force_status, v.raw, w.slug, w.document_type, v.valid_from "
            "FROM versions v JOIN works w ON w.work_rowid = v.work_rowid WHERE v.withdrawn = 0 "
            "ORDER BY v.work_rowid, v.valid_from, v.version_key"):
        if int(row[0]) not in newest or str(row[6]) <= today:
            newest[int(row[0])] = tuple(row)
    titles: dict[int, list[str]] = {}
    for rowid, value, language in conn.execute(
            "SELECT work_rowid, value, language FROM work_names WHERE kind = 'official_title' ORDER BY work_rowid"):
        if language in ("en", "fr", "de", ""):
            titles.setdefault(int(rowid), []).append(str(value))
    out: dict[int, WorkProfile] = {}
    for rowid, row in newest.items():
        _, _, in_force, raw_text, slug, document_type, _ = row
        try:
            raw = json.loads(raw_text) if raw_text else {}
        except ValueError:
            raw = {}
        names = sorted(titles.get(rowid, []), key=len, reverse=True)
        out[rowid] = WorkProfile(_status(in_force), role_of(str(slug), document_type, names, heads),
                                 hierarchy_of(raw if isinstance(raw, dict) else {}, document_type, str(slug)),
                                 names[0] if names else "", str(document_type or "").upper() == "CODE")
    return out


_CACHE: weakref.WeakKeyDictionary[Any, dict[int, WorkProfile]] = weakref.WeakKeyDictionary()
_SUBJECTS: weakref.WeakKeyDictionary[Any, dict[str, frozenset[int]]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def profiles(conn: sqlite3.Connection, index: Any) -> dict[int, WorkProfile]:
    """The profiles of ``index``'s works, read once per mounted index — with its works by title
    subject (:func:`subjects`): both read every official title, folded and cut once for both
    (:func:`title_head`; about a third of their CPU on a full index)."""
    with _LOCK:
        found = _CACHE.get(index)
    if found is None:
        heads: dict[str, TitleHead] = {}
        found = load_profiles(conn, str(getattr(index, "built_date", "9999-12-31")), heads)
        by_subject = works_by_subject(conn, heads)
        with _LOCK:
            _CACHE[index] = found
            _SUBJECTS[index] = by_subject
    return found


def subjects(conn: sqlite3.Connection, index: Any) -> dict[str, frozenset[int]]:
    """:func:`works_by_subject` of ``index``, read once per mounted index (with its profiles)."""
    with _LOCK:
        found = _SUBJECTS.get(index)
    if found is None:
        profiles(conn, index)
        with _LOCK:
            found = _SUBJECTS.get(index)
        if found is None:  # profiles put there by hand (tests): the subjects alone
            found = works_by_subject(conn)
            with _LOCK:
                _SUBJECTS[index] = found
    return found


# -- filters ------------------------------------------------------------------------------------

DOMAIN_KINDS = ("eurovoc", "eurovoc_alt_label", "eurovoc_broader", "eurovoc_subdomain", "eurovoc_domain", "directory")


def domain_works(conn: sqlite3.Connection, domain: str) -> set[int]:
    """Works carrying a EuroVoc concept / domain / directory code or Legilux subject ``domain``
    (its URI, the URI's last segment, or its label in any language)."""
    value = domain.strip()
    normalized = normalize(value)
    rows = conn.execute(
        "SELECT DISTINCT work_rowid FROM work_metadata WHERE (kind IN (" + ",".join("?" * len(DOMAIN_KINDS)) + ") "
        "OR kind LIKE 'legilux_subject%') AND (identifier = ? OR identifier LIKE ? OR normalized = ?)",
        (*DOMAIN_KINDS, value, "%/" + value.rsplit("/", 1)[-1], normalized))
    return {int(r[0]) for r in rows}


def hierarchy_works(profiles_: Mapping[int, WorkProfile], hierarchy: str) -> set[int]:
    wanted = fold(hierarchy).strip().split("_")[0]
    return {w for w, p in profiles_.items() if p.hierarchy == wanted}


# -- role intent --------------------------------------------------------------------------------

_INTENTS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("corrigendum", re.compile(r"\b(?:corrigend(?:um|a)|rectificatifs?|berichtigung(?:en)?)\b")),
    ("delegated", re.compile(r"\b(?:delegated|deleguee?s?|delegierte[nr]?|supplement(?:s|ing)?|complet(?:ent|ant))\b")),
    ("implementing", re.compile(r"\b(?:implement(?:s|ing|ation)?|execution|durchfuhrung(?:s\w*)?|executent)\b")),
    ("amending", re.compile(r"\b(?:amend(?:s|ing|ed|ments?)?|modif(?:ie|ient|iant|ications?|ier|iee?s?)|anderung(?:en)?|"
                            r"andern|geandert|andert)\b")),
)
#: Words of a role question that are not its subject ("which acts amend …").
INTENT_WORDS = frozenset(
    ["which", "what", "acts", "act", "regulations", "directives", "laws", "lois", "actes", "quels", "quelles", "welche", "rechtsakte", "texts", "textes", "has", "have", "been", "was", "were", "ont", "sont", "by", "par", "durch"])


#: The name of an act's own form, the role word qualifying its noun, and nothing else: "Commission
#: Implementing Regulation (EU)", "règlement délégué (UE)", "Durchführungsverordnung (EU)" (folded,
#: normalised words; the number is consumed before).
_OWN_FORM = re.compile(
    r"^(?:(?:commission|council|kommission)\s+)?"
    r"(?:(?:implementing|delegated)\s+(?:regulation|directive|decision)"
    r"|(?:reglement|directive|decision)\s+(?:d\s+execution|deleguee?)"
    r"|durchfuhrungs(?:verordnung|richtlinie|beschluss)"
    r"|delegierten?\s+(?:verordnung|richtlinie|beschluss))"
    r"(?:\s+(?:de\s+la\s+commission|du\s+conseil|der\s+kommission|des\s+rates))?"
    r"(?:\s+(?:eu|ue|eg|ce|no|n|nr))*$")


def names_own_form(text: str, role: str, own_role: str | None) -> bool:
    """Whether ``text`` — a question's words beside one resolved act — is that act's own form name
    and the act is of that role: "Implementing Regulation (EU) 2025/848" names an implementing
    regulation, it does not ask for the acts implementing it (issue #15: a held act asked by its full
    name answered only the act that amends it). "Implementing acts of Regulation (EU) 2025/848"
    stays a role question."""
    return own_role == role and _OWN_FORM.match(normalize(fold(text))) is not None


def role_intent(text: str) -> tuple[str, set[str]] | None:
    """``(role, words)`` when ``text`` asks for the acts holding a role towards a work; ``words``
    are the folded words that express the intent (dropped from the keyword terms)."""
    folded = fold(text)
    for role, pattern in _INTENTS:
        found = {m.group(0) for m in pattern.finditer(folded)}
        if found:
            return role, {w for f in found for w in normalize(f).split()}
    return None


def title_citation(slug: str) -> str | None:
    """How other acts' titles cite an EU act of secondary law by its number, normalised: a directive
    or decision year first (``2014 65`` for Directive 2014/65/EU, ``95 46`` for 95/46/EC), a regulation
    number first before 2015 (``575 2013``; ``4064 89`` for Regulation (EEC) No 4064/89) and year
    first since (``2016 679``); the year in two digits before 1999. ``None`` for any other slug. Pure
    (issue #15: the relation tables looked for ``65 2014``, which no title writes, so no act amending
    or implementing a directive of before 2015 was found by its title)."""
    celex = re.match(r"^3(\d{4})([rld])(\d{4})$", slug)
    if celex is None:
        return None
    year, kind, number = int(celex.group(1)), celex.group(2), str(int(celex.group(3)))
    cited_year = f"{year % 100:02d}" if year < 1999 else str(year)
    return f"{number} {cited_year}" if kind == "r" and year < 2015 else f"{cited_year} {number}"


def _reference(slug: str, title: str) -> str | None:
    """How other titles name the work: a CELEX act's number (:func:`title_citation`), a
    Legilux act's date (``8 avril 2018``)."""
    cited = title_citation(slug)
    if cited is not None:
        return cited
    match = re.search(r"\b(?:du|vom|of)\s+((?:1er|\d{1,2})\s+\w+\s+\d{4})", fold(title))
    return normalize(match.group(1)) if match else None


def title_reference(slug: str, title: str) -> str | None:
    """How other titles name the work (:func:`_reference`), normalised."""
    return _reference(slug, title)


def related_works(conn: sqlite3.Connection, profiles_: Mapping[int, WorkProfile], target: int, target_slug: str,
                  target_work_id: str, role: str, corrigenda: Iterable[int]) -> list[int]:
    """Works holding ``role`` towards ``target``: cited-by or named-in-title, newest slug first."""
    if role == "corrigendum":
        return list(corrigenda)
    return related_by_role(conn, profiles_, target, target_slug, target_work_id).get(role, [])


def related_by_role(conn: sqlite3.Connection, profiles_: Mapping[int, WorkProfile], target: int, target_slug: str,
                    target_work_id: str) -> dict[str, list[int]]:
    """The works citing ``target`` or naming it in their title, by their role, newest slug first
    (one pass for every role; corrigenda are the catalogue's)."""
    found = {int(r[0]) for r in conn.execute(
        "SELECT DISTINCT v.work_rowid FROM citations c JOIN expressions e ON e.expression_rowid = c.expression_rowid "
        "JOIN versions v ON v.version_rowid = e.version_rowid WHERE c.target_work_id = ?", (target_work_id,))}
    reference = _reference(target_slug, profiles_[target].title if target in profiles_ else "")
    titled: set[int] = set()
    if reference:
        titled = {int(r[0]) for r in conn.execute(
            "SELECT DISTINCT work_rowid FROM work_names WHERE kind = 'official_title' AND ' ' || normalized || ' ' "
            "LIKE ?", (f"% {reference} %",))}
        found |= titled
    found.discard(target)
    role_of = {w: profiles_[w].role for w in found if w in profiles_}
    for work in titled & set(role_of) if target_work_id.startswith("lu-legilux:") else ():
        if role_of[work] == "principal" and amends_in_title(profiles_[work].title, reference or ""):
            role_of[work] = "amending"  # a law of its own subject whose title also amends the target
        elif role_of[work] == "principal" and profiles_[work].hierarchy == "regulation" \
                and executes_in_title(profiles_[work].title, reference or ""):
            role_of[work] = "implementing"  # « prescrivant les mesures d'exécution de la loi du … »
    chosen = [w for w, role in role_of.items() if role in ROLES]
    slugs = dict(conn.execute(f"SELECT work_rowid, slug FROM works WHERE work_rowid IN ({','.join(map(str, chosen)) or 0})"))
    out: dict[str, list[int]] = {}
    for work in sorted(chosen, key=lambda w: str(slugs.get(w, "")), reverse=True):
        out.setdefault(role_of[work], []).append(work)
    return out


_AMENDS = re.compile(r"\b(?:modifiant|portant\s+(?:\S+\s+)?modification|et\s+modification)\b")


def amends_in_title(title: str, reference: str) -> bool:
    """Whether a title lists ``reference`` (another act's date or number, normalised) among the acts
    it amends: a modification phrase comes before the reference (``Loi du 18 juillet 2013 concernant
    des agents … et modifiant : … 9. la loi du 13 juillet 2006 portant réorganisation du CPOS``).
    Pure; Legilux titles only (issue #15: such an act is listed after the act named alone, as the
    amending acts are; a EUR-Lex principal act "… and amending Regulation …" keeps its role)."""
    folded = normalize(title)
    at = f" {folded} ".find(f" {reference} ") if reference else -1
    return at > 0 and _AMENDS.search(folded[:at]) is not None


#: The execution of another act, said in a title before it names that act: « mesures d'exécution de »,
#: « concernant l'exécution de », « pris en exécution de » (folded, normalised).
_EXECUTES = re.compile(r"\bexecution\s+(?:de|des|du|relatives?\s+a)\b")


def executes_in_title(title: str, reference: str) -> bool:
    """Whether a title says it executes the act it names by ``reference`` (another act's date,
    normalised): an execution phrase comes just before the reference, nothing but the cited act's
    form between them (« Règlement grand-ducal du 13 juin 1975 prescrivant les mesures d'exécution de
    la loi du 16 mai 1975 portant statut de la copropriété »). Pure; Legilux titles only (issue #15,
    en36: such a règlement keeps the role ``principal`` its title's opening verb gives it, so "implementing
    measures of the law on co-ownership" found no act implementing the law; the opening verbs
    :data:`_IMPLEMENTING_START` reads are « portant exécution », « pris en exécution », « fixant les
    modalités d'exécution »)."""
    folded = normalize(fold(title))
    at = f" {folded} ".find(f" {reference} ") if reference else -1
    if at <= 0:
        return False
    before = folded[:at].split()
    # the execution phrase, then at most the cited act's form and its qualifiers (« la loi modifiée du »)
    return _EXECUTES.search(" ".join(before[-8:])) is not None


# -- the principal act a subordinate hit executes -----------------------------------------------

#: A subordinate act's parent is cited at least this many times in its provisions.
PARENT_MIN_CITATIONS = 2
#: ... and its names hold at least this share of the query's content words (the query names its subject).
PARENT_MIN_COVERAGE = 0.25
_SUBORDINATE_ROLES = frozenset({"amending", "implementing", "delegated"})


def subordinate(profile: WorkProfile | None) -> bool:
    """Whether a work's object is another act: a Legilux regulation (règlement, arrêté) or an
    amending, implementing or delegated act."""
    return profile is not None and (profile.hierarchy == "regulation" or profile.role in _SUBORDINATE_ROLES)


def parent_act(cited: Iterable[tuple[int, int]], profiles_: Mapping[int, WorkProfile], child: int) -> int | None:
    """The principal act a subordinate work executes or modifies: of the works its provisions cite
    (``(work, citations)``, most cited first), the most cited principal act that is no regulation,
    cited at least :data:`PARENT_MIN_CITATIONS` times; ``None`` for a work that is not
    :func:`subordinate` or cites no such act."""
    if not subordinate(profiles_.get(child)):
        return None
    for work, count in sorted(cited, key=lambda wc: -wc[1]):
        profile = profiles_.get(work)
        if work == child or profile is None or profile.role != "principal" or profile.hierarchy == "regulation":
            continue
        return work if count >= PARENT_MIN_CITATIONS else None
    return None


def cited_works(conn: sqlite3.Connection, work: int, rowid_of: Mapping[str, int], publisher: str) -> list[tuple[int, int]]:
    """``(work, citations)`` of the held works of the same publisher that ``work``'s provisions cite."""
    prefix = publisher + ":"
    out = []
    for target, count in conn.execute(
            "SELECT c.target_work_id, COUNT(*) FROM versions v JOIN expressions e ON e.version_rowid = v.version_rowid "
            "JOIN citations c ON c.expression_rowid = e.expression_rowid WHERE v.work_rowid = ? "
            "AND c.target_work_id IS NOT NULL GROUP BY c.target_work_id", (work,)):
        slug = str(target)[len(prefix):] if str(target).startswith(prefix) else None
        if slug is not None and slug in rowid_of:
            out.append((rowid_of[slug], int(count)))
    return out


# -- acts of the same title ---------------------------------------------------------------------

#: A title's subject (its words after the act's date) names other acts only from this length on.
SUBJECT_MIN_CHARS = 12


def title_subject(title: str, heads: dict[str, TitleHead] | None = None) -> str | None:
    """The normalised words of an official title after the act's date (``Loi du 22 février 1968
    sur la nationalité luxembourgeoise`` → ``sur la nationalite luxembourgeoise``); ``None``
    without a dated header or when short."""
    text, end = title_head(title, heads)
    if end is None:
        return None
    subject = normalize(text[end:])
    return subject if len(subject) >= SUBJECT_MIN_CHARS else None


#: Where a title subject stops saying what the act is about and starts saying what it does to other
#: acts or how it was made (EN/FR/DE): ``… from renewable sources and amending …``, ``… (recast)``.
_SUBJECT_END = re.compile(
    r"\b(?:and amending|amending|and repealing|repealing|and subsequently|recast|codification|codified version|"
    r"text with eea|et modifiant|modifiant|et abrogeant|abrogeant|refonte|version codifiee|texte presentant|"
    r"zur anderung|und zur aufhebung|zur aufhebung|neufassung|text von bedeutung)\b")


def core_subject(subject: str) -> str | None:
    """A title subject (:func:`title_subject`) up to its first amending, repealing or recast clause
    (:data:`_SUBJECT_END`): what a recast shares with the act it recast (``on markets in financial
    instruments``); ``None`` when that leaves less than :data:`SUBJECT_MIN_CHARS`."""
    found = _SUBJECT_END.search(subject)
    core = (subject[:found.start()] if found else subject).strip()
    return core if len(core) >= SUBJECT_MIN_CHARS else None


def works_by_subject(conn: sqlite3.Connection, heads: dict[str, TitleHead] | None = None) -> dict[str, frozenset[int]]:
    """Title subject (:func:`title_subject`) or core subject (:func:`core_subject`) → the works with
    an official title of that subject, for subjects held by more than one work. A title the
    publisher cut short (:func:`truncated`: ``relative à la pr…``) says no subject."""
    found: dict[str, set[int]] = {}
    for rowid, value in conn.execute("SELECT work_rowid, value FROM work_names WHERE kind = 'official_title'"):
        if truncated(str(value)):
            continue
        subject = title_subject(str(value), heads)
        if subject is not None:
            found.setdefault(subject, set()).add(int(rowid))
            core = core_subject(subject)
            if core is not None and core != subject:
                found.setdefault(core, set()).add(int(rowid))
    return {s: frozenset(w) for s, w in found.items() if len(w) > 1}


#: Words of an official title after which the acts it names are the ones it repeals (EN/FR/DE).
_REPEALING = re.compile(r"\b(?:repealing|abrogeant|zur aufhebung|und aufhebung)\b")


def cited_number(slug: str) -> str | None:
    """How an EU act's number is written in other acts' titles, normalised: ``95 46`` (a directive
    or decision before 1999), ``2006 48``, ``575 2013`` (a regulation before 2015), ``2016 679``;
    ``None`` for a slug that is not a CELEX act of secondary law."""
    celex = re.match(r"^3(\d{4})([rld])(\d{4})$", slug)
    if celex is None:
        return None
    year, kind, number = int(celex.group(1)), celex.group(2), str(int(celex.group(3)))
    if kind == "r" and year < 2015:
        return f"{number} {year}"
    return f"{year % 100:02d} {number}" if year < 1999 else f"{year} {number}"


def repealers(conn: sqlite3.Connection) -> dict[str, frozenset[int]]:
    """Act number (:func:`cited_number` form) → the works whose official titles repeal it
    (:func:`repealed_numbers`): one pass over the titles, kept per mounted index."""
    found: dict[str, set[int]] = {}
    for rowid, value in conn.execute("SELECT work_rowid, normalized FROM work_names WHERE kind = 'official_title'"):
        for number in repealed_numbers(str(value)):
            found.setdefault(number, set()).add(int(rowid))
    return {n: frozenset(w) for n, w in found.items()}


def successors(repealing: Mapping[str, frozenset[int]], profiles_: Mapping[int, WorkProfile], target: int,
               target_slug: str) -> list[int]:
    """The principal acts in force whose official title repeals ``target`` (``… and repealing
    Directive 95/46/EC``: :data:`_REPEALING` then the act's number, :func:`cited_number`; ``repealing``:
    :func:`repealers`), newest first."""
    number = cited_number(target_slug)
    if number is None:
        return []
    found = {w for w in repealing.get(number, ()) if w != target and (p := profiles_.get(w)) is not None
             and p.status == "in_force" and p.role == "principal"}
    return sorted(found, reverse=True)


def repealed_numbers(title: str) -> set[str]:
    """The act numbers (:func:`cited_number` form) a normalised official title names after its
    repealing clause (:data:`_REPEALING`)."""
    repealing = _REPEALING.search(title)
    if repealing is None:
        return set()
    return set(repealed_in_order(title))


def repealed_in_order(title: str) -> list[str]:
    """:func:`repealed_numbers` in the order the title cites them: the act a title repeals first is
    the one it replaces (« … and repealing Directive 2003/6/EC of the European Parliament and of the
    Council and Commission Directives 2003/124/EC, 2003/125/EC and 2004/72/EC »: the Market Abuse
    Directive, then its implementing directives; titles28). Pure."""
    repealing = _REPEALING.search(title)
    if repealing is None:
        return []
    words = title[repealing.end():].split()
    return list(dict.fromkeys(f"{a} {b}" for a, b in itertools.pairwise(words) if a.isdigit() and b.isdigit()))


def predecessors(conn: sqlite3.Connection, target: int, numbered: Mapping[str, int]) -> list[int]:
    """The works ``target``'s official titles repeal (``… and repealing Directive 2003/71/EC``),
    found by their numbers (``numbered``: :func:`cited_number` → work), in the order a title cites
    them (:func:`repealed_in_order`: the act replaced first), the earliest place over its titles."""
    first: dict[int, int] = {}
    for (value,) in conn.execute("SELECT normalized FROM work_names WHERE kind = 'official_title' AND work_rowid = ?",
                                 (target,)):
        for place, number in enumerate(repealed_in_order(str(value))):
            if number in numbered and numbered[number] != target:
                work = numbered[number]
                first[work] = min(place, first.get(work, place))
    return sorted(first, key=lambda w: (first[w], -w))


#: Words of a title subject that say nothing of it (relation words, act forms, institutions).
_SUBJECT_NOISE = frozenset(
    ["relative", "relatif", "relatifs", "relatives", "concernant", "portant", "loi", "reglement", "grand", "ducal",
     "modifiee", "modifie", "modifiant", "modification", "code", "on", "concerning", "relating", "regulation",
     "directive", "decision", "amending", "implementing", "laying", "down", "certain", "certaines", "provisions",
     "dispositions", "eu", "ue", "ec", "ce", "eec", "cee", "no", "commission", "council", "conseil", "parliament",
     "european", "europeen", "parlement", "text", "texte", "eea", "eee", "relevance", "pertinence", "repealing",
     "abrogeant"])


#: Words that name an act's form or its author, not its subject, in any of the three languages
#: (the subject noise above, plus the act forms it leaves out).
FORM_WORDS = _SUBJECT_NOISE | frozenset(
    ["act", "acts", "law", "laws", "lois", "reglements", "regulations", "directives", "decisions", "arrete",
     "decret", "ordonnance", "gesetz", "verordnung", "richtlinie", "beschluss", "entscheidung", "treaty", "traite",
     "convention", "grossherzogliche", "grossherzoglichen",
     # as the normaliser writes it (it keeps « ß », as the index's tokenizer does): the form a question holds
     "großherzogliche", "großherzoglichen"])


#: Words with which a subordinate act's title frames what it lays down for another act rather than a
#: subject (FR/EN/DE): the implementing acts' "laying down *rules* for the application of Regulation …" /
#: "établissant les *règles* pour l'application du règlement …" / "mit *Vorschriften* …", the règlements
#: grand-ducaux' "fixant les *modalités* d'exécution …" (:func:`frames`).
FRAME_WORDS = frozenset(["rules", "rule", "regles", "regle", "regeln", "regel", "vorschriften", "bestimmungen",
                         "modalites"])


def says_subject(word: str) -> bool:
    """Whether a query word can say what an act is about: not an act form, relation word or
    institution (:data:`FORM_WORDS`). ``loi``, ``regulation`` and ``Verordnung`` are in
    almost every title, so a title holding them is not on a question's subject."""
    return word not in FORM_WORDS


def frames(word: str) -> bool:
    """Whether a query word is one with which a subordinate act's title frames what it lays down for
    another act (:data:`FRAME_WORDS`): such a title holding only that word of a question is not on its
    subject (issue #15: "règles de circulation pour les trottinettes électriques" kept an implementing
    regulation's annex listing scooters among unsold products, its title "établissant les règles pour
    l'application du règlement (UE) 2024/1781 …"). A principal act's "rules" are its subject's ("laying down
    rules on …"), so only acts whose object is another act (:func:`object_is_act`) are weighed so. Pure."""
    return word in FRAME_WORDS


def object_is_act(profile: WorkProfile | None) -> bool:
    """Whether a work's title says its object is another act (role amending, delegated, implementing or
    corrigendum, :data:`ROLES`; unlike :func:`subordinate`, not every Legilux regulation). Pure."""
    return profile is not None and profile.role in ROLES


#: Where a Legilux title subject turns to the acts the law amends, repeals or transposes
#: (``relative à la titrisation et portant modification de - la loi modifiée du 5 avril 1993 …``).
_LU_SUBJECT_END = re.compile(r"\b(?:et\s+)?portant\s+(?:\S+\s+)?(?:modification|transposition|abrogation)\b|"
                             r"\bet\s+(?:modifiant|abrogeant|transposant)\b")


def lu_own_subject(subject: str) -> str:
    """A Legilux title subject up to the clause listing the acts it amends, repeals or transposes,
    when that leaves at least :data:`SUBJECT_MIN_CHARS` (an amending law's whole subject is that
    clause: it is kept). Pure (issue #15: "titrisation" ranked the 2019 law implementing five EU
    regulations, whose short subject names it once, before the 2004 law on securitisation, whose
    subject was diluted by the nineteen words of the acts it amends)."""
    found = _LU_SUBJECT_END.search(subject)
    if found is None or len(subject[:found.start()].strip()) < SUBJECT_MIN_CHARS:
        return subject
    return subject[:found.start()].strip()


#: The relation phrase ``ayant pour objet`` opening a Legilux title subject (``Loi … ayant pour objet la
#: coordination des régimes légaux de pension``): it says how the act relates to its subject, not what it is.
_LU_OBJECT_OPENING = ("ayant", "pour", "objet")


def lu_subject_opening(words: Sequence[str]) -> int:
    """How many words open a Legilux title subject as its relation verb rather than its subject: a
    present participle (``réglant``, ``fixant``, ``déterminant``, ``établissant``, ``instituant``
    …, the word ending in ``-ant``, as ``portant`` and ``concernant`` are relation words everywhere)
    or ``ayant pour objet``; 0 otherwise. A question says the subject (« pensions des fonctionnaires
    de l'État »), never the verb, so the verb counted as a subject word kept the act a question names
    by its whole subject below acts titled by part of it (issue #15, lurank25). Pure."""
    if tuple(words[:3]) == _LU_OBJECT_OPENING:
        return 3
    return 1 if words and len(words[0]) > 4 and words[0].endswith("ant") else 0


def _title_subject_of(title: str, subjects_of: dict[str, str | None] | None) -> str | None:
    """:func:`title_subject` of ``title``, remembered in ``subjects_of`` when given (a pure function
    of the title: the same value whether remembered or not)."""
    if subjects_of is None:
        return title_subject(title)
    if title not in subjects_of:
        subjects_of[title] = title_subject(title)
    return subjects_of[title]


def subject_words(titles: Iterable[str], legilux: bool = False,
                  subjects_of: dict[str, str | None] | None = None) -> frozenset[str]:
    """The content words of a work's shortest official title subject (:func:`title_subject`; a
    title without a dated header counts only when it holds no number: ``Code du travail``); a
    Legilux subject without the acts it amends (:func:`lu_own_subject`) and without the relation
    verb that opens it (:func:`lu_subject_opening`). ``subjects_of`` remembers each title's
    :func:`title_subject` for the caller's next titles (:func:`title_subjects` reads each title twice)."""
    whole = [t for t in titles if not truncated(t)]
    subjects = [s for s in (_title_subject_of(t, subjects_of) for t in whole) if s]
    if legilux:
        subjects = [lu_own_subject(s) for s in subjects]
    if not subjects:
        subjects = [normalize(t) for t in whole if not any(c.isdigit() for c in t)]
    best: list[str] | None = None
    for subject in subjects:
        split = subject.split()
        start = lu_subject_opening(split) if legilux else 0
        words = [w for w in split[start:]
                 if w not in STOP_WORDS and w not in _SUBJECT_NOISE and len(w) > 2 and not w.isdigit()]
        if words and (best is None or len(words) < len(best)):
            best = words
    return frozenset(best or ())


class TitleSubjects(NamedTuple):
    """A work's title subject words (:func:`title_subjects`): the shortest subject of all its official
    titles (:func:`subject_words`), and per title language the subject of the titles in it: sets, or in
    the serving table distinct words in a sorted tuple (``serve.core.ops.search``; a tuple weighs a fifth
    of a set of its words)."""
    shortest: Collection[str]
    by_language: Mapping[str, Collection[str]]


def title_subjects(titles: Iterable[tuple[str, str]], legilux: bool = False) -> TitleSubjects:
    """The title subject words of a work's official titles (``(title, language)`` pairs): the
    shortest of all (:func:`subject_words`) and, for each language that has one, the subject of the
    titles in that language (issue #15, xeu29, docs/adr/0079). Pure."""
    pairs = list(titles)
    by_language: dict[str, list[str]] = {}
    for title, language in pairs:
        by_language.setdefault(language, []).append(title)
    subjects_of: dict[str, str | None] = {}  # each title's subject, read for the shortest and for its language
    shortest = subject_words([t for t, _ in pairs], legilux, subjects_of)
    found = {language: subject_words(by_language[language], legilux, subjects_of) for language in sorted(by_language)}
    return TitleSubjects(shortest, {language: shortest if words == shortest else words
                                    for language, words in found.items() if words})


#: The title languages a question's words are weighed against (:func:`title_language_subject`), per
#: language of the question: a German question is searched through the cross-language lexicon's French
#: terms, and no held act but the Constitution is titled in German, so its French titles are the ones its
#: terms can match. A French or English question keeps the shortest subject of all (measured: weighed
#: against its own language's titles, 11 readable cases rose and 5 fell; docs/adr/0079).
TITLE_LANGUAGES: dict[str, tuple[str, ...]] = {"de": ("de", "fr")}


def title_language_subject(subjects: TitleSubjects, language: str | None) -> Collection[str]:
    """The title subject a question in ``language`` is weighed against: the subject of the work's titles
    in the language its words are searched in (:data:`TITLE_LANGUAGES`), else — another language, the
    language not told, or no title in it — the shortest subject of all, as before (issue #15, xeu29,
    docs/adr/0079). An EUR-Lex act is titled in English and in French, and the shortest subject is almost
    always the English one ("on market abuse (market abuse regulation)"): a German question, searched
    through French terms, was weighed against English title words it can never hold, so every EU act
    counted as titled by none of it. Pure."""
    for candidate in TITLE_LANGUAGES.get(language or "", ()):
        if candidate in subjects.by_language:
            return subjects.by_language[candidate]
    return subjects.shortest


def truncated(title: str) -> bool:
    """Whether a title was cut short by the publisher's metadata (``… du 23 octobre 2019 sur la
    pro…``: most EUR-Lex works carry such a title beside the whole one); its subject is not the act's."""
    return title.rstrip().endswith(("…", "..."))


def title_precision(subject: Collection[str], asked: frozenset[str]) -> float:
    """The share of a title subject's words (distinct: a set, or a tuple of distinct words) that the
    query holds (``asked``: its words and their forms)."""
    if not subject:
        return 0.0
    return round(sum(1 for word in subject if word in asked) / len(subject), 4)


#: The words by which a question names Luxembourg itself (its name in French, English and German and
#: the German and English adjectives): asked of Legilux, they say which country's law is meant, which
#: every Legilux act is, so they are not words its text must hold. The French adjective
#: (``luxembourgeois``, ``luxembourgeoise``) counts only right after a word for the law itself
#: (:data:`OWN_LAW_WORDS`: ``droit luxembourgeois``, ``loi luxembourgeoise``); elsewhere it is part
#: of acts' subjects (``sur la nationalité luxembourgeoise``, ``l'économie luxembourgeoise``).
OWN_COUNTRY_WORDS = frozenset({"luxembourg", "luxemburg", "luxembourgish", "luxemburger", "luxemburgisch",
                               "luxemburgische", "luxemburgischen", "luxemburgischer", "luxemburgisches"})
OWN_COUNTRY_ADJECTIVES = frozenset({"luxembourgeois", "luxembourgeoise", "luxembourgeoises"})
OWN_LAW_WORDS = frozenset({"droit", "loi", "lois", "legislation", "reglementation"})
#: Words by which a question asks for the act that transposes a directive into national law (FR/EN/DE).
TRANSPOSITION_WORDS = frozenset({"transposing", "transposes", "transpose", "transposed", "transposition",
                                 "transposant", "transposee", "umsetzung", "umsetzt", "umsetzende",
                                 "umsetzenden", "umsetzendes"})
#: Words naming a country's law itself (FR/EN/DE), beside :data:`OWN_LAW_WORDS`.
LAW_WORDS = frozenset({"law", "laws", "act", "gesetz", "gesetze", "recht", "legislation", *OWN_LAW_WORDS})


def asks_own_law(tokens: Sequence[str]) -> bool:
    """Whether a question's (normalised) ``tokens`` ask for Luxembourg's own law: a word naming the
    country (:data:`OWN_COUNTRY_WORDS` outside a name, :func:`country_in_names`; the French adjective
    after a law word) beside a word for the law (:data:`LAW_WORDS`, or a German ``…gesetz`` compound),
    or a word asking for the act transposing a directive (:data:`TRANSPOSITION_WORDS`: only a member
    State transposes). Pure (issue #15: "Luxembourg law transposing MiFID II" was answered by
    EUR-Lex alone)."""
    if TRANSPOSITION_WORDS & set(tokens):
        return True
    in_names = country_in_names(tokens)
    country = any((t in OWN_COUNTRY_WORDS and t not in in_names)
                  or (t in OWN_COUNTRY_ADJECTIVES and i > 0 and tokens[i - 1] in OWN_LAW_WORDS)
                  for i, t in enumerate(tokens))
    return country and any(t in LAW_WORDS or (t.endswith("gesetz") and t not in OWN_COUNTRY_WORDS) for t in tokens)


def asks_a_loi(tokens: Sequence[str], strong: Sequence[bool], soft: Sequence[bool]) -> bool:
    """Whether a question (normalised ``tokens``) opens with the French « loi », some publisher's plan
    names a work softly (``soft``, one per plan) and none strongly (``strong``): a « loi » is a
    Luxembourg statute (the EU enacts regulations and directives), so an EU short title the question
    holds softly (« loi sur le droit d'auteur » holds « droit d'auteur », a French short title of
    Directive (EU) 2019/790) must not leave the Legilux section out (issue #15, names42). It only keeps
    that section searched; the sections' order is not changed. Pure."""
    return tokens[:1] == ["loi"] and any(soft) and not any(strong)


_DIRECTIVE_SLUG = re.compile(r"^3(\d{4})l(\d{4})$")


def directive_citation(slug: str) -> str | None:
    """How a title cites a directive by its number, normalised: year then number, the year in two
    digits before 1999 (``2014 65`` for Directive 2014/65/EU, ``95 46`` for 95/46/EC); ``None`` for
    a work that is not a directive (CELEX sector 3, type ``L``). Pure."""
    m = _DIRECTIVE_SLUG.match(slug)
    if not m:
        return None
    year, number = int(m.group(1)), int(m.group(2))
    return f"{year if year >= 1999 else year % 100:02d} {number}"


#: Words allowed between a title's transposition word and the directive it transposes (a list of
#: directives: "portant transposition de la directive 2014/91/UE … et de la directive (UE) 2016/…").
TRANSPOSED_WITHIN = 60


def transposes(title: str, citation: str) -> bool:
    """Whether a (normalised) official title says its act transposes the directive cited as
    ``citation`` (:func:`directive_citation`): the first ``directive [ue|ce|cee] <number>`` within
    :data:`TRANSPOSED_WITHIN` words after a transposition word cites it. The directives named after
    that one are the ones it amends ("… de la directive (UE) 2018/843 … modifiant la directive (UE)
    2015/849"), not ones the act transposes. Pure."""
    words = title.split()
    cited = citation.split()
    for start in (i for i, w in enumerate(words) if w.startswith(("transpos", "umsetz"))):
        window = words[start + 1:start + 1 + TRANSPOSED_WITHIN]
        first = next((i for i, w in enumerate(window) if w in ("directive", "richtlinie")), None)
        if first is None:
            continue
        rest = window[first + 1:first + 4]
        while rest and rest[0] in _DIRECTIVE_PREFIXES:
            rest = rest[1:]
        if rest[:2] == cited:
            return True
    return False


_DIRECTIVE_PREFIXES = frozenset({"ue", "ce", "cee", "eu", "ec", "eec", "euratom", "eg", "ewg"})


#: A question in the text's own language keeps the country word unless this many content words
#: (words the relaxation does not drop) are left: the any-word relaxation of a short question
#: ("l'euthanasie est-elle légale au Luxembourg") needs three words, and the country word is one.
OWN_COUNTRY_MIN_LEFT = 3


#: A word before the country's name that makes it part of a name: ``Banque centrale du Luxembourg``,
#: ``Université du Luxembourg``, ``Grand-Duché de Luxembourg``, ``Ville de Luxembourg``.
_NAME_LINKS = frozenset({"du", "de", "d", "of", "von", "vom", "des", "der"})


def country_in_names(tokens: Sequence[str]) -> frozenset[str]:
    """The words naming Luxembourg that a question's (normalised) ``tokens`` use inside a name
    (after :data:`_NAME_LINKS`): kept by :func:`without_own_country`."""
    return frozenset(t for i, t in enumerate(tokens) if t in OWN_COUNTRY_WORDS and i and tokens[i - 1] in _NAME_LINKS)


def own_country_terms(terms: Sequence[str], synonyms: Mapping[str, Iterable[str]],
                      in_names: frozenset[str] = frozenset()) -> set[int]:
    """The positions in ``terms`` of the words naming Luxembourg (:data:`OWN_COUNTRY_WORDS`, a word
    the cross-language lexicon renders by one of them only — ``Luxemburger`` → ``luxembourg`` —, or
    the French adjective after a law word, :data:`OWN_LAW_WORDS`), but for those the question uses
    inside a name (``in_names``, :func:`country_in_names`)."""
    found = set()
    for i, term in enumerate(terms):
        if term in in_names:
            continue
        rendered = [s for s in synonyms.get(term, ()) if s != term]
        if term in OWN_COUNTRY_WORDS or (rendered and all(s in OWN_COUNTRY_WORDS for s in rendered)) \
                or (term in OWN_COUNTRY_ADJECTIVES and i > 0 and terms[i - 1] in OWN_LAW_WORDS):
            found.add(i)
    return found


def without_own_country(terms: list[str], synonyms: Mapping[str, Iterable[str]], translated: bool,
                        content: Callable[[str], bool], in_names: frozenset[str] = frozenset()) -> list[str]:
    """A Legilux question's terms without the words naming Luxembourg (:func:`own_country_terms`):
    "Luxembourg law on euthanasia" asks for the euthanasia law, not for provisions that happen to
    name the country (the Constitution's ``Grand-Duché de Luxembourg``); "Luxemburger
    Staatsangehörigkeitsgesetz" for the nationality law; "Banque centrale du Luxembourg" keeps it
    (``in_names``). Unchanged when nothing else is left, and,
    for a question in the text's own language (not ``translated``), when fewer than
    :data:`OWN_COUNTRY_MIN_LEFT` content words (``content``) are left."""
    own = own_country_terms(terms, synonyms, in_names)
    if not own:
        return terms
    kept = [t for i, t in enumerate(terms) if i not in own]
    left = sum(1 for t in kept if content(t))
    if not left or (not translated and left < OWN_COUNTRY_MIN_LEFT):
        return terms
    return kept


#: The fewest distinct subject words of a question (:func:`says_subject`) an act's names must hold for
#: :func:`titled_by_share` to answer with it (issue #15, everylu28).
TITLED_SHARE_MIN = 3
#: … and the share of that act's title subject the question must say (:func:`title_precision`): a
#: title holding three of the question's words among many others is about more than the question.
TITLED_SHARE_PRECISION = 0.33
#: A section's hit on an act whose names hold this many of the question's subject words is evidence of its
#: provisions and its names together: :func:`titled_by_share`'s acts, found by their names alone, come after it
#: (:func:`after_titled`).
TITLED_SHARE_BESIDE = 2
#: The most acts :func:`titled_by_share` answers with.
TITLED_SHARE_LIMIT = 3


def titled_by_share(held: Mapping[int, int], precision: Mapping[int, float], order: Sequence[int], *,
                    least: int = TITLED_SHARE_MIN, said: float = TITLED_SHARE_PRECISION,
                    limit: int = TITLED_SHARE_LIMIT) -> list[int]:
    """The acts whose names hold at least ``least`` (:data:`TITLED_SHARE_MIN`) distinct subject words of
    an everyday question (``held``: per act, how many of its word groups the act's names hold) and whose
    title subject the question says for at least ``said`` (:data:`TITLED_SHARE_PRECISION`; ``precision``),
    most words first, then the most precise, then ``order`` (the title index's BM25 order); at most
    ``limit`` (:data:`TITLED_SHARE_LIMIT`). The last stage of a question no section answered asks the
    same with its own bars (``serve.core.ops.empty_titled.choose``). Pure.

    A citizen asks in more words than an act's title holds ("comment devenir sapeur-pompier de métier :
    conditions d'embauche et formation" — the Règlement grand-ducal fixant les conditions de recrutement,
    de formation et de nomination aux emplois des pompiers professionnels holds three of the six), so no
    provision holds a majority of them and the all-words lanes find nothing on the subject; the act
    whose name says three of them is the act a reader would look at first."""
    position = {w: i for i, w in enumerate(order)}
    kept = [w for w in order if held.get(w, 0) >= least and precision.get(w, 0.0) >= said]
    kept.sort(key=lambda w: (-held[w], -precision.get(w, 0.0), position[w]))
    return kept[:limit]


def after_titled(order: Sequence[int], share: frozenset[int], held: Mapping[int, int]) -> list[int]:
    """``order`` (works, best first) with the works of ``share`` (found by their names alone,
    :func:`titled_by_share`) placed right after the last other work whose names hold at least
    :data:`TITLED_SHARE_BESIDE` of the question's subject words (``held``), their order kept; unchanged
    when no other work is titled so. A provision holding the question's words in an act titled by two of
    them is better evidence than a title holding three. Pure."""
    last = max((i for i, w in enumerate(order) if w not in share and held.get(w, 0) >= TITLED_SHARE_BESIDE),
               default=-1)
    if last < 0:
        return list(order)
    before = [w for w in order[:last + 1] if w not in share]
    moved = [w for w in order[:last + 1] if w in share]
    return [*before, *moved, *order[last + 1:]]


# -- a subordinate EU act's own subject -----------------------------------------------------------

#: The words with which an EU subordinate act's official title turns from the act it supplements, implements
#: or amends to what it lays down itself (EN/FR, normalised): "… amending Directive 2003/87/EC *as regards*
#: aviation's contribution …", "… complétant le règlement (UE) 2022/2065 … *en établissant* des règles
#: concernant la réalisation d'audits …" (:func:`own_subject`).
_OWN_SUBJECT_CUE = re.compile(
    r"\b(?:as regards|in respect of|with regard to|with respect to|in view of|by laying down|by establishing|"
    r"by setting out|by setting up|in order to|so as to|to add|to extend|to allow|to permit|to include|"
    r"by (?!being\b)[a-z]{3,}ing|"  # a gerund clause: "by establishing", "by specifying", "by identifying" …
    r"en ce qui concerne|pour ce qui est de|par le recensement|afin de|afin d|en vue de|en vue d|"
    r"en (?!tant\b)[a-z]{2,}ant|"  # « en établissant », « en précisant », « en instituant » …
    r"par des normes techniques de reglementation|par des normes techniques d execution)\b")
#: Where an act number stands in a normalised title (``2022 2065``, ``no 575 2013``, ``2003 87 ec``).
_ACT_NUMBER = re.compile(r"\b\d{1,4} \d{1,4}\b")
#: Where a title's own subject stops: the EEA mark, and a clause repealing or amending further acts.
_OWN_SUBJECT_END = re.compile(r"\b(?:text with eea|texte presentant|and repealing|et abrogeant|and amending|"
                              r"et modifiant)\b")
#: The opening of a subordinate act's title before the act it acts on ("laying down the implementation
#: arrangements for … set up under Regulation …"): its role verb, not its subject.
_OWN_SUBJECT_OPENING = re.compile(r"^(?:laying down|establishing|definissant|etablissant|portant|fixant)\s+")
#: Words of a subordinate act's title that frame what it lays down, not what it is about: the forms of
#: technical standards and the verbs specifying them (EN/FR).
_OWN_SUBJECT_NOISE = frozenset(
    ["regulatory", "technical", "standards", "normes", "techniques", "reglementation", "execution", "specifying",
     "precisant", "further", "davantage", "rules", "regles", "laying", "establishing", "etablissant", "detailed",
     "application", "applicables", "applicable", "certain", "certains", "certaines", "specified", "set", "under",
     "vertu", "accordance", "conformement", "pursuant", "titre", "annex", "annexe", "article", "articles",
     "paragraph", "paragraphe", "point", "implementing", "delegated", "delegue", "commission", "supplementing",
     "completant", "correcting", "rectifiant"])


def own_subject(title: str) -> str | None:
    """What an EU subordinate act's official title says the act itself lays down (normalised), apart from
    the act it supplements, implements or amends: the words after :data:`_OWN_SUBJECT_CUE` that follow the
    first act number of the title ("… amending Directive 2006/112/EC *as regards reduced rates of value
    added tax*"), or, when no cue follows one, the words before the first act number ("laying down *the
    implementation arrangements for the digital product passport registry set up* under Regulation (EU)
    2024/1781"), or the whole rest of a title that names no act ("Implementing Regulation (EU) 2020/1294 … *on
    the Union renewable energy financing mechanism*"), up to :data:`_OWN_SUBJECT_END`; ``None`` without a
    dated header, or when
    no content word is left (:func:`_own_words`: "… implementing Directive 2003/6/EC", a title cut at the act). :func:`title_subject` keeps the whole rest of the title, and the shortest of an act's
    titles is often the one the publisher cut at the act it supplements ("… supplementing Regulation (EU)
    2022/2065"), so a question on the act's own subject weighed nothing against it (issue #15, amend36).
    Pure."""
    text, end = title_head(title)
    if end is None:
        return None
    rest = normalize(text[end:])
    stop = _OWN_SUBJECT_END.search(rest)
    rest = rest[:stop.start()] if stop else rest
    number = _ACT_NUMBER.search(rest)
    if number is None:  # a title naming no act: its whole subject is its own ("on the Union renewable …")
        own = rest
    elif (cue := _OWN_SUBJECT_CUE.search(rest, number.end())) is not None:
        own = rest[cue.end():]
    else:
        own = _OWN_SUBJECT_OPENING.sub("", rest[:number.start()])
    return own.strip() if _own_words(own) else None


def _own_words(own: str) -> frozenset[str]:
    """The content words of an own subject (:func:`own_subject`): without subject noise
    (:data:`_SUBJECT_NOISE`, :data:`_OWN_SUBJECT_NOISE`), stop words, numbers and words of two letters."""
    return frozenset(w for w in own.split() if w not in STOP_WORDS and w not in _SUBJECT_NOISE
                     and w not in _OWN_SUBJECT_NOISE and len(w) > 2 and not w.isdigit())


def own_subject_words(titles: Iterable[str]) -> list[frozenset[str]]:
    """The content words of each distinct own subject (:func:`own_subject`) of a work's official titles (one
    per language, as a rule), without subject noise (:data:`_SUBJECT_NOISE`, :data:`_OWN_SUBJECT_NOISE`),
    stop words, numbers and words of two letters. Pure."""
    out: list[frozenset[str]] = []
    for title in titles:
        words = title_own_words(title)
        if words is not None and words not in out:
            out.append(words)
    return out


#: The official titles whose own subject words (:func:`title_own_words`) a process keeps, at most.
OWN_SUBJECT_TITLES = 1024


@functools.lru_cache(maxsize=OWN_SUBJECT_TITLES)
def title_own_words(title: str) -> frozenset[str] | None:
    """The content words of one official title's own subject (:func:`own_subject`, :func:`_own_words`),
    or None when it weighs nothing (a truncated title, no own subject, fewer than
    :data:`OWN_SUBJECT_MIN_WORDS` words): :func:`own_subject_words`' part for one title. A pure
    function of the title, so kept per process for the :data:`OWN_SUBJECT_TITLES` titles met last:
    the same subordinate acts' titles were parsed again by every question weighing them (a fifth to
    a third of the CPU of the bench's slowest two-word searches)."""
    if truncated(title):
        return None
    own = own_subject(title)
    if own is None:
        return None
    words = _own_words(own)
    return words if len(words) >= OWN_SUBJECT_MIN_WORDS else None


#: The roles whose acts' titles say an own subject beside the act they act on (:func:`own_subject`).
OWN_SUBJECT_ROLES = frozenset({"amending", "delegated", "implementing"})
#: The fewest content words an own subject (:func:`own_subject_words`) must have to weigh anything: one
#: word ("… as regards *Croatia*") is a name, not a subject a question can be said to ask.
OWN_SUBJECT_MIN_WORDS = 2
#: The share of a subordinate act's own subject (:func:`own_subject_words`) a question must say for the
#: act to be weighed as the principal act of that subject (:func:`serve.core.ops.search.own_over_principal`).
OWN_SUBJECT_SAID = 0.6
#: … and at least this much more than any other subordinate act's own subject among the hits.
OWN_SUBJECT_MARGIN = 0.15
