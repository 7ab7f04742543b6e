/* ff_common.h: what the FFmpeg hwcontext checks share (one line a check, the known pictures,
 * the OpenCL side: the derived context, a queue of its own and the invert kernel). */
#ifndef FF_COMMON_H
#define FF_COMMON_H
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include <CL/cl.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_opencl.h>
#include <libavutil/log.h>

/* Frames in each program's pool: a DXVA2 surface pool or one D3D11 texture array. */
#define POOL_SIZE 4

static const char *check_program;

static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", ok ? "PASS" : "FAIL");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    if (ok)
        passed++;
    else
        failed++;
}

static int finish(int code)
{
    printf("%s: %d passed, %d failed\n", check_program, passed, failed);
    fflush(stdout);
    return code ? code : failed ? 1 : 0;
}

static void log_callback(void *avcl, int level, const char *fmt, va_list ap)
{
    (void)avcl;
    if (level > av_log_get_level())
        return;
    printf("  ffmpeg: ");
    vprintf(fmt, ap);
    fflush(stdout);
}

static const char *av_error(int err)
{
    static char text[AV_ERROR_MAX_STRING_SIZE];
    return av_make_error_string(text, sizeof(text), err);
}

/* The known picture of frame f: Y and interleaved UV, each byte a function of place and frame. */
static uint8_t picture_y(int f, int x, int y)
{
    return (uint8_t)(x * 3 + y * 5 + f * 7);
}
static uint8_t picture_uv(int f, int x, int y, int c)
{
    return c ? (uint8_t)(x + y * 7 + f * 17 + 128) : (uint8_t)(x * 11 + y + f * 13);
}

/* Counts the bytes of a plane (rows of row_bytes at pitch) that differ from the picture,
 * inverted or not; the first mismatch goes to *where. */
static long count_mismatches(const uint8_t *data, size_t pitch, int f, int plane, int w, int h,
                             int inverted, char *where, size_t where_size)
{
    long bad = 0;
    int cols = plane ? w / 2 : w, rows = plane ? h / 2 : h;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++)
            for (int c = 0; c < (plane ? 2 : 1); c++) {
                uint8_t want = plane ? picture_uv(f, x, y, c) : picture_y(f, x, y);
                uint8_t got = data[y * pitch + (size_t)x * (plane ? 2 : 1) + c];
                if (inverted)
                    want = (uint8_t)(255 - want);
                if (got != want && bad++ == 0)
                    snprintf(where, where_size, " (first at x=%d y=%d c=%d: %u, expected %u)", x, y,
                             c, got, want);
            }
    return bad;
}

static const char *kernel_source =
    "__kernel void invert(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p));\n"
    "}\n";

typedef struct {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_kernel kernel;
    cl_program program;
    cl_mem scratch[2]; /* ordinary images of the planes' formats: the kernel's source */
} Opencl;

static int describe_opencl(AVHWDeviceContext *cl_dev, Opencl *cl)
{
    AVOpenCLDeviceContext *hw = cl_dev->hwctx;
    char name[256] = "", version[128] = "", extensions[8192] = "";
    cl_platform_id platform;
    cl_device_type type = 0;
    cl_int err;

    cl->context = hw->context;
    cl->device = hw->device_id;
    clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof(name), name, NULL);
    clGetDeviceInfo(cl->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
    clGetDeviceInfo(cl->device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(version), version, NULL);
    clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(extensions), extensions, NULL);
    printf("OpenCL device: %s (%s), platform %s; cl_intel_d3d11_nv12_media_sharing %s\n", name,
           type & CL_DEVICE_TYPE_GPU   ? "GPU"
           : type & CL_DEVICE_TYPE_CPU ? "CPU"
                                       : "other",
           version,
           strstr(extensions, "cl_intel_d3d11_nv12_media_sharing") ? "listed" : "NOT listed");
    cl->queue = clCreateCommandQueue(cl->context, cl->device, 0, &err);
    if (!cl->queue) {
        printf("clCreateCommandQueue: %d\n", err);
        return -1;
    }
    cl->program = clCreateProgramWithSource(cl->context, 1, &kernel_source, NULL, &err);
    if (!cl->program || clBuildProgram(cl->program, 1, &cl->device, "", NULL, NULL) != CL_SUCCESS) {
        printf("the invert kernel did not build\n");
        return -1;
    }
    cl->kernel = clCreateKernel(cl->program, "invert", &err);
    return cl->kernel ? 0 : -1;
}

static int make_scratch(Opencl *cl, const AVFrame *mapped)
{
    for (int p = 0; p < 2; p++) {
        cl_image_format format;
        size_t width, height;
        cl_int err;
        clGetImageInfo((cl_mem)mapped->data[p], CL_IMAGE_FORMAT, sizeof(format), &format, NULL);
        clGetImageInfo((cl_mem)mapped->data[p], CL_IMAGE_WIDTH, sizeof(width), &width, NULL);
        clGetImageInfo((cl_mem)mapped->data[p], CL_IMAGE_HEIGHT, sizeof(height), &height, NULL);
        cl_image_desc desc = {
            .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = width, .image_height = height};
        cl->scratch[p] = clCreateImage(cl->context, CL_MEM_READ_WRITE, &format, &desc, NULL, &err);
        if (!cl->scratch[p]) {
            printf("scratch image of plane %d: %d\n", p, err);
            return -1;
        }
    }
    return 0;
}

