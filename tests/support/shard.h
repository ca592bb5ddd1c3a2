/* shard.h — one shard of a cmocka group, for test programs whose cases take minutes (the
 * compile suite's NVRTC sweeps): meson runs each program several times, argument "K/N" picking
 * every Nth case from the Kth, so the shards run in parallel and each stays far from its
 * timeout. Without an argument every case runs. Header-only. */
#ifndef LOOM_TESTS_SHARD_H
#define LOOM_TESTS_SHARD_H

#include <stdio.h>

/* Copies the cases of shard argv[1] ("K/N", 0 <= K < N) of tests[0..n) to out (n entries);
 * returns how many, or -1 (with a message) for a malformed argument. */
static inline int shard_pick(int argc, char **argv, const struct CMUnitTest *tests, int n,
                             struct CMUnitTest *out) {
    int k = 0, of = 1;
    if (argc > 1 && (sscanf(argv[1], "%d/%d", &k, &of) != 2 || of < 1 || k < 0 || k >= of)) {
        fprintf(stderr, "%s: the argument is a shard K/N with 0 <= K < N, not '%s'\n", argv[0],
                argv[1]);
        return -1;
    }
    int picked = 0;
    for (int i = k; i < n; i += of) out[picked++] = tests[i];
    return picked;
}

#endif
