"""Users & settings (admins): sign-in mode, users and roles, annotation settings,
explicit assignments, fact-list edits and the crowd study (settings, links, gold items)."""

import pandas as pd
import streamlit as st

from accounts import lockout
from accounts import users as accounts
from accounts.people import KIND_WORDS, people_rows
from annotating.fact_lists import edit_fact_list, fact_fields, labelled_by
from annotation_store import StoreError
from annotation_store.records import ROLES
from studies import assignments as asg
from ui.admin_tables import assignments_table, fact_versions_table
from ui.auth import auth_mode
from ui.context import current_project, current_user, get_store, has_role
from ui.plugin_warnings import show_plugin_warnings
from ui.study.admin_view import study_tab as study_view
from ui.tables import dash_missing

STRATEGY_WORDS = {
    "in_order": "In file order",
    "random": "Random order",
    "least_annotated": "Least-annotated first",
    "active": "Active selection (drawn items only)",
}
SHOW_WORDS = {
    "never": "Never",
    "after_submit": "After they submit the item",
    "always": "Always",
}

st.title("Users & settings")
if not has_role("admin"):
    st.error("Only admins manage users and settings.")
    st.stop()

store = get_store()
me = current_user()
show_plugin_warnings(me.role)
project = current_project()


FLASH_KEY = "admin_flash"


def _run(action, ok: str, *, redraw: bool = False) -> None:
    """Do a store action; show success or the reason it was refused.

    ``redraw``: the page is drawn again at once (with the message), so tables and pickers
    drawn above the form show the change (a new user in the user list and dropdown).
    """
    try:
        action()
    except (StoreError, ValueError) as exc:
        st.error(str(exc))
    else:
        if redraw:
            st.session_state[FLASH_KEY] = ok
            st.rerun()
        st.success(ok)


def _sign_in_attempts() -> None:
    """Locked accounts (with an unlock) and the latest sign-in attempts."""
    st.markdown("**Sign-in attempts**")
    st.caption(
        f"{lockout.LOCK_AFTER} wrong passwords within an hour lock an account for "
        f"{int(lockout.LOCK_FOR.total_seconds() // 60)} min; from "
        f"{lockout.BACKOFF_AFTER} on, each try must wait longer. One address is locked "
        f"after {lockout.CLIENT_LOCK_AFTER} wrong passwords for any accounts."
    )
    attempts = lockout.recent_attempts(store)
    locked = lockout.locked_accounts(store)
    if locked:
        wrong = {
            n: sum(a["account"] == n and a["outcome"] == "wrong" for a in attempts) for n in locked
        }
        st.dataframe(
            pd.DataFrame(
                [
                    {"account": n, "locked until (UTC)": until, "wrong passwords": wrong[n]}
                    for n, until in locked.items()
                ]
            ),
            hide_index=True,
        )
        pick = st.selectbox("Locked account", list(locked), key="unlock_pick")
        if st.button("Unlock", key="unlock_account"):
            _run(lambda: lockout.unlock(store, pick, by=me.name), f"Unlocked {pick}.")
    else:
        st.caption("No account is locked.")
    if attempts:
        st.dataframe(pd.DataFrame(attempts), hide_index=True, width="stretch", height=240)


users_tab, settings_tab, assign_tab, facts_tab, study_tab = st.tabs(
    ["Users", "Annotation settings", "Assignments", "Fact lists", "Study"]
)

with users_tab:
    mode = auth_mode()
    st.info(
        f"Sign-in mode: **{mode}**. Set `WORKBENCH_AUTH_MODE` (or `[auth] mode` in "
        "secrets) to `single`, `local` or `oidc`. Local users need a password; OIDC users "
        "need the e-mail they sign in with.",
        icon=":material/lock:",
    )
    flash = st.session_state.pop(FLASH_KEY, None)
    if flash:
        st.success(flash)
    people = store.annotators()
    users, users_config = dash_missing(
        [
            {
                "name": r.name,
                "role": r.role,
                "kind": KIND_WORDS[r.kind],
                "labels given": r.labels,
                "last active (UTC)": r.last_active and f"{r.last_active:%Y-%m-%d %H:%M}",
                "e-mail": r.email,
                "password": r.has_password,
                "may sign in": r.active,
            }
            for r in people_rows(store)
        ],
        {},
        why={"last active (UTC)": "no label and no sign-in yet"},
    )
    st.dataframe(users, hide_index=True, width="stretch", column_config=users_config)
    add, change = st.columns(2, gap="large")
    with add, st.form("add_user", clear_on_submit=True):
        st.markdown("**Add a user**")
        name = st.text_input("Name")
        role = st.selectbox("Role", ROLES, index=2)
        password = st.text_input("Password (local sign-in, 8+ characters)", type="password")
        email = st.text_input("E-mail (OIDC sign-in)")
        if st.form_submit_button("Add user", type="primary"):
            _run(
                lambda: accounts.add_user(
                    store, name, role, password=password or None, email=email or None
                ),
                f"Added {name}.",
                redraw=True,
            )
    with change, st.form("change_user"):
        st.markdown("**Change a user**")
        who = st.selectbox("User", [u.name for u in people])
        new_role = st.selectbox("New role", ["(keep)", *ROLES])
        new_pw = st.text_input("New password", type="password")
        new_email = st.text_input("New e-mail (blank: keep)")
        active = st.selectbox("Sign-in", ["(keep)", "enabled", "disabled"])
        if st.form_submit_button("Save changes"):

            def change_user() -> None:
                if who == me.name and (new_role not in ("(keep)", "admin") or active == "disabled"):
                    raise StoreError("you cannot demote or disable yourself")
                if new_role != "(keep)":
                    store.set_role(who, new_role)
                if new_pw:
                    accounts.set_password(store, who, new_pw)
                if new_email:
                    accounts.set_email(store, who, new_email)
                if active != "(keep)":
                    accounts.set_active(store, who, active == "enabled")

            _run(change_user, f"Saved {who}.", redraw=True)
    _sign_in_attempts()

