#!/usr/bin/env bash
# Installs everything paimon-rowid needs on a fresh Debian machine and builds it:
#   - system packages: a C++20 compiler, CMake, Ninja, GoogleTest, nlohmann-json;
#   - Python packages: the pinned pyarrow (its Arrow C++/Parquet C++ are the ones we link),
#     nanobind, scikit-build-core, test and Ray extras;
#   - paimon-rowid itself (pip install: builds the C++ core and the native module);
#   - the pypaimon oracle in its own virtualenv (its pyarrow pin differs from ours).
# Idempotent: steps already done are skipped quickly.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need_apt=""
for pkg in g++ cmake ninja-build libgtest-dev nlohmann-json3-dev openjdk-17-jdk-headless maven; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt="$need_apt $pkg"
done
if [ -n "$need_apt" ]; then
  echo "== apt-get install$need_apt"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $need_apt >/dev/null
fi

echo "== pip install build and test dependencies"
$PY -m pip install -q --disable-pip-version-check \
  'pyarrow==22.0.*' 'nanobind>=2.9' 'scikit-build-core>=0.10' 'numpy>=1.23' 'pandas>=1.5,<3' \
  'pytest>=7' 'pytest-timeout>=2.1' 'psutil>=5.9' 'ray[data]>=2.50,<3'

echo "== pip install paimon-rowid (C++ core + native module)"
$PY -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps .

ORACLE=${PAIMON_ROWID_ORACLE_VENV:-$HOME/.cache/paimon-rowid-oracle}
if ! "$ORACLE/bin/python" -c 'import pypaimon' >/dev/null 2>&1; then
  echo "== creating the pypaimon oracle virtualenv at $ORACLE"
  $PY -m venv "$ORACLE"
  "$ORACLE/bin/pip" install -q --disable-pip-version-check 'pypaimon==2.1.0'
fi
echo "== setup done"
