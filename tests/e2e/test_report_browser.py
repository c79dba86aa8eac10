"""Real browser: the self-contained HTML report inflates its one plotly.js and draws
every figure (a plotly SVG per figure, no page error), with nothing fetched."""

from __future__ import annotations

from pathlib import Path

import pytest

from commands import main
from tests.e2e.harness import browser_page, screenshot

pytestmark = pytest.mark.e2e


def test_demo_report_draws_every_figure_offline(demo: str, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    args = ["--db", demo, "report", "demo-judge-study", "--out", str(out), "--resamples", "20"]
    assert main(args) == 0
    figures = out.read_text().count('<script type="application/json" data-figure=')
    assert figures >= 3
    errors: list[str] = []
    requests: list[str] = []
    with browser_page(width=1200, height=900) as page:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda req: requests.append(req.url))
        page.goto(out.as_uri())
        page.wait_for_function(
            f"""() => document.querySelectorAll('.report-figure').length === {figures}
                && [...document.querySelectorAll('.report-figure')]
                    .every((d) => d.querySelector('.main-svg'))""",
            timeout=60_000,
        )
        drawn = page.evaluate(
            """() => [...document.querySelectorAll('.report-figure')].map((d) =>
                d.querySelectorAll('.main-svg .trace, .main-svg .hm, .main-svg image').length)"""
        )
        screenshot(page, "report-demo-judge-study")
    assert errors == []
    assert [u for u in requests if not u.startswith("file://")] == []  # self-contained
    assert all(n > 0 for n in drawn), drawn  # every figure drew at least one trace
