"""Items from Parquet and JSONL with progress: read in batches, still all-or-nothing, and
a bad row is named by its number."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from annotation_store import Store
from interop.importing import ImportFailure, import_items


@pytest.fixture
def binary(store: Store) -> Store:
    store.create_project("b", "binary")
    return store


def test_parquet_items_import_with_their_fields(binary: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.parquet"
    pd.DataFrame(
        {
            "item_id": [f"p{i}" for i in range(12_000)],
            "text": [f"text {i}" for i in range(12_000)],
            "split": ["dev" if i % 2 else "test" for i in range(12_000)],
        }
    ).to_parquet(path, index=False)
    calls: list[tuple[int, int, str]] = []
    report = import_items(binary, "b", path, on_progress=lambda *a: calls.append(a))
    assert report.created == 12_000
    assert calls == [
        (5_000, 12_000, "checking"),
        (10_000, 12_000, "checking"),
        (5_000, 12_000, "writing"),
        (10_000, 12_000, "writing"),
        (12_000, 12_000, "writing"),
        (12_000, 12_000, "done"),
    ]
    [item] = binary.items_page("b", 11_999, 1)
    assert (item.item_id, item.fields["text"], item.split) == ("p11999", "text 11999", "dev")


def test_a_bad_parquet_row_is_named_and_nothing_is_written(binary: Store, tmp_path) -> None:
    path = tmp_path / "items.parquet"
    texts: list[str | None] = [f"t{i}" for i in range(7_000)]
    texts[6_123] = None  # the kind requires a text
    pd.DataFrame({"item_id": [f"p{i}" for i in range(7_000)], "text": texts}).to_parquet(path)
    with pytest.raises(ImportFailure) as info:
        import_items(binary, "b", path)
    assert (info.value.row, info.value.column) == (6_124, "text")
    assert binary.item_count("b") == 0


def test_not_a_parquet_file_is_one_clear_line(binary: Store, tmp_path: Path) -> None:
    path = tmp_path / "items.parquet"
    path.write_bytes(b"item_id,text\na,b\n")
    with pytest.raises(ImportFailure, match="not a readable Parquet file"):
        import_items(binary, "b", path)
    assert binary.item_count("b") == 0


def test_jsonl_import_reports_progress_and_the_cli_prints_it(
    binary: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cli

    path = tmp_path / "items.jsonl"
    path.write_text(
        "".join(json.dumps({"item_id": f"j{i}", "text": "x"}) + "\n" for i in range(5_001))
    )
    assert cli.main(["--db", binary.url, "import", "items", "b", str(path)]) == 0
    out = capsys.readouterr()
    assert "items: 5001 created" in out.out
    assert "checking: 5,000 / 5,001 rows" in out.err and "done: 5,001 / 5,001 rows" in out.err


def test_items_added_while_an_import_stages_are_kept_and_it_stages_again(binary: Store) -> None:
    calls = 0

    def batches() -> list[list[dict]]:
        nonlocal calls
        calls += 1
        if calls == 1:  # another writer adds an item after the import noted the items
            binary.upsert_items("b", [{"item_id": "other", "fields": {"text": "o"}}])
        return [[{"item_id": f"n{i}", "fields": {"text": f"t{i}"}} for i in range(3)]]

    report = binary.upsert_item_batches("b", batches)
    assert calls == 2
    assert (report.created, report.updated, report.unchanged) == (3, 0, 0)
    assert [(i.item_id, i.position) for i in binary.items("b")] == [
        ("other", 0),
        ("n0", 1),
        ("n1", 2),
        ("n2", 3),
    ]


def test_a_big_items_file_is_streamed_in_bounded_memory(binary: Store, tmp_path: Path) -> None:
    import tracemalloc

    peaks = {}
    for rows in (2_000, 20_000):
        path = tmp_path / f"items{rows}.jsonl"
        with path.open("w") as fh:
            fh.writelines(
                json.dumps({"item_id": f"r{rows}-{i}", "text": "some text " * 20}) + "\n"
                for i in range(rows)
            )
        binary.create_project(f"m{rows}", "binary")
        tracemalloc.start()
        assert import_items(binary, f"m{rows}", path).created == rows
        peaks[rows] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    # Ten times the rows; only the set of seen ids grows (about 3x here), while the import
    # that read the whole file peaked at about 8x.
    assert peaks[20_000] < 4 * peaks[2_000], peaks
