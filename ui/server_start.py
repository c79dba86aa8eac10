"""What the app server does as it comes up (``serve.py``'s lifespan)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from common.warmup import warm_up_first_page


@asynccontextmanager
async def first_page_ready(_app: Any) -> AsyncIterator[None]:
    """The first page's modules load in the background from the moment the server is up,
    while a browser fetches Streamlit's frontend (``common.warmup``)."""
    warm_up_first_page()
    yield
