#include "testlib.h"
#include "core/names.h"
#include "real_driver.h"

#include <dxcl/dxcl.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

int test_failures;
int test_checks;

void test_report(bool ok, const char *file, int line, const char *fmt, ...)
{
    va_list args;

    test_checks++;
    if (ok)
        return;
    test_failures++;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_start(args, fmt);
    vfprintf(stderr, fmt, args);
    va_end(args);
    fputc('\n', stderr);
    fflush(stderr);
}

void test_abort(void)
{
    fprintf(stderr, "aborting after %d failed of %d checks\n", test_failures, test_checks);
    fflush(stderr);
    exit(1);
}

int test_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, test_checks - test_failures, test_failures);
    fflush(stdout);
    if (test_checks == 0) {
        fprintf(stderr, "%s checked nothing\n", name);
        return 1;
    }
    return test_failures ? 1 : 0;
}

cl_platform_id test_platform(void)
{
    cl_platform_id platform = NULL;
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(1, &platform, &count);

    REQUIRE(err == CL_SUCCESS && count > 0, "no OpenCL platform (err %d, count %u)", err, count);
    return platform;
}

cl_device_id test_device(cl_platform_id platform)
{
    cl_device_id device = NULL;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);

    REQUIRE(err == CL_SUCCESS && device, "no OpenCL device (err %d)", err);
    return device;
}

cl_program test_program(cl_context context, cl_device_id device, const char *source)
{
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);

    REQUIRE(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "build log:\n%s\n", log);
    }
    REQUIRE(err == CL_SUCCESS, "clBuildProgram: %d", err);
    return program;
}

cl_kernel test_program_kernel(cl_program program, const char *name)
{
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);

    REQUIRE(err == CL_SUCCESS && kernel, "clCreateKernel(%s): %d", name, err);
    return kernel;
}

cl_kernel test_kernel(cl_context context, cl_device_id device, const char *source, const char *name)
{
    cl_program program = test_program(context, device, source);
    cl_kernel kernel = test_program_kernel(program, name);

    clReleaseProgram(program); /* the kernel keeps the program alive */
    return kernel;
}

ID3D11Device *test_d3d11_device(ID3D11DeviceContext **immediate)
{
    static const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
    ID3D11Device *device = NULL;
    HRESULT hr = D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1,
                                   D3D11_SDK_VERSION, &device, NULL, immediate);

    REQUIRE(SUCCEEDED(hr) && device, "D3D11CreateDevice failed: 0x%08lx", (unsigned long)hr);
    return device;
}

/* The device window lives on a thread of its own that pumps its messages until the process
 * exits: a window dies with the thread that made it (tests make devices on worker threads),
 * and a message Direct3D sends it from another thread waits until its thread pumps. */
static HWND device_window;
static DWORD device_window_error;

static DWORD WINAPI device_window_thread(void *ready)
{
    WNDCLASSW window_class = {.lpfnWndProc = DefWindowProcW,
                              .hInstance = GetModuleHandleW(NULL),
                              .lpszClassName = L"dxcl_test_device_window"};
    MSG message;

    if (RegisterClassW(&window_class))
        device_window =
            CreateWindowExW(0, window_class.lpszClassName, L"dxcl test device", WS_OVERLAPPEDWINDOW,
                            0, 0, 64, 64, NULL, NULL, window_class.hInstance, NULL);
    if (!device_window)
        device_window_error = GetLastError();
    SetEvent(ready);
    while (device_window && GetMessageW(&message, NULL, 0, 0) > 0) {
        TranslateMessage(&message);
        DispatchMessageW(&message);
    }
    return 0;
}

static BOOL CALLBACK make_device_window(INIT_ONCE *once, void *parameter, void **context)
{
    HANDLE ready = CreateEventW(NULL, TRUE, FALSE, NULL);
    HANDLE thread = ready ? CreateThread(NULL, 0, device_window_thread, ready, 0, NULL) : NULL;

    (void)once, (void)parameter, (void)context;
    if (thread) {
        WaitForSingleObject(ready, INFINITE);
        CloseHandle(thread);
    } else {
        device_window_error = GetLastError();
    }
    if (ready)
        CloseHandle(ready);
    return TRUE;
}

