"""The workbench's own module names as the running copy spells them.

In a clone the packages are top-level (``reports.render``); in the installed wheel they
live under ``metric_audit_workbench.`` (``metric_audit_workbench.reports.render``: the
build rewrites every ``import`` statement, see docs/architecture.md). Code that names one
of its own modules in a string (lazy exports, registries' built-in packages, logger
names) goes through :func:`own_module`, which the build does not need to rewrite.
"""

from __future__ import annotations

#: "" in a clone, "metric_audit_workbench." in the installed wheel.
PREFIX = __name__[: -len("common.package")]


def own_module(name: str) -> str:
    """``name`` (``"reports.render"``) as this copy imports it; already prefixed names
    are returned unchanged."""
    return name if name.startswith(PREFIX) else PREFIX + name
