"""Does anything about an item move the judge's error? A scan of the residual (the judge's
score minus the people's mean) against every item column.

- Columns: the item's split and generator, and every item field. A field of numbers is
  numeric; a text field with 2 to :data:`MAX_LEVELS` distinct values, one of them shared
  by two items or more, is categorical; any other text field enters as its length in
  characters (``length of NAME``). Booleans are categorical. Lists, mappings, and columns
  with one value only are left out, each with its reason.
- Numeric column: Pearson's r of the residual with the column, its p-value and 95%
  interval (Fisher's z, as :func:`scipy.stats.pearsonr` gives them), n >= 3.
- Categorical column: the mean residual by level (with each level's n) and the
  Kruskal-Wallis H test across levels (:func:`scipy.stats.kruskal`).
- Every p-value is adjusted with Holm's step-down correction across all the tests of the
  scan (family-wise error rate); a test is significant when its adjusted p < 0.05. The
  output leads with the significant tests, smallest adjusted p first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from agreement.correlation_tests import pearson
from agreement.stats_lite import kruskal, pearson_ci

MAX_LEVELS = 10
ALPHA = 0.05
CORRECTION = "Holm"
#: Item frame columns read besides the fields.
ITEM_COLUMNS = ("split", "generator")


@dataclass(frozen=True)
class Level:
    """One level of a categorical column: its mean residual and n."""

    level: str
    n: int
    mean: float


@dataclass(frozen=True)
class BiasTest:
    """One column's test: r (numeric) or H (categorical), p before and after correction."""

    column: str
    kind: str  # "numeric" | "categorical"
    test: str
    n: int
    statistic: float
    p: float
    p_adjusted: float = float("nan")
    ci: tuple[float, float] | None = None
    levels: tuple[Level, ...] = ()

    @property
    def significant(self) -> bool:
        """Adjusted p below :data:`ALPHA`."""
        return bool(self.p_adjusted < ALPHA)

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {
            "column": self.column,
            "kind": self.kind,
            "test": self.test,
            "n": self.n,
            "statistic": self.statistic,
            "p": self.p,
            "p_adjusted": self.p_adjusted,
            "significant": self.significant,
        }
        if self.kind == "numeric":
            out["r"] = self.statistic
            out["ci"] = list(self.ci) if self.ci else None
        else:
            out["levels"] = [{"level": x.level, "n": x.n, "mean": x.mean} for x in self.levels]
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BiasTest:
        """Back from the JSON form."""
        levels = tuple(Level(x["level"], x["n"], x["mean"]) for x in d.get("levels") or [])
        ci = d.get("ci")
        return cls(d["column"], d["kind"], d["test"], d["n"], d["statistic"], d["p"],
                   d["p_adjusted"], tuple(ci) if ci else None, levels)  # fmt: skip


