/* A sub-buffer of a shared buffer aliases the Direct3D data: it may be used only while its
 * parent is acquired, and what is written through it reaches the Direct3D buffer on release,
 * while the rest of the buffer keeps its contents. */
#include "testlib.h"

#include <CL/cl_d3d11.h>

enum { BUFFER_BYTES = 4096 };

static const char *source = "__kernel void inc(__global uchar *p) { p[get_global_id(0)] += 1; }";

int main(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    ID3D11DeviceContext *immediate;
    ID3D11Device *d3d = test_d3d11_device(&immediate);
    unsigned char data[BUFFER_BYTES], back[BUFFER_BYTES], part[256];
    cl_uint align_bits = 0;
    cl_int err;

    for (int i = 0; i < BUFFER_BYTES; i++)
        data[i] = (unsigned char)(i * 7 + 1);
    D3D11_BUFFER_DESC desc = {
        BUFFER_BYTES, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, 0, 0};
    D3D11_SUBRESOURCE_DATA init = {data, 0, 0};
    ID3D11Buffer *buffer;
    REQUIRE(SUCCEEDED(ID3D11Device_CreateBuffer(d3d, &desc, &init, &buffer)), "buffer");

    clCreateFromD3D11BufferKHR_fn create =
        clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11BufferKHR");
    clEnqueueAcquireD3D11ObjectsKHR_fn acquire =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    clEnqueueReleaseD3D11ObjectsKHR_fn release =
        clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    REQUIRE(create && acquire && release, "D3D11 sharing functions");
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d, 0};
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    cl_kernel kernel = test_kernel(context, device, source, "inc");
    cl_mem shared = create(context, CL_MEM_READ_WRITE, buffer, &err);
    REQUIRE(err == CL_SUCCESS, "shared buffer: %d", err);

    /* A sub-buffer at the device's alignment, 256 bytes long. */
    CHECK_ERR(clGetDeviceInfo(device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof(align_bits),
                              &align_bits, NULL),
              CL_SUCCESS);
    cl_buffer_region region = {align_bits / 8 ? align_bits / 8 : 128, sizeof(part)};
    REQUIRE(region.origin + region.size <= BUFFER_BYTES, "alignment %u bits", align_bits);
    cl_mem sub =
        clCreateSubBuffer(shared, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    REQUIRE(err == CL_SUCCESS && sub, "sub-buffer: %d", err);
    size_t global = sizeof(part);

    /* Not acquired: the guard refuses the sub-buffer as it refuses the parent. */
    CHECK_ERR(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, sizeof(part), part, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(sub), &sub), CL_SUCCESS);
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);

    /* Acquired: the sub-buffer sees the Direct3D data; a kernel writes through it. */
    CHECK_ERR(acquire(queue, 1, &shared, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, sizeof(part), part, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(part, data + region.origin, sizeof(part)), "sub-buffer holds the D3D data");
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(release(queue, 1, &shared, 0, NULL, NULL), CL_SUCCESS);

    test_d3d11_read(d3d, (ID3D11Resource *)buffer, back, BUFFER_BYTES, 1);
    bool ok = true;
    for (size_t i = 0; i < BUFFER_BYTES; i++) {
        bool inside = i >= region.origin && i < region.origin + region.size;
        ok &= back[i] == (unsigned char)(data[i] + (inside ? 1 : 0));
    }
    CHECK(ok, "the kernel's writes through the sub-buffer reached D3D11, the rest is unchanged");
    CHECK_ERR(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, sizeof(part), part, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);

    /* The sub-buffer outlives a retain/release pair and then goes. */
    CHECK_ERR(clRetainMemObject(sub), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(sub), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(sub), CL_SUCCESS);
    CHECK_ERR(clReleaseMemObject(shared), CL_SUCCESS);
    clReleaseKernel(kernel);
    clReleaseCommandQueue(queue);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    ID3D11Buffer_Release(buffer);
    ID3D11DeviceContext_Release(immediate);
    CHECK(ID3D11Device_Release(d3d) == 0, "every reference dxcl took is gone");
    return test_finish("subbuffer");
}
