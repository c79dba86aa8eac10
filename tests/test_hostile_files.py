"""Hostile files on every import surface, native and foreign: each is refused in ONE line
naming the file, the record (where the file has records) and the reason, and nothing is
imported. Small files are in tests/data/hostile; huge ones and Parquet ones are made here.
"""

from __future__ import annotations

import decimal
import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from annotation_store import Store
from commands import main
from interop import row_source
from interop.importing import ImportFailure
from workbench_api import add_items, import_file

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"

PAGE_BOMB = "a page of column 'text' at byte 43 decompresses to 400 MiB, over the cap of 200 MiB"
# (file in tests/data/hostile, what, format, the one line expected after "<file>, ")
CASES = [
    ("not_utf8.jsonl", "items", None, "row 1, column 'text': not UTF-8 text (byte 0xe9)"),
    ("ls_not_utf8.json", "annotations", "label-studio", "not UTF-8 text (byte 32)"),
    ("deep.jsonl", "items", None, "row 1: JSON nested deeper than 64 levels"),
    ("ls_deep.json", "annotations", "label-studio", "JSON nested deeper than 64 levels"),
    ("long_int.jsonl", "items", None, "row 1: an integer longer than 4,300 digits"),
    ("ls_long_int.json", "annotations", "label-studio", "an integer longer than 4,300 digits"),
    (
        "ls_annotations_not_list.json",
        "annotations",
        "label-studio",
        "task 1 (id 1): 'annotations' must be a list",
    ),
    (
        "ls_result_not_list.json",
        "annotations",
        "label-studio",
        "task 1 (id 1), annotation 1: 'result' must be a list",
    ),
    (
        "ls_value_not_object.json",
        "annotations",
        "label-studio",
        "task 1 (id 1), annotation 1, result 'label': a result's value must be an object",
    ),
    (
        "nan_in_value.jsonl",
        "items",
        None,
        "row 1, column 'extra': NaN or Infinity inside a JSON value",
    ),
    (
        "nul_in_name.jsonl",
        "annotations",
        None,
        "row 1, column 'annotator': a NUL character (\\x00), which the database cannot store",
    ),
    (
        "ls_nul_in_name.json",
        "annotations",
        "label-studio",
        "task 1 (id 1), annotation 1, result 'label', column 'annotator': a NUL character",
    ),
    (
        "ls_nul_in_reviewer.json",
        "annotations",
        "label-studio",
        # a ground-truth annotation is its annotator's: the NUL is in the annotator's name
        "task 1 (id 1), annotation 1, result 'label', column 'annotator': a NUL",
    ),
    (
        "lf_nan.json",
        "scores",
        "langfuse",
        "score 1 (id s), column 'value': must be a finite number",
    ),
    ("mturk_not_utf8.csv", "annotations", "mturk", "not UTF-8 text (byte 87)"),
    # 415 bytes: 5,000 rows share one dictionary-encoded 1 MiB text (5 GB written out),
    # while the metadata counts the dictionary page once (1 MiB).
    ("dict_bomb.parquet", "items", None, "expands to at least 5,000 MiB, over the cap of 200"),
    ("dict_bomb.parquet", "annotations", "argilla", "expands to at least 5,000 MiB"),
    # 13 KB: one zstd data page holding one plain-encoded 400 MiB text, which Arrow would
    # decompress whole; its footer claims 100 bytes (make_page_bomb.py remakes it).
    ("page_bomb.parquet", "items", None, PAGE_BOMB),
    ("page_bomb.parquet", "annotations", "argilla", PAGE_BOMB),
    # Cut files: a CSV whose last cell's quote is never closed (on main the cut cell
    # replaced item a's text), a JSON line or array cut mid-value.
    ("cut_quote.csv", "items", None, "row 1: the file ends inside a quoted cell (cut short?)"),
    ("cut_quote.tsv", "items", None, "row 1: the file ends inside a quoted cell (cut short?)"),
    ("cut_line.jsonl", "annotations", None, "row 2: not valid JSON (Unterminated string"),
    ("mturk_cut_quote.csv", "annotations", "mturk", "the file ends inside a quoted cell"),
    ("lf_cut_quote.csv", "scores", "langfuse", "the file ends inside a quoted cell"),
    ("lf_cut.jsonl", "scores", "langfuse", "row 2: not valid JSON (Unterminated string"),
    ("langsmith_cut_quote.csv", "scores", "langsmith", "the file ends inside a quoted cell"),
    ("langsmith_cut.jsonl", "scores", "langsmith", "row 2: not valid JSON (Unterminated"),
    (
        "ls_cut.json",
        "annotations",
        "label-studio",
        "not valid JSON (Unterminated string starting at: line 5 column 131",
    ),
    ("potato_cut.jsonl", "annotations", "potato", "line 2: not valid JSON (Unterminated"),
    ("argilla_cut.jsonl", "annotations", "argilla", "line 2: not valid JSON (Unterminated"),
    # Not UTF-8, or nested 5,000 deep, in every format that reads text.
    ("not_utf8.csv", "items", None, "row 1, column 'text': not UTF-8 text (byte 0xe9)"),
    ("potato_not_utf8.jsonl", "annotations", "potato", "not UTF-8 text (byte 36)"),
    ("argilla_not_utf8.jsonl", "annotations", "argilla", "not UTF-8 text (byte 24)"),
    ("lf_not_utf8.json", "scores", "langfuse", "not UTF-8 text (byte 74)"),
    ("langsmith_not_utf8.jsonl", "scores", "langsmith", "not UTF-8 text (byte 71)"),
    ("potato_deep.jsonl", "annotations", "potato", "JSON nested deeper than 64 levels"),
    ("argilla_deep.jsonl", "annotations", "argilla", "JSON nested deeper than 64 levels"),
    ("lf_deep.json", "scores", "langfuse", "JSON nested deeper than 64 levels"),
    ("langsmith_deep.jsonl", "scores", "langsmith", "JSON nested deeper than 64 levels"),
]
NATIVE = [c for c in CASES if c[2] is None]


