#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang + ASan/UBSan) in build/fuzz and runs each one for
# a bounded time on its seed corpus (fuzz/README.md). Exits non-zero when any target finds a
# crash, sanitizer report, leak, timeout or out-of-memory input, naming the reproducer.
#
#   bash scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 30 s, every target)
#
# Environment:
#   PAIMON_ROWID_VENV   the virtualenv whose pyarrow provides Arrow C++ (default: .venv; made
#                       by scripts/setup.sh when missing)
#   FUZZ_OUT            where new inputs and reproducers go (default: build/fuzz/out)
#   FUZZ_JOBS           parallel fuzzing processes per target (default: 1)
#   FUZZ_PARALLEL       targets fuzzed at the same time (default: 1; CI: 2, one per core)
#   FUZZ_EXTRA_ARGS     more libFuzzer flags, e.g. "-runs=1000000"
# The committed seed corpus (fuzz/corpus/<target>) is only read; inputs libFuzzer finds go to
# $FUZZ_OUT/corpus/<target>, which later runs reuse.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. scripts/steps.sh

SECONDS_PER_TARGET=${1:-30}
shift || true
VENV=${PAIMON_ROWID_VENV:-$ROOT/.venv}
OUT=${FUZZ_OUT:-$ROOT/build/fuzz/out}
JOBS=${FUZZ_JOBS:-1}
PARALLEL=${FUZZ_PARALLEL:-1}
BUILD=$ROOT/build/fuzz

fuzz_started=$(date +%s)
say() { echo "== fuzz: $*"; }
die() { echo "fuzz.sh: error: $*" >&2; exit 2; }

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

# ---------------------------------------------------------------- clang, libFuzzer, the venv
if ! command -v clang++ >/dev/null || ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
     clang++ -x c++ -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null; then
  command -v apt-get >/dev/null || die "clang with libFuzzer is missing (and no apt-get here)"
  # Debian 12 ships clang 14; libFuzzer and the sanitizer runtimes are in libclang-rt-14-dev.
  ver=$(apt-cache policy clang 2>/dev/null | sed -n 's/^ *Candidate: *1:\([0-9]*\).*/\1/p')
  [ -n "$ver" ] || { $SUDO apt-get update -q >/dev/null;
                     ver=$(apt-cache policy clang | sed -n 's/^ *Candidate: *1:\([0-9]*\).*/\1/p'); }
  say "apt-get install clang libclang-rt-${ver:-14}-dev"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q clang "libclang-rt-${ver:-14}-dev" \
    >/dev/null || { $SUDO apt-get update -q >/dev/null &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q clang "libclang-rt-${ver:-14}-dev" >/dev/null; }
fi
for tool in cmake ninja; do
  command -v $tool >/dev/null || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
    cmake ninja-build nlohmann-json3-dev >/dev/null
done
if ! "$VENV/bin/python" -c 'import pyarrow' 2>/dev/null; then
  say "no pyarrow in $VENV: running scripts/setup.sh"
  PAIMON_ROWID_VENV=$VENV bash scripts/setup.sh
fi

step_since "fuzz: clang install (when missing), checks" "$fuzz_started"

# ---------------------------------------------------------------- build
say "building the fuzz targets in $BUILD"
. scripts/compiler_cache.sh
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPAIMON_ROWID_BUILD_FUZZERS=ON -DPAIMON_ROWID_BUILD_TESTS=OFF -DPAIMON_ROWID_BUILD_TOOLS=OFF \
  -DPython3_EXECUTABLE="$VENV/bin/python" >"$BUILD.configure.log" 2>&1 ||
  { cat "$BUILD.configure.log"; die "cmake configure failed"; }
step "fuzz: build the targets (clang, ASan/UBSan)" \
  ninja -C "$BUILD" -j"$(nproc)" $(cd fuzz && ls fuzz_*.cc | sed 's/\.cc$//') >/dev/null ||
  die "the fuzz targets do not build (ninja -C $BUILD)"

if [ $# -gt 0 ]; then
  TARGETS=("$@")
else
  mapfile -t TARGETS < <(cd fuzz && ls fuzz_*.cc | sed 's/^fuzz_//; s/\.cc$//')
fi

# ---------------------------------------------------------------- run
# Arrow allocates through the system allocator, so ASan sees (and -malloc_limit_mb bounds)
# every buffer a decoder asks Arrow for; jemalloc/mimalloc would hide them.
export ARROW_DEFAULT_MEMORY_POOL=system
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$OUT"

fuzz_one() {  # fuzz_one TARGET: runs it; its exit status goes to $OUT/TARGET.rc
  local t=$1 bin=$BUILD/fuzz/fuzz_$1 work=$OUT/corpus/$1 artifacts=$OUT/artifacts/$1
  local log=$OUT/$1.log rc=0 seeds=()
  rm -rf "$artifacts"; mkdir -p "$work" "$artifacts"
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  # -jobs=N runs N fuzzing processes (with -workers=N); they write fuzz-N.log files, so each
  # target runs in its own directory.
  if [ "$JOBS" -gt 1 ]; then
    mkdir -p "$OUT/jobs-$t"
    (cd "$OUT/jobs-$t" && "$bin" -jobs="$JOBS" -workers="$JOBS" -max_total_time="$SECONDS_PER_TARGET" \
      -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
      -artifact_prefix="$artifacts/" ${FUZZ_EXTRA_ARGS:-} "$work" "${seeds[@]/#/$ROOT/}") >"$log" 2>&1 || rc=$?
    cat "$OUT/jobs-$t"/fuzz-*.log >>"$log" 2>/dev/null || true
    rm -rf "$OUT/jobs-$t"
  else
    "$bin" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      ${FUZZ_EXTRA_ARGS:-} "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  fi
  echo "$rc" >"$OUT/$t.rc"
}

for t in "${TARGETS[@]}"; do
  [ -x "$BUILD/fuzz/fuzz_$t" ] || die "no fuzz target '$t' (fuzz/fuzz_$t.cc)"
done
run_started=$(date +%s)
running=0
for t in "${TARGETS[@]}"; do
  say "$t: ${SECONDS_PER_TARGET}s"
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$PARALLEL" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
step_since "fuzz: run ${#TARGETS[@]} targets, ${PARALLEL} at a time" "$run_started"

failed=()
summary=()
for t in "${TARGETS[@]}"; do
  artifacts=$OUT/artifacts/$t
  log=$OUT/$t.log
  bin=$BUILD/fuzz/fuzz_$t
  rc=$(cat "$OUT/$t.rc" 2>/dev/null || echo 2)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s+=$1} END {print s+0}')
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | awk '{s+=$1} END {print s+0}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  line=$(printf '%-16s %4ss %10s runs %7s exec/s  cov %s' "$t" "$SECONDS_PER_TARGET" "$runs" "$speed" "${cov:-?}")
  reproducers=$(ls "$artifacts" 2>/dev/null | sed "s|^|$artifacts/|" || true)
  if [ "$rc" != 0 ] || [ -n "$reproducers" ]; then
    failed+=("$t")
    summary+=("$line  FAILED (exit $rc)")
    echo "---- $t: libFuzzer exited $rc; the end of $log:" >&2
    grep -E 'ERROR|SUMMARY|FUZZ_CHECK|runtime error|Test unit written' "$log" | head -20 >&2 || true
    for r in $reproducers; do echo "reproducer: $r (rerun: $bin $r)" >&2; done
  else
    summary+=("$line  ok")
  fi
done

say "summary"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: ${#failed[@]} target(s) found bugs: ${failed[*]}" >&2
  exit 1
fi
say "all ${#TARGETS[@]} targets ran clean"
