/* The exported entry points, generated from cl_api.h: FWD entries forward to the driver; OWN
 * and GRD entries call dxcl's implementation (proxy/impl.h) and log its result when DXCL_LOG
 * is on, so that every intercepted call is logged, and only here. */
#include "proxy/driver.h"
#include "proxy/impl.h"

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

/* Logging the result of an intercepted call: the error code, or for calls returning an
 * object, the object and *errcode_ret (which the wrapper provides when the caller did not). */
#define DXCL_LOGGED_INT(ret, name, args)                                                           \
    cl_int result = DXCL_IMPL(name) args;                                                          \
    if (dxcl_log_on)                                                                               \
        dxcl_logf("%s -> %s", #name, dxcl_error_name(result));                                     \
    return result;
#define DXCL_LOGGED_OBJ(ret, name, args)                                                           \
    cl_int status;                                                                                 \
    if (!errcode_ret)                                                                              \
        errcode_ret = &status;                                                                     \
    ret result = DXCL_IMPL(name) args;                                                             \
    if (dxcl_log_on)                                                                               \
        dxcl_logf("%s -> %p %s", #name, (void *)result, dxcl_error_name(*errcode_ret));            \
    return result;
#define DXCL_LOGGED_PTR(ret, name, args) return DXCL_IMPL(name) args;

#define DXCL_STUB_OWN(kind, ret, name, params, args)                                               \
    DXCL_EXPORT ret CL_API_CALL name params                                                        \
    {                                                                                              \
        DXCL_LOGGED_##kind(ret, name, args)                                                        \
    }
#define DXCL_STUB_GRD DXCL_STUB_OWN
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