@pytest.fixture
def project(store: Store) -> Store:
    store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    add_items(store, "p", pd.DataFrame({"item_id": ["a"], "text": ["t"]}))
    return store


def nothing_imported(store: Store) -> None:
    from adjudication.final_labels import adjudications

    assert [i.item_id for i in store.items("p")] == ["a"]
    assert store.annotations_frame("p", ("draft", "submitted", "skipped")).empty
    assert store.scores_frame("p").empty and adjudications(store, "p").empty


@pytest.mark.parametrize(("name", "what", "fmt", "reason"), CASES, ids=[c[0] for c in CASES])
def test_hostile_file_is_refused_in_one_line(
    project: Store, name: str, what: str, fmt: str | None, reason: str
) -> None:
    with pytest.raises(ImportFailure) as caught:
        import_file(project, "p", what, HOSTILE / name, fmt)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400
    assert message.startswith(f"{name}, ") or message.startswith(f"{name}: ")
    assert reason in message
    nothing_imported(project)


@pytest.mark.parametrize(("name", "what", "fmt", "reason"), NATIVE, ids=[c[0] for c in NATIVE])
def test_hostile_file_is_refused_from_an_upload(
    project: Store, name: str, what: str, fmt: None, reason: str
) -> None:
    """The Data page hands an upload's bytes and name to the same importers."""
    from interop.importing import IMPORTERS

    with pytest.raises(ImportFailure) as caught:
        IMPORTERS[what](project, "p", (HOSTILE / name).read_bytes(), f"up-{name}")
    assert str(caught.value).startswith(f"up-{name}") and reason in str(caught.value)
    assert "\n" not in str(caught.value)
    nothing_imported(project)


def _cell_over_cap(path: Path, header: str, before: str) -> Path:
    with path.open("w") as f:
        f.write(header + "\n" + before + "x" * (row_source.MAX_CSV_CELL + 1) + "\n")
    return path


