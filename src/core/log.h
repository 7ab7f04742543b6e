/* Logging (docs/deploy.md, "The log"): DXCL_LOG=1 writes every line to stderr, DXCL_LOG=<file>
 * to that file; DXCL_LOG_PATH=<folder> gives each process a file of its own there, and
 * DXCL_LOG_LEVEL chooses the lines: error (the one-line diagnostics of failed calls), info (and
 * what dxcl chose: driver, route, paths), debug (and each intercepted call's result; what
 * DXCL_LOG alone writes). Off (and free) otherwise. */
#ifndef DXCL_LOG_H
#define DXCL_LOG_H

#include "core/names.h"

#include <CL/cl.h>
#include <stdbool.h>

enum dxcl_log_level { DXCL_LOG_NONE, DXCL_LOG_ERROR, DXCL_LOG_INFO, DXCL_LOG_DEBUG };

/* Info lines on (DXCL_LOG); errors on (DXCL_FAIL); each call's result on (debug). */
extern bool dxcl_log_on, dxcl_log_errors_on, dxcl_log_calls_on;

void dxcl_log_init(void);
void dxcl_log_shutdown(void);
void dxcl_logf(const char *fmt, ...) __attribute__((format(gnu_printf, 1, 2)));

#define DXCL_LOG(...)                                                                              \
    do {                                                                                           \
        if (dxcl_log_on)                                                                           \
            dxcl_logf(__VA_ARGS__);                                                                \
    } while (0)

/* Logs the result of an intercepted call and passes it through. */
static inline cl_int dxcl_log_result(const char *fn, cl_int err)
{
    if (dxcl_log_calls_on)
        dxcl_logf("%s -> %s", fn, dxcl_error_name(err));
    return err;
}

/* Reports bad input: one diagnostic line naming the error, then the spec's error code. */
#define DXCL_FAIL(code, ...)                                                                       \
    ((dxcl_log_errors_on ? dxcl_log_failure((code), __VA_ARGS__) : (void)0), (cl_int)(code))
void dxcl_log_failure(cl_int code, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));

#endif
