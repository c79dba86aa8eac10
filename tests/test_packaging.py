"""The installable package: build, install into a fresh venv, the ``workbench`` script.

The fresh virtual environment reuses the project venv's installed libraries through a
``.pth`` file (``--system-site-packages`` would see the base interpreter's, not the
venv's), so the test installs only the workbench itself: ``pip install --no-deps
--no-build-isolation .``, the way CI can afford it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import krippendorff
import numpy as np
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


def _site(env: Path) -> Path:
    return next((env / "lib").glob("python3*/site-packages"))


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new venv with the workbench installed by ``pip install .`` (deps reused)."""
    root = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", "--without-pip", str(root / "env")], root)
    (_site(root / "env") / "_project_deps.pth").write_text(f"{SITE}\n")
    _run(
        [str(root / "env" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
        + ["--no-build-isolation", str(ROOT)],
        root,
    )
    return root / "env"


@pytest.mark.slow
def test_fresh_venv_version_projects_and_run(venv: Path, tmp_path: Path) -> None:
    workbench = str(venv / "bin" / "workbench")
    probe = "from metric_audit_workbench import cli; print(cli.__file__)"
    where = _run([str(venv / "bin" / "python"), "-c", probe], tmp_path)
    # the installed copy, not the checkout, inside the package's own folder
    assert where.stdout.strip() == str(_site(venv) / "metric_audit_workbench" / "cli.py")
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


#: What the wheel may put into site-packages: one distinctive name and its metadata.
OWN_NAMES = {"metric_audit_workbench", f"metric_audit_workbench-{__version__}.dist-info"}
#: The repository's top-level names: none of them may be importable after an install.
GENERIC = ("app", "cli", "serve", "common", "ui", "reports", "jobs", "commands", "audit")
GENERIC += ("interop", "kinds", "pages", "agreement", "alignment", "estimates", "evaluators")
GENERIC += ("annotation_store", "study_inputs", "workbench_api", "demo")
GENERIC += ("accounts", "adjudication", "annotating", "crowd", "studies")


@pytest.mark.slow
def test_installs_under_one_distinctive_name(venv: Path, tmp_path: Path) -> None:
    site = _site(venv)
    assert {p.name for p in site.iterdir()} - {"_project_deps.pth", "__pycache__"} == OWN_NAMES
    python = str(venv / "bin" / "python")
    probe = (
        "import importlib.util, sys\n"
        f"print(sorted(n for n in {GENERIC!r} if importlib.util.find_spec(n) is not None))\n"
        "import metric_audit_workbench as wb\n"
        "from metric_audit_workbench import common\n"  # the workbench's own, by its name
        "from metric_audit_workbench.evaluators import wordnet as wn\n"
        "print(wb.__version__, common.__file__, wn.INSTALL_SCRIPT.is_file())\n"
        "print(wn.INSTALL_SCRIPT)\n"
        f"print(sorted(n for n in {GENERIC!r} if importlib.util.find_spec(n) is not None))\n"
    )
    lines = _run([python, "-c", probe], tmp_path).stdout.splitlines()
    assert lines[0] == "[]"  # `import app`, `import common` ... fail in a plain interpreter
    folder = site / "metric_audit_workbench"
    assert lines[1] == f"{__version__} {folder / 'common' / '__init__.py'} True"
    assert lines[2] == str(folder / "scripts" / "install_wordnet.sh")  # the METEOR hint's
    assert lines[3] == "[]"  # ... and still fail after the workbench is imported
    done = subprocess.run(
        [python, "-c", "import app"], cwd=tmp_path, env=_env(), capture_output=True, text=True
    )
    assert done.returncode == 1 and "No module named 'app'" in done.stderr
    assert _run([python, "-m", "metric_audit_workbench", "--version"], tmp_path).stdout == (
        f"python -m metric_audit_workbench {__version__}\n"
    )


@pytest.mark.slow
@pytest.mark.plugins
def test_an_installed_plugin_runs_from_the_installed_app(venv: Path, tmp_path: Path) -> None:
    """Entry points (``metric_audit.evaluators``) still load: the plugin imports the
    workbench's packages by the installed names (``metric_audit_workbench.evaluators``)."""
    _run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
        + ["--no-build-isolation", str(ROOT / "examples" / "plugin")],
        tmp_path,
    )
    workbench = str(venv / "bin" / "workbench")
    _run([workbench, "--db", "sqlite:///p.db", "demo"], tmp_path)
    done = _run(
        [workbench, "--db", "sqlite:///p.db", "evaluate", "demo-intent-match"]
        + ["--evaluator", "char_ngram"],
        tmp_path,
    )
    assert done.stdout.startswith("char_ngram: 6 evaluated, 0 failed")


#: A user's own modules named like the workbench's packages, in the working folder.
USER_MODULES = {
    "common.py": "common",
    "app.py": "app",
    "cli.py": "cli",
    "reports.py": "reports",
    "ui/__init__.py": "ui",
    "jobs/__init__.py": "jobs",
    "kinds.py": "kinds",
    "interop/__init__.py": "interop",
    "pages/__init__.py": "pages",
}

USER_PROBE = """
import importlib, json, sys
names = sys.argv[1:]
before = [importlib.import_module(n) for n in names[:2]]  # the user's, before the workbench
import metric_audit_workbench as wb
after = [importlib.import_module(n) for n in names[2:]]  # and after it
store = wb.open_store("sqlite:///x.db")
wb.create_project(store, "p", "binary")
try:
    wb.create_project(store, "p", "binary")
except wb.StoreError as exc:
    refused = str(exc)
plain = {n: m.__file__ for n, m in sys.modules.items() if n.split(".")[0] in wb.TREE}
ours = {m.__file__ for n, m in sys.modules.items() if n.startswith("metric_audit_workbench.")}
print(json.dumps({
    "who": [m.WHO for m in before + after],
    "plain": plain,
    "ours": sorted(ours),
    "projects": [p.name for p in wb.projects(store)],
    "refused": refused,
    "errors": [wb.StoreError.__module__, wb.ImportFailure.__module__, wb.DeclarationError.__module__],
}))
"""


def _user_folder(folder: Path) -> None:
    for rel, name in USER_MODULES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(f"WHO = 'the user\\'s {name}'\n")


@pytest.mark.slow
def test_a_users_modules_stay_theirs_beside_the_installed_workbench(
    venv: Path, tmp_path: Path
) -> None:
    """``common``, ``app``, ``cli``, ``ui``, ``kinds``, ``pages`` ... in the working folder
    are the user's before and after ``import metric_audit_workbench``, and the workbench
    (open_store, create_project ...) runs on its own modules, not on theirs."""
    _user_folder(tmp_path)
    names = list(USER_MODULES.values())
    done = _run([str(venv / "bin" / "python"), "-c", USER_PROBE, *names], tmp_path)
    seen = json.loads(done.stdout)
    assert seen["who"] == [f"the user's {name}" for name in USER_MODULES.values()]
    assert seen["plain"] == {name: str(tmp_path / rel) for rel, name in USER_MODULES.items()}
    folder = str(_site(venv) / "metric_audit_workbench") + os.sep
    assert seen["ours"] and all(path.startswith(folder) for path in seen["ours"])
    assert seen["projects"] == ["p"]
    assert seen["refused"] == "project 'p' already exists"
    assert seen["errors"] == [
        "metric_audit_workbench.annotation_store.store_base",
        "metric_audit_workbench.interop.row_source",
        "metric_audit_workbench.kinds.question_type",
    ]
    # `python -m` puts the working folder first on the path too: the user's cli.py stays out
    assert (
        _run(
            [str(venv / "bin" / "python"), "-m", "metric_audit_workbench", "--version"], tmp_path
        ).stdout
        == f"python -m metric_audit_workbench {__version__}\n"
    )
    listing = _run(
        [str(venv / "bin" / "workbench"), "projects", "--db", "sqlite:///x.db"], tmp_path
    )
    assert listing.stdout.splitlines()[1].split()[:2] == ["p", "binary"]


WHEEL_PROBE = """
import json, sys
import common, app
print(json.dumps({
    "who": [common.WHO, app.WHO],
    "files": [common.__file__, app.__file__],
    "wb": wb.__file__,
    "plain": sorted(n for n in sys.modules if n.split(".")[0] in wb.TREE),
    "alpha": alpha,
    "done": progress.done,
    "failed": progress.failed,
    "votes": votes,
}))
"""


@pytest.mark.slow
def test_the_example_notebook_runs_on_the_installed_wheel(
    venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/notebook.ipynb in a real Jupyter kernel on the fresh venv (the wheel
    installed, no clone on the path), from a folder outside the clone that holds the
    user's own common.py and app.py: the notebook's values, and those stay the user's."""
    from tests.test_notebook import kernelspec, run_in_kernel

    kernelspec(tmp_path, str(venv / "bin" / "python"), monkeypatch)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    for name in ("common", "app"):
        (work / f"{name}.py").write_text(f"WHO = 'the user\\'s {name}'\n")
    seen = run_in_kernel(work, probe=WHEEL_PROBE, again=False)
    assert seen["who"] == ["the user's common", "the user's app"]
    assert seen["files"] == [str(work / "common.py"), str(work / "app.py")]
    assert seen["plain"] == ["app", "common"]  # nothing of the workbench's by a plain name
    assert seen["wb"] == str(_site(venv) / "metric_audit_workbench" / "__init__.py")
    votes = np.array([[v == "yes" for v in values] for values in seen["votes"].values()])
    expected = krippendorff.alpha(
        reliability_data=votes.astype(int), level_of_measurement="nominal"
    )
    assert seen["alpha"] == pytest.approx(expected, abs=1e-9)
    assert (seen["done"], seen["failed"]) == (6, 0)
    assert (work / "notebook.db").is_file() and (work / "intents-report.html").is_file()


@pytest.mark.slow
def test_an_editable_install_runs_the_clone(tmp_path: Path) -> None:
    """``pip install -e .``: a .pth file names the clone; the launcher adds nothing."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "env")], tmp_path)
    (_site(tmp_path / "env") / "_project_deps.pth").write_text(f"{SITE}\n")
    python = str(tmp_path / "env" / "bin" / "python")
    _run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e"]
        + [str(ROOT)],
        tmp_path,
    )
    probe = "import metric_audit_workbench as wb, cli; print(wb.CODE_DIR, cli.__file__)"
    assert _run([python, "-c", probe], tmp_path).stdout == f"None {ROOT / 'cli.py'}\n"
    workbench = str(tmp_path / "env" / "bin" / "workbench")
    assert _run([workbench, "--version"], tmp_path).stdout == f"workbench {__version__}\n"


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
    assert {n.split("/")[0] for n in names} == OWN_NAMES
    for needed in (
        "__init__.py",
        "__main__.py",
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
        "interop/importing.py",
        # the policy packages above the store, and the demo's loading beside its data
        *("studies/assignments.py", "crowd/workers.py", "annotating/actions.py"),
        *("accounts/users.py", "adjudication/final_labels.py", "demo/loading.py"),
        "workbench_api/__init__.py",
        "estimates/ppi.py",
        "scripts/install_wordnet.sh",
    ):
        assert f"metric_audit_workbench/{needed}" in names, needed
    assert not [n for n in names if "__pycache__" in n or "secrets.toml" in n]
    # every shipped module imports the tree by the package's name, none by a plain one
    plain = []
    with zipfile.ZipFile(wheel) as archive:
        for name in (n for n in names if n.endswith(".py")):
            for node in ast.walk(ast.parse(archive.read(name))):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    modules = [node.module or ""]
                else:
                    continue
                plain += [f"{name}:{node.lineno}" for m in modules if m.split(".")[0] in GENERIC]
    assert plain == []
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "workbench = metric_audit_workbench:entry" in zipfile.ZipFile(wheel).read(entry).decode()
    with tarfile.open(next(tmp_path.glob("*.tar.gz"))) as sdist:
        carried = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    for needed in (
        "scripts/install_wordnet.sh",
        "tests/test_packaging.py",
        "tests/data/peers/validation.json",
        "examples/notebook.ipynb",
        "examples/plugin/pyproject.toml",
        "docs/architecture.md",
        "metric_audit_workbench/__init__.py",
        "pyproject.toml",
        "hatch_build.py",
    ):
        assert needed in carried, needed
    assert not [n for n in carried if "__pycache__" in n or n.startswith(".venv")]


def _names(lines: list[str]) -> set[str]:
    return {re.split(r"[=<>\[ ]", line.strip(), maxsplit=1)[0].lower() for line in lines}


def test_pyproject_dependencies_are_the_requirements() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def pinned(name: str) -> list[str]:
        text = (ROOT / name).read_text()
        return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]

    assert _names(meta["dependencies"]) == _names(pinned("requirements.txt"))
    assert _names(meta["optional-dependencies"]["local"]) == _names(
        pinned("requirements-local.txt")
    )
    assert meta["dynamic"] == ["version"]
    assert meta["scripts"] == {"workbench": "metric_audit_workbench:entry"}


def test_the_launcher_package_in_a_clone() -> None:
    """In a clone the launcher finds the tree beside it and hands out the Python API."""
    import metric_audit_workbench as wb
    import workbench_api

    assert wb.CODE_DIR == str(ROOT)
    assert wb.open_store is workbench_api.open_store and wb.__version__ == __version__
    with pytest.raises(AttributeError, match="no_such_name"):
        wb.no_such_name  # noqa: B018
    done = subprocess.run(
        [sys.executable, "-m", "metric_audit_workbench", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.stdout == f"python -m metric_audit_workbench {__version__}\n"


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


def test_tests_run_without_the_plugins_installed_beside_them() -> None:
    """A test not marked ``plugins`` (this one) and its child processes read no entry
    point: the README's `pip install ./examples/plugin` changes no result."""
    import os

    assert os.environ["WORKBENCH_PLUGINS"] == "0"
