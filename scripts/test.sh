#!/usr/bin/env bash
# Runs every test: the C++ unit tests (GoogleTest via ctest) and the Python suites (pytest,
# including compatibility tests against the pypaimon oracle). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== C++ build and unit tests"
cmake -S . -B build/cpp -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAIMON_ROWID_BUILD_TESTS=ON >/dev/null
ninja -C build/cpp -j"${JOBS:-2}"
ctest --test-dir build/cpp --output-on-failure

echo "== Python tests"
# Run from tests/ against the installed package (not the source tree).
${PYTHON:-python3} -m pytest -q "$@"

echo "== benchmarks, small size (checks that every workload runs and both engines agree)"
${PYTHON:-python3} -m bench --size small --out build/bench-small.json --markdown build/bench-small.md
