"""Judge prompt templates: Jinja2's sandbox, undefined names as errors, no attribute access.

The sandbox already refuses unsafe attributes at render time; we also refuse, at save
time, any attribute or key that starts with an underscore, so ``{{ ''.__class__ }}`` never
reaches a stored version. Values are plain strings and lists from the item. A rendered
prompt is bounded in size (``template_bounds``): refused at save (the trial render) and
at render, with the limit named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError, meta, nodes
from jinja2.exceptions import SecurityError, UndefinedError

from evaluators.judges.template_bounds import BoundedSandbox, PromptTooLarge, joined_within_bound


class TemplateError(ValueError):
    """A template that cannot be saved or rendered; the message says why."""


@lru_cache(maxsize=1)
def _env() -> BoundedSandbox:
    return BoundedSandbox(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)


def check_template(text: str, allowed_names: Iterable[str]) -> set[str]:
    """The item fields ``text`` uses; TemplateError for bad syntax, unknown names or
    attribute access (``__class__``, ``_private``)."""
    env = _env()
    try:
        tree = env.parse(text)
    except TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error on line {exc.lineno}: {exc.message}") from None
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        key = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(key, str) and key.startswith("_"):
            raise TemplateError(
                f"template refused: it reaches the attribute {key!r}; "
                "templates may only use item fields by name"
            )
    used = set(meta.find_undeclared_variables(tree))
    unknown = sorted(used - set(allowed_names))
    if unknown:
        raise TemplateError(
            f"template uses unknown field(s) {unknown}; item fields: {sorted(allowed_names)}"
        )
    return used


def render_template(text: str, values: Mapping[str, Any]) -> str:
    """``text`` rendered with ``values``; TemplateError for a missing value or a refused
    attribute (the sandbox's own check, also at render time)."""
    try:
        return joined_within_bound(_env().from_string(text).generate(**dict(values)))
    except PromptTooLarge as exc:
        raise TemplateError(f"template refused: {exc}") from None
    except SecurityError as exc:
        raise TemplateError(f"template refused by the sandbox: {exc}") from None
    except UndefinedError as exc:
        raise TemplateError(f"template needs a value it was not given: {exc}") from None
    except TemplateSyntaxError as exc:
        raise TemplateError(f"template syntax error on line {exc.lineno}: {exc.message}") from None


def trial_render(text: str, values: Mapping[str, Any]) -> None:
    """Render once with stand-in values: TemplateError when the sandbox refuses something
    (``|attr('__class__')`` hides from the parse check); a missing key is not an error here."""
    try:
        joined_within_bound(_env().from_string(text).generate(**dict(values)))
    except PromptTooLarge as exc:
        raise TemplateError(f"template refused: {exc}") from None
    except SecurityError as exc:
        raise TemplateError(f"template refused by the sandbox: {exc}") from None
    except Exception:  # stand-in values may not fit; only refusals count
        return
