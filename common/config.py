"""Settings read in one place: environment variables first, then Streamlit secrets.

Domain code never imports streamlit, so secrets are read straight from
``.streamlit/secrets.toml`` (the file Streamlit itself reads). Every key can be given as
an environment variable (``WORKBENCH_LLM_BASE_URL``) or as a secrets entry, either flat
(``WORKBENCH_LLM_BASE_URL = "..."``) or in a section (``[llm] base_url = "..."``).
"""

from __future__ import annotations

import os
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
#: A clone keeps its data beside the code; an installed workbench (``pip install``) keeps
#: it in the working directory, where Streamlit also looks for ``.streamlit/``.
DATA_ROOT = PROJECT_ROOT if (PROJECT_ROOT / "pyproject.toml").is_file() else Path.cwd()
DEFAULT_DB_PATH = DATA_ROOT / "data" / "workbench.db"


def secrets_path() -> Path:
    """Where the secrets file is looked for (``WORKBENCH_SECRETS`` overrides)."""
    override = os.environ.get("WORKBENCH_SECRETS")
    return Path(override) if override else DATA_ROOT / ".streamlit" / "secrets.toml"


@lru_cache(maxsize=4)
def _load_secrets(path: str, mtime: float) -> dict[str, Any]:
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def secrets() -> dict[str, Any]:
    """The parsed secrets file, or an empty dict when there is none."""
    path = secrets_path()
    if not path.is_file():
        return {}
    return _load_secrets(str(path), path.stat().st_mtime)


def get_setting(section: str, key: str, default: str | None = None) -> str | None:
    """Look up ``WORKBENCH_<SECTION>_<KEY>`` in the environment, then in secrets."""
    env_name = f"WORKBENCH_{section}_{key}".upper()
    value = os.environ.get(env_name)
    if value not in (None, ""):
        return value
    data = secrets()
    if env_name in data:
        return str(data[env_name])
    sect = data.get(section.lower())
    if isinstance(sect, dict) and key.lower() in sect:
        return str(sect[key.lower()])
    return default


def database_url(explicit: str | None = None) -> str:
    """The database URL: an explicit one, ``WORKBENCH_DB_URL``, secrets, or the SQLite default."""
    if explicit:
        return explicit
    url = os.environ.get("WORKBENCH_DB_URL") or get_setting("db", "url")
    if url:
        return url
    return f"sqlite:///{DEFAULT_DB_PATH}"
