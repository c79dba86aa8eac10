"""Safe first start (issue 37 point 8): ``workbench run`` and ``make run`` listen on
127.0.0.1 unless an address is given; single-user mode (no sign-in) on another address
needs an explicit flag and warns that anyone who can reach it is admin."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from commands import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def execs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command lines ``run`` would replace itself with (recorded, not run)."""
    seen: list[list[str]] = []
    monkeypatch.setattr("os.execv", lambda path, argv: seen.append(list(argv)))
    monkeypatch.setenv("WORKBENCH_SECRETS", str(ROOT / "no-such-secrets.toml"))
    monkeypatch.delenv("WORKBENCH_AUTH_MODE", raising=False)
    return seen


def _addresses(argv: list[str]) -> list[str]:
    return [a.split("=", 1)[1] for a in argv if a.startswith("--server.address=")]


def test_run_listens_on_this_machine_by_default(execs: list[list[str]]) -> None:
    assert main(["run"]) == 0
    assert _addresses(execs[0]) == ["127.0.0.1"]


def test_single_user_mode_on_another_address_is_refused_without_the_flag(
    execs: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--address", "0.0.0.0"]) == 2
    assert execs == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--single-user-on-network" in err and "0.0.0.0" in err


def test_the_flag_allows_it_with_a_warning(
    execs: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--address", "0.0.0.0", "--single-user-on-network"]) == 0
    assert _addresses(execs[0]) == ["0.0.0.0"]
    assert "anyone who can reach this address is admin" in capsys.readouterr().err


def test_a_sign_in_mode_serves_other_addresses_without_the_flag(
    execs: list[list[str]], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WORKBENCH_AUTH_MODE", "local")
    assert main(["run", "--address", "0.0.0.0"]) == 0
    assert _addresses(execs[0]) == ["0.0.0.0"]
    assert "admin" not in capsys.readouterr().err


def test_make_run_goes_through_the_same_check_on_this_machine() -> None:
    dry = subprocess.run(
        ["make", "-n", "-W", "requirements.txt", "run"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    start = [line for line in dry.splitlines() if " cli.py run" in line]
    assert start and "--address 127.0.0.1" in start[-1]
    assert "streamlit run" not in dry
