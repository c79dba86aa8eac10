#!/usr/bin/env bash
# Build .venv-ls: a Label Studio server (requirements-ls-server.txt) for the round-trip test
# in tests/peers/test_label_studio_server.py. It gets a venv of its own because its pins clash
# with the workbench's and with .venv-peers. Re-installs only when the pin changes (the stamp
# keeps a copy of the pins it was built from).
#
# It also migrates an empty Label Studio database once into $VENV/ls-template: the test copies
# it, so each run skips the server's first-start migrations (minutes on a small machine).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${LS_VENV:-.venv-ls}
case "$VENV" in /*) ;; *) VENV="$PWD/$VENV" ;; esac
PYTHON=${PYTHON:-python3.11}
PINS=requirements-ls-server.txt
STAMP="$VENV/.installed"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || ! cmp -s "$PINS" "$STAMP"; then
  rm -rf "$VENV/ls-template"
  # (the grep drops pip's notes about this machine's absent local indexes)
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$PINS" 2>&1 \
    | { grep -v "is neither a file nor a directory" || true; }
  cp "$PINS" "$STAMP"
fi
if [ ! -f "$VENV/ls-template/label_studio.sqlite3" ]; then
  rm -rf "$VENV/ls-template.tmp"
  mkdir -p "$VENV/ls-template.tmp"
  # `label-studio user` applies the migrations, then only looks a user up (none exists yet).
  LABEL_STUDIO_BASE_DATA_DIR="$VENV/ls-template.tmp" LATEST_VERSION_CHECK=false \
    COLLECT_ANALYTICS=false SENTRY_DSN= FRONTEND_SENTRY_DSN= \
    "$VENV/bin/label-studio" user --data-dir "$VENV/ls-template.tmp" \
    --username nobody@localhost >/dev/null 2>&1
  mv "$VENV/ls-template.tmp" "$VENV/ls-template"
fi
