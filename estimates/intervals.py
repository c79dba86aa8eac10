"""A point estimate with its normal-theory 95 % interval."""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any

ALPHA = 0.05
#: The two-sided normal quantile of a 95 % interval.
Z = NormalDist().inv_cdf(1 - ALPHA / 2)  # stdlib: SciPy's import costs a second


@dataclass(frozen=True)
class Estimate:
    """One method's estimate of a mean: value, 95 % CI, standard error, and notes."""

    method: str
    estimate: float | None
    ci: tuple[float, float] | None
    se: float | None
    biased: bool = False
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def half_width(self) -> float | None:
        """Half the interval's width (None without an interval)."""
        return None if self.ci is None else (self.ci[1] - self.ci[0]) / 2

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``estimate``, ``ci``, ``se``, ``biased``, ``reason`` and extras."""
        return {
            "estimate": self.estimate,
            "ci": list(self.ci) if self.ci is not None else None,
            "se": self.se,
            "biased": self.biased,
            "reason": self.reason,
            **self.extra,
        }


def missing(method: str, reason: str, **extra: Any) -> Estimate:
    """An estimate that cannot be computed, with the reason."""
    return Estimate(method, None, None, None, reason=reason, extra=extra)


def normal(method: str, value: float, se: float, **kw: Any) -> Estimate:
    """``value`` with the interval value +- Z * se."""
    value, se = float(value), float(se)
    return Estimate(method, value, (value - Z * se, value + Z * se), se, **kw)
