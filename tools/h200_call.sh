#!/usr/bin/env bash
# The batches of the H200 device calls of session 3 (copy to .gpu/call.sh, which the device tool
# carries with .gpu): .gpu/call.sh build suite final peers2 ... Logs go to $OUT, packed into all.tgz
# (the tool returns at most 8 files). See ../shared/gpu/README.md.
# usage: .gpu/call.sh <what...>   (build, suite, bench, peers, sanit)
set -o pipefail
source .gpu/env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee $OUT/gpu.txt
B=build-gpu
for w in "$@"; do case $w in
build) (meson setup $B -Dbuildtype=release >/dev/null && time meson compile -C $B) > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; } ;;
suite) timeout 300 meson test -C $B --suite gpu --print-errorlogs --num-processes 1 2>&1 | tee $OUT/suite.log | grep -E "^ *[0-9]+/[0-9]+|Ok:|Fail:" ;;
bench) for b in bench_elementwise bench_reduce bench_matmul; do LOOM_LOG=info timeout 120 $B/bench/$b > $OUT/$b.txt 2>$OUT/$b.err; echo "== $b rc=$?"; grep -v "^\[loom" $OUT/$b.txt | tail -40; done
       timeout 90 $B/bench/bench_transfer 8 > $OUT/bench_transfer.txt 2>&1; echo "== transfer rc=$?"; tail -30 $OUT/bench_transfer.txt ;;
peers) PYTHONUNBUFFERED=1 timeout 240 python3 .gpu/peers.py limits hypot_64M softmax_8192x8192 layernorm_8192x8192 matmul_8192_f16 gelu_64M outer_8192x8192 dispatch_15op_1k images_1000x32x32_roundtrip > $OUT/peers.txt 2>&1; sed -n '/== table ==/,$p' $OUT/peers.txt ;;
ewx) for cfg in "1 1 0" "2 1 0" "4 1 0" "1 0 0" "2 0 0" "4 0 0" "2 1 1" "2 0 1" "1 1 1"; do set -- $cfg
       echo "== unroll $1 waves $2 stcs $3"; LOOM_EW_UNROLL=$1 LOOM_EW_WAVES=$2 LOOM_EW_STCS=$3 $B/bench/bench_elementwise bw | grep -v "^loom"; done 2>&1 | tee $OUT/ewx.txt ;;
ew) $B/bench/bench_elementwise 2>&1 | grep -v "^loom info" | tee $OUT/ew.txt; echo "== MALLOC_TRIM_THRESHOLD_=1e9"; MALLOC_TRIM_THRESHOLD_=1000000000 $B/bench/bench_elementwise 2>&1 | grep -E "compile" ; $B/bench/bench_compile --reps 21 2>&1 | tail -6; echo "== host (mock driver) on this CPU"; $B/bench/bench_host 2>&1 | tail -8 ;;
onl) (which ncu nsys; $B/tests/gpu/test_reduce 2>&1 | tail -4
     for cfg in "16 1024" "8 1024" "32 1024" "16 512" "32 512" "16 256" "64 256"; do set -- $cfg; echo "== online blocks/SM $1, block $2"; LOOM_ONLINE_BLOCKS=$1 LOOM_ONLINE_BLOCK=$2 $B/bench/bench_reduce softmax_rows_64x1M | tail -1; done
     echo "== keep heap off"; LOOM_KEEP_HEAP=0 $B/bench/bench_elementwise 2>&1 | grep compile_cold; echo "== keep heap on"; $B/bench/bench_elementwise 2>&1 | grep -E "compile|dispatch"
     if which ncu >/dev/null; then timeout 120 ncu --section SpeedOfLight --section Occupancy -k regex:loom_rd -c 2 $B/bench/bench_reduce softmax_rows_64x1M > $OUT/ncu.txt 2>&1; grep -E "Duration|Throughput|loom_rd|Achieved Occ|Registers" $OUT/ncu.txt | head -30; fi) 2>&1 | tee $OUT/onl.txt ;;
