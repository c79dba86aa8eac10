"""Prompts and guidelines are written in our own words: no long run of words is shared
with the papers the methods come from (their worked examples included)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evaluators.llm.prompts import PROMPT_DIR
from kinds import get_kind, kind_names


def _papers_dir() -> Path:
    """``shared/papers`` beside the repository (a worktree sits one level deeper)."""
    for d in Path(__file__).resolve().parents[1:4]:
        if (d / "shared" / "papers").is_dir():
            return d / "shared" / "papers"
    return Path(__file__).resolve().parents[2] / "shared" / "papers"


PAPERS = _papers_dir()
RUN = 12  # words in a row


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(text: str) -> set[tuple[str, ...]]:
    w = _words(text)
    return {tuple(w[i : i + RUN]) for i in range(len(w) - RUN + 1)}


@pytest.fixture(scope="module")
def paper_runs() -> set[tuple[str, ...]]:
    papers = [p for p in PAPERS.glob("*") if p.is_file() and p.name != "README.md"]
    if not papers:
        pytest.skip(f"papers not found at {PAPERS}")
    return set().union(*(_runs(p.read_text(encoding="utf-8", errors="ignore")) for p in papers))


def test_the_check_finds_a_copied_sentence(paper_runs):
    # a sentence of the Bi-Fact paper's one-shot example, as v1 of the prompt had it
    copied = "Reference intent: Set an alarm for today at 7 AM with a 5-minute snooze."
    assert _runs(copied) & paper_runs


@pytest.mark.parametrize("path", sorted(PROMPT_DIR.glob("*.md")), ids=lambda p: p.name)
def test_prompt_shares_no_long_run_with_the_papers(path, paper_runs):
    shared = _runs(path.read_text(encoding="utf-8")) & paper_runs
    assert not shared, [" ".join(r) for r in sorted(shared)[:3]]


def test_kind_guidelines_share_no_long_run_with_the_papers(paper_runs):
    for kind in map(get_kind, kind_names()):
        shared = _runs(kind.guideline) & paper_runs
        assert not shared, (kind.name, [" ".join(r) for r in sorted(shared)[:3]])


def test_replaced_paper_examples_are_gone():
    texts = {p.name: p.read_text(encoding="utf-8") for p in PROMPT_DIR.glob("*.md")}
    assert not [n for n, t in texts.items() if "alarm" in t.lower()]
    assert not [n for n, t in texts.items() if "earth is" in t.lower()]
    guideline = get_kind("actionability").guideline
    assert "Earth" not in guideline and "Jupiter" not in guideline
