/* The exported API: the OpenCL.dll the program loads is dxcl's (beside the program); every
 * name of src/core/cl_api.h is exported by it and nothing is exported twice; the emulated
 * OpenCL 2.0/3.0 creation functions follow the rules of docs/proxy.md; a function the driver
 * lacks fails with CL_INVALID_OPERATION / NULL, and one it has is forwarded. */
#include "testlib.h"
#include "real_driver.h"

#include <stdlib.h>

static const struct api_entry {
    const char *name;
    const char *route; /* "OWN" or "FWD" */
    const char *kind;  /* "INT", "OBJ", "PTR", "NONE" */
    int version;
} api[] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) {#name, #route, #kind, version},
#include "core/cl_api.h"
#undef DXCL_API_FN
};
enum { API_COUNT = sizeof(api) / sizeof(api[0]) };

static HMODULE dxcl;

/* The directory part of a module path, lower-cased (Windows paths compare case-insensitively). */
static void module_dir(HMODULE module, char *dir, size_t size)
{
    DWORD len = GetModuleFileNameA(module, dir, (DWORD)size);
    char *slash;

    REQUIRE(len > 0 && len < size, "GetModuleFileName: error %lu", GetLastError());
    slash = strrchr(dir, '\\');
    REQUIRE(slash != NULL, "module path without a directory: %s", dir);
    *slash = 0;
    CharLowerA(dir);
}

static void check_module(void)
{
    char exe_dir[MAX_PATH], dll_dir[MAX_PATH], path[MAX_PATH];

    /* Before any OpenCL call the driver is not loaded yet (dxcl loads it lazily), so this
     * name lookup can only find the OpenCL.dll the program imports. */
    HMODULE by_name = GetModuleHandleA("OpenCL.dll");
    REQUIRE(by_name != NULL, "OpenCL.dll is not loaded");
    dxcl = test_dxcl_module();
    CHECK(by_name == dxcl, "GetModuleHandle(OpenCL.dll) %p is not the imported module %p",
          (void *)by_name, (void *)dxcl);
    CHECK(LoadLibraryA("OpenCL.dll") == dxcl, "LoadLibrary(OpenCL.dll) gives another module");
    FreeLibrary(dxcl);

    module_dir(NULL, exe_dir, sizeof(exe_dir));
    module_dir(dxcl, dll_dir, sizeof(dll_dir));
    GetModuleFileNameA(dxcl, path, sizeof(path));
    printf("dxcl: %s\n", path);
    CHECK(!strcmp(exe_dir, dll_dir), "OpenCL.dll is loaded from %s, not the program's folder %s",
          dll_dir, exe_dir);
    /* dxcl-only exports prove it is dxcl and not the driver under the same name. */
    CHECK(GetProcAddress(dxcl, "clCreateCommandQueueWithProperties") != NULL,
          "the loaded OpenCL.dll lacks the emulated 2.0 entry points: not dxcl");

    HMODULE driver = test_driver_module();
    GetModuleFileNameA(driver, path, sizeof(path));
    printf("driver: %s\n", path);
    CHECK(driver != dxcl, "the system driver is dxcl itself");
}

/* Names exported by `module`, from its PE export directory. */
static const char **export_names(HMODULE module, DWORD *count)
{
    const BYTE *base = (const BYTE *)module;
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS *nt = (const IMAGE_NT_HEADERS *)(base + dos->e_lfanew);
    const IMAGE_DATA_DIRECTORY *dir =
        &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_EXPORT];
    const IMAGE_EXPORT_DIRECTORY *exports;
    const DWORD *names;
    const char **out;

    REQUIRE(dos->e_magic == IMAGE_DOS_SIGNATURE && nt->Signature == IMAGE_NT_SIGNATURE,
            "OpenCL.dll is not a PE image in memory");
    REQUIRE(dir->VirtualAddress && dir->Size, "OpenCL.dll has no export directory");
    exports = (const IMAGE_EXPORT_DIRECTORY *)(base + dir->VirtualAddress);
    names = (const DWORD *)(base + exports->AddressOfNames);
    out = calloc(exports->NumberOfNames + 1, sizeof(*out));
    REQUIRE(out != NULL, "out of memory");
    for (DWORD i = 0; i < exports->NumberOfNames; i++)
        out[i] = (const char *)(base + names[i]);
    *count = exports->NumberOfNames;
    return out;
}

