/* dxcl's own exports (include/dxcl/dxcl.h). */
#include "core/info.h"
#include "core/memobj.h"
#include "proxy/driver.h"

#include <dxcl/dxcl.h>

DXCL_EXPORT cl_int CL_API_CALL dxclGetInfo(cl_uint param_name, size_t param_value_size,
                                           void *param_value, size_t *param_value_size_ret)
{
    const char *text;

    switch (param_name) {
    case DXCL_INFO_VERSION:
        text = DXCL_VERSION;
        break;
    case DXCL_INFO_DRIVER_PATH:
        text = dxcl_driver_path();
        break;
    case DXCL_INFO_DATA_PATH:
        text = "copy engine";
        break;
    default:
        return DXCL_FAIL(CL_INVALID_VALUE, "dxclGetInfo: unknown param 0x%x", param_name);
    }
    return dxcl_info_return(text, strlen(text) + 1, param_value_size, param_value,
                            param_value_size_ret);
}

DXCL_EXPORT cl_int CL_API_CALL dxclGetBackingFormat(cl_mem image, cl_image_format *driver_format,
                                                    cl_bool *emulated)
{
    struct dxcl_memobj *mem = dxcl_image_record(image);

    if (!mem || mem->desc.type == CL_MEM_OBJECT_BUFFER)
        return DXCL_FAIL(CL_INVALID_MEM_OBJECT,
                         "dxclGetBackingFormat: %p is neither shared nor emulated", (void *)image);
    if (driver_format)
        *driver_format = mem->backing.driver;
    if (emulated)
        *emulated = mem->backing.emulated ? CL_TRUE : CL_FALSE;
    return CL_SUCCESS;
}
