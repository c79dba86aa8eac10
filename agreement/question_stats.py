"""Declares the statistics of the declared question types (one module each)."""

from agreement import free_text, multilabel, pairwise_choice, spans

__all__ = ["free_text", "multilabel", "pairwise_choice", "spans"]
