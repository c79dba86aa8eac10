"""Real browser: two Prolific workers through a crowd study (issue #18).

One fails the training and is stopped; the other passes (both practise in the annotation
panel, by keys), annotates three items (one of them gold) in the Annotate page's fast lane, answers the survey, sees the completion code and is sent back to Prolific.
The store must hold exactly what each of them did.
"""

from __future__ import annotations

import pytest

from annotation_store import Store
from crowd import study_quality as cq
from crowd import workers as crowd
from studies import gold
from studies.flow_settings import set_study
from tests.e2e.harness import browser_page, open_page, running_app, wait_for_streamlit, wait_until
from tests.support.crowd import DONE_URL, STUDY, TOKEN

pytestmark = pytest.mark.e2e
LANE = "#wb-lane"
#: Study links work in crowd (or local) sign-in mode, never in single mode.
CROWD_MODE = {"WORKBENCH_AUTH_MODE": "crowd"}


def _link(worker: str, token: str = TOKEN) -> str:
    return f"?study=p&token={token}&PROLIFIC_PID={worker}&STUDY_ID=ST1&SESSION_ID=SE-{worker}"


def _main(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def _see(page, text: str) -> str:
    """Wait until the main area shows ``text`` (a click's rerun may redraw twice)."""
    wait_until(page, lambda: text in _main(page), lambda: f"{text!r} never shown: {_main(page)}")
    return _main(page)


def _click(page, name: str) -> None:
    page.get_by_role("button", name=name).click()
    wait_for_streamlit(page)


def _answer_training(page, number: int, key: str) -> tuple[str, list[str]]:
    """Practice item ``number`` in the annotation panel, answered by ``key`` and Enter;
    the verdict, then Enter again to go on. Returns the panel's text with the verdict,
    and the names of the options marked as the expected answer."""
    page.wait_for_selector(f"{LANE} h4:has-text('practice item {number} of 2')")
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{LANE} [data-testid=wbPractice]")
    # the focus is on Continue: Enter goes on (and never answers again)
    assert page.evaluate("() => document.activeElement.dataset.fid") == "continue"
    shown = page.locator(LANE).inner_text()
    gold = [
        b.get_attribute("aria-label") or "" for b in page.locator(f"{LANE} button.wb-gold").all()
    ]
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{LANE} [data-testid=wbPractice]", state="detached")
    return shown, gold


def _start(page, app, worker: str) -> None:
    open_page(page, app, _link(worker))
    _see(page, "Do you take part?")
    _click(page, "I agree, start")
    _see(page, "Say 1 when the statement is true.")
    _click(page, "I have read the guideline")


def test_prolific_workers_fail_and_pass_qualification_and_complete(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 2}, guideline="Say 1 when the statement is true.")
    store.upsert_items(
        "p", [{"item_id": f"i{n}", "fields": {"text": f"Statement {n}"}} for n in range(3)]
    )
    set_study(store, "p", STUDY)
    gold.set_gold(store, "p", "i2", 1, "Statement 2 is true.")
    with running_app(sqlite_url, CROWD_MODE) as app:
        with browser_page() as page:  # a stranger without the token
            open_page(page, app, _link("NOPE", token="guess"))
            _see(page, "token does not match")
        with browser_page() as page:  # the worker who fails the training
            _start(page, app, "FAILER")
            first, expected = _answer_training(page, 1, "n")
            assert "Not quite. The expected answer is Yes (1) or no (0): yes." in first
            assert "Fresh snow reflects all colours." in first
            assert expected == ["yes (expected answer) · Yes (1) or no (0)"]
            assert "Right." in _answer_training(page, 2, "n")[0]
            _see(page, "did not reach the level this study needs")
        with browser_page() as page:  # the worker who passes and completes
            page.route(f"{DONE_URL}**", lambda route: route.fulfill(body="back on Prolific"))
            _start(page, app, "PASSER")
            assert "Right." in _answer_training(page, 1, "y")[0]
            assert "Right." in _answer_training(page, 2, "n")[0]
            # the items are labelled in the fast lane's panel, blind (display numbers)
            lane = page.wait_for_selector("#wb-lane h4:has-text('item 1')")
            assert "i0" not in lane.inner_text()
            for n in range(3):
                wait_until(page, lambda: "Submit" in _main(page), "no item to label")
                page.keyboard.press("1")
                wait_until(
                    page,
                    lambda n=n: len(store.annotations_frame("p", ("draft", "submitted"))) > n,
                    "the label was not saved",
                )
                wait_for_streamlit(page)
                page.keyboard.press("Enter")
                wait_until(
                    page,
                    lambda n=n: len(store.annotations_frame("p")) > n,
                    "the item was not submitted",
                )
                wait_for_streamlit(page)
            wait_until(page, lambda: "How clear was the task?" in _main(page), "no survey")
            page.locator('[data-testid="stRadio"]').get_by_text("4", exact=True).click()
            page.get_by_label("Any comments?").fill("clear enough")
            _click(page, "Finish")
            _see(page, "CRWD-9")
            href = page.get_by_role("link", name="Return to Prolific").get_attribute("href")
            assert href == f"{DONE_URL}?cc=CRWD-9"
            page.wait_for_url(f"{DONE_URL}?cc=CRWD-9", timeout=15_000)
    people = {p.annotator: p for p in crowd.participants(store, "p")}
    assert set(people) == {"prolific:FAILER", "prolific:PASSER"}  # the stranger left nothing
    failer, passer = people["prolific:FAILER"], people["prolific:PASSER"]
    assert (failer.stage, failer.qualified, failer.consent) == ("not_qualified", False, True)
    assert [(a["id"], a["answers"], a["correct"]) for a in failer.training] == [
        ("t1", {"label": 0}, False),
        ("t2", {"label": 0}, True),
    ]
    assert failer.platform_ids == {
        "PROLIFIC_PID": "FAILER",
        "STUDY_ID": "ST1",
        "SESSION_ID": "SE-FAILER",
    }
    assert (passer.stage, passer.qualified, passer.completion_code) == ("done", True, "CRWD-9")
    assert passer.survey == {"clear": 4, "comments": "clear enough"}
    labels = store.annotations_frame("p", ("draft", "submitted", "skipped"))
    assert labels[["item_id", "annotator", "value", "status"]].values.tolist() == [
        ["i0", "prolific:PASSER", 1, "submitted"],
        ["i1", "prolific:PASSER", 1, "submitted"],
        ["i2", "prolific:PASSER", 1, "submitted"],
    ]
    assert gold.gold_accuracy(store, "p") == {"prolific:PASSER": (1, 1)}
    times = cq.active_times(store, "p")
    assert sorted(times["item_id"]) == ["i0", "i1", "i2"]
    assert (times["active_seconds"] > 0).all()


