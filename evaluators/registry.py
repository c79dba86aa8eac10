"""The evaluator registry. Evaluator modules live in ``evaluators/builtin/``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from common.registry import Registry, source_index
from evaluators.base import EvalContext, Evaluator, EvaluatorSettings

#: Entry point group through which installed packages add evaluators.
ENTRY_POINT_GROUP = "metric_audit.evaluators"


def _adopt(obj: object) -> None:
    """An entry point naming an evaluator class directly (not its module)."""
    if not (isinstance(obj, type) and issubclass(obj, Evaluator)):
        raise TypeError(f"{obj!r} is not an Evaluator subclass")
    EVALUATORS.add(obj.name, obj)


#: A class-level ``name = "..."`` in a built-in module: the name the module registers.
#: The index is only a shortcut (a name it misses is found by full discovery), so that a
#: new evaluator stays one file with no list to edit.
NAME_IN_SOURCE = r"""^    name(?:\s*:\s*[\w\[\]]+)?\s*=\s*["']([^"'\s]+)["']"""
BUILTIN_PACKAGE = "evaluators.builtin"


def builtin_index() -> dict[str, str]:
    """evaluator name -> built-in module that registers it, read from the source."""
    return source_index(BUILTIN_PACKAGE, NAME_IN_SOURCE)


EVALUATORS: Registry[type[Evaluator[Any]]] = Registry(
    "evaluator",
    package=BUILTIN_PACKAGE,
    entry_point_group=ENTRY_POINT_GROUP,
    adopt=_adopt,
    index=builtin_index,
)
E = TypeVar("E", bound=type[Evaluator[Any]])


def register_evaluator(cls: E) -> E:
    """Class decorator: register an evaluator under its ``name``."""
    EVALUATORS.add(cls.name, cls)
    return cls


def get_evaluator_class(name: str) -> type[Evaluator[Any]]:
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
    return [n for n in EVALUATORS.names() if EVALUATORS.read(n, lambda c: c.applies_to(kind))]


def create_evaluator(
    name: str,
    settings: EvaluatorSettings | Mapping[str, Any] | None = None,
    ctx: EvalContext | None = None,
) -> Evaluator[Any]:
    """Instantiate a registered evaluator with settings and context."""
    return get_evaluator_class(name)(settings, ctx)


def registry_scales(labels: Iterable[str], field_name: str) -> dict[str, tuple[float, float]]:
    """label -> the registered evaluator's own scale for ``field_name`` (BLEU's 0-100 ...).

    Labels are evaluator configuration labels (:mod:`common.evaluator_labels`); evaluators
    that are not registered (imported scores of an unknown metric) and fields without an
    own scale are left out.
    """
    from common.evaluator_labels import evaluator_of  # pandas: only when needed

    out = {}
    for label in labels:
        name = evaluator_of(label)
        if name in EVALUATORS:
            scale = EVALUATORS.get(name).scales.get(field_name)
            if scale is not None:
                out[label] = (float(scale[0]), float(scale[1]))
    return out
