"""The installable package: build, install into a fresh venv, the ``workbench`` script.

The fresh virtual environment reuses the project venv's installed libraries through a
``.pth`` file (``--system-site-packages`` would see the base interpreter's, not the
venv's), so the test installs only the workbench itself: ``pip install --no-deps
--no-build-isolation .``, the way CI can afford it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

from commands import main
from common.version import __version__
from tests.e2e.harness import free_port

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(sysconfig.get_paths()["purelib"])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WORKBENCH_DB_URL")}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1"}


def _run(argv: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with the workbench installed by ``pip install .`` (deps reused)."""
    root = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(root / "env")], root)
    site = next((root / "env" / "lib").glob("python3*/site-packages"))
    (site / "_project_deps.pth").write_text(f"{SITE}\n")
    _run(
        [str(root / "env" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
        + ["--no-build-isolation", str(ROOT)],
        root,
    )
    return root / "env"


@pytest.mark.slow
def test_fresh_venv_version_projects_and_run(venv: Path, tmp_path: Path) -> None:
    workbench = str(venv / "bin" / "workbench")
    where = _run([str(venv / "bin" / "python"), "-c", "import cli; print(cli.__file__)"], tmp_path)
    assert where.stdout.strip().startswith(str(venv))  # the installed copy, not the checkout
    assert _run([workbench, "--version"], tmp_path).stdout == f"workbench {__version__}\n"
    listing = _run([workbench, "projects", "--db", "sqlite:///x.db"], tmp_path)
    assert listing.stdout == "no projects yet: workbench project create NAME --kind KIND\n"
    assert (tmp_path / "x.db").is_file()
    _run(
        [workbench, "--db", "sqlite:///x.db", "project", "create", "p", "--kind", "binary"],
        tmp_path,
    )
    listing = _run([workbench, "projects", "--db", "sqlite:///x.db"], tmp_path)
    assert listing.stdout.splitlines()[1].split() == ["p", "binary", "0", "0", "0", "0", "0"]

    port = free_port()
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [
                workbench,
                "run",
                "--db",
                "sqlite:///x.db",
                "--port",
                str(port),
                "--address",
                "127.0.0.1",
            ],
            cwd=tmp_path,
            env=_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        health, page = _wait_health(f"http://127.0.0.1:{port}", server, log)
        assert health == "ok"
        assert "<title>" in page  # the app's page is served too
        assert _post_status(f"http://127.0.0.1:{port}/auth/session") == 403  # cookie route
    finally:
        server.terminate()
        server.wait(timeout=20)


def _post_status(url: str) -> int:
    """The status of a guarded POST with a made-up ticket (403: the route is there)."""
    request = urllib.request.Request(
        url, data=b'{"ticket": "made-up"}', headers={"X-Workbench-Session": "1"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status
    except urllib.error.HTTPError as refused:
        return refused.code


def _wait_health(url: str, server: subprocess.Popen[bytes], log: Path) -> tuple[str, str]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert server.poll() is None, f"workbench run exited:\n{log.read_text()}"
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as reply:
                health = reply.read().decode()
            with urllib.request.urlopen(url, timeout=5) as reply:
                return health, reply.read().decode()
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"no health check answer in 120 s:\n{log.read_text()}")


@pytest.mark.slow
def test_build_sdist_and_wheel_hold_the_app(tmp_path: Path) -> None:
    _run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        tmp_path,
    )
    wheel = next(tmp_path.glob(f"metric_audit_workbench-{__version__}-py3-none-any.whl"))
    assert next(tmp_path.glob(f"metric_audit_workbench-{__version__}.tar.gz"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "app.py",
        "serve.py",
        "cli.py",
        "pages/home.py",
        ".streamlit/config.toml",
        "annotation_store/migrations/env.py",
        "annotation_store/migrations/versions/0001_initial_schema.py",
        "evaluators/prompts/bifact_decompose.v1.md",
        "demo/intent_match/items.jsonl",
        "interop/label_studio.py",
        "workbench_api/__init__.py",
        "estimates/ppi.py",
    ):
        assert needed in names, needed
    assert not [n for n in names if "__pycache__" in n or "secrets.toml" in n]
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "workbench = cli:entry" in zipfile.ZipFile(wheel).read(entry).decode()


def _names(lines: list[str]) -> set[str]:
    return {re.split(r"[=<>\[ ]", line.strip(), maxsplit=1)[0].lower() for line in lines}


def test_pyproject_dependencies_are_the_requirements() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = [
        line
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    declared = meta["dependencies"] + meta["optional-dependencies"]["local"]
    assert _names(declared) == _names(required)
    assert meta["dynamic"] == ["version"] and meta["scripts"] == {"workbench": "cli:entry"}


def test_version_and_db_after_the_command(sqlite_url: str, capsys) -> None:
    assert main(["--version"], prog="workbench") == 0
    assert capsys.readouterr().out == f"workbench {__version__}\n"
    done = subprocess.run(
        [sys.executable, "cli.py", "--version"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout == f"python cli.py {__version__}\n"
    assert main(["project", "create", "p", "--kind", "likert", "--db", sqlite_url]) == 0
    capsys.readouterr()
    assert main(["projects", "--db", sqlite_url]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[:2] == ["p", "likert"]


PROBE = """
import sys
from commands import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
heavy = ("sqlalchemy", "pandas", "numpy", "scipy", "pydantic", "alembic")
print(sorted(m for m in heavy if m in sys.modules))
"""


@pytest.mark.parametrize(
    ("args", "loaded"),
    [(["--version"], "[]"), (["projects"], "[]"), (["--help"], "[]")],
)
def test_quick_commands_import_no_heavy_library(
    sqlite_url: str, args: list[str], loaded: str
) -> None:
    """``--version`` and ``projects`` (on an existing SQLite file) answer without SQLAlchemy,
    pandas or NumPy: the imports are what made them slow (bench/cli_startup.py times them)."""
    assert main(["--db", sqlite_url, "demo"]) == 0
    db = [] if args == ["--version"] else ["--db", sqlite_url]
    argv = [sys.executable, "-c", PROBE, *db, *args]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.splitlines()[-1] == loaded, done.stderr
    if args == ["projects"]:
        assert "demo-intent-match" in done.stdout
