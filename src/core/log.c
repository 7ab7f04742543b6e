/* The log: one line per intercepted call or diagnostic, serialised across threads. */
#include "core/env.h"
#include "core/lock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool dxcl_log_on;
static FILE *log_file;
static SRWLOCK log_lock = SRWLOCK_INIT;
/* DXCL_LOG_TIME=1: each line starts with the microseconds since the log began (and the thread),
 * to see where a call's time goes. */
static LARGE_INTEGER log_start, log_frequency;

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
    if (dxcl_getenv("LOG_TIME", value, sizeof(value)) && strcmp(value, "0")) {
        QueryPerformanceFrequency(&log_frequency);
        QueryPerformanceCounter(&log_start);
    }
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
    LARGE_INTEGER now;

    dxcl_take(&log_lock, DXCL_LOCK_LOG, true, __func__);
    if (log_frequency.QuadPart) {
        QueryPerformanceCounter(&now);
        fprintf(log_file, "%10.1f %04lx ",
                1e6 * (double)(now.QuadPart - log_start.QuadPart) / (double)log_frequency.QuadPart,
                (unsigned long)GetCurrentThreadId());
    }
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
