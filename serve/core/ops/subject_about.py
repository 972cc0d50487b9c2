"""A question naming an act by its form and subject whose most specific word no held act is about.

A question shaped as an act ("law on space debris", "directive sur la protection des abeilles",
"Birds Directive") names its subject by its words; the most specific of them — the word the fewest
provisions of all the indexes hold (:func:`rarest_held`) — is what the act the user asks for is about.
When no index names that word (no title, short title or alias holds any of its forms) and no work's
texts are about it (no work holds it in :data:`BREADTH_MIN` provisions or more, the test
:func:`serve.core.ops.search.act_about` applies to a statute's subject), no held act is about the
subject: the provisions holding the word hold it in passing (an annex on forest biomass mentioning
"debris"), and the answer built on the question's other, common words ("law", "space") is not the act.
The question then answers no hits (``relaxation_withheld: {"reason": "subject_not_about", "word"}``).

The signal is the corpus's own statistics, no constant fitted on questions: the subject words come from
the planner's act shapes (:func:`serve.core.formnames.form_subject`, :func:`serve.core.searchplan.act_name`),
their forms from the cross-language lexicon the planner uses (an English statute question's French terms),
the breadth from :data:`BREADTH_MIN`, the constant the existing aboutness test uses. A word no index holds
at all is not weighed here (``unknown_terms``, the shape rules: a typo or the unknown subject itself), nor
a sigle written in capitals (a name's acronym, weighed by the acronym rules), nor a question that names,
cites or resolves a work. Issue #15, neg30, docs/adr/0084.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import ExitStack

from derive.index import relax
from serve.core.envelope import CallContext
from serve.core.formnames import form_subject
from serve.core.mount import MountedIndex
from serve.core.searchplan import Plan, act_name

#: Whether the rule runs (docs/adr/0084).
SUBJECT_ABOUT = True
#: Provisions of one work that make it about a word (:data:`serve.core.ops.search.BREADTH_MIN`).
BREADTH_MIN = 5
#: Provisions read by the breadth test; more than this holding the word is too common to tell
#: (:data:`serve.core.ops.search.ABOUT_SAMPLE`).
ABOUT_SAMPLE = 400
#: Two subject words stand together in a provision when within this many words of each other
#: (:data:`serve.core.ops.search.TOGETHER_NEAR_WORDS`: "booking errors", « sécurité sociale »).
NEAR_WORDS = 3
#: Words shorter than this are read from ``provision_vocab`` (``vocabulary`` lists longer words only).
VOCABULARY_MIN_LETTERS = 4


def subject_forms(raw: str, translations: Mapping[str, Sequence[str]] | None = None,
                  ) -> list[tuple[str, tuple[str, ...]]] | None:
    """Per subject word of an act-shaped question, the forms a name or text may hold it in: the word
    and, for a statute asked in English, its French terms (:attr:`FormSubject.terms`), or a German
    word's French terms (:attr:`ActName.alternatives`), and the terms the planner translated it into
    (``translations``: word -> terms, ``query_plan.translations``, a German compound's parts' terms among
    them); ``None`` for a question of no act shape. A word written in capitals in the question (a sigle)
    is left out. Pure."""
    more = translations or {}
    capitals = {w.lower() for w in raw.replace("-", " ").split() if len(w) > 1 and w.isupper()}
    shape = form_subject(raw)
    if shape is not None:
        terms = shape.terms or tuple((w,) for w in shape.words)
        pairs = [(w, tuple(dict.fromkeys((w, *t)))) for w, t in zip(shape.words, terms, strict=False)]
    else:
        name = act_name(raw)
        if name is None:
            return None
        alternatives = name.alternatives or tuple(() for _ in name.words)
        pairs = [(w, tuple(dict.fromkeys((w, *a)))) for w, a in zip(name.words, alternatives, strict=False)]
    return [(w, tuple(dict.fromkeys((*forms, *more.get(w, ()))))) for w, forms in pairs
            if w not in capitals and w.isalpha()]


def provisions_holding(conn: sqlite3.Connection, word: str) -> int:
    """How many provisions of the index hold ``word`` exactly (0 for a word it does not list). Read-only."""
    if " " in word:
        return 0
    table, column = ("vocabulary", "docs") if len(word) >= VOCABULARY_MIN_LETTERS else ("provision_vocab", "doc")
    row = conn.execute(f"SELECT {column} FROM {table} WHERE term = ?", (word,)).fetchone()
    return int(row[0]) if row else 0


def rarest_held(counts: Sequence[tuple[str, int]]) -> str | None:
    """The word of ``(word, provisions holding it over every index)`` the fewest provisions hold, among
    those some provision holds; ``None`` when none is held. Ties: the earlier word. Pure."""
    held = [(n, i, w) for i, (w, n) in enumerate(counts) if n > 0]
    return min(held)[2] if held else None


def _fts_word(word: str) -> str:
    """A normalised word as an FTS5 token matching its inflections: its light stem as a prefix
    (:func:`serve.core.ops.search._fts_word`)."""
    stem = relax.light_stem(word)
    return f"{stem}*" if stem else word


def about(conn: sqlite3.Connection, forms: Sequence[str]) -> bool:
    """Whether some work of the index is about one of ``forms``: a name (title, short title, alias)
    holds it, or one work's texts hold it in :data:`BREADTH_MIN` provisions or more, or its texts hold it
    too often to tell (more than :data:`ABOUT_SAMPLE`). Read-only."""
    tokens = " OR ".join(dict.fromkeys(_fts_word(f) for f in forms if " " not in f))
    phrases = [f for f in forms if " " in f]
    if phrases:
        tokens = " OR ".join([t for t in (tokens,) if t] + ['"' + p.replace('"', "") + '"' for p in phrases])
    if not tokens:
        return True  # nothing to look for: no evidence of absence
    if conn.execute("SELECT 1 FROM work_fts WHERE work_fts MATCH ? LIMIT 1",
                    ("{titles short_titles aliases} : (" + tokens + ")",)).fetchone():
        return True
    rows = conn.execute(
        "SELECT COUNT(DISTINCT s.anchor), SUM(COUNT(*)) OVER () FROM "
        "(SELECT rowid AS state_rowid FROM provision_fts WHERE provision_fts MATCH ? LIMIT ?) f "
        "JOIN lexical_states s ON s.state_rowid = f.state_rowid GROUP BY s.work_rowid",
        ("text : (" + tokens + ")", ABOUT_SAMPLE + 1)).fetchall()
    return bool(rows) and (rows[0][1] > ABOUT_SAMPLE or max(int(n) for n, _ in rows) >= BREADTH_MIN)


def together(conn: sqlite3.Connection, forms: Sequence[str], others: Sequence[Sequence[str]]) -> bool:
    """Whether a provision of the index holds one of ``forms`` within :data:`NEAR_WORDS` words of a form
    of one of the other subject words (``others``): the subject is written there as the question writes it
    (the Package Travel Directive's "booking errors"). Read-only."""
    pairs = [f"NEAR({_fts_word(a)} {_fts_word(b)}, {NEAR_WORDS})" for a in forms if " " not in a
             for other in others for b in other if " " not in b]
    if not pairs:
        return False
    return conn.execute("SELECT 1 FROM provision_fts WHERE provision_fts MATCH ? LIMIT 1",
                        ("text : (" + " OR ".join(dict.fromkeys(pairs)) + ")",)).fetchone() is not None


def subject_not_about(conns: Sequence[sqlite3.Connection], raw: str,
                      translations: Mapping[str, Sequence[str]] | None = None) -> str | None:
    """The most specific subject word of an act-shaped question (:func:`subject_forms`,
    :func:`rarest_held` over every index and every form) when no index is :func:`about` it and no
    provision holds it beside another of the subject's words (:func:`together`); else ``None``.
    Read-only: a vocabulary read per form and index, then at most three queries per index."""
    words = subject_forms(raw, translations)
    if not words:
        return None
    counts = [(w, sum(provisions_holding(c, f) for c in conns for f in forms)) for w, forms in words]
    rarest = rarest_held(counts)
    if rarest is None:
        return None
    forms = dict(words)[rarest]
    others = [f for w, f in words if w != rarest]
    if any(about(c, forms) or together(c, forms, others) for c in conns):
        return None
    return rarest


def plan_translations(plans: Mapping[str, Plan]) -> dict[str, list[str]]:
    """Word -> the terms any plan translated it into (``Plan.translations["used"]``). Pure."""
    out: dict[str, list[str]] = {}
    for plan in plans.values():
        for used in (plan.translations or {}).get("used") or ():
            out.setdefault(str(used.get("from")), []).extend(str(t) for t in used.get("to") or ())
    return out


def mark_subject_not_about(ctx: CallContext, indexes: Sequence[MountedIndex], plans: Mapping[str, Plan],
                           raw: str) -> None:
    """Every plan answers no hits (``name_not_held = {"reason": "subject_not_about", "word"}``) when the
    question is act-shaped and its most specific subject word is one no held act is about
    (:func:`subject_not_about`); plans, in place. Not for a question that names, cites or resolves a
    work (a mention, a constraint, an article, an anchor, an act number), nor one another rule already
    answers with no hits."""
    if not SUBJECT_ABOUT or not indexes or any(
            p.mentions or p.constraints or p.boost or p.article_key or p.anchor or p.act_number
            or p.act_reference_only or p.name_not_held for p in plans.values()):
        return
    with ExitStack() as stack:
        conns = [stack.enter_context(index.session(ctx.deadline_seconds)) for index in indexes]
        word = subject_not_about(conns, raw, plan_translations(plans))
    if word is not None:
        for plan in plans.values():
            plan.name_not_held = {"reason": "subject_not_about", "word": word}
