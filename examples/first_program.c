/* first_program — loom's first program: host data in
 * (like np.arange(6).reshape(2, 3)), y = x * 2 + 1 on the device, the result back, checked
 * against the same arithmetic on the host. Runs on the GPU if there is one, else on the CPU
 * reference device (with a notice). */
#include <loom.h>
#include <stdio.h>

int main(void) {
    loom_ctx_t *ctx;
    if (loom_ctx_create(NULL, &ctx) != LOOM_STATUS_OK) { /* auto: GPU if present */
        fprintf(stderr, "loom: %s\n", loom_last_create_message());
        return 1;
    }
    if (loom_ctx_device(ctx) == LOOM_DEVICE_CPU)
        printf("notice: no GPU; running on the CPU reference device\n");
    printf("device: %s\n", loom_ctx_device_name(ctx));

    float host[6] = {0, 1, 2, 3, 4, 5};
    int64_t shape[2] = {2, 3};
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, host); /* a copy */
    loom_array_t *y = loom_add_f(ctx, loom_multiply_f(ctx, x, 2.0), 1.0);  /* one kernel */
    printf("y: %s (%lld, %lld)\n", loom_dtype_name(loom_array_dtype(y)),
           (long long)loom_array_dim(y, 0), (long long)loom_array_dim(y, 1)); /* float32 (2, 3) */

    float out[6];
    if (loom_read(ctx, y, out, sizeof out) != LOOM_STATUS_OK) {
        fprintf(stderr, "loom: %s\n", loom_ctx_message(ctx));
        loom_ctx_destroy(ctx);
        return 1;
    }
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        printf("%g%s", out[i], i % 3 == 2 ? "\n" : " ");
        bad += out[i] != host[i] * 2.0f + 1.0f;
    }

    /* Errors do not crash: a shape mismatch is a status and a message naming both shapes. */
    int64_t four = 4;
    loom_array_t *z = loom_add(ctx, x, loom_zeros(ctx, LOOM_DTYPE_F32, 1, &four));
    printf("bad broadcast -> nil: %d, \"%s\"\n", loom_array_is_nil(z), loom_ctx_message(ctx));
    loom_ctx_destroy(ctx);
    printf("%s\n", bad ? "MISMATCH" : "check passed");
    return bad != 0;
}