def test_an_mturk_worker_hands_the_assignment_back_to_mturk(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    store.create_project("m", "binary", {"k": 1}, guideline="Say 1 when the statement is true.")
    store.upsert_items("m", [{"item_id": "i0", "fields": {"text": "Statement 0"}}])
    set_study(
        store,
        "m",
        {"crowd": True, "token": TOKEN, "completion_code": "MT-5", "mturk_sandbox": True},
    )
    submit = "https://workersandbox.mturk.com/mturk/externalSubmit"
    link = f"?study=m&token={TOKEN}&hitId=H1&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com"
    posted: list[str] = []

    def handed_back(route) -> None:
        posted.append(route.request.post_data or "")
        route.fulfill(body="back on MTurk")

    with running_app(sqlite_url, CROWD_MODE) as app:
        with browser_page() as page:  # the HIT's preview, before it is accepted
            open_page(page, app, f"{link}&assignmentId={crowd.MTURK_PREVIEW}")
            _see(page, "accept the HIT to start")
        with browser_page() as page:
            page.route(submit, handed_back)
            open_page(page, app, f"{link}&assignmentId=A1&workerId=W1")
            _see(page, "Say 1 when the statement is true.")
            _click(page, "I have read the guideline")
            wait_until(page, lambda: "Submit" in _main(page), "no item to label")
            page.keyboard.press("1")
            wait_until(
                page,
                lambda: len(store.annotations_frame("m", ("draft", "submitted"))) == 1,
                "the label was not saved",
            )
            wait_for_streamlit(page)
            page.keyboard.press("Enter")
            _see(page, "MT-5")
            page.get_by_role("button", name="Submit the HIT").click()
            page.wait_for_url(submit, timeout=15_000)
    assert posted == ["assignmentId=A1&completionCode=MT-5"]
    [worker] = crowd.participants(store, "m")  # the preview stored nobody
    assert (worker.annotator, worker.stage, worker.completion_code) == ("mturk:W1", "done", "MT-5")


def test_a_study_link_in_single_mode_is_refused_and_stores_nobody(
    sqlite_url: str,
) -> None:
    store = Store(sqlite_url)
    store.create_project("p", "binary", {"k": 2})
    store.upsert_items("p", [{"item_id": "i0", "fields": {"text": "Statement 0"}}])
    set_study(store, "p", STUDY)
    with running_app(sqlite_url) as app, browser_page() as page:  # make run: single mode
        open_page(page, app, _link("W1"))
        _see(page, "do not work while the workbench runs in single sign-in mode")
        assert page.get_by_role("button", name="I agree, start").count() == 0
    assert store.annotator("prolific:W1") is None and crowd.participants(store, "p") == []
