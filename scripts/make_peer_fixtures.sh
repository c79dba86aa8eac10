#!/usr/bin/env bash
# Build .venv-peers (the peer tools' own released code; their pins clash with ours, so
# they never enter the workbench's venv), write tests/data/peers/<tool>/ with their code,
# then check the workbench's exports of those files with their models:
# tests/data/peers/validation.json; and Potato's judge figures on seeded data:
# tests/data/peers/potato_judge.json. Re-run after changing an interop format.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=.venv-peers
WB_PYTHON=${WB_PYTHON:-.venv/bin/python}
OUT=tests/data/peers
if [ ! -x "$PEERS/bin/python" ]; then
  python3.11 -m venv "$PEERS"
fi
"$PEERS/bin/pip" install -q \
  potato-annotation==2.12.1 label-studio-sdk==2.1.2 label-studio-converter==0.0.59 \
  argilla==2.8.0 langfuse==5.0.4 langsmith==0.15.1
rm -rf "$OUT"
"$PEERS/bin/python" scripts/peer_fixtures.py write "$OUT"
# Seeded judge data and Potato's own figures on it (tests/test_potato_judge_reference.py).
"$PEERS/bin/python" scripts/potato_judge_reference.py "$OUT/potato_judge.json"
PYTHONPATH=. "$WB_PYTHON" scripts/peer_exports.py "$OUT"
"$PEERS/bin/python" scripts/peer_fixtures.py validate "$OUT"
echo "fixtures and validation written to $OUT"
