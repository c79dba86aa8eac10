"""`agreement NAME --json` on the four demo projects, byte for byte.

The golden files were written by the CLI before the agreement document became rows
(issue 26) and regenerated only for deliberate additions (issue 25's own-model bias keys,
issue 24's `alarms`, issue 32's question-type statistics, null on these fields);
any other change to the document's keys, order, numbers or formatting fails here.
The only normalised bytes are the demo's load timestamps (the timeline's ``"at"``), which
differ on every load.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commands import main

GOLDEN = Path(__file__).parent / "data" / "agreement_golden"
PROJECTS = ("demo-intent-match", "demo-actionability", "demo-dialogue", "demo-intent-resolution")
_LOADED_AT = re.compile(r'"at": "\d{4}-\d\d-\d\dT[0-9:.]+\+00:00"')


@pytest.mark.parametrize("project", PROJECTS)
def test_json_is_byte_identical_to_the_golden_file(
    demo: str, project: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", demo, "agreement", project, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count('"at": ') == _LOADED_AT.subn("", out)[1]
    got = _LOADED_AT.sub('"at": "<loaded-at>"', out)
    assert got == (GOLDEN / f"{project}.json").read_text()
