"""The Annotate page: pick the item (URL ``?item=``), draw its view, save, submit, move on.

Speed: labelling is the hot path. The item area (header, view, note) and the side column
are two ``st.fragment``s, so a label key or click reruns only the item area, with the
item, project and queue figures it was given (no reloading, no sidebar, no agreement
panel, no side column). The action bar (submit, previous / next, skip, flag) sits outside
the fragments: those change the item or its standing, so they rerun the whole page at
once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from annotating import actions
from annotating.actions import ActionRefused
from annotation_store import AnnotatorInfo, ItemRecord, ProjectInfo, Store, StoreError
from studies import assignments as asg
from studies.flow_settings import study_of
from ui import active_time, keyboard
from ui.annotation import client_assets, view_for
from ui.annotation.blind import (
    blinded_item,
    may_see_evaluators,
    may_see_item_ids,
    may_see_others,
    submitted_is_final,
)
from ui.annotation.context import (
    ERROR_KEY,
    MISSING_KEY,
    ItemContext,
    build_targets,
    missing_answers,
    set_focus,
)
from ui.annotation.fast_lane_view import fast_lane
from ui.annotation.instant_keys import instant_keys
from ui.safe_markdown import no_images
from ui.tables import DASH

NOTICE_KEY = "annotate_notice"
#: Session keys of the side column's expanders (open or closed), kept from item to item.
EVALUATORS_OPEN_KEY = "annotate_side_evaluators"
OTHERS_OPEN_KEY = "annotate_side_others"
REVIEW_ROLES = ("admin", "reviewer")


# -- item choice ------------------------------------------------------------------------
@dataclass(frozen=True)
class Address:
    """How the item in view is named on screen and in the URL (``?item=``).

    Reviewers and admins see real item ids. Annotators see a neutral number, the item's
    place in their own order of work: ids often encode the answer or the condition.
    """

    store: Store
    project: ProjectInfo
    user: AnnotatorInfo

    @property
    def shows_ids(self) -> bool:
        """True when real item ids may be shown."""
        return may_see_item_ids(self.user.role, self.project.settings)

    def number(self, item_id: str) -> int | None:
        """The annotator's display number of ``item_id`` (None when never handed out)."""
        order = asg.display_order(self.store, self.project.name, self.user.name)
        return order.index(item_id) + 1 if item_id in order else None

    def label(self, item_id: str) -> str:
        """The item's name on screen: its id, or "item N"."""
        if self.shows_ids:
            return f"`{item_id}`"
        n = self.number(item_id)
        return f"item {n}" if n is not None else "this item"

    def to_url(self, item_id: str) -> str:
        """The ``?item=`` value for ``item_id``."""
        if self.shows_ids:
            return item_id
        n = self.number(item_id)
        return str(n) if n is not None else ""

    def from_url(self, value: str) -> str | None:
        """The item id a ``?item=`` value names, or None."""
        if self.shows_ids:
            return value
        order = asg.display_order(self.store, self.project.name, self.user.name)
        if value.isdigit() and 1 <= int(value) <= len(order):
            return order[int(value) - 1]
        return None


def _address(ctx: ItemContext) -> Address:
    return Address(ctx.store, ctx.project, ctx.user)


def _goto(address: Address, item_id: str | None) -> None:
    wanted = address.to_url(item_id) if item_id is not None else ""
    if wanted:
        st.query_params["item"] = wanted
    else:
        st.query_params.pop("item", None)


def _refresh(ctx: ItemContext) -> ItemContext:
    """``ctx`` with the saved state read again (labels given since the page was drawn)."""
    ctx.state = ctx.store.item_state(ctx.project.name, ctx.item.item_id, ctx.user.name)
    return ctx


