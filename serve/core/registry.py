"""``OPERATIONS``: the ten legal operations, declared once as data.

Shells generate their surfaces from this mapping: each :class:`~serve.core.spec.OperationSpec`
has a name, a description, the JSON Schema of its arguments, its effect kind and its handler.
Bounds: strings 1..1000 characters unless stated, publisher/enum values ≤ 64, languages ≤ 16,
anchors ≤ 512, version keys ≤ 128, lists ≤ 50 items, every integer bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from legal import ids
from serve.core.ops import as_of, diff, evidence, inventory, search, timeline
from serve.core.params import (
    Choice,
    Date,
    Flag,
    ForbiddenWhen,
    Integer,
    NotAfter,
    RequiredWhen,
    Text,
    TextList,
)
from serve.core.spec import Effect, OperationSpec

ANCHOR_PATTERN = ids.ANCHOR_PATTERN  # the publisher's own anchors, accented letters included
LANGUAGE_PATTERN = r"^[a-z]{2,3}$"
VERSION_KEY_PATTERN = r"^\d{4}-\d{2}-\d{2}--[0-9a-f]{64}$"

WORK = Text("work", "The work: a work lex id (eu-eurlex:32016r0679), CELEX (32016R0679), ELI URL, Legilux slug "
            "(loi-2009-02-06-n3) or an exact official short title.", required=True, max_length=1000)
PUBLISHER = Text("publisher", "Restrict to one mounted publisher (lu-legilux, eu-eurlex) or jurisdiction (LU, EU).",
                 max_length=64)
LANGUAGE = Text("language", "Language of the expression (fr, en, de, lb). Default: the work's primary language.",
                max_length=16, pattern=LANGUAGE_PATTERN, lower=True)
DOCUMENT_TYPE = Text("document_type", "Publisher document type code (LOI, RGD, CODE, REG, DIR, …).", max_length=64)


def _limit(default: int, maximum: int) -> Integer:
    return Integer("limit", f"Page size (1..{maximum}).", minimum=1, maximum=maximum, default_value=default)


KNOWN_ON = Date("known_on", "As known on this day (YYYY-MM-DD): the answer the system would have given then, from the "
                            "records' transaction time (later sightings, withdrawals, resightings, validity "
                            "revisions, languages and bodies undone; what differs is disclosed). Not after the day "
                            "the index was built. Default: what is held now.")
OFFSET = Integer("offset", "Rows to skip (0..100000).", minimum=0, maximum=100_000, default_value=0)

_SPECS = (
    OperationSpec(
        name="search", title="Search provisions and works",
        description="Find provisions (and works) matching words, identifiers, article numbers and official short "
                    "titles. Filters (works, language, document type, as_of) apply before ranking. Returns one "
                    "section per publisher with its query plan and any fuzzy expansion or relaxation, and the "
                    "hits of every publisher merged by normalised score.",
        effect=Effect.SEARCH, fans_out=True,
        params=(
            Text("query", "Free text: words, CELEX, ELI, lex ids, 'Article 6 GDPR', quoted phrases.", required=True),
            PUBLISHER, LANGUAGE, DOCUMENT_TYPE,
            TextList("works", "Restrict to these works (lex ids, slugs or CELEX).", max_items=50, item_max_length=256),
            Choice("time_scope", "all_versions (default) or as_of (only wording valid on as_of).",
                   choices=("all_versions", "as_of")),
            Date("as_of", "Only provisions of states valid on this date."),
            Choice("retrieval_mode", "keyword (default) or hybrid (refused while not activated).",
                   choices=("keyword", "hybrid"), default_value="keyword"),
            Choice("fuzzy", "auto: expand unknown words when exact hits are few (reported); off: never.",
                   choices=("auto", "off"), default_value="auto"),
            Choice("relax", "auto: when exact hits are few add light-stem (prefix) variants of French and English "
                            "words, and when nothing matches drop stop words, then let any word match (all reported "
                            "in query_expansions / query_relaxed); off: never.",
                   choices=("auto", "off"), default_value="auto"),
            Integer("per_work_limit", "At most this many hits of one work per publisher (1..50; default 3): with "
                                      "result_grain works, the provisions shown for a work (the best one and the "
                                      "others nested in provisions); with provisions, unless the query names the works.",
                    minimum=1, maximum=50, default_value=3),
            Choice("result_grain", "works (default): one row per work, its best provisions nested in provisions; "
                                   "provisions: one row per provision.", choices=("works", "provisions"),
                   default_value="works"),
            Text("hierarchy", "Only works of this hierarchy level: EUR-Lex primary or secondary; Legilux "
                              "constitution, law or regulation.", max_length=64),
            Text("domain", "Only works with this EuroVoc concept, domain, directory code or Legilux subject (its URI, "
                           "code or label).", max_length=256),
            Choice("role", "Only the acts holding this role towards the one work the query names: amending, "
                           "delegated, implementing or corrigendum (also understood from the query: 'which acts "
                           "amend …').", choices=("amending", "delegated", "implementing", "corrigendum")),
            _limit(10, 50), KNOWN_ON
        ),
        rules=(RequiredWhen("as_of", "time_scope", ("as_of",)), ForbiddenWhen("as_of", "time_scope", ("all_versions",))),
        handler=search.run,
    ),
    OperationSpec(
        name="as_of", title="Text on a date",
        description="What a work, or some of its provisions, said on a date: the one publisher state covering the "
                    "date, with text, hashes and official link. Same-day states answer ambiguous_version with the "
                    "exact version keys; retry with version_key.",
        effect=Effect.PROVISION,
        params=(
            WORK, Date("date", "The date (YYYY-MM-DD).", required=True),
            Text("version_key", "Exact state to use among those covering the date.", max_length=128,
                 pattern=VERSION_KEY_PATTERN),
            PUBLISHER, LANGUAGE,
            Choice("mode", "full (all provisions with text), outline (no text) or select (only anchors). "
                           "Default: select when anchors are given, else full.", choices=("full", "outline", "select")),
            TextList("anchors", "Provision anchors (art_6, art_1er, anx_I); article numbers match 1 ↔ 1er.",
                     max_items=50, item_max_length=512, item_pattern=ANCHOR_PATTERN),
            Flag("include_withdrawn", "Resolve the date over every state ever published, withdrawn ones too: a "
                                      "withdrawn same-day twin then answers ambiguous_version with both keys. "
                                      "Default: only states the publisher still lists."), KNOWN_ON
        ),
        rules=(RequiredWhen("anchors", "mode", ("select",)), ForbiddenWhen("anchors", "mode", ("full",))),
        handler=as_of.run,
    ),
    OperationSpec(
        name="diff", title="What changed between two dates",
        description="Provision-level comparison of the states of a work on two dates, with word-level changes for "
                    "every changed provision. Texts derived by different profiles answer not_comparable.",
        effect=Effect.DIFF,
        params=(
            WORK, Date("from_date", "Earlier date.", required=True), Date("to_date", "Later date.", required=True),
            Text("from_version_key", "Exact state on from_date.", max_length=128, pattern=VERSION_KEY_PATTERN),
            Text("to_version_key", "Exact state on to_date.", max_length=128, pattern=VERSION_KEY_PATTERN),
            PUBLISHER, LANGUAGE,
            Text("anchor", "Compare one provision only.", max_length=512, pattern=ANCHOR_PATTERN),
            _limit(500, 2000), KNOWN_ON
        ),
        rules=(NotAfter("from_date", "to_date"),),
        handler=diff.run,
    ),
    OperationSpec(
        name="timeline", title="Dated states of a work",
        description="Every published state of a work with its interval as the publisher gave it and normalised, "
                    "its languages and text availability.",
        effect=Effect.TIMELINE,
        params=(WORK, PUBLISHER, Flag("include_withdrawn", "Also list states withdrawn from the source."),
                _limit(100, 200), OFFSET, KNOWN_ON),
        rules=(),
        handler=timeline.timeline,
    ),
    OperationSpec(
        name="article_history", title="History of one provision",
        description="The distinct wordings of one provision over time (observed text identity over continuous "
                    "intervals), with insertions, removals and renumberings.",
        effect=Effect.HISTORY,
        params=(WORK, Text("anchor", "Provision anchor (art_92, art_1er).", required=True, max_length=512,
                           pattern=ANCHOR_PATTERN),
                PUBLISHER, LANGUAGE, Date("from_date", "Window start."), Date("to_date", "Window end."),
                Flag("include_text", "Include each state's text."), KNOWN_ON),
        rules=(NotAfter("from_date", "to_date"),),
        handler=timeline.article_history,
    ),
    OperationSpec(
        name="changes_in_period", title="Works that changed in a period",
        description="Works with new states whose valid_from lies in the window (inclusive), with the number of "
                    "states, the baseline before the window and whether the wording changed.",
        effect=Effect.RANKING, fans_out=True,
        params=(Date("from_date", "Window start (inclusive).", required=True),
                Date("to_date", "Window end (inclusive).", required=True), PUBLISHER, DOCUMENT_TYPE,
                Choice("order", "by_date (default) or by_churn.", choices=("by_date", "by_churn"),
                       default_value="by_date"),
                _limit(20, 100), OFFSET, KNOWN_ON),
        rules=(NotAfter("from_date", "to_date"),),
        handler=inventory.changes_in_period,
    ),
    OperationSpec(
        name="in_force_on", title="Works with a state on a date",
        description="Works with a published state covering the date (Legilux: applicable; EUR-Lex: consolidated "
                    "wording state), latest state per work; same-day states are listed as ambiguous works.",
        effect=Effect.IN_FORCE, fans_out=True,
        params=(Date("date", "The date.", required=True), PUBLISHER, DOCUMENT_TYPE, LANGUAGE, _limit(50, 100), OFFSET, KNOWN_ON),
        rules=(),
        handler=inventory.in_force_on,
    ),
    OperationSpec(
        name="coverage", title="What the mounted corpus holds",
        description="Counts of works, states, expressions, texts and gaps per publisher, so an absence can be "
                    "told from a gap.",
        effect=Effect.COVERAGE, fans_out=True,
        params=(PUBLISHER, KNOWN_ON),
        rules=(),
        handler=inventory.coverage,
    ),
    OperationSpec(
        name="cited_by", title="Provisions citing a work",
        description="Provisions of held, non-withdrawn states that link to a work (captured cross-references only; "
                    "legal effect and relationship type are not assessed).",
        effect=Effect.CITED_BY, fans_out=True,
        params=(WORK, _limit(50, 100), OFFSET, KNOWN_ON),
        rules=(),
        handler=evidence.cited_by,
    ),
    OperationSpec(
        name="provenance", title="Evidence chain of a state or provision",
        description="The hash chain behind a version (or provision): text hash, evidence bytes hash, record hash, "
                    "corpus manifest, index digest, artifact; with the record's events and observations.",
        effect=Effect.VERIFICATION,
        params=(Text("lex_id", "A version lex id, or a provision id (<version lex id>#<anchor>).", required=True,
                     max_length=1000),
                LANGUAGE, KNOWN_ON),
        rules=(),
        handler=evidence.provenance,
    ),
)

OPERATIONS: Mapping[str, OperationSpec] = MappingProxyType({spec.name: spec for spec in _SPECS})
