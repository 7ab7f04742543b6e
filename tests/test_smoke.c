/* The stack works through dxcl: the driver's platform is listed (the same handle and name the
 * driver itself gives: any driver, PoCL on the rig), a kernel builds and runs with the right
 * results, and a D3D11 device exists in the same process. */
#include "testlib.h"

static const char *source = "__kernel void square(__global const int *in, __global int *out)"
                            "{ size_t i = get_global_id(0); out[i] = in[i] * in[i] + 1; }";

int main(void)
{
    enum { N = 1024 };
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    ID3D11DeviceContext *immediate;
    ID3D11Device *d3d = test_d3d11_device(&immediate);
    char name[256] = "", driver_name[256] = "";
    cl_platform_id driver_platform = NULL;
    const struct test_driver *drv = test_driver();
    int in[N], out[N];
    cl_int err;

    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name), name, NULL), CL_SUCCESS);
    printf("platform: %s\n", name);
    /* Handles pass through dxcl (docs/design.md): the first platform is the driver's first. */
    REQUIRE(drv->clGetPlatformIDs && drv->clGetPlatformInfo, "the driver's platform functions");
    CHECK_ERR(drv->clGetPlatformIDs(1, &driver_platform, NULL), CL_SUCCESS);
    CHECK(platform == driver_platform, "dxcl's first platform %p is the driver's %p",
          (void *)platform, (void *)driver_platform);
    CHECK_ERR(drv->clGetPlatformInfo(driver_platform, CL_PLATFORM_NAME, sizeof(driver_name),
                                     driver_name, NULL),
              CL_SUCCESS);
    CHECK(name[0] && !strcmp(name, driver_name), "platform name \"%s\", the driver says \"%s\"",
          name, driver_name);

    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateContext: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
    cl_kernel kernel = test_kernel(context, device, source, "square");

    for (int i = 0; i < N; i++)
        in[i] = i - 100;
    cl_mem a =
        clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(in), in, &err);
    CHECK_ERR(err, CL_SUCCESS);
    cl_mem b = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof(out), NULL, &err);
    CHECK_ERR(err, CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(a), &a), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(b), &b), CL_SUCCESS);
    size_t global = N;
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof(out), out, 0, NULL, NULL),
              CL_SUCCESS);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += out[i] != in[i] * in[i] + 1;
    CHECK(wrong == 0, "%d of %d results wrong", wrong, N);

    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(d3d);
    return test_finish("smoke");
}
