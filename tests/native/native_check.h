/* The one-line check of the native tests: a failed check prints FAIL and its message, and then
 * CHECK_NOTE() where the test defines it before including this (what the test shows beside
 * every failure); `passed` and `failed` count them for the test's summary. */
#ifndef DXCL_NATIVE_CHECK_H
#define DXCL_NATIVE_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#ifndef CHECK_NOTE
#define CHECK_NOTE() ((void)0)
#endif

static int passed, failed;

static void check(bool ok, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *format, ...)
{
    va_list args;

    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL: ");
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
    CHECK_NOTE();
}

#endif
