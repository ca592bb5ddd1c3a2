/* npy.c — NumPy's .npy files: load (format versions 1.0, 2.0, 3.0; either byte order; C or
 * Fortran order, transposed into C order on the host) and save (version 1.0, little-endian, C
 * order). bfloat16, which NumPy lacks, is stored as '<V2' (two raw bytes), what np.save writes
 * for ml_dtypes.bfloat16; '<V2' and '|V2' load back as bfloat16. Every problem with a file is
 * an error that names the file and what is wrong.
 *
 * Loading follows a symbolic link (inputs often are links) but reads only regular files: a
 * FIFO or device is refused at once, never waited on. Saving never damages what is there: the
 * file is written whole to a temp file beside the target and renamed over it (base_file_replace),
 * so a failed save leaves the old file as it was. A character device (/dev/null, a terminal) is
 * written as a stream instead; anything else that is not a regular file (a folder, FIFO,
 * socket, block device, or a symbolic link other than one to a character device) is refused
 * and left alone: replacing a link would silently undo what the user set up (or, for
 * /dev/stdout, break the system), following it lets a planted link aim the write. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fe.h"

static const char MAGIC[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* NumPy's kind character of each dtype ('V' for bfloat16). */
static char descr_kind(loom_dtype_t d) {
    switch (d) {
        case LOOM_DTYPE_BOOL:
            return 'b';
        case LOOM_DTYPE_BF16:
            return 'V';
        default:
            return ir_dtypes[d].kind == IR_DKIND_FLOAT     ? 'f'
                   : ir_dtypes[d].kind == IR_DKIND_COMPLEX ? 'c'
                   : ir_dtypes[d].kind == IR_DKIND_UINT    ? 'u'
                                                           : 'i';
    }
}

/* The dtype of a descr such as '<f4', '|b1', '>i8', '<V2'; sets *swap for big-endian data. */
static int descr_dtype(const char *s, bool *swap) {
    size_t n = strlen(s);
    if (n < 3 || !strchr("<>|=", s[0])) return -1;
    char kind = s[1];
    char *end;
    long size = strtol(s + 2, &end, 10);
    if (*end || size <= 0) return -1;
    *swap = s[0] == '>' && size > 1 && kind != 'V';
    if (kind == 'V') return size == 2 ? LOOM_DTYPE_BF16 : -1;
    if (kind == '?') kind = 'b';
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++)
        if (d != LOOM_DTYPE_BF16 && descr_kind((loom_dtype_t)d) == kind &&
            (long)ir_dtypes[d].size == size)
            return d;
    return -1;
}

/* ---- The header: a Python dict literal ---- */

typedef struct hdr {
    const char *p, *end;
    char descr[32];
    int fortran;  /* -1 until seen */
    int32_t ndim; /* -1 until seen */
    int64_t shape[LOOM_MAX_DIMS];
    const char *why; /* what is wrong */
} hdr_t;

static void skip_ws(hdr_t *h) {
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
        h->p++;
}

static bool take(hdr_t *h, char c) {
    skip_ws(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return true;
    }
    return false;
}

static bool read_str(hdr_t *h, char *out, size_t cap) {
    skip_ws(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"')) return false;
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        if (n + 1 >= cap) return false;
        out[n++] = *h->p++;
    }
    if (h->p >= h->end) return false;
    h->p++;
    out[n] = '\0';
    return true;
}

static bool read_word(hdr_t *h, const char *w) {
    skip_ws(h);
    size_t n = strlen(w);
    if ((size_t)(h->end - h->p) < n || strncmp(h->p, w, n)) return false;
    h->p += n;
    return true;
}

