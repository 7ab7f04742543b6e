/* The forwarding entry points: one generated stub per FWD entry of cl_api.h. */
#include "proxy/driver.h"

#define DXCL_MISSING_INT(name) return dxcl_driver_missing(#name);
#define DXCL_MISSING_OBJ(name)                                                                     \
    dxcl_driver_missing(#name);                                                                    \
    if (errcode_ret)                                                                               \
        *errcode_ret = CL_INVALID_OPERATION;                                                       \
    return NULL;
#define DXCL_MISSING_PTR(name)                                                                     \
    dxcl_driver_missing(#name);                                                                    \
    return NULL;
#define DXCL_MISSING_NONE(name)                                                                    \
    dxcl_driver_missing(#name);                                                                    \
    return;

#define DXCL_CALL_INT(fn, args) return fn args;
#define DXCL_CALL_OBJ(fn, args) return fn args;
#define DXCL_CALL_PTR(fn, args) return fn args;
#define DXCL_CALL_NONE(fn, args) fn args;

#define DXCL_STUB_OWN(kind, ret, name, params, args)
#define DXCL_STUB_GRD(kind, ret, name, params, args)
#define DXCL_STUB_FWD(kind, ret, name, params, args)                                               \
    DXCL_EXPORT ret CL_API_CALL name params                                                        \
    {                                                                                              \
        const struct dxcl_driver *drv = dxcl_driver();                                             \
        if (!drv->name) {                                                                          \
            DXCL_MISSING_##kind(name)                                                              \
        }                                                                                          \
        DXCL_CALL_##kind(drv->name, args)                                                          \
    }

#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCL_STUB_##route(kind, ret, name, params, args)
#include "proxy/cl_api.h"
#undef DXCL_API_FN
