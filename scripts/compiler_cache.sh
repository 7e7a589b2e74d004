# Sourced by the build scripts (setup.sh, test.sh, fuzz.sh): compile through ccache when it is
# installed (setup.sh installs it). CMake (>= 3.17) and the pip build (scikit-build-core runs
# CMake) read the launcher from the environment. The cache is keyed on paths relative to the
# checkout (CCACHE_BASEDIR, no hashing of the build directory), so a fresh clone elsewhere —
# CI's clean clone, a second worktree — reuses what an earlier build compiled. Only speed
# changes: a miss compiles normally. PAIMON_ROWID_NO_CCACHE=1 turns it off.
if [ "${PAIMON_ROWID_NO_CCACHE:-0}" != "1" ] && command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  CCACHE_BASEDIR=$(pwd)
  export CCACHE_BASEDIR CCACHE_NOHASHDIR=true
fi
# One name for the C/C++ compiler in every gcc build: pip's wheel build (scikit-build-core)
# would take Python's sysconfig CXX (g++, or x86_64-linux-gnu-g++ with Debian's python3) and
# CMake's own default is c++. ccache keys on the compiler's name, so the wheel build and the C++
# test build (scripts/test.sh, same build type) share their objects only when they name the
# compiler the same. fuzz.sh names clang explicitly.
if command -v g++ >/dev/null && command -v gcc >/dev/null; then
  export CC=${CC:-gcc} CXX=${CXX:-g++}
fi
