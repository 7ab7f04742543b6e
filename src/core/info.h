/* The clGet*Info return convention, shared by every intercepted query. */
#ifndef DXCL_INFO_H
#define DXCL_INFO_H

#include "core/common.h"

/* Copies `size` bytes of `src` to the caller: CL_INVALID_VALUE when the caller's buffer is
 * too small; size_ret (when non-NULL) always receives the full size. */
static inline cl_int dxcl_info_return(const void *src, size_t size, size_t value_size, void *value,
                                      size_t *size_ret)
{
    if (value && value_size < size)
        return CL_INVALID_VALUE;
    if (value)
        memcpy(value, src, size);
    if (size_ret)
        *size_ret = size;
    return CL_SUCCESS;
}

#endif
