"""The tables held packed before a served worker forks (ADR 0165) give what the dicts they replace gave."""

from __future__ import annotations

import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from serve.core import packed, ranking

_WORD = st.text(alphabet="abcdeéœz0", min_size=1, max_size=6)
_KEYS = st.integers(min_value=0, max_value=300)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, st.text(alphabet="ab cé\u0153", max_size=8), max_size=40), st.integers(-3, 320))
def test_a_string_column_gives_each_key_its_string(items: dict[int, str], probe: int) -> None:
    column = packed.StringColumn(items.items())
    assert len(column) == len(items)
    assert list(column.keys()) == sorted(items)
    assert column.get(probe) == items.get(probe)
    assert (column.position(probe) >= 0) == (probe in items)
    assert all(column.get(k) == v for k, v in items.items())


def test_a_string_column_refuses_a_negative_or_repeated_key() -> None:
    with pytest.raises(ValueError):
        packed.StringColumn([(-1, "x")])
    with pytest.raises(ValueError):
        packed.StringColumn([(2, "x"), (2, "y")])
    assert packed.StringColumn([]).get(0) is None


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, st.frozensets(_WORD, max_size=8), max_size=40), st.integers(-3, 320))
def test_word_sets_are_the_sets_they_were_built_from(items: dict[int, frozenset[str]], probe: int) -> None:
    table = packed.WordSets(items.items())
    assert dict(table) == items
    assert table == items
    assert (probe in table) == (probe in items)
    assert table.get(probe) == items.get(probe)
    assert "x" not in table  # not a work's row id


_SUBJECT = st.lists(_WORD, max_size=6, unique=True).map(lambda ws: tuple(sorted(ws)))


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, st.tuples(_SUBJECT, st.dictionaries(st.sampled_from(["en", "fr", "de"]), _SUBJECT)),
                       max_size=30))
def test_a_subject_table_gives_the_title_subjects_it_was_built_from(
        items: dict[int, tuple[tuple[str, ...], dict[str, tuple[str, ...]]]]) -> None:
    subjects = {k: ranking.TitleSubjects(s, by or types.MappingProxyType({})) for k, (s, by) in items.items()}
    table = packed.SubjectTable(subjects.items(), ranking.TitleSubjects)
    assert dict(table) == subjects
    for key, value in subjects.items():
        got = table[key]
        assert isinstance(got, ranking.TitleSubjects)
        assert tuple(got.shortest) == value.shortest and dict(got.by_language) == dict(value.by_language)
        assert list(got.by_language) == list(value.by_language)  # the languages in the same order
        for language in (None, "en", "fr", "de"):
            assert ranking.title_language_subject(got, language) == ranking.title_language_subject(value, language)


def test_a_word_holding_a_separator_is_refused() -> None:
    with pytest.raises(ValueError):
        packed.WordSets([(1, {"a" + packed.WORD_SEP + "b"})])
    with pytest.raises(ValueError):
        packed.SubjectTable([(1, ranking.TitleSubjects(("a" + packed.FIELD_SEP,), {}))], ranking.TitleSubjects)


_PROFILE = st.builds(ranking.WorkProfile, st.sampled_from(["in_force", "repealed", "unknown"]),
                     st.sampled_from(["principal", "amending", "compilation"]),
                     st.sampled_from([None, "law", "regulation", "secondary"]), st.text(max_size=30), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_KEYS, _PROFILE, max_size=40), st.integers(-3, 320))
def test_a_profile_table_gives_the_profiles_it_was_built_from(items: dict[int, ranking.WorkProfile],
                                                              probe: int) -> None:
    table = ranking.ProfileTable(items)
    assert list(table) == list(items)  # in the order given
    assert dict(table.items()) == items
    assert (probe in table) == (probe in items)
    assert table.get(probe) == items.get(probe)
    for key, profile in items.items():
        got = table[key]
        assert type(got) is ranking.WorkProfile and got == profile and repr(got) == repr(profile)
        assert got.prior() == profile.prior() and hash(got) == hash(profile)
    with pytest.raises(KeyError):
        table[max(items, default=0) + 1]
