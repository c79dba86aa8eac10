"""The golden agreement documents: how they are made, shared by the test that compares
them and by ``make golden``, which rewrites them when a change to the document is meant.

``python -m tests.support.golden`` loads the four demo projects into a scratch SQLite
file, runs ``agreement NAME --json`` on each and writes the output, the load timestamps
replaced by a placeholder (they differ on every load), to ``tests/data/agreement_golden``.
Review the diff before committing it: every changed byte is a change users see.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "agreement_golden"
PROJECTS = ("demo-intent-match", "demo-actionability", "demo-dialogue", "demo-intent-resolution")
LOADED_AT = re.compile(r'"at": "\d{4}-\d\d-\d\dT[0-9:.]+\+00:00"')
PLACEHOLDER = '"at": "<loaded-at>"'


def normalised(out: str) -> str:
    """The ``--json`` output with every load timestamp replaced by the placeholder; an
    ``"at"`` that is not a load timestamp is an error (the golden file would hide it)."""
    got, replaced = LOADED_AT.subn(PLACEHOLDER, out)
    if out.count('"at": ') != replaced:
        raise ValueError('an "at" key that is not a load timestamp: update LOADED_AT')
    return got


def agreement_json(db_url: str, project: str) -> str:
    """What ``agreement PROJECT --json`` prints for the demo database at ``db_url``."""
    from commands import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--db", db_url, "agreement", project, "--json"])
    if code != 0:
        raise RuntimeError(f"agreement {project} --json ended with {code}")
    return out.getvalue()


def write_golden(target: Path = GOLDEN) -> list[Path]:
    """Regenerate every golden document in ``target``; returns the files that changed."""
    from annotation_store import Store
    from demo.loading import load_demo

    changed = []
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'golden.db'}"
        store = Store(url)
        load_demo(store)
        store.close()
        for project in PROJECTS:
            path = target / f"{project}.json"
            text = normalised(agreement_json(url, project))
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                changed.append(path)
    return changed


if __name__ == "__main__":
    changed = write_golden()
    for path in changed:
        print(f"rewritten: {path.name}")
    print(f"{len(changed)} of {len(PROJECTS)} golden documents changed")
