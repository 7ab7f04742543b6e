/* The OpenCL driver dxcl forwards to, loaded on first use. */
#ifndef DXCL_DRIVER_H
#define DXCL_DRIVER_H

#include "core/common.h"

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
/* The path of the driver module dxcl forwards to ("" when none could be loaded). */
const char *dxcl_driver_path(void);

/* An export of the driver module other than the OpenCL API (dxcl's own, when the driver is
 * another dxcl), or NULL. */
void *dxcl_driver_export(const char *name);

/* Calls a driver entry point, or fails like a driver that lacks it. */
#define DXCL_DRIVER_CALL_INT(name, args)                                                           \
    (dxcl_driver()->name ? dxcl_driver()->name args : dxcl_driver_missing(#name))
cl_int dxcl_driver_missing(const char *name);

#endif
