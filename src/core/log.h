/* Logging: DXCL_LOG=1 writes to stderr, DXCL_LOG=<path> to a file; off (and free) otherwise. */
#ifndef DXCL_LOG_H
#define DXCL_LOG_H

#include "core/names.h"

#include <CL/cl.h>
#include <stdbool.h>

extern bool dxcl_log_on;

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
    DXCL_LOG("%s -> %s", fn, dxcl_error_name(err));
    return err;
}

/* Reports bad input: one diagnostic line naming the error, then the spec's error code. */
#define DXCL_FAIL(code, ...)                                                                       \
    ((dxcl_log_on ? dxcl_log_failure((code), __VA_ARGS__) : (void)0), (cl_int)(code))
void dxcl_log_failure(cl_int code, const char *fmt, ...) __attribute__((format(gnu_printf, 2, 3)));

#endif
