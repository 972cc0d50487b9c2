"""The last stage of a question no section answered: the acts whose names hold several of its words.

A question asked in plain words often holds words around its subject that the corpus does not hold
("mon *papy* est en fin de vie, qui demande les soins palliatifs", "contract clause *saying* the seller
is never liable") or words no provision holds together; every stage then withholds its results
(``unknown_terms``, ``off_subject``) and the answer is empty although an act titled by the question's
other words answers it. An empty answer is the worst outcome for a question that has one; for a
question about a subject no held act covers (a negative: "permis de chasse aux licornes") it is the
right one.

This stage (:func:`titled_works`) runs only when every stage before it left every section empty for
no decided reason (:func:`answers_nothing`), and only when in every section the words its index does not
hold are fewer than :data:`UNHELD_SHARE` of the question's content words (:func:`few_unheld`: one
unheld word of three or four is the subject itself, "licornes", "how much should I tip the organiser of my
package travel"; one of five or more is a word around it, "mon papy est en fin de vie …"). It
answers with the acts whose names hold at least :data:`MIN_WORDS` of the question's subject words that
the index holds (frame words such as "règles" left out: every implementing act's title says them), and
whose title subject the question says for at least :data:`PRECISION`; at most :data:`LIMIT` of them,
as work rows found by their names (``title_words``). See docs/adr/0078.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping, Sequence

from derive.index import relax
from derive.index.text import fts_query
from serve.core import ranking
from serve.core.mount import MountedIndex

#: Whether the stage runs (docs/adr/0078).
EMPTY_TITLED = True
#: Title-index candidates read.
CANDIDATES = 200
#: Distinct subject words of the question, held by the index, that an act's names must hold.
MIN_WORDS = 2
#: Share of the act's title subject the question must say (:func:`serve.core.ranking.title_precision`).
PRECISION = 0.2
#: The most acts answered per section.
LIMIT = 3
#: Unheld words are taken for words around the question, not for its subject, when they are fewer than
#: this share of its content words (:func:`few_unheld`).
UNHELD_SHARE = 1 / 4
#: The withheld reasons that say why the answer is empty better than the question's words can: the
#: filters (``as_of``, language, type) emptied it.
DECIDED = frozenset({"filters"})


def held_by_text(conn: sqlite3.Connection, group: Sequence[str]) -> bool:
    """Whether the index's text vocabulary holds a term of ``group`` (a phrase term: every word)."""
    for term in group:
        if all(conn.execute("SELECT 1 FROM vocabulary WHERE term = ?", (word,)).fetchone() is not None
               for word in term.split()):
            return True
    return False


def choose(held: Mapping[int, int], precision: Mapping[int, float], order: Sequence[int]) -> list[int]:
    """The acts kept: names holding at least :data:`MIN_WORDS` of the question's subject word groups
    (``held``), title subject said for at least :data:`PRECISION` (``precision``); most words first, then
    the most precise, then ``order`` (the title index's BM25 order); at most :data:`LIMIT`
    (:func:`serve.core.ranking.titled_by_share` with this stage's bars). Pure."""
    return ranking.titled_by_share(held, precision, order, least=MIN_WORDS, said=PRECISION, limit=LIMIT)


def subject_groups(groups: Sequence[list[str]]) -> list[list[str]]:
    """The term groups that can say what an act is about: no act form or institution
    (:func:`serve.core.ranking.says_subject`), no frame word (:func:`serve.core.ranking.frames`). Pure."""
    return [g for g in groups if ranking.says_subject(g[0]) and not ranking.frames(g[0])]


def titled_works(conn: sqlite3.Connection, groups: Sequence[list[str]], allowed: frozenset[int] | None,
                 index: MountedIndex | None) -> list[int]:
    """The works :func:`choose` keeps for the question's term groups ``groups`` (its content words
    with their forms and translations), best first; only works of ``allowed`` when given."""
    from serve.core.ops import search  # its title helpers (search imports this module)
    held_groups = [g for g in subject_groups(groups) if held_by_text(conn, g)]
    match = fts_query(held_groups, any_of=True)
    if match is None or len(held_groups) < MIN_WORDS:
        return []
    rows = conn.execute("SELECT rowid FROM work_fts WHERE work_fts MATCH ? ORDER BY bm25(work_fts, 0, 8, 10, 0, 0) "
                        "LIMIT ?", (f"{{titles short_titles}} : ({match})", CANDIDATES)).fetchall()
    candidates = [int(r[0]) for r in rows if allowed is None or int(r[0]) in allowed]
    if not candidates:
        return []
    held = search.works_title_held(conn, candidates, held_groups, index)
    precision = search.works_subject_precision(conn, candidates, held_groups, index)
    return choose(held, precision, candidates)


