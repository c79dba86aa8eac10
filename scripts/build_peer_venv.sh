#!/usr/bin/env bash
# Build .venv-peers: the peer tools' own released code (requirements-peers.txt), for the
# contract tests in tests/peers/. Their pins clash with the workbench's, so they never
# enter .venv and the product never imports them. Re-installs only when the pins change.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${PEERS_VENV:-.venv-peers}
PYTHON=${PYTHON:-python3.11}
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ ! -f "$VENV/.installed" ] || [ requirements-peers.txt -nt "$VENV/.installed" ]; then
  # (the grep drops pip's notes about this machine's absent local indexes)
  "$VENV/bin/pip" install --disable-pip-version-check -q -r requirements-peers.txt 2>&1 \
    | { grep -v "is neither a file nor a directory" || true; }
  touch "$VENV/.installed"
fi