final) LOOM_LOG=info $B/bench/bench_matmul 2>&1 | grep -v "eval: h2d" > $OUT/mm.txt; grep -v "^loom" $OUT/mm.txt; timeout 150 python3 bench/peers_matmul.py 2>&1 | tee $OUT/pm.txt
   $B/bench/bench_reduce 2>&1 | tee $OUT/red.txt; $B/bench/bench_elementwise 2>&1 | grep -v "^loom info" | tee $OUT/ew.txt
   timeout 90 $B/bench/bench_transfer 8 2>&1 | tee $OUT/tr.txt; $B/bench/bench_host 2>&1 | tail -3 | tee $OUT/host.txt ;;
heap) for i in 1 2; do echo "== default"; LOOM_LOG=info $B/bench/bench_elementwise 2>&1 | grep -E "compile_cold|malloc"; done; echo "== LOOM_KEEP_HEAP=0"; LOOM_KEEP_HEAP=0 $B/bench/bench_elementwise 2>&1 | grep -E "compile_cold" ;;
last) $B/bench/bench_elementwise bw 2>&1 | tee $OUT/bw.txt; PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/peers.py limits hypot_20M > $OUT/peers.txt 2>&1; sed -n '/== table ==/,$p' $OUT/peers.txt | grep -v "cupy.fuse\|extern" ;;
tr) timeout 90 $B/bench/bench_transfer 8 2>&1 | tee $OUT/tr.txt ;;
pm) timeout 150 python3 bench/peers_matmul.py 2>&1 | tee $OUT/pm.txt ;;
race) python3 -c "
import numpy as np; r=np.random.default_rng(1)
np.save('/tmp/a.npy', r.standard_normal((64,8192)).astype(np.float32)); np.save('/tmp/b.npy', r.standard_normal((8,200000)).astype(np.float32)); np.save('/tmp/c.npy', r.standard_normal((300,1000)).astype(np.float32))"
   L=$B/src/cli/loom; export LOOM_POOL=0
   for e in "mu=mean(x,axis=1,keepdims=True); v=mean((x-mu)**2,axis=1,keepdims=True); (x-mu)/sqrt(v+1e-5)" "e=exp(x-max(x,axis=1,keepdims=True)); e/sum(e,axis=1,keepdims=True)" "argmax(x,axis=1)" "sum(x,axis=0)" "std(x)"; do
     for f in /tmp/a.npy /tmp/b.npy /tmp/c.npy; do timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 $L eval "$e" x=$f --device cuda -o /tmp/o.npy > /tmp/rc.txt 2>&1; echo "racecheck rc=$? $f $e" | cut -c1-110; grep -m3 "hazard\|ERROR" /tmp/rc.txt; done; done 2>&1 | tee $OUT/race.txt ;;
ewo) for wv in 1 2 4; do echo "== waves $wv"; LOOM_EW_WAVES=$wv $B/bench/bench_elementwise bw | grep -v "^loom"; done 2>&1 | tee $OUT/ewo.txt ;;
red) $B/bench/bench_reduce 2>&1 | tee $OUT/red.txt ;;
peers2) PYTHONUNBUFFERED=1 timeout 200 python3 .gpu/peers.py $PEERS > $OUT/peers.txt 2>&1; sed -n '/== table ==/,$p' $OUT/peers.txt ;;
mm) LOOM_LOG=info $B/bench/bench_matmul 2>&1 | grep -v "eval: h2d" | tee $OUT/mm.txt; $B/bench/bench_matmul pos 2>&1 | tee $OUT/mm_pos.txt; timeout 120 python3 .gpu/mm.py 2>&1 | tee $OUT/mm_py.txt ;;
esac; done
(cd $OUT && tar czf all.tgz --exclude=all.tgz . && find . -type f ! -name all.tgz -delete)