def answers_nothing(sections: Sequence[Mapping[str, object]], plans: Mapping[str, object]) -> bool:
    """Whether the search ended with no hits in any section for no decided reason: no plan answered
    with none on purpose (a name, a dated reference, a form and subject no index holds, words never
    near each other: ``Plan.name_not_held``; an act number only: ``Plan.act_reference_only``), and no
    section withheld its relaxation for its filters (:data:`DECIDED`), and no section's unheld words are a
    quarter of the question's content words or more (:func:`few_unheld`): an English question's words the EUR-Lex
    text does not hold ("Digital Services Act …" on a corpus without the DSA) are not made up for by the
    Legilux section, which searched their translations. Pure."""
    if any(answered(s) for s in sections):
        return False
    if any(getattr(p, "name_not_held", None) is not None or getattr(p, "act_reference_only", False)
           for p in plans.values()):
        return False
    for section in sections:
        withheld = section.get("relaxation_withheld")
        if not isinstance(withheld, Mapping):
            continue
        if withheld.get("reason") in DECIDED:
            return False
        plan = section.get("query_plan")
        terms = plan.get("terms") if isinstance(plan, Mapping) else None
        others = set().union(*(own_words(s) for s in sections if s is not section))
        if not few_unheld(terms if isinstance(terms, list) else [], withheld, others):
            return False  # one index says the question's subject is a word it does not hold: so for every index
    return True


def answered(section: Mapping[str, object]) -> bool:
    """Whether a section answered the question: with a hit found by its words (text or names), or with
    ``work_metadata`` hits only (acts found by a EuroVoc label or subject term holding one of its words)
    whose first act's title the question says in part (``top_title_match`` above 0: "acide décanoïque
    … produits biocides", the implementing act approving decanoic acid). Metadata hits on acts whose
    title shares none of the question's subject ("droit d'accise sur l'essence … au Luxembourg": EU
    acts labelled "excise duty" amending the VAT directive) answer nothing of it, and leave the other
    sections free to try the acts their names hold. Pure."""
    hits = section.get("hits")
    if not isinstance(hits, list) or not hits:
        return False
    if any("work_metadata" not in (h.get("match_reasons") or ()) for h in hits):
        return True
    fit = section.get("top_title_match")
    return isinstance(fit, int | float) and fit > 0


def own_words(section: Mapping[str, object]) -> set[str]:
    """The words a section's index searched as the question wrote them and holds: its plan's terms when
    the question was searched in its own words (no cross-language ``translations``: a translated section
    searched other words), less those it withheld as unknown. Pure."""
    plan = section.get("query_plan")
    if not isinstance(plan, Mapping) or plan.get("translations") is not None:
        return set()
    terms = plan.get("terms")
    withheld = section.get("relaxation_withheld")
    unknown = withheld.get("terms") if isinstance(withheld, Mapping) and withheld.get("reason") == "unknown_terms" \
        else None
    return {t for t in terms if isinstance(t, str)} - set(unknown if isinstance(unknown, list) else []) \
        if isinstance(terms, list) else set()


def few_unheld(terms: Sequence[str], withheld: Mapping[str, object] | None,
               held_elsewhere: Collection[str] = ()) -> bool:
    """Whether the words a section's index does not hold (``withheld``, its ``unknown_terms``) are
    fewer than :data:`UNHELD_SHARE` of the question's content words ``terms`` (true when it withheld
    nothing for them). A word another index searched as written and holds (``held_elsewhere``,
    :func:`own_words`: « Clervaux », a Luxembourg town EUR-Lex never names) says nothing of the question's
    subject, only of that index's vocabulary, and is not counted. Pure."""
    if not withheld or withheld.get("reason") != "unknown_terms":
        return True
    unknown = withheld.get("terms")
    if isinstance(unknown, list):
        unknown = [t for t in unknown if t not in held_elsewhere]
    content = [t for t in terms if not relax.relaxable_term(t)]
    return isinstance(unknown, list) and bool(content) and len(unknown) < UNHELD_SHARE * len(content)
