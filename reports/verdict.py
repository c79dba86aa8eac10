"""The report's opening: three lines per evaluator saying whether it agrees with people.

Read from the alignment document the report already carries (every evaluator version
against the people on the project's headline field): the agreement with people with its
interval and n, the people's own agreement beside it, and the alt-test's answer to "can
it stand in for an annotator?". Nothing is computed here that the report does not show
further down.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Colours of the app's theme (.streamlit/config.toml) and of its status badges.
ACCENT = "#2f5fb3"
PASS, FAIL, UNTESTED = "#1e7d32", "#b3261e", "#6b6b6b"


@dataclass(frozen=True)
class Verdict:
    """One evaluator version's three lines; ``stands_in`` None when not tested."""

    evaluator: str
    agreement: str
    people: str
    stand_in: str
    stands_in: bool | None


def _figure(name: str, value: float | None, ci: Sequence[float] | None, n: Any) -> str:
    if value is None:
        return f"{name}: no value"
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    return f"{name} {value:.2f}{interval}, n {n}"


def _statistic_name(key: str) -> str:
    """A headline statistic's name as the tables print it (``spearman`` -> Spearman)."""
    from agreement.measures import EVALUATOR, measures

    names = {m.key: m.view.header for m in measures(EVALUATOR)}
    return names.get(key, {"kappa": "Cohen's kappa"}.get(key, key))


def _people_line(agreement: Mapping[str, Any], field: str | None) -> str:
    """The people's own agreement on ``field``: Krippendorff's alpha at the field's level
    of measurement, with its interval."""
    from agreement.views import variable

    view = variable(agreement, field or "", derived=False)
    f = view.block if view else {}
    alpha = f.get("krippendorff_alpha") or {}
    level = f.get("level") if f.get("level") in alpha else next(iter(alpha), None)
    value = alpha.get(level) if level else None
    if value is None:
        return "People among themselves: no alpha on this field"
    ci = (f.get("krippendorff_alpha_ci") or {}).get(level)
    n = f.get("n_items")
    return f"People among themselves: {_figure(f'alpha ({level})', value, ci, f'{n} items')}"


def _stand_in(alt: Mapping[str, Any] | None) -> tuple[str, bool | None]:
    if not alt:
        return "Stand-in for an annotator: not tested", None
    passed = alt.get("passed")
    if passed is None:
        why = alt.get("reason") or "the alt-test could not run"
        return f"Stand-in for an annotator: not tested ({why})", None
    rate, eps = alt.get("winning_rate"), alt.get("epsilon")
    words = "yes" if passed else "no"
    return (
        f"Stand-in for an annotator: {words} (alt-test winning rate {rate:.2f}, "
        f"needs 0.50; epsilon {eps})",
        bool(passed),
    )


def verdicts(alignment: Mapping[str, Any] | None, agreement: Mapping[str, Any]) -> list[Verdict]:
    """A verdict per evaluator version of the alignment document (none without one)."""
    if not alignment:
        return []
    field = alignment.get("field")
    people = _people_line(agreement, field)
    out = []
    for v in alignment.get("versions") or []:
        head = v.get("headline") or {}
        name = _statistic_name(head.get("name") or "agreement")
        line = f"With people on {field}: " + _figure(
            name, head.get("value"), head.get("ci"), head.get("n")
        )
        if head.get("reason"):
            line += f" ({head['reason']})"
        stand, passed = _stand_in((v.get("probes") or {}).get("alt_test"))
        out.append(Verdict(str(v.get("label")), line, people, stand, passed))
    return out


def verdict_markdown(found: Sequence[Verdict]) -> list[str]:
    """The verdicts as Markdown lines (a heading, then a block per evaluator)."""
    if not found:
        return []
    lines = ["## Verdict", ""]
    for v in found:
        lines += [f"**{v.evaluator}**", "", f"- {v.agreement}", f"- {v.people}"]
        lines += [f"- {v.stand_in}", ""]
    return lines


def verdict_html(found: Sequence[Verdict]) -> str:
    """The verdicts as HTML cards in the app's colours (empty without any)."""
    if not found:
        return ""
    cards = []
    for v in found:
        colour = {True: PASS, False: FAIL, None: UNTESTED}[v.stands_in]
        cards.append(
            f"<div class='verdict' style='border-left-color:{colour}'>"
            f"<strong>{html.escape(v.evaluator)}</strong><br>{html.escape(v.agreement)}"
            f"<br>{html.escape(v.people)}<br><span style='color:{colour}'>"
            f"{html.escape(v.stand_in)}</span></div>"
        )
    return "<h2>Verdict</h2>" + "".join(cards)


VERDICT_CSS = (
    f"h1,h2{{color:{ACCENT}}}.verdict{{border-left:4px solid {ACCENT};"
    "padding:.4em .8em;margin:.6em 0;background:#f6f8fc}"
)
