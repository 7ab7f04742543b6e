/* quirks_cl.dll (tests/common/quirks_driver.c): the system's OpenCL driver (Wine's opencl.dll,
 * PoCL behind it) with the answers of NVIDIA's OpenCL driver where they differ from PoCL's in
 * what dxcl relies on. Every call is forwarded; only these answers change:
 *
 * - Profiling (NVIDIA 580.159.04 on an H100, measured): markers and barriers report 0 for every
 *   CL_PROFILING_COMMAND_* time (this stand-in does so for every marker and barrier; NVIDIA
 *   reports times for a marker without a wait list), and an event of a profiling queue that is
 *   not complete yet gives CL_SUCCESS and 0 instead of CL_PROFILING_INFO_NOT_AVAILABLE.
 * - clGetSupportedImageFormats (NVIDIA, measured): flags other than exactly one of
 *   CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY and CL_MEM_KERNEL_READ_AND_WRITE
 *   (0 included) give CL_INVALID_VALUE; CL_MEM_KERNEL_READ_AND_WRITE lists nothing; CL_R, CL_RG
 *   and CL_RGBA of CL_SNORM_INT8 are never listed, though images of them can be created.
 * - Beyond NVIDIA, a list that differs by access flag as the spec allows: CL_R/CL_UNORM_INT8 is
 *   listed for CL_MEM_READ_ONLY only; and no kernel argument info at all (OpenCL 1.2 allows
 *   CL_KERNEL_ARG_INFO_NOT_AVAILABLE without -cl-kernel-arg-info), so that dxcl's fallback
 *   for kernel arguments runs.
 *
 * - A queue is deleted when its last reference (counted through clCreateCommandQueue,
 *   clRetainCommandQueue and clReleaseCommandQueue) is released, and the commands it had not
 *   finished are dropped: their markers', barriers', kernels' and reads' events end with
 *   QUIRKS_DROPPED. NVIDIA's reference counts leave queued commands out, and a release pending
 *   on a user event lost its data on the H200 once the program released the queue (issue 39):
 *   whoever still needs a queue's work must hold the queue.
 *
 * - With QUIRKS_WAIT_SPINS=1, clWaitForEvents spins until the events complete, as NVIDIA's does
 *   (measured on the H200 through Wine's opencl.dll, 2026-11-29: a thread waiting on a user event
 *   used a core), instead of sleeping in the system driver.
 *
 * dxcl loads it with DXCL_DRIVER (the CTest variants <test>.quirks). It exports the OpenCL 1.x
 * functions of src/core/cl_api.h, the API of Wine's 1.2 opencl.dll. */
#ifndef DXCL_QUIRKS_DRIVER_H
#define DXCL_QUIRKS_DRIVER_H

/* The format listed for CL_MEM_READ_ONLY only. */
#define QUIRKS_READ_ONLY_ORDER CL_R
#define QUIRKS_READ_ONLY_TYPE CL_UNORM_INT8

/* The status of a command dropped with its queue. */
#define QUIRKS_DROPPED CL_INVALID_COMMAND_QUEUE

#endif
