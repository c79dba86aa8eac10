"""The report's table for a pairwise question's judges (MT-Bench figures): agreement of
the conservative verdict with people's choices with and without ties, and position
consistency and bias, each share with its 95% Wilson interval and n."""

from __future__ import annotations

from typing import Any

PAIRWISE_HEADER = [
    "version",
    "verdict",
    "agreement with ties (95% CI, n votes)",
    "agreement without ties (95% CI, n votes)",
    "position consistency (95% CI, n pairs)",
    "first position both times (n)",
    "second position both times (n)",
    "excluded",
]


def _share(x: dict[str, Any] | None) -> str:
    if not x or x.get("value") is None:
        return "—" + (f" ({x['reason']})" if x and x.get("reason") else "")
    lo, hi = x["ci"]
    return f"{x['value']:.3f} [{lo:.3f}, {hi:.3f}] (n {x['n']})"


def pairwise_rows(doc: dict[str, Any]) -> list[list[str]]:
    """One row per judge version of the pairwise document."""
    rows = []
    for r in doc["versions"]:
        pos, agree = r["position"], r["agreement"]
        rows.append(
            [
                r["label"],
                r["verdict"],
                _share(agree["with_ties"]),
                _share(agree["without_ties"]),
                _share(pos.get("consistency")) if pos.get("n") else f"— ({pos.get('reason')})",
                _share(pos.get("biased_first")),
                _share(pos.get("biased_second")),
                str(r["excluded"]["n"]),
            ]
        )
    return rows


NOTE = (
    "Each version asked with the outputs in order and, in its swap probe run, exchanged "
    "(MT-Bench); an inconsistent pair counts as a tie in the verdict compared with people."
)