HWND test_device_window(void)
{
    static INIT_ONCE once = INIT_ONCE_STATIC_INIT;

    InitOnceExecuteOnce(&once, make_device_window, NULL, NULL);
    REQUIRE(device_window != NULL, "no window for Direct3D 9 devices: error %lu",
            (unsigned long)device_window_error);
    return device_window;
}

static ID3D11Resource *staging_copy(ID3D11Device *device, ID3D11Resource *resource)
{
    D3D11_RESOURCE_DIMENSION type;
    ID3D11Resource *staging = NULL;
    HRESULT hr;

    ID3D11Resource_GetType(resource, &type);
    if (type == D3D11_RESOURCE_DIMENSION_BUFFER) {
        D3D11_BUFFER_DESC desc;
        ID3D11Buffer_GetDesc((ID3D11Buffer *)resource, &desc);
        desc = (D3D11_BUFFER_DESC){
            desc.ByteWidth, D3D11_USAGE_STAGING, 0, D3D11_CPU_ACCESS_READ, 0, 0};
        hr = ID3D11Device_CreateBuffer(device, &desc, NULL, (ID3D11Buffer **)&staging);
    } else {
        D3D11_TEXTURE2D_DESC desc;
        ID3D11Texture2D_GetDesc((ID3D11Texture2D *)resource, &desc);
        desc.Usage = D3D11_USAGE_STAGING;
        desc.BindFlags = 0;
        desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
        desc.MiscFlags = 0;
        hr = ID3D11Device_CreateTexture2D(device, &desc, NULL, (ID3D11Texture2D **)&staging);
    }
    REQUIRE(SUCCEEDED(hr), "staging copy: 0x%08lx", (unsigned long)hr);
    return staging;
}

void test_d3d11_read(ID3D11Device *device, ID3D11Resource *resource, void *out, size_t row_bytes,
                     UINT rows)
{
    ID3D11Resource *staging = staging_copy(device, resource);
    ID3D11DeviceContext *immediate;
    D3D11_MAPPED_SUBRESOURCE mapped;

    ID3D11Device_GetImmediateContext(device, &immediate);
    ID3D11DeviceContext_CopyResource(immediate, staging, resource);
    REQUIRE(SUCCEEDED(ID3D11DeviceContext_Map(immediate, staging, 0, D3D11_MAP_READ, 0, &mapped)),
            "map the staging copy");
    for (UINT y = 0; y < rows; y++)
        memcpy((char *)out + y * row_bytes, (char *)mapped.pData + y * mapped.RowPitch, row_bytes);
    ID3D11DeviceContext_Unmap(immediate, staging, 0);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Resource_Release(staging);
}

ULONG test_refcount(IUnknown *object)
{
    IUnknown_AddRef(object);
    return IUnknown_Release(object);
}

ULONG test_refcount_settled(IUnknown *object, ULONG want)
{
    DWORD start = GetTickCount();
    ULONG got;

    while ((got = test_refcount(object)) > want && GetTickCount() - start < 5000)
        Sleep(1);
    return got;
}

static struct test_driver driver_table;
static HMODULE driver_module;

const struct test_driver *test_driver(void)
{
    static const struct {
        const char *name;
        size_t offset;
    } entries[] = {
#define DXCL_API_FN(route, kind, ret, name, version, params, args)                                 \
    {#name, offsetof(struct test_driver, name)},
#include "core/cl_api.h"
#undef DXCL_API_FN
    };
    real_driver_lookup_fn lookup;

    if (driver_module)
        return &driver_table;
    driver_module = real_driver_load(&lookup);
    REQUIRE(driver_module != NULL, "cannot load the driver behind dxcl (error %lu)",
            GetLastError());
    REQUIRE(driver_module != test_dxcl_module(), "the driver behind dxcl is dxcl itself");
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        FARPROC proc = real_driver_proc(driver_module, lookup, entries[i].name);
        memcpy((char *)&driver_table + entries[i].offset, &proc, sizeof(proc));
    }
    return &driver_table;
}

