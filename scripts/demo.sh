#!/usr/bin/env bash
# The main job: set up, then run the end-to-end demo on a local warehouse.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
${PYTHON:-python3} examples/demo.py "$@"
