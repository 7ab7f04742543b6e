/* dxcl's implementations of the OWN, GRD and QRY entries of cl_api.h. The exported functions of
 * those names are generated in src/proxy/forward.c: they call dxcl_impl_<name> and log the
 * result, so every intercepted call is logged in one place. */
#ifndef DXCL_IMPL_H
#define DXCL_IMPL_H

#include "core/common.h"

#define DXCL_IMPL(name) dxcl_impl_##name

#define DXCL_DECLARE_FWD(ret, name, params)
#define DXCL_DECLARE_OWN(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_DECLARE_GRD(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_DECLARE_QRY(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCL_DECLARE_##route(ret, name, params)
#include "proxy/cl_api.h"
#undef DXCL_API_FN
#undef DXCL_DECLARE_FWD
#undef DXCL_DECLARE_OWN
#undef DXCL_DECLARE_GRD
#undef DXCL_DECLARE_QRY

/* The param names each QRY entry answers itself, and the function of src/core/platform.c that
 * answers it; every other param name goes straight to the driver (the exports in
 * src/proxy/forward.c compare against this list before jumping to the driver). */
#define DXCL_ANSWERS_clGetPlatformInfo(X)                                                          \
    X(clGetPlatformInfo, CL_PLATFORM_EXTENSIONS, answer_extension_string)                          \
    X(clGetPlatformInfo, CL_PLATFORM_EXTENSIONS_WITH_VERSION, answer_extension_versions)
#define DXCL_ANSWERS_clGetDeviceInfo(X)                                                            \
    X(clGetDeviceInfo, CL_DEVICE_EXTENSIONS, answer_extension_string)                              \
    X(clGetDeviceInfo, CL_DEVICE_EXTENSIONS_WITH_VERSION, answer_extension_versions)

#endif
