"""The served benchmark's mix (``bench.bench_serve_full.served_mix``): one round is the mix as it
always was; more rounds keep every kind's share and ask fewer repeated questions."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench.bench_serve_full import canonical, served_mix


def _ops() -> dict[str, list[tuple[str, dict[str, Any]]]]:
    works = [f"lu-legilux:w{i}" for i in range(30)]
    return {
        "as_of": [("as_of", {"work": w, "date": "2020-01-01"}) for w in works],
        "timeline": [("timeline", {"work": w}) for w in works],
        "coverage": [("coverage", {"publisher": "lu-legilux"}), ("coverage", {})],
        "search:fr:mid": [("search", {"query": f"mot{i}"}) for i in range(20)],
        "diff:largest": [("diff", {"work": w, "from_date": "2001-01-01", "to_date": "2020-01-01"})
                         for w in works[:9]],
    }


def _distinct(mix: list[Any]) -> int:
    return len({(method, path, canonical(body)) for _, method, path, body in mix})


def test_one_round_takes_the_first_calls_of_each_kind_once() -> None:
    mix = served_mix(_ops(), 4)
    kinds = Counter(kind for kind, *_ in mix)
    assert kinds["api:as_of"] == kinds["api:timeline"] == kinds["api:search:fr:mid"] == 4
    assert kinds["api:coverage"] == 2 and kinds["page:diff"] == 6 and kinds["healthz"] == 1
    assert served_mix(_ops(), 4) == mix  # fixed order


def test_more_rounds_keep_the_shares_and_repeat_less() -> None:
    one = served_mix(_ops(), 4)
    three = served_mix(_ops(), 4, rounds=3)
    assert len(three) == 3 * len(one)
    assert Counter(k for k, *_ in three) == Counter({k: 3 * n for k, n in Counter(k for k, *_ in one).items()})
    assert three[:len(one)] == one  # the first round is the one-round mix
    assert _distinct(three) > 2 * _distinct(one)