static bool read_shape(hdr_t *h) {
    if (!take(h, '(')) return false;
    h->ndim = 0;
    while (!take(h, ')')) {
        skip_ws(h);
        if (h->ndim == LOOM_MAX_DIMS) {
            h->why = "more axes than loom allows (8)";
            return false;
        }
        int64_t v = 0;
        int digits = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            if (v > (INT64_MAX - 9) / 10) {
                h->why = "an extent in 'shape' is too large";
                return false;
            }
            v = v * 10 + (*h->p++ - '0');
            digits++;
        }
        if (!digits) return false;
        if (h->p < h->end && *h->p == 'L') h->p++;
        h->shape[h->ndim++] = v;
        if (!take(h, ',')) {
            if (!take(h, ')')) return false;
            break;
        }
    }
    return true;
}

static bool parse_header(hdr_t *h) {
    h->fortran = -1;
    h->ndim = -1;
    h->descr[0] = '\0';
    if (!take(h, '{')) return false;
    while (!take(h, '}')) {
        char key[32];
        if (!read_str(h, key, sizeof key) || !take(h, ':')) return false;
        if (!strcmp(key, "descr")) {
            skip_ws(h);
            if (h->p < h->end && *h->p == '[') {
                h->why = "structured dtypes are not supported";
                return false;
            }
            if (!read_str(h, h->descr, sizeof h->descr)) return false;
        } else if (!strcmp(key, "fortran_order")) {
            if (read_word(h, "True"))
                h->fortran = 1;
            else if (read_word(h, "False"))
                h->fortran = 0;
            else
                return false;
        } else if (!strcmp(key, "shape")) {
            if (!read_shape(h)) return false;
        } else {
            h->why = "the header has an unknown key";
            return false;
        }
        if (!take(h, ',')) {
            if (!take(h, '}')) return false;
            break;
        }
    }
    if (h->descr[0] == '\0' || h->fortran < 0 || h->ndim < 0) {
        h->why = "the header lacks 'descr', 'fortran_order' or 'shape'";
        return false;
    }
    skip_ws(h);
    return h->p == h->end;
}

