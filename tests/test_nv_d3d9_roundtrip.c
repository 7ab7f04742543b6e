/* cl_nv_d3d9_sharing round trips on D3D9 and D3D9Ex devices: for every resource kind (vertex
 * and index buffers, offscreen and render-target surfaces, levels of dynamic and render-target
 * textures, faces and levels of cube textures, levels of volume textures), data Direct3D wrote
 * is what a kernel reads after acquire, and what the kernel writes is what Direct3D reads after
 * release, bit-exactly; the source is unchanged and the events carry NVIDIA's command types.
 * Then every format of NVIDIA's table the device can make as an offscreen surface, through a
 * kernel (UNORM 1 - x, FLOAT/HALF/SNORM -x). */
#include "nv_d3d9util.h"

#include <stdlib.h>

static const char source[] =
    "__kernel void invert2(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p));\n"
    "}\n"
    "__kernel void negate2(__read_only image2d_t src, __write_only image2d_t dst)\n"
    "{\n"
    "    int2 p = (int2)(get_global_id(0), get_global_id(1));\n"
    "    write_imagef(dst, p, -read_imagef(src, p));\n"
    "}\n"
    "__kernel void invert3(__read_only image3d_t src, __write_only image3d_t dst)\n"
    "{\n"
    "    int4 p = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n"
    "    write_imagef(dst, p, (float4)(1.0f) - read_imagef(src, p));\n"
    "}\n"
    "__kernel void not_bytes(__global const uchar *src, __global uchar *dst)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    dst[i] = (uchar)~src[i];\n"
    "}\n";

enum cls { C_UNORM, C_FLOAT, C_HALF, C_SNORM };

/* NVIDIA's table 9.13.4.1, with what the tests need to know of each format. */
static const struct nv_format {
    D3DFORMAT format;
    const char *name;
    unsigned bpp, channel_size;
    enum cls cls;
    bool has_x;
} formats[] = {
    {D3DFMT_R32F, "R32F", 4, 4, C_FLOAT, false},
    {D3DFMT_R16F, "R16F", 2, 2, C_HALF, false},
    {D3DFMT_L16, "L16", 2, 2, C_UNORM, false},
    {D3DFMT_A8, "A8", 1, 1, C_UNORM, false},
    {D3DFMT_L8, "L8", 1, 1, C_UNORM, false},
    {D3DFMT_G32R32F, "G32R32F", 8, 4, C_FLOAT, false},
    {D3DFMT_G16R16F, "G16R16F", 4, 2, C_HALF, false},
    {D3DFMT_G16R16, "G16R16", 4, 2, C_UNORM, false},
    {D3DFMT_V16U16, "V16U16", 4, 2, C_SNORM, false},
    {D3DFMT_A8L8, "A8L8", 2, 1, C_UNORM, false},
    {D3DFMT_V8U8, "V8U8", 2, 1, C_SNORM, false},
    {D3DFMT_A32B32G32R32F, "A32B32G32R32F", 16, 4, C_FLOAT, false},
    {D3DFMT_A16B16G16R16F, "A16B16G16R16F", 8, 2, C_HALF, false},
    {D3DFMT_A16B16G16R16, "A16B16G16R16", 8, 2, C_UNORM, false},
    {D3DFMT_Q16W16V16U16, "Q16W16V16U16", 8, 2, C_SNORM, false},
    {D3DFMT_A8B8G8R8, "A8B8G8R8", 4, 1, C_UNORM, false},
    {D3DFMT_X8B8G8R8, "X8B8G8R8", 4, 1, C_UNORM, true},
    {D3DFMT_A8R8G8B8, "A8R8G8B8", 4, 1, C_UNORM, false},
    {D3DFMT_X8R8G8B8, "X8R8G8B8", 4, 1, C_UNORM, true},
    {D3DFMT_Q8W8V8U8, "Q8W8V8U8", 4, 1, C_SNORM, false},
};

