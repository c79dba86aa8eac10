"""The study flow around the Annotate page: consent, guideline, training, annotation,
survey and the completion page. The stage lives in the store (``crowd.workers``),
so a worker who comes back resumes where they were."""

from __future__ import annotations

from html import escape

import streamlit as st

from annotating import actions
from annotation_store import AnnotatorInfo, ProjectInfo, Store
from crowd import ending as crowd_end
from crowd import workers as crowd
from studies.flow_settings import StudySettings, study_of
from ui.annotation import client_assets
from ui.annotation.page import render as render_annotate
from ui.safe_markdown import no_images
from ui.study.training import render_training

ENDINGS = {
    "declined": "You chose not to take part. Thank you for your time; you can close this page.",
    "not_qualified": (
        "Thank you for doing the practice items. Your answers did not reach the level this "
        "study needs, so it ends here for you."
    ),
    "stopped": (
        "Thank you. Some of your answers on check items did not match, so this study ends "
        "here for you."
    ),
    "full": (
        "Thank you for coming. This study is full: every item already has the answers it "
        "needs, so there is nothing left for you to do."
    ),
    "incomplete": (
        "Thank you. There are no more items for you, and you skipped too many of them to "
        "complete this study's quota, so it ends here for you without a completion code."
    ),
}
#: What a worker who stops early should do on their platform (no completion code for them).
RETURN_HINTS = {
    "prolific": " On Prolific, please return your submission so your place goes to someone else.",
    "mturk": " On MTurk, please return the HIT.",
}
#: A worker who completed the study and came back on another assignment.
PAID_ALREADY = (
    "You have already completed this study, and your code went with an earlier "
    "assignment. There is nothing more to do or to submit here."
)
REDIRECT_SECONDS = 5


def render_study(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    """Draw the worker's current stage (plain annotation when the project has no flow)."""
    study = study_of(project.settings)
    if not study.active or user.role != "annotator":
        render_annotate(store, project, user)
        return
    part = crowd.participant(store, project.name, user.name) or crowd.join(
        store, project.name, user.name
    )
    stage = part.stage
    if stage == "consent":
        _consent(store, project, user, study)
    elif stage == "guideline":
        _guideline(store, project, user)
    elif stage == "training":
        render_training(store, project, user, study)
    elif stage == "annotate":
        _annotate(store, project, user)
    elif stage == "survey":
        _survey(store, project, user, study)
    elif stage == "done":
        _completion(study, part)
    else:
        _ended(study, part)


def _ended(study: StudySettings, part: crowd.Participant) -> None:
    """A worker the flow stopped: thanks, and either the screen-out code or how to return."""
    ending = ENDINGS.get(part.stage, "This study has ended for you.")
    if part.stage == "full":
        _full(part, ending)
        return
    code = part.completion_code if part.stage in crowd.SCREENED else None
    if not code:
        if part.stage in crowd.SCREENED:  # the code's way back replaces "close this page"
            ending += " You can close this page."
        st.info(ending + RETURN_HINTS.get(part.platform, ""), icon=":material/waving_hand:")
        return
    st.info(ending, icon=":material/waving_hand:")
    st.markdown("Your screen-out code for Prolific:")
    st.code(code, language=None)
    url = crowd.screenout_url(study)
    if url:
        st.link_button("Return to Prolific", url, type="primary")


def _full(part: crowd.Participant, ending: str) -> None:
    """The "study full" ending: its own code (never the completion code); MTurk workers
    return the HIT instead (MTurk takes no such code)."""
    if part.platform == "mturk":
        st.info(ending + RETURN_HINTS["mturk"], icon=":material/group_off:")
        return
    st.info(ending, icon=":material/group_off:")
    st.markdown("Your **study full** code (it is not a completion code):")
    st.code(part.completion_code or "", language=None)
    st.caption("Give this code to your platform as the study asks; you can close this page.")


def _consent(store: Store, project: ProjectInfo, user: AnnotatorInfo, study: StudySettings) -> None:
    st.subheader("Before you start")
    with st.container(border=True):
        st.markdown(no_images(study.consent))
    left, right = st.columns(2)
    if left.button("I agree, start", type="primary", key="consent_yes"):
        crowd.record_consent(store, project.name, user.name, True)
        st.rerun()
    if right.button("I do not agree", key="consent_no"):
        crowd.record_consent(store, project.name, user.name, False)
        st.rerun()


def _guideline(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    st.subheader("Guideline")
    st.caption("Read the guideline first; it stays available beside every item.")
    with st.container(border=True):
        st.markdown(no_images(project.guideline or "_No guideline yet._"))
    if st.button("I have read the guideline", type="primary", key="guideline_read"):
        crowd.record_guideline_opened(store, project.name, user.name)
        st.rerun()


def _annotate(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    # the study's checks before each item (gold stop, an empty queue ends annotation)
    if actions.study_gate(store, project, user, finish_when_empty=True) != "annotate":
        st.rerun()
    render_annotate(store, project, user)


def _survey(store: Store, project: ProjectInfo, user: AnnotatorInfo, study: StudySettings) -> None:
    st.subheader("A few last questions")
    with st.form("survey"):
        answers = {}
        for q in study.survey:
            key = f"survey::{q.id}"
            if q.type == "likert":
                answers[q.id] = st.radio(
                    q.text, list(range(q.low, q.high + 1)), index=None, horizontal=True, key=key
                )
            else:
                answers[q.id] = st.text_area(q.text, key=key)
        sent = st.form_submit_button("Finish", type="primary")
    if sent:
        crowd_end.record_survey(store, project.name, user.name, answers)
        st.rerun()


def _completion(study: StudySettings, part: crowd.Participant) -> None:
    if crowd.paid_elsewhere(part):  # back on a new assignment: no second payment
        st.info(PAID_ALREADY + RETURN_HINTS.get(part.platform, ""), icon=":material/task_alt:")
        return
    code = part.completion_code or ""
    st.subheader("Thank you!")
    st.markdown("Your completion code:")
    st.code(code, language=None)
    url = crowd.completion_url(study, code) if part.platform == "prolific" else ""
    if url:
        st.link_button("Return to Prolific", url, type="primary")
        # a countdown with a button to stay (ui/annotation/client/completion_redirect.js)
        config = {"url": url, "seconds": REDIRECT_SECONDS, "platform": "Prolific"}
        script = client_assets.script("completion_redirect.js", config, code)
        st.html(script, unsafe_allow_javascript=True)
    elif part.platform == "mturk":
        _mturk_submit(study, part, code)


def _mturk_submit(study: StudySettings, part: crowd.Participant, code: str) -> None:
    """Hand the assignment back to MTurk: a form posting to its externalSubmit (the page
    runs inside the HIT's frame; production or sandbox as the study's settings say), or
    the code to paste when the link carried no assignment."""
    action = crowd.mturk_submit_url(study)
    assignment = str(part.platform_ids.get("assignmentId") or "")
    if not assignment:
        st.caption("Paste the code into the HIT on Mechanical Turk to finish.")
        return
    st.html(
        f'<form method="POST" action="{escape(action)}">'
        f'<input type="hidden" name="assignmentId" value="{escape(assignment)}">'
        f'<input type="hidden" name="completionCode" value="{escape(code)}">'
        '<button type="submit" style="padding:0.5rem 1rem;border-radius:0.5rem;'
        'border:none;background:#b3261e;color:white;font-size:1rem;cursor:pointer">'
        "Submit the HIT</button></form>",
        unsafe_allow_javascript=True,
    )
    st.caption("Submitting hands the HIT back to Mechanical Turk with your code.")
