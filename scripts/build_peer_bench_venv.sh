#!/usr/bin/env bash
# Build the side venv that bench/whole_process.py --peers uses to time the peers
# (deepeval's GEval, azure-ai-evaluation's IntentResolutionEvaluator) as whole processes.
# Their dependency pins clash with the workbench's, so they live in a venv of their own
# ($PEER_VENV, default /work/venvs/peer-bench) and the project never imports them: only
# the runner scripts under bench/peers/ run in it, as separate processes.
set -euo pipefail
VENV=${PEER_VENV:-/work/venvs/peer-bench}
PYTHON=${PYTHON:-python3.11}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$(cd "$(dirname "$VENV")" 2>/dev/null && pwd)/$(basename "$VENV")" in
  "$ROOT"/.venv|"$ROOT"/.venv/*)
    echo "refusing to install the peers into the project's own venv ($VENV)" >&2
    exit 2 ;;
esac
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
# (the grep drops pip's notes about this machine's absent local indexes)
"$VENV/bin/pip" install -q deepeval==4.3.1 azure-ai-evaluation==1.18.10 2>&1 \
  | { grep -v "is neither a file nor a directory" || true; }
"$VENV/bin/python" - <<'PY'
from importlib.metadata import version

import azure.ai.evaluation  # noqa: F401  (both import cleanly)
import deepeval  # noqa: F401

print("deepeval", version("deepeval"), "/ azure-ai-evaluation", version("azure-ai-evaluation"))
PY
echo "peer bench venv ready: $VENV (bench/whole_process.py --peers --peer-venv $VENV)"
