/* Host commands on a shared image whose format the driver lacks (an emulated format: CL_RG on
 * PoCL): write, read, fill, map and copies to and from buffers must use the spec's packed
 * layout, as on a native image, and the result must reach the D3D11 texture on release.
 *
 * Which formats are emulated is asked of the driver (test_unlisted_formats): every table
 * format it does not list is checked, and dxcl must report each as emulated. On a driver that
 * has every table format the same host commands run on native R8G8_UNORM and R32G32_FLOAT
 * images, which dxcl must not emulate; the test prints which case ran. */
#include "interop.h"

#include <CL/cl_d3d11.h>
#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 13, H = 7, MAX_ELEMENT = 16 };

static clCreateFromD3D11Texture2DKHR_fn create_2d;
static clEnqueueAcquireD3D11ObjectsKHR_fn acquire;
static clEnqueueReleaseD3D11ObjectsKHR_fn release;
static dxclGetBackingFormat_fn backing_of;

static ID3D11Texture2D *texture_of(ID3D11Device *device, DXGI_FORMAT format)
{
    D3D11_TEXTURE2D_DESC desc = {
        W, H, 1, 1, format, {1, 0}, D3D11_USAGE_DEFAULT, D3D11_BIND_SHADER_RESOURCE, 0, 0};
    ID3D11Texture2D *texture = NULL;

    REQUIRE(SUCCEEDED(ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture)), "texture");
    return texture;
}

static bool all_pixels(const unsigned char *pixels, size_t count, size_t element,
                       const unsigned char *want)
{
    for (size_t i = 0; i < count; i++)
        if (memcmp(pixels + i * element, want, element))
            return false;
    return true;
}

/* Every host command on one shared image of `f`; `emulated` is what the driver's list says. */
static void check_host(cl_context context, cl_command_queue queue, ID3D11Device *device,
                       const struct test_format *f, bool emulated, cl_mem_flags flags)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    const size_t element = f->channels * f->channel_size, bytes = W * H * element;
    unsigned char data[W * H * MAX_ELEMENT], back[W * H * MAX_ELEMENT], fresh[W * H * MAX_ELEMENT];
    unsigned char padded[H][W * MAX_ELEMENT + 6], pixel[MAX_ELEMENT];
    cl_uint color[4];
    ID3D11Texture2D *texture = texture_of(device, f->dxgi);
    cl_image_format format, backing;
    cl_bool is_emulated = !emulated;
    char what[96];
    cl_int err;
    cl_mem image = create_2d(context, flags, texture, 0, &err);

    snprintf(what, sizeof(what), "%s (%s)", f->name, emulated ? "emulated" : "native");
    REQUIRE(err == CL_SUCCESS, "%s: create: %d", what, err);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(format), &format, NULL), CL_SUCCESS);
    CHECK(format.image_channel_order == f->order && format.image_channel_data_type == f->type,
          "%s: spec format reported: 0x%x/0x%x", what, format.image_channel_order,
          format.image_channel_data_type);
    CHECK_ERR(backing_of(image, &backing, &is_emulated), CL_SUCCESS);
    if (emulated)
        CHECK(
            is_emulated && backing.image_channel_data_type == f->type &&
                (backing.image_channel_order == CL_RGBA || backing.image_channel_order == CL_BGRA),
            "%s: the driver lacks it, so dxcl backs it with RGBA or BGRA (emulated %u, backing "
            "0x%x/0x%x)",
            what, is_emulated, backing.image_channel_order, backing.image_channel_data_type);
    else
        CHECK(!is_emulated && backing.image_channel_order == f->order &&
                  backing.image_channel_data_type == f->type,
              "%s: the driver lists it, so dxcl uses it as it is (emulated %u, backing 0x%x/0x%x)",
              what, is_emulated, backing.image_channel_order, backing.image_channel_data_type);
    CHECK_ERR(acquire(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);

    /* write (packed, with a row pitch) then read back (tight) */
    test_fill_random(data, bytes, f, 11);
    memset(padded, 0xEE, sizeof(padded));
    for (int y = 0; y < H; y++)
        memcpy(padded[y], data + y * W * element, W * element);
    CHECK_ERR(clEnqueueWriteImage(queue, image, CL_TRUE, origin, region, sizeof(padded[0]), 0,
                                  padded, 0, NULL, NULL),
              CL_SUCCESS);
    memset(back, 0, sizeof(back));
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(back, data, bytes), "%s: read returns the packed pixels written", what);

    /* a sub-region read with a pitch leaves the padding alone */
    {
        const size_t sub_origin[3] = {2, 1, 0}, sub_region[3] = {4, 3, 1};
        unsigned char sub[3][4 * MAX_ELEMENT + 3];
        const size_t pitch = 4 * element + 3;
        bool ok = true;
        memset(sub, 0x5A, sizeof(sub));
        CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, sub_origin, sub_region, pitch, 0, sub,
                                     0, NULL, NULL),
                  CL_SUCCESS);
        for (int y = 0; y < 3; y++) {
            const unsigned char *row = (const unsigned char *)sub + y * pitch;
            ok &= !memcmp(row, data + ((y + 1) * W + 2) * element, 4 * element);
            ok &= row[4 * element] == 0x5A && row[4 * element + 1] == 0x5A &&
                  row[4 * element + 2] == 0x5A;
        }
        CHECK(ok, "%s: sub-region read with row pitch", what);
    }

    /* fill: an image stores its own channels only */
    test_fill_model(f, color, pixel);
    CHECK_ERR(clEnqueueFillImage(queue, image, color, origin, region, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(all_pixels(back, W * H, element, pixel), "%s: fill stores the format's channels", what);

    /* map: the program sees packed pixels with the reported pitch (dxcl's tight one when
     * emulated, the driver's own when native), and writes go back */
    {
        size_t row_pitch = 0;
        cl_event done;
        unsigned char *p =
            clEnqueueMapImage(queue, image, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, region,
                              &row_pitch, NULL, 0, NULL, &done, &err);
        REQUIRE(err == CL_SUCCESS && p, "%s: map: %d", what, err);
        if (emulated)
            CHECK(row_pitch == W * element, "%s: mapped row pitch %zu is the spec's %zu", what,
                  row_pitch, W * element);
        else
            CHECK(row_pitch >= W * element, "%s: mapped row pitch %zu holds a row of %zu", what,
                  row_pitch, W * element);
        bool filled = true;
        for (int y = 0; y < H; y++)
            filled &= all_pixels(p + y * row_pitch, W, element, pixel);
        CHECK(filled, "%s: mapped pixels are the filled ones", what);
        for (int y = 0; y < H; y++)
            memcpy(p + y * row_pitch, data + y * W * element, W * element);
        clReleaseEvent(done);
        CHECK_ERR(clEnqueueUnmapMemObject(queue, image, p, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK(!memcmp(back, data, bytes), "%s: writes through the map reach the image", what);
    }

    /* copies to and from a buffer use the packed layout */
    {
        cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes + 8, NULL, &err);
        cl_event event;
        cl_command_type type = 0;
        REQUIRE(err == CL_SUCCESS, "buffer");
        CHECK_ERR(
            clEnqueueCopyImageToBuffer(queue, image, buffer, origin, region, 8, 0, NULL, &event),
            CL_SUCCESS);
        CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL),
                  CL_SUCCESS);
        CHECK(type == CL_COMMAND_COPY_IMAGE_TO_BUFFER, "%s: copy event type 0x%x", what, type);
        clReleaseEvent(event);
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 8, bytes, back, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK(!memcmp(back, data, bytes), "%s: image -> buffer is packed", what);
        test_fill_random(fresh, bytes, f, 12);
        CHECK_ERR(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 8, bytes, fresh, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(
            clEnqueueCopyBufferToImage(queue, buffer, image, 8, origin, region, 0, NULL, NULL),
            CL_SUCCESS);
        clReleaseMemObject(buffer);
    }

    CHECK_ERR(release(queue, 1, &image, 0, NULL, NULL), CL_SUCCESS);
    test_d3d11_read(device, (ID3D11Resource *)texture, back, W * element, H);
    CHECK(!memcmp(back, fresh, bytes), "%s: the texture holds what buffer -> image wrote", what);
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR);
    CHECK_ERR(clReleaseMemObject(image), CL_SUCCESS);
    ID3D11Texture2D_Release(texture);
}

