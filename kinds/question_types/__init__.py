"""The built-in question types, one module each, found by :mod:`kinds.question_registry`."""