def _current_item(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> str | None:
    address = Address(store, project, user)
    asked = st.query_params.get("item")
    if asked:
        wanted = address.from_url(asked)
        try:
            if wanted is None:
                raise StoreError(asked)
            store.item(project.name, wanted)
        except StoreError:
            st.warning(f"There is no item **{asked}** for you in this project.")
        else:
            if asg.may_open(store, project.name, wanted, user.name, user.role):
                return wanted
            st.warning(f"Item **{asked}** is not assigned to you.")
    item_id = asg.claim_next(store, project.name, user.name)
    _goto(address, item_id)
    return item_id


def _next_item(ctx: ItemContext) -> None:
    """Callback: the next item in the queue, or a new claim once this one is done."""
    if st.session_state.get(ERROR_KEY):
        return
    queue = asg.queue(ctx.store, ctx.project.name, ctx.user.name)
    here = ctx.item.item_id
    if here in queue and queue.index(here) + 1 < len(queue):
        _goto(_address(ctx), queue[queue.index(here) + 1])
        return
    status = ctx.store.item_state(ctx.project.name, here, ctx.user.name)["status"]
    if status not in ("submitted", "skipped") and here in queue:
        st.session_state[NOTICE_KEY] = "Submit or skip this item before taking a new one."
        return
    nxt = asg.claim_next(ctx.store, ctx.project.name, ctx.user.name)
    if nxt is None or nxt == here:
        st.session_state[NOTICE_KEY] = "No more items for you right now."
        return
    _goto(_address(ctx), nxt)


def _previous_item(ctx: ItemContext) -> None:
    """Callback: the item before this one in the annotator's queue."""
    if st.session_state.get(ERROR_KEY):
        return
    queue = asg.queue(ctx.store, ctx.project.name, ctx.user.name)
    here = ctx.item.item_id
    if here in queue and queue.index(here) > 0:
        _goto(_address(ctx), queue[queue.index(here) - 1])
    elif here not in queue and queue:
        _goto(_address(ctx), queue[-1])
    else:
        st.session_state[NOTICE_KEY] = "This is your first item."


def _submit(ctx: ItemContext) -> None:
    """Callback: refuse with the reason, or mark submitted and take the next item."""
    if st.session_state.get(ERROR_KEY):
        st.session_state[NOTICE_KEY] = "Fix the failed save first."
        return
    started = st.session_state.get(_timer_key(ctx.project.name, ctx.item.item_id), time.time())
    try:
        actions.submit(ctx, seconds=round(time.time() - started, 1))
    except ActionRefused as exc:
        if exc.status != 422:
            st.session_state[ERROR_KEY] = f"Could not submit: {exc}"
            return
        # the item area says what is left, and keeps it current
        st.session_state[MISSING_KEY] = (ctx.item.item_id, {t.key for t in exc.missing})
        keys = [t.key for t in ctx.targets]
        if exc.missing and exc.missing[0].key in keys:  # the keyboard goes to the first one
            st.session_state[ctx.focus_key] = keys.index(exc.missing[0].key)
        return
    except Exception as exc:  # refuse to advance and say why
        st.session_state[ERROR_KEY] = f"Could not submit: {exc}"
        return
    active_time.record(ctx.store, ctx.project.name, ctx.item.item_id, ctx.user.name)
    st.session_state[NOTICE_KEY] = f"Submitted {_address(ctx).label(ctx.item.item_id)}."
    _next_item(ctx)


def _skip(ctx: ItemContext) -> None:
    try:
        nxt = actions.skip(ctx)
    except Exception as exc:
        st.session_state[ERROR_KEY] = f"Could not skip: {exc}"
        return
    st.session_state[NOTICE_KEY] = (
        f"Skipped {_address(ctx).label(ctx.item.item_id)}; it goes to someone else."
    )
    _goto(_address(ctx), nxt)


def _toggle_flag(ctx: ItemContext) -> None:
    try:
        actions.toggle_flag(ctx)
    except Exception as exc:
        st.session_state[ERROR_KEY] = f"Could not save the flag: {exc}"


def _save_note(ctx: ItemContext, key: str) -> None:
    try:
        actions.save_note(ctx, st.session_state.get(key) or "")
    except Exception as exc:
        st.session_state[ERROR_KEY] = f"Could not save the note: {exc}"
    else:
        st.session_state.pop(ERROR_KEY, None)


def _timer_key(project: str, item_id: str) -> str:
    return f"started::{project}::{item_id}"


# -- layout -----------------------------------------------------------------------------
@dataclass(frozen=True)
class QueueFigures:
    """The annotator's standing, computed once per item (not per label)."""

    done: int
    target: int
    quota: bool
    left: int
    in_queue: bool


def queue_figures(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> QueueFigures:
    """Submitted so far, the target (the quota, or what is submitted plus what is left)
    and how many items are left.

    Left: items this annotator has neither submitted nor skipped and that still have a
    free slot (fewer than k other people submitted), capped by what the quota allows.
    """
    cfg = asg.annotation_settings(project.settings)
    frame = store.progress_frame(project.name)
    mine = frame[frame["annotator"] == user.name]
    done = int((mine["status"] == "submitted").sum())
    closed = set(mine.loc[mine["status"].isin(["submitted", "skipped"]), "item_id"])
    others = frame[(frame["annotator"] != user.name) & (frame["status"] == "submitted")]
    taken = others.groupby("item_id")["annotator"].nunique().to_dict()
    ids = store.item_ids(project.name)
    left = sum(1 for i in ids if i not in closed and taken.get(i, 0) < cfg.k)
    if cfg.quota:
        left = min(left, max(cfg.quota - done, 0))
    # without a quota the target is what this annotator can still reach: items others
    # have filled (k people) or that they skipped are not theirs to submit
    return QueueFigures(done, cfg.quota or done + left, bool(cfg.quota), left, False)


def _header(ctx: ItemContext, fig: QueueFigures) -> None:
    status = ctx.state["status"] or "new"
    badge = {
        "submitted": ":green-badge[submitted]",
        "skipped": ":gray-badge[skipped]",
        "draft": ":orange-badge[draft]",
    }.get(status, ":blue-badge[new]")
    flag = " :red-badge[:material/flag: flagged]" if ctx.state["flagged"] else ""
    if fig.left == 0:
        where = "nothing left for you after this"
    else:
        counts_here = status not in ("submitted", "skipped")
        where = f"{fig.left} item{'s' if fig.left != 1 else ''} left for you" + (
            " (this one included)" if counts_here else ""
        )
    if not fig.in_queue:
        where = f"not in your queue · {where}"
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    name = _address(ctx).label(ctx.item.item_id)
    left.markdown(f"#### {no_images(ctx.project.task_kind.title)} · {name} {badge}{flag}")
    left.caption(f"{where} · project **{ctx.project.name}** · you: {ctx.user.name}")
    right.progress(
        min(fig.done / fig.target, 1.0) if fig.target else 0.0,
        text=f"{fig.done} of {fig.target} submitted" + (" (quota)" if fig.quota else ""),
    )


def _error() -> None:
    error = st.session_state.get(ERROR_KEY)
    if error:
        st.error(
            error + "  \nNothing moves on until this is fixed; try the choice again.",
            icon=":material/error:",
        )


def _notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        st.info(notice, icon=":material/info:")


def _messages() -> None:
    _error()
    _notice()


def _action_bar(ctx: ItemContext) -> None:
    # Above the item, with what the last action said, so Submit and its answer are in
    # sight however long the item is (below a long view it fell under the fold).
    with st.container(key="action_bar"):
        _notice()
        _buttons(ctx)


FOCUS_BUTTONS = (
    ("↑", "focus_prev", keyboard.PREVIOUS_TARGET, -1, "previous fact or question"),
    ("↓", "focus_next", keyboard.NEXT_TARGET, 1, "next fact or question"),
)


def _focus_buttons(ctx: ItemContext) -> None:
    with st.container(horizontal=True, gap="small", horizontal_alignment="right"):
        for label, key, shortcut, step, what in FOCUS_BUTTONS:
            st.button(
                label,
                key=key,
                shortcut=shortcut,
                on_click=set_focus,
                args=(ctx, step),
                type="tertiary",
                help=what,
            )


def _buttons(ctx: ItemContext) -> None:
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button(
            "Previous",
            key="nav_prev",
            shortcut=keyboard.PREVIOUS_ITEM,
            on_click=_previous_item,
            args=(ctx,),
        )
        submitted = ctx.state["status"] == "submitted"
        if submitted and submitted_is_final(ctx.user.role, ctx.project.settings):
            st.caption(":material/lock: Submitted (final)")
        else:
            st.button(
                "Resubmit" if submitted else "Submit",
                key="submit",
                type="primary",
                icon=":material/check:",
                shortcut=keyboard.SUBMIT,
                on_click=_submit,
                args=(ctx,),
            )
        st.button(
            "Next",
            key="nav_next",
            shortcut=keyboard.NEXT_ITEM,
            on_click=_next_item,
            args=(ctx,),
        )
        st.space("stretch")
        if actions.may_skip(ctx):
            st.button(
                "Skip",
                key="skip",
                shortcut=keyboard.SKIP,
                on_click=_skip,
                args=(ctx,),
                help="give this item back; your labels are kept as skipped",
            )
        st.button(
            "Unflag" if ctx.state["flagged"] else "Flag",
            key="flag",
            shortcut=keyboard.FLAG,
            on_click=_toggle_flag,
            args=(ctx,),
            help="flag a problem with this item (add a note)",
        )


def _note(ctx: ItemContext) -> None:
    key = f"note::{ctx.token}"
    if key not in st.session_state:
        st.session_state[key] = ctx.state["note"]
    st.text_area(
        "Note (optional, saved when you leave the box)",
        key=key,
        height=68,
        on_change=_save_note,
        args=(ctx, key),
        placeholder="Anything odd about this item? Reviewers read these notes.",
    )


def _side(ctx: ItemContext, first_time: bool) -> None:
    with st.expander("Guideline", expanded=first_time, icon=":material/menu_book:"):
        st.markdown(no_images(ctx.project.guideline or "_No guideline yet._"))
        st.caption(f"Guideline version {ctx.project.guideline_version}")
    with st.expander("Keyboard shortcuts", icon=":material/keyboard:"):
        keyboard.shortcut_help()
    cfg = asg.annotation_settings(ctx.project.settings)
    if may_see_evaluators(ctx.user.role, cfg.show_evaluators, ctx.state["status"]):
        _lazy_expander("Evaluators", ":material/smart_toy:", EVALUATORS_OPEN_KEY, _evaluators, ctx)
    elif cfg.show_evaluators == "after_submit":
        st.caption(":material/visibility_off: Evaluator outputs appear after you submit.")
    if may_see_others(ctx.user.role):
        _lazy_expander(
            "Other annotators' labels", ":material/group:", OTHERS_OPEN_KEY, _others, ctx
        )


def _lazy_expander(
    label: str, icon: str, key: str, body: Callable[[ItemContext], None], ctx: ItemContext
) -> None:
    """An expander whose ``body`` runs only while it is open.

    A plain expander builds its content on every run, closed or not: the evaluator
    panel (its fact grids) cost tens of milliseconds per page rerun. Opening or closing
    this one reruns the side fragment, which then draws (or skips) the content.
    """
    box = st.expander(label, icon=icon, key=key, on_change="rerun")
    if box.open:
        with box:
            body(ctx)


def _evaluators(ctx: ItemContext) -> None:
    try:
        from ui.evaluator_panel import evaluator_panel
    except ImportError:  # the panel is optional while it is being built
        evaluator_panel = None
    if evaluator_panel is not None:
        evaluator_panel(ctx.project, ctx.item, ctx.user)
        return
    results = ctx.store.item_results(ctx.project.name, ctx.item.item_id)
    st.caption(f"{len(results)} stored result(s)")


def _others(ctx: ItemContext) -> None:
    frame = ctx.store.annotations_frame(
        ctx.project.name, ("draft", "submitted", "skipped"), item_id=ctx.item.item_id
    )
    rows = frame[frame["annotator"] != ctx.user.name]
    if rows.empty:
        st.caption("Nobody else has labelled this item yet.")
    else:
        table = rows[["annotator", "field", "value", "status"]].copy()
        # Fact-label lists and scalar labels share the column; Arrow refuses the mix.
        table["value"] = table["value"].map(label_text)
        # A static table wraps its cells in the narrow column (a dataframe truncates them).
        st.table(table, hide_index=True)


def label_text(value: Any) -> str:
    """A stored label as text: lists joined with commas, no value as a dash."""
    if value is None:
        return DASH
    if isinstance(value, list | tuple):
        return ", ".join(label_text(v) for v in value)
    return str(value)


def _jump(store: Store, project: ProjectInfo, user: AnnotatorInfo, here: str | None) -> None:
    ids = list(store.item_ids(project.name))
    # The box follows the item in view (a keyed widget would keep the last choice).
    st.session_state["jump_item"] = here if here in ids else None
    st.selectbox(
        "Go to item",
        ids,
        key="jump_item",
        on_change=lambda: _goto(Address(store, project, user), st.session_state["jump_item"]),
        placeholder="any item (reviewers and admins)",
    )


def render(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    """Draw the whole Annotate page."""
    if store.item_count(project.name) == 0:
        st.info("This project has no items yet. An admin imports them on the **Data** page.")
        return
    item_id = _current_item(store, project, user)
    if user.role in REVIEW_ROLES:
        with st.sidebar:
            _jump(store, project, user, item_id)
    if item_id is None:
        _messages()
        st.success(
            "Nothing left for you in this project: every item you may label has its "
            "annotators, or your quota is reached. Thank you!"
        )
        _queue_summary(store, project, user)
        st.button("Check again", key="check_again")
        return
    st.html(f"<style>{client_assets.text('page.css')}</style>")
    item = blinded_item(
        store.item(project.name, item_id),
        user.role,
        project.settings,
        [f.name for f in project.task_kind.item_fields],
    )
    figures = queue_figures(store, project, user)
    in_queue = item_id in asg.queue(store, project.name, user.name)
    figures = QueueFigures(figures.done, figures.target, figures.quota, figures.left, in_queue)
    st.session_state.setdefault(_timer_key(project.name, item_id), time.time())
    active_time.track(project.name, item_id, study_of(project.settings).idle_seconds)
    main, side = st.columns([3.3, 1], gap="medium")
    with main:
        _action_bar(_context(store, project, item, user))
        _item_area(store, project, item, user, figures)
    with side, st.container(key="annotate_side"):
        _side_area(store, project, item, user, first_time=figures.done == 0)


def _queue_summary(store: Store, project: ProjectInfo, user: AnnotatorInfo) -> None:
    """What this annotator did in the project: submitted, skipped, drafts left, flagged,
    and the median time per item."""
    people = asg.annotator_progress(store, project.name)
    mine = people[people["annotator"] == user.name]
    if mine.empty:
        return
    row = mine.iloc[0]
    cells = st.columns(5)
    cells[0].metric("Submitted", int(row["submitted"]))
    cells[1].metric("Skipped", int(row["skipped"]))
    cells[2].metric("Drafts", int(row["drafts"]), help="Items with answers you did not submit")
    cells[3].metric("Flagged", int(row["flagged"]))
    seconds = row["median_seconds"]
    cells[4].metric(
        "Median time / item",
        DASH if seconds is None or seconds != seconds else f"{seconds:.0f} s",
        help=None if seconds else "no labelling time recorded yet",
    )


def _context(
    store: Store, project: ProjectInfo, item: ItemRecord, user: AnnotatorInfo
) -> ItemContext:
    """The item with the annotator's saved state, read fresh (labels change each run)."""
    ctx = ItemContext(
        store,
        project,
        item,
        user,
        store.item_state(project.name, item.item_id, user.name),
        {f.name: f for f in project.task_kind.human_fields(project.settings)},
    )
    ctx.targets = build_targets(ctx)
    if ctx.focus_key not in st.session_state:  # start at the first unanswered question
        todo = [i for i, t in enumerate(ctx.targets) if ctx.value(t) is None]
        st.session_state[ctx.focus_key] = todo[0] if todo else 0
    return ctx


@st.fragment
def _item_area(
    store: Store, project: ProjectInfo, item: ItemRecord, user: AnnotatorInfo, fig: QueueFigures
) -> None:
    """Header, the item's plain form (``ui.annotation.generic``) and the note: rerun alone
    on every label."""
    ctx = _context(store, project, item, user)
    _header(ctx, fig)
    _error()
    _still_to_answer(ctx)
    view_for(project.kind)(ctx)
    _note(ctx)
    _focus_buttons(ctx)
    _follow_focus(ctx)
    instant_keys(ctx)
    fast_lane(ctx, {"done": fig.done, "target": fig.target, "left": fig.left, "quota": fig.quota})


def _still_to_answer(ctx: ItemContext) -> None:
    """After a refused submit: what is still unanswered, redrawn with every label (in the
    item area, so it never outlives the answers it lists)."""
    refused_on, _ = st.session_state.get(MISSING_KEY) or (None, set())
    if refused_on != ctx.item.item_id:
        return
    missing = missing_answers(ctx)
    with st.container(key="still_to_answer"):
        if missing:
            st.info(
                "Not submitted, still to answer: " + ", ".join(missing) + " (marked in red).",
                icon=":material/info:",
            )
        else:
            st.success("Everything is answered: press Enter to submit.", icon=":material/check:")


def _follow_focus(ctx: ItemContext) -> None:
    if ctx.targets:
        # The index in the body makes each focus change a new element, so it runs again.
        body = client_assets.script("follow_focus.js", {}, f"{ctx.token}:{ctx.focus}")
        st.html(body, unsafe_allow_javascript=True)


@st.fragment
def _side_area(
    store: Store, project: ProjectInfo, item: ItemRecord, user: AnnotatorInfo, first_time: bool
) -> None:
    """Guideline, shortcuts, evaluators, other annotators: not redrawn per label."""
    _side(_context(store, project, item, user), first_time)
