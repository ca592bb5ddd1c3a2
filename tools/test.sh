#!/usr/bin/env bash
# Runs the whole test suite: a release build (suites unit, compile and gpu; gpu skips without a
# device) and an AddressSanitizer + UBSan build of the same tests. Prints "N passed, N failed"
# last and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
cuda_root=${CUDA_ROOT:-/usr/local/cuda}
werror=${LOOM_WERROR:-false}
passed=0; failed=0
run_suite() { # build-dir, meson options...
  local dir=$1; shift
  if [ ! -d "$dir" ]; then
    meson setup "$dir" -Dcudatoolkit="$cuda_root" -Dwerror="$werror" "$@" >"$dir.setup.log" 2>&1 ||
      { cat "$dir.setup.log"; failed=$((failed + 1)); return; }
  fi
  if ! meson compile -C "$dir" >"$dir.compile.log" 2>&1; then
    tail -50 "$dir.compile.log"; failed=$((failed + 1)); return
  fi
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    meson test -C "$dir" --print-errorlogs --num-processes 2 || true
  read -r p f < <(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r == "OK": p += 1
    elif r not in ("SKIP", "EXPECTEDFAIL"): f += 1
print(p, f)
PY
)
  passed=$((passed + p)); failed=$((failed + f))
}
run_suite build-test -Dbuildtype=debugoptimized
run_suite build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
