/* clGetDeviceIDsFrom* (devices.h): which of the driver's OpenCL devices serve a Direct3D adapter,
 * matched by LUID where the driver reports one. */
#include "core/devices.h"
#include "core/driver.h"
#include "core/names.h"

#include <stdlib.h>

cl_int dxcl_check_device_query(cl_platform_id platform, cl_uint num_entries, cl_device_id *devices,
                               cl_uint *num_devices)
{
    if (!dxcl_driver_has_platform(platform))
        return DXCL_FAIL(CL_INVALID_PLATFORM, "%p is not a platform", (void *)platform);
    if (num_entries == 0 && devices)
        return DXCL_FAIL(CL_INVALID_VALUE, "num_entries is 0 but devices is not NULL");
    if (!devices && !num_devices)
        return DXCL_FAIL(CL_INVALID_VALUE, "devices and num_devices are both NULL");
    return CL_SUCCESS;
}

static bool lists_device_uuid(cl_device_id device)
{
    char *extensions = dxcl_driver_device_string(device, CL_DEVICE_EXTENSIONS);
    bool listed = dxcl_has_word(extensions, "cl_khr_device_uuid");

    free(extensions);
    return listed;
}

static bool has_luid(cl_device_id device, const LUID *luid)
{
    cl_bool valid = CL_FALSE;
    cl_uchar value[CL_LUID_SIZE_KHR];

    if (!lists_device_uuid(device))
        return false;
    if (DXCL_DRIVER_CALL_INT(clGetDeviceInfo, (device, CL_DEVICE_LUID_VALID_KHR, sizeof(valid),
                                               &valid, NULL)) != CL_SUCCESS ||
        !valid)
        return false;
    if (DXCL_DRIVER_CALL_INT(clGetDeviceInfo, (device, CL_DEVICE_LUID_KHR, sizeof(value), value,
                                               NULL)) != CL_SUCCESS)
        return false;
    return !memcmp(value, luid, sizeof(*luid));
}

cl_int dxcl_interop_devices(cl_platform_id platform, const LUID *luid, bool preferred,
                            cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices)
{
    cl_device_id *all;
    cl_uint count = 0, matched = 0;
    cl_int err =
        DXCL_DRIVER_CALL_INT(clGetDeviceIDs, (platform, CL_DEVICE_TYPE_ALL, 0, NULL, &count));

    if (err != CL_SUCCESS || count == 0)
        return DXCL_FAIL(CL_DEVICE_NOT_FOUND, "the platform has no devices (%d)", err);
    if (!(all = calloc(count, sizeof(*all))))
        return CL_OUT_OF_HOST_MEMORY;
    DXCL_DRIVER_CALL_INT(clGetDeviceIDs, (platform, CL_DEVICE_TYPE_ALL, count, all, NULL));
    if (preferred && luid) {
        for (cl_uint i = 0; i < count; i++)
            if (has_luid(all[i], luid))
                all[matched++] = all[i];
        if (matched)
            count = matched;
        else /* no LUID matches: the copy engine serves every device alike */
            DXCL_DRIVER_CALL_INT(clGetDeviceIDs, (platform, CL_DEVICE_TYPE_ALL, count, all, NULL));
    }
    for (cl_uint i = 0; devices && i < count && i < num_entries; i++)
        devices[i] = all[i];
    if (num_devices)
        *num_devices = count;
    free(all);
    return CL_SUCCESS;
}
