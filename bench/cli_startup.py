"""Benchmark: how quickly the command line answers (``--version``, ``projects``).

Each command runs as a fresh ``python cli.py`` process, the way a shell runs it, on a
SQLite database with the four demo projects; the commands alternate, after one warm-up
each (which also writes the bytecode caches, as any installed package has them). It
prints the median wall and CPU time of each and the target from issue #19. Wall time is
noisy on a shared machine (the one-minute load average is printed with it); CPU time
much less so. It also lists which heavy libraries each command imported (none should).

It then builds the wheel, installs it into a fresh virtual environment (the libraries
come from this venv through a ``.pth`` file, as in tests/test_packaging.py) and times the
installed ``workbench --version`` the same way (``--no-wheel`` skips this).

    .venv/bin/python bench/cli_startup.py [--runs 9] [--no-wheel]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = {"--version": 0.2, "projects": 0.6}
HEAVY = ("pandas", "numpy", "scipy", "pydantic", "plotly", "streamlit", "torch")
PROBE = (
    "import runpy, sys; sys.argv = ['cli.py', *sys.argv[1:]]\n"
    "try:\n    runpy.run_path('cli.py', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules], file=sys.stderr)\n"
)


def timed(argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def installed_workbench(tmp: Path, env: dict[str, str]) -> Path:
    """The ``workbench`` script of a fresh venv with the freshly built wheel installed."""
    quiet = {"check": True, "capture_output": True, "env": env}
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp), "."],
        cwd=ROOT,
        **quiet,
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "env")], **quiet)
    site = next((tmp / "env" / "lib").glob("python3*/site-packages"))
    (site / "_bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next(tmp.glob("metric_audit_workbench-*.whl"))
    subprocess.run(
        [str(tmp / "env" / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps"]
        + [str(wheel)],
        **quiet,
    )
    return tmp / "env" / "bin" / "workbench"


def time_installed(runs: int, env: dict[str, str]) -> None:
    """Print the median wall and CPU time of the installed ``workbench --version``."""
    with tempfile.TemporaryDirectory() as tmp:
        workbench = installed_workbench(Path(tmp), env)
        timed([str(workbench), "--version"], env, cwd=Path(tmp))  # warm-up
        figures = [timed([str(workbench), "--version"], env, cwd=Path(tmp)) for _ in range(runs)]
    wall = statistics.median(w for w, _ in figures)
    cpu = statistics.median(c for _, c in figures)
    print(
        f"installed wheel, median of {runs} (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)"
    )
    print(f"{'workbench --version':<20}{wall:>8.3f}{cpu:>8.3f}{'< 0.2':>10}")


def main() -> None:
    """Time the commands and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-wheel", action="store_true", help="skip the installed wheel")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'bench.db'}"
        subprocess.run(
            [sys.executable, "cli.py", "--db", db, "demo"],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        commands = {"--version": ["--version"], "projects": ["--db", db, "projects"]}
        for extra in commands.values():  # warm-up: bytecode caches, page cache
            timed([sys.executable, "cli.py", *extra], env)
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, extra in commands.items():
                figures[name].append(timed([sys.executable, "cli.py", *extra], env))
        heavy = {}
        for name, extra in commands.items():
            probe = subprocess.run(
                [sys.executable, "-c", PROBE, *extra],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
            )
            heavy[name] = next(
                (line[6:] for line in probe.stderr.splitlines() if line.startswith("HEAVY ")), "?"
            )
    print(
        f"python cli.py, median of {args.runs} fresh processes (load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs)"
    )
    print(f"{'command':<12}{'wall s':>8}{'cpu s':>8}{'target s':>10}  heavy imports")
    for name, runs in figures.items():
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        print(f"{name:<12}{wall:>8.3f}{cpu:>8.3f}{'< ' + str(TARGETS[name]):>10}  {heavy[name]}")
    if not args.no_wheel:
        time_installed(args.runs, env)


if __name__ == "__main__":
    main()
