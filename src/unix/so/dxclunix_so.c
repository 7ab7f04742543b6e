/* dxclunix.so, the Unix half of dxcl's builtin pair: Wine loads it beside dxclunix.dll and the
 * PE half reaches it through __wine_unix_call. It opens the host's libOpenCL.so.1 (the ICD
 * loader, or any library of that name on the library path; DXCL_UNIX_LIBRARY names another),
 * looks functions up, and calls them. It never calls PE code: the PE half strips or refuses
 * every callback before a call gets here (src/unix/pe/dxclunix_pe.c). Handles, pointers and
 * buffers pass as they are: on x86-64 without WoW64 both halves share the address space. */
#define _GNU_SOURCE
#include "../dxclunix.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Wine's NTSTATUS and the type of a __wine_unix_call_funcs entry (include/wine/unixlib.h). */
typedef int32_t NTSTATUS;
typedef NTSTATUS (*unixlib_entry_t)(void *args);

typedef uint64_t (*host_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                            uint64_t, uint64_t);

static void *library;
static char library_path[512];
static char library_error[256];
static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void load_library(void)
{
    const char *name = getenv("DXCL_UNIX_LIBRARY");
    Dl_info info;
    void *probe;

    if (!name || !*name)
        name = "libOpenCL.so.1";
    if (!(library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
        snprintf(library_error, sizeof(library_error), "%s", dlerror());
        return;
    }
    probe = dlsym(library, "clGetPlatformIDs");
    if (probe && dladdr(probe, &info) && info.dli_fname)
        snprintf(library_path, sizeof(library_path), "%s", info.dli_fname);
    else
        snprintf(library_path, sizeof(library_path), "%s", name);
}

static NTSTATUS unix_open(void *args)
{
    struct dxclunix_open *params = args;

    pthread_once(&library_once, load_library);
    params->status = library ? 0 : -1;
    memcpy(params->path, library_path, sizeof(params->path));
    memcpy(params->error, library_error, sizeof(params->error));
    return 0;
}

static NTSTATUS unix_lookup(void *args)
{
    struct dxclunix_lookup *params = args;

    for (uint32_t i = 0; i < params->count; i++) {
        void *address = library ? dlsym(library, params->names[i]) : NULL;

        params->addresses[i] = (uint64_t)(uintptr_t)address;
    }
    return 0;
}

static NTSTATUS unix_call(void *args)
{
    struct dxclunix_call *params = args;
    const uint64_t *a = params->args;
    host_fn fn = (host_fn)(uintptr_t)params->fn;

    params->ret = fn(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                     a[12], a[13], a[14], a[15]);
    return 0;
}

/* Wine looks this table up by name; the order is enum dxclunix_code's. */
__attribute__((visibility("default"))) const unixlib_entry_t __wine_unix_call_funcs[] = {
    unix_open,
    unix_lookup,
    unix_call,
};
_Static_assert(sizeof(__wine_unix_call_funcs) / sizeof(__wine_unix_call_funcs[0]) ==
                   DXCLUNIX_CODE_COUNT,
               "one entry per enum dxclunix_code");
