"""What a statistic among people is computed from: one variable and the bootstrap setup."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agreement.ratings import Ratings

#: Default of the project setting ``min_pair_overlap``: a Cohen pair sharing fewer items
#: is shown greyed out and left out of the pair mean (one odd item swings it to +-1).
MIN_PAIR_OVERLAP = 5


@dataclass
class StatContext:
    """One variable's ratings, its field type and the bootstrap setup.

    ``levels`` are the alpha levels of the field; ``categorical`` says whether
    Fleiss' and Cohen's kappa make sense (not for continuous scores), ``ordinal`` adds
    the weighted Cohen pairs, and Cohen pairs sharing fewer than ``min_pair_overlap``
    items stay out of the pair mean.
    """

    ratings: Ratings
    type: str
    n_resamples: int
    seed: int
    cache: dict[str, Any] = field(default_factory=dict)
    levels: tuple[str, ...] = ()
    categorical: bool = True
    ordinal: bool = False
    min_pair_overlap: int = MIN_PAIR_OVERLAP
    #: every annotator pair in the document, however many annotators (else a crowd's
    #: pairs are summarised: ``agreement.people_measures.PAIR_LIST_MAX``)
    all_pairs: bool = False

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` computed once per variable (e.g. one ICC fit for six forms)."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]
