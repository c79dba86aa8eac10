"""The LLM client layer over the openai package: config, client, JSON parsing, cache."""
