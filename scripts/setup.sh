#!/usr/bin/env bash
# Installs everything paimon-rowid needs on a fresh Debian/Ubuntu machine and builds it, inside
# the project's own virtualenvs (never into the system interpreter: PEP 668):
#   - system packages: a C++20 compiler, CMake, Ninja, ccache (scripts/compiler_cache.sh),
#     GoogleTest, nlohmann-json, libcurl and OpenSSL (the object-store commit), a JDK and
#     Maven (the Java Paimon oracle), python3-venv when the base Python cannot make a venv;
#   - .venv/ : the pinned pyarrow (its Arrow C++/Parquet C++ are the ones we link), nanobind,
#     scikit-build-core, the test (pytest, pytest-xdist, moto[server] + boto3 for the local S3
#     server), Ray and search (paimon-vindex, paimon-ftindex) extras, all at the versions in constraints.txt; then paimon-rowid itself:
#     its wheel is built into build/wheelhouse (the C++ core and the native module, compiled
#     incrementally in build/<wheel tag>) and installed;
#   - .venv-oracle/ : pypaimon 2.1.0, the test oracle and bench baseline (it pins pyarrow<20,
#     so it cannot share .venv), at the versions in constraints-oracle.txt.
# Idempotent: steps already done are skipped quickly.
#
# Environment:
#   PYTHON                      base interpreter for the virtualenvs (default: python3 on PATH)
#   PAIMON_ROWID_VENV           the virtualenv to use (default: .venv at the repository root)
#   PAIMON_ROWID_ORACLE_VENV    the oracle's virtualenv (default: .venv-oracle)
#   PAIMON_ROWID_RAY            a Ray version to install instead of constraints.txt's (e.g.
#                               2.50.1; CI runs the Ray suites once more on the oldest we support)
#   PAIMON_ROWID_UNPINNED=1     ignore constraints.txt: take the newest releases in the declared
#                               ranges (to try a bump before writing it into constraints.txt)
#   PAIMON_ROWID_WHEEL          install this already built paimon-rowid wheel instead of building
#                               one (CI builds the core once and installs that wheel into the
#                               oldest-Ray virtualenv too; same Python and pyarrow required)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

