/* The OpenCL driver dxcl forwards to, loaded on first use. */
#ifndef DXCL_DRIVER_H
#define DXCL_DRIVER_H

#include "core/common.h"
#include "core/twin.h"

/* One typed pointer per entry of cl_api.h; NULL where the driver lacks the function. */
struct dxcl_driver {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) ret(CL_API_CALL *name) params;
#include "core/cl_api.h"
#undef DXCL_API_FN
};

/* Loads the driver once (thread-safe) and returns its table; never NULL. After the first call
 * it costs one load: every forwarded call goes through it. */
extern const struct dxcl_driver *dxcl_driver_loaded;
const struct dxcl_driver *dxcl_driver_load(void);
static inline const struct dxcl_driver *dxcl_driver(void)
{
    const struct dxcl_driver *drv = __atomic_load_n(&dxcl_driver_loaded, __ATOMIC_ACQUIRE);

    return drv ? drv : dxcl_driver_load();
}
/* dxcl's own module (this DLL), without a reference of its own. */
HMODULE dxcl_own_module(void);
/* The path of the driver module dxcl forwards to ("" when none could be loaded). */
const char *dxcl_driver_path(void);
/* How dxcl reaches the driver, in words: "the Unix side (dxclunix, host <library>)", "Wine's
 * opencl.dll", "the system OpenCL.dll" or "DXCL_DRIVER" ("" when none could be loaded). */
const char *dxcl_driver_route(void);

/* An export of the driver module other than the OpenCL API (dxcl's own, when the driver is
 * another dxcl), or NULL. */
void *dxcl_driver_export(const char *name);

/* Logs once that the Unix side put back Wine's signal handlers after the driver's LLVM took
 * them (docs/proxy.md, "Signal handlers"); nothing without the Unix side. */
void dxcl_driver_note_signals(void);
/* Closes the host fd behind an fd handle of the Unix side's (src/unix/dxclunix.h, "An fd
 * handle": the GPU path's fds are handles, which the driver's imports take where the spec takes
 * an fd) that the driver's import refused (it stays the caller's). */
void dxcl_driver_close_fd(int handle);
/* A call of dxcl's Vulkan layer for the GPU path (core/twin.h) through the Unix side: the
 * layer's answer (its struct says more), or -1 with `why` set where the driver is not the Unix
 * side or the layer is not loaded. */
int32_t dxcl_driver_layer_call(enum dxcl_layer_call call, void *params, char *why, size_t size);
/* Under Wine, at dxcl's load: the Unix side's PE half is loaded and finds its Unix half (the
 * host library is not opened), so that dxcl's Vulkan layer knows dxcl may share in this process
 * before the program makes its Direct3D devices; nothing where the driver will not be the Unix
 * side (DXCL_DRIVER, DXCL_UNIX=0). Called from DllMain: it loads a DLL of dxcl's own, which
 * imports nothing the process has not loaded. */
void dxcl_driver_announce(void);
/* The driver's cl_khr_external_memory and cl_khr_semaphore functions on the context's platform,
 * looked up once per platform (programs have one); NULL where the driver has none. */
struct dxcl_external_functions {
    cl_platform_id platform;
    clEnqueueAcquireExternalMemObjectsKHR_fn acquire;
    clEnqueueReleaseExternalMemObjectsKHR_fn release;
    clCreateSemaphoreWithPropertiesKHR_fn create_semaphore;
    clEnqueueWaitSemaphoresKHR_fn wait_semaphore;
    clEnqueueSignalSemaphoresKHR_fn signal_semaphore;
    clReleaseSemaphoreKHR_fn release_semaphore;
};
struct dxcl_external_functions dxcl_driver_external(cl_context context);
/* A binary semaphore imported from an opaque fd, named by its fd handle (the import owns the
 * fd), or NULL (logged; the fd closed). */
cl_semaphore_khr dxcl_driver_import_semaphore(cl_context context, int fd);

/* The driver's answers, whole (lists and strings sized from the driver's own count; the
 * caller frees them). Platforms and devices: NULL with *count 0 when there are none.
 * Strings: "" when the driver gives none, NULL only when out of memory. */
cl_platform_id *dxcl_driver_platforms(cl_uint *count);
cl_device_id *dxcl_driver_devices(cl_platform_id platform, cl_uint *count); /* TYPE_ALL */
cl_device_id *dxcl_driver_context_devices(cl_context context, size_t *count);
bool dxcl_driver_has_platform(cl_platform_id platform);
char *dxcl_driver_platform_string(cl_platform_id platform, cl_platform_info param);
char *dxcl_driver_device_string(cl_device_id device, cl_device_info param);
/* The platform of a device, and of a context (its first device's); NULL when the driver does
 * not tell. */
cl_platform_id dxcl_platform_of_device(cl_device_id device);
cl_platform_id dxcl_platform_of_context(cl_context context);

/* Calls a driver entry point, or fails like a driver that lacks it. */
#define DXCL_DRIVER_CALL_INT(name, args)                                                           \
    (dxcl_driver()->name ? dxcl_driver()->name args : dxcl_driver_missing(#name))
cl_int dxcl_driver_missing(const char *name);

#endif
