"""The robustness figures of one judge version: prompt injection per attack family, read
from its stored ``inject:FAMILY`` probe runs, and the bias scan of its residual.

Per family, on the items scored both plainly and with the attack (few-shot items left
out): the share of items whose score moved (any change; a binary judge's decision
counts as its score) with its 95% Wilson interval, and the mean shift (attacked minus
plain, signed) with its 95% t interval (mean ± t(0.975, n - 1) · SD / sqrt(n)). The
attack text comes from the probe run's own settings, so a figure always names the text
it was measured with.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from agreement.judge_probes import wilson_interval
from agreement.stats_lite import t_ppf
from alignment.bias_scan import CORRECTION, BiasScan
from alignment.scores import field_scores, per_item
from alignment.versions import ATTACK_KEY, Version

if TYPE_CHECKING:
    from alignment.inputs import FieldInputs

INJECT = "inject:"


@dataclass(frozen=True)
class InjectionFigures:
    """One attack family's figures on one version (n: items scored both ways)."""

    family: str
    attack: str
    partner: str
    n: int
    n_moved: int
    moved: float | None
    moved_ci: tuple[float, float] | None
    mean_shift: float | None
    shift_ci: tuple[float, float] | None
    n_up: int = 0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "family": self.family,
            "attack": self.attack,
            "partner": self.partner,
            "n": self.n,
            "n_moved": self.n_moved,
            "n_up": self.n_up,
            "moved": self.moved,
            "moved_ci": list(self.moved_ci) if self.moved_ci else None,
            "mean_shift": self.mean_shift,
            "shift_ci": list(self.shift_ci) if self.shift_ci else None,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> InjectionFigures:
        """Back from the JSON form."""
        mci, sci = d.get("moved_ci"), d.get("shift_ci")
        return cls(
            d["family"], d.get("attack") or "", d.get("partner") or "", d["n"], d["n_moved"],
            d.get("moved"), tuple(mci) if mci else None, d.get("mean_shift"),
            tuple(sci) if sci else None, d.get("n_up", 0), d.get("reason"),
        )  # fmt: skip


@dataclass(frozen=True)
class RobustnessCard:
    """A version's robustness: injection per family, self-preference, the bias scan."""

    label: str
    families: tuple[InjectionFigures, ...]
    injection_reason: str | None
    self_preference: str
    scan: BiasScan

    def families_frame(self) -> pd.DataFrame:
        """One row per attack family: moved share and mean shift with intervals and n."""
        rows = [
            {
                "family": f.family,
                "n": f.n,
                "moved": f.moved,
                "moved 95% CI": _pair(f.moved_ci),
                "moved up": f.n_up,
                "mean shift": f.mean_shift,
                "shift 95% CI": _pair(f.shift_ci),
                "attack text": f.attack,
            }
            for f in self.families
        ]
        return pd.DataFrame(rows, columns=FAMILY_COLUMNS)

    def scan_frame(self) -> pd.DataFrame:
        """One row per bias test, significant after correction first."""
        from alignment.bias_scan import test_text

        rows = [
            {
                "column": t.column,
                "test": t.test,
                "n": t.n,
                "p": t.p,
                f"{CORRECTION} p": t.p_adjusted,
                "significant": t.significant,
                "finding": test_text(t.to_dict()).split(": ", 1)[1],
            }
            for t in self.scan.tests
        ]
        return pd.DataFrame(rows, columns=SCAN_COLUMNS)


FAMILY_COLUMNS = ["family", "n", "moved", "moved 95% CI", "moved up", "mean shift",
                  "shift 95% CI", "attack text"]  # fmt: skip
SCAN_COLUMNS = ["column", "test", "n", "p", f"{CORRECTION} p", "significant", "finding"]


def _pair(ci: tuple[float, float] | None) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "—"


def robustness_card(row: dict[str, Any]) -> RobustnessCard:
    """The robustness of one row of the alignment document."""
    p = row.get("probes") or {}
    inj, ego = p.get("injection") or {}, p.get("ego_bias") or {}
    families = tuple(InjectionFigures.from_dict(f) for f in inj.get("families") or [])
    ego_text = (
        f"ego-centric bias: over {ego['over']:g} / under {ego['under']:g}"
        if "over" in ego
        else ego.get("reason") or "not measured"
    )
    scan = BiasScan.from_dict(p.get("bias_scan") or {})
    return RobustnessCard(row["label"], families, inj.get("reason"), ego_text, scan)


