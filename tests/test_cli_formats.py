"""The CLI's tool formats: ``export --format`` offers only formats that write, ``import
--format`` every one, and an Argilla export or import prints no progress bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from commands import build_parser, main
from interop import EXPORT_FORMATS, FORMATS, format_module

IMPORT_ONLY = ("mturk", "prolific")


def _format_choices(argv: list[str]) -> tuple[str, ...]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[argv[0]]
    what = next(a for a in sub._actions if a.dest == "what").choices[argv[1]]
    return next(a for a in what._actions if a.dest == "format").choices


def test_export_offers_the_formats_that_write_and_import_reads_them_all() -> None:
    exports = tuple(_format_choices(["export", "annotations"]))
    assert exports == ("label-studio", "potato", "argilla", "langfuse", "langsmith")
    assert tuple(_format_choices(["import", "annotations"])) == tuple(FORMATS)
    assert set(FORMATS) - set(exports) == set(IMPORT_ONLY)
    for fmt in FORMATS:
        assert bool(format_module(fmt).WRITES) == (fmt in EXPORT_FORMATS), fmt


@pytest.mark.parametrize("fmt", IMPORT_ONLY)
def test_an_import_only_format_is_refused_by_export_in_one_line(
    demo: str, tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "labels.csv"
    argv = ["--db", demo, "export", "annotations", "demo-dialogue", "--out", str(out)]
    with pytest.raises(SystemExit, match="2"):  # argparse's usage error
        main([*argv, "--format", fmt])
    err = capsys.readouterr().err
    assert f"invalid choice: '{fmt}'" in err and err.count("\n") == 1
    assert not out.exists()


def test_an_argilla_export_and_import_print_no_progress_bar(
    demo: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", demo]
    for target in ("records.parquet", "records.jsonl", "folder"):
        out = tmp_path / target
        argv = [*db, "export", "annotations", "demo-dialogue", "--out", str(out)]
        assert main([*argv, "--format", "argilla"]) == 0
        printed = capfd.readouterr()
        assert printed.out.startswith("exported 17 annotations records")
        assert printed.err == ""
    # An Arrow folder, the way `datasets` saves one (its own bars are on by default).
    from datasets import Dataset

    arrow = tmp_path / "arrow"
    Dataset.from_parquet(str(tmp_path / "records.parquet")).save_to_disk(str(arrow))
    (tmp_path / "records.users.json").replace(arrow / "users.json")
    capfd.readouterr()
    argv = [*db, "import", "annotations", "demo-dialogue", str(arrow), "--format", "argilla"]
    assert main(argv) == 0
    printed = capfd.readouterr()
    assert printed.out.splitlines()[-1] == "annotations: 0 created, 0 updated, 51 unchanged"
    assert printed.err == ""
