/* Ordinary images of formats the driver lacks (emulated: CL_RG on PoCL) in any context: listed
 * by clGetSupportedImageFormats, created by every create function, reported in the spec's
 * format, exact through host commands and kernels (an NV12 frame as CL_R + CL_RG images), and
 * no host command on them blocks on a user event in its wait list.
 *
 * The format under test is asked of the driver: CL_RG/CL_UNORM_INT8 when it does not list it,
 * else the first table format it does not list (test_unlisted_formats). On a driver that has
 * every table format, the same checks run on a native CL_RG/CL_UNORM_INT8 image with what the
 * spec says of native images (the driver's own pitches and sizes, CL_MEM_USE_HOST_PTR
 * accepted, no dxcl record); the test prints which case ran. */
#include "interop.h"

#include <dxcl/dxcl.h>
#include <stdlib.h>

enum { W = 16, H = 10, MAX_ELEMENT = 16 };

static cl_context context;
static cl_command_queue queue;
static cl_device_id device;
static dxclGetBackingFormat_fn backing_of;

/* The format under test and whether the driver lacks it. */
static const struct test_format *fmt;
static cl_image_format cl_fmt;
static size_t element;
static bool emulated;

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

static void choose_format(void)
{
    const struct test_format *unlisted[TEST_FORMAT_COUNT];
    size_t n = test_unlisted_formats(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, unlisted,
                                     TEST_FORMAT_COUNT);

    fmt = NULL;
    for (size_t i = 0; i < n && !fmt; i++)
        if (unlisted[i]->dxgi == DXGI_FORMAT_R8G8_UNORM)
            fmt = unlisted[i];
    if (!fmt && n)
        fmt = unlisted[0];
    emulated = fmt != NULL;
    if (!fmt)
        fmt = test_format_find(DXGI_FORMAT_R8G8_UNORM);
    cl_fmt = (cl_image_format){fmt->order, fmt->type};
    element = fmt->channels * fmt->channel_size;
    if (emulated)
        printf("emulated_ordinary: the driver lacks %zu table formats; checking emulated %s "
               "(0x%x/0x%x)\n",
               n, fmt->name, fmt->order, fmt->type);
    else
        printf("emulated_ordinary: the driver has every table format: nothing is emulated; "
               "checking native %s\n",
               fmt->name);
}

/* dxcl's record of an ordinary image: emulated images have one, native ones none. */
static void check_record(cl_mem image, const cl_image_format *format, bool want_emulated,
                         const char *what)
{
    cl_image_format backing = {0, 0};
    cl_bool is_emulated = CL_FALSE;
    cl_int err = backing_of(image, &backing, &is_emulated);

    if (want_emulated)
        CHECK(err == CL_SUCCESS && is_emulated &&
                  backing.image_channel_data_type == format->image_channel_data_type,
              "%s: emulated on the driver's 0x%x/0x%x (%d)", what, backing.image_channel_order,
              backing.image_channel_data_type, err);
    else
        CHECK(err == CL_INVALID_MEM_OBJECT, "%s: a native image has no dxcl record (%d)", what,
              err);
}

static bool lists(const cl_image_format *list, cl_uint count, cl_channel_order order,
                  cl_channel_type type)
{
    for (cl_uint i = 0; i < count; i++)
        if (list[i].image_channel_order == order && list[i].image_channel_data_type == type)
            return true;
    return false;
}

/* dxcl lists the driver's formats plus every table format the driver can back (2D and 3D). */
static void check_listed(void)
{
    static const cl_mem_object_type types[2] = {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D};

    for (int t = 0; t < 2; t++) {
        cl_image_format list[512];
        cl_uint count = 0, missing = 0;

        CHECK_ERR(
            clGetSupportedImageFormats(context, CL_MEM_READ_WRITE, types[t], 512, list, &count),
            CL_SUCCESS);
        if (count > 512)
            count = 512;
        for (size_t i = 0; i < TEST_FORMAT_COUNT; i++) {
            const cl_image_format f = {test_formats[i].order, test_formats[i].type};
            if (test_driver_can_back(context, CL_MEM_READ_WRITE, types[t], &f) &&
                !lists(list, count, f.image_channel_order, f.image_channel_data_type)) {
                CHECK(0, "%s (type 0x%x) is not listed though the driver can back it",
                      test_formats[i].name, types[t]);
                missing++;
            }
        }
        CHECK(missing == 0, "type 0x%x: every table format the driver can back is listed",
              types[t]);
        CHECK(lists(list, count, fmt->order, fmt->type), "%s listed in a plain context", fmt->name);
    }
}

