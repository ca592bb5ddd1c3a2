/* test_cli — the `loom` command's usage errors, run as a child process (its path comes from
 * meson as argv[1]): numeric options refuse overflow, signs, zero and trailing text with a
 * message naming the value and the range; --device takes every spelling LOOM_DEVICE takes,
 * through loom_device_from_name, which is checked here too. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loom.h>

extern char **environ;

static const char *loom_path;

/* Runs loom with args (NULL-terminated) and returns its exit status (-1 if it did not exit);
 * out receives stdout and stderr together. */
static int run_loom(char *out, size_t cap, const char *const *args) {
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)loom_path;
    for (; args[n - 1] && n < 15; n++) argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, loom_path, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    size_t len = 0;
    ssize_t k;
    while ((k = read(fd[0], out + len, cap - 1 - len)) > 0) len += (size_t)k;
    out[len] = '\0';
    close(fd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define LOOM(out, ...) run_loom(out, sizeof out, (const char *const[]){__VA_ARGS__, NULL})

static void expect_usage(const char *const *args, const char *phrase) {
    char out[4096];
    int rc = run_loom(out, sizeof out, args);
    if (rc != 2 || !strstr(out, phrase))
        fail_msg("loom %s %s %s: exit %d, \"%s\" lacks \"%s\"", args[0], args[1],
                 args[2] ? args[2] : "", rc, out, phrase);
}

static void test_cli_repeat_range(void **state) {
    (void)state;
    static const char *const bad[] = {"99999999999999999999",
                                      "18446744073709551617",
                                      "1000001",
                                      "0",
                                      "-5",
                                      "+5",
                                      " 5",
                                      "5x",
                                      "",
                                      "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char phrase[128];
        snprintf(phrase, sizeof phrase, "--repeat takes a count from 1 to 1000000, not '%s'",
                 bad[i]);
        expect_usage((const char *const[]){"eval", "1", "--repeat", bad[i], NULL}, phrase);
    }
    expect_usage((const char *const[]){"eval", "1", "--repeat", NULL},
                 "--repeat needs a count from 1 to 1000000");
    char out[4096];
    assert_int_equal(LOOM(out, "eval", "2+3", "--device", "cpu", "--repeat", "3"), 0);
    assert_non_null(strstr(out, "5"));
    assert_non_null(strstr(out, "3 runs"));
}

static void test_cli_device_spellings(void **state) {
    (void)state;
    char out[4096];
    /* Accepted: the CPU ones compute; the others get as far as creating their context. */
    static const char *const cpu[] = {"cpu", "CPU", "Cpu"};
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++) {
        assert_int_equal(LOOM(out, "eval", "2+3", "--device", cpu[i]), 0);
        assert_non_null(strstr(out, "int64 ()\n5"));
    }
    static const char *const other[] = {"auto",  "AUTO",  "cuda",        "gpu",        "GPU",
                                        "nvrtc", "NVRTC", "nvrtc:sm_90", "Nvrtc:sm_80"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        int rc = LOOM(out, "eval", "2+3", "--device", other[i]);
        if (rc == 2 || strstr(out, "--device")) fail_msg("--device %s: %d %s", other[i], rc, out);
        rc = LOOM(out, "info", "--device", other[i]);
        if (rc != 0) fail_msg("info --device %s: %d %s", other[i], rc, out);
    }
    static const char *const bad[] = {"tpu", "nvrtcx", "nvrtc:", "cpu ", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char phrase[160];
        snprintf(phrase, sizeof phrase,
                 "--device '%s' is not one of auto, cpu, cuda, gpu, nvrtc, nvrtc:sm_XY", bad[i]);
        expect_usage((const char *const[]){"eval", "1", "--device", bad[i], NULL}, phrase);
        expect_usage((const char *const[]){"info", "--device", bad[i], NULL}, phrase);
    }
    expect_usage((const char *const[]){"eval", "1", "--device", NULL}, "--device needs one of");
}

static void test_cli_device_from_name(void **state) {
    (void)state;
    const char *arch = "unset";
    assert_int_equal(loom_device_from_name("Auto", &arch), LOOM_DEVICE_AUTO);
    assert_null(arch);
    assert_int_equal(loom_device_from_name("cpu", NULL), LOOM_DEVICE_CPU);
    assert_int_equal(loom_device_from_name("CUDA", NULL), LOOM_DEVICE_CUDA);
    assert_int_equal(loom_device_from_name("gpu", NULL), LOOM_DEVICE_CUDA);
    assert_int_equal(loom_device_from_name("nvrtc", &arch), LOOM_DEVICE_NVRTC);
    assert_null(arch);
    assert_int_equal(loom_device_from_name("NVRTC:sm_86", &arch), LOOM_DEVICE_NVRTC);
    assert_string_equal(arch, "sm_86");
    static const char *const bad[] = {"nvrtcx", "nvrtc:", "nvrtc_sm90", "cpu0", "", "tpu"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arch = "unset";
        if (loom_device_from_name(bad[i], &arch) != -1) fail_msg("'%s' was accepted", bad[i]);
        assert_null(arch);
    }
    assert_int_equal(loom_device_from_name(NULL, &arch), -1);
    /* LOOM_DEVICE goes through the same function: a name it refuses fails the context. */
    setenv("LOOM_DEVICE", "nvrtcx", 1);
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(NULL, &ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_null(ctx);
    assert_non_null(strstr(loom_last_create_message(), "nvrtcx"));
    setenv("LOOM_DEVICE", "CPU", 1);
    assert_int_equal(loom_ctx_create(NULL, &ctx), LOOM_STATUS_OK);
    assert_int_equal(loom_ctx_device(ctx), LOOM_DEVICE_CPU);
    loom_ctx_destroy(ctx);
    unsetenv("LOOM_DEVICE");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_cli PATH-TO-loom\n");
        return 1;
    }
    loom_path = argv[1];
    unsetenv("LOOM_DEVICE");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_repeat_range),
        cmocka_unit_test(test_cli_device_spellings),
        cmocka_unit_test(test_cli_device_from_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