@pytest.mark.parametrize("fmt", [None, "langfuse", "mturk"])
def test_a_csv_cell_over_the_cap(project: Store, tmp_path: Path, fmt: str | None) -> None:
    header, before = {
        None: ("item_id,text", "b,"),
        "langfuse": ("id,traceId,name,value,source,comment", "s,a,label,3,EVAL,"),
        "mturk": ("HITId,AssignmentId,WorkerId,AssignmentStatus,Input.text", "H,A,W,Approved,"),
    }[fmt]
    path = _cell_over_cap(tmp_path / "big.csv", header, before)
    what = "items" if fmt is None else ("scores" if fmt == "langfuse" else "annotations")
    with pytest.raises(
        ImportFailure, match=r"big\.csv.*a cell is longer than the limit of 16,777,216"
    ):
        import_file(project, "p", what, path, fmt)
    nothing_imported(project)


PARQUET_COLUMNS = {
    "bytes": pa.array([b"\x00\x01"]),
    "timestamps": pa.array([pd.Timestamp("2026-01-01")]),
    "decimals": pa.array([decimal.Decimal("1.50")]),
}


@pytest.mark.parametrize("kind", sorted(PARQUET_COLUMNS))
def test_parquet_columns_the_store_cannot_keep(project: Store, tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.parquet"
    table = pa.table({"item_id": ["b"], "text": ["t"], "odd": PARQUET_COLUMNS[kind]})
    pq.write_table(table, path)
    noun = {"bytes": "bytes", "timestamps": "dates or times", "decimals": "decimals"}[kind]
    with pytest.raises(ImportFailure, match=rf"{kind}\.parquet, column 'odd': holds {noun}"):
        import_file(project, "p", "items", path)
    nothing_imported(project)


@pytest.mark.parametrize("fmt", [None, "argilla"])
def test_a_small_parquet_that_inflates_past_the_cap(
    project: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str | None
) -> None:
    """The real cap is 200 MiB; a 1 MiB cap shows the same check without 300 MB of RAM."""
    monkeypatch.setattr(row_source, "MAX_PARQUET_BYTES", 1 << 20)
    path = tmp_path / "bomb.parquet"
    ids = [f"b{n}" for n in range(64)]
    table = pa.table({"id": ids, "item_id": ids, "text": ["y" * 65536 + i for i in ids]})
    pq.write_table(table, path, compression="zstd")
    assert path.stat().st_size < 64 * 1024
    what = "items" if fmt is None else "annotations"
    with pytest.raises(
        ImportFailure, match=r"bomb\.parquet: decompresses to \d+ MiB, over the cap of 1 MiB"
    ):
        import_file(project, "p", what, path, fmt)
    nothing_imported(project)


def test_the_dictionary_bomb_is_refused_from_an_upload_too(project: Store) -> None:
    """The Data page hands the uploaded bytes to the same importer."""
    from interop.importing import import_items

    data = (HOSTILE / "dict_bomb.parquet").read_bytes()
    assert len(data) < 1024
    with pytest.raises(ImportFailure, match=r"^up\.parquet: expands to at least 5,000 MiB"):
        import_items(project, "p", data, "up.parquet")
    nothing_imported(project)


@pytest.mark.parametrize("upload", [False, True])
def test_a_parquet_page_header_that_is_not_thrift(
    project: Store, tmp_path: Path, upload: bool
) -> None:
    """Page headers are read before Arrow sees the file; garbage in one is one line."""
    from interop.importing import import_items

    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"item_id": ["b"], "text": ["t"]}), path, compression="zstd")
    offset = pq.ParquetFile(path).metadata.row_group(0).column(1).data_page_offset
    raw = bytearray(path.read_bytes())
    raw[offset : offset + 8] = b"\x0f" * 8  # field type 15: none in Thrift
    path.write_bytes(bytes(raw))
    line = "bad.parquet: not a readable Parquet file (page header: unknown Thrift type 15)"
    with pytest.raises(ImportFailure) as caught:
        if upload:
            import_items(project, "p", path.read_bytes(), "bad.parquet")
        else:
            import_file(project, "p", "items", path)
    assert str(caught.value) == line
    nothing_imported(project)


