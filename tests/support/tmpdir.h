/* tmpdir.h — removing a test's temporary folder tree (files, links and folders, depth first,
 * links not followed). Header-only. */
#ifndef LOOM_TEST_TMPDIR_H
#define LOOM_TEST_TMPDIR_H

#include <ftw.h>
#include <stdio.h>

static inline int tmpdir__remove_one(const char *path, const struct stat *st, int flag,
                                     struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes path and everything below it (nothing if it does not exist). */
static inline void tmpdir_remove(const char *path) {
    nftw(path, tmpdir__remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
