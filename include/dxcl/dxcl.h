/* dxcl's own exports, beside the OpenCL API: for tools (dxclinfo) that must tell dxcl from
 * another OpenCL.dll and report how it serves each format. Find them with GetProcAddress on
 * the loaded OpenCL.dll: a module without them is not dxcl. */
#ifndef DXCL_DXCL_H
#define DXCL_DXCL_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* char[]: dxcl's version: git describe --tags of its build, else the project version, the
 * commit count and hash, "0.1.0-196-gc505ab3" ("-dirty" for a build of changed sources). */
#define DXCL_INFO_VERSION 0x1
#define DXCL_INFO_DRIVER_PATH 0x2 /* char[]: the OpenCL driver dxcl forwards to ("" if none) */
/* char[]: how the copy engine moves data, and where zero-copy applies (for every object; which
 * transfer one object got: dxclGetTransferMode). Up to 1 KB. */
#define DXCL_INFO_DATA_PATH 0x3
#define DXCL_INFO_DRIVER_ROUTE                                                                     \
    0x4 /* char[]: how dxcl reaches the driver: "the Unix side (dxclunix, host <library>)",        \
           "Wine's opencl.dll", "the system OpenCL.dll" or "DXCL_DRIVER" ("" if none) */
/* char[]: how dxcl learns that an event completed (the callbacks it delivers, its waiter, pending
 * releases), chosen at the first watch: "not used yet", "the Unix side's event watches", "the
 * driver's event callbacks", "threads waiting in clWaitForEvents", "one thread looking at the
 * events" (where the driver's clWaitForEvents spins, or DXCL_WATCH_POLL=1) or "none". */
#define DXCL_INFO_WATCH_ROUTE 0x5

/* The clGet*Info convention: CL_INVALID_VALUE for an unknown param_name or a buffer that is
 * too small. */
typedef cl_int(CL_API_CALL *dxclGetInfo_fn)(cl_uint param_name, size_t param_value_size,
                                            void *param_value, size_t *param_value_size_ret);
/* The driver format behind a shared image (the spec's format is what clGetImageInfo reports).
 * *emulated is CL_TRUE when the two differ and the copy engine converts.
 * CL_INVALID_MEM_OBJECT when `image` is not an image shared through dxcl. */
typedef cl_int(CL_API_CALL *dxclGetBackingFormat_fn)(cl_mem image, cl_image_format *driver_format,
                                                     cl_bool *emulated);

/* How a shared object's data moves between Direct3D and the driver (docs/design.md):
 * DXCL_TRANSFER_COPY, the copy engine copies through host memory of its own;
 * DXCL_TRANSFER_ZERO_COPY, the driver object's storage is the staging resource's memory;
 * DXCL_TRANSFER_GPU, the GPU path: the storage is a twin of the subresource on the GPU, which
 * Direct3D copies into and out of on the GPU, the CPU waiting for Direct3D's copy in and for
 * OpenCL's commands at the release;
 * DXCL_TRANSFER_GPU_SEMAPHORES, the GPU path with the hand-overs ordered on the GPU by the twin's
 * semaphores: no call waits for either GPU queue;
 * DXCL_TRANSFER_GPU_DIRECT, the GPU path without a twin: the driver imported the texture's own
 * memory (DXVK's image, made exportable by dxcl's Vulkan layer), and a hand-over copies nothing.
 * CL_INVALID_MEM_OBJECT when `mem` is not shared through dxcl. */
#define DXCL_TRANSFER_COPY 1
#define DXCL_TRANSFER_ZERO_COPY 2
#define DXCL_TRANSFER_GPU 3
#define DXCL_TRANSFER_GPU_SEMAPHORES 4
#define DXCL_TRANSFER_GPU_DIRECT 5
typedef cl_int(CL_API_CALL *dxclGetTransferMode_fn)(cl_mem mem, cl_uint *mode);
/* Lazy uploads (docs/design.md): how many of `mem`'s acquires skipped reading the Direct3D
 * resource and uploading it, because the first command overwrote the whole object or no
 * command touched it. CL_INVALID_MEM_OBJECT when `mem` is not shared through dxcl. */
typedef cl_int(CL_API_CALL *dxclGetSkippedUploads_fn)(cl_mem mem, cl_uint *count);
/* Kept driver objects (docs/design.md): *kept is CL_TRUE when the driver object behind `mem`
 * (its handle) outlived an earlier shared object of the same description and access and was
 * taken again, CL_FALSE when it was made for `mem`. CL_INVALID_MEM_OBJECT when `mem` is not
 * shared through dxcl. */
typedef cl_int(CL_API_CALL *dxclGetKeptDriverObject_fn)(cl_mem mem, cl_bool *kept);
/* The idle staging resources a D3D10/D3D11 context keeps for reuse (each holds a reference on
 * the Direct3D device until the context goes). CL_INVALID_CONTEXT for other contexts. */
typedef cl_int(CL_API_CALL *dxclGetPooledStagingCount_fn)(cl_context context, cl_uint *count);

/* How dxcl serves a sharing extension on a platform (docs/design.md, "Paths"):
 * DXCL_PATH_COPY_ENGINE, dxcl's copy engine; DXCL_PATH_NATIVE, the driver's own
 * implementation; DXCL_PATH_TRANSLATED, the driver's implementation of its sibling (KHR <-> NV).
 * served_by (optional, served_by_size bytes) receives the driver's extension name, "" for the
 * copy engine.
 * CL_INVALID_VALUE for an extension dxcl does not expose; CL_INVALID_PLATFORM for a platform
 * the driver does not list. */
#define DXCL_PATH_COPY_ENGINE 1
#define DXCL_PATH_EMULATED DXCL_PATH_COPY_ENGINE /* its name before 0.2 */
#define DXCL_PATH_NATIVE 2
#define DXCL_PATH_TRANSLATED 3
typedef cl_int(CL_API_CALL *dxclGetExtensionPath_fn)(cl_platform_id platform, const char *extension,
                                                     cl_uint *path, size_t served_by_size,
                                                     char *served_by);

#ifdef __cplusplus
}
#endif

#endif
