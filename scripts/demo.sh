#!/usr/bin/env bash
# The main job: set up (scripts/setup.sh: the project virtualenv .venv and the C++ build), then
# run the seed's embedding backfill from an image BLOB column on local warehouses, written as
# one backfill(...) call (examples/backfill_demo.py): embedded (no cluster), then on a local
# Ray. Each shows its progress, a run killed (SIGKILL) in batch 3 of 5 and resumed without
# reading the finished batches, then an incremental run after 1,000 rows are appended. Last,
# the seed's own hand-written Ray code (examples/seed_backfill.py) for comparison, and a
# summary of every phase. A failure stops the script with the real error. Arguments go to
# both examples/backfill_demo.py runs (e.g. --rows 10000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=${PAIMON_ROWID_VENV:-$(pwd)/.venv}/bin/python
export PYTHONUNBUFFERED=1  # progress lines as they happen

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
summary="$work/summary.jsonl"

echo
echo "== phase 1 of 3: backfill(...) embedded, no cluster (examples/backfill_demo.py)"
"$PY" examples/backfill_demo.py --warehouse "$work/embedded" --summary "$summary" "$@"

echo
echo "== phase 2 of 3: paimon_rowid.ray.backfill(...) on a local Ray (examples/backfill_demo.py --ray)"
"$PY" examples/backfill_demo.py --ray --warehouse "$work/ray" --summary "$summary" "$@"

echo
echo "== phase 3 of 3: the seed's own hand-written code on a local Ray (examples/seed_backfill.py)"
"$PY" examples/seed_backfill.py --warehouse "$work/seed" --rows 4000 --rows-per-commit 1000 \
  --summary "$summary"

echo
"$PY" - "$summary" <<'PYEOF'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("== summary")
print(f"{'phase':<52}{'rows embedded':>14}{'commits':>9}{'wall s':>9}{'rows/s':>10}{'left':>6}")
for r in rows:
    rate = r["rows_embedded"] / r["seconds"] if r["seconds"] else 0.0
    print(f"{r['phase']:<52}{r['rows_embedded']:>14,}{r['commits']:>9}{r['seconds']:>9.2f}"
          f"{rate:>10,.0f}{r['rows_left']:>6}")
bad = [r["phase"] for r in rows if r["rows_left"]]
if len(rows) != 5 or bad:
    sys.exit(f"demo: FAILED: {bad or 'a phase did not report'}")
print("demo: OK, every row has its embedding, after a kill and an append, in both styles")
PYEOF
