"""The diff page's ``word_diff`` filter gives the bytes of the template loop it replaced: every
segment's text escaped (one escape per row), removed text in ``<del>``, added in ``<ins>``."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from derive.index.worddiff import Segment, word_segments
from serve.web.render import environment

#: the loop the diff template held before the filter (the reference)
LOOP = (
    '{% for s in segments %}{% if s.op == "del" %}<del>{{ s.text }}</del>'
    '{% elif s.op == "ins" %}<ins>{{ s.text }}</ins>{% else %}{{ s.text }}{% endif %}{% endfor %}'
)
FILTER = "{{ segments|word_diff }}"

texts = st.text(alphabet=st.sampled_from(list("ab <>&'\"\x00é\n.,;")), max_size=12)
segments = st.lists(st.builds(Segment, st.sampled_from(["same", "del", "ins"]), texts), max_size=12)
words = st.lists(
    st.sampled_from(["la", "<loi>", "s'applique", "&", '"toute"', "chose", "\n", "5,", "5;"]),
    max_size=20,
).map(" ".join)


def _both(chosen: Sequence[Segment]) -> tuple[str, str]:
    env = environment()
    return env.from_string(LOOP).render(segments=chosen), env.from_string(FILTER).render(
        segments=chosen
    )


@given(chosen=segments)
@settings(max_examples=300, deadline=None)
def test_the_filter_renders_as_the_loop(chosen: list[Segment]) -> None:
    loop, filtered = _both(chosen)
    assert filtered == loop


@given(before=words, after=words)
@settings(max_examples=200, deadline=None)
def test_the_filter_renders_word_segments_as_the_loop(before: str, after: str) -> None:
    loop, filtered = _both(word_segments(before, after))
    assert filtered == loop
    assert "<loi>" not in filtered