int main(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    ID3D11DeviceContext *immediate;
    ID3D11Device *d3d = test_d3d11_device(&immediate);
    cl_context_properties props[] = {CL_CONTEXT_D3D11_DEVICE_KHR, (cl_context_properties)d3d, 0};
    const struct test_format *unlisted[TEST_FORMAT_COUNT];
    cl_int err;

    create_2d = clGetExtensionFunctionAddressForPlatform(platform, "clCreateFromD3D11Texture2DKHR");
    acquire = clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueAcquireD3D11ObjectsKHR");
    release = clGetExtensionFunctionAddressForPlatform(platform, "clEnqueueReleaseD3D11ObjectsKHR");
    REQUIRE(create_2d && acquire && release, "D3D11 sharing functions");
    backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                         "dxclGetBackingFormat");
    REQUIRE(backing_of, "dxcl exports dxclGetBackingFormat");
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);

    size_t n = test_unlisted_formats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, unlisted,
                                     TEST_FORMAT_COUNT);
    if (n) {
        printf("emulated_host: the driver lacks %zu table formats; host commands on each:", n);
        for (size_t i = 0; i < n; i++)
            printf(" %s", unlisted[i]->name);
        printf("\n");
        /* Read-write first, then the flags 0 (read-write too) the spec allows. */
        for (size_t i = 0; i < n; i++)
            check_host(context, queue, d3d, unlisted[i], true, i ? 0 : CL_MEM_READ_WRITE);
    } else {
        printf("emulated_host: the driver has every table format: nothing is emulated; host "
               "commands checked on native R8G8_UNORM and R32G32_FLOAT\n");
        check_host(context, queue, d3d, test_format_find(DXGI_FORMAT_R8G8_UNORM), false,
                   CL_MEM_READ_WRITE);
        check_host(context, queue, d3d, test_format_find(DXGI_FORMAT_R32G32_FLOAT), false, 0);
    }

    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(d3d);
    return test_finish("emulated_host");
}
