#!/usr/bin/env bash
# The main job: set up, then run the embedding backfill from an image BLOB column on a local
# warehouse — embedded (examples/demo.py), then the seed's Ray version of the same job
# (examples/seed_backfill.py) on a local Ray.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
PY=${PYTHON:-python3}
echo "== embedded backfill (examples/demo.py)"
$PY examples/demo.py "$@"
echo "== the seed's backfill on Ray (examples/seed_backfill.py)"
wh=$(mktemp -d)
trap 'rm -rf "$wh"' EXIT
$PY examples/seed_backfill.py --warehouse "$wh" --rows 4000 --rows-per-commit 1000 2>/dev/null
