/* Path selection per platform and extension (see route.h). */
#include "core/route.h"
#include "core/env.h"
#include "core/names.h"
#include "core/driver.h"

#include <stdlib.h>
#include <string.h>

struct served {
    enum dxcl_path path;
    const struct dxcl_extension *by;
    void **functions; /* the driver's, parallel to the extension's (malloc'ed) */
};

struct platform_paths {
    cl_platform_id platform;
    struct served *served; /* parallel to the exposed extensions (malloc'ed); NULL: all engine */
};

/* Sized from the driver's platform list and dxcl's extensions, decided once, kept for the
 * process. */
static struct platform_paths *platforms;
static cl_uint num_platforms;
static bool any_routed;
static INIT_ONCE paths_once = INIT_ONCE_STATIC_INIT;

const char *dxcl_path_name(enum dxcl_path path)
{
    static const char *const names[] = {"copy engine", "native", "translated"};

    return names[path];
}

/* The platform and every one of its devices list `name`. */
static bool driver_lists(cl_platform_id platform, const char *name)
{
    cl_device_id *devices;
    cl_uint count;
    char *list = dxcl_driver_platform_string(platform, CL_PLATFORM_EXTENSIONS);
    bool listed = dxcl_has_word(list, name);

    free(list);
    if (!listed || !(devices = dxcl_driver_devices(platform, &count)))
        return false;
    for (cl_uint i = 0; i < count && listed; i++) {
        list = dxcl_driver_device_string(devices[i], CL_DEVICE_EXTENSIONS);
        listed = dxcl_has_word(list, name);
        free(list);
    }
    free(devices);
    return listed;
}

static size_t function_count(const struct dxcl_extension *ext)
{
    size_t count = 0;

    while (ext->functions && ext->functions[count].name)
        count++;
    return count;
}

/* Every function of `by` from the driver, parallel to `wanted`'s (the same count); on failure
 * out->functions is left NULL. */
static bool resolve(cl_platform_id platform, const struct dxcl_extension *by, struct served *out)
{
    const struct dxcl_driver *drv = dxcl_driver();
    size_t count = function_count(by);

    if (!drv->clGetExtensionFunctionAddressForPlatform)
        return false;
    if (!(out->functions = calloc(count + 1, sizeof(*out->functions)))) {
        DXCL_LOG("out of memory: the copy engine serves %s", by->name);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        out->functions[i] =
            drv->clGetExtensionFunctionAddressForPlatform(platform, by->functions[i].name);
        if (!out->functions[i]) {
            DXCL_LOG("%s is listed but the driver has no %s: the copy engine serves it", by->name,
                     by->functions[i].name);
            free(out->functions);
            out->functions = NULL;
            return false;
        }
    }
    return true;
}

static void decide(cl_platform_id platform, const struct dxcl_extension *ext, bool forced,
                   struct served *out)
{
    const struct dxcl_extension *sibling = ext->sibling;

    memset(out, 0, sizeof(*out));
    if (!forced && driver_lists(platform, ext->name) && resolve(platform, ext, out)) {
        out->path = DXCL_NATIVE;
        out->by = ext;
    } else if (!forced && sibling && driver_lists(platform, sibling->name) &&
               resolve(platform, sibling, out)) {
        out->path = DXCL_TRANSLATED;
        out->by = sibling;
    }
    any_routed |= out->path != DXCL_BY_ENGINE;
    DXCL_LOG("platform %p: %s: %s%s%s", (void *)platform, ext->name, dxcl_path_name(out->path),
             out->by ? " by the driver's " : "", out->by ? out->by->name : "");
}

static void decide_platform(struct platform_paths *paths, bool forced)
{
    size_t count = dxcl_extension_count();

    if (!(paths->served = calloc(count + 1, sizeof(*paths->served)))) {
        DXCL_LOG("out of memory: the copy engine serves every extension on platform %p",
                 (void *)paths->platform);
        return;
    }
    for (size_t e = 0; e < count; e++)
        decide(paths->platform, dxcl_extension_at(e), forced, &paths->served[e]);
}

static BOOL CALLBACK decide_all(INIT_ONCE *once, void *param, void **context)
{
    cl_platform_id *ids;
    cl_uint count;
    char value[16];
    /* "emulate" is the setting's name before 0.2. */
    bool forced = dxcl_getenv("PATH", value, sizeof(value)) &&
                  (!strcmp(value, "engine") || !strcmp(value, "emulate"));

    (void)once, (void)param, (void)context;
    if (forced)
        DXCL_LOG("PATH=%s: the copy engine serves every extension", value);
    if (!(ids = dxcl_driver_platforms(&count)))
        return TRUE;
    if (!(platforms = calloc(count, sizeof(*platforms)))) {
        DXCL_LOG("out of memory: the copy engine serves every extension on %u platforms", count);
        free(ids);
        return TRUE;
    }
    num_platforms = count;
    for (cl_uint p = 0; p < count; p++) {
        platforms[p].platform = ids[p];
        decide_platform(&platforms[p], forced);
    }
    free(ids);
    return TRUE;
}

