"""Job states on the Evaluate page: loading model / evaluating, and the polled job list
(issue #16, point 6; the browser test is tests/e2e/test_evaluate_browser.py)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import pytest

from annotation_store import Store
from evaluators.base import EvalItem, EvalResult, Evaluator
from evaluators.registry import EVALUATORS
from jobs.worker import claim_next, evaluate_params, execute_job, first_phase, submit_evaluate_job
from tests.support.apptest import open_app
from ui.audit.jobs_view import _now

SEEN: list[dict] = []


class Peek(Evaluator):
    """A local stand-in that records the job's progress while it evaluates."""

    name = "test_peek"
    kinds: ClassVar[tuple[str, ...]] = ("score",)
    fields: ClassVar[tuple[str, ...]] = ("label",)
    store: ClassVar[Store | None] = None

    async def evaluate(self, items: Sequence[EvalItem]) -> list[EvalResult]:
        assert Peek.store is not None
        SEEN.append(Peek.store.jobs("p")[0].progress)
        return [EvalResult(i.item_id, self.signature(), scores={"label": 1.0}) for i in items]


@pytest.fixture(autouse=True)
def peek() -> Iterator[None]:
    EVALUATORS.add(Peek.name, Peek)
    SEEN.clear()
    yield
    EVALUATORS._entries.pop(Peek.name, None)


def _project(store: Store) -> None:
    store.create_project("p", "score")
    store.upsert_items("p", [{"item_id": f"t{i}", "fields": {"text": "x"}} for i in range(3)])


def test_a_local_evaluator_shows_loading_model_until_its_first_results(store: Store) -> None:
    _project(store)
    Peek.store = store
    job_id = submit_evaluate_job(store, "p", evaluate_params(["test_peek"]))
    assert claim_next(store) == job_id
    execute_job(store, job_id)
    phase = SEEN[0]["evaluators"]["test_peek"]["phase"]
    assert (SEEN[0]["current"], phase) == ("test_peek", "loading model")
    assert _now(SEEN[0], "running") == " · now: test_peek (loading model)"
    assert _now(SEEN[0], "done") == ""
    assert first_phase("intent_resolution") == "waiting for the LLM"


def test_the_job_list_polls_while_a_job_is_queued(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _project(store)
    env = {"WORKBENCH_JOBS_IN_APP": "0"}
    at = open_app(monkeypatch, store.url, page="pages/evaluate.py", project="p", env=env)
    assert "No job running." in [c.value for c in at.caption]
    at.multiselect(key="ev_names").set_value(["test_peek"])
    at.button[0].click().run()
    # Said once, as a toast: an element at the page's top outlived the job (the polling
    # fragment's reruns do not redraw it).
    assert [t.value for t in at.toast] == ["Job 1 queued."]
    assert not at.success
    assert any(m.value.startswith("**Job 1** :gray-badge[queued]") for m in at.markdown)
    # The worker finishes the job elsewhere; the (polled) list shows it in the history.
    assert claim_next(store) == 1
    execute_job(store, 1)
    at.run()
    assert not at.toast
    assert "No job running." in [c.value for c in at.caption]
    assert [s.value for s in at.subheader][:2] == ["Running", "History"]
    assert any(m.value.startswith("**Job 1** :green-badge[done]") for m in at.markdown)


def test_the_job_card_counts_tokens_and_cost_only_when_a_model_was_used() -> None:
    from ui.audit.jobs_view import progress_text

    lexical = {"done": 6, "total": 6, "failed": 0, "cached": 0}
    assert progress_text(lexical) == "6 / 6 done · 0 failed · 0 cached"
    unpriced = {**lexical, "cached": 1, "tokens_in": 60, "tokens_out": 1200, "cost": 0.0}
    assert progress_text(unpriced) == (
        "6 / 6 done · 0 failed · 1 cached · 1,260 tokens · price unknown"
    )
    priced = {**unpriced, "cost": 0.00213}
    assert progress_text(priced).endswith("1,260 tokens · $0.0021")


def test_resume_says_so_once_from_the_job_list(
    monkeypatch: pytest.MonkeyPatch, store: Store
) -> None:
    _project(store)
    job_id = submit_evaluate_job(store, "p", evaluate_params(["test_peek"]))
    store.update_job(job_id, status="failed", error="boom")
    env = {"WORKBENCH_JOBS_IN_APP": "0"}
    at = open_app(monkeypatch, store.url, page="pages/evaluate.py", project="p", env=env)
    at.button(key=f"job-resume-{job_id}").click().run()
    assert [t.value for t in at.toast] == [f"Job {job_id} resumed as job {job_id + 1}."]
    assert not at.success
    assert any(m.value.startswith(f"**Job {job_id + 1}** :gray-badge[queued]") for m in at.markdown)
    at.run()
    assert not at.toast
