"""A question whose subject word no mounted index holds is answered only by what holds it (ADR 0132).

"TVA applicable aux cours de yoga en ligne", "statut juridique des robots humanoïdes au travail",
"indemnisation des apiculteurs pour les dégâts du frelon asiatique": a content word of the question
("yoga", "humanoïdes", "frelon") is held by no provision, no act's name and no EuroVoc label of any
mounted index, in any inflection. The corpus holds nothing on the question's subject; what the weaker
stages answer with — an act titled by the question's ordinary law words (« statut », « indemnisation des
dégâts »), a EuroVoc label holding one of them, the any-word or majority-of-words lanes, a translated
question searched without the word — is about something else (issue #15, neg42).

:func:`candidates` are the words weighed: the content words (not stop or frame words, not an act form,
not a number, four letters or more) of a question that names, cites and resolves no act, searched in a
language some mounted index holds text in (French; English on EUR-Lex). A word of a language no index
holds (German) is not weighed: it may be a word the cross-language lexicon lacks, around a subject the
others say ("Hygienevorschriften für *Tattoostudios* und Piercing"). A word some section expanded
(a typo corrected, an inflection held) is not absent (:func:`expanded_words`).

:func:`weak_only`: a section answers weakly when every hit's match reasons are those of the weaker
stages (:data:`WEAK_REASONS`); a hit holding every searched word (``keyword``, ``stem``, ``fuzzy``, a
named or cited act) is never weighed, and a section holding one keeps the whole answer as it is.

The caller (:func:`serve.core.ops.search.absent_subject`) checks the candidates against every index
(provision vocabulary, names and labels, light-stem prefix) and, when one is held nowhere and every
section with hits answers weakly, marks every plan ``{"reason": "subject_not_held", "words"}``: each
section answers no hits and says why. Pure functions here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from derive.index import relax
from derive.index.schema import VOCABULARY_MIN_LENGTH
from serve.core import ranking

#: Whether the rule runs (docs/adr/0132).
ABSENT_SUBJECT = True
#: Whether a word some section searched in another form (a fuzzy correction, a light-stem variant) is
#: taken for a typo and never weighed (:func:`expanded_words`).
EXEMPT_EXPANDED = True
#: Whether a word the indexes hold only in annexes (the lists of aircraft operators, contracting authorities,
#: places or products, where "Texas", "Lords" or « influenceurs » stand by chance) counts as absent: held by no
#: provision outside an annex, no work's name and no EuroVoc label of any index (issue #15, neg46).
ANNEX_WORDS_ABSENT = True
#: The absent words must be at least this share of the question's words (:func:`question_words`): one
#: word of five is the question's subject ("TVA applicable aux cours de *yoga* en ligne"); one of six or
#: more is more often a word around a subject the others say (« mon *papy* est en fin de vie, qui demande
#: les soins palliatifs pour lui », "reorganisation of the state wine-growing and *winemaking* institute";
#: ADR 0078 weighs unheld words the same way).
MIN_SHARE = 1 / 5
#: The match reasons of the weaker stages: relaxed or partial provisions, acts found by their names or
#: labels alone, and the cross-language marker (a translated hit is weak when its other reasons are).
WEAK_REASONS = frozenset({"partial_terms", "any_term", "relaxed", "title_words", "work_metadata", "translated"})
#: A section whose first act's title fits the question this well (its ``top_title_match``: the harmonic mean
#: of the share of the title's subject the question says and of the question's words the names hold) answers
#: it, whatever word it lacks: the question all but titles the act ("Begleitkommission beim Centre national de
#: l'audiovisuel", 0.44: the regulation on the CNA's monitoring commission). The negatives' first acts fit at
#: most 0.36 (« cours » of the Cour constitutionnelle's law for the yoga question).
TITLE_FIT = 0.4


def content_words(terms: Sequence[str]) -> list[str]:
    """The words of ``terms`` that can say a question's subject: single alphabetic words of
    :data:`VOCABULARY_MIN_LENGTH` letters or more, neither stop nor frame words
    (:func:`derive.index.relax.relaxable_term`) nor act forms (:func:`serve.core.ranking.says_subject`)."""
    return [t for t in dict.fromkeys(terms) if " " not in t and t.isalpha() and len(t) >= VOCABULARY_MIN_LENGTH
            and not relax.relaxable_term(t) and ranking.says_subject(t)]


def candidates(plans: Iterable[Any], held_languages: Collection[str]) -> list[str]:
    """The words weighed (module docstring), over every plan: an untranslated plan's content words;
    a translated plan's, when its language is one some mounted index holds text in
    (``held_languages``), less the words the lexicon translated. Empty for a question that names,
    cites or resolves a work, or that another rule already answered with no hits."""
    plans = list(plans)
    if any(p.mentions or p.constraints or p.anchor or p.article_key or p.act_number or p.boost or p.strong
           or p.name_not_held for p in plans):
        return []
    out: dict[str, None] = {}
    for plan in plans:
        translations = plan.translations
        if translations is None:
            out.update(dict.fromkeys(content_words(plan.terms)))
        elif translations.get("language") in held_languages:
            translated = {str(u.get("from")) for u in translations.get("used") or []}
            out.update(dict.fromkeys(w for w in content_words(plan.terms) if w not in translated))
    return list(out)


def question_words(plans: Iterable[Any]) -> int:
    """How many words the question asks in its longest plan: its terms that are neither stop nor frame
    words (:func:`derive.index.relax.relaxable_term`), short words and numbers included."""
    return max((len([t for t in dict.fromkeys(p.terms) if not relax.relaxable_term(t)]) for p in plans), default=0)


def enough(absent: Sequence[str], asked: int) -> bool:
    """Whether the ``absent`` words are at least :data:`MIN_SHARE` of the ``asked`` words."""
    return bool(absent) and asked > 0 and len(absent) >= MIN_SHARE * asked


def expanded_words(sections: Sequence[Mapping[str, Any]]) -> set[str]:
    """The words some section searched in another form (its ``query_expansions``, "word -> form": a
    typo's correction, a held inflection, a translation)."""
    return {str(e).split(" -> ", 1)[0] for s in sections for e in s.get("query_expansions") or () if " -> " in str(e)}


def weak_only(section: Mapping[str, Any]) -> bool:
    """Whether every hit of ``section`` (and every provision under it) was found by the weaker stages
    alone (:data:`WEAK_REASONS`); ``True`` for a section with no hits."""
    for hit in section.get("hits") or ():
        for row in (hit, *(hit.get("provisions") or ())):
            reasons = set(row.get("match_reasons") or ())
            if not reasons or not reasons <= WEAK_REASONS:
                return False
    return True


def titled(section: Mapping[str, Any]) -> bool:
    """Whether the section's first act is titled by the question (``top_title_match`` at least
    :data:`TITLE_FIT`)."""
    fit = section.get("top_title_match")
    return bool(section.get("hits")) and isinstance(fit, (int, float)) and fit >= TITLE_FIT


def fires(sections: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the answer is one the rule may empty: some section has hits, every section's hits are
    weak (:func:`weak_only`) and no section's first act is titled by the question (:func:`titled`)."""
    return any(s.get("hits") for s in sections) and all(weak_only(s) and not titled(s) for s in sections)


def reason(words: Sequence[str]) -> dict[str, Any]:
    """The typed no-hit reason every section answers with."""
    return {"reason": "subject_not_held", "words": list(words)}
