/* Names of OpenCL values for messages, and extension-list matching: plain C over the Khronos
 * headers, with no other part of dxcl behind it, so that dxclinfo, the demo and the tests
 * compile src/core/names.c into themselves and print the same names as the DLL's log. */
#ifndef DXCL_NAMES_H
#define DXCL_NAMES_H

#include <CL/cl.h>
#include <stdbool.h>

/* "CL_INVALID_VALUE", "CL_INVALID_D3D11_DEVICE_KHR"; "error -9999" for a code it does not
 * know (in a buffer of the calling thread, valid until its next call). */
const char *dxcl_error_name(cl_int code);

/* "CL_RG", "CL_UNORM_INT8"; "?" when unknown. */
const char *dxcl_channel_order_name(cl_channel_order order);
const char *dxcl_channel_type_name(cl_channel_type type);

/* True when the space-separated `list` (an extension string) holds `word` as a whole entry;
 * false for a NULL list or an empty word. */
bool dxcl_has_word(const char *list, const char *word);

#endif
