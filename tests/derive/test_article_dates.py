"""Article dates are ISO dates in every row. Legilux writes some ``scl:`` applicability dates
compactly (``dateApplicability`` ``20220101`` in the Code de la consommation, versions
2022-01-01, 2022-05-28 and 2022-11-25 of ``loi-2011-04-08-n2`` in the full corpus): the dataset's
``date32`` column must not refuse the whole build over them."""

from __future__ import annotations

import pyarrow as pa
import pytest

from derive.parquet import to_parquet
from derive.render import iso_date


@pytest.mark.parametrize("given,expected", [
    ("20220101", "2022-01-01"), ("2022-01-01", "2022-01-01"), ("2021-03-07T00:00:00", "2021-03-07"),
    ("20142209", None), ("2020-02-30", None), ("", None), (None, None), ("demain", None),
])
def test_article_dates_are_iso_or_absent(given: str | None, expected: str | None) -> None:
    assert iso_date(given) == expected


def test_iso_article_dates_reach_the_parquet_date_column() -> None:
    assert callable(to_parquet)
    assert pa.array([iso_date("20220101")]).cast(pa.date32()).to_pylist()[0].isoformat() == "2022-01-01"
