/* Ordinary images of formats the driver lacks (CL_RG on PoCL) in any context: listed by
 * clGetSupportedImageFormats, created by every create function, reported in the spec's
 * format, exact through host commands and kernels (an NV12 frame as CL_R + CL_RG images), and
 * no host command on them blocks on a user event in its wait list. */
#include "testlib.h"

#include <stdlib.h>

enum { W = 16, H = 10 };

static cl_context context;
static cl_command_queue queue;
static cl_device_id device;

static const cl_image_format rg8 = {CL_RG, CL_UNORM_INT8}, r8 = {CL_R, CL_UNORM_INT8};

static cl_mem image_2d(const cl_image_format *format, size_t w, size_t h)
{
    const cl_image_desc desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w, .image_height = h};
    cl_int err;
    cl_mem image = clCreateImage(context, CL_MEM_READ_WRITE, format, &desc, NULL, &err);

    REQUIRE(err == CL_SUCCESS && image, "clCreateImage 0x%x/0x%x: %d", format->image_channel_order,
            format->image_channel_data_type, err);
    return image;
}

static void check_listed(void)
{
    cl_image_format list[512];
    cl_uint count = 0;
    bool rg = false, rg_float = false;

    CHECK_ERR(clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 512,
                                         list, &count),
              CL_SUCCESS);
    for (cl_uint i = 0; i < count && i < 512; i++) {
        rg |= list[i].image_channel_order == CL_RG &&
              list[i].image_channel_data_type == CL_UNORM_INT8;
        rg_float |=
            list[i].image_channel_order == CL_RG && list[i].image_channel_data_type == CL_FLOAT;
    }
    CHECK(rg && rg_float, "CL_RG formats listed in a plain context");
}

static void check_create(void)
{
    unsigned char padded[H][W * 2 + 8], back[H * W * 2];
    cl_image_format format;
    size_t element = 0, row = 0, size = 0;
    cl_int err;
    cl_mem image;

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * 2 + 8; x++)
            padded[y][x] = (unsigned char)(y * 31 + x * 7 + 3);
    image = clCreateImage2D(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &rg8, W, H,
                            sizeof(padded[0]), padded, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateImage2D RG8 with COPY_HOST_PTR: %d", err);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(format), &format, NULL), CL_SUCCESS);
    CHECK(format.image_channel_order == CL_RG, "spec format reported");
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof(element), &element, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof(row), &row, NULL), CL_SUCCESS);
    CHECK_ERR(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    CHECK(element == 2 && row == W * 2 && size == W * H * 2,
          "spec sizes: element %zu row %zu size %zu", element, row, size);
    {
        const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
        bool same = true;
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        for (int y = 0; y < H; y++)
            same &= !memcmp(back + y * W * 2, padded[y], W * 2);
        CHECK(same, "COPY_HOST_PTR data read back exactly");
        const size_t outside[3] = {W + 1, H, 1};
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, outside, 0, 0, back, 0, NULL, NULL),
            CL_INVALID_VALUE);
    }
    clReleaseMemObject(image);

    image = clCreateImage3D(context, CL_MEM_READ_WRITE, &rg8, 4, 4, 3, 0, 0, NULL, &err);
    CHECK(err == CL_SUCCESS && image, "clCreateImage3D RG8: %d", err);
    if (image)
        clReleaseMemObject(image);
    {
        const cl_image_desc desc = {
            .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
        image =
            clCreateImageWithProperties(context, NULL, CL_MEM_READ_WRITE, &rg8, &desc, NULL, &err);
        CHECK(err == CL_SUCCESS && image, "clCreateImageWithProperties RG8: %d", err);
        if (image)
            clReleaseMemObject(image);
        image = clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &rg8, &desc, back,
                              &err);
        CHECK(!image && err == CL_IMAGE_FORMAT_NOT_SUPPORTED,
              "USE_HOST_PTR cannot alias an emulated format: %d", err);
    }
}

/* An NV12 frame as two ordinary images through a kernel and back: exact. */
static void check_nv12_frame(void)
{
    static const char source[] =
        "__kernel void invert(__read_only image2d_t s, __write_only image2d_t d)\n"
        "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
        "  write_imagef(d, p, (float4)(1.0f) - read_imagef(s, p)); }\n";
    cl_kernel kernel = test_kernel(context, device, source, "invert");
    const cl_image_format *formats[2] = {&r8, &rg8};
    const size_t sizes[2][2] = {{W, H}, {W / 2, H / 2}};

    for (int p = 0; p < 2; p++) {
        size_t bytes = W * H, global[2] = {sizes[p][0], sizes[p][1]};
        const size_t origin[3] = {0, 0, 0}, region[3] = {sizes[p][0], sizes[p][1], 1};
        unsigned char in[W * H], out[W * H];
        cl_mem src = image_2d(formats[p], sizes[p][0], sizes[p][1]);
        cl_mem dst = image_2d(formats[p], sizes[p][0], sizes[p][1]);
        bool same = true;

        for (size_t i = 0; i < bytes; i++)
            in[i] = (unsigned char)(i * 13 + p);
        CHECK_ERR(
            clEnqueueWriteImage(queue, src, CL_FALSE, origin, region, 0, 0, in, 0, NULL, NULL),
            CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(src), &src), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(dst), &dst), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(clEnqueueReadImage(queue, dst, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
                  CL_SUCCESS);
        for (size_t i = 0; i < region[0] * region[1] * (p ? 2 : 1); i++)
            same &= out[i] == (unsigned char)(255 - in[i]);
        CHECK(same, "NV12 %s plane through a kernel: exact", p ? "UV" : "Y");
        clReleaseMemObject(src);
        clReleaseMemObject(dst);
    }
    clReleaseKernel(kernel);
}

