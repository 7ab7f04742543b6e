/* dxcl's implementations of the OWN, GRD and QRY entries of cl_api.h, declared once for every
 * layer that implements one. The exported functions of those names are generated in
 * src/proxy/forward.c: they call dxcl_impl_<name> and log the result, so every intercepted
 * call is logged in one place. */
#ifndef DXCL_API_H
#define DXCL_API_H

#include "core/common.h"

#define DXCL_IMPL(name) dxcl_impl_##name

#define DXCL_DECLARE_FWD(ret, name, params)
#define DXCL_DECLARE_OWN(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_DECLARE_GRD(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_DECLARE_QRY(ret, name, params) ret CL_API_CALL DXCL_IMPL(name) params;
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    DXCL_DECLARE_##route(ret, name, params)
#include "core/cl_api.h"
#undef DXCL_API_FN
#undef DXCL_DECLARE_FWD
#undef DXCL_DECLARE_OWN
#undef DXCL_DECLARE_GRD
#undef DXCL_DECLARE_QRY

#endif