static void check_exports(void)
{
    DWORD num_exports;
    const char **exports = export_names(dxcl, &num_exports);
    int resolved = 0, own = 0, in_table = 0;

    for (int i = 0; i < API_COUNT; i++) {
        FARPROC proc = GetProcAddress(dxcl, api[i].name);
        CHECK(proc != NULL, "%s is not exported", api[i].name);
        if (!proc)
            continue;
        resolved++;
        /* Implemented inside dxcl: no export forwards straight into the driver. */
        CHECK(test_address_in(dxcl, (void *)proc), "%s resolves outside dxcl", api[i].name);
        own += !strcmp(api[i].route, "OWN");
        int earlier = 0;
        for (int j = 0; j < i; j++)
            earlier += !strcmp(api[i].name, api[j].name);
        CHECK(earlier == 0, "%s is listed twice in cl_api.h", api[i].name);
        int hits = 0;
        for (DWORD e = 0; e < num_exports; e++)
            hits += !strcmp(exports[e], api[i].name);
        CHECK(hits == 1, "%s appears %d times in the export table", api[i].name, hits);
        in_table += hits == 1;
    }
    printf("%d of %d listed functions exported (%d OWN), export table holds %lu names\n", resolved,
           API_COUNT, own, (unsigned long)num_exports);
    CHECK(resolved == API_COUNT, "%d of %d listed names resolve", resolved, API_COUNT);
    CHECK(in_table == API_COUNT, "%d of %d listed names are in the export table", in_table,
          API_COUNT);
    CHECK(num_exports >= (DWORD)API_COUNT, "export table has %lu names, list has %d",
          (unsigned long)num_exports, API_COUNT);
    /* Sanity of the list itself: the loader's API (1.0 to 3.0 and cl_gl.h), all named cl*. */
    CHECK(API_COUNT >= 120, "cl_api.h lists only %d functions", API_COUNT);
    for (int i = 0; i < API_COUNT; i++)
        CHECK(!strncmp(api[i].name, "cl", 2) && api[i].version >= 10 && api[i].version <= 30,
              "odd list entry %s (version %d)", api[i].name, api[i].version);
    /* Anything exported beyond the list (a backend's entry points) is reported, not judged. */
    for (DWORD e = 0; e < num_exports; e++) {
        bool listed = false;
        for (int i = 0; i < API_COUNT && !listed; i++)
            listed = !strcmp(exports[e], api[i].name);
        if (!listed)
            printf("also exported: %s\n", exports[e]);
    }
    free(exports);
}

static cl_context context;
static cl_device_id device;

static cl_command_queue_properties queue_properties(cl_command_queue queue)
{
    cl_command_queue_properties props = ~(cl_command_queue_properties)0;
    CHECK_ERR(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL),
              CL_SUCCESS);
    return props;
}

/* Enqueues a small write and returns its (completed) event. */
static cl_event timed_write(cl_command_queue queue, cl_mem buffer)
{
    static const int data[64];
    cl_event event = NULL;

    CHECK_ERR(clEnqueueWriteBuffer(queue, buffer, CL_FALSE, 0, sizeof(data), data, 0, NULL, &event),
              CL_SUCCESS);
    CHECK(event != NULL, "no event");
    CHECK_ERR(clWaitForEvents(1, &event), CL_SUCCESS);
    return event;
}

static bool device_has_queues_on_device(void)
{
    cl_uint max_size = 0;

    return clGetDeviceInfo(device, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, sizeof(max_size), &max_size,
                           NULL) == CL_SUCCESS &&
           max_size != 0;
}

