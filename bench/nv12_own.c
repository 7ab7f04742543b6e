/* The program's own NV12 planes of the NV12 rows' hand-written way (nv12_own.h). */
#include "nv12_own.h"

void nv12_own_open(struct nv12_own *own, cl_context context, size_t width, size_t height)
{
    const cl_image_format r8 = {CL_R, CL_UNORM_INT8};
    const cl_image_desc y_desc = {
        .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width, .image_height = height};
    cl_int err;

    own->width = width;
    own->height = height;
    for (int i = 0; i < 2; i++) {
        own->y[i] = clCreateImage(context, CL_MEM_READ_WRITE, &r8, &y_desc, NULL, &err);
        REQUIRE(err == CL_SUCCESS, "Y image: %d", err);
        own->uv[i] = clCreateBuffer(context, CL_MEM_READ_WRITE, width * height / 2, NULL, &err);
        REQUIRE(err == CL_SUCCESS, "UV buffer: %d", err);
    }
}

void nv12_own_close(struct nv12_own *own)
{
    for (int i = 0; i < 2; i++) {
        clReleaseMemObject(own->y[i]);
        clReleaseMemObject(own->uv[i]);
    }
}

void nv12_own_transfer(const struct nv12_own *own, cl_command_queue queue, int which,
                       unsigned char *bytes, size_t pitch, bool write)
{
    const size_t w = own->width, h = own->height;
    const size_t origin[3] = {0, 0, 0}, y_region[3] = {w, h, 1}, uv_region[3] = {w, h / 2, 1};
    unsigned char *y = bytes, *uv = y + pitch * h;

    if (write) {
        BENCH_CL(clEnqueueWriteImage(queue, own->y[which], CL_TRUE, origin, y_region, pitch, 0, y,
                                     0, NULL, NULL));
        BENCH_CL(clEnqueueWriteBufferRect(queue, own->uv[which], CL_TRUE, origin, origin, uv_region,
                                          w, 0, pitch, 0, uv, 0, NULL, NULL));
    } else {
        BENCH_CL(clEnqueueReadImage(queue, own->y[which], CL_TRUE, origin, y_region, pitch, 0, y, 0,
                                    NULL, NULL));
        BENCH_CL(clEnqueueReadBufferRect(queue, own->uv[which], CL_TRUE, origin, origin, uv_region,
                                         w, 0, pitch, 0, uv, 0, NULL, NULL));
    }
}

void nv12_own_copy(const struct nv12_own *own, cl_command_queue queue)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {own->width, own->height, 1};

    BENCH_CL(
        clEnqueueCopyImage(queue, own->y[0], own->y[1], origin, origin, region, 0, NULL, NULL));
    BENCH_CL(clEnqueueCopyBuffer(queue, own->uv[0], own->uv[1], 0, 0, own->width * own->height / 2,
                                 0, NULL, NULL));
    bench_finish(queue);
}
