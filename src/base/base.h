/* base — what every layer shares: the allocator, sticky errors, arena, string builder,
 * hashing, logging and safe file writes. Nothing here knows about arrays, the IR or CUDA. */
#ifndef LOOM_BASE_H
#define LOOM_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "loom.h"

/* ---- alloc.c: the one allocator ----
 * Every allocation goes through a base_alloc, which checks n * size for overflow and which
 * tests can make fail (fail_after counts down successful allocations; 0 = fail now, and every
 * later allocation too unless fail_once, which fails just that one). */
typedef struct base_alloc {
    int64_t fail_after; /* < 0: never fail */
    bool fail_once;     /* a failure injected through fail_after ends the injection */
    uint64_t n_live;    /* outstanding allocations, for leak checks */
    uint64_t n_failed;  /* failures injected so far */
} base_alloc_t;

void *base_malloc(base_alloc_t *al, size_t n, size_t size);
void *base_calloc(base_alloc_t *al, size_t n, size_t size);
void *base_realloc(base_alloc_t *al, void *p, size_t n, size_t size);
/* bytes (0 counts as 1) at a multiple of align (a power of two, >= sizeof(void *)); base_free
 * frees it. */
void *base_memalign(base_alloc_t *al, size_t align, size_t bytes);
void base_free(base_alloc_t *al, void *p);
char *base_strdup(base_alloc_t *al, const char *s);
/* *out = a * b, returns false on overflow (also for negative operands). */
bool base_mul_i64(int64_t a, int64_t b, int64_t *out);
bool base_mul_size(size_t a, size_t b, size_t *out);

/* ---- error.c: sticky first error ----
 * base_error_set is the one place every error passes (a breakpoint there catches them all). */
typedef struct base_error {
    loom_status_t status;
    char message[1024];
} base_error_t;

loom_status_t base_error_set(base_error_t *err, loom_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
loom_status_t base_error_setv(base_error_t *err, loom_status_t status, const char *fmt,
                              va_list ap);
void base_error_clear(base_error_t *err);
/* base_error_setv, and the message logged (LOOM_LOG_ERROR) when it is the first error. */
struct base_log;
loom_status_t base_error_report(base_error_t *err, const struct base_log *log,
                                loom_status_t status, const char *fmt, va_list ap);

/* ---- arena.c: per-eval memory, freed at once ---- */
typedef struct base_arena_block base_arena_block_t;
typedef struct base_arena {
    base_alloc_t *al;
    base_arena_block_t *head;
    base_arena_block_t *first; /* the caller's buffer (base_arena_init_buf), not freed */
    bool failed;
} base_arena_t;

void base_arena_init(base_arena_t *a, base_alloc_t *al);
/* An arena whose first block is the caller's buf of size bytes (on its stack, say), so that a
 * small use allocates nothing; larger ones go on in allocated blocks. buf must outlive the
 * arena; base_arena_fini leaves it alone. */
void base_arena_init_buf(base_arena_t *a, base_alloc_t *al, void *buf, size_t size);
void base_arena_fini(base_arena_t *a);
/* Zeroed, 16-byte aligned memory, or NULL (and a->failed) on overflow or exhaustion. */
void *base_arena_alloc(base_arena_t *a, size_t n, size_t size);
/* The same, not zeroed: for arrays the caller fills before reading (the IR's node list). */
void *base_arena_alloc_raw(base_arena_t *a, size_t n, size_t size);

/* ---- strbuf.c: string builder with a sticky error (SQLite's sqlite3_str) ---- */
typedef struct base_str {
    base_alloc_t *al;
    char *p;
    size_t len, cap;
    bool failed;
} base_str_t;

void base_str_init(base_str_t *s, base_alloc_t *al);
void base_str_fini(base_str_t *s);
void base_str_cat(base_str_t *s, const char *text);
void base_str_catn(base_str_t *s, const char *text, size_t n);
void base_str_printf(base_str_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void base_str_vprintf(base_str_t *s, const char *fmt, va_list ap);
/* The text so far ("" if empty); valid until the next change. */
const char *base_str_get(const base_str_t *s);
void base_str_reset(base_str_t *s);

/* ---- file.c: files written whole or not at all; reading without blocking ---- */
typedef struct base_span {
    const void *p;
    size_t n;
} base_span_t;

/* Writes the n_parts byte ranges, in order, to path (relative to the folder dirfd; AT_FDCWD
 * for the working folder) atomically and safely: into a new temp file in the same folder
 * (O_CREAT | O_EXCL | O_NOFOLLOW, created with mode less the umask), fsync'd when durable (user
 * data; not kernel-cache entries, which carry a checksum, nor dumps), then renamed over path.
 * Whatever is at path is replaced, not written through: a symbolic link there is replaced by
 * the file and its target left alone (callers that must not replace some kinds of
 * file look first). Returns 0, or the errno of the first failure (ENOMEM when al fails,
 * EISDIR when path names no file); then path is as it was and no temp file remains. */
int base_file_replace(base_alloc_t *al, int dirfd, const char *path, const base_span_t *parts,
                      size_t n_parts, unsigned mode, bool durable);
/* A diagnostic file (LOOM_DUMP): n bytes of text written to dir/name.ext by base_file_replace, so
 * that a symlink planted at the predictable name is replaced, never followed; a failure is
 * logged (INFO), never an error. */
struct base_log;
void base_file_dump(base_alloc_t *al, const struct base_log *log, const char *dir,
                    const char *name, const char *ext, const char *text, size_t n);
/* Writes n bytes to fd, retrying short writes and EINTR. 0, or the errno (ENOSPC when a write
 * takes nothing). */
int base_write_all(int fd, const void *p, size_t n);
/* Opens path (relative to dirfd) for reading if it is a regular file, never blocking on a
 * FIFO or device: the type is checked before and, on the descriptor, after an O_NONBLOCK open
 * (cleared again on success). follow: whether a symbolic link at path is followed; if not,
 * the link itself counts as not regular. Returns the descriptor; -1 with errno when it cannot
 * be opened; -2 when it is not a regular file, *st then saying what it is. */
struct stat;
int base_file_open_regular(int dirfd, const char *path, bool follow, struct stat *st);
/* "a folder", "a FIFO", "a symbolic link", ... for a st_mode. */
const char *base_file_kind(unsigned mode);

/* ---- hash.c: xxHash wrappers ---- */
uint64_t base_hash64(const void *data, size_t n, uint64_t seed);
typedef struct base_hash128 {
    uint64_t lo, hi;
} base_hash128_t;
base_hash128_t base_hash128(const void *data, size_t n);
/* Combines a value into a running structural hash. */
static inline uint64_t base_hash_mix(uint64_t h, uint64_t v) {
    v *= 0x9E3779B97F4A7C15ull;
    v ^= v >> 29;
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* ---- log.c ---- */
typedef struct base_log {
    loom_log_level_t level;
    loom_log_fn fn;
    void *user;
} base_log_t;

void base_log(const base_log_t *log, loom_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Time in milliseconds from a monotonic clock. */
double base_now_ms(void);

#define BASE_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