static void check_queue_with_properties(void)
{
    const bool emulated = test_driver()->clCreateCommandQueueWithProperties == NULL;
    cl_int err = 1;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    cl_ulong start = 0, end = 0;
    cl_device_id queue_device = NULL;
    cl_context queue_context = NULL;

    printf("clCreateCommandQueueWithProperties: %s\n",
           emulated ? "emulated (driver lacks it)" : "forwarded");
    CHECK_ERR(err, CL_SUCCESS);

    /* NULL properties: an in-order queue without profiling. */
    err = 1;
    cl_command_queue plain = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    REQUIRE(plain != NULL, "clCreateCommandQueueWithProperties(NULL) gave no queue");
    CHECK(queue_properties(plain) == 0, "NULL properties gave queue properties 0x%llx",
          (unsigned long long)queue_properties(plain));
    CHECK_ERR(
        clGetCommandQueueInfo(plain, CL_QUEUE_DEVICE, sizeof(queue_device), &queue_device, NULL),
        CL_SUCCESS);
    CHECK(queue_device == device, "queue device %p, want %p", (void *)queue_device, (void *)device);
    CHECK_ERR(
        clGetCommandQueueInfo(plain, CL_QUEUE_CONTEXT, sizeof(queue_context), &queue_context, NULL),
        CL_SUCCESS);
    CHECK(queue_context == context, "queue context %p, want %p", (void *)queue_context,
          (void *)context);
    cl_event event = timed_write(plain, buffer);
    CHECK_ERR(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL),
              CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(event);
    CHECK_ERR(clReleaseCommandQueue(plain), CL_SUCCESS);

    /* An empty list is the same as NULL. */
    const cl_queue_properties empty[] = {0};
    err = 1;
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, empty, &err);
    CHECK_ERR(err, CL_SUCCESS);
    if (queue) {
        CHECK(queue_properties(queue) == 0, "empty list gave properties 0x%llx",
              (unsigned long long)queue_properties(queue));
        clReleaseCommandQueue(queue);
    }

    /* Profiling: reaches the driver and works. */
    const cl_queue_properties profiling[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    err = 1;
    queue = clCreateCommandQueueWithProperties(context, device, profiling, &err);
    CHECK_ERR(err, CL_SUCCESS);
    REQUIRE(queue != NULL, "clCreateCommandQueueWithProperties(PROFILING) gave no queue");
    CHECK(queue_properties(queue) == CL_QUEUE_PROFILING_ENABLE,
          "profiling queue has properties 0x%llx", (unsigned long long)queue_properties(queue));
    event = timed_write(queue, buffer);
    CHECK_ERR(
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL),
        CL_SUCCESS);
    CHECK_ERR(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL),
              CL_SUCCESS);
    CHECK(start != 0 && end >= start, "profiling times start %llu end %llu",
          (unsigned long long)start, (unsigned long long)end);
    clReleaseEvent(event);
    clReleaseCommandQueue(queue);

    /* Out-of-order execution, when the device offers it, reaches the driver too. */
    cl_command_queue_properties supported = 0;
    CHECK_ERR(
        clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(supported), &supported, NULL),
        CL_SUCCESS);
    if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        const cl_queue_properties ooo[] = {
            CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
            0};
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, ooo, &err);
        CHECK_ERR(err, CL_SUCCESS);
        if (queue) {
            CHECK(queue_properties(queue) == ooo[1], "out-of-order queue has properties 0x%llx",
                  (unsigned long long)queue_properties(queue));
            clReleaseCommandQueue(queue);
        }
    } else {
        printf("device has no out-of-order queues\n");
    }

    /* On-device queues: valid OpenCL 2.0 properties that a 1.2 driver cannot provide. */
    const cl_queue_properties on_device[] = {
        CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_ON_DEVICE, 0};
    /* An unknown property name. */
    const cl_queue_properties unknown[] = {0x7fff1234, 1, 0};
    if (emulated) {
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, on_device, &err);
        CHECK(queue == NULL, "CL_QUEUE_ON_DEVICE gave a queue");
        CHECK_ERR(err, CL_INVALID_QUEUE_PROPERTIES);
    } else if (!device_has_queues_on_device()) {
        /* A device with no on-device queues: the spec's error, from dxcl (PoCL 3.1 itself
         * aborts the process, so the driver is not asked). */
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, on_device, &err);
        CHECK(queue == NULL, "CL_QUEUE_ON_DEVICE gave a queue on a device without them");
        CHECK_ERR(err, CL_INVALID_QUEUE_PROPERTIES);
    } else {
        /* A 2.0 driver decides about on-device queues itself. */
        cl_int drv_err = 1;
        cl_command_queue drv_queue =
            test_driver()->clCreateCommandQueueWithProperties(context, device, on_device, &drv_err);
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, on_device, &err);
        CHECK_ERR(err, drv_err);
        if (drv_queue)
            clReleaseCommandQueue(drv_queue);
        if (queue)
            clReleaseCommandQueue(queue);
    }
    if (emulated) {
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, unknown, &err);
        CHECK(queue == NULL, "an unknown property gave a queue");
        CHECK_ERR(err, CL_INVALID_VALUE);
        /* Without errcode_ret the failure must not crash. */
        CHECK(clCreateCommandQueueWithProperties(context, device, unknown, NULL) == NULL,
              "an unknown property gave a queue (errcode_ret NULL)");
    } else {
        /* A 2.0 driver's own function decides: dxcl answers as the driver does (NVIDIA's 580
         * accepts an unknown property name through dxcl's Unix side). */
        cl_int drv_err = 1;
        cl_command_queue drv_queue =
            test_driver()->clCreateCommandQueueWithProperties(context, device, unknown, &drv_err);
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, unknown, &err);
        CHECK_ERR(err, drv_err);
        CHECK((queue == NULL) == (drv_queue == NULL), "an unknown property: a queue %s",
              queue ? "from dxcl only" : "from the driver only");
        if (drv_queue)
            clReleaseCommandQueue(drv_queue);
        if (queue)
            clReleaseCommandQueue(queue);
        queue = clCreateCommandQueueWithProperties(context, device, unknown, NULL);
        CHECK(queue == NULL || drv_queue, "an unknown property gave a queue (errcode_ret NULL)");
        if (queue)
            clReleaseCommandQueue(queue);
    }

    if (emulated) {
        /* The emulation's own rules (docs/proxy.md). */
        const cl_queue_properties bad_bits[] = {CL_QUEUE_PROPERTIES, (cl_queue_properties)1 << 40,
                                                0};
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, bad_bits, &err);
        CHECK(queue == NULL, "unknown property bits gave a queue");
        CHECK_ERR(err, CL_INVALID_VALUE);

        const cl_queue_properties repeated[] = {CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PROPERTIES,
                                                CL_QUEUE_PROFILING_ENABLE, 0};
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, repeated, &err);
        CHECK(queue == NULL, "a repeated property gave a queue");
        CHECK_ERR(err, CL_INVALID_VALUE);

        const cl_queue_properties size[] = {CL_QUEUE_SIZE, 4096, 0};
        err = 1;
        queue = clCreateCommandQueueWithProperties(context, device, size, &err);
        CHECK(queue == NULL, "CL_QUEUE_SIZE gave a queue");
        CHECK_ERR(err, CL_INVALID_QUEUE_PROPERTIES);

        /* Errors of the 1.2 call come back unchanged: a bad context. */
        err = 1;
        queue = clCreateCommandQueueWithProperties(NULL, device, NULL, &err);
        CHECK(queue == NULL, "a NULL context gave a queue");
        CHECK_ERR(err, CL_INVALID_CONTEXT);
    }
    clReleaseMemObject(buffer);
}

