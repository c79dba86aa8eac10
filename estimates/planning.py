"""How many more human labels a target interval half-width needs.

PPI++ mean: its variance is var_rectifier / n + var_imputed_term (the judge's part, fixed
by the N judged items), so n = Z^2 var_rectifier / (h^2 - Z^2 var_imputed_term); a target
below the judge's part alone cannot be reached by labels (judge more items instead).
Statistics with a bootstrap interval (Krippendorff's alpha, the judge-human correlation):
the half-width shrinks as 1/sqrt(n), so n = n_now (half-width now / target)^2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from estimates.intervals import Estimate, Z


@dataclass(frozen=True)
class Plan:
    """Labels needed for one figure to reach a target half-width."""

    figure: str
    n_now: int
    half_width_now: float | None
    target: float
    n_needed: int | None  # total labelled items; None when unreachable or unknown
    more: int | None  # n_needed - n_now, at least 0
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form of the plan."""
        return dict(self.__dict__)


def _plan(figure: str, n_now: int, hw: float | None, target: float, n_req: float) -> Plan:
    needed = max(n_now, math.ceil(n_req - 1e-9))
    return Plan(figure, n_now, hw, target, needed, needed - n_now)


def check_target(target: float) -> None:
    """A target half-width must be a positive number."""
    if not (isinstance(target, int | float) and math.isfinite(target) and target > 0):
        raise ValueError("the target half-width must be a number > 0")


def plan_ppi(ppi: Estimate, target: float, figure: str = "PPI++ mean") -> Plan:
    """Labels needed for the PPI++ interval to reach half-width ``target``."""
    check_target(target)
    n = int(ppi.extra.get("n", 0))
    var_r, var_i = ppi.extra.get("var_rectifier"), ppi.extra.get("var_imputed_term")
    if var_r is None or var_i is None:
        return Plan(figure, n, None, target, None, None, ppi.reason or "no PPI++ estimate yet")
    room = target**2 - Z**2 * var_i
    if room <= 0:
        reason = "the judge's own uncertainty is wider than the target: judge more items"
        return Plan(figure, n, ppi.half_width, target, None, None, reason)
    return _plan(figure, n, ppi.half_width, target, Z**2 * var_r / room)


def plan_from_interval(
    figure: str, n_now: int, ci: tuple[float, float] | list[float] | None, target: float
) -> Plan:
    """Labels needed for a bootstrap interval over ``n_now`` units to reach ``target``."""
    check_target(target)
    if not ci or n_now < 2 or any(v is None or not math.isfinite(v) for v in ci):
        return Plan(figure, n_now, None, target, None, None, "no interval yet")
    hw = (ci[1] - ci[0]) / 2
    if hw <= 0:
        return Plan(figure, n_now, hw, target, n_now, 0)
    return _plan(figure, n_now, hw, target, n_now * (hw / target) ** 2)
