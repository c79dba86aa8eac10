"""``python -m metric_audit_workbench ...``: the same as the ``workbench`` command."""

import sys

from metric_audit_workbench import entry

sys.argv[0] = "python -m metric_audit_workbench"  # the name help and --version show
entry()
