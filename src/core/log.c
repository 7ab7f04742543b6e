/* The log: one line per intercepted call or diagnostic, serialised across threads. */
#include "core/env.h"
#include "core/lock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool dxcl_log_on;
static FILE *log_file;
static SRWLOCK log_lock = SRWLOCK_INIT;

void dxcl_log_init(void)
{
    char value[MAX_PATH];
    DWORD len = dxcl_getenv("LOG", value, sizeof(value));

    if (len == 0 || !strcmp(value, "0"))
        return;
    if (!strcmp(value, "1") || !strcmp(value, "stderr"))
        log_file = stderr;
    else if (!(log_file = fopen(value, "a")))
        log_file = stderr;
    dxcl_log_on = true;
}

void dxcl_log_shutdown(void)
{
    if (!dxcl_log_on)
        return;
    dxcl_log_on = false;
    if (log_file != stderr)
        fclose(log_file);
}

static void log_line(const char *prefix, const char *fmt, va_list args)
{
    dxcl_take(&log_lock, DXCL_LOCK_LOG, true, __func__);
    fprintf(log_file, "%s: %s", DXCL_LOG_NAME, prefix);
    vfprintf(log_file, fmt, args);
    fputc('\n', log_file);
    fflush(log_file);
    dxcl_leave(&log_lock, DXCL_LOCK_LOG, true, __func__);
}

void dxcl_logf(const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    log_line("", fmt, args);
    va_end(args);
}

void dxcl_log_failure(cl_int code, const char *fmt, ...)
{
    char prefix[64];
    va_list args;

    snprintf(prefix, sizeof(prefix), "%s: ", dxcl_error_name(code));
    va_start(args, fmt);
    log_line(prefix, fmt, args);
    va_end(args);
}