static void check_sampler(const cl_sampler_properties *props, cl_bool normalized,
                          cl_addressing_mode addressing, cl_filter_mode filter, const char *what)
{
    cl_int err = 1;
    cl_sampler sampler = clCreateSamplerWithProperties(context, props, &err);
    cl_bool got_normalized = 7;
    cl_addressing_mode got_addressing = 0;
    cl_filter_mode got_filter = 0;
    cl_context got_context = NULL;

    CHECK_ERR(err, CL_SUCCESS);
    CHECK(sampler != NULL, "%s: no sampler", what);
    if (!sampler)
        return;
    CHECK_ERR(clGetSamplerInfo(sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof(got_normalized),
                               &got_normalized, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetSamplerInfo(sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof(got_addressing),
                               &got_addressing, NULL),
              CL_SUCCESS);
    CHECK_ERR(
        clGetSamplerInfo(sampler, CL_SAMPLER_FILTER_MODE, sizeof(got_filter), &got_filter, NULL),
        CL_SUCCESS);
    CHECK_ERR(
        clGetSamplerInfo(sampler, CL_SAMPLER_CONTEXT, sizeof(got_context), &got_context, NULL),
        CL_SUCCESS);
    CHECK(got_normalized == normalized, "%s: normalized %u, want %u", what, got_normalized,
          normalized);
    CHECK(got_addressing == addressing, "%s: addressing 0x%x, want 0x%x", what, got_addressing,
          addressing);
    CHECK(got_filter == filter, "%s: filter 0x%x, want 0x%x", what, got_filter, filter);
    CHECK(got_context == context, "%s: sampler context %p", what, (void *)got_context);
    CHECK_ERR(clReleaseSampler(sampler), CL_SUCCESS);
}

static void check_sampler_with_properties(void)
{
    cl_bool images = CL_FALSE;
    cl_int err;

    CHECK_ERR(clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL),
              CL_SUCCESS);
    REQUIRE(images, "the device has no image support: samplers cannot be tested");

    const cl_sampler_properties empty[] = {0};
    check_sampler(NULL, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, "NULL list");
    check_sampler(empty, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, "empty list");
    const cl_sampler_properties unnormalized[] = {CL_SAMPLER_NORMALIZED_COORDS,
                                                  CL_FALSE,
                                                  CL_SAMPLER_ADDRESSING_MODE,
                                                  CL_ADDRESS_CLAMP_TO_EDGE,
                                                  CL_SAMPLER_FILTER_MODE,
                                                  CL_FILTER_LINEAR,
                                                  0};
    check_sampler(unnormalized, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR,
                  "unnormalized/clamp-to-edge/linear");
    /* Any order; unnamed properties keep their defaults. */
    const cl_sampler_properties repeat[] = {CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_REPEAT, 0};
    check_sampler(repeat, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_NEAREST, "repeat only");
    const cl_sampler_properties filter_first[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                                  CL_SAMPLER_ADDRESSING_MODE,
                                                  CL_ADDRESS_MIRRORED_REPEAT, 0};
    check_sampler(filter_first, CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_LINEAR,
                  "linear/mirrored repeat");

    const cl_sampler_properties unknown[] = {0x7fff1234, 1, 0};
    err = 1;
    CHECK(clCreateSamplerWithProperties(context, unknown, &err) == NULL,
          "an unknown sampler property gave a sampler");
    CHECK_ERR(err, CL_INVALID_VALUE);
    const cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                           CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
    err = 1;
    CHECK(clCreateSamplerWithProperties(context, twice, &err) == NULL,
          "a repeated sampler property gave a sampler");
    CHECK_ERR(err, CL_INVALID_VALUE);
    CHECK(clCreateSamplerWithProperties(context, twice, NULL) == NULL,
          "a repeated sampler property gave a sampler (errcode_ret NULL)");
    /* Values are not judged by dxcl: a bad one gets the driver's own answer. */
    const cl_sampler_properties bad_mode[] = {CL_SAMPLER_ADDRESSING_MODE, 0x7777, 0};
    const struct test_driver *drv = test_driver();
    cl_int drv_err = 1;
    cl_sampler drv_sampler =
        drv->clCreateSamplerWithProperties
            ? drv->clCreateSamplerWithProperties(context, bad_mode, &drv_err)
            : drv->clCreateSampler(context, CL_TRUE, 0x7777, CL_FILTER_NEAREST, &drv_err);
    err = 1;
    cl_sampler sampler = clCreateSamplerWithProperties(context, bad_mode, &err);
    CHECK_ERR(err, drv_err);
    CHECK((sampler == NULL) == (drv_sampler == NULL), "bad mode: dxcl %p, driver %p",
          (void *)sampler, (void *)drv_sampler);
    if (sampler)
        clReleaseSampler(sampler);
    if (drv_sampler)
        clReleaseSampler(drv_sampler);
}