/* Reads both mapped planes through OpenCL and checks them against the picture. */
static void check_planes_in_opencl(Opencl *cl, const AVFrame *mapped, int f, int w, int h,
                                   int inverted, uint8_t *buffer)
{
    for (int p = 0; p < 2; p++) {
        size_t origin[3] = {0, 0, 0};
        size_t region[3] = {(size_t)(p ? w / 2 : w), (size_t)(p ? h / 2 : h), 1};
        size_t pitch = (size_t)w;
        char where[128] = "";
        cl_int err = clEnqueueReadImage(cl->queue, (cl_mem)mapped->data[p], CL_TRUE, origin, region,
                                        pitch, 0, buffer, 0, NULL, NULL);
        long bad =
            err ? -1 : count_mismatches(buffer, pitch, f, p, w, h, inverted, where, sizeof(where));
        check(err == CL_SUCCESS && bad == 0,
              "frame %d %s plane read through OpenCL%s: clEnqueueReadImage %d, %ld bytes differ%s",
              f, p ? "UV" : "Y", inverted ? " after the kernel" : "", err, bad, where);
    }
}

/* Each plane: copied into an ordinary image, inverted by the kernel into the mapped image. */
static void invert_planes(Opencl *cl, const AVFrame *mapped, int f, int w, int h)
{
    for (int p = 0; p < 2; p++) {
        cl_mem plane = (cl_mem)mapped->data[p];
        size_t origin[3] = {0, 0, 0};
        size_t region[3] = {(size_t)(p ? w / 2 : w), (size_t)(p ? h / 2 : h), 1};
        cl_int err = clEnqueueCopyImage(cl->queue, plane, cl->scratch[p], origin, origin, region, 0,
                                        NULL, NULL);
        cl_int arg0 = clSetKernelArg(cl->kernel, 0, sizeof(cl_mem), &cl->scratch[p]);
        cl_int arg1 = clSetKernelArg(cl->kernel, 1, sizeof(cl_mem), &plane);
        cl_int run =
            clEnqueueNDRangeKernel(cl->queue, cl->kernel, 2, NULL, region, NULL, 0, NULL, NULL);
        cl_int done = clFinish(cl->queue);
        check(!err && !arg0 && !arg1 && !run && !done,
              "frame %d %s plane inverted by a kernel into the mapped image: copy %d, args %d/%d, "
              "kernel %d, finish %d",
              f, p ? "UV" : "Y", err, arg0, arg1, run, done);
    }
}

/* The rate of the map against the program's own copies (FF_RATE_FRAMES=N, default none): N
 * frames of the pool mapped to OpenCL (read and write, hwmap's default), both planes read by
 * the kernel into ordinary images, unmapped: FFmpeg's `hwmap=derive_device=opencl` followed by
 * an OpenCL filter. Then N frames by hand: downloaded from Direct3D (av_hwframe_transfer_data),
 * written into OpenCL images, the same kernel. Both after a few frames of warm-up; wall time,
 * one line. The checked frames before it hold the contents. */
static double now_ms(void)
{
    LARGE_INTEGER count, freq;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&freq);
    return (double)count.QuadPart * 1000.0 / (double)freq.QuadPart;
}

/* The kernel from `from[p]` into `to[p]` for both planes, queued (no wait). */
static int invert_queued(Opencl *cl, cl_mem from[2], cl_mem to[2], int w, int h)
{
    for (int p = 0; p < 2; p++) {
        size_t region[2] = {(size_t)(p ? w / 2 : w), (size_t)(p ? h / 2 : h)};
        if (clSetKernelArg(cl->kernel, 0, sizeof(cl_mem), &from[p]) ||
            clSetKernelArg(cl->kernel, 1, sizeof(cl_mem), &to[p]) ||
            clEnqueueNDRangeKernel(cl->queue, cl->kernel, 2, NULL, region, NULL, 0, NULL, NULL))
            return -1;
    }
    return 0;
}

static int mapped_frame(Opencl *cl, AVBufferRef *cl_frames, AVFrame *hw, cl_mem out[2], int w,
                        int h)
{
    AVFrame *mapped = av_frame_alloc();
    cl_mem planes[2];
    int err;

    mapped->format = AV_PIX_FMT_OPENCL;
    mapped->hw_frames_ctx = av_buffer_ref(cl_frames);
    err = av_hwframe_map(mapped, hw, AV_HWFRAME_MAP_READ | AV_HWFRAME_MAP_WRITE);
    if (!err) {
        planes[0] = (cl_mem)mapped->data[0];
        planes[1] = (cl_mem)mapped->data[1];
        err = invert_queued(cl, planes, out, w, h) || clFinish(cl->queue);
    }
    av_frame_free(&mapped); /* unmap: FFmpeg releases the planes and waits */
    return err;
}

