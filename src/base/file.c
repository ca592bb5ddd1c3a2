/* file.c — files written whole or not at all, and files opened for reading without blocking.
 *
 * base_file_replace writes through a fresh temp file in the target's folder (O_CREAT | O_EXCL |
 * O_NOFOLLOW: nothing planted there is followed or reused), fsyncs it when asked and renames
 * it over the name. Readers see the old file or the new one, never a part; whatever was at the
 * name (a symbolic link included) is replaced, never written through; on failure only the temp
 * file is removed. Temp files are named ".<name>.<pid>.<nonce>.tmp". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

int base_write_all(int fd, const void *p, size_t n) {
    for (size_t put = 0; put < n;) {
        ssize_t r = write(fd, (const char *)p + put, n - put);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return errno ? errno : EIO;
        if (r == 0) return ENOSPC; /* a device that takes nothing is full */
        put += (size_t)r;
    }
    return 0;
}

/* Creates the temp file next to path; its name goes to tmp. The descriptor, or -1 and *e. */
static int create_temp(int dirfd, const char *path, size_t dir_len, const char *name, unsigned mode,
                       base_str_t *tmp, int *e) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t nonce = base_hash_mix((uint64_t)t.tv_sec, (uint64_t)t.tv_nsec);
    for (int attempt = 0; attempt < 64; attempt++) { /* O_EXCL: a clash just tries again */
        base_str_reset(tmp);
        base_str_catn(tmp, path, dir_len);
        base_str_printf(tmp, ".%.64s.%ld.%016llx.tmp", name, (long)getpid(),
                        (unsigned long long)base_hash_mix(nonce, (uint64_t)attempt));
        if (tmp->failed) {
            *e = ENOMEM;
            return -1;
        }
        int fd = openat(dirfd, base_str_get(tmp),
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
        if (fd >= 0) return fd;
        *e = errno;
        if (*e != EEXIST) return -1;
    }
    return -1;
}

int base_file_replace(base_alloc_t *al, int dirfd, const char *path, const base_span_t *parts,
                      size_t n_parts, unsigned mode, bool durable) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) return EISDIR;
    base_str_t tmp;
    base_str_init(&tmp, al);
    int e = 0;
    int fd = create_temp(dirfd, path, (size_t)(name - path), name, mode, &tmp, &e);
    if (fd < 0) {
        base_str_fini(&tmp);
        return e;
    }
    for (size_t i = 0; i < n_parts && !e; i++) e = base_write_all(fd, parts[i].p, parts[i].n);
    if (!e && durable && fsync(fd) != 0) e = errno;
    if (close(fd) != 0 && !e) e = errno;
    if (!e && renameat(dirfd, base_str_get(&tmp), dirfd, path) != 0) e = errno;
    if (e) unlinkat(dirfd, base_str_get(&tmp), 0);
    base_str_fini(&tmp);
    return e;
}

void base_file_dump(base_alloc_t *al, const base_log_t *log, const char *dir, const char *name,
                    const char *ext, const char *text, size_t n) {
    base_str_t path;
    base_str_init(&path, al);
    base_str_printf(&path, "%s/%s.%s", dir, name, ext);
    base_span_t part = {text, n};
    const char *p = base_str_get(&path);
    int e = path.failed ? ENOMEM : base_file_replace(al, AT_FDCWD, p, &part, 1, 0644, false);
    if (e) base_log(log, LOOM_LOG_INFO, "dump: cannot write %s: %s", p, strerror(e));
    base_str_fini(&path);
}

int base_file_open_regular(int dirfd, const char *path, bool follow, struct stat *st) {
    int nofollow = follow ? 0 : O_NOFOLLOW;
    /* Look before opening: opening some devices has effects, and a FIFO has no business here. */
    if (fstatat(dirfd, path, st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) return -1;
    if (!S_ISREG(st->st_mode)) return -2;
    /* O_NONBLOCK: should a FIFO have been swapped in since, the open returns at once. */
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | nofollow);
    if (fd < 0) {
        if (errno == ELOOP && !follow) { /* a symbolic link swapped in */
            st->st_mode = S_IFLNK;
            return -2;
        }
        return -1;
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return -2;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

const char *base_file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG:
            return "a regular file";
        case S_IFDIR:
            return "a folder";
        case S_IFIFO:
            return "a FIFO";
        case S_IFCHR:
            return "a character device";
        case S_IFBLK:
            return "a block device";
        case S_IFSOCK:
            return "a socket";
        case S_IFLNK:
            return "a symbolic link";
        default:
            return "a file of unknown type";
    }
}
