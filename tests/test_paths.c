/* Which path serves each extension (docs/design.md, "Paths"), in the configuration CTest names
 * with DXCL_TEST_CHAIN: unset, dxcl alone in front of Wine's driver (the copy engine serves
 * everything); or dxcl chained in front of dxcl_back.dll exposing everything ("native"), only the
 * NV D3D1x families ("nv_only") or only the KHR ones ("khr_only"). Where the driver serves an
 * extension, the front dxcl must keep no record of the objects (no staging, no copies): the
 * front's own query refuses them, the back's knows them, and the front's log (a child run with
 * DXCL_LOG) shows the chosen paths and no object created by the front. */
#include "testlib.h"

#include <CL/cl_d3d11.h>
#include <dxcl/cl_nv_d3d11.h>
#include <dxcl/dxcl.h>
#include <stdlib.h>

struct expected {
    const char *extension;
    cl_uint path[4]; /* alone, native, nv_only, khr_only */
    const char *served_by[4];
};

/* FORCED: chained in front of a dxcl that exposes everything, with DXCL_PATH=emulate: the
 * front's copy engine serves everything, as ALONE. */
enum { ALONE, NATIVE, NV_ONLY, KHR_ONLY, FORCED };
#define E DXCL_PATH_COPY_ENGINE
#define N DXCL_PATH_NATIVE
#define T DXCL_PATH_TRANSLATED

static const struct expected table[] = {
    {"cl_khr_d3d11_sharing",
     {E, N, T, N},
     {"", "cl_khr_d3d11_sharing", "cl_nv_d3d11_sharing", "cl_khr_d3d11_sharing"}},
    {"cl_nv_d3d11_sharing",
     {E, N, N, T},
     {"", "cl_nv_d3d11_sharing", "cl_nv_d3d11_sharing", "cl_khr_d3d11_sharing"}},
    {"cl_khr_d3d10_sharing",
     {E, N, T, N},
     {"", "cl_khr_d3d10_sharing", "cl_nv_d3d10_sharing", "cl_khr_d3d10_sharing"}},
    {"cl_nv_d3d10_sharing",
     {E, N, N, T},
     {"", "cl_nv_d3d10_sharing", "cl_nv_d3d10_sharing", "cl_khr_d3d10_sharing"}},
    {"cl_khr_dx9_media_sharing",
     {E, N, E, N},
     {"", "cl_khr_dx9_media_sharing", "", "cl_khr_dx9_media_sharing"}},
    {"cl_intel_dx9_media_sharing", {E, N, E, E}, {"", "cl_intel_dx9_media_sharing", "", ""}},
    {"cl_nv_d3d9_sharing", {E, N, E, E}, {"", "cl_nv_d3d9_sharing", "", ""}},
    {"cl_intel_sharing_format_query_d3d11",
     {E, N, E, E},
     {"", "cl_intel_sharing_format_query_d3d11", "", ""}},
    {"cl_intel_sharing_format_query_dx9",
     {E, N, E, E},
     {"", "cl_intel_sharing_format_query_dx9", "", ""}},
    {"cl_intel_d3d11_nv12_media_sharing",
     {E, N, E, E},
     {"", "cl_intel_d3d11_nv12_media_sharing", "", ""}},
};

static int configuration(void)
{
    static const char *const names[] = {"", "native", "nv_only", "khr_only"};
    char value[32];
    DWORD len = GetEnvironmentVariableA("DXCL_TEST_CHAIN", value, sizeof(value));

    if (len && !strcmp(value, "forced"))
        return FORCED;

    for (int i = 1; len && i < 4; i++)
        if (!strcmp(value, names[i]))
            return i;
    return ALONE;
}

static FARPROC front_export(const char *name)
{
    return GetProcAddress(test_dxcl_module(), name);
}

static void check_paths(cl_platform_id platform, int config)
{
    config = config == FORCED ? ALONE : config;
    dxclGetExtensionPath_fn path_of =
        (dxclGetExtensionPath_fn)(void (*)(void))front_export("dxclGetExtensionPath");
    char served_by[64];
    cl_uint path = 0;

    REQUIRE(path_of, "dxclGetExtensionPath is exported");
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        CHECK_ERR(path_of(platform, table[i].extension, &path, sizeof(served_by), served_by),
                  CL_SUCCESS);
        CHECK(path == table[i].path[config], "%s: path %u, want %u", table[i].extension, path,
              table[i].path[config]);
        CHECK(!strcmp(served_by, table[i].served_by[config]), "%s: served by '%s', want '%s'",
              table[i].extension, served_by, table[i].served_by[config]);
    }
    CHECK_ERR(path_of(platform, "cl_khr_gl_sharing", &path, 0, NULL), CL_INVALID_VALUE);
    CHECK_ERR(path_of(platform, NULL, &path, 0, NULL), CL_INVALID_VALUE);
    CHECK_ERR(path_of(NULL, "cl_khr_d3d11_sharing", &path, 0, NULL), CL_INVALID_PLATFORM);
}

/* Shares a D3D11 texture through the KHR and the NV names, acquires, runs nothing, releases;
 * the data round-trips. Returns the two objects' front-side record state. */