HMODULE test_driver_module(void)
{
    test_driver();
    return driver_module;
}

HMODULE test_dxcl_module(void)
{
    /* The program's import table slot of an OpenCL function points into the OpenCL.dll it
     * imports. (A lookup by name would be ambiguous once the driver, also "OpenCL.dll", loads.) */
    /* The slot's symbol: on i686 the import of a stdcall function keeps its decoration. */
#ifdef _WIN64
    extern void *import_slot __asm__("__imp_clGetPlatformIDs");
#else
    extern void *import_slot __asm__("__imp__clGetPlatformIDs@12");
#endif
    HMODULE module = NULL;
    void *address = import_slot;

    REQUIRE(address != NULL, "clGetPlatformIDs is not imported");
    REQUIRE(GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                   GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                               (const char *)address, &module),
            "GetModuleHandleEx: error %lu", GetLastError());
    return module;
}

bool test_address_in(HMODULE module, const void *address)
{
    HMODULE owner = NULL;

    if (!address || !GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                            GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                                        (const char *)address, &owner))
        return false;
    return owner == module;
}

bool test_has_word(const char *list, const char *word)
{
    return dxcl_has_word(list, word);
}

char *test_read_file(const char *path, size_t *size)
{
    FILE *file = fopen(path, "rb");
    char *data = NULL;
    size_t used = 0, cap = 0, got;

    if (!file)
        return NULL;
    do {
        if (used + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *grown = realloc(data, cap);
            REQUIRE(grown != NULL, "out of memory reading %s", path);
            data = grown;
        }
        got = fread(data + used, 1, cap - used - 1, file);
        used += got;
    } while (got > 0);
    fclose(file);
    data[used] = 0;
    if (size)
        *size = used;
    return data;
}

bool test_wait_count(volatile LONG *counter, LONG want, DWORD timeout_ms)
{
    DWORD start = GetTickCount();

    while (*counter < want) {
        if (GetTickCount() - start > timeout_ms)
            return false;
        Sleep(1);
    }
    return true;
}

void CL_CALLBACK test_keep_status(cl_event event, cl_int status, void *user_data)
{
    struct test_status_box *box = user_data;

    (void)event;
    box->status = status;
    InterlockedIncrement(&box->calls);
}

/* A function of the driver dxcl forwards to (DXCL_INFO_DRIVER_PATH: the system driver, or
 * DXCL_DRIVER's), which dxcl has loaded. */
