"""The evaluator registry. Evaluator modules live in ``evaluators/builtin/``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from common.registry import Registry
from evaluators.base import EvalContext, Evaluator, EvaluatorSettings

#: Entry point group through which installed packages add evaluators.
ENTRY_POINT_GROUP = "metric_audit.evaluators"


def _adopt(obj: object) -> None:
    """An entry point naming an evaluator class directly (not its module)."""
    if not (isinstance(obj, type) and issubclass(obj, Evaluator)):
        raise TypeError(f"{obj!r} is not an Evaluator subclass")
    EVALUATORS.add(obj.name, obj)


BUILTIN_PACKAGE = "evaluators.builtin"


def _check(name: str, obj: object) -> None:
    """An evaluator entry is an ``Evaluator`` subclass registered under its own name."""
    if not (isinstance(obj, type) and issubclass(obj, Evaluator)):
        raise TypeError(f"evaluator {name!r}: {obj!r} is not an Evaluator subclass")
    if obj.name != name:
        raise TypeError(f"evaluator {name!r}: {obj.__qualname__} is named {obj.name!r}")


EVALUATORS: Registry[type[Evaluator[Any]]] = Registry(
    "evaluator",
    package=BUILTIN_PACKAGE,
    entry_point_group=ENTRY_POINT_GROUP,
    adopt=_adopt,
    check=_check,
)
E = TypeVar("E", bound=type[Evaluator[Any]])


def _register_builtins() -> None:
    """Every built-in as a lazy reference (importing ``evaluators.builtin`` is cheap)."""
    from evaluators import builtin

    for name, ref in builtin.BUILTIN.items():
        EVALUATORS.add_lazy(name, f"{builtin.__name__}.{ref}")


_register_builtins()


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