say() { echo "== setup: $*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; fi
fi
apt_install() {  # apt_install PKG...: installs the packages that are not installed yet
  local need=""
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"; done
  [ -z "$need" ] && return 0
  command -v apt-get >/dev/null || die "missing system packages:$need (and no apt-get here)"
  say "apt-get install$need"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $need >/dev/null
}

apt_install g++ cmake ninja-build ccache libgtest-dev nlohmann-json3-dev libcurl4-openssl-dev libssl-dev \
  openjdk-17-jdk-headless maven
. scripts/compiler_cache.sh

# ---------------------------------------------------------------- the base interpreter
BASE=${PYTHON:-python3}
command -v "$BASE" >/dev/null || { apt_install python3; BASE=python3; }
"$BASE" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
  die "$BASE is $("$BASE" --version 2>&1); paimon-rowid needs Python >= 3.9 (set PYTHON=...)"
PYVER=$("$BASE" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

make_venv() {  # make_venv DIR: a working virtualenv with pip at DIR (re-created when broken)
  local dir=$1
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -m pip --version >/dev/null 2>&1; then
    return 0
  fi
  rm -rf "$dir"
  say "creating the virtualenv $dir (Python $PYVER from $(command -v "$BASE"))"
  if ! "$BASE" -m venv "$dir" >/dev/null 2>&1; then
    # Debian/Ubuntu ship venv's ensurepip in a separate package.
    rm -rf "$dir"
    apt_install "python$PYVER-venv" || apt_install python3-venv
    "$BASE" -m venv "$dir" || die "cannot create a virtualenv with $BASE"
  fi
  "$dir/bin/python" -m pip --version >/dev/null || die "the virtualenv $dir has no pip"
}

VENV=${PAIMON_ROWID_VENV:-$ROOT/.venv}
ORACLE=${PAIMON_ROWID_ORACLE_VENV:-$ROOT/.venv-oracle}
make_venv "$VENV"
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

# ---------------------------------------------------------------- pins
# constraints.txt pins every package CI tests with (direct and transitive), for one Python
# version (its "pinned-for-python" line). PAIMON_ROWID_RAY swaps Ray's pin for another release;
# PAIMON_ROWID_UNPINNED=1 drops the pins. On another Python the pins are tried first and, if
# they cannot be installed there, the newest releases in the declared ranges are used.
pinned_for() { sed -n 's/^# pinned-for-python: *//p' "$1"; }
pins=$(mktemp); trap 'rm -f "$pins"' EXIT
if [ -n "${PAIMON_ROWID_RAY:-}" ]; then
  grep -v -i '^ray==' constraints.txt >"$pins"
  echo "ray==$PAIMON_ROWID_RAY" >>"$pins"
else
  cp constraints.txt "$pins"
fi

# The declared ranges (pyproject.toml's dependencies and extras); the pins choose one point.
REQUIREMENTS=('pyarrow==26.0.*' 'nanobind>=2.9' 'scikit-build-core>=0.10' 'numpy>=1.23'
  'pandas>=1.5,<4' 'tqdm>=4.66,<5' 'pytest>=7' 'pytest-timeout>=2.1' 'pytest-xdist>=3.5' 'moto[server]>=5.1,<6'
  'boto3>=1.35'
  'psutil>=5.9' 'ray[data]>=2.50,<3' 'ruff>=0.17' 'mypy>=2.4'
  'paimon-vindex>=0.5,<0.6' 'paimon-ftindex>=0.1,<0.2'
  "datafusion>=54; python_version >= '3.10'" "sqlglot>=30.30,<31; python_version >= '3.10'"
  "sqlglot[c]>=30.30,<31; python_version >= '3.10' and (platform_machine == 'x86_64' or sys_platform == 'darwin')")

install_deps() {  # install_deps WHAT STAMP CONSTRAINTS-FILE PIP... -- REQUIREMENT...
  local what=$1 stamp=$2 file=$3; shift 3
  local pip=() reqs=()
  while [ "$1" != "--" ]; do pip+=("$1"); shift; done; shift; reqs=("$@")
  local want
  want=$(printf '%s\n' "${reqs[@]}" "unpinned=${PAIMON_ROWID_UNPINNED:-0}" "$PYVER" |
    cat - "$file" | sha256sum | cut -c1-16)
  [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
  say "pip install $what"
  "${pip[@]}" install -q --upgrade pip >/dev/null 2>&1 || true
  if [ "${PAIMON_ROWID_UNPINNED:-0}" = "1" ]; then
    "${pip[@]}" install -q "${reqs[@]}"
  elif [ "$(pinned_for "$file")" = "$PYVER" ]; then
    "${pip[@]}" install -q -c "$file" "${reqs[@]}"
  elif ! "${pip[@]}" install -q -c "$file" "${reqs[@]}"; then
    echo "setup.sh: warning: the pins in $(basename "$file") are for Python" \
      "$(pinned_for "$file"), this is $PYVER; installing the newest releases in range" >&2
    "${pip[@]}" install -q "${reqs[@]}"
  fi
  echo "$want" >"$stamp"
}

install_deps "the build, test and Ray dependencies into $VENV" "$VENV/.paimon-rowid-deps" "$pins" "${PIP[@]}" -- "${REQUIREMENTS[@]}"

# One wheel per checkout: built here (incremental: scikit-build-core keeps build/<wheel tag>,
# and every compile goes through ccache), then installed; another virtualenv of the same
# Python and pyarrow installs the same file (PAIMON_ROWID_WHEEL) without compiling anything.
WHEEL=${PAIMON_ROWID_WHEEL:-}
if [ -z "$WHEEL" ]; then
  say "building the paimon-rowid wheel into build/wheelhouse (the C++ core and the native module)"
  rm -f build/wheelhouse/paimon_rowid-*.whl
  "${PIP[@]}" wheel -q --no-build-isolation --no-deps --wheel-dir build/wheelhouse .
  WHEEL=$(ls build/wheelhouse/paimon_rowid-*.whl)
fi
[ -f "$WHEEL" ] || die "no paimon-rowid wheel at $WHEEL"
# Skipped when this very wheel is what is installed (the stamp holds the wheel's checksum and
# that of the RECORD pip wrote for it, so any other install in between is noticed).
installed() { cat "$VENV"/lib/python*/site-packages/paimon_rowid-*.dist-info/RECORD 2>/dev/null |
  sha256sum | cut -c1-16; }
wheel_sum=$(sha256sum "$WHEEL" | cut -c1-16)
if [ "$(cat "$VENV/.paimon-rowid-wheel" 2>/dev/null)" != "$wheel_sum $(installed)" ]; then
  say "pip install $(basename "$WHEEL") into $VENV"
  "${PIP[@]}" install -q --no-deps --force-reinstall "$WHEEL"
  echo "$wheel_sum $(installed)" >"$VENV/.paimon-rowid-wheel"
fi
"$VENV/bin/python" -c 'import paimon_rowid._native' ||
  die "paimon-rowid installed but its native module does not import"

# ---------------------------------------------------------------- the pypaimon oracle
make_venv "$ORACLE"
install_deps "the pypaimon oracle into $ORACLE" "$ORACLE/.paimon-rowid-deps" constraints-oracle.txt \
  "$ORACLE/bin/python" -m pip --disable-pip-version-check -- 'pypaimon[datafusion]==2.1.0' \
  'paimon-vindex==0.5.0' 'paimon-ftindex==0.1.0'

say "done: $("$VENV/bin/python" -c 'import sys, ray, pyarrow; print(
  "Python %d.%d.%d, pyarrow %s, Ray %s" % (sys.version_info[:3] + (pyarrow.__version__, ray.__version__)))')"
