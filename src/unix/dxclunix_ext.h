/*
 * The extension functions that dxcl's Unix side hands out (docs/proxy.md, "The Unix side"),
 * written once, as core/cl_api.h is for the core API. Every consumer defines
 * DXCLUNIX_EXT_FN(kind, name, slots, fault) and includes this file:
 *   kind   what the function returns: INT (a cl_int), OBJ (an object or a pointer, with its
 *          cl_int *errcode_ret as the last argument), PTR (a pointer, no errcode_ret),
 *          NONE (void);
 *   name   the function's name, as clGetExtensionFunctionAddress[ForPlatform] is asked for it;
 *   slots  how many 64-bit argument slots it takes: the most of any version of the extension
 *          (cl_khr_command_buffer's commands gained a properties argument in 0.9.5). Slots
 *          pass by position as the caller filled them, whatever their types in its version;
 *          a callee reads the ones it has;
 *   fault  the error a call answers when the host function faulted: the spec's error for the
 *          kind of handle the call names first (an invalid handle makes drivers read through
 *          it); an OBJ function answers NULL with it in *errcode_ret.
 * From it the PE half generates one thunk per function and the Unix half one call and one
 * entry of its table of host addresses. A function that is not listed is not handed out.
 * Left out on purpose: functions that take a callback (clEnqueueSVMFreeARM: the host would
 * call PE code), and those that take or give host file descriptors (clImportMemoryARM,
 * clGetSemaphoreHandleForTypeKHR, clReImportSemaphoreSyncFdKHR: the PE side never holds a
 * raw fd; dxcl's imports go through fd handles, dxclunix.h).
 * No include guard: it is meant to be included several times.
 */
/* clang-format off */
/* cl_khr_command_buffer, cl_khr_command_buffer_multi_device, cl_khr_command_buffer_mutable_dispatch */
DXCLUNIX_EXT_FN(OBJ, clCreateCommandBufferKHR, 4, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clFinalizeCommandBufferKHR, 1, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clRetainCommandBufferKHR, 1, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clReleaseCommandBufferKHR, 1, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clEnqueueCommandBufferKHR, 6, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandBarrierWithWaitListKHR, 7, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandCopyBufferKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandCopyBufferRectKHR, 16, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandCopyBufferToImageKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandCopyImageKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandCopyImageToBufferKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandFillBufferKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandFillImageKHR, 11, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandNDRangeKernelKHR, 12, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandSVMMemcpyKHR, 10, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clCommandSVMMemFillKHR, 11, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clGetCommandBufferInfoKHR, 5, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(OBJ, clRemapCommandBufferKHR, 8, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clUpdateMutableCommandsKHR, 4, CL_INVALID_COMMAND_BUFFER_KHR)
DXCLUNIX_EXT_FN(INT, clGetMutableCommandInfoKHR, 5, CL_INVALID_MUTABLE_COMMAND_KHR)
/* cl_khr_external_memory, cl_khr_semaphore (fds only through dxcl's fd handles: dxclunix.h) */
DXCLUNIX_EXT_FN(INT, clEnqueueAcquireExternalMemObjectsKHR, 6, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueReleaseExternalMemObjectsKHR, 6, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(OBJ, clCreateSemaphoreWithPropertiesKHR, 3, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clEnqueueWaitSemaphoresKHR, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueSignalSemaphoresKHR, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clGetSemaphoreInfoKHR, 5, CL_INVALID_SEMAPHORE_KHR)
DXCLUNIX_EXT_FN(INT, clRetainSemaphoreKHR, 1, CL_INVALID_SEMAPHORE_KHR)
DXCLUNIX_EXT_FN(INT, clReleaseSemaphoreKHR, 1, CL_INVALID_SEMAPHORE_KHR)
/* Other Khronos extensions */
DXCLUNIX_EXT_FN(INT, clIcdGetPlatformIDsKHR, 3, CL_INVALID_VALUE)
DXCLUNIX_EXT_FN(OBJ, clCreateProgramWithILKHR, 4, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clTerminateContextKHR, 1, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(OBJ, clCreateCommandQueueWithPropertiesKHR, 4, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clGetKernelSubGroupInfoKHR, 8, CL_INVALID_KERNEL)
DXCLUNIX_EXT_FN(INT, clGetKernelSuggestedLocalWorkSizeKHR, 6, CL_INVALID_COMMAND_QUEUE)
/* cl_ext_device_fission, cl_ext_migrate_memobject, cl_ext_image_requirements_info */
DXCLUNIX_EXT_FN(INT, clCreateSubDevicesEXT, 5, CL_INVALID_DEVICE)
DXCLUNIX_EXT_FN(INT, clRetainDeviceEXT, 1, CL_INVALID_DEVICE)
DXCLUNIX_EXT_FN(INT, clReleaseDeviceEXT, 1, CL_INVALID_DEVICE)
DXCLUNIX_EXT_FN(INT, clEnqueueMigrateMemObjectEXT, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clGetImageRequirementsInfoEXT, 9, CL_INVALID_CONTEXT)
/* cl_intel_unified_shared_memory, cl_intel_create_buffer_with_properties,
 * cl_intel_program_scope_host_pipe */
DXCLUNIX_EXT_FN(OBJ, clHostMemAllocINTEL, 5, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(OBJ, clDeviceMemAllocINTEL, 6, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(OBJ, clSharedMemAllocINTEL, 6, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clMemFreeINTEL, 2, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clMemBlockingFreeINTEL, 2, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clGetMemAllocInfoINTEL, 6, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clSetKernelArgMemPointerINTEL, 3, CL_INVALID_KERNEL)
DXCLUNIX_EXT_FN(INT, clEnqueueMemFillINTEL, 8, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueMemcpyINTEL, 8, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueMemAdviseINTEL, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueMigrateMemINTEL, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueMemsetINTEL, 7, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(OBJ, clCreateBufferWithPropertiesINTEL, 6, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clEnqueueReadHostPipeINTEL, 9, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueWriteHostPipeINTEL, 9, CL_INVALID_COMMAND_QUEUE)
/* cl_arm_shared_virtual_memory (not clEnqueueSVMFreeARM: it takes a callback) */
DXCLUNIX_EXT_FN(PTR, clSVMAllocARM, 4, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(NONE, clSVMFreeARM, 2, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clEnqueueSVMMemcpyARM, 8, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueSVMMemFillARM, 8, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueSVMMapARM, 8, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clEnqueueSVMUnmapARM, 5, CL_INVALID_COMMAND_QUEUE)
DXCLUNIX_EXT_FN(INT, clSetKernelArgSVMPointerARM, 3, CL_INVALID_KERNEL)
DXCLUNIX_EXT_FN(INT, clSetKernelExecInfoARM, 4, CL_INVALID_KERNEL)
/* Vendors' buffers and content sizes */
DXCLUNIX_EXT_FN(OBJ, clCreateBufferNV, 6, CL_INVALID_CONTEXT)
DXCLUNIX_EXT_FN(INT, clSetContentSizeBufferPoCL, 2, CL_INVALID_MEM_OBJECT)
/* clang-format on */
