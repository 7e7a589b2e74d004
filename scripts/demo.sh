#!/usr/bin/env bash
# The main job: set up (scripts/setup.sh: the project virtualenv .venv and the C++ build), then
# run the embedding backfill from an image BLOB column on a local warehouse — embedded, with no
# cluster (examples/demo.py), then the seed's Ray version of the same job on a local Ray
# (examples/seed_backfill.py) — and print a summary of both phases. Every phase shows its
# output and a failure stops the script with the real error. Arguments go to examples/demo.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=${PAIMON_ROWID_VENV:-$(pwd)/.venv}/bin/python
export PYTHONUNBUFFERED=1  # progress lines as they happen

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary="$work/summary.jsonl"

echo
echo "== phase 1 of 2: embedded backfill, no cluster (examples/demo.py)"
"$PY" examples/demo.py --warehouse "$work/embedded" --summary "$summary" "$@"

echo
echo "== phase 2 of 2: the seed's backfill on a local Ray (examples/seed_backfill.py)"
"$PY" examples/seed_backfill.py --warehouse "$work/ray" --rows 4000 --rows-per-commit 1000 \
  --summary "$summary"

echo
"$PY" - "$summary" <<'PYEOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("== summary")
print(f"{'phase':<34}{'rows embedded':>14}{'commits':>9}{'wall s':>9}{'rows/s':>10}{'left':>6}")
for r in rows:
    rate = r["rows_embedded"] / r["seconds"] if r["seconds"] else 0.0
    print(f"{r['phase']:<34}{r['rows_embedded']:>14,}{r['commits']:>9}{r['seconds']:>9.2f}"
          f"{rate:>10,.0f}{r['rows_left']:>6}")
bad = [r["phase"] for r in rows if r["rows_left"]]
if len(rows) != 2 or bad:
    sys.exit(f"demo: FAILED: {bad or 'a phase did not report'}")
print("demo: OK, every row has its embedding")
PYEOF
