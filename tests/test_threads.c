/* Two threads share one D3D11 device (with ID3D11Multithread protection on, as a threaded
 * program turns it on) and one OpenCL context; each acquires, runs a kernel on and releases
 * its own textures on its own queue, many times. Every round's data must be exact. */
#include "testlib.h"

#include <initguid.h> /* defines IID_ID3D11Multithread, which dxguid lacks */
#include <d3d11_4.h>
#include <CL/cl_d3d11.h>

enum { W = 64, H = 32, ROUNDS = 25, THREADS = 2 };

static const char *source =
    "__kernel void add(__read_only image2d_t src, __write_only image2d_t dst, uint k)\n"
    "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "  write_imageui(dst, p, read_imageui(src, p) + (uint4)(k)); }\n";

static ID3D11Device *device;
static ID3D11DeviceContext *immediate;
static ID3D11Multithread *multithread;
static cl_context context;
static cl_device_id cl_device;
static clCreateFromD3D11Texture2DKHR_fn create_2d;
static clEnqueueAcquireD3D11ObjectsKHR_fn acquire;
static clEnqueueReleaseD3D11ObjectsKHR_fn release;
static volatile LONG failures;

static ID3D11Texture2D *make_texture(const unsigned *data)
{
    D3D11_TEXTURE2D_DESC desc = {W, H, 1, 1, DXGI_FORMAT_R32_UINT, {1, 0}, D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE, 0, 0};
    D3D11_SUBRESOURCE_DATA init = {data, W * 4, 0};
    ID3D11Texture2D *texture = NULL;

    ID3D11Multithread_Enter(multithread);
    ID3D11Device_CreateTexture2D(device, &desc, &init, &texture);
    ID3D11Multithread_Leave(multithread);
    return texture;
}

/* The program's own D3D11 use from this thread, inside the protection. */
static bool texture_holds(ID3D11Texture2D *texture, unsigned first)
{
    D3D11_TEXTURE2D_DESC desc;
    ID3D11Texture2D *staging;
    D3D11_MAPPED_SUBRESOURCE mapped;
    bool ok = true;

    ID3D11Texture2D_GetDesc(texture, &desc);
    desc.Usage = D3D11_USAGE_STAGING;
    desc.BindFlags = 0;
    desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
    ID3D11Multithread_Enter(multithread);
    if (FAILED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &staging))) {
        ID3D11Multithread_Leave(multithread);
        return false;
    }
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)staging,
                                     (ID3D11Resource *)texture);
    if (FAILED(ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)staging, 0, D3D11_MAP_READ,
                                       0, &mapped)))
        ok = false;
    for (int y = 0; ok && y < H; y++)
        for (int x = 0; x < W; x++)
            ok &= ((unsigned *)((char *)mapped.pData + y * mapped.RowPitch))[x] ==
                  first + (unsigned)(y * W + x);
    if (mapped.pData)
        ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)staging, 0);
    ID3D11Texture2D_Release(staging);
    ID3D11Multithread_Leave(multithread);
    return ok;
}

static DWORD WINAPI worker(void *arg)
{
    unsigned base = (unsigned)(uintptr_t)arg * 1000000u, data[W * H];
    size_t region[2] = {W, H};
    cl_int err;

    for (int i = 0; i < W * H; i++)
        data[i] = base + (unsigned)i;
    ID3D11Texture2D *a = make_texture(data), *b = make_texture(data);
    cl_command_queue queue = clCreateCommandQueue(context, cl_device, 0, &err);
    cl_kernel kernel = test_kernel(context, cl_device, source, "add");
    cl_mem objects[2] = {create_2d(context, 0, a, 0, &err), create_2d(context, 0, b, 0, &err)};

    if (!a || !b || !objects[0] || !objects[1]) {
        InterlockedIncrement(&failures);
        return 1;
    }
    /* Each round adds 1 from a into b, then from b into a: a gains 2 per round. */
    for (unsigned round = 0; round < ROUNDS; round++) {
        cl_uint one = 1;
        bool ok = acquire(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS;
        for (int pass = 0; pass < 2 && ok; pass++) {
            ok &= clSetKernelArg(kernel, 0, sizeof(cl_mem), &objects[pass]) == CL_SUCCESS;
            ok &= clSetKernelArg(kernel, 1, sizeof(cl_mem), &objects[1 - pass]) == CL_SUCCESS;
            ok &= clSetKernelArg(kernel, 2, sizeof(one), &one) == CL_SUCCESS;
            ok &= clEnqueueNDRangeKernel(queue, kernel, 2, NULL, region, NULL, 0, NULL, NULL) ==
                  CL_SUCCESS;
        }
        ok &= release(queue, 2, objects, 0, NULL, NULL) == CL_SUCCESS;
        ok &= texture_holds(a, base + 2 * (round + 1));
        ok &= texture_holds(b, base + 2 * round + 1);
        if (!ok) {
            fprintf(stderr, "thread %u round %u wrong\n", base / 1000000u, round);
            InterlockedIncrement(&failures);
            break;
        }
    }
    clReleaseMemObject(objects[0]);
    clReleaseMemObject(objects[1]);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    ID3D11Multithread_Enter(multithread);
    ID3D11Texture2D_Release(a);
    ID3D11Texture2D_Release(b);
    ID3D11Multithread_Leave(multithread);
    return 0;
}

int main(void)
{
    cl_platform_id platform = test_platform();
    HANDLE threads[THREADS];
    cl_int err;

    cl_device = test_device(platform);
    device = test_d3d11_device(&immediate);
    REQUIRE(SUCCEEDED(ID3D11DeviceContext_QueryInterface(immediate, &IID_ID3D11Multithread,
                                                         (void **)&multithread)),
            "ID3D11Multithread");
    ID3D11Multithread_SetMultithreadProtected(multithread, TRUE);
    CHECK(ID3D11Multithread_GetMultithreadProtected(multithread), "protection on");
    create_2d = clGetExtensionFunctionAddressForPlatform(platform,
                                                         "clCreateFromD3D11Texture2DKHR");
    acquire = clGetExtensionFunctionAddressForPlatform(platform,
                                                       "clEnqueueAcquireD3D11ObjectsKHR");
    release = clGetExtensionFunctionAddressForPlatform(platform,
                                                       "clEnqueueReleaseD3D11ObjectsKHR");
    REQUIRE(create_2d && acquire && release, "D3D11 sharing functions");
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)device,
                                     0};
    context = clCreateContext(props, 1, &cl_device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);

    for (int i = 0; i < THREADS; i++)
        threads[i] = CreateThread(NULL, 0, worker, (void *)(uintptr_t)(i + 1), 0, NULL);
    WaitForMultipleObjects(THREADS, threads, TRUE, INFINITE);
    for (int i = 0; i < THREADS; i++)
        CloseHandle(threads[i]);
    CHECK(failures == 0, "%ld threads saw wrong data", (long)failures);

    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    ID3D11Multithread_Release(multithread);
    ID3D11DeviceContext_Release(immediate);
    CHECK(ID3D11Device_Release(device) == 0, "the device is released once everything is gone");
    return test_finish("threads");
}
