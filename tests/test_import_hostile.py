"""Hostile import files fail in one line naming file, row and column; nothing is written."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from interop.importing import (
    MAX_CSV_CELL,
    MAX_JSON_DEPTH,
    ImportFailure,
    import_annotations,
    import_items,
)


@pytest.fixture
def binary(store: Store) -> Store:
    store.create_project("p", "binary")
    return store


def one_line_cli_error(url: str, path: Path, capsys, what: str = "items") -> str:
    assert main(["--db", url, "import", what, "p", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


def test_not_utf8_names_row_and_column(sqlite_url, tmp_path, capsys) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary")
    store.close()
    path = tmp_path / "latin1.csv"
    path.write_bytes("item_id,text\na,fine\nb,caf\u00e9 cr\u00e8me\n".encode("latin-1"))
    err = one_line_cli_error(sqlite_url, path, capsys)
    assert err == (
        "error: nothing imported: latin1.csv, row 2, column 'text': "
        "not UTF-8 text (byte 0xe9); save the file as UTF-8"
    )
    jsonl = tmp_path / "latin1.jsonl"
    jsonl.write_bytes(b'{"item_id": "a", "text": "ok"}\n{"item_id": "b", "text": "\xff"}\n')
    err = one_line_cli_error(sqlite_url, jsonl, capsys)
    assert err.endswith(
        "latin1.jsonl, row 2, column 'text': not UTF-8 text (byte 0xff); save the file as UTF-8"
    )
    assert Store(sqlite_url).items("p") == []


def test_csv_cell_over_the_default_limit_imports(binary: Store, tmp_path) -> None:
    text = "x" * (128 * 1024 + 10)  # over Python's default csv limit of 128 KiB
    path = tmp_path / "big.csv"
    path.write_text(f"item_id,text\na,{text}\n", encoding="utf-8")
    assert import_items(binary, "p", path).created == 1
    assert binary.items("p")[0].fields["text"] == text


def test_csv_cell_over_the_maximum_names_the_row(binary: Store, tmp_path, capsys) -> None:
    path = tmp_path / "huge.csv"
    path.write_text(f"item_id,text\na,ok\nb,ok\nc,{'x' * (MAX_CSV_CELL + 1)}\n", encoding="utf-8")
    with pytest.raises(ImportFailure) as info:
        import_items(binary, "p", path)
    assert str(info.value) == (
        f"huge.csv, row 3: a cell is longer than the limit of {MAX_CSV_CELL:,} characters"
    )
    assert binary.items("p") == []


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 100_000])
def test_deeply_nested_jsonl_is_refused_in_one_line(binary: Store, tmp_path, depth) -> None:
    nested = "[" * depth + "]" * depth
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"item_id": "a", "text": "ok"}\n'
        f'{{"item_id": "b", "text": "ok", "context": {nested}}}\n',
        encoding="utf-8",
    )
    with pytest.raises(ImportFailure) as info:
        import_items(binary, "p", path)
    assert str(info.value).startswith("deep.jsonl, row 2")
    assert str(info.value).endswith(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    assert binary.items("p") == []


def test_deeply_nested_json_in_csv_cells_is_refused(store: Store, tmp_path) -> None:
    store.create_project("im", "intent_match")
    deeper = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    path = tmp_path / "deep.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["item_id", "gold", "predicted", "gold_facts", "extra"])
        writer.writerow(["a", "g", "p", '["f"]', deeper])
    with pytest.raises(ImportFailure) as info:
        import_items(store, "im", path)
    assert str(info.value) == (
        f"deep.csv, row 1, column 'extra': JSON nested deeper than {MAX_JSON_DEPTH} levels"
    )
    nested = "[" * 100_000 + "]" * 100_000  # beyond Python's recursion limit
    path.write_text(f"item_id,gold,predicted,gold_facts\na,g,p,{nested}\n", encoding="utf-8")
    with pytest.raises(ImportFailure) as info:
        import_items(store, "im", path)
    assert str(info.value) == f"deep.csv, row 1: JSON nested deeper than {MAX_JSON_DEPTH} levels"
    assert store.items("im") == []


@pytest.mark.parametrize("bad", [{"a": 1}, 1.5e308, 2.0, True, None, ["x"]])
def test_item_id_must_be_string_or_integer(binary: Store, tmp_path, bad) -> None:
    path = tmp_path / "ids.jsonl"
    rows = [{"item_id": "ok", "text": "t"}, {"item_id": bad, "text": "t"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ImportFailure) as info:
        import_items(binary, "p", path)
    assert str(info.value).startswith("ids.jsonl, row 2, column 'item_id': ")
    assert binary.items("p") == []


def test_integer_item_ids_are_accepted_everywhere(binary: Store, tmp_path) -> None:
    path = tmp_path / "ids.jsonl"
    path.write_text('{"item_id": 7, "text": "t"}\n', encoding="utf-8")
    assert import_items(binary, "p", path).created == 1
    assert [i.item_id for i in binary.items("p")] == ["7"]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        '{"item_id": 7, "annotator": "a", "field": "label", "value": 1}\n', encoding="utf-8"
    )
    assert import_annotations(binary, "p", labels).created == 1
    labels.write_text(
        '{"item_id": 7.0, "annotator": "a", "field": "label", "value": 1}\n', encoding="utf-8"
    )
    with pytest.raises(ImportFailure, match="column 'item_id': must be a string or an integer"):
        import_annotations(binary, "p", labels)