if project is None:
    for tab in (settings_tab, assign_tab, facts_tab, study_tab):
        tab.info("Pick a project in the sidebar.")
    st.stop()

with settings_tab:
    cfg = asg.annotation_settings(project.settings)
    with st.form("annotation_settings"):
        st.markdown(f"**{project.name}** · {project.task_kind.title}")
        k = st.number_input("Annotators per item (k)", 1, 50, cfg.k)
        strategy = st.selectbox(
            "Order items are handed out",
            asg.STRATEGIES,
            index=asg.STRATEGIES.index(cfg.assignment),
            format_func=lambda s: STRATEGY_WORDS.get(s, s),
            help="Random is seeded and stable per annotator",
        )
        seed = st.number_input("Random seed", 0, 10**9, cfg.seed)
        quota = st.number_input("Quota per annotator (0 = none)", 0, 100000, cfg.quota or 0)
        show = st.selectbox(
            "Annotators see evaluator outputs",
            asg.SHOW_EVALUATORS,
            index=asg.SHOW_EVALUATORS.index(cfg.show_evaluators),
            format_func=lambda s: SHOW_WORDS.get(s, s),
            help="A project with a study always uses Never: its workers could otherwise "
            "change a label after seeing the metric the study audits.",
        )
        timeout = st.number_input(
            "Claims lapse after (minutes without a save)", 5, 10080, cfg.claim_timeout_minutes
        )
        may_run = st.checkbox(
            "Annotators may run evaluators on their items",
            cfg.annotators_run_evaluators,
            help="Off: the Run buttons on evaluator cards are for reviewers and admins.",
        )
        if st.form_submit_button("Save settings", type="primary"):
            updates = asg.validate_annotation_settings(
                {
                    "k": int(k),
                    "assignment": strategy,
                    "seed": int(seed),
                    "quota": int(quota) or None,
                    "show_evaluators": show,
                    "claim_timeout_minutes": int(timeout),
                    "annotators_run_evaluators": bool(may_run),
                }
            )
            _run(
                lambda: store.update_settings(project.name, {**project.settings, **updates}),
                "Settings saved.",
            )

with assign_tab:
    items = [i.item_id for i in store.items(project.name)]
    names = [u.name for u in store.annotators()]
    with st.form("assign"):
        who = st.selectbox("Annotator", names)
        chosen = st.multiselect("Items", items)
        if st.form_submit_button("Assign", type="primary"):
            _run(
                lambda: asg.assign(store, project.name, chosen, who),
                f"Assigned {len(chosen)} item(s) to {who}.",
            )
    rows = asg.assignments_frame(store, project.name)
    st.dataframe(assignments_table(rows), hide_index=True, width="stretch")
    open_rows = [r for r in rows if r["status"] == "open"]
    if open_rows:
        pick = st.selectbox(
            "Withdraw an open assignment", [f"{r['item_id']} → {r['annotator']}" for r in open_rows]
        )
        if st.button("Withdraw"):
            item_id, who = pick.split(" → ")
            _run(lambda: asg.unassign(store, project.name, item_id, who), "Withdrawn.")

with facts_tab:
    lists = fact_fields(store, project.name)
    if not lists:
        st.caption("This kind has no fact lists.")
    else:
        item_id = st.selectbox("Item", [i.item_id for i in store.items(project.name)])
        record = store.item(project.name, item_id)
        for facts_field in lists:
            who = labelled_by(store, project.name, item_id, facts_field)
            with st.form(f"facts_{facts_field}"):
                st.markdown(f"**{facts_field}** (one fact per line)")
                text = st.text_area(
                    facts_field,
                    "\n".join(record.fields.get(facts_field, [])),
                    height=150,
                    disabled=bool(who),
                    label_visibility="collapsed",
                )
                if who:
                    st.caption(f"Fixed: labelled by {', '.join(who)}.")
                if st.form_submit_button("Save new version", disabled=bool(who)):
                    _run(
                        lambda f=facts_field, t=text: edit_fact_list(
                            store, project.name, item_id, f, t.splitlines(), by=me.name
                        ),
                        "Saved a new version.",
                    )
        versions = store.fact_versions(project.name, item_id)
        if versions:
            table, config = dash_missing(fact_versions_table(versions), why="not recorded")
            st.dataframe(table, hide_index=True, width="stretch", column_config=config)

with study_tab:
    study_view(store, project)
