"""The act whose provisions hold several of a question's rare words, for an answer nothing else answered.

A plain-word question names its subject in the words of the law's body, not of its title or of the act terms:
"ban on destroying unsold clothing and footwear" is the ecodesign regulation, whose title says "sustainable
products" and whose article on the destruction of unsold consumer products says "unsold", "clothing",
"footwear". No provision holds every word; the any-word relaxation found provisions holding most of them and
dropped them as off the subject (their acts' names hold none of the words, ``off_subject``); the act terms say
none of them. The answer is empty, the worst a lawyer can get.

This step (:func:`serve.core.ops.search.rare_body_answer`) reads the words of the question that are **rare in the whole corpus**: held
by at most :data:`MAX_SHARE` of all the searched indexes' provisions together (:func:`rare_words`: a word of
another language that one index happens not to hold, « over » in the French texts of Legilux, is no rare word
when the English texts hold it thousands of times). An act whose provisions hold at least :data:`MIN_WORDS`
of them (anywhere in its text), more of them than any other act's, is the act the question means
(:func:`leading_work`); between acts holding as many, the act terms decide when they cover one of the acts
more than the others. A question about a subject no act is about holds at most one or two rare words one
act says together by chance ("underwater hotel", « miel » and « soigner » in a food directive), and its
subject word no index holds at all: it stays empty (:data:`HELD_ONLY`).

Only for an answer every section left empty after every other step
(:func:`serve.core.ops.search.act_term_answer`); one FTS look-up per rare word and index, each matching a
few provisions (issue #15, zh52, ADR 0184).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence

#: Whether the step runs (ADR 0184).
RARE_BODY = True
#: The largest share of all the searched indexes' provisions together that may hold a word for it to count as rare:
#: 0.44 in a thousand (on the full indexes, 137,269 provisions: 60; on a small corpus, a few: a word of every tenth
#: text of a fixture build is no rare word).
MAX_SHARE = 0.00044
#: The least number of the question's rare words an act's provisions must hold.
MIN_WORDS = 3
#: Whether the step is left out when a word of the question is held by no searched index (the act-term step's
#: ``unknown`` words, :func:`serve.core.ops.search.held_nowhere`): « Streupflicht » in a question on a German town's
#: winter rules is its subject, and no act's provisions can hold it.
HELD_ONLY = True


def rare_words(docs: Sequence[Mapping[str, int]], words: Sequence[str], provisions: int) -> list[str]:
    """The question's ``words`` held by some index (``docs``: per searched index, how many provisions hold each
    word, :func:`serve.core.ops.search.held_docs`) and by at most :data:`MAX_SHARE` of the searched indexes'
    ``provisions`` all together, in the question's order. Pure."""
    out = []
    for word in words:
        total = sum(d.get(word, 0) for d in docs)
        if 0 < total <= MAX_SHARE * provisions:
            out.append(word)
    return out


def works_holding(conn: sqlite3.Connection, word: str) -> set[int]:
    """The works some provision of which holds ``word`` as written (one FTS look-up on the provisions' text; a
    rare word matches a few provisions only)."""
    return {int(w) for (w,) in conn.execute(
        "SELECT DISTINCT s.work_rowid FROM provision_fts f JOIN lexical_states s ON s.state_rowid = f.rowid "
        "WHERE provision_fts MATCH ?", ('"' + word.replace('"', '') + '"',))}


def leading_work(held: Mapping[tuple[str, int], frozenset[str]], termed: Mapping[tuple[str, int], float]
                 ) -> tuple[str, int] | None:
    """The one act (``(publisher, work)``) whose provisions hold the most of the question's rare words (``held``:
    per act, the rare words its provisions hold), at least :data:`MIN_WORDS` and more than any other act's; among
    acts holding as many, the one the act terms cover strictly more of the question than the others (``termed``:
    per act, its act-term coverage; an act they do not rank covers nothing). ``None`` otherwise. Pure."""
    if not held:
        return None
    most = max(len(w) for w in held.values())
    if most < MIN_WORDS:
        return None
    best = sorted((k for k, w in held.items() if len(w) == most), key=lambda k: (-termed.get(k, 0.0), k))
    if len(best) == 1:
        return best[0]
    first, second = termed.get(best[0], 0.0), termed.get(best[1], 0.0)
    return best[0] if first > second else None
