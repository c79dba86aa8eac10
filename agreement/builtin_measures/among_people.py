"""Agreement among people: declared in :mod:`agreement.statistics` (where plugins and
declared kinds add theirs with ``declare``); importing it registers them."""

import agreement.statistics  # noqa: F401  (registers the built-in statistics)
