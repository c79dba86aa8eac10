"""Test fixtures for the Annotate page: one small project per task kind."""

from __future__ import annotations

from typing import Any

from annotation_store import Store

ITEMS: dict[str, list[dict[str, Any]]] = {
    "intent_match": [
        {
            "item_id": "im1",
            "fields": {
                "gold": "Book a table for two at an Italian restaurant in Paris on Friday at 8pm.",
                "predicted": "The user wants to reserve an Italian restaurant in Paris on Friday.",
                "gold_facts": [
                    "The user wants to book a table.",
                    "The party is two people.",
                    "The cuisine is Italian.",
                    "The city is Paris.",
                    "The time is Friday at 8pm.",
                ],
                "predicted_facts": [
                    "The user wants to reserve a restaurant.",
                    "The cuisine is Italian.",
                    "The city is Paris.",
                    "The day is Friday.",
                ],
            },
        },
        {
            "item_id": "im2",
            "fields": {
                "gold": "Set an alarm for 7am tomorrow.",
                "predicted": "Set an alarm.",
                "gold_facts": ["An alarm is set.", "The time is 7am tomorrow."],
                "predicted_facts": ["An alarm is set."],
            },
        },
    ],
    "actionability": [
        {
            "item_id": "ac1",
            "fields": {
                "claim": "The Eiffel Tower was completed in 1899 and is 500 metres tall.",
                "evidence": "The Eiffel Tower was completed in 1889. It is 330 metres tall.",
                "label": "false",
                "explanation": "The tower was finished in 1889, not 1899, and it is about 330 m "
                "tall. See https://en.wikipedia.org/wiki/Eiffel_Tower for details.",
            },
        },
    ],
    "dialogue_faithfulness": [
        {
            "item_id": "df1",
            "fields": {
                "service": "Restaurants_1",
                "act": {"act": "INFORM", "slot": "price_range", "values": ["moderate"]},
                "previous_turn": "How expensive is the place?",
                "utterance": "It is moderately priced, and they have live music on Fridays.",
                "slot_description": "Price range of the restaurant",
            },
        },
    ],
    "intent_resolution": [
        {
            "item_id": "ir1",
            "fields": {
                "query": "How do I bake a chocolate cake?",
                "response": "Mix 200 g flour, 200 g sugar, 50 g cocoa, 2 eggs and 200 ml milk, "
                "then bake at 180 °C for 35 minutes.",
            },
        },
    ],
    "binary": [
        {
            "item_id": "bn1",
            "fields": {
                "text": "Canberra is the capital of Australia.",
                "generator": "demo-model",
                "topic": "geography",
            },
        },
    ],
    "likert": [
        {
            "item_id": "lk1",
            "fields": {
                "text": "The summary keeps every key point.",
                "source": "news",
                "length": "42 words",
            },
        },
    ],
    "categorical": [
        {"item_id": "ct1", "fields": {"text": "I love this phone but the battery is bad."}},
    ],
    "score": [
        {"item_id": "sc1", "fields": {"text": "A score item."}},
    ],
}
SETTINGS: dict[str, dict[str, Any]] = {"categorical": {"labels": ["positive", "negative", "mixed"]}}


def make_project(
    store: Store, kind: str, name: str | None = None, k: int = 2, **settings: Any
) -> str:
    """Create a project of ``kind`` with its sample items; returns its name."""
    name = name or kind
    store.create_project(name, kind, {"k": k, **SETTINGS.get(kind, {}), **settings})
    store.upsert_items(name, ITEMS[kind])
    return name
