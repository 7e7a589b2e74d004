#!/usr/bin/env bash
# Checks the installed C++ package end to end: installs an already built build tree into a
# prefix, builds examples/ as a standalone CMake project against that prefix only (not the
# source tree), and runs both examples on a temporary warehouse. Exits non-zero on any error.
# scripts/test.sh runs it after ctest.
#
# Environment:
#   PAIMON_ROWID_BUILD_DIR       the configured and built tree to install (default build/cpp)
#   PAIMON_ROWID_INSTALL_PREFIX  where to install (default build/install; emptied first)
#   PAIMON_ROWID_EXAMPLES_DIR    the examples' build directory (default build/examples)
#   PAIMON_ROWID_EXAMPLES_PYTHON an interpreter with the same pyarrow for the consumer (default:
#                                the one recorded in the package, i.e. the build's)
#   JOBS                         parallel compile jobs (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${PAIMON_ROWID_BUILD_DIR:-$ROOT/build/cpp}
PREFIX=${PAIMON_ROWID_INSTALL_PREFIX:-$ROOT/build/install}
OUT=${PAIMON_ROWID_EXAMPLES_DIR:-$ROOT/build/examples}

say() { echo "== examples: $*"; }
die() { echo "build_examples.sh: error: $*" >&2; exit 1; }

[ -f "$BUILD/CMakeCache.txt" ] || die "$BUILD is not a configured build tree (run scripts/test.sh)"

say "cmake --install $BUILD --prefix $PREFIX"
rm -rf "$PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
CONFIG=$(find "$PREFIX" -name paimon_rowidConfig.cmake -print -quit)
[ -n "$CONFIG" ] || die "no paimon_rowidConfig.cmake under $PREFIX"
[ -f "$PREFIX/include/paimon_rowid/api.h" ] || die "api.h was not installed"
stray=$(find "$PREFIX/include" \( -name '*_test.cc' -o -name '*test_util.h' -o -path '*/testing/*' \) -print)
[ -z "$stray" ] || die "test files were installed: $stray"

say "configure and build examples/ against $PREFIX"
rm -rf "$OUT"
extra=()
[ -n "${PAIMON_ROWID_EXAMPLES_PYTHON:-}" ] && extra+=("-DPython3_EXECUTABLE=$PAIMON_ROWID_EXAMPLES_PYTHON")
cmake -S examples -B "$OUT" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$PREFIX" "${extra[@]}" >"$OUT.configure.log" 2>&1 ||
  { cat "$OUT.configure.log" >&2; die "configuring examples/ failed"; }
ninja -C "$OUT" -j"${JOBS:-2}"

WH=$(mktemp -d "${TMPDIR:-/tmp}/paimon-rowid-examples-XXXXXX")
trap 'rm -rf "$WH"' EXIT

say "update_by_row_id $WH"
"$OUT/update_by_row_id" "$WH" examples.people | tee "$WH/update.out"
grep -q "updated 2 rows" "$WH/update.out" || die "update_by_row_id did not update 2 rows"
grep -q "^ok: " "$WH/update.out" || die "update_by_row_id did not read its update back"

say "read_table $WH examples.people 1 3"
"$OUT/read_table" "$WH" examples.people 1 3 | tee "$WH/read.out"
grep -q "3 rows" "$WH/read.out" || die "read_table did not read rows 1..3"
grep -q "BOB" "$WH/read.out" && grep -q "DAVE" "$WH/read.out" ||
  die "read_table does not show the updated names"
say "ok"
