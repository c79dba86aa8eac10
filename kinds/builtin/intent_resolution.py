"""Intent resolution: does a response resolve the intent of a user's query (0.0-1.0)?"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kinds.base import FieldType, HumanField, ItemField, TaskKind
from kinds.registry import register_kind

LEVELS = {
    0.0: "ignores the request or answers something else",
    0.2: "touches the topic but gives nothing the user can use",
    0.4: "partly addresses the intent with major gaps or errors",
    0.6: "addresses the main intent but misses important parts",
    0.8: "resolves the intent with minor omissions",
    1.0: "fully and accurately resolves the intent",
}

GUIDELINE = (
    """\
**Task.** Read the user's query and work out what they actually want. Then read the
response and decide how completely and correctly it gives them that. Judge resolution of
the intent, not style or length. Pick one level:

"""
    + "\n".join(f"- **{k:.1f}**: {v}" for k, v in LEVELS.items())
    + """

*Example.* Query "How do I bake a chocolate cake?"; a response with a full ingredient list
and step-by-step method is 1.0; one that only lists ingredients is about 0.4.
"""
)


def _human_fields(settings: Mapping[str, Any]) -> tuple[HumanField, ...]:
    return (
        HumanField(
            "resolution",
            FieldType.ORDINAL,
            "How well does the response resolve the query's intent?",
            values=tuple(LEVELS),
            level_descriptions=LEVELS,
        ),
    )


INTENT_RESOLUTION = register_kind(
    TaskKind(
        name="intent_resolution",
        title="Intent resolution",
        description="A query and a response; how far the response resolves the intent.",
        item_fields=(
            ItemField("query", description="the user's query"),
            ItemField("response", description="the response to judge"),
            ItemField("generator", required=False, hidden=True, description="model that responded"),
        ),
        human_fields_fn=_human_fields,
        guideline=GUIDELINE,
    )
)
