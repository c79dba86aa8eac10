"""The Alignment page's robustness section: prompt injection per attack family,
self-preference and the bias scan of one judge version, read from the stored probe
runs (nothing is re-run to show it); admins queue the injection probe in one click."""

from __future__ import annotations

from typing import Any

import streamlit as st

from alignment.bias_scan import ALPHA, CORRECTION
from alignment.robustness import robustness_card
from ui.context import current_user, get_store, has_role

KEY = "alignment_robustness"


def _queue(project: str, row: dict[str, Any]) -> None:
    """Admins: one injection probe run per attack family of the project."""
    from ui.audit.jobs_view import get_worker
    from workbench_api.robustness import RobustnessError, queue_injection

    if not (has_role("admin") and row["evaluator"].startswith("judge:")):
        return
    if st.button("Queue the injection probe (every attack family)", key=f"{KEY}_queue"):
        try:
            jobs = queue_injection(
                get_store(), project, row["evaluator"], row["version"], current_user().name
            )
        except RobustnessError as exc:
            st.error(str(exc))
            return
        worker = get_worker()
        if worker is not None:
            worker.wake()
        st.success(f"Queued as jobs {', '.join(map(str, jobs))}; reload the page when done.")


def _attack_texts(project: str) -> None:
    """Admins: the project's attack text per family (blank: the default), saved in the
    project setting ``injection_attacks``; a bad text changes nothing."""
    from evaluators.judges.injection import DEFAULT_ATTACKS, SETTING, InjectionError, attacks

    if not has_role("admin"):
        return
    store = get_store()
    info = store.project(project)
    own = dict(info.settings.get(SETTING) or {})
    with st.expander("Attack texts of this project"), st.form(f"{KEY}_attacks"):
        texts = {
            family: st.text_area(
                family, own.get(family, ""), placeholder=default, key=f"{KEY}_attack_{family}"
            )
            for family, default in DEFAULT_ATTACKS.items()
        }
        if st.form_submit_button("Save attack texts"):
            chosen = {f: t for f, t in texts.items() if t.strip()}
            extra = {f: t for f, t in own.items() if f not in DEFAULT_ATTACKS}
            settings = {**info.settings, SETTING: {**extra, **chosen}}
            try:
                attacks(settings)
            except InjectionError as exc:
                st.error(str(exc))
                return
            store.update_settings(project, settings)
            st.success("Attack texts saved; the next injection probe uses them.")


def robustness_section(project: str, rows: list[dict[str, Any]], default: int) -> None:
    """The chosen version's injection figures, self-preference and bias scan."""
    if not rows:
        return
    st.header("Robustness")
    labels = [r["label"] for r in rows]
    label = st.selectbox("Version", labels, index=default, key=f"{KEY}_version")
    row = rows[labels.index(label)]
    card = robustness_card(row)
    if card.families:
        st.dataframe(card.families_frame(), hide_index=True, key=f"{KEY}_families")
        st.caption(
            "Per attack family, on the items judged both plainly and with the attack in the "
            "judged output: the share whose score moved (95% Wilson interval) and the mean "
            "shift, attacked minus plain (95% t interval). The attack texts are the "
            "project's (setting injection_attacks) and stay with each probe run."
        )
    else:
        st.caption(
            f"No injection probe yet: {card.injection_reason or 'not measured'} "
            f"(`workbench alignment {project} --robustness`)."
        )
    _queue(project, row)
    _attack_texts(project)
    st.markdown(f"**Self-preference.** {card.self_preference}")
    scan = card.scan
    if scan.tests:
        found = ", ".join(t.column for t in scan.significant) or "nothing"
        st.markdown(
            f"**Bias scan** (residual: judge minus the people's mean; n {scan.n} items): "
            f"significant after {CORRECTION}'s correction at {ALPHA:g}: {found}."
        )
        st.dataframe(card.scan_frame(), hide_index=True, key=f"{KEY}_scan")
    else:
        st.caption(f"Bias scan: {scan.reason or 'not run'}.")
    if scan.skipped:
        st.caption("Columns left out: " + "; ".join(f"{k} ({v})" for k, v in scan.skipped.items()))
