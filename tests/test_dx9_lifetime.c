/* Reference counts and lifetimes of cl_khr_dx9_media_sharing objects on D3D9 and D3D9Ex
 * devices: a memobj holds a reference on its surface until its last release; the planes of a
 * surface; acquire/release cycles and failed creations leave the counts alone; the surface
 * (and the context) released by the program before the memobj still work; in the end the
 * device and the surface are back where they started. */
#include "dx9util.h"

#include <stdlib.h>

static ULONG refs(void *object)
{
    return test_refcount((IUnknown *)object);
}

/* One memobj on each kind of surface: +1 on the surface while it lives, including retains. */
static void memobj_reference(struct dx9_env *env, D3DFORMAT format, enum dx9_surface_kind kind)
{
    ULONG device_before = refs(env->d3d);
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, format, kind);
    ULONG base = refs(surface), device_with_surface = refs(env->d3d);
    cl_int err;
    cl_mem mem = dx9_create(env, false, surface, 0, 0, &err);
    char what[160];

    snprintf(what, sizeof(what), "%s %s %s", dx9_kind_name(env->kind), dx9_format_name(format),
             dx9_surface_kind_name(kind));
    REQUIRE(err == CL_SUCCESS && mem, "%s: create: %d", what, err);
    printf("%s: the surface holds %ld device reference(s)\n", what,
           (long)device_with_surface - (long)device_before);
    CHECK(refs(surface) == base + 1, "%s: surface refcount %lu with a memobj, %lu before", what,
          (unsigned long)refs(surface), (unsigned long)base);
    CHECK_ERR(clRetainMemObject(mem), CL_SUCCESS);
    CHECK(refs(surface) == base + 1, "%s: surface refcount %lu after clRetainMemObject", what,
          (unsigned long)refs(surface));
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    CHECK(refs(surface) == base + 1, "%s: surface refcount %lu after one of two releases", what,
          (unsigned long)refs(surface));
    /* An acquire/release cycle changes nothing. */
    CHECK_ERR(dx9.acquire(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.release(env->queue, 1, &mem, 0, NULL, NULL), CL_SUCCESS);
    CHECK(refs(surface) == base + 1, "%s: surface refcount %lu after acquire/release", what,
          (unsigned long)refs(surface));
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    CHECK(refs(surface) == base, "%s: surface refcount %lu after the memobj, %lu before", what,
          (unsigned long)refs(surface), (unsigned long)base);
    CHECK(refs(env->d3d) == device_with_surface,
          "%s: device refcount %lu after the memobj, "
          "%lu before it",
          what, (unsigned long)refs(env->d3d), (unsigned long)device_with_surface);
    CHECK(IDirect3DSurface9_Release(surface) == 0, "%s: surface still referenced", what);
    CHECK(refs(env->d3d) == device_before,
          "%s: device refcount %lu at the end, %lu at the "
          "start",
          what, (unsigned long)refs(env->d3d), (unsigned long)device_before);
}

