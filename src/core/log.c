/* The log: one line per intercepted call or diagnostic, serialised across threads. Where it
 * goes and which lines it takes are read once, when the DLL loads (log.h). */
#include "core/env.h"
#include "core/lock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool dxcl_log_on, dxcl_log_errors_on, dxcl_log_calls_on;
static FILE *log_file;
static SRWLOCK log_lock = SRWLOCK_INIT;
/* DXCL_LOG_TIME=1: each line starts with the microseconds since the log began (and the thread),
 * to see where a call's time goes. */
static LARGE_INTEGER log_start, log_frequency;

/* DXCL_LOG_LEVEL's value, or `fallback` when it is unset; an unknown one is info (said). */
static enum dxcl_log_level log_level(enum dxcl_log_level fallback, bool *unknown)
{
    static const struct {
        const char *name;
        enum dxcl_log_level level;
    } names[] = {{"none", DXCL_LOG_NONE},  {"0", DXCL_LOG_NONE},    {"error", DXCL_LOG_ERROR},
                 {"warn", DXCL_LOG_ERROR}, {"info", DXCL_LOG_INFO}, {"debug", DXCL_LOG_DEBUG},
                 {"trace", DXCL_LOG_DEBUG}};
    char value[16];

    *unknown = false;
    if (!dxcl_getenv("LOG_LEVEL", value, sizeof(value)))
        return fallback;
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(names); i++)
        if (!_stricmp(value, names[i].name))
            return names[i].level;
    *unknown = true;
    return DXCL_LOG_INFO;
}

/* DXCL_LOG_PATH: <folder>/<program>_<pid>_dxcl.log (one file per process), the folder made if
 * missing. */
static FILE *open_process_log(const char *folder)
{
    WCHAR path[MAX_PATH + 64];
    char name[MAX_PATH];
    const char *program = dxcl_program_name();
    size_t len = strlen(program), used;

    if (len > 4 && !_stricmp(program + len - 4, ".exe"))
        len -= 4;
    snprintf(name, sizeof(name), "%.*s_%lu_%s.log", (int)len, program,
             (unsigned long)GetCurrentProcessId(), DXCL_LOG_NAME);
    if (!dxcl_setting_path(folder, path, MAX_PATH))
        return NULL;
    CreateDirectoryW(path, NULL); /* an existing folder is fine */
    used = wcslen(path);
    if (used && path[used - 1] != L'\\' && path[used - 1] != L'/')
        path[used++] = L'\\';
    if (!MultiByteToWideChar(CP_ACP, 0, name, -1, path + used, (int)(DXCL_ARRAY_SIZE(path) - used)))
        return NULL;
    return _wfopen(path, L"a");
}

/* Where the lines go: DXCL_LOG's file, or stderr, or DXCL_LOG_PATH's file; NULL: no log. */
static FILE *log_destination(const char *log, bool log_set)
{
    char folder[MAX_PATH];
    FILE *file;

    if (log_set && strcmp(log, "1") && strcmp(log, "stderr"))
        return (file = dxcl_open_setting_file(log, L"a")) ? file : stderr;
    if (!log_set && dxcl_getenv("LOG_PATH", folder, sizeof(folder)))
        return (file = open_process_log(folder)) ? file : stderr;
    return stderr;
}

void dxcl_log_init(void)
{
    char value[MAX_PATH];
    bool log_set = dxcl_getenv("LOG", value, sizeof(value)) != 0, unknown;
    enum dxcl_log_level fallback = log_set                             ? DXCL_LOG_DEBUG
                                   : dxcl_getenv_size("LOG_PATH") != 0 ? DXCL_LOG_INFO
                                                                       : DXCL_LOG_NONE;
    enum dxcl_log_level level = log_level(fallback, &unknown);

    if ((log_set && !strcmp(value, "0")) || level == DXCL_LOG_NONE)
        return;
    log_file = log_destination(value, log_set);
    if (dxcl_getenv("LOG_TIME", value, sizeof(value)) && strcmp(value, "0")) {
        QueryPerformanceFrequency(&log_frequency);
        QueryPerformanceCounter(&log_start);
    }
    dxcl_log_errors_on = true;
    dxcl_log_on = level >= DXCL_LOG_INFO;
    dxcl_log_calls_on = level >= DXCL_LOG_DEBUG;
    if (unknown)
        DXCL_LOG("%sLOG_LEVEL: want none, error, info or debug; info", DXCL_ENV_PREFIX);
    if (dxcl_config_report()[0])
        DXCL_LOG("%s", dxcl_config_report());
}

void dxcl_log_shutdown(void)
{
    if (!dxcl_log_errors_on)
        return;
    dxcl_log_on = dxcl_log_errors_on = dxcl_log_calls_on = false;
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
