#!/usr/bin/env bash
# Runs every test: the C++ unit tests (GoogleTest via ctest) and the Python suites (pytest,
# including compatibility tests against the pypaimon oracle), inside the project virtualenv
# that scripts/setup.sh makes (.venv). Exits non-zero on any failure. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=${PAIMON_ROWID_VENV:-$(pwd)/.venv}/bin/python
. scripts/compiler_cache.sh

echo "== C++ build and unit tests"
cmake -S . -B build/cpp -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAIMON_ROWID_BUILD_TESTS=ON \
  -DPython3_EXECUTABLE="$PY" >/dev/null
ninja -C build/cpp -j"${JOBS:-2}"
ctest --test-dir build/cpp --output-on-failure

echo "== C++ package: install, build examples/ against it, run them"
bash scripts/build_examples.sh

echo "== Python tests"
# Run against the package installed in .venv (not the source tree).
"$PY" -m pytest -q "$@"

echo "== benchmarks, small size (checks that every workload runs and both engines agree)"
# The peer (pypaimon + its Rust backend) and the Ray pairs are for measurement runs, not CI.
"$PY" -m bench --size small --no-ray --peer off --out build/bench-small.json --markdown build/bench-small.md
