"""Progress (admins): per project and per annotator, how far the labelling is."""

import streamlit as st

from studies import assignments as asg
from ui.context import current_project, get_store, has_role
from ui.study.dashboard import study_dashboard, time_on_task
from ui.tables import dash_missing

NO_TIME = "no item with a recorded labelling time yet"

st.title("Progress")
if not has_role("admin"):
    st.error("Only admins see progress.")
    st.stop()

store = get_store()
projects = [p.name for p in store.projects()]
if not projects:
    st.info("No projects yet.")
    st.stop()

overview = [asg.project_progress(store, name) for name in projects]
st.subheader("All projects")
table, config = dash_missing(
    [{k: v for k, v in row.items() if k != "kind"} for row in overview],  # kind: on Home
    {
        "short_of_k": st.column_config.NumberColumn(
            "short of k", help="Items with fewer than k submitted annotators"
        ),
        "submitted": st.column_config.NumberColumn(
            "submissions", help="One per annotator per submitted item (as on Home)"
        ),
        "missing_labels": st.column_config.NumberColumn(
            "labels needed", help="Submissions still needed for every item to reach k"
        ),
        "median_seconds": st.column_config.NumberColumn("median s / item", format="%.0f"),
    },
    NO_TIME,
)
st.dataframe(table, hide_index=True, width="stretch", column_config=config)

project = current_project()
if project is not None:
    row = next(r for r in overview if r["project"] == project.name)
    st.subheader(f"{project.name} · per annotator")
    a, b, c, d = st.columns(4)
    a.metric("Items complete", f"{row['complete']} / {row['items']}")
    b.metric(f"Short of k = {row['k']}", row["short_of_k"])
    c.metric("Drafts open", row["drafts"])
    d.metric(
        "Median s / item",
        "—" if row["median_seconds"] is None else f"{row['median_seconds']:.0f}",
        help=NO_TIME if row["median_seconds"] is None else None,
    )
    st.progress(row["complete"] / row["items"] if row["items"] else 0.0)
    people = asg.annotator_progress(store, project.name)
    if people.empty:
        st.caption("Nobody has started on this project yet.")
    else:
        table, config = dash_missing(
            people,
            {"median_seconds": st.column_config.NumberColumn("median s / item", format="%.0f")},
            NO_TIME,
        )
        st.dataframe(table, hide_index=True, width="stretch", column_config=config)
    time_on_task(store, project)
    study_dashboard(store, project)

if project is not None:
    from ui.alarms_view import alarms_section, cached_alarms
    from ui.quality_view import quality_section

    alarms = cached_alarms(store.url, project.name, store.data_version(project.name))
    alarms_section(store, project.name, alarms, "progress")
    quality_section(store, project.name)
