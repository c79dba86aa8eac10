"""Chat completions without the ``openai`` SDK: the HTTP layer of online calls.

Going through ``openai.AsyncOpenAI`` costs an online call about 2-3 ms of CPU (the SDK
builds its request options and drives aiohttp through an httpx-compatible layer) and a
process about a second of imports (``import openai`` builds hundreds of pydantic types).
An online chat completion is one JSON POST: :class:`evaluators.llm.streams.StreamChat`
sends it on keep-alive connections of its own, and :class:`DirectChat` on an aiohttp
pool when a proxy variable applies. The SDK still serves Azure OpenAI, the httpx backend
(``WORKBENCH_LLM_HTTP=httpx``) and the Batch API; :class:`SDKChat` adapts it to the same
interface and the same errors, so the client's retries see one kind of failure.

The errors carry the SDK's class names, so a stored failure reads the same either way.
"""

from __future__ import annotations

import json
import os
from typing import Any, Protocol

from common.version import __version__

DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: Environment variables the ``openai`` SDK turns into request headers.
SDK_HEADERS = {"OPENAI_ORG_ID": "OpenAI-Organization", "OPENAI_PROJECT_ID": "OpenAI-Project"}


class APIError(Exception):
    """A chat completion call failed (base of the errors below)."""


class APITimeoutError(APIError):
    """No complete answer within the timeout."""


class APIConnectionError(APIError):
    """The endpoint could not be reached or dropped the connection."""


class APIStatusError(APIError):
    """The endpoint answered with an HTTP error status."""

    def __init__(self, message: str, status_code: int, body: Any, headers: Any) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body  # the parsed JSON error body (or its text)
        self.headers = headers


class ChatTransport(Protocol):
    """Sends one chat completion request body; answers the parsed reply."""

    async def chat(self, body: dict[str, Any]) -> Any:
        """The reply's JSON (or its text when it is not JSON); raises :class:`APIError`."""
        ...

    async def close(self) -> None:
        """Close the connection pool."""
        ...


def endpoint_url(base_url: str | None) -> str:
    """The chat completions URL of an endpoint (``OPENAI_BASE_URL`` or OpenAI's by default)."""
    base = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    return f"{base}/chat/completions"


def default_headers(api_key: str) -> dict[str, str]:
    """The headers of every direct request, with what the SDK would add from the
    environment (an organisation, a project)."""
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Content-Type": "application/json",
        "Accept": "application/json",
        "User-Agent": f"metric-audit-workbench/{__version__}",
    }
    for variable, header in SDK_HEADERS.items():
        if os.environ.get(variable):
            headers[header] = os.environ[variable]
    return headers


class DirectChat:
    """``POST {base_url}/chat/completions`` on one aiohttp session of the running loop
    (the path behind a proxy; :class:`evaluators.llm.streams.StreamChat` otherwise)."""

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float, pool: int) -> None:
        import aiohttp

        self._url = endpoint_url(base_url)
        self._aiohttp = aiohttp
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=max(1, pool)),
            timeout=aiohttp.ClientTimeout(total=timeout_s),
            headers=default_headers(api_key),
            trust_env=True,  # proxy variables and .netrc, as the SDK's transports honour
        )

    async def chat(self, body: dict[str, Any]) -> Any:
        """The parsed reply; HTTP errors, timeouts and lost connections as :class:`APIError`."""
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            async with self._session.post(self._url, data=data) as resp:
                raw = await resp.read()
                status, headers = resp.status, resp.headers
        except (TimeoutError, self._aiohttp.ServerTimeoutError):
            raise APITimeoutError("Request timed out.") from None
        except self._aiohttp.ClientError as exc:
            raise APIConnectionError(f"Connection error: {exc}") from None
        return answer(status, headers, raw)

    async def close(self) -> None:
        """Close the session and its connections."""
        await self._session.close()


class SDKChat:
    """The ``openai`` client behind the same interface (Azure, httpx, the Batch API)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def chat(self, body: dict[str, Any]) -> Any:
        """``client.post`` of the body, the SDK's errors turned into this module's."""
        import openai

        try:
            # client.post sends the same JSON that chat.completions.create would, without
            # the SDK re-walking every parameter (messages, JSON schema) on each call.
            return await self.client.post("/chat/completions", body=body, cast_to=dict)
        except openai.APITimeoutError as exc:
            raise APITimeoutError(str(exc)) from None
        except openai.APIConnectionError as exc:
            raise APIConnectionError(str(exc)) from None
        except openai.APIStatusError as exc:
            raise APIStatusError(
                str(exc), exc.status_code, exc.body, exc.response.headers
            ) from None

    async def close(self) -> None:
        """Close the SDK client's pool."""
        await self.client.close()


def answer(status: int, headers: Any, raw: bytes) -> Any:
    """The parsed reply body; :class:`APIStatusError` for an HTTP error status (both
    transports answer alike)."""
    parsed = _parse(raw)
    if status >= 400:
        raise APIStatusError(f"Error code: {status} - {parsed}", status, parsed, headers)
    return parsed


def _parse(raw: bytes) -> Any:
    """JSON when the body is JSON, else its text (a proxy's error page)."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