static size_t mem_size(cl_mem mem)
{
    size_t size = 0;
    CHECK_ERR(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    return size;
}

static void check_mem_with_properties(cl_command_queue queue)
{
    const cl_mem_properties empty[] = {0};
    const cl_mem_properties unknown[] = {0x7fff1234, 1, 0};
    const cl_mem_properties *lists[] = {NULL, empty};
    int data[256], back[256];
    cl_int err;

    for (int i = 0; i < 256; i++)
        data[i] = i * 7 - 3;
    for (int l = 0; l < 2; l++) {
        const char *what = lists[l] ? "empty list" : "NULL list";
        err = 1;
        cl_mem buffer = clCreateBufferWithProperties(
            context, lists[l], CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(data), data, &err);
        CHECK_ERR(err, CL_SUCCESS);
        CHECK(buffer != NULL, "clCreateBufferWithProperties(%s) gave no buffer", what);
        if (buffer) {
            cl_mem_flags flags = 0;
            CHECK(mem_size(buffer) == sizeof(data), "%s: buffer size %zu", what, mem_size(buffer));
            CHECK_ERR(clGetMemObjectInfo(buffer, CL_MEM_FLAGS, sizeof(flags), &flags, NULL),
                      CL_SUCCESS);
            CHECK(flags == (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR), "%s: flags 0x%llx", what,
                  (unsigned long long)flags);
            memset(back, 0, sizeof(back));
            CHECK_ERR(
                clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof(back), back, 0, NULL, NULL),
                CL_SUCCESS);
            CHECK(!memcmp(back, data, sizeof(data)), "%s: buffer contents differ", what);
            clReleaseMemObject(buffer);
        }

        const cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
        cl_image_desc desc = {0};
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 64;
        desc.image_height = 32;
        err = 1;
        cl_mem image = clCreateImageWithProperties(context, lists[l], CL_MEM_READ_WRITE, &format,
                                                   &desc, NULL, &err);
        CHECK_ERR(err, CL_SUCCESS);
        CHECK(image != NULL, "clCreateImageWithProperties(%s) gave no image", what);
        if (image) {
            size_t width = 0, height = 0;
            cl_mem_object_type type = 0;
            CHECK(mem_size(image) >= 64 * 32 * 4, "%s: image size %zu", what, mem_size(image));
            CHECK_ERR(clGetMemObjectInfo(image, CL_MEM_TYPE, sizeof(type), &type, NULL),
                      CL_SUCCESS);
            CHECK(type == CL_MEM_OBJECT_IMAGE2D, "%s: image type 0x%x", what, type);
            CHECK_ERR(clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof(width), &width, NULL),
                      CL_SUCCESS);
            CHECK_ERR(clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof(height), &height, NULL),
                      CL_SUCCESS);
            CHECK(width == 64 && height == 32, "%s: image %zux%zu", what, width, height);
            clReleaseMemObject(image);
        }
    }

    err = 1;
    CHECK(clCreateBufferWithProperties(context, unknown, CL_MEM_READ_WRITE, 64, NULL, &err) == NULL,
          "a memory property gave a buffer");
    CHECK_ERR(err, CL_INVALID_PROPERTY);
    const cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc desc = {0};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 16;
    desc.image_height = 16;
    err = 1;
    CHECK(clCreateImageWithProperties(context, unknown, CL_MEM_READ_WRITE, &format, &desc, NULL,
                                      &err) == NULL,
          "a memory property gave an image");
    CHECK_ERR(err, CL_INVALID_PROPERTY);
    CHECK(clCreateBufferWithProperties(context, unknown, CL_MEM_READ_WRITE, 64, NULL, NULL) == NULL,
          "a memory property gave a buffer (errcode_ret NULL)");
    /* Errors of the driver's own call pass through: size 0 is invalid. */
    err = 1;
    CHECK(clCreateBufferWithProperties(context, NULL, CL_MEM_READ_WRITE, 0, NULL, &err) == NULL,
          "a zero-sized buffer was created");
    CHECK_ERR(err, CL_INVALID_BUFFER_SIZE);
}

/* A function the driver may lack: `present` tells what the driver itself exports. When it is
 * absent dxcl must fail with CL_INVALID_OPERATION; when present, give the driver's answer. */
static int absent_count, present_count;

static bool note(const char *name, bool present)
{
    printf("%-36s %s\n", name, present ? "driver has it: forwarded" : "driver lacks it");
    if (present)
        present_count++;
    else
        absent_count++;
    return present;
}

static volatile LONG destroyed;

static void CL_CALLBACK on_context_destroyed(cl_context ctx, void *user_data)
{
    (void)ctx;
    InterlockedIncrement((volatile LONG *)user_data);
}

static const char *program_source = "__kernel void k(__global int *p) { p[0] = 1; }";

