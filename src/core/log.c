/* The log: one line per intercepted call or diagnostic, serialised across threads. */
#include "core/common.h"

#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>
#include <CL/cl_dx9_media_sharing.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool dxcl_log_on;
static FILE *log_file;
static CRITICAL_SECTION log_lock;

void dxcl_log_init(void)
{
    char value[MAX_PATH];
    DWORD len = GetEnvironmentVariableA("DXCL_LOG", value, sizeof(value));

    if (len == 0 || len >= sizeof(value) || !strcmp(value, "0"))
        return;
    InitializeCriticalSection(&log_lock);
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
    DeleteCriticalSection(&log_lock);
}

static void log_line(const char *prefix, const char *fmt, va_list args)
{
    EnterCriticalSection(&log_lock);
    fprintf(log_file, "dxcl: %s", prefix);
    vfprintf(log_file, fmt, args);
    fputc('\n', log_file);
    fflush(log_file);
    LeaveCriticalSection(&log_lock);
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

const char *dxcl_error_name(cl_int code)
{
    static const struct {
        cl_int code;
        const char *name;
    } names[] = {
#define NAME(x) {x, #x}
        NAME(CL_SUCCESS),
        NAME(CL_DEVICE_NOT_FOUND),
        NAME(CL_OUT_OF_RESOURCES),
        NAME(CL_OUT_OF_HOST_MEMORY),
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED),
        NAME(CL_INVALID_VALUE),
        NAME(CL_INVALID_PLATFORM),
        NAME(CL_INVALID_DEVICE),
        NAME(CL_INVALID_CONTEXT),
        NAME(CL_INVALID_QUEUE_PROPERTIES),
        NAME(CL_INVALID_COMMAND_QUEUE),
        NAME(CL_INVALID_MEM_OBJECT),
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
        NAME(CL_INVALID_IMAGE_SIZE),
        NAME(CL_INVALID_SAMPLER),
        NAME(CL_INVALID_KERNEL),
        NAME(CL_INVALID_ARG_INDEX),
        NAME(CL_INVALID_EVENT_WAIT_LIST),
        NAME(CL_INVALID_EVENT),
        NAME(CL_INVALID_OPERATION),
        NAME(CL_INVALID_PROPERTY),
        NAME(CL_PLATFORM_NOT_FOUND_KHR),
        NAME(CL_INVALID_D3D10_DEVICE_KHR),
        NAME(CL_INVALID_D3D10_RESOURCE_KHR),
        NAME(CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR),
        NAME(CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR),
        NAME(CL_INVALID_D3D11_DEVICE_KHR),
        NAME(CL_INVALID_D3D11_RESOURCE_KHR),
        NAME(CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR),
        NAME(CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR),
        NAME(CL_INVALID_DX9_MEDIA_ADAPTER_KHR),
        NAME(CL_INVALID_DX9_MEDIA_SURFACE_KHR),
        NAME(CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR),
        NAME(CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR),
#undef NAME
    };
    static _Thread_local char unknown[32];

    for (size_t i = 0; i < DXCL_ARRAY_SIZE(names); i++)
        if (names[i].code == code)
            return names[i].name;
    snprintf(unknown, sizeof(unknown), "error %d", (int)code);
    return unknown;
}