static int by_hand_frame(Opencl *cl, AVFrame *hw, AVFrame *sw, cl_mem out[2], int w, int h)
{
    int err = av_hwframe_transfer_data(sw, hw, 0);
    for (int p = 0; p < 2 && !err; p++) {
        size_t origin[3] = {0, 0, 0};
        size_t region[3] = {(size_t)(p ? w / 2 : w), (size_t)(p ? h / 2 : h), 1};
        err = clEnqueueWriteImage(cl->queue, cl->scratch[p], CL_FALSE, origin, region,
                                  (size_t)sw->linesize[p], 0, sw->data[p], 0, NULL, NULL);
    }
    if (!err)
        err = invert_queued(cl, cl->scratch, out, w, h);
    if (!err)
        err = clFinish(cl->queue);
    return err;
}

static void time_rates(Opencl *cl, AVBufferRef *cl_frames, AVFrame **hw, int w, int h)
{
    const char *setting = getenv("FF_RATE_FRAMES");
    int frames = setting ? atoi(setting) : 0, warm = 4, bad = 0;
    AVFrame *sw;
    cl_mem out[2] = {NULL, NULL};
    double start = 0, mapped_ms, by_hand_ms;

    if (frames <= 0 || !cl->scratch[0])
        return;
    sw = av_frame_alloc();
    sw->format = AV_PIX_FMT_NV12;
    sw->width = w;
    sw->height = h;
    bad += av_frame_get_buffer(sw, 0) != 0;
    for (int p = 0; p < 2; p++) {
        cl_image_format format;
        cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D,
                              .image_width = (size_t)(p ? w / 2 : w),
                              .image_height = (size_t)(p ? h / 2 : h)};
        clGetImageInfo(cl->scratch[p], CL_IMAGE_FORMAT, sizeof(format), &format, NULL);
        out[p] = clCreateImage(cl->context, CL_MEM_READ_WRITE, &format, &desc, NULL, NULL);
        bad += !out[p];
    }
    for (int i = 0; i < frames + warm && !bad; i++) {
        if (i == warm)
            start = now_ms();
        bad += mapped_frame(cl, cl_frames, hw[i % POOL_SIZE], out, w, h) != 0;
    }
    mapped_ms = (now_ms() - start) / frames;
    for (int i = 0; i < frames + warm && !bad; i++) {
        if (i == warm)
            start = now_ms();
        bad += by_hand_frame(cl, hw[i % POOL_SIZE], sw, out, w, h) != 0;
    }
    by_hand_ms = (now_ms() - start) / frames;
    for (int p = 0; p < 2; p++)
        if (out[p])
            clReleaseMemObject(out[p]);
    av_frame_free(&sw);
    check(!bad,
          "rate over %d frames %dx%d: mapped (map, kernel, unmap) %.3f ms/frame (%.0f fps); by "
          "hand (download, write, kernel) %.3f ms/frame (%.0f fps); mapped / by hand %.3f",
          frames, w, h, mapped_ms, 1000.0 / mapped_ms, by_hand_ms, 1000.0 / by_hand_ms,
          mapped_ms / by_hand_ms);
}

/* One frame of the pool through OpenCL: each program's own (its frames are surfaces or slices). */
typedef void (*run_frame_fn)(Opencl *cl, AVBufferRef *cl_frames, AVFrame *hw, int f, int w, int h,
                             uint8_t *buffer);

/* The derived frames in use: `frames` frames run over the pool of `d3d_frames`, then every
 * object goes (the frames, the OpenCL objects, the contexts). The program's exit code: 6 when a
 * frame of the pool could not be had, else finish's. */
static int run_pool(Opencl *cl, AVBufferRef *d3d_dev, AVBufferRef *cl_dev, AVBufferRef *d3d_frames,
                    AVBufferRef *cl_frames, int frames, int w, int h, run_frame_fn run_frame)
{
    AVFrame *hw[POOL_SIZE] = {0};
    uint8_t *buffer;
    int err;

    for (int i = 0; i < POOL_SIZE; i++) {
        hw[i] = av_frame_alloc();
        err = av_hwframe_get_buffer(d3d_frames, hw[i], 0);
        if (err) {
            check(0, "frame %d of the pool: %s", i, av_error(err));
            return finish(6);
        }
    }
    buffer = malloc((size_t)w * h);
    for (int f = 0; f < frames; f++)
        run_frame(cl, cl_frames, hw[f % POOL_SIZE], f, w, h, buffer);
    free(buffer);
    time_rates(cl, cl_frames, hw, w, h);

    for (int i = 0; i < POOL_SIZE; i++)
        av_frame_free(&hw[i]);
    for (int p = 0; p < 2; p++)
        if (cl->scratch[p])
            clReleaseMemObject(cl->scratch[p]);
    clReleaseKernel(cl->kernel);
    clReleaseProgram(cl->program);
    clReleaseCommandQueue(cl->queue);
    av_buffer_unref(&cl_frames);
    av_buffer_unref(&d3d_frames);
    av_buffer_unref(&cl_dev);
    av_buffer_unref(&d3d_dev);
    return finish(0);
}

#endif
