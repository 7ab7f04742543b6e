/* The one-line checks of the native tests: a failed check prints FAIL and its message (CHECK
 * with its file and line before them), and then CHECK_NOTE() where the test defines it before
 * including this (what the test shows beside every failure); `passed` and `failed` count them
 * for the test's summary. */
#ifndef DXCL_NATIVE_CHECK_H
#define DXCL_NATIVE_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#ifndef CHECK_NOTE
#define CHECK_NOTE() ((void)0)
#endif

/* The file's name alone, as in a compiler's message, where the compiler gives it. */
#ifdef __FILE_NAME__
#define CHECK_FILE __FILE_NAME__
#else
#define CHECK_FILE __FILE__
#endif

static int passed, failed;

/* Counts one check; a failed one prints "FAIL: " (after "file:line: " where `file` is set). */
static __attribute__((unused)) void check_count(bool ok, const char *file, int line,
                                                const char *format, va_list args)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (file)
        printf("%s:%d: ", file, line);
    printf("FAIL: ");
    vprintf(format, args);
    printf("\n");
    CHECK_NOTE();
}

static void check(bool ok, const char *format, ...) __attribute__((format(printf, 2, 3), unused));
static void check(bool ok, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    check_count(ok, NULL, 0, format, args);
    va_end(args);
}

static void check_at(bool ok, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5), unused));
static void check_at(bool ok, const char *file, int line, const char *format, ...)
{
    va_list args;

    va_start(args, format);
    check_count(ok, file, line, format, args);
    va_end(args);
}

/* A check that names where it stands. */
#define CHECK(cond, ...) check_at(!!(cond), CHECK_FILE, __LINE__, __VA_ARGS__)

#endif
