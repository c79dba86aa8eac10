"""The evaluator registry. Evaluator modules live in ``evaluators/builtin/``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from common.registry import Registry
from evaluators.base import EvalContext, Evaluator, EvaluatorSettings

#: Entry point group through which installed packages add evaluators.
ENTRY_POINT_GROUP = "metric_audit.evaluators"


def _adopt(obj: object) -> None:
    """An entry point naming an evaluator class directly (not its module)."""
    if not (isinstance(obj, type) and issubclass(obj, Evaluator)):
        raise TypeError(f"{obj!r} is not an Evaluator subclass")
    EVALUATORS.add(obj.name, obj)


EVALUATORS: Registry[type[Evaluator]] = Registry(
    "evaluator", package="evaluators.builtin", entry_point_group=ENTRY_POINT_GROUP, adopt=_adopt
)


def register_evaluator(cls: type[Evaluator]) -> type[Evaluator]:
    """Class decorator: register an evaluator under its ``name``."""
    EVALUATORS.add(cls.name, cls)
    return cls


def get_evaluator_class(name: str) -> type[Evaluator]:
    """The evaluator class called ``name``; the error lists the known ones.

    ``judge:NAME[@N]`` names a stored custom judge: the class returned stands in for it
    (the definition is read from the store when a run starts, see ``jobs.runner``).
    """
    if name.startswith("judge:"):
        from evaluators.judges.evaluator import judge_class

        return judge_class(name)
    return EVALUATORS.get(name)


def evaluator_names() -> list[str]:
    """Every registered evaluator name."""
    return EVALUATORS.names()


def evaluators_for_kind(kind: str) -> list[str]:
    """Names of the evaluators that declare they apply to ``kind``."""
    return [n for n in EVALUATORS.names() if EVALUATORS.get(n).applies_to(kind)]


def create_evaluator(
    name: str,
    settings: EvaluatorSettings | Mapping[str, Any] | None = None,
    ctx: EvalContext | None = None,
) -> Evaluator:
    """Instantiate a registered evaluator with settings and context."""
    return get_evaluator_class(name)(settings, ctx)
