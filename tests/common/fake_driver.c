/* fake_cl.exe: the made-up OpenCL driver of fake_driver.h. Only what dxcl and
 * test_driver_sizes call is here; dxcl treats every other entry point as missing. Handles
 * are the addresses of records in static arrays (platforms, devices) or of malloc'ed ones
 * (contexts, images, programs). */
#define CL_TARGET_OPENCL_VERSION 300
#include "fake_driver.h"

#include <windows.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_d3d11.h>

struct _cl_platform_id {
    cl_uint index;
};
struct _cl_device_id {
    cl_uint platform;
    cl_uint index;
};
struct _cl_context {
    LONG refs;
    cl_uint num_devices;
    cl_device_id *devices;
};
struct _cl_mem {
    LONG refs;
    cl_context context;
    cl_mem_flags flags;
};
struct _cl_program {
    LONG refs;
    cl_context context;
    cl_build_status status;
    void(CL_CALLBACK *notify)(cl_program, void *);
    void *user_data;
};

#define TOTAL_DEVICES (FAKE_WIDE_DEVICES + FAKE_MIXED_DEVICES + FAKE_PLATFORMS - 2)

static struct _cl_platform_id platforms[FAKE_PLATFORMS];
static struct _cl_device_id devices[TOTAL_DEVICES];
static char wide_extensions[6000];
static cl_program pending_build;

static cl_uint device_count(cl_uint platform)
{
    if (platform == FAKE_WIDE_PLATFORM)
        return FAKE_WIDE_DEVICES;
    return platform == FAKE_MIXED_PLATFORM ? FAKE_MIXED_DEVICES : 1;
}

static bool lists_sharing(cl_uint platform)
{
    return platform >= FAKE_MIXED_PLATFORM && platform <= FAKE_LAST_SHARING;
}

static cl_uint first_device(cl_uint platform)
{
    cl_uint first = 0;

    for (cl_uint p = 0; p < platform; p++)
        first += device_count(p);
    return first;
}

static void init_records(void)
{
    size_t len = 0;

    for (cl_uint p = 0; p < FAKE_PLATFORMS; p++) {
        platforms[p].index = p;
        for (cl_uint d = 0; d < device_count(p); d++)
            devices[first_device(p) + d] = (struct _cl_device_id){p, d};
    }
    for (unsigned i = 0; len < 5000; i++)
        len += (size_t)snprintf(wide_extensions + len, sizeof(wide_extensions) - len,
                                "cl_fake_padding_%04u ", i);
    strcpy(wide_extensions + len, "cl_khr_device_uuid");
}

BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, void *reserved);
BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, void *reserved)
{
    (void)instance, (void)reserved;
    if (reason == DLL_PROCESS_ATTACH)
        init_records();
    return TRUE;
}

static bool is_platform(cl_platform_id platform)
{
    return platform >= platforms && platform < platforms + FAKE_PLATFORMS;
}

static bool is_device(cl_device_id device)
{
    return device >= devices && device < devices + TOTAL_DEVICES;
}

static cl_int answer(const void *src, size_t size, size_t value_size, void *value, size_t *size_ret)
{
    if (value && value_size < size)
        return CL_INVALID_VALUE;
    if (value && size)
        memcpy(value, src, size);
    if (size_ret)
        *size_ret = size;
    return CL_SUCCESS;
}