/* The planes of one surface keep it while any of them lives. */
static void planes_reference(struct dx9_env *env, D3DFORMAT format)
{
    const unsigned planes = dx9_plane_count(format);
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, format, DX9_PLAIN);
    ULONG base = refs(surface);
    cl_mem mems[3];
    cl_int err;

    for (unsigned p = 0; p < planes; p++) {
        mems[p] = dx9_create(env, false, surface, p, 0, &err);
        REQUIRE(err == CL_SUCCESS && mems[p], "create plane %u: %d", p, err);
        CHECK(refs(surface) > base, "%s plane %u: surface refcount %lu, %lu before",
              dx9_format_name(format), p, (unsigned long)refs(surface), (unsigned long)base);
    }
    CHECK_ERR(dx9.acquire(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    CHECK_ERR(dx9.release(env->queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        CHECK_ERR(clReleaseMemObject(mems[p]), CL_SUCCESS);
        if (p + 1 < planes)
            CHECK(refs(surface) > base, "%s: surface refcount %lu with %u planes left",
                  dx9_format_name(format), (unsigned long)refs(surface), planes - p - 1);
    }
    CHECK(refs(surface) == base, "%s: surface refcount %lu after every plane, %lu before",
          dx9_format_name(format), (unsigned long)refs(surface), (unsigned long)base);
    IDirect3DSurface9_Release(surface);
}

/* Failed creations take no reference. */
static void failed_creations(struct dx9_env *env)
{
    IDirect3DSurface9 *surface = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    IDirect3DSurface9 *sysmem = dx9_surface(env->d3d, 16, 8, DX9_FMT_NV12, DX9_SYSMEM);
    IDirect3DSurface9 *rgb565 = dx9_surface(env->d3d, 16, 8, D3DFMT_R5G6B5, DX9_PLAIN);
    ULONG base = refs(surface), device_base = refs(env->d3d);
    cl_int err;
    cl_mem mem;

    mem = dx9_create(env, false, surface, 2, 0, &err);
    CHECK(!mem && err == CL_INVALID_VALUE, "NV12 plane 2: %d", err);
    mem = dx9_create(env, false, surface, 0, CL_MEM_USE_HOST_PTR, &err);
    CHECK(!mem && err == CL_INVALID_VALUE, "CL_MEM_USE_HOST_PTR: %d", err);
    CHECK(refs(surface) == base, "surface refcount %lu after failed creations, %lu before",
          (unsigned long)refs(surface), (unsigned long)base);
    base = refs(sysmem);
    mem = dx9_create(env, false, sysmem, 0, 0, &err);
    CHECK(!mem && err == CL_INVALID_DX9_MEDIA_SURFACE_KHR, "SYSTEMMEM surface: %d", err);
    CHECK(refs(sysmem) == base, "SYSTEMMEM surface refcount changed by a failed creation");
    base = refs(rgb565);
    mem = dx9_create(env, false, rgb565, 0, 0, &err);
    CHECK(!mem && err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "R5G6B5 surface: %d", err);
    CHECK(refs(rgb565) == base, "R5G6B5 surface refcount changed by a failed creation");
    CHECK(refs(env->d3d) == device_base,
          "device refcount %lu after failed creations, %lu "
          "before",
          (unsigned long)refs(env->d3d), (unsigned long)device_base);
    IDirect3DSurface9_Release(surface);
    IDirect3DSurface9_Release(sysmem);
    IDirect3DSurface9_Release(rgb565);
}

/* The program releases the surface (and its context) first: the memobjs keep working, and
 * their release frees everything. */
static void surface_released_first(enum dx9_kind kind, enum dx9_surface_kind surface_kind,
                                   bool release_context)
{
    struct dx9_env env;
    const D3DFORMAT format = surface_kind == DX9_PLAIN ? DX9_FMT_NV12 : D3DFMT_A8R8G8B8;
    const unsigned planes = dx9_plane_count(format);
    const size_t bytes = dx9_content_bytes(format, 16, 8);
    const bool via_copy = surface_kind == DX9_RT;
    unsigned char *data = malloc(bytes), *got = malloc(bytes);
    IDirect3DSurface9 *surface, *check;
    ULONG device_start, left;
    cl_mem mems[2];
    cl_int err;
    char what[160];

    dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
    snprintf(what, sizeof(what), "%s %s released before its memobjs%s", dx9_kind_name(kind),
             dx9_surface_kind_name(surface_kind), release_context ? " (and the context)" : "");
    REQUIRE(data && got, "out of memory");
    device_start = refs(env.d3d);
    surface = dx9_surface(env.d3d, 16, 8, format, surface_kind);
    dx9_fill(data, bytes, DX9_UNORM, 1, 1234);
    REQUIRE(dx9_write(surface, data, via_copy), "%s: initial data", what);
    for (unsigned p = 0; p < planes; p++) {
        mems[p] = dx9_create(&env, false, surface, p, 0, &err);
        REQUIRE(err == CL_SUCCESS && mems[p], "%s: create plane %u: %d", what, p, err);
    }
    /* A second reference lets the test look at the surface afterwards; it is dropped before
     * the memobjs go, so the memobjs hold the last reference. */
    check = surface;
    IDirect3DSurface9_AddRef(check);
    left = IDirect3DSurface9_Release(surface);
    CHECK(left >= 2, "%s: %lu references after the program's release", what, (unsigned long)left);
    if (release_context) {
        CHECK_ERR(clReleaseContext(env.context), CL_SUCCESS);
        env.context = NULL;
    }

    CHECK_ERR(dx9.acquire(env.queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    for (unsigned p = 0; p < planes; p++) {
        size_t origin[3] = {0, 0, 0}, region[3] = {p ? 8 : 16, p ? 4 : 8, 1};
        size_t offset = dx9_plane_offset(format, 16, 8, p);
        size_t plane_bytes = dx9_plane_bytes(format, 16, 8, p);
        char label[200];

        CHECK_ERR(clEnqueueReadImage(env.queue, mems[p], CL_TRUE, origin, region, 0, 0,
                                     got + offset, 0, NULL, NULL),
                  CL_SUCCESS);
        snprintf(label, sizeof(label), "%s: plane %u read", what, p);
        dx9_same(got + offset, data + offset, plane_bytes, false, label);
        for (size_t i = 0; i < plane_bytes; i++)
            data[offset + i] ^= 0xff;
        CHECK_ERR(clEnqueueWriteImage(env.queue, mems[p], CL_TRUE, origin, region, 0, 0,
                                      data + offset, 0, NULL, NULL),
                  CL_SUCCESS);
    }
    CHECK_ERR(dx9.release(env.queue, planes, mems, 0, NULL, NULL), CL_SUCCESS);
    if (dx9_read(check, got, via_copy))
        dx9_same(got, data, bytes, false, what);

    IDirect3DSurface9_Release(check); /* now only the memobjs hold the surface */
    for (unsigned p = 0; p < planes; p++)
        CHECK_ERR(clReleaseMemObject(mems[p]), CL_SUCCESS);
    if (!release_context) {
        CHECK(refs(env.d3d) == device_start, "%s: device refcount %lu, %lu before the surface",
              what, (unsigned long)refs(env.d3d), (unsigned long)device_start);
        dx9_close(&env);
    } else {
        /* The queue holds the context; with it gone the context's device reference goes
         * (whether it goes before the queue is the driver's business). */
        CHECK_ERR(clReleaseCommandQueue(env.queue), CL_SUCCESS);
        CHECK(refs(env.d3d) == device_start - 1,
              "%s: device refcount %lu after the memobjs "
              "and the queue, want %lu (the context's reference gone)",
              what, (unsigned long)refs(env.d3d), (unsigned long)device_start - 1);
        left = dx9_release_device(env.d3d);
        CHECK(left == 0, "%s: device has %lu references left", what, (unsigned long)left);
    }
    free(data);
    free(got);
}

int main(void)
{
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;
        ULONG device_start;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        device_start = refs(env.d3d);
        memobj_reference(&env, DX9_FMT_NV12, DX9_PLAIN);
        memobj_reference(&env, DX9_FMT_YV12, DX9_PLAIN);
        memobj_reference(&env, D3DFMT_A8R8G8B8, DX9_PLAIN);
        memobj_reference(&env, D3DFMT_A8R8G8B8, DX9_RT);
        memobj_reference(&env, D3DFMT_R32F, DX9_RT_LOCKABLE);
        planes_reference(&env, DX9_FMT_NV12);
        planes_reference(&env, DX9_FMT_YV12);
        failed_creations(&env);
        CHECK(refs(env.d3d) == device_start,
              "%s: device refcount %lu at the end, %lu at the "
              "start",
              dx9_kind_name(kind), (unsigned long)refs(env.d3d), (unsigned long)device_start);
        dx9_close(&env);

        surface_released_first(kind, DX9_PLAIN, false);
        surface_released_first(kind, DX9_PLAIN, true);
        surface_released_first(kind, DX9_RT, false);
        surface_released_first(kind, DX9_RT, true);
    }
    return test_finish("dx9_lifetime");
}
