"""Endpoint settings for LLM evaluators, from environment variables or Streamlit secrets.

Set at least ``WORKBENCH_LLM_MODEL`` and either ``WORKBENCH_LLM_BASE_URL`` (any
OpenAI-compatible server: vLLM, Ollama, llama.cpp server) or ``WORKBENCH_LLM_API_KEY``
(OpenAI itself). Azure OpenAI additionally takes ``WORKBENCH_LLM_API_VERSION`` and a
base URL of the form ``https://NAME.openai.azure.com``. The same keys work in
``.streamlit/secrets.toml`` under ``[llm]`` (``base_url``, ``api_key``, ``model`` ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from common.config import get_setting
from evaluators.llm.http import HTTP_BACKENDS

ENV_VARS = (
    "WORKBENCH_LLM_BASE_URL",
    "WORKBENCH_LLM_API_KEY",
    "WORKBENCH_LLM_MODEL",
    "WORKBENCH_LLM_API_VERSION",
    "WORKBENCH_LLM_CONCURRENCY",
    "WORKBENCH_LLM_TIMEOUT",
    "WORKBENCH_LLM_MAX_RETRIES",
    "WORKBENCH_LLM_BACKOFF",
    "WORKBENCH_LLM_JSON_RETRIES",
    "WORKBENCH_LLM_JSON_MODE",
    "WORKBENCH_LLM_PRICE_IN",
    "WORKBENCH_LLM_PRICE_OUT",
    "WORKBENCH_LLM_BATCH_DISCOUNT",
    "WORKBENCH_LLM_BATCH_POLL",
    "WORKBENCH_LLM_HTTP",
)

#: USD per million tokens (input, output) for a few well-known models. Prices change:
#: set WORKBENCH_LLM_PRICE_IN / WORKBENCH_LLM_PRICE_OUT to override. Unknown models cost 0.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
}

JSON_MODES = ("auto", "json_schema", "json_object", "text")


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to reach the judge model. The key is never stored or exported."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    api_version: str | None = None
    concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 4
    backoff_base_s: float = 1.0  # first retry waits about this long, then doubles
    json_retries: int = 2  # re-asks after an unparsable or invalid JSON reply
    json_mode: str = "auto"  # auto starts with json_schema and steps down when refused
    price_in: float | None = None  # USD per million input tokens (None: price table)
    price_out: float | None = None
    #: Percent off the online price for Batch API requests, when the provider's pricing
    #: grants one (OpenAI's does: set 50). None: not claimed in run summaries.
    batch_discount: float | None = None
    #: The HTTP layer under the openai client (evaluators/llm/http.py).
    http: str = "aiohttp"

    @property
    def is_azure(self) -> bool:
        """True for Azure OpenAI (an API version is set)."""
        return bool(self.api_version)

    def public(self) -> dict[str, object]:
        """Settings safe to show or store: everything but the key."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_version": self.api_version,
            "concurrency": self.concurrency,
        }

    def prices(self) -> tuple[float, float]:
        """(input, output) USD per million tokens for this model; 0 when unknown."""
        table = PRICES_PER_MILLION.get(self.model, (0.0, 0.0))
        return (
            self.price_in if self.price_in is not None else table[0],
            self.price_out if self.price_out is not None else table[1],
        )

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """USD cost of a call with these token counts."""
        p_in, p_out = self.prices()
        return (tokens_in * p_in + tokens_out * p_out) / 1_000_000


def load_llm_config() -> LLMConfig | None:
    """The configured endpoint, or None when no model or endpoint is set."""
    model = get_setting("llm", "model")
    base_url = get_setting("llm", "base_url")
    api_key = get_setting("llm", "api_key")
    if not model or not (base_url or api_key):
        return None
    return LLMConfig(
        model=model,
        base_url=base_url,
        api_key=api_key,
        api_version=get_setting("llm", "api_version"),
        concurrency=int(get_setting("llm", "concurrency", "8") or 8),
        timeout_s=float(get_setting("llm", "timeout", "60") or 60),
        max_retries=int(get_setting("llm", "max_retries", "4") or 4),
        backoff_base_s=float(get_setting("llm", "backoff", "1.0") or 1.0),
        json_retries=int(get_setting("llm", "json_retries", "2") or 2),
        json_mode=one_of(get_setting("llm", "json_mode"), JSON_MODES, "WORKBENCH_LLM_JSON_MODE"),
        price_in=_optional_float(get_setting("llm", "price_in")),
        price_out=_optional_float(get_setting("llm", "price_out")),
        batch_discount=_optional_float(get_setting("llm", "batch_discount")),
        http=one_of(get_setting("llm", "http"), HTTP_BACKENDS, "WORKBENCH_LLM_HTTP"),
    )


def _optional_float(value: str | None) -> float | None:
    return float(value) if value not in (None, "") else None


def one_of(value: str | None, choices: tuple[str, ...], variable: str) -> str:
    """``value`` trimmed and lower-cased (the first choice when unset), if it is a choice."""
    chosen = (value or choices[0]).strip().lower()
    if chosen not in choices:
        raise ValueError(f"{variable} must be one of {', '.join(choices)}")
    return chosen


def not_configured_message() -> str:
    """One line telling the user what to set to enable LLM evaluators."""
    return (
        "LLM endpoint not configured: set WORKBENCH_LLM_MODEL and WORKBENCH_LLM_BASE_URL "
        "(or WORKBENCH_LLM_API_KEY for OpenAI), as environment variables or under [llm] "
        "in .streamlit/secrets.toml"
    )