static void check_missing_functions(cl_command_queue queue, cl_platform_id platform)
{
    const struct test_driver *drv = test_driver();
    cl_int err, drv_err;
    void *ptr;

    /* Every FWD entry with no driver function: the kind column says how it fails. */
    int missing = 0;
    real_driver_lookup_fn lookup = (real_driver_lookup_fn)(void *)GetProcAddress(
        test_driver_module(), "dxclunixGetProcAddress"); /* the Unix side answers for the host */
    for (int i = 0; i < API_COUNT; i++)
        if (!real_driver_proc(test_driver_module(), lookup, api[i].name)) {
            printf("driver lacks %s (OpenCL %d.%d, %s)\n", api[i].name, api[i].version / 10,
                   api[i].version % 10, api[i].route);
            missing++;
        }

    /* clCreateProgramWithIL (OBJ). */
    static const unsigned char junk_il[16] = {1, 2, 3, 4};
    err = 1;
    cl_program program = clCreateProgramWithIL(context, junk_il, sizeof(junk_il), &err);
    if (note("clCreateProgramWithIL", drv->clCreateProgramWithIL)) {
        drv_err = 1;
        cl_program drv_program =
            drv->clCreateProgramWithIL(context, junk_il, sizeof(junk_il), &drv_err);
        CHECK_ERR(err, drv_err);
        CHECK((program == NULL) == (drv_program == NULL),
              "clCreateProgramWithIL: dxcl %p, driver %p", (void *)program, (void *)drv_program);
        if (drv_program)
            clReleaseProgram(drv_program);
    } else {
        CHECK(program == NULL, "clCreateProgramWithIL gave a program");
        CHECK_ERR(err, CL_INVALID_OPERATION);
        CHECK(clCreateProgramWithIL(context, junk_il, sizeof(junk_il), NULL) == NULL,
              "clCreateProgramWithIL gave a program (errcode_ret NULL)");
    }
    if (program)
        clReleaseProgram(program);

    /* clGetHostTimer (INT). */
    cl_ulong host = 0, drv_host = 0, dev_time = 0;
    err = clGetHostTimer(device, &host);
    if (note("clGetHostTimer", drv->clGetHostTimer)) {
        drv_err = drv->clGetHostTimer(device, &drv_host);
        CHECK_ERR(err, drv_err);
    } else {
        CHECK_ERR(err, CL_INVALID_OPERATION);
        CHECK(host == 0, "clGetHostTimer wrote %llu", (unsigned long long)host);
    }
    err = clGetDeviceAndHostTimer(device, &dev_time, &host);
    if (note("clGetDeviceAndHostTimer", drv->clGetDeviceAndHostTimer))
        CHECK_ERR(err, drv->clGetDeviceAndHostTimer(device, &dev_time, &drv_host));
    else
        CHECK_ERR(err, CL_INVALID_OPERATION);

    /* clSetProgramSpecializationConstant (INT), on a program built from source (built first:
     * PoCL 3.1 asserts on a program that has no devices yet). */
    cl_program source_program = clCreateProgramWithSource(context, 1, &program_source, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    CHECK_ERR(clBuildProgram(source_program, 1, &device, "", NULL, NULL), CL_SUCCESS);
    cl_int value = 5;
    err = clSetProgramSpecializationConstant(source_program, 0, sizeof(value), &value);
    if (note("clSetProgramSpecializationConstant", drv->clSetProgramSpecializationConstant))
        CHECK_ERR(
            err, drv->clSetProgramSpecializationConstant(source_program, 0, sizeof(value), &value));
    else
        CHECK_ERR(err, CL_INVALID_OPERATION);

    /* clCloneKernel (OBJ). */
    cl_kernel kernel = clCreateKernel(source_program, "k", &err);
    CHECK_ERR(err, CL_SUCCESS);
    err = 1;
    cl_kernel clone = clCloneKernel(kernel, &err);
    if (note("clCloneKernel", drv->clCloneKernel)) {
        drv_err = 1;
        cl_kernel drv_clone = drv->clCloneKernel(kernel, &drv_err);
        CHECK_ERR(err, drv_err);
        CHECK((clone == NULL) == (drv_clone == NULL), "clCloneKernel: dxcl %p, driver %p",
              (void *)clone, (void *)drv_clone);
        if (drv_clone)
            clReleaseKernel(drv_clone);
    } else {
        CHECK(clone == NULL, "clCloneKernel gave a kernel");
        CHECK_ERR(err, CL_INVALID_OPERATION);
    }
    if (clone)
        clReleaseKernel(clone);
    clReleaseKernel(kernel);
    clReleaseProgram(source_program);

    /* clSVMAlloc (PTR) and clSVMFree (NONE). */
    ptr = clSVMAlloc(context, CL_MEM_READ_WRITE, 4096, 0);
    if (note("clSVMAlloc", drv->clSVMAlloc)) {
        void *drv_ptr = drv->clSVMAlloc(context, CL_MEM_READ_WRITE, 4096, 0);
        CHECK((ptr == NULL) == (drv_ptr == NULL), "clSVMAlloc: dxcl %p, driver %p", ptr, drv_ptr);
        if (drv_ptr)
            drv->clSVMFree(context, drv_ptr);
    } else {
        CHECK(ptr == NULL, "clSVMAlloc gave %p", ptr);
    }
    note("clSVMFree", drv->clSVMFree);
    clSVMFree(context, ptr); /* void: present, it frees; absent, it returns (ptr is NULL) */

    /* clEnqueueSVMMemcpy (INT). */
    char src[16] = "svm", dst[16] = "";
    err = clEnqueueSVMMemcpy(queue, CL_TRUE, dst, src, 0, 0, NULL, NULL);
    if (note("clEnqueueSVMMemcpy", drv->clEnqueueSVMMemcpy))
        CHECK_ERR(err, drv->clEnqueueSVMMemcpy(queue, CL_TRUE, dst, src, 0, 0, NULL, NULL));
    else
        CHECK_ERR(err, CL_INVALID_OPERATION);
    CHECK(dst[0] == 0, "clEnqueueSVMMemcpy of 0 bytes wrote to the destination");

    /* clSetContextDestructorCallback (3.0, INT). */
    cl_context scratch = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    destroyed = 0;
    err = clSetContextDestructorCallback(scratch, on_context_destroyed, (void *)&destroyed);
    /* Forwarded when the driver has it, delivered by dxcl otherwise (src/compat/callbacks.c):
     * either way it succeeds and runs once after the last release. */
    note("clSetContextDestructorCallback", drv->clSetContextDestructorCallback);
    CHECK_ERR(err, CL_SUCCESS);
    clReleaseContext(scratch);
    for (int tries = 0; tries < 10000 && destroyed == 0; tries++)
        Sleep(1);
    Sleep(20);
    CHECK(destroyed == 1, "the context destructor callback ran %ld times", destroyed);

    /* A 1.2 function every driver has is forwarded, never reported missing. */
    CHECK(note("clUnloadPlatformCompiler", drv->clUnloadPlatformCompiler),
          "the driver lacks clUnloadPlatformCompiler (a 1.2 function)");
    CHECK_ERR(clUnloadPlatformCompiler(platform), drv->clUnloadPlatformCompiler(platform));

    printf("driver lacks %d of %d listed functions; checked %d absent, %d present\n", missing,
           API_COUNT, absent_count, present_count);
    /* This stack stops at OpenCL 1.2 (Wine 8's opencl.dll), or lacks what dxcl's Unix side keeps
     * from the host (the set-callback functions). */
    CHECK(absent_count > 0, "the driver has every 2.x function checked: the absent path is "
                            "untested on this stack");
    CHECK(missing > 0, "the driver lacks nothing listed");
}

/* By default every import stays on dxcl's exports. With DXCL_BIND_IMPORTS=1, static imports
 * of forwarded (FWD) functions go straight to the driver once dxcl has bound it
 * (src/proxy/bind_imports.c); QRY and OWN imports stay on dxcl's exports, and so do those of
 * modules whose headers or import table fail the binding's checks. Two threads make the first
 * forwarded calls at once, so the binding runs while the other thread calls through the slot
 * being rewritten. */
extern void *__imp_clGetCommandQueueInfo, *__imp_clGetDeviceInfo, *__imp_clReleaseMemObject;

static DWORD WINAPI forwarded_calls(void *arg)
{
    LONG *failures = arg;

    for (int i = 0; i < 2000; i++) {
        cl_uint count = 0;
        if (clGetCommandQueueInfo(NULL, CL_QUEUE_REFERENCE_COUNT, sizeof(count), &count, NULL) !=
            CL_INVALID_COMMAND_QUEUE)
            InterlockedIncrement(failures);
    }
    return 0;
}

static void *import_slot(void *const *slot)
{
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

static HMODULE module_of(const void *address)
{
    HMODULE module = NULL;

    GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                           GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                       (const char *)address, &module);
    return module;
}

/* A copy of tests/common/bind_probe.c, loaded from the program's folder. */
struct bind_probe {
    HMODULE module;
    void *(*slot)(void);
    cl_int (*call)(cl_command_queue, cl_context *);
};

static struct bind_probe load_probe(const char *name)
{
    struct bind_probe probe = {0};
    char path[MAX_PATH], *slash;

    GetModuleFileNameA(NULL, path, sizeof(path));
    REQUIRE((slash = strrchr(path, '\\')), "the program's folder in %s", path);
    strcpy(slash + 1, name);
    probe.module = LoadLibraryA(path);
    REQUIRE(probe.module, "LoadLibrary(%s): error %lu", path, GetLastError());
    probe.slot = (void *(*)(void))(void (*)(void))GetProcAddress(probe.module, "bind_probe_slot");
    probe.call = (cl_int(*)(cl_command_queue, cl_context *))(void (*)(void))GetProcAddress(
        probe.module, "bind_probe_call");
    REQUIRE(probe.slot && probe.call, "%s exports bind_probe_slot and bind_probe_call", name);
    return probe;
}

static struct bind_probe early_probe;

/* The probe DLL loaded before any OpenCL call: its slot must be bound with the program's. */
static void load_early_probe(void)
{
    early_probe = load_probe("bind_probe_early.exe");
}

/* After the binding: the early DLL's slot holds what the program's does; a DLL loaded later
 * keeps dxcl's export (bind_imports.h), and a call through either reaches the driver. */
static void check_probes(cl_command_queue queue, cl_context want)
{
    void *program_slot = import_slot(&__imp_clGetCommandQueueInfo);
    void *forwarded_export = (void *)GetProcAddress(dxcl, "clGetCommandQueueInfo");
    struct bind_probe late = load_probe("bind_probe_late.exe");
    cl_context got;

    CHECK(early_probe.slot() == program_slot,
          "the DLL loaded before the binding: slot %p, the program's %p", early_probe.slot(),
          program_slot);
    CHECK(late.slot() == forwarded_export,
          "the DLL loaded after the binding: slot %p, want dxcl's export %p", late.slot(),
          forwarded_export);
    got = NULL;
    CHECK_ERR(early_probe.call(queue, &got), CL_SUCCESS);
    CHECK(got == want, "through the early DLL: context %p, want %p", (void *)got, (void *)want);
    got = NULL;
    CHECK_ERR(late.call(queue, &got), CL_SUCCESS);
    CHECK(got == want, "through the late DLL: context %p, want %p", (void *)got, (void *)want);
    FreeLibrary(late.module);
    FreeLibrary(early_probe.module);
}

/* The probes whose headers or import table the binding must not trust, each broken before
 * the binding and mended after: an e_lfanew far outside the image, an import directory beyond
 * SizeOfImage, and the page of the import slot made PAGE_NOACCESS. */
enum broken_kind { BROKEN_LFANEW, BROKEN_RVA, BROKEN_NOACCESS, BROKEN_KINDS };
static const char *const broken_names[BROKEN_KINDS] = {
    "bind_probe_lfanew.exe", "bind_probe_rva.exe", "bind_probe_noaccess.exe"};
static struct broken_probe {
    struct bind_probe probe;
    void **slot;
    BYTE *patched; /* the header field or the slot's page */
    DWORD saved, protection;
} broken[BROKEN_KINDS];

static void patch_header(struct broken_probe *b, BYTE *field, DWORD value)
{
    DWORD old;

    REQUIRE(VirtualProtect(field, sizeof(DWORD), PAGE_READWRITE, &old), "VirtualProtect");
    b->patched = field;
    memcpy(&b->saved, field, sizeof(DWORD));
    memcpy(field, &value, sizeof(DWORD));
    VirtualProtect(field, sizeof(DWORD), old, &old);
}

static void break_probes(void)
{
    for (int kind = 0; kind < BROKEN_KINDS; kind++) {
        struct broken_probe *b = &broken[kind];
        BYTE *base;
        IMAGE_NT_HEADERS64 *nt;

        b->probe = load_probe(broken_names[kind]);
        b->slot = ((void **(*)(void))(void (*)(void))GetProcAddress(b->probe.module,
                                                                    "bind_probe_slot_address"))();
        base = (BYTE *)b->probe.module;
        nt = (IMAGE_NT_HEADERS64 *)(base + ((IMAGE_DOS_HEADER *)base)->e_lfanew);
        if (kind == BROKEN_LFANEW)
            patch_header(b, (BYTE *)&((IMAGE_DOS_HEADER *)base)->e_lfanew, 0x7ffffff0);
        else if (kind == BROKEN_RVA)
            patch_header(b,
                         (BYTE *)&nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT]
                             .VirtualAddress,
                         nt->OptionalHeader.SizeOfImage + 0x1000);
        else
            REQUIRE(VirtualProtect(b->slot, sizeof(*b->slot), PAGE_NOACCESS, &b->protection),
                    "VirtualProtect(PAGE_NOACCESS)");
    }
}

