"""The HTTP layer under the ``openai`` client: aiohttp by default, httpx on request.

Online calls to an OpenAI-compatible endpoint skip the SDK altogether
(:mod:`evaluators.llm.direct`); this chooses the transport of the SDK where it is still
used (Azure OpenAI, the Batch API). The SDK's default transport (httpx over httpcore and
h11) parses and builds every request in Python: at 64 concurrent calls that work alone
keeps one event loop about a third busy on a 2-core machine. The SDK ships an aiohttp
transport of its own (``openai.DefaultAioHttpClient``), whose HTTP parser is compiled;
it is used whenever aiohttp is installed. ``WORKBENCH_LLM_HTTP=httpx`` selects the SDK's
default instead (and sends online calls through the SDK too).
"""

from __future__ import annotations

from typing import Any

#: The choices of ``WORKBENCH_LLM_HTTP``, the default first.
HTTP_BACKENDS = ("aiohttp", "httpx")


def aiohttp_installed() -> bool:
    """True when the aiohttp transport can be used here."""
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        return False
    return True


def http_client(backend: str, timeout_s: float) -> Any | None:
    """The ``http_client`` to hand the openai client, or None for the SDK's own.

    aiohttp falls back to the SDK's default when the package is missing.
    """
    if backend != "aiohttp" or not aiohttp_installed():
        return None
    import openai

    return openai.DefaultAioHttpClient(timeout=timeout_s)
