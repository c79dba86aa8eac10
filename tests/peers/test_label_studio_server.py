"""A round trip through a real Label Studio server: the workbench's Label Studio export of
each project with labels goes into a Label Studio 1.23.2 server started on 127.0.0.1
(project created with the exported labeling config, tasks imported with their annotations
through the API, as label-studio-sdk calls it), comes back as the server's own JSON
export, and is imported into a twin of the workbench project: every annotator's label
must come back.

The server lives in its own venv (``LS_VENV``, default ``.venv-ls``, built by
scripts/build_ls_server_venv.sh); without it the module is skipped, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, Export, of_format, run_workbench
from label_studio_sdk import LabelStudio

VENV = Path(os.environ.get("LS_VENV", ROOT / ".venv-ls"))
SERVER = VENV / "bin" / "label-studio"
START_TIMEOUT = 480  # seconds: first-start migrations take minutes on a busy small machine
EMAIL, PASSWORD, TOKEN = "workbench@localhost", "workbench-pass", "workbench-token-0123456789"
DOMAIN = "annotators.localhost"  # the people get <annotator>@<DOMAIN> accounts

pytestmark = pytest.mark.skipif(
    not (SERVER.is_file() and (VENV / ".installed").is_file()),
    reason=f"no Label Studio server venv at {VENV} (build it: bash scripts/build_ls_server_venv.sh)",
)


@dataclass(frozen=True)
class Server:
    """A running Label Studio server and an admin token for its API."""

    url: str
    token: str

    def client(self) -> LabelStudio:
        return LabelStudio(base_url=self.url, api_key=self.token)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=5) as reply:
            return reply.status == 200
    except OSError:
        return False


def _tail(log: Path) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-30:])


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``label-studio start`` on a free loopback port with its own data dir (SQLite; the
    build script's migrated template copied in when present) and an admin user with a
    legacy API token; stopped at the end of the session."""
    data = tmp_path_factory.mktemp("ls-data")
    template = VENV / "ls-template"
    if (template / "label_studio.sqlite3").is_file():
        shutil.copytree(template, data, dirs_exist_ok=True)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "LABEL_STUDIO_BASE_DATA_DIR": str(data),
        # no calls out of the machine: version check, analytics, error reporting
        "LATEST_VERSION_CHECK": "false",
        "COLLECT_ANALYTICS": "false",
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
    }
    args = ["start", "--no-browser", "--data-dir", str(data), "--internal-host", "127.0.0.1"]
    args += ["--port", str(port), "--username", EMAIL, "--password", PASSWORD]
    args += ["--user-token", TOKEN, "--enable-legacy-api-token"]
    log = data / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(SERVER), *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(url):
            if proc.poll() is not None:
                pytest.fail(f"Label Studio exited with {proc.returncode}:\n{_tail(log)}")
            if time.monotonic() > deadline:
                pytest.fail(f"Label Studio did not answer in {START_TIMEOUT} s:\n{_tail(log)}")
            time.sleep(2)
        yield Server(url, TOKEN)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _accounts(client: LabelStudio, names: list[str]) -> dict[str, int]:
    """Label Studio user ids of the annotators (accounts made on first need)."""
    known = {u.email: u.id for u in client.users.list()}
    ids = {}
    for name in names:
        email = f"{name}@{DOMAIN}"
        if email not in known:
            known[email] = client.users.create(username=name, email=email).id
        ids[name] = known[email]
    return ids


def _through_server(server: Server, export: Export, out: Path) -> Path:
    """The export imported into a new Label Studio project, exported back by the server;
    the server's file (with ``.users.json`` naming its user ids) is returned."""
    assert export.path is not None
    client = server.client()
    config = export.path.with_name(f"{export.path.stem}.label_config.xml").read_text()
    names = json.loads(export.path.with_name(f"{export.path.stem}.users.json").read_text())
    ids = _accounts(client, sorted(names.values()))
    tasks = json.loads(export.path.read_text(encoding="utf-8"))
    for task in tasks:
        for entry in task["annotations"] + task["drafts"]:
            entry["completed_by"] = ids[names[str(entry["completed_by"])]]
    project = client.projects.create(title=export.project[:50], label_config=config)
    client.projects.import_tasks(project.id, request=tasks)
    body = b"".join(
        client.projects.exports.download_sync(
            project.id, export_type="JSON", download_all_tasks=True
        )
    )
    back = out / f"{export.project}.json"
    back.write_bytes(body)
    users = {str(u.id): u.username or u.email for u in client.users.list()}
    back.with_name(f"{back.stem}.users.json").write_text(json.dumps(users))
    return back


def _marks(path: Path) -> list[tuple[str, str, bool]]:
    """(item, annotator, ground truth) of every annotation in a Label Studio file."""
    names = json.loads(path.with_name(f"{path.stem}.users.json").read_text())
    return sorted(
        (t["data"]["item_id"], names[str(a["completed_by"])], bool(a.get("ground_truth")))
        for t in json.loads(path.read_text(encoding="utf-8"))
        for a in t["annotations"]
    )


def _round_trip(url: str, pairs: list[str]) -> dict[str, Any]:
    side = Path(__file__).with_name("label_studio_side.py")
    done = run_workbench(str(side), "round-trip", url, *pairs)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_annotators_label_comes_back_from_a_label_studio_server(
    exports: list[Export], server: Server, tmp_path: Path
) -> None:
    written = [
        e
        for e in of_format(exports, "label-studio")
        if e.what == "annotations" and e.count and e.project != "demo-judge-study"
    ]  # demo-judge-study: 300 items of a kind demo-intent-match already covers
    assert {e.project for e in written} >= {"demo-intent-resolution", "demo-actionability"}
    db = tmp_path / "copy.db"
    source = next(e.path for e in exports if e.path is not None).parents[2] / "workbench.db"
    for suffix in ("", "-wal"):  # the export run may leave its last writes in the WAL
        if Path(f"{source}{suffix}").is_file():
            shutil.copy(f"{source}{suffix}", f"{db}{suffix}")
    back = {e.project: _through_server(server, e, tmp_path) for e in written}
    found = _round_trip(f"sqlite:///{db}", [f"{p}={path}" for p, path in back.items()])
    compared = 0
    for export in written:
        assert export.path is not None
        # every annotation is back under its annotator, ground truth only where it was
        assert _marks(back[export.project]) == _marks(export.path), export.project
        before, after = found[export.project]["labels"]
        if any("marking no span" in n for n in export.notes):
            # answers marking no span were not written (the note says so): the rest came back
            assert after and all(row in before for row in after), export.project
            continue
        assert after == before, export.project
        figures = found[export.project]["agreement"]
        assert figures[1] == figures[0], export.project
        compared += 1
    assert compared >= 4
