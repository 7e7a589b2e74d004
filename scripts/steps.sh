# Sourced by .ci/run, scripts/test.sh and scripts/fuzz.sh: times the steps of a run.
#   step NAME COMMAND...   runs COMMAND (an executable, not a shell function: `set -e` does not
#                          reach into a function called this way) and, when PAIMON_ROWID_STEPS
#                          names a file, appends "NAME<TAB>seconds<TAB>exit status" to it;
#                          returns COMMAND's status
#   step_since NAME START  records a step that began at START (date +%s) and ends now
#   step_table             prints that file as a table with the total (.ci/run does at its end,
#                          also when a step failed)
step() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  "$@" || rc=$?
  if [ -n "${PAIMON_ROWID_STEPS:-}" ]; then
    printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - start))" "$rc" >>"$PAIMON_ROWID_STEPS"
  fi
  return "$rc"
}

step_since() {
  if [ -n "${PAIMON_ROWID_STEPS:-}" ]; then
    printf '%s\t%s\t0\n' "$1" "$(($(date +%s) - $2))" >>"$PAIMON_ROWID_STEPS"
  fi
}

step_table() {
  [ -n "${PAIMON_ROWID_STEPS:-}" ] && [ -s "$PAIMON_ROWID_STEPS" ] || return 0
  awk -F'\t' '
    BEGIN { printf "%-44s %8s %8s\n", "step", "seconds", "status"; line() }
    { printf "%-44s %8d %8s\n", $1, $2, ($3 == 0 ? "ok" : "exit " $3); total += $2 }
    END { line(); printf "%-44s %8d %8s\n", "sum of the steps", total, sprintf("%d:%02d", total / 60, total % 60) }
    function line() { printf "%s\n", "------------------------------------------------------------------" }
  ' "$PAIMON_ROWID_STEPS"
}
