"""Judge templates have a bounded rendered size (issue 24 point 4): refused at save and at
render, with the limit named, before the huge string is built."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from annotation_store import Store
from commands import main
from evaluators.judges.template import TemplateError, render_template
from evaluators.judges.template_bounds import MAX_PROMPT_CHARS

TOML = Path(__file__).parent / "data" / "judges" / "same_task.toml"
LIMIT = f"{MAX_PROMPT_CHARS:,} characters"


@pytest.mark.parametrize(
    "template",
    [
        "{{ predicted * 100000000 }}",
        "{{ 30000000 * predicted }}",
        "{{ predicted|center(300000000) }}",
        "{{ predicted.ljust(300000000) }}",
        "{{ predicted|indent(300000000, true) }}",
        "{{ 9 ** 99999999 }}",
    ],
)
def test_a_template_that_grows_without_bound_is_refused_at_save(
    demo: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], template: str
) -> None:
    bad = tmp_path / "big.toml"
    bad.write_text(TOML.read_text().replace("{{ predicted }}", template))
    started = time.monotonic()
    assert main(["--db", demo, "judge", "create", "huge", "--from", str(bad)]) == 2
    assert time.monotonic() - started < 10  # refused before the string is built
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and LIMIT in err and "template refused" in err
    store = Store(demo)
    assert store.judges() == []
    store.close()


def test_render_refuses_a_prompt_past_the_limit_and_names_it() -> None:
    # a loop of a fine-looking text only passes the bound with a long item: render time
    template = "{% for i in range(100) %}{{ text }}{% endfor %}"
    assert render_template(template, {"text": "ab"}) == "ab" * 100
    with pytest.raises(TemplateError, match=LIMIT):
        render_template(template, {"text": "x" * 20_000})
    with pytest.raises(TemplateError, match=LIMIT):
        render_template("{{ text * 3 }}", {"text": "x" * 400_000})
    assert render_template("{{ text * 3 }}|{{ text|center(7) }}", {"text": "ab"}) == (
        "ababab|   ab  "  # str.center puts the odd space on the left
    )
