"""Display labels for evaluator configurations in tables, panels and reports.

Scores of one evaluator are pooled (averaged over repeated runs) only when they come from
the same configuration, i.e. the same judge model and the same signature (version, prompt
hash, settings). A label is the evaluator's name, plus ``@model`` when it ran with several
judge models, plus ``[...]`` naming what differs when one evaluator and model ran with
several signatures (``nli_bidirectional [settings:1a2b3c4d]``).

An NLI evaluator's model names the backend that ran (``llm:gpt-4o``,
``transformers:roberta-large-mnli``); its label always says so, in place of ``@model``:
``sgsacc (LLM-NLI: gpt-4o)``, ``sgsacc (NLI model: roberta-large-mnli)``. A backend
chosen by ``auto`` is never hidden behind the evaluator's name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from common.lazy import LazyModule

pd: Any = LazyModule("pandas")  # `evaluate` labels its runs without pandas
Config = tuple[str, str | None, str]  # evaluator, judge model, signature text ("" if none)
#: Model-name prefix of each NLI backend (see evaluators.nli.select) -> its display name.
NLI_BACKENDS = {"llm:": "LLM-NLI", "transformers:": "NLI model"}


def nli_backend_label(model: str | None) -> str | None:
    """``LLM-NLI: gpt-4o`` for an NLI evaluator's model name, None for any other model."""
    for prefix, name in NLI_BACKENDS.items():
        if model and model.startswith(prefix):
            return f"{name}: {model[len(prefix) :] or 'unknown'}"
    return None


def _text(value: Any) -> str | None:
    """None for missing values (None, NaN, pandas NA), else the string."""
    return None if pd.isna(value) else str(value)


def config_of(evaluator: Any, model: Any, signature: Any) -> Config:
    """The pooling key of one score row."""
    return (str(evaluator), _text(model), _text(signature) or "")


def config_labels(configs: Iterable[Config]) -> dict[Config, str]:
    """A distinct display label for every configuration (see the module docstring)."""
    configs = sorted(set(configs), key=lambda c: (c[0], c[1] or "", c[2]))
    models: dict[str, set[str | None]] = {}
    sigs: dict[tuple[str, str | None], list[str]] = {}
    for ev, model, sig in configs:
        models.setdefault(ev, set()).add(model)
        sigs.setdefault((ev, model), []).append(sig)
    out = {}
    for ev, model, sig in configs:
        backend = nli_backend_label(model)
        if backend:
            label = f"{ev} ({backend})"
        else:
            label = ev if len(models[ev]) <= 1 else f"{ev}@{model or 'unknown'}"
        group = sigs[(ev, model)]
        if len(group) > 1:
            label += _differences(ev, sig, group)
        out[(ev, model, sig)] = label
    return out


def _differences(evaluator: str, sig: str, group: list[str]) -> str:
    """`` v2`` when the evaluator's version tells the signatures apart (a new version
    implies its new prompt hash), plus ``[...]`` naming any other part that differs."""
    shared = set.intersection(*(set(s.split("|")) for s in group))
    differs = [part for part in sig.split("|") if part not in shared]
    version = next((p for p in differs if p.startswith(f"{evaluator}:")), None)
    if version is None:
        return f" [{', '.join(differs) or 'no signature'}]"
    rest = [p for p in differs if p != version and not p.startswith("prompt:")]
    return f" v{version[len(evaluator) + 1 :]}" + (f" [{', '.join(rest)}]" if rest else "")


def evaluator_of(label: str) -> str:
    """The evaluator name in a label made by :func:`config_labels`."""
    name = label.split(" [", 1)[0].split(" (", 1)[0].split("@", 1)[0]
    return re.sub(r" v[^ ]+$", "", name)
