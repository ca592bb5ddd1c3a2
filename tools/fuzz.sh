#!/usr/bin/env bash
# Builds a libFuzzer target of tests/fuzz (fuzz_parse, fuzz_npy, fuzz_dlpack, fuzz_api) with
# clang, AddressSanitizer and UBSan, in build-fuzz (or $LOOM_FUZZ_BUILD), and runs it for SECONDS
# on a copy of its seed corpus in a fresh folder under /tmp. Extra arguments go to libFuzzer
# (-jobs=N, -dict=..., -only_ascii=1). Prints the executed-run count; exits non-zero on a
# finding, with the path of the input that triggers it (crash-*, leak-*, timeout-*, oom-*).
# The folder (log, grown corpus) stays, unless LOOM_FUZZ_CLEAN=1 and the run found nothing.
# SECONDS 0 builds the target and runs nothing. Needs clang (or $LOOM_FUZZ_CC, e.g. clang-16) and
# its fuzzer runtime (Debian: libclang-rt-14-dev); exits 77 without them.
set -uo pipefail
if [ $# -lt 2 ]; then echo "usage: $0 TARGET SECONDS [libFuzzer args...]" >&2; exit 2; fi
target=$1 secs=$2; shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LOOM_FUZZ_BUILD:-$root/build-fuzz}
[ -f "$root/tests/fuzz/$target.c" ] || { echo "fuzz.sh: no tests/fuzz/$target.c" >&2; exit 2; }
cc=${LOOM_FUZZ_CC:-clang}
if ! command -v "$cc" >/dev/null ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
     "$cc" -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
  echo "fuzz.sh: clang with libFuzzer not found; skipped" >&2; exit 77
fi
if [ ! -f "$build/build.ninja" ]; then
  CC=$cc meson setup "$build" "$root" -Dcuda=disabled -Dbench=false \
    -Dbuildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link >"$build.setup.log" 2>&1 ||
    { cat "$build.setup.log"; exit 1; }
fi
compile() { meson compile ${LOOM_FUZZ_JOBS:+-j "$LOOM_FUZZ_JOBS"} -C "$build" "tests/fuzz/$target"; }
# A build folder from before the target existed knows no such target: reconfigure it once.
compile >"$build.$target.log" 2>&1 ||
  { meson setup --reconfigure "$build" "$root" >>"$build.$target.log" 2>&1 &&
    compile >>"$build.$target.log" 2>&1; } ||
  { tail -50 "$build.$target.log"; exit 1; }
[ "$secs" = 0 ] && exit 0
work=$(mktemp -d "/tmp/loom-$target.XXXXXX")
mkdir "$work/corpus"
cp "$root/tests/fuzz/corpus/$target/"* "$work/corpus/" 2>/dev/null
echo "fuzz.sh: $target for ${secs}s in $work"
# Our defaults first: libFuzzer takes the last value of a flag, so extra arguments win.
# allocator_may_return_null: an allocation past the machine's memory fails as glibc's malloc
# would (the library then reports OUT_OF_MEMORY), where ASan would abort: a builder that
# evaluates inside (polyfit's lstsq, a mask's count) can be asked for any size
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
  "$build/tests/fuzz/$target" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$@" "$work/corpus" >"$work/log" 2>&1
rc=$?
grep -E '^(INFO: Seed|#[0-9]+ *DONE|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)' "$work/log"
if [ "$rc" != 0 ]; then
  grep -E -A40 '^==[0-9]+==ERROR|runtime error|^SUMMARY' "$work/log" | head -80
  echo "fuzz.sh: $target FAILED (exit $rc); log $work/log; input:"
  ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-* 2>/dev/null
  exit 1
fi
echo "fuzz.sh: $target ok ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" |
  grep -o '[0-9]*$') runs in ${secs}s)"
[ "${LOOM_FUZZ_CLEAN:-0}" = 1 ] && rm -rf "$work"
exit 0
