"""A pairwise judge asked in both orders, reported as MT-Bench does (Zheng et al. 2023,
"Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena", section 3.3 and table 2).

Each verdict is by content: the output field the judge preferred (``answer_a`` /
``answer_b``), or ``tie``, once asked with the outputs in their order (A, B) and once
exchanged (B, A), the second reply already mapped back to the output it named.

- Position consistency: the share of pairs whose verdict is the same in both orders.
- Position bias: the share of pairs where the judge chose whatever was shown first both
  times (A when asked A, B; B when asked B, A), and likewise shown second.
- The conservative verdict: the shared verdict of a consistent pair; an inconsistent
  pair counts as a tie.
- Agreement with people: each person's choice against the judge's conservative verdict,
  with ties (every pair of votes) and without ties (only the pairs where neither voted
  tie), as MT-Bench's tables report them.

Shares come with n and the 95% Wilson score interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agreement.judge_probes import wilson_interval

TIE = "tie"


def _share(k: int, n: int, reason: str) -> dict[str, Any]:
    if n == 0:
        return {"value": None, "k": 0, "n": 0, "ci": None, "reason": reason}
    return {"value": k / n, "k": k, "n": n, "ci": list(wilson_interval(k, n))}


def position_consistency(
    ab: Mapping[str, str], ba: Mapping[str, str], first: str, second: str
) -> dict[str, Any]:
    """MT-Bench's consistency and position-bias shares over the items judged both ways
    (``first`` / ``second``: the output fields in their own order)."""
    items = sorted(set(ab) & set(ba))
    why = "no item judged in both orders"
    consistent = sum(ab[i] == ba[i] for i in items)
    # Shown first both times: A in the (A, B) order and B in the (B, A) order.
    first_both = sum(ab[i] == first and ba[i] == second for i in items)
    second_both = sum(ab[i] == second and ba[i] == first for i in items)
    n = len(items)
    return {
        "n": n,
        "consistency": _share(consistent, n, why),
        "biased_first": _share(first_both, n, why),
        "biased_second": _share(second_both, n, why),
        "other_inconsistent": _share(n - consistent - first_both - second_both, n, why),
    }


def conservative_verdicts(ab: Mapping[str, str], ba: Mapping[str, str]) -> dict[str, str]:
    """Per item judged both ways: the shared verdict, or ``tie`` when the two differ."""
    return {i: ab[i] if ab[i] == ba[i] else TIE for i in sorted(set(ab) & set(ba))}


def agreement_with_people(
    verdicts: Mapping[str, str], votes: list[tuple[str, str]]
) -> dict[str, Any]:
    """Each person's vote ``(item_id, choice)`` against the judge's verdict on the item:
    the share of equal pairs with ties and without ties."""
    pairs = [(verdicts[i], c) for i, c in votes if i in verdicts]
    no_tie = [(j, c) for j, c in pairs if TIE not in (j, c)]
    return {
        "with_ties": _share(
            sum(j == c for j, c in pairs), len(pairs), "no person voted on a judged item"
        ),
        "without_ties": _share(
            sum(j == c for j, c in no_tie),
            len(no_tie),
            "every pair of votes has a tie on one side",
        ),
    }
