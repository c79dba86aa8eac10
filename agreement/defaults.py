"""Bootstrap defaults, in a module of their own so the command line can show them in its
help without importing NumPy and SciPy."""

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20240611
