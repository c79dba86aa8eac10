"""Agreement among people: the statistics declared in :mod:`agreement.statistics` (where
plugins and declared kinds add theirs with ``declare``).

They are registered here, when the measure registry discovers its built-ins, and not when
``agreement.statistics`` is imported: the registry then holds every built-in before any
plugin or test measure, so declaration order is display order.
"""

from agreement.statistics import _declare_builtins

_declare_builtins()
# the declared question types' statistics, one module each, after the built-ins
from agreement import question_stats  # noqa: E402, F401