@dataclass(frozen=True)
class BiasScan:
    """Every test of a scan (significant first), the columns left out and why."""

    tests: tuple[BiasTest, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    n: int = 0
    reason: str | None = None

    @property
    def significant(self) -> tuple[BiasTest, ...]:
        """The tests significant after the correction."""
        return tuple(t for t in self.tests if t.significant)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what ``--json`` and the alignment document carry)."""
        return {
            "n": self.n,
            "correction": CORRECTION,
            "alpha": ALPHA,
            "residual": "judge's score minus the people's mean",
            "significant": [t.column for t in self.significant],
            "tests": [t.to_dict() for t in self.tests],
            "skipped": dict(self.skipped),
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BiasScan:
        """Back from the JSON form (an empty document: no scan, with its reason)."""
        tests = tuple(BiasTest.from_dict(t) for t in d.get("tests") or [])
        return cls(tests, dict(d.get("skipped") or {}), d.get("n") or 0,
                   d.get("reason") or (None if d else "not run"))  # fmt: skip


def holm(p: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values: sorted ascending, the i-th (from 0) is
    max over j <= i of min(1, (m - j) p_(j)), returned in the input order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def _is_number(x: Any) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


def item_columns(items: pd.DataFrame) -> tuple[dict[str, pd.Series], dict[str, str]]:
    """The scan's columns (name -> values by item_id, and numeric or not by dtype) from
    an items frame (item_id, split, generator, fields), and the columns left out."""
    ids = items["item_id"].astype(str).to_numpy()
    raw: dict[str, list[Any]] = {c: list(items[c]) for c in ITEM_COLUMNS if c in items}
    for k, fields in enumerate(items["fields"] if "fields" in items else []):
        for name, value in (fields or {}).items():
            if name not in raw:
                raw[name] = [None] * len(ids)
            raw[name][k] = value
    columns: dict[str, pd.Series] = {}
    skipped: dict[str, str] = {}
    for name, values in raw.items():
        present = [
            v for v in values if v is not None and not (isinstance(v, float) and np.isnan(v))
        ]
        if not present:
            skipped[name] = "no values"
        elif any(isinstance(v, list | dict) for v in present):
            skipped[name] = "lists or mappings are not scanned"
        elif all(_is_number(v) for v in present):
            columns[name] = pd.Series([float(v) if _is_number(v) else np.nan for v in values], ids)
        else:
            text = pd.Series([None if v is None else str(v) for v in values], ids, dtype=object)
            counts = text.value_counts()
            if 2 <= len(counts) <= MAX_LEVELS and counts.max() >= 2:
                columns[name] = text
            elif len(counts) < 2:
                skipped[name] = "one value only"
            else:
                columns[f"length of {name}"] = text.map(
                    lambda s: np.nan if s is None else float(len(s))
                ).astype(float)
    return columns, skipped


def _numeric(name: str, x: pd.Series, residual: pd.Series) -> BiasTest | str:
    both = pd.concat([x.rename("x"), residual.rename("r")], axis=1, join="inner").dropna()
    if len(both) < 3:
        return f"needs 3 items with a value and a residual ({len(both)} here)"
    if both["x"].nunique() < 2 or both["r"].nunique() < 2:
        return "no variation" if both["x"].nunique() < 2 else "the residual does not vary"
    r, p = pearson(both["x"].to_numpy(float), both["r"].to_numpy(float))
    ci = pearson_ci(r, len(both)) if len(both) > 3 else None
    return BiasTest(name, "numeric", "Pearson r", len(both), r, p, ci=ci)


def _categorical(name: str, x: pd.Series, residual: pd.Series) -> BiasTest | str:
    both = pd.concat([x.rename("x"), residual.rename("r")], axis=1, join="inner").dropna()
    groups = {str(k): g["r"].to_numpy(float) for k, g in both.groupby("x", sort=True)}
    if len(groups) < 2:
        return "one level among the items with a residual"
    levels = tuple(Level(k, len(v), float(v.mean())) for k, v in groups.items())
    if len(np.unique(both["r"])) < 2:
        return "the residual does not vary"
    h, p = kruskal(list(groups.values()))
    return BiasTest(name, "categorical", "Kruskal-Wallis H", len(both), float(h), float(p),
                    levels=levels)  # fmt: skip


def bias_scan(
    residual: pd.Series,
    items: pd.DataFrame,
    columns: tuple[dict[str, pd.Series], dict[str, str]] | None = None,
) -> BiasScan:
    """The scan of ``residual`` (index item_id) against every column of ``items``
    (``columns``: :func:`item_columns` of them, when the caller already has it)."""
    residual = residual.dropna()
    residual.index = residual.index.astype(str)
    if len(residual) < 3:
        return BiasScan((), {}, len(residual), "the scan needs 3 items with a residual")
    columns_by_name, skipped = columns if columns is not None else item_columns(items)
    columns, skipped = columns_by_name, dict(skipped)
    found: list[BiasTest] = []
    for name, values in columns.items():
        test = (_numeric if values.dtype.kind == "f" else _categorical)(name, values, residual)
        if isinstance(test, str):
            skipped[name] = test
        else:
            found.append(test)
    adjusted = holm([t.p for t in found])
    found = [
        BiasTest(t.column, t.kind, t.test, t.n, t.statistic, t.p, a, t.ci, t.levels)
        for t, a in zip(found, adjusted, strict=True)
    ]
    found.sort(key=lambda t: (not t.significant, t.p_adjusted, t.p, t.column))
    reason = None if found else "no item column could be tested"
    return BiasScan(tuple(found), skipped, len(residual), reason)


def scan_lines(scan: dict[str, Any]) -> list[str]:
    """The scan in words, significant tests first (each with n and both p-values)."""
    if not scan or not scan.get("tests"):
        return [f"bias scan: {(scan or {}).get('reason') or 'not run'}"]
    sig = scan["significant"]
    lines = [
        f"bias scan ({scan['correction']}-corrected, alpha {scan['alpha']:g}, n {scan['n']} "
        f"items): " + (f"significant: {', '.join(sig)}" if sig else "nothing significant")
    ]
    return lines + [test_text(t) for t in scan["tests"]]


def test_text(t: dict[str, Any]) -> str:
    """One test in words."""
    mark = "SIGNIFICANT " if t["significant"] else ""
    tail = f"p {t['p']:.3g}, Holm p {t['p_adjusted']:.3g}, n {t['n']}"
    if t["kind"] == "numeric":
        ci = f" [{t['ci'][0]:.3f}, {t['ci'][1]:.3f}]" if t.get("ci") else ""
        return f"{mark}{t['column']}: r {t['r']:.3f}{ci}, {tail}"
    levels = ", ".join(f"{x['level']} {x['mean']:+.3f} (n {x['n']})" for x in t["levels"])
    return f"{mark}{t['column']}: mean residual by level {levels}; H {t['statistic']:.3f}, {tail}"
