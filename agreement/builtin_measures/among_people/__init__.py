"""Agreement among people: the built-in measures, one module per measure (or family).

The modules are imported here in display order (declaration order is display order), when
the measure registry discovers its built-ins, so the registry holds every built-in before
any plugin or test measure. Plugins and declared kinds add theirs with
:func:`agreement.statistics.declare`.
"""

import importlib

#: The measure modules, in the order their measures are shown.
DISPLAY_ORDER = ("alpha", "fleiss", "percent", "gwet", "cohen", "icc", "pearson")

for _module in DISPLAY_ORDER:
    importlib.import_module(f"{__name__}.{_module}")

# the declared question types' statistics, one module each, after the built-ins
from agreement import question_stats  # noqa: E402, F401
