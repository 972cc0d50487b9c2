"""Issue #15, fourteenth pass (concept14): conceptual and fuzzy questions.

- fuzzy: a typo that is another word's inflection ("servises": Snowball stem "servis", held as
  "servis") is still corrected when a one-edit neighbour ("services") is held far more often
  (:func:`serve.core.ops.search.typo_over_inflection`), and a name shaped with it ("loi sur les
  servises postaux") is not refused as a name no held act bears (:func:`serve.core.ops.search.typo_words`);
- vocabulary: the reviewed synonym entries of this pass name their source.

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from derive.index import relax
from serve.core import LegalCore
from serve.core.ops import search
from tests.index.pipeline import FixtureBuild

EU, LU = "eu-eurlex", "lu-legilux"


def _section(core: LegalCore, query: str, publisher: str, **args: Any) -> dict[str, Any]:
    answer = core.call("search", {"query": query, **args})
    return dict(next(s for s in answer["publishers"] if s["publisher"] == publisher))


# -- fuzzy: typos that are another word's inflection ----------------------------------------------


def test_a_long_word_whose_neighbour_is_far_more_frequent_is_a_typo() -> None:
    assert search.typo_over_inflection("servises", 91, 21075)
    assert search.typo_over_inflection("luxembourgoise", 1, 2440)
    # a short word has many neighbours by chance ("acide" / "aide"): never
    assert not search.typo_over_inflection("acide", 0, 5000)
    # an inflection held nearly as often as the neighbour is the word meant
    assert not search.typo_over_inflection("procedere", 125, 1524)


def test_the_neighbour_is_not_one_of_the_held_inflections(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{LU}.sqlite")
    try:
        forms, neighbour = search.inflection_and_neighbour_docs(conn, "servises", None)
        services = conn.execute("SELECT docs FROM vocabulary WHERE term = 'services'").fetchone()[0]
    finally:
        conn.close()
    assert neighbour == services and forms < neighbour
    assert search.typo_over_inflection("servises", forms, neighbour)


def test_a_typo_held_as_another_inflection_is_corrected(fixture_core: LegalCore) -> None:
    # before: "servises" counted as known (held as "servis"): never corrected, one hit on "servis"
    section = _section(fixture_core, "servises", LU)
    assert "servises -> services" in section["query_expansions"]
    # the held inflection is still searched beside the correction
    assert "servises -> servis" in section["query_expansions"]
    assert len(section["hits"]) >= 5
    # "acide" (held as "acides") stays the word it is (test_search_no_hit)
    assert _section(fixture_core, "acide", LU)["query_expansions"] == ["acide -> acides"]


def test_a_name_with_such_a_typo_is_not_refused(fixture_core: LegalCore) -> None:
    # before: every section answered no hits, ``name_not_held`` (the words held only as "servis")
    section = _section(fixture_core, "loi sur les servises postaux", LU)
    assert section["relaxation_withheld"] is None
    assert section["hits"] and "servises -> services" in section["query_expansions"]


# -- vocabulary: reviewed synonyms -----------------------------------------------------------------


def test_the_new_synonym_entries_name_their_source() -> None:
    entries = json.loads(relax.SYNONYMS_PATH.read_text(encoding="utf-8"))["entries"]
    by_word = {e["word"]: e for e in entries}
    for word in ("Kartenzahlung", "marketplace", "old batteries", "information about the job"):
        assert word in by_word and by_word[word]["source"] and by_word[word]["terms"]
