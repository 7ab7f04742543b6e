/* DX9 media surfaces meet ordinary images of the plane's format: for the 16 D3D9 formats and
 * the NV12/YV12 planes, each shared plane is copied into an ordinary image of its CL format
 * (clEnqueueCopyImage), a kernel reads the ordinary image and writes the destination plane,
 * the ordinary image is copied to a buffer; Direct3D then reads bit-exact results. */
#include "dx9util.h"

#include <stdlib.h>

enum { W = 16, H = 8 };

static void seam_case(struct dx9_env *env, const struct dx9_format *format, uint32_t seed)
{
    const unsigned planes = dx9_plane_count(format->format);
    const size_t bytes = dx9_content_bytes(format->format, W, H);
    IDirect3DSurface9 *src = dx9_surface(env->d3d, W, H, format->format, DX9_PLAIN);
    IDirect3DSurface9 *dst = dx9_surface(env->d3d, W, H, format->format, DX9_PLAIN);
    unsigned char *in = malloc(bytes), *out = malloc(bytes), *want = malloc(bytes);
    cl_kernel kernel = dx9_kernel(env, dx9_kernel_for(format->cls));
    cl_mem shared[6] = {0}, ordinary[3] = {0};
    char what[120];
    cl_int err;

    REQUIRE(in && out && want, "out of memory");
    snprintf(what, sizeof(what), "%s seams %s", dx9_kind_name(env->kind), format->name);
    dx9_fill(in, bytes, format->cls, format->channel_size, seed);
    dx9_fill(out, bytes, format->cls, format->channel_size, seed + 1);
    REQUIRE(dx9_write(src, in, false) && dx9_write(dst, out, false), "%s: surfaces", what);
    for (unsigned p = 0; p < planes; p++) {
        UINT pw, ph;
        unsigned element;
        cl_image_format cl_format;
        cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D};

        dx9_plane_info(format->format, W, H, p, &pw, &ph, &cl_format, &element);
        desc.image_width = pw;
        desc.image_height = ph;
        shared[p] = dx9_create(env, false, src, p, CL_MEM_READ_ONLY, &err);
        REQUIRE(err == CL_SUCCESS, "%s: shared source plane %u: %d", what, p, err);
        shared[planes + p] = dx9_create(env, false, dst, p, CL_MEM_WRITE_ONLY, &err);
        REQUIRE(err == CL_SUCCESS, "%s: shared destination plane %u: %d", what, p, err);
        ordinary[p] = clCreateImage(env->context, CL_MEM_READ_WRITE, &cl_format, &desc, NULL, &err);
        REQUIRE(err == CL_SUCCESS, "%s: ordinary image of plane %u: %d", what, p, err);
    }
    CHECK_ERR(dx9_acquire(env, false, 2 * planes, shared, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        UINT pw, ph;
        unsigned element;
        cl_image_format cl_format;
        size_t plane_bytes = dx9_plane_bytes(format->format, W, H, p);
        const size_t origin[3] = {0, 0, 0};
        cl_mem buffer = clCreateBuffer(env->context, CL_MEM_READ_WRITE, plane_bytes, NULL, &err);

        REQUIRE(err == CL_SUCCESS, "%s: buffer", what);
        dx9_plane_info(format->format, W, H, p, &pw, &ph, &cl_format, &element);
        size_t region[3] = {pw, ph, 1}, global[2] = {pw, ph};
        CHECK_ERR(clEnqueueCopyImage(env->queue, shared[p], ordinary[p], origin, origin, region, 0,
                                     NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &ordinary[p]), CL_SUCCESS);
        CHECK_ERR(clSetKernelArg(kernel, 1, sizeof(cl_mem), &shared[planes + p]), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(env->queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(clEnqueueCopyImageToBuffer(env->queue, ordinary[p], buffer, origin, region, 0, 0,
                                             NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(
            clEnqueueReadBuffer(env->queue, buffer, CL_TRUE, 0, plane_bytes, want, 0, NULL, NULL),
            CL_SUCCESS);
        dx9_same(want, in + dx9_plane_offset(format->format, W, H, p), plane_bytes, format->has_x,
                 what);
        clReleaseMemObject(buffer);
    }
    CHECK_ERR(dx9_release(env, false, 2 * planes, shared, NULL), CL_SUCCESS);
    CHECK_ERR(clFinish(env->queue), CL_SUCCESS);
    dx9_expected(in, want, bytes, format->cls, format->channel_size);
    REQUIRE(dx9_read(dst, out, false), "%s: read back", what);
    dx9_same(out, want, bytes, format->has_x, what);
    for (unsigned p = 0; p < planes; p++) {
        clReleaseMemObject(ordinary[p]);
        clReleaseMemObject(shared[p]);
        clReleaseMemObject(shared[planes + p]);
    }
    clReleaseKernel(kernel);
    IDirect3DSurface9_Release(src);
    IDirect3DSurface9_Release(dst);
    free(want);
    free(out);
    free(in);
}

/* clGetSupportedImageFormats on the DX9 media context lists every plane format. */
static void check_listed(struct dx9_env *env)
{
    cl_image_format list[512];
    cl_uint count = 0;

    CHECK_ERR(clGetSupportedImageFormats(env->context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                         512, list, &count),
              CL_SUCCESS);
    for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT + 2; f++)
        for (unsigned p = 0; p < dx9_plane_count(dx9_formats[f].format); p++) {
            UINT pw, ph;
            unsigned element;
            cl_image_format want;
            bool found = false;

            dx9_plane_info(dx9_formats[f].format, W, H, p, &pw, &ph, &want, &element);
            for (cl_uint i = 0; i < count && i < 512; i++)
                found |= list[i].image_channel_order == want.image_channel_order &&
                         list[i].image_channel_data_type == want.image_channel_data_type;
            CHECK(found, "%s plane %u: its CL format is listed", dx9_formats[f].name, p);
        }
}

int main(void)
{
    struct dx9_env env;

    dx9_open(&env, DX9_D3D9EX, false, DX9_NO_USER_SYNC);
    check_listed(&env);
    for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT + 2; f++)
        seam_case(&env, &dx9_formats[f], (uint32_t)(f * 7 + 3));
    dx9_close(&env);
    return test_finish("dx9_seams");
}
