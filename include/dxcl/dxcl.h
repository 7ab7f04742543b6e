/* dxcl's own exports, beside the OpenCL API: for tools (dxclinfo) that must tell dxcl from
 * another OpenCL.dll and report how it serves each format. Find them with GetProcAddress on
 * the loaded OpenCL.dll: a module without them is not dxcl. */
#ifndef DXCL_DXCL_H
#define DXCL_DXCL_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DXCL_INFO_VERSION 0x1     /* char[]: dxcl's version, "0.1.0" */
#define DXCL_INFO_DRIVER_PATH 0x2 /* char[]: the OpenCL driver dxcl forwards to ("" if none) */
#define DXCL_INFO_DATA_PATH 0x3   /* char[]: how data moves: "copy engine" */

/* The clGet*Info convention: CL_INVALID_VALUE for an unknown param_name or a buffer that is
 * too small. */
typedef cl_int(CL_API_CALL *dxclGetInfo_fn)(cl_uint param_name, size_t param_value_size,
                                            void *param_value, size_t *param_value_size_ret);
/* The driver format behind a shared image (the spec's format is what clGetImageInfo reports).
 * *emulated is CL_TRUE when the two differ and the copy engine converts.
 * CL_INVALID_MEM_OBJECT when `image` is not an image shared through dxcl. */
typedef cl_int(CL_API_CALL *dxclGetBackingFormat_fn)(cl_mem image, cl_image_format *driver_format,
                                                     cl_bool *emulated);

/* Fault injection for reliability tests (docs/reliability.md): the nth pass from now through
 * `point` ("lock", "upload", "download", "staging") fails once with the spec's error; nth 0
 * disarms. *fired_before receives how many faults the point has injected so far. The
 * environment variable DXCL_FAULT=point:nth[,point:nth...] arms the same at load.
 * CL_INVALID_VALUE for an unknown point. */
typedef cl_int(CL_API_CALL *dxclFaultArm_fn)(const char *point, cl_uint nth, cl_uint *fired_before);

#ifdef __cplusplus
}
#endif

#endif
