/* misc.c — hashing (xxHash), logging and the clock. */
#include <stdio.h>
#include <time.h>
#include <xxhash.h>

#include "base.h"

uint64_t base_hash64(const void *data, size_t n, uint64_t seed) {
    return XXH3_64bits_withSeed(data, n, seed);
}

base_hash128_t base_hash128(const void *data, size_t n) {
    XXH128_hash_t h = XXH3_128bits(data, n);
    return (base_hash128_t){h.low64, h.high64};
}

void base_log(const base_log_t *log, loom_log_level_t level, const char *fmt, ...) {
    if (!log || !log->fn || level > log->level || level == LOOM_LOG_OFF) return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log->fn(log->user, level, line);
}

double base_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
