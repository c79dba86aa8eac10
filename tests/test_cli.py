"""The command line: exit codes, one-line errors, the demo, listing."""

from __future__ import annotations

import os

import pytest

from commands import main
from tests.support.cli import run_cli_script


def run(db: str, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["--db", db, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_create_import_list_export(sqlite_url, tmp_path, capsys) -> None:
    items = tmp_path / "items.csv"
    items.write_text("item_id,text\na,hello\nb,bye\n")
    assert (
        run(
            sqlite_url,
            "project",
            "create",
            "p",
            "--kind",
            "likert",
            "--settings",
            '{"min": 1, "max": 7, "k": 2}',
            capsys=capsys,
        )[0]
        == 0
    )
    code, out, _ = run(sqlite_url, "import", "items", "p", str(items), capsys=capsys)
    assert code == 0 and out.strip() == "items: 2 created, 0 updated, 0 unchanged"
    labels = tmp_path / "labels.csv"
    labels.write_text("item_id,annotator,field,value\na,x,label,7\nb,x,label,1\n")
    assert run(sqlite_url, "import", "annotations", "p", str(labels), capsys=capsys)[0] == 0
    code, out, _ = run(sqlite_url, "projects", capsys=capsys)
    assert code == 0 and out.splitlines()[1].split() == ["p", "likert", "2", "1", "2", "0", "0"]
    out_file = tmp_path / "out.jsonl"
    code, out, _ = run(
        sqlite_url, "export", "annotations", "p", "--out", str(out_file), capsys=capsys
    )
    assert code == 0 and len(out_file.read_text().splitlines()) == 2


def test_errors_are_one_line_and_non_zero(sqlite_url, tmp_path, capsys) -> None:
    code, out, err = run(
        sqlite_url, "import", "items", "nope", str(tmp_path / "x.csv"), capsys=capsys
    )
    assert code != 0 and out == "" and err == "error: no project called 'nope'\n"
    run(sqlite_url, "project", "create", "p", "--kind", "binary", capsys=capsys)
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,text\na,x\n,y\n")
    code, _, err = run(sqlite_url, "import", "items", "p", str(bad), capsys=capsys)
    assert code == 2
    assert err == "error: nothing imported: bad.csv, row 2, column 'item_id': missing value\n"
    code, _, err = run(
        sqlite_url,
        "project",
        "create",
        "q",
        "--kind",
        "binary",
        "--settings",
        "{oops",
        capsys=capsys,
    )
    assert code == 2 and err.startswith("error: --settings is not valid JSON")


def test_demo_loads_once(sqlite_url, capsys) -> None:
    code, out, _ = run(sqlite_url, "demo", capsys=capsys)
    assert code == 0 and "demo-intent-match" in out
    code, out, _ = run(sqlite_url, "demo", "--if-empty", capsys=capsys)
    assert out.strip() == "demo projects already present (nothing loaded)"
    code, out, _ = run(sqlite_url, "projects", capsys=capsys)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
    assert rows["demo-dialogue"][:2] == ["dialogue_faithfulness", "17"]
    assert rows["demo-intent-match"][-1] == "12"  # six imported + six recorded Bi-Fact results


def test_cli_runs_as_a_script_with_the_db_env(tmp_path) -> None:
    env = {
        "WORKBENCH_DB_URL": f"sqlite:///{tmp_path / 'w.db'}",
        "PATH": "/usr/bin:/bin",
        "WORKBENCH_SECRETS": str(tmp_path / "none.toml"),
    }
    done = run_cli_script("projects", env=env)
    assert done.returncode == 0, done.stderr
    assert "no projects yet" in done.stdout
    assert (tmp_path / "w.db").exists()


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path) -> None:
    """``workbench projects | head``: the pipe closes before the output is written; the
    command ends with the shell's SIGPIPE code and no traceback."""
    import subprocess
    import sys

    from tests.support.cli import ROOT

    env = {
        "WORKBENCH_DB_URL": f"sqlite:///{tmp_path / 'w.db'}",
        "PATH": "/usr/bin:/bin",
        "WORKBENCH_SECRETS": str(tmp_path / "none.toml"),
    }
    read, write = os.pipe()
    os.close(read)  # nobody will ever read what the command prints
    try:
        done = subprocess.run(
            [sys.executable, "cli.py", "projects"],
            cwd=ROOT,
            env=env,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write)
    assert done.returncode == 141
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["import", "items"], "the following arguments are required: name, file"),
        (["project", "create", "x", "--kind", "nope"], "invalid choice: 'nope'"),
        (["no-such-command"], "invalid choice: 'no-such-command'"),
    ],
)
def test_usage_errors_are_one_line_too(sqlite_url, capsys, argv, needle) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--db", sqlite_url, *argv])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: python cli.py") and needle in err
    assert "--help)" in err