static const struct platform_paths *paths_of(cl_platform_id platform)
{
    InitOnceExecuteOnce(&paths_once, decide_all, NULL, NULL);
    for (cl_uint p = 0; p < num_platforms; p++)
        if (platforms[p].platform == platform)
            return platforms[p].served ? &platforms[p] : NULL;
    return NULL;
}

/* The index of an exposed extension; NOT_EXPOSED for others. */
#define NOT_EXPOSED ((size_t)-1)
static size_t index_of(const struct dxcl_extension *extension)
{
    for (size_t e = 0; e < dxcl_extension_count(); e++)
        if (dxcl_extension_at(e) == extension)
            return e;
    return NOT_EXPOSED;
}

enum dxcl_path dxcl_path_of(cl_platform_id platform, const struct dxcl_extension *extension,
                            const struct dxcl_extension **served_by)
{
    const struct platform_paths *paths = paths_of(platform);
    size_t e = index_of(extension);
    const struct served *served = paths && e != NOT_EXPOSED ? &paths->served[e] : NULL;

    if (served_by)
        *served_by = served ? served->by : NULL;
    return served ? served->path : DXCL_BY_ENGINE;
}

bool dxcl_extension_offered(cl_platform_id platform, const struct dxcl_extension *extension)
{
    return !extension->extends || dxcl_path_of(platform, extension, NULL) != DXCL_BY_ENGINE ||
           dxcl_path_of(platform, extension->extends, NULL) == DXCL_BY_ENGINE;
}

char *dxcl_extend_extension_string(const char *driver_list, cl_platform_id platform)
{
    size_t count = dxcl_extension_count(), size = strlen(driver_list) + 2;
    char *result;

    for (size_t i = 0; i < count; i++)
        size += strlen(dxcl_extension_at(i)->name) + 1;
    if (!(result = malloc(size)))
        return NULL;
    strcpy(result, driver_list);
    for (size_t i = 0; i < count; i++) {
        const struct dxcl_extension *ext = dxcl_extension_at(i);
        size_t len = strlen(result);
        if (dxcl_has_word(driver_list, ext->name) || !dxcl_extension_offered(platform, ext))
            continue;
        if (len && result[len - 1] != ' ')
            strcat(result, " ");
        strcat(result, ext->name);
    }
    return result;
}

bool dxcl_any_routed(void)
{
    InitOnceExecuteOnce(&paths_once, decide_all, NULL, NULL);
    return any_routed;
}

void *dxcl_route(cl_platform_id platform, const void *self)
{
    size_t function;
    const struct dxcl_extension *extension = dxcl_extension_of_function(self, &function);
    const struct platform_paths *paths = platform ? paths_of(platform) : NULL;
    size_t e = extension ? index_of(extension) : NOT_EXPOSED;

    if (!paths || e == NOT_EXPOSED || paths->served[e].path == DXCL_BY_ENGINE)
        return NULL;
    return paths->served[e].functions[function];
}

bool dxcl_property_routed(cl_platform_id platform, cl_context_properties property)
{
    for (size_t e = 0; e < dxcl_extension_count(); e++) {
        const struct dxcl_extension *ext = dxcl_extension_at(e);
        for (const cl_context_properties *p = ext->context_properties; p && *p; p++)
            if (*p == property && dxcl_path_of(platform, ext, NULL) != DXCL_BY_ENGINE)
                return true;
    }
    return false;
}

static bool is_interop_property(cl_context_properties name)
{
    for (size_t e = 0; e < dxcl_extension_count(); e++)
        for (const cl_context_properties *p = dxcl_extension_at(e)->context_properties; p && *p;
             p++)
            if (*p == name)
                return true;
    return false;
}

bool dxcl_context_is_drivers(cl_context context)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_context_properties *props;
    size_t size = 0;
    bool interop = false;

    if (!dxcl_any_routed() || !drv->clGetContextInfo ||
        drv->clGetContextInfo(context, CL_CONTEXT_PROPERTIES, 0, NULL, &size) != CL_SUCCESS ||
        size < sizeof(*props) || !(props = malloc(size)))
        return false;
    if (drv->clGetContextInfo(context, CL_CONTEXT_PROPERTIES, size, props, NULL) == CL_SUCCESS)
        for (size_t i = 0; i + 1 < size / sizeof(*props) && props[i]; i += 2)
            interop |= props[i + 1] && is_interop_property(props[i]);
    free(props);
    return interop;
}

cl_platform_id dxcl_platform_of_creation(const cl_context_properties *properties,
                                         const cl_device_id *devices)
{
    for (size_t i = 0; properties && properties[i]; i += 2)
        if (properties[i] == CL_CONTEXT_PLATFORM)
            return (cl_platform_id)properties[i + 1];
    if (devices && devices[0])
        return dxcl_platform_of_device(devices[0]);
    InitOnceExecuteOnce(&paths_once, decide_all, NULL, NULL);
    return num_platforms ? platforms[0].platform : NULL;
}
