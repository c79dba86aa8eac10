"""Bad numbers and bad ``--db`` URLs on the command line: one line on stderr, a non-zero
exit, no traceback (issue 24 point 4)."""

from __future__ import annotations

import pytest

from commands import main
from tests.support.cli import run_cli_script


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "p", "--evaluator", "bleu", "--runs", "0"], "--runs: must be a whole number >= 1, got '0'"),
        (["evaluate", "p", "--evaluator", "bleu", "--limit", "-5"], "--limit: must be a whole number >= 1, got '-5'"),
        (["evaluate", "p", "--evaluator", "bleu", "--batch-size", "0"], "--batch-size: must be a whole number >= 1"),
        (["evaluate", "p", "--evaluator", "bleu", "--mode", "batch", "--poll-seconds", "nan"], "--poll-seconds: must be a number > 0, got 'nan'"),
        (["agreement", "p", "--resamples", "-1"], "--resamples: must be a whole number >= 0, got '-1'"),
        (["agreement", "p", "--seed", "1.5"], "--seed: must be a whole number >= 0, got '1.5'"),
        (["audit", "p", "--agree-threshold", "-0.1"], "--agree-threshold: must be a number >= 0"),
        (["jobs", "--cancel", "0"], "--cancel: must be a whole number >= 1"),
        (["run", "--port", "70000"], "--port: must be a whole number from 1 to 65535"),
    ],
)  # fmt: skip
def test_bad_numbers_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense", "--db: not a database URL the workbench can open"),
        ("nosuchdb://x", "--db: not a database URL the workbench can open (Can't load plugin"),
        ("postgresql://127.0.0.1:1/x", "--db: cannot open the database: connection failed"),
    ],
)
@pytest.mark.parametrize("command", [["projects"], ["agreement", "p"]])
def test_bad_db_urls_are_one_line_and_exit_2(url: str, message: str, command: list[str]) -> None:
    proc = run_cli_script("--db", url, *command, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: " + message) and proc.stderr.count("\n") == 1
    assert "Traceback" not in proc.stderr
