#!/usr/bin/env bash
# Runs every test: the C++ unit tests (GoogleTest via ctest), the C++ examples against the
# installed package, the Python suites (pytest, including compatibility tests against the
# pypaimon oracle) and the small benchmark, inside the project virtualenv that
# scripts/setup.sh makes (.venv). Exits non-zero on any failure. Arguments go to pytest.
#
# Environment:
#   PYTEST_WORKERS   pytest-xdist workers (default 2; 0 runs the suites in this process). Tests
#                    sharing a heavy resource (Ray, Java, the S3 server) stay on one worker
#                    each (tests/conftest.py, --dist loadgroup).
#   JOBS             parallel C++ compile jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/steps.sh
step "setup.sh (again: nothing to do in CI)" bash scripts/setup.sh
PY=${PAIMON_ROWID_VENV:-$(pwd)/.venv}/bin/python
. scripts/compiler_cache.sh

echo "== C++ build and unit tests"
# Release and the compiler of the wheel build (scripts/compiler_cache.sh): the core's objects
# are then the very compiles of the wheel build just before (same compiler, flags and depth
# under the checkout), so ccache answers them and only the tests, the CLI and the examples
# compile here.
cxx=$(command -v "${CXX:-c++}")
if [ -f build/cpp/CMakeCache.txt ] &&
   ! grep -qx "CMAKE_CXX_COMPILER:[A-Z]*=$cxx" build/cpp/CMakeCache.txt; then
  rm -rf build/cpp  # configured with another compiler: CMake would drop the settings below
fi
cmake -S . -B build/cpp -G Ninja -DCMAKE_BUILD_TYPE=Release -DPAIMON_ROWID_BUILD_TESTS=ON \
  -DCMAKE_CXX_COMPILER="$cxx" -DPython3_EXECUTABLE="$PY" >/dev/null
step "C++ build (tests, CLI, examples)" ninja -C build/cpp -j"${JOBS:-2}"
# The test binaries are independent (each test makes its own mkdtemp directory): 2 at a time.
step "ctest" ctest --test-dir build/cpp --output-on-failure -j"${JOBS:-2}"

echo "== C++ package: install, build examples/ against it, run them"
step "C++ examples against the installed package" bash scripts/build_examples.sh

echo "== Python tests"
# Run against the package installed in .venv (not the source tree).
workers=${PYTEST_WORKERS:-2}
xdist=()
[ "$workers" != "0" ] && xdist=(-n "$workers" --dist loadgroup)
step "pytest (${workers} workers)" "$PY" -m pytest -q "${xdist[@]}" "$@"

echo "== benchmarks, small size (checks that every workload runs and both engines agree)"
# The peer (pypaimon + its Rust backend) and the Ray pairs are for measurement runs, not CI;
# so are repeated rounds: the warm-up and one timed round per side, each checked.
step "bench small" "$PY" -m bench --size small --no-ray --peer off --rounds 1 --verify all \
  --out build/bench-small.json \
  --markdown build/bench-small.md
