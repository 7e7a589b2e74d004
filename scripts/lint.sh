#!/usr/bin/env bash
# The lint steps CI runs before the tests (and a contributor before a commit), failing fast:
#   - ruff over the tree (pyproject.toml [tool.ruff]);
#   - mypy over the package, with the _native.pyi stub (pyproject.toml [tool.mypy]), and
#     mypy --strict over examples/ against the installed package (it ships py.typed);
#   - clang-format --dry-run -Werror over every tracked C++ file (.clang-format). The formatting
#     is the one of Debian's clang-format package (14 on Debian 12), installed here when missing;
#     another clang-format major may format a few constructs differently.
# Needs the virtualenv of scripts/setup.sh (PAIMON_ROWID_VENV, default .venv).
# With --fix, applies ruff's fixes and clang-format in place instead of checking.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${PAIMON_ROWID_VENV:-$(pwd)/.venv}
fix=0; [ "${1:-}" = "--fix" ] && fix=1

if ! command -v clang-format >/dev/null; then
  command -v apt-get >/dev/null || { echo "lint.sh: clang-format is missing (and no apt-get here)" >&2; exit 1; }
  SUDO=""; [ "$(id -u)" != "0" ] && command -v sudo >/dev/null && SUDO=sudo
  echo "== lint: apt-get install clang-format"
  $SUDO apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q clang-format >/dev/null
fi

mapfile -t cxx < <(git ls-files '*.cc' '*.h' '*.cpp' '*.hpp')
if [ "$fix" = 1 ]; then
  "$VENV/bin/python" -m ruff check --fix .
  clang-format -i "${cxx[@]}"
  exit 0
fi
echo "== lint: ruff"
"$VENV/bin/python" -m ruff check .
echo "== lint: mypy"
"$VENV/bin/python" -m mypy
# What a user's type checker sees: the installed package (py.typed) under --strict.
echo "== lint: mypy --strict examples/"
"$VENV/bin/python" -m mypy --strict examples/
echo "== lint: clang-format ($(clang-format --version | sed 's/.*version \([0-9.]*\).*/\1/'), ${#cxx[@]} files)"
clang-format --dry-run -Werror "${cxx[@]}"
