/* error.c — sticky first error: the first status and message win until cleared. */
#include <stdio.h>

#include "base.h"

loom_status_t base_error_setv(base_error_t *err, loom_status_t status, const char *fmt,
                              va_list ap) {
    if (status == LOOM_STATUS_OK || err->status != LOOM_STATUS_OK) return err->status;
    err->status = status;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    return status;
}

loom_status_t base_error_set(base_error_t *err, loom_status_t status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    loom_status_t s = base_error_setv(err, status, fmt, ap);
    va_end(ap);
    return s;
}

void base_error_clear(base_error_t *err) {
    err->status = LOOM_STATUS_OK;
    err->message[0] = '\0';
}

loom_status_t base_error_report(base_error_t *err, const base_log_t *log, loom_status_t status,
                                const char *fmt, va_list ap) {
    loom_status_t s = base_error_setv(err, status, fmt, ap);
    if (s == status) base_log(log, LOOM_LOG_ERROR, "%s", err->message);
    return s;
}
