"""An act named inside a question that no held act bears, answered by acts its name does not name (ADR 0158).

"European Chips Act semiconductor crisis response", "California Consumer Privacy Act right to opt out of the
sale of personal information", "Indian Companies Act corporate social responsibility spending": the question
names an act by a capitalised short title ending in "Act" (:func:`serve.core.searchplan.embedded_act_name`),
and no mounted index holds it — no work's title, short title or alias holds its words as a near-phrase, and
the texts do not cite it as a phrase (the tests :func:`serve.core.ops.search.named_act` applies to a name that
ends the question). The weaker stages still answer the question's other words: a list of aircraft operators
holding "crisis response", the GDPR by its EuroVoc labels, the corporate sustainability directives by
"corporate social responsibility". None of those acts is the one the user names.

A name no held act bears is no evidence on its own that the act is not held: the alias file does not hold every
popular name ("Whistleblower Protection Act reporting channels" means the directive on the protection of persons
who report breaches; "Markets in Crypto-Assets Act white paper requirements" the MiCA regulation; ADR 0075,
whose rule 3 emptied such questions and was turned off). Those questions are answered by the act they mean,
and that act's name holds the word of the name that says which act it is (« whistleblower », « crypto »). So the
answer is emptied only when **no work it answers with is named by the name's rarest word** (:func:`name_words`: the
name's words less the words every EU act's name may carry, :data:`GENERIC_NAME_WORDS`; :func:`rarest_word`: the
one fewest provisions hold; as itself, a light-stem form or a term the search translated it as,
:func:`with_translations`): the question names an act that is not there, and the acts answered are about something
else.

Pure functions here; the index look-ups are :func:`serve.core.ops.search.unheld_act_name`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from serve.core.searchplan import ActName, embedded_act_name

#: Whether the rule runs (docs/adr/0158).
UNHELD_ACT_NAME = True
#: Whether the answer must be named by the name's rarest word (:func:`rarest_word`), not by any of its words.
RAREST_WORD = True

#: Words of an act's short title that say its form or its author, not its subject: every EU act's name may hold
#: them, so a work titled by them is no act the name means.
GENERIC_NAME_WORDS = frozenset({"act", "acts", "eu", "european", "europe", "union", "community", "new"})


def embedded_name(raw: str) -> ActName | None:
    """The act's name a question holds before its other words ("European Media Freedom Act editorial
    independence …": ``european media freedom act``), read as :func:`serve.core.searchplan.embedded_act_name`
    does, whatever :data:`serve.core.searchplan.EMBEDDED_ACT_NAMES` says; ``None`` for a question of
    another shape. Pure."""
    return embedded_act_name(raw.split())


def name_words(shape: ActName) -> list[str]:
    """The words of the name that say which act it is: its words less :data:`GENERIC_NAME_WORDS` and
    numbers (``california``, ``consumer``, ``privacy`` of "California Consumer Privacy Act"). Pure."""
    return [w for w in dict.fromkeys(shape.words) if w not in GENERIC_NAME_WORDS and not w.isdigit()]


def rarest_word(words: Sequence[str], docs: Mapping[str, int]) -> list[str]:
    """The name's word fewest provisions hold (``docs``: provisions holding each word over every index; a word
    the vocabulary does not count — shorter than its least length — is not weighed), as a one-word list; all
    ``words`` when none is counted. "European Media Freedom Act": ``media`` (418 provisions) before ``freedom``
    (477): the word that says which act the name means, where ``freedom`` also names the acts on the free
    movement of persons. Pure."""
    counted = [w for w in words if docs.get(w, 0) > 0]
    return sorted(counted, key=lambda w: (docs[w], w))[:1] if counted else list(words)


def with_translations(words: Sequence[str], plans: Iterable[Any]) -> list[str]:
    """``words`` and the terms a plan's cross-language lexicon searched them as (its ``translations.used``):
    an English name's word said in French by a Legilux act's name ("packaging": « emballages »); a term of
    several words or holding a sign other than a letter is left out (it is read as one FTS word). Pure."""
    out = dict.fromkeys(words)
    for plan in plans:
        for used in (plan.translations or {}).get("used") or ():
            if used.get("from") in words:
                out.update(dict.fromkeys(str(t) for t in used.get("to") or () if str(t).isalpha()))
    return list(out)


def weighed(plans: Iterable[Any]) -> bool:
    """Whether the plans are of a question the rule weighs: none names, cites or resolves a work, asks an
    article or an act number, or was already answered with no hits by another rule. Pure."""
    return not any(p.mentions or p.constraints or p.anchor or p.article_key or p.act_number or p.boost
                   or p.strong or p.name_not_held is not None for p in plans)


def answered(sections: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sections with hits. Pure."""
    return [s for s in sections if s.get("hits")]


def reason(shape: ActName) -> dict[str, Any]:
    """The typed no-hit reason every section answers with: the one :func:`serve.core.ops.search.named_act`
    gives a name no index holds."""
    return {"reason": "name_not_held", "shape": shape.kind, "words": list(shape.words)}
