"""The harness itself: the exports exist and the peers' code is the pinned release."""

from __future__ import annotations

from importlib.metadata import version

from conftest import of_format


def test_the_peer_tools_are_the_pinned_releases() -> None:
    assert version("potato-annotation") == "2.12.1"
    assert version("label-studio-sdk") == "2.1.2"
    assert version("argilla") == "2.8.0"
    assert version("langfuse") == "5.0.4"


def test_every_demo_project_is_exported_in_every_format(exports) -> None:
    demo = {e.project for e in exports if e.project.startswith("demo-")}
    assert {"demo-intent-match", "demo-actionability", "demo-dialogue"} <= demo
    for fmt in ("label-studio", "potato", "argilla", "langfuse", "langsmith"):
        written = {e.project for e in of_format(exports, fmt)}
        assert {"demo-intent-match", "demo-actionability"} <= written, fmt


def test_every_example_project_has_three_annotators_on_every_item(exports) -> None:
    examples = {e.project for e in exports if e.project.startswith("example-")}
    assert {"example-every-type", "example-error-spans", "example-ranked-answers"} <= examples
    for project in examples:
        mine = [e for e in exports if e.project == project and e.path is not None]
        items = max(e.count for e in mine if e.what == "items")
        states = [e.count for e in mine if e.format == "potato" and e.what == "annotations"]
        # Potato writes one user state per annotator and item
        assert states == [3 * items] and items > 0, project