static FARPROC forwarded_function(const char *name)
{
    static HMODULE module;
    static real_driver_lookup_fn lookup;
    FARPROC fn;

    if (!module) {
        dxclGetInfo_fn info =
            (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");
        char path[MAX_PATH] = "";

        REQUIRE(info && info(DXCL_INFO_DRIVER_PATH, sizeof(path), path, NULL) == CL_SUCCESS &&
                    path[0],
                "dxclGetInfo(DXCL_INFO_DRIVER_PATH)");
        module = GetModuleHandleA(path);
        if (!module)
            module = LoadLibraryA(path);
        REQUIRE(module != NULL, "the driver dxcl forwards to (%s) is not loaded", path);
        REQUIRE(module != test_dxcl_module(), "the driver %s is dxcl itself", path);
        lookup = (real_driver_lookup_fn)(void *)GetProcAddress(module, "dxclunixGetProcAddress");
    }
    fn = real_driver_proc(module, lookup, name);
    REQUIRE(fn != NULL, "the driver has no %s", name);
    return fn;
}

static cl_image_format *driver_format_list(cl_context context, cl_mem_flags flags,
                                           cl_mem_object_type type, cl_uint *count)
{
    cl_int(CL_API_CALL * supported)(cl_context, cl_mem_flags, cl_mem_object_type, cl_uint,
                                    cl_image_format *, cl_uint *) =
        (void *)forwarded_function("clGetSupportedImageFormats");
    cl_image_format *list;
    cl_uint n = 0;
    cl_int err = supported(context, flags, type, 0, NULL, &n);

    if (err != CL_SUCCESS) {
        /* Nothing it can make: dxcl has nothing to back either. */
        printf("the driver's clGetSupportedImageFormats (flags 0x%llx, type 0x%x): %d\n",
               (unsigned long long)flags, (unsigned)type, err);
        n = 0;
    }
    list = calloc(n + 1, sizeof(*list));
    REQUIRE(list != NULL, "out of memory");
    REQUIRE(!n || supported(context, flags, type, n, list, NULL) == CL_SUCCESS,
            "the driver's clGetSupportedImageFormats failed");
    *count = n;
    return list;
}

static bool format_in(const cl_image_format *list, cl_uint count, cl_channel_order order,
                      cl_channel_type type)
{
    for (cl_uint i = 0; i < count; i++)
        if (list[i].image_channel_order == order && list[i].image_channel_data_type == type)
            return true;
    return false;
}

bool test_driver_lists(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                       const cl_image_format *format)
{
    cl_uint count;
    cl_image_format *list = driver_format_list(context, flags, type, &count);
    bool found =
        format_in(list, count, format->image_channel_order, format->image_channel_data_type);

    free(list);
    return found;
}

bool test_driver_can_back(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                          const cl_image_format *format)
{
    cl_uint count;
    cl_image_format *list = driver_format_list(context, flags, type, &count);
    cl_channel_type t = format->image_channel_data_type;
    bool found = format_in(list, count, format->image_channel_order, t) ||
                 format_in(list, count, CL_RGBA, t) || format_in(list, count, CL_BGRA, t);

    free(list);
    return found;
}

bool test_driver_gets_wrong(cl_context context, cl_mem_flags flags, const cl_image_format *format)
{
    cl_device_id device;
    cl_platform_id platform;
    char name[256] = "";
    cl_channel_type type = format->image_channel_data_type;
    bool integer = type >= CL_SIGNED_INT8 && type <= CL_UNSIGNED_INT32;
    bool kernels_read =
        (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY)) != CL_MEM_WRITE_ONLY;

    clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof(device), &device, NULL);
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name, NULL);
    if (strncmp(name, "Portable Computing Language", 27))
        return false;
    if (type == CL_HALF_FLOAT)
        return format->image_channel_order == CL_R || format->image_channel_order == CL_A;
    return format->image_channel_order == CL_R && integer && kernels_read;
}

bool test_device_host_unified(cl_device_id device)
{
    cl_int(CL_API_CALL * info)(cl_device_id, cl_device_info, size_t, void *, size_t *) =
        (void *)forwarded_function("clGetDeviceInfo");
    cl_bool unified = CL_FALSE;

    REQUIRE(info(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof(unified), &unified, NULL) ==
                CL_SUCCESS,
            "CL_DEVICE_HOST_UNIFIED_MEMORY from the driver");
    return unified != CL_FALSE;
}

static LARGE_INTEGER start_time;

__attribute__((constructor)) static void note_start(void)
{
    QueryPerformanceCounter(&start_time);
}

double test_elapsed(void)
{
    LARGE_INTEGER now, frequency;

    QueryPerformanceCounter(&now);
    QueryPerformanceFrequency(&frequency);
    return (double)(now.QuadPart - start_time.QuadPart) / (double)frequency.QuadPart;
}

void test_progress(const char *fmt, ...)
{
    va_list args;

    printf("[%6.1f s] ", test_elapsed());
    va_start(args, fmt);
    vprintf(fmt, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}
