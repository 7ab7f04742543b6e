/* Native test of src/formats/convert_kernels.c: every conversion kernel, built from dxcl's
 * program source and run on the host's OpenCL driver (PoCL here), against pixels.c's
 * conversions, bit for bit. It covers the layouts the Wine tests cannot reach on a driver
 * that lacks only CL_RG and a few CL_R formats (A in RGBA, BGRA in RGBA, any order in BGRA)
 * and random bits in every channel (NaN payloads, -128 of SNORM_INT8). */
#define CL_TARGET_OPENCL_VERSION 300
#include "formats/convert_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_check.h"

enum { W = 37, H = 5 }; /* odd sizes: no kernel may assume a multiple */

static cl_context context;
static cl_command_queue queue;
static cl_program program;

static bool open_driver(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;

    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return false;
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return false;
    queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    if (err != CL_SUCCESS)
        return false;
    {
        const char *source = dxcl_convert_program;
        program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    }
    if (err == CL_SUCCESS)
        err = clBuildProgram(program, 0, NULL, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
        fprintf(stderr, "the conversion program does not build (%d):\n%s\n", err, log);
        return false;
    }
    return true;
}

static void fill_random(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (unsigned char)(seed >> 16);
    }
}

/* Runs `name` from a buffer holding `in` to one of `out_bytes`, returning its result. */
static bool run(const char *name, const struct dxcl_convert_arg *args, unsigned count,
                const void *in, size_t in_bytes, void *out, size_t out_bytes)
{
    const size_t global[2] = {W, H};
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    cl_mem src = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_bytes,
                                (void *)in, &err);
    cl_mem dst = clCreateBuffer(context, CL_MEM_READ_WRITE, out_bytes, NULL, &err);
    bool ok = kernel && src && dst;

    ok = ok && clSetKernelArg(kernel, 0, sizeof(cl_mem), &src) == CL_SUCCESS;
    ok = ok && clSetKernelArg(kernel, 1, sizeof(cl_mem), &dst) == CL_SUCCESS;
    for (unsigned i = 0; i < count && ok; i++)
        ok = clSetKernelArg(kernel, 2 + i, args[i].size, args[i].bytes) == CL_SUCCESS;
    ok = ok &&
         clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL) == CL_SUCCESS;
    ok = ok &&
         clEnqueueReadBuffer(queue, dst, CL_TRUE, 0, out_bytes, out, 0, NULL, NULL) == CL_SUCCESS;
    if (kernel)
        clReleaseKernel(kernel);
    if (src)
        clReleaseMemObject(src);
    if (dst)
        clReleaseMemObject(dst);
    return ok;
}

static const cl_channel_order spec_orders[] = {CL_R,   CL_A,    CL_RG,   CL_RA,
                                               CL_RGB, CL_BGRA, CL_ARGB, CL_ABGR};
static const cl_channel_type types[] = {CL_UNORM_INT8,   CL_SNORM_INT8,     CL_SIGNED_INT8,
                                        CL_UNORM_INT16,  CL_HALF_FLOAT,     CL_UNSIGNED_INT16,
                                        CL_SIGNED_INT32, CL_UNSIGNED_INT32, CL_FLOAT};

static void test_layout(const cl_image_format *spec, const cl_image_format *backing,
                        const struct dxcl_layout *layout, unsigned seed)
{
    size_t sbytes = dxcl_element_size(spec) * W * H, bbytes = dxcl_element_size(backing) * W * H;
    unsigned char *in = malloc(bbytes), *want = malloc(bbytes), *got = malloc(bbytes);
    struct dxcl_convert_kernels k;
    struct dxcl_pixel_box sbox = {in, dxcl_element_size(spec) * W, sbytes};
    struct dxcl_pixel_box bbox = {want, dxcl_element_size(backing) * W, bbytes};

    dxcl_convert_kernels_for(layout, &k);
    /* Spec pixels into the backing layout. */
    fill_random(in, sbytes, seed);
    dxcl_pixels_to_backing(layout, &sbox, &bbox, W, H, 1);
    CHECK(run(k.to, k.to_args, k.to_count, in, sbytes, got, bbytes), "%s: not run", k.to);
    CHECK(!memcmp(got, want, bbytes), "%s (order %#x type %#x in %#x): differs from pixels.c", k.to,
          spec->image_channel_order, spec->image_channel_data_type, backing->image_channel_order);
    /* Random backing pixels back into the spec layout. */
    fill_random(in, bbytes, seed + 1);
    bbox = (struct dxcl_pixel_box){in, dxcl_element_size(backing) * W, bbytes};
    sbox = (struct dxcl_pixel_box){want, dxcl_element_size(spec) * W, sbytes};
    dxcl_pixels_from_backing(layout, &bbox, &sbox, W, H, 1);
    CHECK(run(k.from, k.from_args, k.from_count, in, bbytes, got, sbytes), "%s: not run", k.from);
    CHECK(!memcmp(got, want, sbytes), "%s (order %#x type %#x in %#x): differs from pixels.c",
          k.from, spec->image_channel_order, spec->image_channel_data_type,
          backing->image_channel_order);
    free(in);
    free(want);
    free(got);
}

int main(void)
{
    static const cl_channel_order backings[] = {CL_RGBA, CL_BGRA};
    unsigned layouts = 0, prefix = 0;

    if (!open_driver()) {
        fprintf(stderr, "convert_kernels: no OpenCL driver on the host, or the program fails\n");
        return 1;
    }
    for (size_t o = 0; o < sizeof(spec_orders) / sizeof(spec_orders[0]); o++)
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
            for (size_t b = 0; b < 2; b++) {
                cl_image_format spec = {spec_orders[o], types[t]};
                cl_image_format backing = {backings[b], types[t]};
                struct dxcl_layout layout;
                struct dxcl_convert_kernels k;

                if (!dxcl_layout_for(&spec, &backing, &layout) ||
                    dxcl_layout_is_identity(&layout) || !dxcl_convert_supported(&layout))
                    continue;
                dxcl_convert_kernels_for(&layout, &k);
                prefix += !strncmp(k.to, "to_prefix", 9);
                test_layout(&spec, &backing, &layout, (unsigned)(o * 97 + t * 13 + b));
                layouts++;
            }
    CHECK(layouts >= 100, "only %u layouts", layouts);
    printf("convert_kernels: %u layouts (%u by the prefix kernels), %d passed, %d failed\n",
           layouts, prefix, passed, failed);
    return failed ? 1 : 0;
}
