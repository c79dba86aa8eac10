"""Cache keys made from rendered prompts' pre-escaped JSON are the keys stored before."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from evaluators.builtin.intent_resolution import IntentRecord
from evaluators.llm.cache import (
    MemoryCache,
    cache_key,
    cache_key_parts,
    canonical_json,
    request_record,
)
from evaluators.llm.prompts import PromptTemplate, RenderedMessages, load_prompt
from tests.support.replies import INTENT_RESOLUTION_REPLY
from tests.support.scripted_llm import ScriptedLLM
from tests.test_llm_support import dumps, fast_llm_fixture, make_client

_fast_llm = fast_llm_fixture()

#: Values that exercise escaping: quotes, backslashes, control characters, non-ASCII,
#: surrounding blanks, empty text, braces.
VALUES = [
    "plain",
    'a "quoted" \\ back\\slash',
    "tab\there\nnew line\r\x00\x1f\x08\x0c\x7f",
    "é ü 漢字 \u2028 \U0001f600",
    "  leading and trailing blanks \n",
    "",
    "{braces} and {{not a placeholder}}",
]


def _canonical(value: Any) -> str:
    """The canonical form the stored keys hash: json.dumps, sorted keys, unescaped."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def test_a_stored_key_keeps_its_format() -> None:
    record = request_record(
        "m",
        {
            "messages": [{"role": "user", "content": 'say "hi" é\n'}],
            "temperature": 0.0,
            "max_tokens": 800,
        },
        "run:1",
    )
    # Computed by the key code before this change: existing caches must keep hitting.
    assert cache_key(record) == "83f0e5a4946c4103a72e401cbaa8653d7d4d9121fe58884badf66f2e60251550"
    assert canonical_json(record) == _canonical(record)


@pytest.mark.parametrize("value", VALUES)
def test_rendered_messages_bring_their_canonical_json(value: str) -> None:
    prompt = load_prompt("intent_resolution.v2")
    messages = prompt.render({"query": value, "response": value[::-1]})
    assert isinstance(messages, RenderedMessages)
    assert messages.canonical_json() == _canonical(list(messages))


@pytest.mark.parametrize(
    "text",
    [
        "[system]\nFixed only.\n[user]\n{{a}}",  # a value at both ends: strip reaches it
        "[user]\n  {{a}} and {{b}}  \n",
        "[user]\nQ: {{a}}\nA: {{b}}\n\n",
        "[system]\n\n[user]\nonly {{a}}.",  # an empty section is left out
        '[user]\n"quoted" \\ {{a}} tail\t',
    ],
)
@pytest.mark.parametrize("value", [*VALUES, "a [user] line"])  # "[": the reference path
def test_every_template_shape_gives_the_plain_json(text: str, value: str) -> None:
    prompt = PromptTemplate("t.v1", text, "0")
    messages = prompt.render({"a": value, "b": value + " x"})
    assert messages == prompt._render_text({"a": value, "b": value + " x"})
    canonical = getattr(messages, "canonical_json", lambda: _canonical(list(messages)))()
    assert canonical == _canonical(list(messages))


def test_a_changed_rendering_is_serialised_again() -> None:
    prompt = load_prompt("intent_resolution.v2")
    messages = prompt.render({"query": "q", "response": "r"})
    messages[-1]["content"] += " more"
    assert messages.canonical_json() is None
    messages = prompt.render({"query": "q", "response": "r"})
    messages.append({"role": "user", "content": "again"})
    assert messages.canonical_json() is None
    messages = prompt.render({"query": "q", "response": "r"})
    messages[0] = {"role": "system", "content": messages[0]["content"]}  # equal, not the same
    assert messages.canonical_json() is None


def test_keys_with_known_parts_are_the_plain_keys() -> None:
    schema = IntentRecord.model_json_schema()
    messages = load_prompt("intent_resolution.v2").render({"query": 'a "q"', "response": "é"})
    record = request_record(
        "m",
        {
            "messages": list(messages),
            "temperature": 0.0,
            "response_format": {"json_schema": schema},
        },
        "run:0",
    )
    known = {
        ("response_format", "json_schema"): canonical_json(schema),
        ("messages",): messages.canonical_json(),
    }
    assert cache_key_parts(record, known) == cache_key(record)


def test_a_rendered_prompt_hits_the_entry_a_plain_list_stored(fast_llm: ScriptedLLM) -> None:
    fast_llm.queue(dumps(INTENT_RESOLUTION_REPLY))
    cache = MemoryCache()
    messages = load_prompt("intent_resolution.v2").render({"query": "q", "response": "r"})
    first = asyncio.run(make_client(cache).complete_json(list(messages), IntentRecord))
    assert first.ok and not first.cached and fast_llm.calls == 1
    again = asyncio.run(make_client(cache).complete_json(messages, IntentRecord))
    assert again.ok and again.cached and fast_llm.calls == 1
    assert again.value == first.value