static uint32_t le32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void swap_bytes(unsigned char *p, size_t n, size_t size) {
    for (size_t i = 0; i < n; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* Copies Fortran-ordered elements into C order. */
static void fortran_to_c(const unsigned char *src, unsigned char *dst, int32_t ndim,
                         const int64_t *shape, size_t size, int64_t n) {
    int64_t fstride[LOOM_MAX_DIMS], idx[LOOM_MAX_DIMS] = {0};
    int64_t s = 1;
    for (int32_t i = 0; i < ndim; i++) {
        fstride[i] = s;
        s *= shape[i];
    }
    int64_t off = 0;
    for (int64_t k = 0; k < n; k++) {
        memcpy(dst + (size_t)k * size, src + (size_t)off * size, size);
        for (int32_t ax = ndim - 1; ax >= 0; ax--) { /* next C index */
            off += fstride[ax];
            if (++idx[ax] < shape[ax]) break;
            off -= fstride[ax] * shape[ax];
            idx[ax] = 0;
        }
    }
}

static loom_array_t *load_fail(loom_ctx_t *ctx, loom_status_t st, const char *path, const char *why,
                               unsigned char *buf) {
    base_free(&ctx->al, buf);
    fe_error(ctx, st, "loom_npy_load: %s: %s", path, why);
    return &ctx->nil;
}

LOOM_API loom_array_t *loom_npy_load(loom_ctx_t *ctx, const char *path) {
    if (!ctx) return NULL;
    if (ctx->err.status) return &ctx->nil;
    if (!path) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_npy_load: path is NULL");
        return &ctx->nil;
    }
    struct stat st;
    int fd = base_file_open_regular(AT_FDCWD, path, true, &st);
    if (fd == -2) {
        char why[64];
        snprintf(why, sizeof why, "not a regular file (%s)", base_file_kind(st.st_mode));
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, why, NULL);
    }
    FILE *f = fd < 0 ? NULL : fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        if (fd >= 0) close(fd);
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, strerror(e), NULL);
    }
    size_t size = (size_t)st.st_size;
    unsigned char *buf = base_malloc(&ctx->al, size ? size : 1, 1);
    if (!buf) {
        fclose(f);
        return load_fail(ctx, LOOM_STATUS_OUT_OF_MEMORY, path, "out of memory reading the file",
                         NULL);
    }
    size_t got = fread(buf, 1, size, f);
    bool read_err = ferror(f) != 0;
    fclose(f);
    if (read_err || got != size)
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, "read error", buf);

    if (size < 10 || memcmp(buf, MAGIC, sizeof MAGIC))
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path,
                         size < 6 ? "not a .npy file (too short for the magic string)"
                                  : "not a .npy file (no \\x93NUMPY magic string)",
                         buf);
    unsigned major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0) {
        char why[96];
        snprintf(why, sizeof why, "unsupported .npy format version %u.%u (loom reads 1.0-3.0)",
                 major, minor);
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, why, buf);
    }
    size_t pre = major == 1 ? 10 : 12;
    if (size < pre)
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, "truncated in the header length", buf);
    size_t hlen = major == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8 : (size_t)le32(buf + 8);
    if (hlen > size - pre) {
        char why[128];
        snprintf(why, sizeof why, "truncated: the header says %zu bytes, the file holds %zu", hlen,
                 size - pre);
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, why, buf);
    }
    hdr_t h = {.p = (const char *)buf + pre, .end = (const char *)buf + pre + hlen};
    if (!parse_header(&h)) {
        char why[160];
        snprintf(why, sizeof why, "corrupt header (%s)",
                 h.why ? h.why : "not a dict with 'descr', 'fortran_order' and 'shape'");
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, why, buf);
    }
    bool swap = false;
    int d = descr_dtype(h.descr, &swap);
    if (d < 0) {
        char why[256];
        snprintf(why, sizeof why,
                 "dtype '%s' is not supported (loom has bool, int8..64, uint8..64, float16/32/64, "
                 "complex64/128, "
                 "and '<V2' as bfloat16)",
                 h.descr);
        return load_fail(ctx, LOOM_STATUS_DTYPE_ERROR, path, why, buf);
    }
    int64_t n;
    if (!fe_check_shape(ctx, "loom_npy_load", h.ndim, h.shape, &n)) {
        base_free(&ctx->al, buf);
        return &ctx->nil;
    }
    size_t esize = ir_dtypes[d].size, need;
    if (!base_mul_size((size_t)n, esize, &need))
        return load_fail(ctx, LOOM_STATUS_OVERFLOW, path, "the array is too large", buf);
    unsigned char *data = buf + pre + hlen;
    if (need > size - pre - hlen) {
        char why[160];
        snprintf(why, sizeof why, "truncated: %zu data bytes expected, %zu present", need,
                 size - pre - hlen);
        return load_fail(ctx, LOOM_STATUS_IO_ERROR, path, why, buf);
    }
    if (swap) /* complex numbers: each part on its own */
        swap_bytes(data, ir_is_complex((loom_dtype_t)d) ? (size_t)n * 2u : (size_t)n,
                   ir_is_complex((loom_dtype_t)d) ? esize / 2u : esize);
    if (d == LOOM_DTYPE_BOOL)
        for (int64_t i = 0; i < n; i++) data[i] = data[i] != 0;
    unsigned char *c = data;
    if (h.fortran && h.ndim > 1 && n > 1) {
        c = base_malloc(&ctx->al, need, 1);
        if (!c) return load_fail(ctx, LOOM_STATUS_OUT_OF_MEMORY, path, "out of memory", buf);
        fortran_to_c(data, c, h.ndim, h.shape, esize, n);
    }
    loom_array_t *a = loom_from_host(ctx, (loom_dtype_t)d, h.ndim, h.shape, c);
    if (c != data) base_free(&ctx->al, c);
    base_free(&ctx->al, buf);
    return a;
}

