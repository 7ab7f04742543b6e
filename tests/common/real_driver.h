/* The OpenCL driver behind dxcl, for the tests that compare with it or wrap it: found as
 * src/core/driver.c finds it. Under Wine with DXCL_UNIX not 0, dxcl's Unix side
 * (dxclunix.dll in a Wine DLL folder, WINEDLLDIR<n>), whose own lookup tells which entry
 * points the host has; otherwise the system OpenCL.dll. */
#ifndef DXCL_TEST_REAL_DRIVER_H
#define DXCL_TEST_REAL_DRIVER_H

#include <windows.h>
#include <stdio.h>
#include <string.h>

typedef void *(WINAPI *real_driver_lookup_fn)(const char *name);

/* The folder of this architecture's builtins in a Wine DLL folder (the 32-bit pair's for a
 * 32-bit program: <test>.x32_unix). */
#ifdef _WIN64
#define REAL_DRIVER_PE_FOLDER "x86_64-windows"
#else
#define REAL_DRIVER_PE_FOLDER "i386-windows"
#endif

/* dxcl's Unix side from Wine's DLL folders, with its lookup in *lookup; NULL when no folder has
 * it or it cannot reach the host's OpenCL. */
static inline HMODULE real_driver_load_unix_side(real_driver_lookup_fn *lookup)
{
    char path[MAX_PATH], dir[MAX_PATH], name[32];
    HMODULE module;
    DWORD len;

    *lookup = NULL;
    for (unsigned i = 0;; i++) {
        const char *start = dir;

        snprintf(name, sizeof(name), "WINEDLLDIR%u", i);
        len = GetEnvironmentVariableA(name, dir, sizeof(dir));
        if (len == 0 || len >= sizeof(dir))
            return NULL;
        if (!strncmp(start, "\\??\\", 4))
            start += 4;
        snprintf(path, sizeof(path), "%s\\%s\\dxclunix.dll", start, REAL_DRIVER_PE_FOLDER);
        if ((module = LoadLibraryA(path)) &&
            (*lookup =
                 (real_driver_lookup_fn)(void *)GetProcAddress(module, "dxclunixGetProcAddress")) &&
            (*lookup)("clGetPlatformIDs"))
            return module;
        *lookup = NULL;
    }
}

/* The driver module, and in *lookup the Unix side's lookup (NULL for an ordinary DLL). */
static inline HMODULE real_driver_load(real_driver_lookup_fn *lookup)
{
    char path[MAX_PATH], setting[8] = "";
    HMODULE module;
    UINT len;

    *lookup = NULL;
    GetEnvironmentVariableA("DXCL_UNIX", setting, sizeof(setting));
    if (strcmp(setting, "0") && (module = real_driver_load_unix_side(lookup)))
        return module;
    len = GetSystemDirectoryA(path, sizeof(path));
    if (len == 0 || len + sizeof("\\OpenCL.dll") > sizeof(path))
        return NULL;
    strcat(path, "\\OpenCL.dll");
    return LoadLibraryA(path);
}

/* An entry point of the driver: NULL where it has none. */
static inline FARPROC real_driver_proc(HMODULE module, real_driver_lookup_fn lookup,
                                       const char *name)
{
    if (lookup)
        return (FARPROC)lookup(name);
    return module ? GetProcAddress(module, name) : NULL;
}

#endif
