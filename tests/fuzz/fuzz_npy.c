/* fuzz_npy — libFuzzer target: the bytes as a .npy file for loom_npy_load on the CPU reference
 * device (loom reads .npy only from a path, so each input is written to one file per process
 * under /dev/shm, or $TMPDIR where there is none). A loaded array is read back whole; any
 * status is fine, a crash, a sanitizer report or a leak is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "loom.h"

static loom_ctx_t *ctx;
static char path[256];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void remove_file(void) { unlink(path); }

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) abort();
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/loom-fuzz-npy-%ld.npy", dir ? dir : "/tmp", (long)getpid());
    atexit(remove_file);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    loom_scope_begin(ctx);
    loom_array_t *a = loom_npy_load(ctx, path);
    size_t bytes = loom_array_nbytes(a);
    if (!loom_array_is_nil(a) && bytes <= (size_t)1 << 24) {
        void *out = malloc(bytes ? bytes : 1);
        if (out) loom_read(ctx, a, out, bytes);
        free(out);
    }
    loom_scope_end(ctx);
    loom_ctx_clear_error(ctx);
    return 0;
}
