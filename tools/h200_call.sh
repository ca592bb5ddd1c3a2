#!/usr/bin/env bash
# The batches of the H200 device calls of session 3 (copy to .gpu/call.sh, which the device tool
# carries with .gpu): .gpu/call.sh build suite final peers2 ... Logs go to $OUT, packed into all.tgz
# (the tool returns at most 8 files). See ../shared/gpu/README.md. The experiment modes of the
# session (knobs since removed) are left out; docs/status.md lists what to run first.
# usage: .gpu/call.sh <what...>   (build, suite, bench, peers, red, psl, redt, ab, ss, ...)
# ab: ABC="X=0 K1=1,K2=3" ABF="softmax_rows layernorm": bench_reduce filters under each set of
# environment knobs (comma-separated), twice, alternating.
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
ew) $B/bench/bench_elementwise 2>&1 | grep -v "^loom info" | tee $OUT/ew.txt; $B/bench/bench_compile --reps 21 2>&1 | tail -6; echo "== host (mock driver) on this CPU"; $B/bench/bench_host 2>&1 | tail -8 ;;
final) LOOM_LOG=info $B/bench/bench_matmul 2>&1 | grep -v "eval: h2d" > $OUT/mm.txt; grep -v "^loom" $OUT/mm.txt; timeout 150 python3 bench/peers_matmul.py 2>&1 | tee $OUT/pm.txt
   $B/bench/bench_reduce 2>&1 | tee $OUT/red.txt; $B/bench/bench_elementwise 2>&1 | grep -v "^loom info" | tee $OUT/ew.txt
   timeout 90 $B/bench/bench_transfer 8 2>&1 | tee $OUT/tr.txt; $B/bench/bench_host 2>&1 | tail -3 | tee $OUT/host.txt ;;
last) $B/bench/bench_elementwise bw 2>&1 | tee $OUT/bw.txt; PYTHONUNBUFFERED=1 timeout 100 python3 .gpu/peers.py limits hypot_20M > $OUT/peers.txt 2>&1; sed -n '/== table ==/,$p' $OUT/peers.txt | grep -v "cupy.fuse\|extern" ;;
tr) timeout 90 $B/bench/bench_transfer 8 2>&1 | tee $OUT/tr.txt ;;
pm) timeout 150 python3 bench/peers_matmul.py 2>&1 | tee $OUT/pm.txt ;;
red) $B/bench/bench_reduce 2>&1 | tee $OUT/red.txt ;;
ab) for rep in 1 2; do for c in $ABC; do for f in $ABF; do echo "== $c $f"; env ${c//,/ } timeout 60 $B/bench/bench_reduce $f 2>&1 | grep -v "^loom" | grep "us "; done; done; done 2>&1 | tee $OUT/ab.txt ;;
redt) timeout 300 meson test -C $B reduce views batch --print-errorlogs --num-processes 1 2>&1 | tee $OUT/redt.log | grep -E "^ *[0-9]+/[0-9]+|Ok:|Fail:" ;;
peers2) PYTHONUNBUFFERED=1 timeout 200 python3 .gpu/peers.py $PEERS > $OUT/peers.txt 2>&1; sed -n '/== table ==/,$p' $OUT/peers.txt ;;
ss) timeout 200 python3 bench/same_stream.py $B/libloom.so 2>&1 | tee -a $OUT/ss.txt | grep -v Warning ;;
psl) timeout 150 python3 bench/peers_softmax_long.py 2>&1 | tee $OUT/psl.txt ;;
race) python3 -c "
import numpy as np; r=np.random.default_rng(1)
np.save('/tmp/b.npy', r.standard_normal((8,200000)).astype(np.float32)); np.save('/tmp/d.npy', r.standard_normal((3,1<<20)).astype(np.float32))"
   L=$B/src/cli/loom; export LOOM_POOL=0
   for t in racecheck memcheck; do for e in "e=exp(x-max(x,axis=1,keepdims=True)); e/sum(e,axis=1,keepdims=True)" "m=max(x,axis=1,keepdims=True); x-m-log(sum(exp(x-m),axis=1,keepdims=True))"; do
     for f in /tmp/b.npy /tmp/d.npy; do timeout 100 compute-sanitizer --tool $t --error-exitcode 9 $L eval "$e" x=$f --device cuda -o /tmp/o.npy > /tmp/rc.txt 2>&1; echo "$t rc=$? $f $e" | cut -c1-120; grep -m3 "hazard\|ERROR\|Invalid" /tmp/rc.txt; done; done; done 2>&1 | tee $OUT/race.txt ;;
esac; done
# (the archive is written outside $OUT: tar exits 1 on a file that changes under it)
(tar czf /tmp/all.tgz -C $OUT . && mv /tmp/all.tgz $OUT/ && cd $OUT && find . -type f ! -name all.tgz -delete)
