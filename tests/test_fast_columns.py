"""Bulk column decoders: the same values as decoding row by row."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from annotation_store.fast_columns import RawColumns


def _row_by_row(values: list) -> pd.Series:
    return pd.Series(pd.to_datetime(pd.Series(values, dtype=object), format="ISO8601"))


def test_timestamps_parse_each_distinct_value_once_with_the_same_result() -> None:
    text = [
        "2026-11-27 20:55:22.034972",
        "2026-11-27 20:55:22.034972",
        "2025-01-02 03:04:05",
        "2026-11-27 20:55:22.034972",
        "2024-02-29 23:59:59.999999",
    ]
    got = RawColumns.timestamps(text)
    assert got.equals(_row_by_row(text))
    assert got.dtype == "datetime64[us]"
    assert got[2] == pd.Timestamp("2025-01-02 03:04:05")
    order = np.array([4, 2, 0, 1, 3])
    assert RawColumns.timestamps(text, order).equals(_row_by_row([text[i] for i in order]))


def test_timestamps_keep_missing_values_and_driver_datetimes() -> None:
    utc = dt.UTC
    values = [dt.datetime(2026, 1, 1, tzinfo=utc), None, dt.datetime(2026, 1, 1, tzinfo=utc)]
    got = RawColumns.timestamps(values)
    assert got.equals(_row_by_row(values))
    assert got.isna().tolist() == [False, True, False]
    assert str(got.dtype) == "datetime64[us, UTC]"
    assert RawColumns.timestamps([]).equals(_row_by_row([]))
