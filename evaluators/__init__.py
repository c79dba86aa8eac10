"""Automatic evaluators: a registry of evaluator classes, one module each in ``builtin/``."""

from evaluators.base import (
    EvalContext,
    EvalItem,
    EvalResult,
    Evaluator,
    EvaluatorSettings,
    NotConfiguredError,
    Signature,
)
from evaluators.registry import (
    create_evaluator,
    evaluator_names,
    evaluators_for_kind,
    get_evaluator_class,
    register_evaluator,
)

__all__ = [
    "EvalContext",
    "EvalItem",
    "EvalResult",
    "Evaluator",
    "EvaluatorSettings",
    "NotConfiguredError",
    "Signature",
    "create_evaluator",
    "evaluator_names",
    "evaluators_for_kind",
    "get_evaluator_class",
    "register_evaluator",
]
