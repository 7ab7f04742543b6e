/* Host commands on a shared image whose format the driver lacks (CL_RG on PoCL): write, read,
 * fill, map and copies to and from buffers must use the spec's packed layout, as on a native
 * CL_RG image, and the result must reach the D3D11 texture on release. */
#include "testlib.h"

#include <CL/cl_d3d11.h>
#include <dxcl/dxcl.h>

enum { W = 13, H = 7 };

static clCreateFromD3D11Texture2DKHR_fn create_2d;
static clEnqueueAcquireD3D11ObjectsKHR_fn acquire;
static clEnqueueReleaseD3D11ObjectsKHR_fn release;

static ID3D11Texture2D *rg_texture(ID3D11Device *device, DXGI_FORMAT format)
{
    D3D11_TEXTURE2D_DESC desc = {
        W, H, 1, 1, format, {1, 0}, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, 0};
    ID3D11Texture2D *texture = NULL;

    REQUIRE(SUCCEEDED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture)), "texture");
    return texture;
}

static void check_rg8(cl_context context, cl_command_queue queue, ID3D11Device *device)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1}, element = 2;
    unsigned char data[W * H * 2], back[W * H * 2], padded[H][W * 2 + 6];
    ID3D11Texture2D *texture = rg_texture(device, DXGI_FORMAT_R8G8_UNORM);
    cl_image_format format, backing;
    cl_bool emulated = CL_FALSE;
    dxclGetBackingFormat_fn backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(
        GetModuleHandleA("OpenCL.dll"), "dxclGetBackingFormat");
    cl_int err;
    cl_mem image = create_2d(context, CL_MEM_READ_WRITE, texture, 0, &err);

    REQUIRE(err == CL_SUCCESS, "create RG8 image: %d", err);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(format), &format, NULL), CL_SUCCESS);
    CHECK(format.image_channel_order == CL_RG && format.image_channel_data_type == CL_UNORM_INT8,
          "spec format reported: 0x%x/0x%x", format.image_channel_order,
          format.image_channel_data_type);
    REQUIRE(backing_of && backing_of(image, &backing, &emulated) == CL_SUCCESS, "backing");
    CHECK(emulated == CL_TRUE && backing.image_channel_order == CL_RGBA,
          "PoCL lacks CL_RG, so RG8 is emulated in RGBA (emulated %u order 0x%x)", emulated,
          backing.image_channel_order);
    CHECK_ERR(acquire(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);

    /* write (packed, with a row pitch) then read back (tight) */
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i * 37 + 11);
    memset(padded, 0xEE, sizeof(padded));
    for (int y = 0; y < H; y++)
        memcpy(padded[y], data + y * W * element, W * element);
    CHECK_ERR(clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, sizeof(padded[0]), 0,
                                  padded, 0, NULL, NULL),
              CL_SUCCESS);
    memset(back, 0, sizeof(back));
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(back, data, sizeof(data)), "read returns the packed RG pixels written");

    /* a sub-region read with a pitch leaves the padding alone */
    {
        const size_t sub_origin[3] = {2, 1, 0}, sub_region[3] = {4, 3, 1};
        unsigned char sub[3][4 * 2 + 3];
        bool ok = true;
        memset(sub, 0x5A, sizeof(sub));
        CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, sub_origin, sub_region, sizeof(sub[0]),
                                     0, sub, 0, NULL, NULL),
                  CL_SUCCESS);
        for (int y = 0; y < 3; y++) {
            ok &= !memcmp(sub[y], data + ((y + 1) * W + 2) * element, 4 * element);
            ok &= sub[y][8] == 0x5A && sub[y][9] == 0x5A && sub[y][10] == 0x5A;
        }
        CHECK(ok, "sub-region read with row pitch");
    }

    /* fill: a native RG image stores r and g only */
    {
        const float color[4] = {1.0f, 0.0f, 0.5f, 0.25f};
        CHECK_ERR(clEnqueueFillImage(queue, image, color, origin, region, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        bool ok = true;
        for (int i = 0; i < W * H; i++)
            ok &= back[i * 2] == 255 && back[i * 2 + 1] == 0;
        CHECK(ok, "fill stores (r, g) = (255, 0) in every pixel (first %u,%u)", back[0], back[1]);
    }

    /* map: the program sees packed RG with the reported pitch, and writes go back */
    {
        size_t row_pitch = 0;
        cl_event done;
        unsigned char *p =
            clEnqueueMapImage(queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region,
                              &row_pitch, NULL, 0, NULL, &done, &err);
        REQUIRE(err == CL_SUCCESS && p, "map: %d", err);
        CHECK(row_pitch == W * element, "mapped row pitch %zu is the spec's %zu", row_pitch,
              (size_t)(W * element));
        CHECK(p[0] == 255 && p[1] == 0, "mapped pixels are the filled ones");
        for (int i = 0; i < W * H * 2; i++)
            p[i] = data[i];
        clReleaseEvent(done);
        CHECK_ERR(clEnqueueUnmapMemObject(queue, image, p, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK(!memcmp(back, data, sizeof(data)), "writes through the map reach the image");
    }

    /* copies to and from a buffer use the packed layout */
    {
        cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(data) + 8, NULL, &err);
        unsigned char packed[sizeof(data)];
        cl_event event;
        cl_command_type type = 0;
        REQUIRE(err == CL_SUCCESS, "buffer");
        CHECK_ERR(
            clEnqueueCopyImageToBuffer(queue, image, buffer, origin, region, 8, 0, NULL, &event),
            CL_SUCCESS);
        CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL),
                  CL_SUCCESS);
        CHECK(type == CL_COMMAND_COPY_IMAGE_TO_BUFFER, "copy event type 0x%x", type);
        clReleaseEvent(event);
        CHECK_ERR(
            clEnqueueReadBuffer(queue, buffer, CL_TRUE, 8, sizeof(packed), packed, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK(!memcmp(packed, data, sizeof(data)), "image -> buffer is packed RG");
        for (size_t i = 0; i < sizeof(packed); i++)
            packed[i] = (unsigned char)(255 - data[i]);
        CHECK_ERR(
            clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 8, sizeof(packed), packed, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK_ERR(
            clEnqueueCopyBufferToImage(queue, buffer, image, 8, origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        clReleaseMemObject(buffer);
    }

    CHECK_ERR(release(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    test_d3d11_read(device, (ID3D11Resource *)texture, back, W * element, H);
    bool ok = true;
    for (size_t i = 0; i < sizeof(back); i++)
        ok &= back[i] == (unsigned char)(255 - data[i]);
    CHECK(ok, "the texture holds what buffer -> image wrote");
    CHECK_ERR(clReleaseMemObject(image), CL_SUCCESS);
    ID3D11Texture2D_Release(texture);
}

/* 32-bit float RG: the conversion must keep every bit. */
static void check_rg32f(cl_context context, cl_command_queue queue, ID3D11Device *device)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    float data[W * H * 2], back[W * H * 2];
    ID3D11Texture2D *texture = rg_texture(device, DXGI_FORMAT_R32G32_FLOAT);
    cl_int err;
    cl_mem image = create_2d(context, 0, texture, 0, &err);

    REQUIRE(err == CL_SUCCESS, "create RG32F image: %d", err);
    for (int i = 0; i < W * H * 2; i++)
        data[i] = (float)i * -1.25f + 0.1f;
    CHECK_ERR(acquire(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(
        clEnqueueWriteImage(queue, image, CL_FALSE, origin, region, 0, 0, data, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(back, data, sizeof(data)), "RG32F write/read bit-exact");
    {
        const cl_uint bits[4] = {0x3f800000u, 0xc0000000u, 0, 0};
        CHECK_ERR(clEnqueueFillImage(queue, image, bits, origin, region, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK(back[0] == 1.0f && back[1] == -2.0f && back[W * H * 2 - 1] == -2.0f,
              "RG32F fill (%g, %g)", back[0], back[1]);
    }
    CHECK_ERR(release(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);
    clReleaseMemObject(image);
    ID3D11Texture2D_Release(texture);
}

int main(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    ID3D11DeviceContext *immediate;
    ID3D11Device *d3d = test_d3d11_device(&immediate);
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d, 0};
    cl_int err;

    create_2d = clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    acquire = clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    release = clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    REQUIRE(create_2d && acquire && release, "D3D11 sharing functions");
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);

    check_rg8(context, queue, d3d);
    check_rg32f(context, queue, d3d);

    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(d3d);
    return test_finish("emulated_host");
}
