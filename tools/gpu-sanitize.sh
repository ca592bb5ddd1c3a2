#!/usr/bin/env bash
# Runs the gpu suite's programs under compute-sanitizer with the pool off (LOOM_POOL=0), so that
# every device buffer is its own allocation of its exact size and memcheck sees each one.
#   tools/gpu-sanitize.sh BUILD_DIR [TOOL...]      (default tools: memcheck racecheck initcheck synccheck)
# LOOM_SANITIZE_PROGS names the programs (default: every tests/gpu program), LOOM_SANITIZE_SECONDS
# limits each run (default 600). Prints one summary line per tool and program; exits non-zero when
# a tool reports an error or a program fails. API errors are not reported: the tests provoke them
# on purpose (out of memory, refused launches). Needs a GPU; run it on a release build.
set -uo pipefail
if [ $# -lt 1 ]; then echo "usage: $0 BUILD_DIR [TOOL...]" >&2; exit 2; fi
build=$1; shift
tools=${*:-memcheck racecheck initcheck synccheck}
progs=${LOOM_SANITIZE_PROGS:-$(find "$build/tests/gpu" -maxdepth 1 -type f -perm -u+x -name 'test_*' -printf '%f ')}
command -v compute-sanitizer >/dev/null || { echo "gpu-sanitize.sh: compute-sanitizer not found" >&2; exit 77; }
logs=$(mktemp -d /tmp/loom-sanitize.XXXXXX)
bad=0
for tool in $tools; do
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check full)
  for p in $progs; do
    t0=$(date +%s)
    LOOM_POOL=0 timeout "${LOOM_SANITIZE_SECONDS:-600}" compute-sanitizer --tool "$tool" \
      "${extra[@]}" --report-api-errors no --error-exitcode 99 "$build/tests/gpu/$p" \
      >"$logs/${tool}_$p.log" 2>&1
    rc=$?
    summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/${tool}_$p.log" | head -1 | sed 's/^========= //')
    echo "$tool $p: exit $rc, $(( $(date +%s) - t0 )) s, ${summary:-no summary}"
    [ "$rc" = 0 ] || bad=1
  done
done
echo "logs in $logs"
exit $bad
