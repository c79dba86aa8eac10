"""Plugin load warnings for admins: a broken plugin is named in the app, not only in the
server log (the registries keep the messages, see ``common.registry``)."""

from __future__ import annotations

import streamlit as st

from common.registry import plugin_warnings, plugins_installed


def show_plugin_warnings(role: str) -> None:
    """One warning per plugin that failed to load or read (admins only)."""
    if role != "admin":
        return
    if plugins_installed():  # else nothing to load: the evaluators stay unimported
        import evaluators.registry  # noqa: F401  (the registries must exist to be asked)
        import kinds.registry  # noqa: F401

    for message in plugin_warnings():
        st.warning(
            f"{message}. The built-in kinds and evaluators still work; fix or uninstall "
            "the plugin and restart the app.",
            icon=":material/extension_off:",
        )