/* Writes a character device as a stream (opened without blocking, checked on the descriptor). */
static int write_stream(const char *path, const base_span_t *parts) {
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), e = 0, fl;
    if (fd < 0) return errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))
        e = EINVAL; /* swapped since we looked: the caller's check said a character device */
    else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
        e = errno;
    for (int i = 0; i < 3 && !e; i++) e = base_write_all(fd, parts[i].p, parts[i].n);
    if (close(fd) != 0 && !e) e = errno;
    return e;
}

/* What is at path: nothing or a regular file (replaced: *stream false), a character device or a
 * link to one (written as a stream: *stream true); anything else is refused (IO_ERROR). Asked
 * before the array is evaluated, so that a refused path costs nothing; the writes check again
 * on their descriptors. */
static loom_status_t save_target(loom_ctx_t *ctx, const char *path, bool *stream) {
    struct stat st, to;
    *stream = false;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        bool is_link = S_ISLNK(st.st_mode);
        *stream = S_ISCHR(st.st_mode) || (is_link && stat(path, &to) == 0 && S_ISCHR(to.st_mode));
        if (!*stream)
            return fe_error(ctx, LOOM_STATUS_IO_ERROR,
                            "loom_npy_save: %s is %s, not a regular file: refusing to replace it",
                            path, base_file_kind(st.st_mode));
    }
    return LOOM_STATUS_OK;
}

/* Writes the file's three parts to path: replaced whole, or streamed to a character device. */
static loom_status_t save_parts(loom_ctx_t *ctx, const char *path, bool stream,
                                const base_span_t *parts) {
    int e = stream ? write_stream(path, parts)
                   : base_file_replace(&ctx->al, AT_FDCWD, path, parts, 3, 0666, true);
    if (e == ENOMEM)
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_npy_save: %s: out of memory", path);
    if (e)
        return fe_error(ctx, LOOM_STATUS_IO_ERROR, "loom_npy_save: %s: write failed: %s%s", path,
                        strerror(e), stream ? "" : " (the file there, if any, is unchanged)");
    return LOOM_STATUS_OK;
}

LOOM_API loom_status_t loom_npy_save(loom_ctx_t *ctx, loom_array_t *a, const char *path) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    if (!path) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_npy_save: path is NULL");
    if (!fe_check_arg(ctx, "loom_npy_save", a)) {
        if (!ctx->err.status)
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_npy_save: the array is nil");
        return ctx->err.status;
    }
    bool stream;
    if (save_target(ctx, path, &stream) != LOOM_STATUS_OK) return ctx->err.status;
    size_t nbytes = loom_array_nbytes(a);
    void *data = base_malloc(&ctx->al, nbytes ? nbytes : 1, 1);
    if (!data) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "loom_npy_save: out of memory");
    if (loom_read(ctx, a, data, nbytes) != LOOM_STATUS_OK) {
        base_free(&ctx->al, data);
        return ctx->err.status;
    }
    loom_dtype_t d = loom_array_dtype(a);
    char shape[256], header[400];
    fe_format_shape(shape, sizeof shape, a->ndim, a->shape);
    int n = snprintf(
        header, sizeof header, "{'descr': '%c%c%u', 'fortran_order': False, 'shape': %s, }",
        ir_dtypes[d].size == 1 ? '|' : '<', descr_kind(d), (unsigned)ir_dtypes[d].size, shape);
    int total = (10 + n + 1 + 63) / 64 * 64; /* magic, version, length, header, '\n' */
    memset(header + n, ' ', (size_t)(total - 10 - n - 1));
    header[total - 10 - 1] = '\n';
    unsigned char pre[10] = {0x93,
                             'N',
                             'U',
                             'M',
                             'P',
                             'Y',
                             1,
                             0,
                             (unsigned char)((total - 10) & 0xff),
                             (unsigned char)((total - 10) >> 8)};
    base_span_t parts[3] = {{pre, sizeof pre}, {header, (size_t)(total - 10)}, {data, nbytes}};
    loom_status_t st = save_parts(ctx, path, stream, parts);
    base_free(&ctx->al, data);
    return st;
}