static void fill(const struct nv_format *f, void *data, size_t bytes, uint32_t seed)
{
    static const enum dx9_class classes[] = {DX9_UNORM, DX9_FLOAT, DX9_HALF, DX9_UNORM};

    dx9_fill(data, bytes, classes[f->cls], f->channel_size, seed);
}

/* The kernels' effect: UNORM max - v, FLOAT/HALF sign flip, SNORM -v (the most negative value
 * reads as -1.0 and becomes max). */
static void expected(const struct nv_format *f, const void *src, void *dst, size_t bytes)
{
    if (f->cls == C_UNORM) {
        dx9_expected(src, dst, bytes, DX9_UNORM, f->channel_size);
    } else if (f->cls != C_SNORM) {
        dx9_expected(src, dst, bytes, f->cls == C_FLOAT ? DX9_FLOAT : DX9_HALF, f->channel_size);
    } else if (f->channel_size == 1) {
        for (size_t i = 0; i < bytes; i++) {
            int8_t v = ((const int8_t *)src)[i];
            ((int8_t *)dst)[i] = v == -128 ? 127 : (int8_t)-v;
        }
    } else {
        for (size_t i = 0; i < bytes / 2; i++) {
            int16_t v = ((const int16_t *)src)[i];
            ((int16_t *)dst)[i] = v == -32768 ? 32767 : (int16_t)-v;
        }
    }
}

