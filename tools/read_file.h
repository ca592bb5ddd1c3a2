/* read_file.h - the whole of a file as a NUL-terminated malloc'd string (NULL if it cannot be
 * read), for the stand-alone tools built by hand (nvrtc_check.c, nvrtc_time.c). */
#ifndef LOOM_TOOLS_READ_FILE_H
#define LOOM_TOOLS_READ_FILE_H
#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p) p[n] = 0;
    fclose(f);
    return p;
}
#endif
