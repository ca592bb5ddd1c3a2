#!/usr/bin/env bash
# Runs the whole test suite: a release build (suites unit, compile and gpu; gpu skips without a
# device), an AddressSanitizer + UBSan build of the same tests, a ThreadSanitizer build of the
# threads tests alone (suite threads: several contexts on several threads; LOOM_TSAN=0 leaves
# it out), and, where clang and its libFuzzer runtime exist, a smoke run of each tests/fuzz
# target (LOOM_FUZZ_SECONDS each, 12 by default, two targets at a time; LOOM_FUZZ=0 leaves them
# out), one test each.
# Prints "N passed, N failed" last and exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
cuda_root=${CUDA_ROOT:-/usr/local/cuda}
werror=${LOOM_WERROR:-false}
passed=0; failed=0
# The compile suite's NVRTC sweeps share one kernel disk cache between the two builds: the first
# compiles every kernel, the sanitizer build loads them (NVRTC behind ASan's allocator was most
# of that build's time) and still runs all of loom's own code. Fresh for every run.
export LOOM_TEST_KERNEL_CACHE="$PWD/build-kernel-cache"
rm -rf "$LOOM_TEST_KERNEL_CACHE"
run_suite() { # build-dir, meson options...
  local dir=$1; shift
  if [ ! -d "$dir" ]; then
    meson setup "$dir" -Dcudatoolkit="$cuda_root" -Dwerror="$werror" "$@" >"$dir.setup.log" 2>&1 ||
      { cat "$dir.setup.log"; failed=$((failed + 1)); return; }
  fi
  echo "== $dir: building ($(date +%T))"
  if ! meson compile -C "$dir" >"$dir.compile.log" 2>&1; then
    tail -50 "$dir.compile.log"; failed=$((failed + 1)); return
  fi
  echo "== $dir: testing ($(date +%T))"
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    meson test -C "$dir" --print-errorlogs --num-processes 2 || true
  tally "$dir"
}
tally() { # build-dir: adds its last meson test run to passed and failed
  local p f
  read -r p f < <(python3 - "$1/meson-logs/testlog.json" <<'PY'
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
# ThreadSanitizer on suite threads alone (tests/unit/test_threads.c on the CPU device and, with
# NVRTC, the compile-only one; the CUDA one skips without a device): only the library and that
# program are built, unoptimised (a third of -O2's build time; the run takes as long). Its
# contexts compile their kernels at once into a fresh cache of their own (not the shared one:
# concurrent compiles are part of what it checks). tests/tsan.supp names the CUDA libraries
# ThreadSanitizer cannot see into.
run_tsan() {
  local dir=build-tsan
  if [ ! -d "$dir" ]; then
    meson setup "$dir" -Dcudatoolkit="$cuda_root" -Dwerror="$werror" -Dbuildtype=debug \
      -Db_sanitize=thread -Db_lundef=false -Dbench=false >"$dir.setup.log" 2>&1 ||
      { cat "$dir.setup.log"; failed=$((failed + 1)); return; }
  fi
  echo "== $dir: building the threads test ($(date +%T))"
  if ! meson compile -C "$dir" tests/unit/test_threads >"$dir.compile.log" 2>&1; then
    tail -50 "$dir.compile.log"; failed=$((failed + 1)); return
  fi
  echo "== $dir: testing suite threads under ThreadSanitizer ($(date +%T))"
  env -u LOOM_TEST_KERNEL_CACHE TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/tests/tsan.supp" \
    meson test -C "$dir" --no-rebuild --suite threads --print-errorlogs --num-processes 2 || true
  tally "$dir"
}
[ "${LOOM_TSAN:-1}" = 0 ] || run_tsan
run_fuzz() { # each libFuzzer target for a short while (tools/fuzz.sh); 77: no clang/libFuzzer
  local t rc targets=(fuzz_parse fuzz_npy fuzz_dlpack fuzz_api)
  export LOOM_FUZZ_CLEAN=1 LOOM_FUZZ_BUILD="$PWD/build-fuzz"
  echo "== build-fuzz: building the fuzz targets with clang ($(date +%T))"
  for t in "${targets[@]}"; do # build them one after another (one build folder) ...
    tools/fuzz.sh "$t" 0
    rc=$?
    [ "$rc" = 77 ] && { echo "fuzz: clang with libFuzzer not found; fuzz targets skipped"; return; }
    [ "$rc" = 0 ] || { failed=$((failed + 1)); return; }
  done
  echo "== fuzz: ${LOOM_FUZZ_SECONDS:-12} s a target, two at a time ($(date +%T))"
  local i j pids
  for ((i = 0; i < ${#targets[@]}; i += 2)); do # ... then run them in pairs (one core each)
    pids=()
    for t in "${targets[@]:i:2}"; do
      tools/fuzz.sh "$t" "${LOOM_FUZZ_SECONDS:-12}" >"build-fuzz.$t.run.log" 2>&1 &
      pids+=($!)
    done
    j=0
    for t in "${targets[@]:i:2}"; do
      wait "${pids[j]}"
      rc=$?
      j=$((j + 1))
      cat "build-fuzz.$t.run.log"
      if [ "$rc" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
    done
  done
}
[ "${LOOM_FUZZ:-1}" = 0 ] || run_fuzz
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