static void check_create(void)
{
    unsigned char padded[H][W * MAX_ELEMENT + 8], back[H * W * MAX_ELEMENT];
    cl_image_format format;
    size_t got_element = 0, row = 0, size = 0;
    cl_int err;
    cl_mem image;

    for (int y = 0; y < H; y++)
        test_fill_random(padded[y], sizeof(padded[y]), fmt, 100 + y);
    image = clCreateImage2D(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &cl_fmt, W, H,
                            sizeof(padded[0]), padded, &err);
    REQUIRE(err == CL_SUCCESS, "clCreateImage2D %s with COPY_HOST_PTR: %d", fmt->name, err);
    check_record(image, &cl_fmt, emulated, fmt->name);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(format), &format, NULL), CL_SUCCESS);
    CHECK(format.image_channel_order == fmt->order && format.image_channel_data_type == fmt->type,
          "spec format reported");
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof(got_element), &got_element, NULL),
              CL_SUCCESS);
    CHECK_ERR(clGetImageInfo(image, CL_IMAGE_ROW_PITCH, sizeof(row), &row, NULL), CL_SUCCESS);
    CHECK_ERR(clGetMemObjectInfo(image, CL_MEM_SIZE, sizeof(size), &size, NULL), CL_SUCCESS);
    CHECK(got_element == element, "element size %zu, want %zu", got_element, element);
    if (emulated) /* dxcl reports the spec's tight sizes (docs/design.md) */
        CHECK(row == W * element && size == W * H * element,
              "spec sizes: row %zu (want %zu) size %zu (want %zu)", row, W * element, size,
              W * H * element);
    else /* the driver's own, which hold the image */
        CHECK(row >= W * element && size >= W * H * element,
              "driver sizes: row %zu (at least %zu) size %zu (at least %zu)", row, W * element,
              size, W * H * element);
    {
        const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
        bool same = true;
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
            CL_SUCCESS);
        for (int y = 0; y < H; y++)
            same &= !memcmp(back + y * W * element, padded[y], W * element);
        CHECK(same, "COPY_HOST_PTR data read back exactly");
        const size_t outside[3] = {W + 1, H, 1};
        CHECK_ERR(
            clEnqueueReadImage(queue, image, CL_TRUE, origin, outside, 0, 0, back, 0, NULL, NULL),
            CL_INVALID_VALUE);
    }
    clReleaseMemObject(image);

    /* 3D: created when the driver can back the format for 3D images (it lists it, or dxcl
     * emulates it), refused otherwise. */
    bool backs_3d =
        test_driver_can_back(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE3D, &cl_fmt);
    image = clCreateImage3D(context, CL_MEM_READ_WRITE, &cl_fmt, 4, 4, 3, 0, 0, NULL, &err);
    CHECK(backs_3d ? err == CL_SUCCESS && image : image == NULL,
          "clCreateImage3D %s: %d (the driver can back it for 3D: %d)", fmt->name, err, backs_3d);
    if (image)
        clReleaseMemObject(image);
    {
        const cl_image_desc desc = {
            .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W, .image_height = H};
        image = clCreateImageWithProperties(context, NULL, CL_MEM_READ_WRITE, &cl_fmt, &desc, NULL,
                                            &err);
        CHECK(err == CL_SUCCESS && image, "clCreateImageWithProperties %s: %d", fmt->name, err);
        if (image)
            clReleaseMemObject(image);
        image = clCreateImage(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, &cl_fmt, &desc,
                              back, &err);
        if (emulated)
            CHECK(!image && err == CL_IMAGE_FORMAT_NOT_SUPPORTED,
                  "USE_HOST_PTR cannot alias an emulated format: %d", err);
        else
            CHECK(image && err == CL_SUCCESS, "USE_HOST_PTR on a format the driver lists: %d", err);
        if (image)
            clReleaseMemObject(image);
    }
}

/* An NV12 frame as two ordinary images through a kernel and back: exact, whether the driver
 * has CL_RG or dxcl emulates it. */
