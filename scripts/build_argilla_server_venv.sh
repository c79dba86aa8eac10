#!/usr/bin/env bash
# Build .venv-argilla-server: argilla-server (requirements-argilla-server.txt), whose own
# response validators judge every answer of the Argilla exports (tests/peers/
# argilla_server_check.py). No server is started. Re-installs only when the pin changes.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${ARGILLA_SERVER_VENV:-.venv-argilla-server}
PYTHON=${PYTHON:-python3.11}
PINS=requirements-argilla-server.txt
STAMP="$VENV/.installed"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || ! cmp -s "$PINS" "$STAMP"; then
  # (the grep drops pip's notes about this machine's absent local indexes)
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$PINS" 2>&1 \
    | { grep -v "is neither a file nor a directory" || true; }
  cp "$PINS" "$STAMP"
fi
