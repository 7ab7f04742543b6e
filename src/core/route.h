/* How each sharing extension is served on each platform (docs/design.md, "Paths"):
 *   native      the driver lists the extension: dxcl forwards the program's calls to the
 *               driver's functions and keeps no records;
 *   translated  the driver lists its sibling (KHR <-> NV D3D10/D3D11, the same tokens and
 *               rules): dxcl forwards to the sibling's functions;
 *   copy engine the driver lacks both: dxcl's copy engine serves it.
 * Decided once per platform from the driver's own extension lists; DXCL_PATH=engine forces
 * the copy engine everywhere. */
#ifndef DXCL_ROUTE_H
#define DXCL_ROUTE_H

#include "core/backend.h"
#include "core/driver.h"
#include "core/registry.h"

enum dxcl_path { DXCL_BY_ENGINE, DXCL_NATIVE, DXCL_TRANSLATED };

/* The path of an exposed extension on a platform; *served_by (optional) is the driver's
 * extension that serves it (NULL when the copy engine does). */
enum dxcl_path dxcl_path_of(cl_platform_id platform, const struct dxcl_extension *extension,
                            const struct dxcl_extension **served_by);
const char *dxcl_path_name(enum dxcl_path path);
/* Whether `extension` is advertised on `platform`: every exposed one, except one that extends
 * another (registry.h), which only where the driver has it itself or dxcl's copy engine serves
 * the one it extends (elsewhere the driver's own functions would refuse what it promises). */
bool dxcl_extension_offered(cl_platform_id platform, const struct dxcl_extension *extension);
/* Appends the names offered on `platform` (dxcl_extension_offered) missing from `driver_list`
 * (space separated); returns a malloc'ed string. */
char *dxcl_extend_extension_string(const char *driver_list, cl_platform_id platform);
/* True when some platform has a native or translated path: otherwise routing costs nothing. */
bool dxcl_any_routed(void);
/* The driver's function standing for dxcl's entry point `self` on `platform`, or NULL when
 * the copy engine serves it there. */
void *dxcl_route(cl_platform_id platform, const void *self);
/* True when an interop context property is the driver's own on `platform` (the context is
 * created by the driver untouched and dxcl keeps no record). */
bool dxcl_property_routed(cl_platform_id platform, cl_context_properties property);
/* True when `context`, which dxcl keeps no record of, was created by the driver with an
 * interop property: a context of the driver's own sharing, whose queries the driver answers. */
bool dxcl_context_is_drivers(cl_context context);

/* dxcl_platform_of_device and dxcl_platform_of_context are in core/driver.h,
 * dxcl_platform_of_queue in core/context.h. */
/* The platform a context creation call names: CL_CONTEXT_PLATFORM, else the first device's,
 * else the driver's first platform. */
cl_platform_id dxcl_platform_of_creation(const cl_context_properties *properties,
                                         const cl_device_id *devices);

/* In an entry point of an extension: where the driver serves it, call the driver's function
 * with the same arguments and return its result. */
#define DXCL_ROUTE(platform_expr, self, args)                                                      \
    do {                                                                                           \
        if (dxcl_any_routed()) {                                                                   \
            void *native_ = dxcl_route((platform_expr), (const void *)(self));                     \
            if (native_)                                                                           \
                return ((__typeof__(&self))native_)args;                                           \
        }                                                                                          \
    } while (0)

#endif
