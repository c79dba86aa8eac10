"""The app's pages: where each sits in the sidebar, who may open it and what it is for.

``app.py`` builds the navigation from this list and Home draws "Where to start" from it,
so a page's purpose is written once.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The project a first visit opens on: the README's tour starts there.
FIRST_PROJECT = "demo-intent-match"


@dataclass(frozen=True)
class PageEntry:
    """One page of the sidebar."""

    group: str
    script: str
    title: str
    icon: str
    roles: tuple[str, ...] | None  # None: everyone
    purpose: str

    @property
    def url_path(self) -> str:
        return self.script.removeprefix("pages/").removesuffix(".py")


_ANALYSTS = ("admin", "reviewer")
PAGES: tuple[PageEntry, ...] = (
    PageEntry("Work", "pages/home.py", "Home", ":material/home:", None, "projects and counts"),
    PageEntry(
        "Work",
        "pages/annotate.py",
        "Annotate",
        ":material/edit_note:",
        None,
        "label items, blind to other people and to the metrics",
    ),
    PageEntry(
        "Analyse",
        "pages/agreement.py",
        "Agreement",
        ":material/query_stats:",
        _ANALYSTS,
        "how far people agree, and each evaluator with people (start here)",
    ),
    PageEntry(
        "Analyse",
        "pages/alignment.py",
        "Alignment",
        ":material/rule:",
        _ANALYSTS,
        "your own judge against people, version after version",
    ),
    PageEntry(
        "Analyse",
        "pages/audit.py",
        "Audit",
        ":material/troubleshoot:",
        _ANALYSTS,
        "the items where an evaluator and people part ways, and why; adjudicate",
    ),
    PageEntry(
        "Analyse",
        "pages/estimates.py",
        "Estimates",
        ":material/insights:",
        _ANALYSTS,
        "what people would say per system, from few labels plus a judge",
    ),
    PageEntry(
        "Analyse",
        "pages/evaluate.py",
        "Evaluate",
        ":material/smart_toy:",
        _ANALYSTS,
        "run automatic evaluators on the project's items",
    ),
    PageEntry(
        "Analyse",
        "pages/judges.py",
        "Judges",
        ":material/gavel:",
        _ANALYSTS,
        "write and version your own LLM judge",
    ),
    PageEntry(
        "Manage",
        "pages/data.py",
        "Data",
        ":material/database:",
        ("admin",),
        "create projects, import items, labels and scores, export",
    ),
    PageEntry(
        "Manage",
        "pages/kinds.py",
        "Task kinds",
        ":material/category:",
        ("admin",),
        "declare a study's questions without code",
    ),
    PageEntry(
        "Manage",
        "pages/progress.py",
        "Progress",
        ":material/monitoring:",
        ("admin",),
        "who labelled what, crowd studies and their alarms",
    ),
    PageEntry(
        "Manage",
        "pages/admin.py",
        "Users & settings",
        ":material/settings:",
        ("admin",),
        "accounts, roles and deployment settings",
    ),
)


def default_project(
    names: list[str], wanted: str | None, last_used: str | None = None
) -> str | None:
    """The project to open: the one asked for (session or link), else the last one this
    browser used, else the README's first project, else the first by name; None without
    projects."""
    for name in (wanted, last_used):
        if name in names:
            return name
    if FIRST_PROJECT in names:
        return FIRST_PROJECT
    return names[0] if names else None