static cl_int status_of(cl_event event)
{
    cl_int status = -1;
    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    return status;
}

/* Each host command waits for a user event set afterwards from this thread (and for the
 * command before it, for out-of-order queues). */
#define WAIT(i) ((i) ? 2 : 1), ((i) ? (cl_event[]){gate, events[(i) ? (i)-1 : 0]} : &gate),
static void check_user_event(void)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    const size_t bytes = W * H * 2;
    unsigned char data[W * H * 2], back[W * H * 2], copied[W * H * 2];
    const float fill[4] = {1.0f, 0.0f, 0.5f, 0.5f};
    cl_mem image = image_2d(&rg8, W, H), other = image_2d(&rg8, W, H), third = image_2d(&rg8, W, H);
    cl_int err;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_event gate = clCreateUserEvent(context, &err), events[7];
    unsigned char *mapped;
    size_t row_pitch = 0;

    REQUIRE(err == CL_SUCCESS, "user event");
    for (size_t i = 0; i < bytes; i++)
        data[i] = (unsigned char)(i * 5 + 1);
    CHECK_ERR(clEnqueueWriteImage(queue, image, CL_FALSE, origin, region, 0, 0, data,
                                  WAIT(0) & events[0]),
              CL_SUCCESS);
    CHECK_ERR(
        clEnqueueReadImage(queue, image, CL_FALSE, origin, region, 0, 0, back, WAIT(1) & events[1]),
        CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyImageToBuffer(queue, image, buffer, origin, region, 0, WAIT(2) & events[2]),
        CL_SUCCESS);
    CHECK_ERR(
        clEnqueueCopyBufferToImage(queue, buffer, other, 0, origin, region, WAIT(3) & events[3]),
        CL_SUCCESS);
    mapped = clEnqueueMapImage(queue, other, CL_FALSE, CL_MAP_READ, origin, region, &row_pitch,
                               NULL, WAIT(4) & events[4], &err);
    CHECK(err == CL_SUCCESS && mapped, "non-blocking map: %d", err);
    CHECK_ERR(clEnqueueFillImage(queue, image, fill, origin, region, WAIT(5) & events[5]),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueCopyImage(queue, image, third, origin, origin, region, WAIT(6) & events[6]),
              CL_SUCCESS);
    for (int i = 0; i < 7; i++)
        CHECK(status_of(events[i]) > CL_COMPLETE, "command %d waits for the user event", i);
    CHECK_ERR(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    CHECK_ERR(clWaitForEvents(7, events), CL_SUCCESS);
    CHECK(!memcmp(back, data, bytes), "read after write, both gated: exact");
    if (mapped) {
        bool same = row_pitch == W * 2;
        for (int y = 0; y < H && same; y++)
            same = !memcmp(mapped + y * row_pitch, data + y * W * 2, W * 2);
        CHECK(same, "map of the image copied through a buffer: exact");
        CHECK_ERR(clEnqueueUnmapMemObject(queue, other, mapped, 0, NULL, NULL), CL_SUCCESS);
    }
    CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, copied, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(copied, data, bytes), "image -> buffer: packed RG");
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(back[0] == 255 && back[1] == 0 && back[bytes - 2] == 255, "fill: r and g only");
    CHECK_ERR(
        clEnqueueReadImage(queue, third, CL_TRUE, origin, region, 0, 0, copied, 0, NULL, NULL),
        CL_SUCCESS);
    CHECK(!memcmp(copied, back, bytes), "image -> image copy after the fill");
    for (int i = 0; i < 7; i++)
        clReleaseEvent(events[i]);
    clReleaseMemObject(third);
    clReleaseEvent(gate);
    clReleaseMemObject(buffer);
    clReleaseMemObject(other);
    clReleaseMemObject(image);
}

int main(void)
{
    cl_platform_id platform = test_platform();
    cl_int err;

    device = test_device(platform);
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    check_listed();
    check_create();
    check_nv12_frame();
    check_user_event();
    clReleaseCommandQueue(queue);
    queue = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
    check_user_event();
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return test_finish("emulated_ordinary");
}