static void share(cl_platform_id platform, cl_device_id device, int config)
{
    dxclGetBackingFormat_fn front_backing =
        (dxclGetBackingFormat_fn)(void (*)(void))front_export("dxclGetBackingFormat");
    HMODULE back = GetModuleHandleA("dxcl_back.dll");
    dxclGetBackingFormat_fn back_backing =
        back ? (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(back, "dxclGetBackingFormat")
             : NULL;
    const char *names[2][3] = {{"clCreateFromD3D11Texture2DKHR", "clEnqueueAcquireD3D11ObjectsKHR",
                                "clEnqueueReleaseD3D11ObjectsKHR"},
                               {"clCreateFromD3D11Texture2DNV", "clEnqueueAcquireD3D11ObjectsNV",
                                "clEnqueueReleaseD3D11ObjectsNV"}};
    ID3D11DeviceContext *immediate;
    ID3D11Device *d3d = test_d3d11_device(&immediate);
    unsigned char pixels[16 * 4], back_pixels[16 * 4];
    cl_int err;

    const bool engine = config == ALONE || config == FORCED;

    REQUIRE(front_backing && (config == ALONE || back_backing), "dxclGetBackingFormat exports");
    for (int i = 0; i < 16 * 4; i++)
        pixels[i] = (unsigned char)(i * 5 + 3);
    D3D11_TEXTURE2D_DESC desc = {4,
                                 4,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    D3D11_SUBRESOURCE_DATA init = {pixels, 16, 0};
    ID3D11Texture2D *texture;
    REQUIRE(SUCCEEDED(ID3D11Device_CreateTexture2D(d3d, &desc, &init, &texture)), "texture");
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d, 0};
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    for (int variant = 0; variant < 2; variant++) {
        clCreateFromD3D11Texture2DKHR_fn create =
            clGetExtensionFunctionAddressForPlatform(platform, names[variant][0]);
        clEnqueueAcquireD3D11ObjectsKHR_fn acquire =
            clGetExtensionFunctionAddressForPlatform(platform, names[variant][1]);
        clEnqueueReleaseD3D11ObjectsKHR_fn release =
            clGetExtensionFunctionAddressForPlatform(platform, names[variant][2]);
        REQUIRE(create && acquire && release, "%s functions", names[variant][0]);
        cl_mem mem = create(context, CL_MEM_READ_WRITE, texture, 0, &err);
        REQUIRE(err == CL_SUCCESS, "%s: %d", names[variant][0], err);
        /* The front keeps a record only when it emulates. */
        CHECK_ERR(front_backing(mem, NULL, NULL), engine ? CL_SUCCESS : CL_INVALID_MEM_OBJECT);
        if (back_backing)
            CHECK_ERR(back_backing(mem, NULL, NULL), engine ? CL_INVALID_MEM_OBJECT : CL_SUCCESS);
        CHECK_ERR(acquire(queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        memset(back_pixels, 0, sizeof(back_pixels));
        CHECK_ERR(clEnqueueReadImage(queue, mem, CL_TRUE, (size_t[3]){0, 0, 0},
                                     (size_t[3]){4, 4, 1}, 0, 0, back_pixels, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK(!memcmp(back_pixels, pixels, sizeof(pixels)), "%s: the data reached OpenCL",
              names[variant][0]);
        CHECK_ERR(release(queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    }
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    ID3D11Texture2D_Release(texture);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(d3d);
}

/* The same work in a child with DXCL_LOG: the front's log names each path once and, where the
 * driver serves D3D11, shows no object of its own. */
static void check_log(const char *self, int config)
{
    char log_path[MAX_PATH], command[2 * MAX_PATH];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    DWORD code = 1;

    /* One file per run: CTest runs the configurations in parallel. */
    GetTempPathA(sizeof(log_path), log_path);
    snprintf(log_path + strlen(log_path), sizeof(log_path) - strlen(log_path),
             "dxcl_test_paths_%lu.log", GetCurrentProcessId());
    DeleteFileA(log_path);
    SetEnvironmentVariableA("DXCL_LOG", log_path);
    snprintf(command, sizeof(command), "\"%s\" child", self);
    REQUIRE(CreateProcessA(NULL, command, NULL, NULL, FALSE, 0, NULL, NULL, &startup, &process),
            "child process");
    WaitForSingleObject(process.hProcess, INFINITE);
    GetExitCodeProcess(process.hProcess, &code);
    CloseHandle(process.hProcess);
    CloseHandle(process.hThread);
    SetEnvironmentVariableA("DXCL_LOG", NULL);
    CHECK(code == 0, "child exit code %lu", code);
    char *log = test_read_file(log_path, NULL);
    REQUIRE(log, "the child's log %s", log_path);
    const bool engine = config == ALONE || config == FORCED;
    const char *d3d11 = engine              ? "cl_khr_d3d11_sharing: copy engine"
                        : config == NV_ONLY ? "cl_khr_d3d11_sharing: translated by the driver's "
                                              "cl_nv_d3d11_sharing"
                                            : "cl_khr_d3d11_sharing: native";
    CHECK(strstr(log, d3d11) != NULL, "the log names the path: '%s'", d3d11);
    bool created = strstr(log, "created D3D11 memobj") != NULL;
    CHECK(created == engine, "front created objects: %d (config %d)", created, config);
    free(log);
    DeleteFileA(log_path);
}

int main(int argc, char **argv)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    int config = configuration();

    if (argc > 1 && !strcmp(argv[1], "child")) {
        share(platform, device, config);
        return test_finish("paths (child)");
    }
    check_paths(platform, config);
    share(platform, device, config);
    check_log(argv[0], config);
    return test_finish("paths");
}
