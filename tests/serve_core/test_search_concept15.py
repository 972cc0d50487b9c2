"""Issue #15, fifteenth pass (concept15): a question that says an act's EuroVoc subject.

EUR-Lex records carry EuroVoc concepts with their preferred and alternative labels (FR/EN). A
question that holds a specific concept's whole label (two content words or more, carried by few
works; any inflection) names those works by subject (:mod:`serve.core.subjects`), and the any-word
relaxation's hits on them are kept instead of being withheld as ``off_subject``
(:func:`serve.core.ops.search.with_subject_labels`).

On the real fixture corpus (``LEX_FIXTURES``) where an index is read.
"""

from __future__ import annotations

import json
import sqlite3

from derive.index import analysis, relax
from serve.core import subjects
from serve.core.ops import search
from serve.core.ops.search import Hit
from tests.index.pipeline import FixtureBuild

EU = "eu-eurlex"


def test_a_label_key_is_its_content_words_stemmed() -> None:
    assert subjects.label_key("european patent with unitary effect", "en") == (
        "effect",
        "european",
        "patent",
        "unitari",
    )
    assert subjects.label_key("brevet unitaire", "fr") == ("brevet", "unitair")


def test_only_specific_labels_of_several_words_count() -> None:
    rows = [(1, "unitary patent", "en"), (1, "patent", "en"), (2, "unitary patent", "en")]
    rows += [(w, "public contract", "en") for w in range(10, 10 + subjects.SUBJECT_MAX_WORKS + 1)]
    labels = subjects.subject_labels(rows)
    # a one-word label says too little; a label on more than SUBJECT_MAX_WORKS works too
    assert set(labels.works) == {("patent", "unitari")}
    # any inflection of the label's words, in any order, among other words
    assert labels.named_by(["rules", "on", "unitary", "patents"]) == frozenset({1, 2})
    assert labels.named_by(["patents", "unitaires"]) == frozenset()
    # every word of the label must be there
    assert labels.named_by(["patent", "rules"]) == frozenset()


def test_the_fixture_index_names_the_unitary_patent_acts_by_subject(
    fixture_indexes: FixtureBuild,
) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{EU}.sqlite")
    try:
        found = subjects.subject_works(
            conn, None, [["unitary"], ["patents", "patent"], ["protection"]]
        )
        works = {
            int(r[0]): str(r[1]) for r in conn.execute("SELECT work_rowid, work_id FROM works")
        }
    finally:
        conn.close()
    assert "eu-eurlex:32011d0167" in {works[w] for w in found}


def _hit(work: int, reasons: list[str]) -> Hit:
    return Hit({"work_rowid": work, "anchor": "art_1"}, reasons)


def test_an_any_word_hit_on_an_act_of_the_subject_is_kept(fixture_indexes: FixtureBuild) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{EU}.sqlite")
    conn.row_factory = sqlite3.Row
    try:
        patent = int(
            conn.execute(
                "SELECT work_rowid FROM works WHERE work_id = 'eu-eurlex:32011d0167'"
            ).fetchone()[0]
        )
        other = int(
            conn.execute(
                "SELECT min(work_rowid) FROM works WHERE work_rowid != ?", (patent,)
            ).fetchone()[0]
        )
        groups = [["unitary"], ["patent", "patents"], ["court"]]
        hits = [_hit(patent, ["any_term"]), _hit(other, ["any_term"])]
        coverage = search.with_subject_labels(conn, None, groups, hits, {})
    finally:
        conn.close()
    # before: no title word → both dropped and the relaxation withheld as off_subject
    assert coverage.get(patent, 0.0) > 0 and coverage.get(other, 0.0) == 0.0
    out = search.Lexical([], words=["unitary", "patent", "court"])
    out.relaxed = {"reason": "any_term"}
    search._keep_on_subject(out, hits, coverage)
    assert [h.row["work_rowid"] for h in hits] == [patent]
    assert out.relaxation_withheld is None


def test_a_titled_hit_needs_no_label_lookup() -> None:
    # the labels are read only when an any-word hit would be dropped: no connection used here
    hits = [_hit(7, ["any_term"]), _hit(8, ["keyword"])]
    coverage = {7: 0.5}
    assert search.with_subject_labels(None, None, [["x"]], hits, coverage) is coverage  # type: ignore[arg-type]


def test_a_withheld_relaxation_reaches_the_acts_of_the_subject(
    fixture_indexes: FixtureBuild,
) -> None:
    conn = sqlite3.connect(fixture_indexes.index_dir / f"{EU}.sqlite")
    conn.row_factory = sqlite3.Row
    try:
        out = search.Lexical(
            [],
            words=["unitary", "patent", "court"],
            groups=[["unitary"], ["patent", "patents"], ["court"]],
        )
        out.relaxation_withheld = {"reason": "off_subject", "relaxed": {"reason": "any_term"}}
        hits: list[Hit] = []
        search._reach_subject(conn, None, out, hits, search.Filters())
        works = {
            int(r[0]): str(r[1]) for r in conn.execute("SELECT work_rowid, work_id FROM works")
        }
        nothing = search.Lexical(
            [],
            words=["submarine", "parking", "permit"],
            groups=[["submarine"], ["parking"], ["permit", "permits"]],
        )
        nothing.relaxation_withheld = {"reason": "off_subject", "relaxed": {"reason": "any_term"}}
        none: list[Hit] = []
        search._reach_subject(conn, None, nothing, none, search.Filters())
    finally:
        conn.close()
    # before: an empty section, relaxation withheld as off_subject
    assert "eu-eurlex:32011d0167" in {works[h.row["work_rowid"]] for h in hits}
    assert all(
        h.reasons == ["work_metadata"] and h.extra["matched_metadata"]["kind"] == "eurovoc_subject"
        for h in hits
    )
    assert out.relaxation_withheld is None
    # no label named: the section stays empty and says why
    assert none == [] and nothing.relaxation_withheld == {
        "reason": "off_subject",
        "relaxed": {"reason": "any_term"},
    }


def test_drone_and_advert_are_or_ed_with_the_acts_words() -> None:
    # before: "drones" and "advert" are in no EUR-Lex provision (unknown_terms / no hit)
    _, found = relax.with_synonyms(["rules", "flying", "drones"], analysis.stem_word, "en")
    assert "unmanned aircraft" in found["drones"]
    _, found = relax.with_synonyms(["can", "an", "advert", "compare"])
    assert found["advert"] == ["advertising", "publicite"]  # folded as the index holds them
    entries = {
        e["word"]: e for e in json.loads(relax.SYNONYMS_PATH.read_text(encoding="utf-8"))["entries"]
    }
    assert all(entries[w]["source"] for w in ("drone", "Drohne", "advert"))
