/* Includes and conventions shared by every dxcl source file. */
#ifndef DXCL_COMMON_H
#define DXCL_COMMON_H

#define COBJMACROS
#define WIN32_LEAN_AND_MEAN
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <windows.h>
#include <unknwn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <CL/cl.h>
#include <CL/cl_gl.h>
#include <CL/cl_ext.h>

#include "core/log.h"

/* Marks a function exported from OpenCL.dll under its undecorated name. */
#define DXCL_EXPORT __declspec(dllexport)
/* Declares dxcl's own export `name` with the type of its public typedef name##_fn
 * (include/dxcl/dxcl.h), so that the prototype is written once. */
#define DXCL_DECLARE_EXPORT(name) DXCL_EXPORT __typeof__(*(name##_fn)NULL) name

#define DXCL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
