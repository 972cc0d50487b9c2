"""History states and anchor events (model §6.6) on small, explicit inputs."""

from __future__ import annotations

from derive.history import EMPTY_SHA, VersionTexts, build_history, derived_ends


def _v(date: str, texts: dict[str, dict[str, str]] | None, key: str = "k") -> VersionTexts:
    v = VersionTexts(f"lu-legilux:w:{date}--{key}", f"{date}--{key}", date)
    for lang, anchors in (texts or {}).items():
        v.texts[lang] = {a: (sha, None) for a, sha in anchors.items()}
    return v


def test_derived_ends_skip_same_date_siblings():
    versions = [_v("2020-01-01", {}), _v("2021-01-01", {}, "a"), _v("2021-01-01", {}, "b"), _v("2022-03-01", {})]
    assert derived_ends(versions) == ["2020-12-31", "2022-02-28", "2022-02-28", None]


def test_runs_merge_identical_text_and_break_on_absence_and_gaps():
    history = build_history("lu-legilux:w", [
        _v("2020-01-01", {"fr": {"art_1": "a", "art_2": "x"}}),
        _v("2020-06-01", {"fr": {"art_1": "a"}}),
        _v("2021-01-01", None),  # no text held for this version
        _v("2022-01-01", {"fr": {"art_1": "a", "art_2": "x"}}),
    ])
    states = history["anchors_by_language"]["fr"]
    assert [(s["valid_from"], s["valid_to"]) for s in states["art_1"]] == [
        ("2020-01-01", "2020-12-31"), ("2022-01-01", None)]
    assert [(s["valid_from"], s["valid_to"]) for s in states["art_2"]] == [
        ("2020-01-01", "2020-05-31"), ("2022-01-01", None)]


def test_renumbered_only_on_a_unique_identical_text():
    history = build_history("lu-legilux:w", [
        _v("2020-01-01", {"fr": {"art_10": "t10", "art_11": "same", "art_12": "same"}}),
        _v("2021-01-01", {"fr": {"art_10_2021": "t10", "art_13": "same", "art_14": "same"}}),
    ])
    events = history["anchor_events_by_language"]["fr"]
    assert {"event": "renumbered", "from": "art_10", "to": "art_10_2021", "text_sha256": "t10",
            "at_version": "lu-legilux:w:2021-01-01--k", "basis": "identical_text"} in events
    assert sum(e["event"] == "removed" for e in events) == 2  # identical boilerplate stays removed/inserted
    assert sum(e["event"] == "inserted" for e in events) == 2


def test_languages_never_mix_and_primary_language_ties_are_ordinal():
    history = build_history("lu-legilux:w", [_v("2020-01-01", {"fr": {"a": "1"}, "de": {"a": "1"}})])
    assert history["primary_language"] == "de"
    assert set(history["anchors_by_language"]) == {"de", "fr"}
    assert EMPTY_SHA.startswith("e3b0c442")