/* After the binding: each broken probe mended, its slot still on dxcl's export. */
static void mend_probes(void *forwarded_export)
{
    for (int kind = 0; kind < BROKEN_KINDS; kind++) {
        struct broken_probe *b = &broken[kind];
        DWORD old;

        if (!b->probe.module)
            continue;
        if (kind == BROKEN_NOACCESS)
            VirtualProtect(b->slot, sizeof(*b->slot), b->protection, &old);
        else
            patch_header(b, b->patched, b->saved);
        CHECK(b->probe.slot() == forwarded_export,
              "%s, its headers or slot unreadable at the binding: slot %p, want dxcl's export %p",
              broken_names[kind], b->probe.slot(), forwarded_export);
        FreeLibrary(b->probe.module);
    }
}

static void check_bound_imports(void)
{
    const char *bind = getenv("DXCL_BIND_IMPORTS"), *lock_check = getenv("DXCL_LOCK_CHECK");
    bool bound = bind && !strcmp(bind, "1");
    void *forwarded_export = (void *)GetProcAddress(dxcl, "clGetCommandQueueInfo");
    LONG failures = 0;
    HANDLE threads[2];

    CHECK(import_slot(&__imp_clGetCommandQueueInfo) == forwarded_export,
          "the import of clGetCommandQueueInfo was rewritten before any OpenCL call");
    CHECK(early_probe.slot() == forwarded_export,
          "the early DLL's import was rewritten before any OpenCL call");
    if (bound)
        break_probes();
    for (int i = 0; i < 2; i++)
        threads[i] = CreateThread(NULL, 0, forwarded_calls, &failures, 0, NULL);
    WaitForMultipleObjects(2, threads, TRUE, INFINITE);
    for (int i = 0; i < 2; i++)
        CloseHandle(threads[i]);
    CHECK(failures == 0, "%ld forwarded calls on a NULL queue did not fail as the driver does",
          failures);

    void *slot = import_slot(&__imp_clGetCommandQueueInfo);
    printf("clGetCommandQueueInfo import: %p (dxcl's export %p), binding %s\n", slot,
           forwarded_export, bound ? "on (DXCL_BIND_IMPORTS=1)" : "off");
    if (bound) {
        mend_probes(forwarded_export);
        CHECK(slot != forwarded_export, "the import of a forwarded function still goes to dxcl");
        /* With DXCL_LOCK_CHECK on, dxcl's table holds its checking wrappers, inside dxcl. */
        if (!lock_check || !strcmp(lock_check, "0"))
            CHECK(module_of(slot) != dxcl, "the bound import %p lies inside dxcl", slot);
    } else {
        CHECK(slot == forwarded_export, "the import was rewritten with the binding off");
    }
    CHECK(import_slot(&__imp_clGetDeviceInfo) == (void *)GetProcAddress(dxcl, "clGetDeviceInfo"),
          "the import of clGetDeviceInfo (answered by dxcl) was rewritten");
    CHECK(import_slot(&__imp_clReleaseMemObject) ==
              (void *)GetProcAddress(dxcl, "clReleaseMemObject"),
          "the import of clReleaseMemObject (dxcl's own) was rewritten");
}

int main(void)
{
    cl_int err;

    check_module();
    check_exports();
    load_early_probe();
    check_bound_imports();

    cl_platform_id platform = test_platform();
    device = test_device(platform);
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);

    check_probes(queue, context);
    check_queue_with_properties();
    check_sampler_with_properties();
    check_mem_with_properties(queue);
    check_missing_functions(queue, platform);

    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return test_finish("exports");
}