def test_a_dictionary_bomb_in_an_argilla_datasets_folder(project: Store, tmp_path: Path) -> None:
    """The Arrow files of a ``datasets`` folder are counted the same way before
    ``load_from_disk`` turns them into rows."""
    folder = tmp_path / "records"
    folder.mkdir()
    ids = pa.array([f"b{i}" for i in range(5_000)])
    text = pa.DictionaryArray.from_arrays(pa.array([0] * 5_000, pa.int32()), ["x" * 2**20])
    table = pa.table({"id": ids, "text": text})
    options = pa.ipc.IpcWriteOptions(compression="zstd")
    with pa.ipc.new_stream(
        str(folder / "data-00000-of-00001.arrow"), table.schema, options=options
    ) as out:
        out.write_table(table)
    assert (folder / "data-00000-of-00001.arrow").stat().st_size < 64 * 1024
    with pytest.raises(
        ImportFailure, match=r"^records: expands to at least 5,000 MiB, over the cap of 200 MiB$"
    ):
        import_file(project, "p", "annotations", folder, "argilla")
    nothing_imported(project)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("dict_bomb.parquet", "expands to at least 5,000 MiB, over the cap of 200 MiB"),
        # on main Arrow decompressed the page first: 1.3 GB without a limit
        ("page_bomb.parquet", PAGE_BOMB),
    ],
)
def test_a_parquet_bomb_costs_the_cli_little_memory(
    sqlite_url: str, tmp_path: Path, name: str, reason: str
) -> None:
    """A whole ``cli.py import`` under a 1 GiB address-space limit (on main the
    dictionary bomb's rows were written out first: 11 GB without a limit): one line,
    exit 2, a peak resident size under 300 MB, nothing written."""
    import os
    import resource
    import subprocess
    import sys

    cli = str(Path(__file__).resolve().parents[1] / "cli.py")
    assert main(["--db", sqlite_url, "project", "create", "p", "--kind", "likert"]) == 0

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    # The child's own peak: VmHWM of its address space since exec. (``ru_maxrss`` of a
    # forked child starts from the parent's high-water mark, which after a long test
    # run is the test process's, not the import's.)
    peak_file = tmp_path / "peak.txt"
    runner = (
        "import atexit, runpy, sys\n"
        "def _peak():\n"
        "    lines = open('/proc/self/status').read().splitlines()\n"
        "    hwm = next(x for x in lines if x.startswith('VmHWM:'))\n"
        f"    open({str(peak_file)!r}, 'w').write(hwm.split()[1])\n"
        "atexit.register(_peak)\n"
        "sys.argv = sys.argv[1:]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", runner, cli, "--db", sqlite_url, "import", "items", "p"]
        + [str(HOSTILE / name)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
        # one thread per numeric library: thread stacks and buffers count against the
        # address-space limit, and a run of the whole suite may have set more
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    err = child.stderr
    # a note from an earlier test's leftovers (a recovered import) may come first
    err = err.splitlines(keepends=True)[-1] if err else err
    assert child.returncode == 2
    assert err == f"error: nothing imported: {name}: {reason}\n"
    assert int(peak_file.read_text()) < 300 * 1024  # kilobytes
    store = Store(sqlite_url)
    try:
        assert store.items("p") == []
    finally:
        store.close()


def test_cli_prints_one_line_and_no_traceback(sqlite_url: str, capsys) -> None:
    db = ["--db", sqlite_url]
    assert main([*db, "project", "create", "p", "--kind", "likert"]) == 0
    capsys.readouterr()
    code = main([*db, "import", "items", "p", str(HOSTILE / "long_int.jsonl")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        "error: nothing imported: long_int.jsonl, row 1: an integer longer than 4,300 digits\n"
    )


def test_the_committed_hostile_files_are_all_covered() -> None:
    covered = {c[0] for c in CASES} | {c[0] for c in KIND_CASES}
    files = {p.name for p in HOSTILE.iterdir() if p.is_file() and p.suffix not in (".md", ".py")}
    assert files == covered
    assert json.loads((HOSTILE / "ls_result_not_list.json").read_text())[0]["id"] == 1


@pytest.mark.parametrize(
    ("name", "what", "fmt"),
    [
        ("nan_in_value.jsonl", "items", None),
        ("nul_in_name.jsonl", "annotations", None),
        ("ls_nul_in_name.json", "annotations", "label-studio"),
        ("ls_nul_in_reviewer.json", "annotations", "label-studio"),
    ],
)
def test_nan_and_nul_are_refused_on_postgresql_too(
    any_store: Store, name: str, what: str, fmt: str | None
) -> None:
    """PostgreSQL's JSON has no NaN and its text no NUL: refused before the database."""
    any_store.create_project("p", "likert", {"min": 1, "max": 5, "k": 2})
    add_items(any_store, "p", pd.DataFrame({"item_id": ["a"], "text": ["t"]}))
    with pytest.raises(ImportFailure, match=r"NaN or Infinity|a NUL character"):
        import_file(any_store, "p", what, HOSTILE / name, fmt)
    nothing_imported(any_store)


# -- kind files: `kind create` reads TOML, Label Studio XML and Potato YAML; the Task kinds
# page parses TOML with parse_toml. Each fault is one line, exit 2, no kind stored.
KIND_CASES = [
    # 417 bytes, nine levels of nine aliases: 387 million strings once expanded.
    ("kind_alias_bomb.yaml", "file: YAML aliases are not accepted in kind files (line 2)"),
    (
        "kind_entities.xml",
        "file: XML entity declarations are not accepted in kind files ('lol0')",
    ),
    ("kind_not_utf8.toml", "file: not UTF-8 text (byte 12); save the file as UTF-8"),
    ("kind_not_utf8.yaml", "file: not UTF-8 text (byte 25); save the file as UTF-8"),
    ("kind_not_utf8.xml", "file: not UTF-8 text (byte 24); save the file as UTF-8"),
]
#: Made here (too big to commit): 100,000 levels of nesting, and a 16 Mi + 1 character value.
DEEP = 100_000
MADE_KIND_FILES = {
    "deep.toml": "x = " + "[" * DEEP + "]" * DEEP + "\n",
    "deep.yaml": "annotation_schemes: " + "[" * DEEP + "]" * DEEP + "\n",
    "deep.xml": "<View>" * DEEP + "</View>" * DEEP + "\n",
}


def _kind_create(url: str, path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["--db", url, "kind", "create", "k", "--from", str(path)])
    return code, capsys.readouterr().err


def _no_kind(url: str) -> None:
    store = Store(url)
    try:
        assert store.kind_records() == []
    finally:
        store.close()


@pytest.mark.parametrize(("name", "reason"), KIND_CASES, ids=[c[0] for c in KIND_CASES])
def test_hostile_kind_file_is_refused_in_one_line(
    sqlite_url: str, capsys: pytest.CaptureFixture[str], name: str, reason: str
) -> None:
    code, err = _kind_create(sqlite_url, HOSTILE / name, capsys)
    assert (code, err) == (2, f"error: {name}: {reason}\n")
    _no_kind(sqlite_url)


@pytest.mark.parametrize("name", sorted(MADE_KIND_FILES))
def test_a_very_deep_kind_file_is_refused_in_one_line(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    path = tmp_path / name
    path.write_text(MADE_KIND_FILES[name])
    code, err = _kind_create(sqlite_url, path, capsys)
    assert (code, err) == (2, f"error: {name}: file: nested deeper than 64 levels\n")
    _no_kind(sqlite_url)


def test_the_kinds_page_parse_refuses_the_same_toml() -> None:
    """The page parses its editor's text (and a form's TOML) with parse_toml."""
    from kinds.declared import DeclarationError, parse_toml

    with pytest.raises(DeclarationError, match="^file: nested deeper than 64 levels$"):
        parse_toml(MADE_KIND_FILES["deep.toml"])
    with pytest.raises(DeclarationError, match=r"^file: not UTF-8 text \(byte 12\)"):
        parse_toml((HOSTILE / "kind_not_utf8.toml").read_bytes())


GOOD_TOML = (
    'title = "T"\n[[fields]]\nname = "text"\nrole = "text"\n'
    '[[questions]]\nname = "q"\ntype = "single"\nlabels = ["a", "b"]\n'
)


def test_a_kind_value_over_the_csv_cell_cap_is_refused(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """16 Mi characters, as a CSV cell: a longer file is refused before any parser reads
    it; a longer value given as data (the API, the form) is refused by the check."""
    from kinds.declared import DeclarationError, parse_definition, toml_data
    from kinds.kind_file import MAX_KIND_CHARS

    big = "x" * (MAX_KIND_CHARS + 1)
    path = tmp_path / "big.toml"
    text = GOOD_TOML.replace('"T"', f'"T"\ndescription = "{big}"')
    path.write_text(text)
    code, err = _kind_create(sqlite_url, path, capsys)
    assert code == 2
    assert err == (
        f"error: big.toml: file: {len(text):,} characters long, over the kind "
        "file cap of 16,777,216 characters\n"
    )
    _no_kind(sqlite_url)
    data = toml_data(GOOD_TOML)
    with pytest.raises(DeclarationError, match=r"^description: a text of 16,777,217 char"):
        parse_definition({**data, "description": big})
    with pytest.raises(DeclarationError, match=r"^questions\[0\]\.labels\[1\]: a text of"):
        parse_definition({**data, "questions": [{**data["questions"][0], "labels": ["a", big]}]})


def test_a_bom_is_dropped_in_every_kind_file_and_import_format(
    project: Store, tmp_path: Path
) -> None:
    """A UTF-8 BOM (Windows editors write one) is accepted in every format alike."""
    from kinds.declared import parse_toml
    from workbench_api.kinds import read_kind_file

    data = Path(__file__).resolve().parent / "data" / "kinds"
    for name, text in [
        ("k.toml", GOOD_TOML),
        ("k.xml", (data / "label_studio_config.xml").read_text()),
        ("k.yaml", (data / "potato_config.yaml").read_text()),
    ]:
        plain = read_kind_file(name, text.encode())
        assert read_kind_file(name, ("\ufeff" + text).encode()) == plain
    assert parse_toml("\ufeff" + GOOD_TOML).data == parse_toml(GOOD_TOML).data
    files = [
        ("b.csv", "items", None, "item_id,text\nb,t\n"),
        ("b.jsonl", "items", None, '{"item_id": "c", "text": "t"}\n'),
        ("l.csv", "annotations", None, "item_id,annotator,field,value\na,c,label,3\n"),
        (
            "p.jsonl",
            "annotations",
            "potato",
            '{"instance_id": "a", "user_id": "p", "labels": {"label": {"3": "3"}}}\n',
        ),
        (
            "ar.jsonl",
            "annotations",
            "argilla",
            '{"id": "a", "text": "t", "label.responses": '
            '[3], "label.responses.users": ["g"], "status": "submitted"}\n',
        ),
        (
            "ls.jsonl",
            "scores",
            "langsmith",
            '{"id": "f1", "run_id": "a", "trace_id": "a", "key": "label", "score": 3}\n',
        ),
        (
            "lf.json",
            "scores",
            "langfuse",
            '[{"id": "s1", "traceId": "a", "name": "label", "value": 3, "source": "EVAL"}]\n',
        ),
        (
            "lsx.json",
            "annotations",
            "label-studio",
            '[{"id": 1, "data": {"item_id": "a", '
            '"text": "t"}, "annotations": [{"id": 1, "completed_by": 1, "result": [{"from_name":'
            ' "label", "to_name": "text", "type": "rating", "value": {"rating": 3}}]}]}]\n',
        ),
        (
            "mt.csv",
            "annotations",
            "mturk",
            "HITId,AssignmentId,WorkerId,AssignmentStatus,"
            "Input.item_id,Input.text,Answer.label\nH,A,W,Approved,a,t,3\n",
        ),
    ]
    for name, what, fmt, text in files:
        path = tmp_path / name
        path.write_text("\ufeff" + text, encoding="utf-8")
        reports = import_file(project, "p", what, path, fmt)
        assert reports[what].created == 1, name
