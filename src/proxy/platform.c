/* Platform and device queries: the driver's answers plus the extensions dxcl provides. */
#include "core/info.h"
#include "core/registry.h"
#include "core/driver.h"
#include "core/api.h"
#include "core/route.h"
#include "proxy/answers.h"
#include "proxy/driver_extensions.h"

#include <stdlib.h>

cl_int CL_API_CALL DXCL_IMPL(clGetPlatformIDs)(cl_uint num_entries, cl_platform_id *platforms,
                                               cl_uint *num_platforms)
{
    const struct dxcl_driver *drv = dxcl_driver();

    if (!drv->clGetPlatformIDs) {
        /* No driver: answer like the Khronos loader with no ICDs. */
        if (num_platforms)
            *num_platforms = 0;
        return DXCL_FAIL(CL_PLATFORM_NOT_FOUND_KHR, "no OpenCL driver could be loaded");
    }
    return drv->clGetPlatformIDs(num_entries, platforms, num_platforms);
}

typedef cl_int(CL_API_CALL *info_fn)(void *object, cl_uint param, size_t size, void *value,
                                     size_t *size_ret);

/* Fetches a whole driver answer (size query, then value) into a malloc'ed buffer. */
static cl_int fetch_driver_info(info_fn fn, void *object, cl_uint param, void **out, size_t *size)
{
    cl_int err = fn(object, param, 0, NULL, size);

    if (err != CL_SUCCESS)
        return err;
    if (!(*out = calloc(1, *size + 1)))
        return CL_OUT_OF_HOST_MEMORY;
    if ((err = fn(object, param, *size, *out, NULL)) != CL_SUCCESS)
        free(*out);
    return err;
}

/* The platform whose extensions a platform or device query answers. */
static cl_platform_id platform_of(void *object, cl_uint param)
{
    if (param == CL_PLATFORM_EXTENSIONS || param == CL_PLATFORM_EXTENSIONS_WITH_VERSION)
        return object;
    return dxcl_platform_of_device(object);
}

static cl_int answer_extension_string(info_fn fn, void *object, cl_uint param, size_t value_size,
                                      void *value, size_t *size_ret)
{
    void *driver_list;
    size_t size;
    char *list;
    cl_int err = fetch_driver_info(fn, object, param, &driver_list, &size);

    if (err != CL_SUCCESS)
        return err;
    list = dxcl_extend_extension_string(driver_list, platform_of(object, param));
    free(driver_list);
    if (!list)
        return CL_OUT_OF_HOST_MEMORY;
    size = strlen(list) + 1;
    err = dxcl_info_return(list, size, value_size, value, size_ret);
    free(list);
    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "extension string needs %zu bytes, buffer has %zu", size, value_size);
    return CL_SUCCESS;
}

static bool versioned_list_contains(const cl_name_version *list, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (!strncmp(list[i].name, name, CL_NAME_VERSION_MAX_NAME_SIZE))
            return true;
    return false;
}

static cl_int answer_extension_versions(info_fn fn, void *object, cl_uint param, size_t value_size,
                                        void *value, size_t *size_ret)
{
    void *driver_list;
    size_t size, count;
    cl_name_version *list;
    cl_int err = fetch_driver_info(fn, object, param, &driver_list, &size);

    if (err != CL_SUCCESS)
        return err; /* a 1.2 driver (Wine's) does not answer the _WITH_VERSION forms */
    count = size / sizeof(cl_name_version);
    list = calloc(count + dxcl_extension_count() + 1, sizeof(*list));
    if (!list) {
        free(driver_list);
        return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(list, driver_list, count * sizeof(*list));
    free(driver_list);
    for (size_t i = 0; i < dxcl_extension_count(); i++) {
        const struct dxcl_extension *ext = dxcl_extension_at(i);
        if (versioned_list_contains(list, count, ext->name) ||
            !dxcl_extension_offered(platform_of(object, param), ext))
            continue;
        list[count].version = ext->version;
        strncpy(list[count].name, ext->name, CL_NAME_VERSION_MAX_NAME_SIZE - 1);
        count++;
    }
    err = dxcl_info_return(list, count * sizeof(*list), value_size, value, size_ret);
    free(list);
    return err;
}

/* One entry of proxy/answers.h's DXCL_ANSWERS lists. */
#define ANSWER(name, param, answer)                                                                \
    if (param_name == (param))                                                                     \
        return answer(fn, object, param_name, param_value_size, param_value, param_value_size_ret);

cl_int CL_API_CALL DXCL_IMPL(clGetPlatformInfo)(cl_platform_id object, cl_platform_info param_name,
                                                size_t param_value_size, void *param_value,
                                                size_t *param_value_size_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    info_fn fn = (info_fn)drv->clGetPlatformInfo;

    if (!fn)
        return dxcl_driver_missing("clGetPlatformInfo");
    DXCL_ANSWERS_clGetPlatformInfo(ANSWER);
    return fn(object, param_name, param_value_size, param_value, param_value_size_ret);
}

cl_int CL_API_CALL DXCL_IMPL(clGetDeviceInfo)(cl_device_id object, cl_device_info param_name,
                                              size_t param_value_size, void *param_value,
                                              size_t *param_value_size_ret)
{
    const struct dxcl_driver *drv = dxcl_driver();
    info_fn fn = (info_fn)drv->clGetDeviceInfo;

    if (!fn)
        return dxcl_driver_missing("clGetDeviceInfo");
    DXCL_ANSWERS_clGetDeviceInfo(ANSWER);
    return fn(object, param_name, param_value_size, param_value, param_value_size_ret);
}

void *CL_API_CALL DXCL_IMPL(clGetExtensionFunctionAddress)(const char *func_name)
{
    const struct dxcl_driver *drv = dxcl_driver();
    void *address = dxcl_find_ext_function(func_name);

    if (!address && func_name && drv->clGetExtensionFunctionAddress)
        address = dxcl_driver_extension(func_name, drv->clGetExtensionFunctionAddress(func_name));
    DXCL_LOG("clGetExtensionFunctionAddress(%s) -> %p", func_name ? func_name : "(null)", address);
    return address;
}

void *CL_API_CALL DXCL_IMPL(clGetExtensionFunctionAddressForPlatform)(cl_platform_id platform,
                                                                      const char *func_name)
{
    const struct dxcl_driver *drv = dxcl_driver();
    void *address = dxcl_find_ext_function(func_name);

    if (!address && func_name && drv->clGetExtensionFunctionAddressForPlatform)
        address = dxcl_driver_extension(
            func_name, drv->clGetExtensionFunctionAddressForPlatform(platform, func_name));
    DXCL_LOG("clGetExtensionFunctionAddressForPlatform(%s) -> %p", func_name ? func_name : "(null)",
             address);
    return address;
}