static void check_nv12_frame(void)
{
    static const char source[] =
        "__kernel void invert(__read_only image2d_t s, __write_only image2d_t d)\n"
        "{ int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
        "  write_imagef(d, p, (float4)(1.0f) - read_imagef(s, p)); }\n";
    cl_kernel kernel = test_kernel(context, device, source, "invert");
    const cl_image_format *formats[2] = {&r8, &rg8};
    const size_t sizes[2][2] = {{W, H}, {W / 2, H / 2}};

    printf("emulated_ordinary: NV12 frame: CL_R %s, CL_RG %s\n",
           test_driver_lists(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, &r8) ? "native"
                                                                                     : "emulated",
           test_driver_lists(context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, &rg8) ? "native"
                                                                                      : "emulated");
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

/* The format under test through its class's kernel (when it is not the NV12 frame's CL_RG). */
static void check_kernel(void)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1}, global[2] = {W, H};
    const size_t bytes = W * H * element;
    unsigned char in[W * H * MAX_ELEMENT], out[W * H * MAX_ELEMENT], want[W * H * MAX_ELEMENT];
    cl_program program;
    cl_kernel kernel;
    cl_mem src, dst;

    if (fmt->order == CL_RG && fmt->type == CL_UNORM_INT8)
        return; /* check_nv12_frame's UV plane */
    program = interop_program(context, device);
    kernel = test_program_kernel(program, test_class_kernel(fmt->cls, false));
    src = image_2d(&cl_fmt, W, H);
    dst = image_2d(&cl_fmt, W, H);
    test_fill_random(in, bytes, fmt, 7);
    CHECK_ERR(clEnqueueWriteImage(queue, src, CL_FALSE, origin, region, 0, 0, in, 0, NULL, NULL),
              CL_SUCCESS);
    test_class_kernel_args(kernel, fmt, src, dst);
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK_ERR(clEnqueueReadImage(queue, dst, CL_TRUE, origin, region, 0, 0, out, 0, NULL, NULL),
              CL_SUCCESS);
    test_class_expected(fmt, in, want, bytes);
    test_same_bytes(out, want, bytes, "the format under test through a kernel");
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
}

static cl_int status_of(cl_event event)
{
    cl_int status = -1;
    clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL);
    return status;
}

static bool all_pixels(const unsigned char *pixels, size_t count, const unsigned char *want)
{
    for (size_t i = 0; i < count; i++)
        if (memcmp(pixels + i * element, want, element))
            return false;
    return true;
}

/* Each host command waits for a user event set afterwards from this thread (and for the
 * command before it, for out-of-order queues). */
#define WAIT(i) ((i) ? 2 : 1), ((i) ? (cl_event[]){gate, events[(i) ? (i)-1 : 0]} : &gate),
static void check_user_event(void)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    const size_t bytes = W * H * element;
    unsigned char data[W * H * MAX_ELEMENT], back[W * H * MAX_ELEMENT], copied[W * H * MAX_ELEMENT],
        pixel[MAX_ELEMENT];
    cl_uint fill[4];
    cl_mem image = image_2d(&cl_fmt, W, H), other = image_2d(&cl_fmt, W, H),
           third = image_2d(&cl_fmt, W, H);
    cl_int err;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_event gate = clCreateUserEvent(context, &err), events[7];
    unsigned char *mapped;
    size_t row_pitch = 0;

    REQUIRE(err == CL_SUCCESS, "user event");
    test_fill_random(data, bytes, fmt, 5);
    test_fill_model(fmt, fill, pixel);
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
        /* dxcl maps an emulated image tightly; a native one has the driver's pitch */
        bool same = emulated ? row_pitch == W * element : row_pitch >= W * element;
        for (int y = 0; y < H && same; y++)
            same = !memcmp(mapped + y * row_pitch, data + y * W * element, W * element);
        CHECK(same, "map of the image copied through a buffer: exact (row pitch %zu)", row_pitch);
        CHECK_ERR(clEnqueueUnmapMemObject(queue, other, mapped, 0, NULL, NULL), CL_SUCCESS);
    }
    CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, bytes, copied, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(!memcmp(copied, data, bytes), "image -> buffer: packed");
    CHECK_ERR(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, back, 0, NULL, NULL),
              CL_SUCCESS);
    CHECK(all_pixels(back, W * H, pixel), "fill: the format's channels only");
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
    cl_command_queue_properties supported = 0;
    cl_int err;

    device = test_device(platform);
    backing_of = (dxclGetBackingFormat_fn)(void (*)(void))GetProcAddress(test_dxcl_module(),
                                                                         "dxclGetBackingFormat");
    REQUIRE(backing_of, "dxcl exports dxclGetBackingFormat");
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "context: %d", err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    REQUIRE(err == CL_SUCCESS, "queue: %d", err);
    choose_format();
    check_listed();
    check_create();
    check_nv12_frame();
    check_kernel();
    check_user_event();
    clReleaseCommandQueue(queue);
    /* Out of order where the device has it (CL_DEVICE_QUEUE_PROPERTIES); else the driver's
     * refusal, and the in-order run above is the one. */
    CHECK_ERR(
        clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(supported), &supported, NULL),
        CL_SUCCESS);
    queue = clCreateCommandQueue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        REQUIRE(err == CL_SUCCESS, "out-of-order queue: %d", err);
        check_user_event();
        clReleaseCommandQueue(queue);
    } else {
        printf("emulated_ordinary: the device has no out-of-order queues\n");
        CHECK(queue == NULL && err == CL_INVALID_QUEUE_PROPERTIES,
              "out-of-order queue on a device without them: %d", err);
    }
    clReleaseContext(context);
    return test_finish("emulated_ordinary");
}