static void check_command(cl_event event, cl_command_type want, const char *what)
{
    cl_command_type type = 0;

    CHECK_ERR(clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    CHECK(type == want, "%s: event command type 0x%x, want 0x%x", what, type, want);
    clReleaseEvent(event);
}

struct rt {
    struct dx9_env *env;
    cl_program program;
    enum nv_kind kind;
    const struct nv_format *format;
    UINT width, height, depth, level;
    D3DCUBEMAP_FACES face;
    uint32_t seed;
};

static void run(const struct rt *c)
{
    const struct nv_format *f = c->format;
    bool buffer = nv_kind_is_buffer(c->kind);
    IUnknown *res[2];
    cl_mem mems[2] = {NULL, NULL};
    cl_event acquire_event = NULL, release_event = NULL;
    UINT w, h, d;
    HRESULT hr;
    cl_int err;
    char what[160];

    snprintf(what, sizeof(what), "%s %s %s level %u face %u", dx9_kind_name(c->env->kind),
             nv_kind_name(c->kind), f->name, c->level, (unsigned)c->face);
    nv_level_size(c->kind, c->width, c->height, c->depth, c->level, &w, &h, &d);
    size_t row = buffer ? w : (size_t)w * f->bpp, bytes = row * h * d;
    unsigned char *src = malloc(bytes), *dst = malloc(bytes), *want = malloc(bytes),
                  *got = malloc(bytes);
    REQUIRE(src && dst && want && got, "out of memory");
    fill(f, src, bytes, c->seed);
    fill(f, dst, bytes, c->seed + 99);
    for (int i = 0; i < 2; i++) {
        res[i] = nv_resource(c->env->d3d, c->kind, f->format, c->width, c->height, c->depth, &hr);
        REQUIRE(res[i] != NULL, "%s: resource not created: 0x%08lx", what, (unsigned long)hr);
        nv_write(res[i], c->kind, c->face, c->level, buffer ? 1 : f->bpp, i ? dst : src);
        mems[i] = nv_create(c->env, c->kind, res[i], c->face, c->level,
                            i ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY, &err);
        CHECK(err == CL_SUCCESS && mems[i], "%s: create %d: %d", what, i, err);
    }
    if (mems[0] && mems[1]) {
        const char *name = buffer                 ? "not_bytes"
                           : c->kind == NV_VOLUME ? "invert3"
                           : f->cls == C_UNORM    ? "invert2"
                                                  : "negate2";
        cl_kernel kernel = test_program_kernel(c->program, name);
        size_t global[3] = {buffer ? bytes : w, h, d};

        clSetKernelArg(kernel, 0, sizeof(cl_mem), &mems[0]);
        clSetKernelArg(kernel, 1, sizeof(cl_mem), &mems[1]);
        CHECK_ERR(nv.acquire(c->env->queue, 2, mems, 0, NULL, &acquire_event), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(c->env->queue, kernel,
                                         buffer                 ? 1
                                         : c->kind == NV_VOLUME ? 3
                                                                : 2,
                                         NULL, global, NULL, 0, NULL, NULL),
                  CL_SUCCESS);
        CHECK_ERR(nv.release(c->env->queue, 2, mems, 0, NULL, &release_event), CL_SUCCESS);
        CHECK_ERR(clFinish(c->env->queue), CL_SUCCESS);
        check_command(acquire_event, CL_COMMAND_ACQUIRE_D3D9_OBJECTS_NV, what);
        check_command(release_event, CL_COMMAND_RELEASE_D3D9_OBJECTS_NV, what);
        clReleaseKernel(kernel);
        if (buffer)
            for (size_t i = 0; i < bytes; i++)
                want[i] = (unsigned char)~src[i];
        else
            expected(f, src, want, bytes);
        if (nv_read(res[1], c->kind, c->face, c->level, buffer ? 1 : f->bpp, got))
            dx9_same(got, want, bytes, f->has_x, what);
        if (nv_read(res[0], c->kind, c->face, c->level, buffer ? 1 : f->bpp, got))
            dx9_same(got, src, bytes, f->has_x, what);
    }
    for (int i = 0; i < 2; i++) {
        if (mems[i])
            clReleaseMemObject(mems[i]);
        IUnknown_Release(res[i]);
    }
    free(src), free(dst), free(want), free(got);
}

static const struct nv_format *find(D3DFORMAT format)
{
    for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
        if (formats[i].format == format)
            return &formats[i];
    return NULL;
}

int main(void)
{
    /* kind, width, height, depth, level, face */
    static const struct {
        enum nv_kind kind;
        UINT width, height, depth, level;
        D3DCUBEMAP_FACES face;
    } cases[] = {
        {NV_VERTEX_BUFFER, 1000, 1, 1, 0, 0},
        {NV_INDEX_BUFFER, 512, 1, 1, 0, 0},
        {NV_SURFACE, 33, 7, 1, 0, 0},
        {NV_RT_SURFACE, 16, 8, 1, 0, 0},
        {NV_TEXTURE, 32, 16, 1, 0, 0},
        {NV_TEXTURE, 32, 16, 1, 1, 0},
        {NV_TEXTURE, 32, 16, 1, 2, 0},
        {NV_RT_TEXTURE, 16, 8, 1, 0, 0},
        {NV_CUBE, 16, 16, 1, 0, D3DCUBEMAP_FACE_POSITIVE_X},
        {NV_CUBE, 16, 16, 1, 1, D3DCUBEMAP_FACE_NEGATIVE_Y},
        {NV_RT_CUBE, 8, 8, 1, 0, D3DCUBEMAP_FACE_NEGATIVE_Z},
        {NV_VOLUME, 8, 4, 4, 0, 0},
        {NV_VOLUME, 8, 4, 4, 1, 0},
    };

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;
        cl_program program;
        uint32_t seed = 1;

        nv_open(&env, kind);
        program = test_program(env.context, env.device, source);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct rt c = {&env,           program,         cases[i].kind,  find(D3DFMT_A8R8G8B8),
                           cases[i].width, cases[i].height, cases[i].depth, cases[i].level,
                           cases[i].face,  seed++};
            run(&c);
        }
        for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
            HRESULT hr = dx9_check_format(env.d3d, formats[f].format, DX9_PLAIN);
            struct rt c = {&env, program, NV_SURFACE, &formats[f], 17, 9, 1, 0, 0, seed++};

            printf("%s %s as an offscreen surface: 0x%08lx\n", dx9_kind_name(kind), formats[f].name,
                   (unsigned long)hr);
            if (SUCCEEDED(hr))
                run(&c);
        }
        clReleaseProgram(program);
        dx9_close(&env);
    }
    return test_finish("nv_d3d9_roundtrip");
}
