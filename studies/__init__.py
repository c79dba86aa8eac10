"""A project's study: its flow settings (consent, guideline, training, survey) and
its gold items."""