static cl_int answer_string(const char *text, size_t value_size, void *value, size_t *size_ret)
{
    return answer(text, strlen(text) + 1, value_size, value, size_ret);
}

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id *ids, cl_uint *num)
{
    if ((!ids && !num) || (ids && !num_entries))
        return CL_INVALID_VALUE;
    for (cl_uint p = 0; ids && p < num_entries && p < FAKE_PLATFORMS; p++)
        ids[p] = &platforms[p];
    if (num)
        *num = FAKE_PLATFORMS;
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param,
                                     size_t value_size, void *value, size_t *size_ret)
{
    bool wide = platform == &platforms[FAKE_WIDE_PLATFORM];
    char name[64];

    if (!is_platform(platform))
        return CL_INVALID_PLATFORM;
    switch (param) {
    case CL_PLATFORM_NAME:
        snprintf(name, sizeof(name), wide ? "Portable Computing Language (fake %u)" : "Fake %u",
                 platform->index);
        return answer_string(name, value_size, value, size_ret);
    case CL_PLATFORM_EXTENSIONS:
        return answer_string(wide                             ? "cl_khr_icd cl_khr_device_uuid"
                             : lists_sharing(platform->index) ? "cl_khr_icd cl_khr_d3d11_sharing"
                                                              : "cl_khr_icd",
                             value_size, value, size_ret);
    case CL_PLATFORM_VERSION:
        return answer_string("OpenCL 1.2 fake", value_size, value, size_ret);
    case CL_PLATFORM_PROFILE:
        return answer_string("FULL_PROFILE", value_size, value, size_ret);
    case CL_PLATFORM_VENDOR:
        return answer_string("dxcl tests", value_size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                                  cl_device_id *ids, cl_uint *num)
{
    cl_uint count;

    (void)type;
    if (!is_platform(platform))
        return CL_INVALID_PLATFORM;
    if ((!ids && !num) || (ids && !num_entries))
        return CL_INVALID_VALUE;
    count = device_count(platform->index);
    for (cl_uint d = 0; ids && d < num_entries && d < count; d++)
        ids[d] = &devices[first_device(platform->index) + d];
    if (num)
        *num = count;
    return CL_SUCCESS;
}

static const char *device_extensions(cl_device_id device)
{
    if (device->platform == FAKE_WIDE_PLATFORM)
        return wide_extensions;
    if (!lists_sharing(device->platform) ||
        (device->platform == FAKE_MIXED_PLATFORM && device->index == FAKE_MIXED_DEVICES - 1))
        return "cl_khr_icd";
    return "cl_khr_icd cl_khr_d3d11_sharing";
}

/* FAKE_LUID_ENV for the wide platform's device 0, 0xee bytes for the others. */
static void device_luid(cl_device_id device, cl_uchar luid[CL_LUID_SIZE_KHR])
{
    char text[2 * CL_LUID_SIZE_KHR + 1] = "";
    unsigned byte;

    memset(luid, 0xee, CL_LUID_SIZE_KHR);
    if (device->index != 0 || !GetEnvironmentVariableA(FAKE_LUID_ENV, text, sizeof(text)))
        return;
    for (int i = 0; i < CL_LUID_SIZE_KHR && sscanf(text + 2 * i, "%2x", &byte) == 1; i++)
        luid[i] = (cl_uchar)byte;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t value_size,
                                   void *value, size_t *size_ret)
{
    cl_platform_id platform;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    cl_bool yes = CL_TRUE, wide;
    cl_uchar luid[CL_LUID_SIZE_KHR];

    if (!is_device(device))
        return CL_INVALID_DEVICE;
    platform = &platforms[device->platform];
    wide = device->platform == FAKE_WIDE_PLATFORM;
    switch (param) {
    case CL_DEVICE_PLATFORM:
        return answer(&platform, sizeof(platform), value_size, value, size_ret);
    case CL_DEVICE_TYPE:
        return answer(&type, sizeof(type), value_size, value, size_ret);
    case CL_DEVICE_NAME:
        return answer_string("fake device", value_size, value, size_ret);
    case CL_DEVICE_VERSION:
        return answer_string("OpenCL 1.2 fake", value_size, value, size_ret);
    case CL_DEVICE_EXTENSIONS:
        return answer_string(device_extensions(device), value_size, value, size_ret);
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_IMAGE_SUPPORT:
        return answer(&yes, sizeof(yes), value_size, value, size_ret);
    case CL_DEVICE_LUID_VALID_KHR:
        if (!wide)
            return CL_INVALID_VALUE;
        return answer(&yes, sizeof(yes), value_size, value, size_ret);
    case CL_DEVICE_LUID_KHR:
        if (!wide)
            return CL_INVALID_VALUE;
        device_luid(device, luid);
        return answer(luid, sizeof(luid), value_size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

/* The driver's own clGetDeviceIDsFromD3D11KHR: a count no real answer has, so that a test
 * sees that dxcl routed the call here. */
static cl_int CL_API_CALL fake_d3d11_devices(cl_platform_id platform, cl_uint source, void *object,
                                             cl_uint set, cl_uint num_entries, cl_device_id *ids,
                                             cl_uint *num)
{
    (void)source, (void)object, (void)set, (void)num_entries, (void)ids;
    if (!is_platform(platform))
        return CL_INVALID_PLATFORM;
    if (num)
        *num = FAKE_ROUTED_BASE + platform->index;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_unused(void)
{
    return CL_INVALID_OPERATION;
}

void *CL_API_CALL clGetExtensionFunctionAddressForPlatform(cl_platform_id platform,
                                                           const char *name)
{
    if (!is_platform(platform) || !name)
        return NULL;
    if (!strcmp(name, "clGetDeviceIDsFromD3D11KHR"))
        return (void *)fake_d3d11_devices;
    return strncmp(name, "cl", 2) ? NULL : (void *)fake_unused;
}

cl_context CL_API_CALL clCreateContext(const cl_context_properties *properties, cl_uint num_devices,
                                       const cl_device_id *ids,
                                       void(CL_CALLBACK *notify)(const char *, const void *, size_t,
                                                                 void *),
                                       void *user_data, cl_int *errcode_ret)
{
    cl_context context = NULL;
    cl_int err = CL_SUCCESS;

    (void)properties, (void)notify, (void)user_data;
    for (cl_uint d = 0; d < num_devices && err == CL_SUCCESS; d++)
        if (!ids || !is_device(ids[d]))
            err = CL_INVALID_DEVICE;
    if (!num_devices)
        err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS && (!(context = calloc(1, sizeof(*context))) ||
                              !(context->devices = calloc(num_devices, sizeof(*ids))))) {
        free(context);
        context = NULL;
        err = CL_OUT_OF_HOST_MEMORY;
    }
    if (context) {
        context->refs = 1;
        context->num_devices = num_devices;
        memcpy(context->devices, ids, num_devices * sizeof(*ids));
    }
    if (errcode_ret)
        *errcode_ret = err;
    return context;
}

cl_int CL_API_CALL clRetainContext(cl_context context)
{
    if (!context)
        return CL_INVALID_CONTEXT;
    InterlockedIncrement(&context->refs);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseContext(cl_context context)
{
    if (!context)
        return CL_INVALID_CONTEXT;
    if (InterlockedDecrement(&context->refs) == 0) {
        free(context->devices);
        free(context);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetContextInfo(cl_context context, cl_context_info param, size_t value_size,
                                    void *value, size_t *size_ret)
{
    cl_uint refs;

    if (!context)
        return CL_INVALID_CONTEXT;
    switch (param) {
    case CL_CONTEXT_DEVICES:
        return answer(context->devices, context->num_devices * sizeof(cl_device_id), value_size,
                      value, size_ret);
    case CL_CONTEXT_NUM_DEVICES:
        return answer(&context->num_devices, sizeof(cl_uint), value_size, value, size_ret);
    case CL_CONTEXT_REFERENCE_COUNT:
        refs = (cl_uint)context->refs;
        return answer(&refs, sizeof(refs), value_size, value, size_ret);
    case CL_CONTEXT_PROPERTIES:
        return answer(NULL, 0, value_size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL clGetSupportedImageFormats(cl_context context, cl_mem_flags flags,
                                              cl_mem_object_type type, cl_uint num_entries,
                                              cl_image_format *formats, cl_uint *num)
{
    static const cl_image_format listed[] = {{CL_R, CL_HALF_FLOAT}, {CL_RGBA, CL_HALF_FLOAT}};
    cl_uint count = type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D ? 2 : 0;

    (void)flags;
    if (!context)
        return CL_INVALID_CONTEXT;
    for (cl_uint i = 0; formats && i < num_entries && i < count; i++)
        formats[i] = listed[i];
    if (num)
        *num = count;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                 const cl_image_format *format, const cl_image_desc *desc,
                                 void *host_ptr, cl_int *errcode_ret)
{
    cl_mem mem = NULL;
    cl_int err = CL_SUCCESS;

    (void)host_ptr;
    if (!context)
        err = CL_INVALID_CONTEXT;
    else if (!format || !desc)
        err = CL_INVALID_VALUE;
    else if (!(mem = calloc(1, sizeof(*mem))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (mem) {
        mem->refs = 1;
        mem->context = context;
        mem->flags = flags;
        clRetainContext(context);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return mem;
}

cl_int CL_API_CALL clRetainMemObject(cl_mem mem)
{
    if (!mem)
        return CL_INVALID_MEM_OBJECT;
    InterlockedIncrement(&mem->refs);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem mem)
{
    if (!mem)
        return CL_INVALID_MEM_OBJECT;
    if (InterlockedDecrement(&mem->refs) == 0) {
        clReleaseContext(mem->context);
        free(mem);
    }
    return CL_SUCCESS;
}

cl_int CL_API_CALL clGetMemObjectInfo(cl_mem mem, cl_mem_info param, size_t value_size, void *value,
                                      size_t *size_ret)
{
    cl_uint refs;

    if (!mem)
        return CL_INVALID_MEM_OBJECT;
    switch (param) {
    case CL_MEM_CONTEXT:
        return answer(&mem->context, sizeof(mem->context), value_size, value, size_ret);
    case CL_MEM_FLAGS:
        return answer(&mem->flags, sizeof(mem->flags), value_size, value, size_ret);
    case CL_MEM_REFERENCE_COUNT:
        refs = (cl_uint)mem->refs;
        return answer(&refs, sizeof(refs), value_size, value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

cl_program CL_API_CALL clCreateProgramWithSource(cl_context context, cl_uint count,
                                                 const char **strings, const size_t *lengths,
                                                 cl_int *errcode_ret)
{
    cl_program program = NULL;
    cl_int err = CL_SUCCESS;

    (void)lengths;
    if (!context)
        err = CL_INVALID_CONTEXT;
    else if (!count || !strings)
        err = CL_INVALID_VALUE;
    else if (!(program = calloc(1, sizeof(*program))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (program) {
        program->refs = 1;
        program->context = context;
        program->status = CL_BUILD_NONE;
        clRetainContext(context);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return program;
}

cl_int CL_API_CALL clRetainProgram(cl_program program)
{
    if (!program)
        return CL_INVALID_PROGRAM;
    InterlockedIncrement(&program->refs);
    return CL_SUCCESS;
}

cl_int CL_API_CALL clReleaseProgram(cl_program program)
{
    if (!program)
        return CL_INVALID_PROGRAM;
    if (InterlockedDecrement(&program->refs) == 0) {
        clReleaseContext(program->context);
        free(program);
    }
    return CL_SUCCESS;
}

/* With a callback the build goes on after the call (until fake_finish_builds); without one it
 * is done at return. */
cl_int CL_API_CALL clBuildProgram(cl_program program, cl_uint num_devices, const cl_device_id *ids,
                                  const char *options,
                                  void(CL_CALLBACK *notify)(cl_program, void *), void *user_data)
{
    (void)num_devices, (void)ids, (void)options;
    if (!program)
        return CL_INVALID_PROGRAM;
    if (!notify && user_data)
        return CL_INVALID_VALUE;
    if (!notify) {
        program->status = CL_BUILD_SUCCESS;
        return CL_SUCCESS;
    }
    if (pending_build)
        return CL_INVALID_OPERATION; /* one at a time is all the test needs */
    program->status = CL_BUILD_IN_PROGRESS;
    program->notify = notify;
    program->user_data = user_data;
    clRetainProgram(program);
    pending_build = program;
    return CL_SUCCESS;
}

void fake_finish_builds(void)
{
    cl_program program = pending_build;

    if (!program)
        return;
    pending_build = NULL;
    program->status = CL_BUILD_SUCCESS;
    program->notify(program, program->user_data);
    clReleaseProgram(program);
}

cl_int CL_API_CALL clGetProgramInfo(cl_program program, cl_program_info param, size_t value_size,
                                    void *value, size_t *size_ret)
{
    cl_context context;

    if (!program)
        return CL_INVALID_PROGRAM;
    context = program->context;
    switch (param) {
    case CL_PROGRAM_CONTEXT:
        return answer(&context, sizeof(context), value_size, value, size_ret);
    case CL_PROGRAM_NUM_DEVICES:
        return answer(&context->num_devices, sizeof(cl_uint), value_size, value, size_ret);
    case CL_PROGRAM_DEVICES:
        return answer(context->devices, context->num_devices * sizeof(cl_device_id), value_size,
                      value, size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program program, cl_device_id device,
                                         cl_program_build_info param, size_t value_size,
                                         void *value, size_t *size_ret)
{
    if (!program)
        return CL_INVALID_PROGRAM;
    if (!is_device(device))
        return CL_INVALID_DEVICE;
    if (param == CL_PROGRAM_BUILD_STATUS)
        return answer(&program->status, sizeof(program->status), value_size, value, size_ret);
    if (param == CL_PROGRAM_BUILD_LOG)
        return answer_string("", value_size, value, size_ret);
    return CL_INVALID_VALUE;
}
