/* clGetDeviceIDsFrom*: which OpenCL devices serve a Direct3D adapter. */
#ifndef DXCL_DEVICES_H
#define DXCL_DEVICES_H

#include "core/common.h"

/* Validates the common arguments: CL_INVALID_PLATFORM, and CL_INVALID_VALUE for
 * num_entries == 0 with devices, or both outputs NULL. */
cl_int dxcl_check_device_query(cl_platform_id platform, cl_uint num_entries, cl_device_id *devices,
                               cl_uint *num_devices);
/* Answers the query. Preferred: the devices whose LUID (cl_khr_device_uuid) equals `luid`;
 * when no device has a matching valid LUID (or luid is NULL), every device, since the copy
 * engine serves any. All: every device of the platform. docs/design.md explains the rule. */
cl_int dxcl_interop_devices(cl_platform_id platform, const LUID *luid, bool preferred,
                            cl_uint num_entries, cl_device_id *devices, cl_uint *num_devices);

#endif
