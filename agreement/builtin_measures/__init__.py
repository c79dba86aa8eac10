"""The built-in measures, one module per section, found by the measure registry."""