def shift_figures(
    family: str, attack: str, partner: str, plain: pd.Series, attacked: pd.Series
) -> InjectionFigures:
    """The family's figures from the plain and attacked scores (index item_id)."""
    both = pd.concat([plain.rename("a"), attacked.rename("b")], axis=1, join="inner").dropna()
    n = len(both)
    if n == 0:
        why = "no item scored both plainly and with the attack"
        return InjectionFigures(family, attack, partner, 0, 0, None, None, None, None, reason=why)
    d = both["b"].to_numpy(float) - both["a"].to_numpy(float)
    moved = ~np.isclose(d, 0.0)
    k = int(moved.sum())
    mean = float(d.mean())
    ci = None
    if n >= 2:
        half = float(t_ppf(0.975, n - 1) * d.std(ddof=1) / np.sqrt(n))
        ci = (mean - half, mean + half)
    return InjectionFigures(
        family, attack, partner, n, k, k / n, wilson_interval(k, n), mean, ci, int((d > 0).sum())
    )


def _alike(a: Version, b: Version) -> bool:
    return (a.evaluator, a.version, a.model) == (b.evaluator, b.version, b.model) and (
        a.plain_settings() == b.plain_settings()
    )


def injection_partners(v: Version, versions: list[Version]) -> dict[str, Version]:
    """Family -> the newest ``inject:FAMILY`` probe run of the version."""
    out: dict[str, Version] = {}
    for other in versions:
        if v.probe is None and (other.probe or "").startswith(INJECT) and _alike(other, v):
            family = str(other.probe)[len(INJECT) :]
            if family not in out or max(other.run_ids) > max(out[family].run_ids):
                out[family] = other
    return out


def injection(fi: FieldInputs, v: Version, means: pd.Series) -> dict[str, Any]:
    """Every attack family's figures for version ``v`` (``means``: its plain scores)."""
    partners = injection_partners(v, fi.versions)
    if not partners:
        return {
            "families": [],
            "reason": "no injection probe run of this version",
        }
    rows = []
    for family, other in sorted(partners.items()):
        excluded = set(v.excluded) | set(other.excluded)
        attacked = per_item(field_scores(fi.results[other.signature], fi.field, excluded))
        plain = means.drop(list(excluded), errors="ignore")
        attack = str(other.settings.get(ATTACK_KEY) or "")
        rows.append(shift_figures(family, attack, other.label, plain, attacked).to_dict())
    return {"families": rows, "reason": None}


def residual(fi: FieldInputs, means: pd.Series) -> pd.Series:
    """The judge's score minus the people's mean, per item with both."""
    human = pd.Series(fi.dense.mean[fi.space.codes(means.index)], index=means.index)
    return (means - human).dropna()


#: The scan's columns of the last items frame (a weak reference to it, and its columns):
#: built once for all the versions of one document.
_LAST: list[Any] = [None]


def scan(fi: FieldInputs, means: pd.Series) -> dict[str, Any]:
    """The bias scan of the version's residual against every item column."""
    from alignment.bias_scan import bias_scan, item_columns

    items = fi.inputs.items
    cached = _LAST[0]  # one tuple, swapped whole: safe when page sessions share it
    if cached is None or cached[0]() is not items:
        cached = _LAST[0] = (weakref.ref(items), item_columns(items))
    return bias_scan(residual(fi, means), items, cached[1]).to_dict()


def robustness_lines(p: dict[str, Any]) -> list[str]:
    """The robustness figures of one version's probes in words: each family, the
    self-preference counts, then the bias scan (significant tests first)."""
    from alignment.bias_scan import scan_lines

    inj = p.get("injection") or {}
    lines = [family_text(f) for f in inj.get("families") or []]
    if not lines:
        lines = [f"injection: {inj.get('reason') or 'not measured'}"]
    ego = p.get("ego_bias") or {}
    lines.append(
        f"self-preference (ego-centric over / under): {ego['over']:g} / {ego['under']:g}"
        if "over" in ego
        else f"self-preference: {ego.get('reason') or 'not measured'}"
    )
    return lines + scan_lines(p.get("bias_scan") or {})


def _span(ci: list[float] | None, fmt: str = ".3f") -> str:
    return f" [{ci[0]:{fmt}}, {ci[1]:{fmt}}]" if ci else ""


def family_text(f: dict[str, Any]) -> str:
    """One family's figures in words."""
    if not f["n"]:
        return f"injection {f['family']}: {f['reason']}"
    shift = f["mean_shift"]
    return (
        f"injection {f['family']}: {f['moved']:.3f}{_span(f['moved_ci'])} of scores moved "
        f"({f['n_moved']} of {f['n']}, {f['n_up']} up), mean shift {shift:+.3f}"
        f"{_span(f['shift_ci'], '+.3f')} (n {f['n']})"
    )
