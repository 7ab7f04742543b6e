/* Contexts of cl_khr_dx9_media_sharing (CL_CONTEXT_ADAPTER_D3D9_KHR / _D3D9EX_KHR / _DXVA_KHR)
 * and cl_intel_dx9_media_sharing (CL_CONTEXT_D3D9_DEVICE_INTEL / _D3D9EX_ / _DXVA_) on real
 * D3D9 and D3D9Ex devices: creation with clCreateContext and clCreateContextFromType,
 * CL_CONTEXT_PROPERTIES returned unchanged, the device reference held while the context
 * lives (and while a memory object keeps it), and every error. */
#include "dx9util.h"

#include <d3d10.h>
#include <CL/cl_d3d10.h>
#include <CL/cl_d3d11.h>

static cl_platform_id platform;
static cl_device_id device;

static cl_context create(const cl_context_properties *props, bool from_type, cl_int *err)
{
    if (from_type)
        return clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, err);
    return clCreateContext(props, 1, &device, NULL, NULL, err);
}

static void check_properties(cl_context context, const cl_context_properties *props, size_t count,
                             const char *what)
{
    cl_context_properties got[16];
    size_t size = 0;

    memset(got, 0xab, sizeof(got));
    CHECK_ERR(clGetContextInfo(context, CL_CONTEXT_PROPERTIES, sizeof(got), got, &size),
              CL_SUCCESS);
    CHECK(size == count * sizeof(*props), "%s: CL_CONTEXT_PROPERTIES size %zu, want %zu", what,
          size, count * sizeof(*props));
    CHECK(size == count * sizeof(*props) && !memcmp(got, props, size),
          "%s: CL_CONTEXT_PROPERTIES differ from the list given", what);
}

/* A context on the device: created, its properties, the reference it holds. */
static void good_context(IDirect3DDevice9 *d3d, cl_context_properties property, int user_sync,
                         bool from_type, const char *name)
{
    cl_context_properties props[7] = {0};
    size_t count = 0;
    ULONG before = test_refcount((IUnknown *)d3d), now;
    cl_context context;
    cl_int err = -1;
    char what[200];

    /* PoCL's clCreateContextFromType wants the platform named. */
    if (from_type) {
        props[count++] = CL_CONTEXT_PLATFORM;
        props[count++] = (cl_context_properties)platform;
    }
    props[count++] = property;
    props[count++] = (cl_context_properties)d3d;
    if (user_sync != DX9_NO_USER_SYNC) {
        props[count++] = CL_CONTEXT_INTEROP_USER_SYNC;
        props[count++] = user_sync;
    }
    props[count++] = 0;
    snprintf(what, sizeof(what), "%s%s%s", name,
             user_sync == DX9_NO_USER_SYNC ? ""
             : user_sync                   ? " + USER_SYNC TRUE"
                                           : " + USER_SYNC FALSE",
             from_type ? " (clCreateContextFromType)" : "");
    context = create(props, from_type, &err);
    CHECK(err == CL_SUCCESS && context, "%s: create: %d", what, err);
    if (!context)
        return;
    check_properties(context, props, count, what);
    now = test_refcount((IUnknown *)d3d);
    CHECK(now == before + 1, "%s: device refcount %lu with the context, %lu before", what,
          (unsigned long)now, (unsigned long)before);
    CHECK_ERR(clRetainContext(context), CL_SUCCESS);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    now = test_refcount((IUnknown *)d3d);
    CHECK(now == before + 1, "%s: device refcount %lu after retain/release, want %lu", what,
          (unsigned long)now, (unsigned long)before + 1);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    now = test_refcount((IUnknown *)d3d);
    CHECK(now == before, "%s: device refcount %lu after the context, %lu before", what,
          (unsigned long)now, (unsigned long)before);
}

/* The context's device reference outlives clReleaseContext while a memory object of the
 * context exists, and goes with the object. */
static void reference_kept_by_memobj(IDirect3DDevice9 *d3d, enum dx9_kind kind)
{
    cl_context_properties props[] = {dx9_khr_property(kind), (cl_context_properties)d3d, 0};
    IDirect3DSurface9 *surface = dx9_surface(d3d, 16, 8, DX9_FMT_NV12, DX9_PLAIN);
    cl_dx9_surface_info_khr info = {surface, NULL};
    ULONG before = test_refcount((IUnknown *)d3d), now;
    cl_context context;
    cl_mem mem;
    cl_int err;

    context = clCreateContext(props, 1, &device, NULL, NULL, &err);
    REQUIRE(err == CL_SUCCESS, "%s context: %d", dx9_kind_name(kind), err);
    mem = dx9.create(context, 0, dx9_adapter_type(kind), &info, 0, &err);
    REQUIRE(err == CL_SUCCESS && mem, "create: %d", err);
    CHECK_ERR(clReleaseContext(context), CL_SUCCESS);
    now = test_refcount((IUnknown *)d3d);
    CHECK(now > before,
          "%s: device refcount %lu after clReleaseContext with a live memobj, "
          "%lu before the context",
          dx9_kind_name(kind), (unsigned long)now, (unsigned long)before);
    CHECK_ERR(clReleaseMemObject(mem), CL_SUCCESS);
    now = test_refcount((IUnknown *)d3d);
    CHECK(now == before, "%s: device refcount %lu after the memobj, %lu before the context",
          dx9_kind_name(kind), (unsigned long)now, (unsigned long)before);
    IDirect3DSurface9_Release(surface);
}

static void expect_error(const cl_context_properties *props, cl_int want, IUnknown *watched,
                         const char *what)
{
    for (int from_type = 0; from_type < 2; from_type++) {
        ULONG before = watched ? test_refcount(watched) : 0;
        cl_context_properties list[16] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform};
        size_t n = 0;
        cl_int err = CL_SUCCESS;
        cl_context context;

        while (props[n] && n < 12)
            n += 2;
        memcpy(list + 2, props, (n + 1) * sizeof(*props));
        context = create(from_type ? list : props, from_type, &err);

        CHECK(err == want && !context, "%s%s: got %d (context %p), want %d", what,
              from_type ? " (clCreateContextFromType)" : "", err, (void *)context, want);
        if (context)
            clReleaseContext(context);
        if (watched)
            CHECK(test_refcount(watched) == before,
                  "%s: a failed creation changed the device "
                  "refcount",
                  what);
    }
}

static ID3D10Device *d3d10_device(void)
{
    ID3D10Device *d3d10 = NULL;
    HRESULT hr =
        D3D10CreateDevice(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_SDK_VERSION, &d3d10);

    REQUIRE(SUCCEEDED(hr) && d3d10, "D3D10CreateDevice: 0x%08lx", (unsigned long)hr);
    return d3d10;
}

static void errors(IDirect3DDevice9 *dev9, IDirect3DDevice9 *dev9ex)
{
    IDirect3DSurface9 *surface = dx9_surface(dev9, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
    ID3D11Device *d3d11 = test_d3d11_device(NULL);
    ID3D10Device *d3d10 = d3d10_device();
    IDirect3DDevice9 *devs[2] = {dev9, dev9ex};
    int not_a_device = 42;
    char what[200];

    /* Values that are not adapters of the property's type. */
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        const cl_context_properties names[2] = {dx9_khr_property(kind), dx9_intel_property(kind)};
        for (int n = 0; n < 2; n++) {
            const char *spelling = n ? "Intel" : "KHR";
            cl_context_properties props[] = {names[n], (cl_context_properties)&not_a_device, 0};

            snprintf(what, sizeof(what), "%s %s property: pointer to an int", spelling,
                     dx9_kind_name(kind));
            expect_error(props, CL_INVALID_DX9_MEDIA_ADAPTER_KHR, NULL, what);
            props[1] = (cl_context_properties)surface;
            snprintf(what, sizeof(what), "%s %s property: a surface", spelling,
                     dx9_kind_name(kind));
            expect_error(props, n ? CL_INVALID_DX9_DEVICE_INTEL : CL_INVALID_DX9_MEDIA_ADAPTER_KHR,
                         (IUnknown *)surface, what);
            props[1] = (cl_context_properties)d3d11;
            snprintf(what, sizeof(what), "%s %s property: a D3D11 device", spelling,
                     dx9_kind_name(kind));
            expect_error(props, CL_INVALID_DX9_MEDIA_ADAPTER_KHR, (IUnknown *)d3d11, what);
        }
    }
    /* A plain D3D9 device is no IDirect3DDevice9Ex. */
    {
        cl_context_properties props[] = {CL_CONTEXT_ADAPTER_D3D9EX_KHR, (cl_context_properties)dev9,
                                         0};
        expect_error(props, CL_INVALID_DX9_MEDIA_ADAPTER_KHR, (IUnknown *)dev9,
                     "CL_CONTEXT_ADAPTER_D3D9EX_KHR with a D3D9 device");
        props[0] = CL_CONTEXT_D3D9EX_DEVICE_INTEL;
        expect_error(props, CL_INVALID_DX9_DEVICE_INTEL, (IUnknown *)dev9,
                     "CL_CONTEXT_D3D9EX_DEVICE_INTEL with a D3D9 device");
    }
    /* DXVA: no IDXVAHD_Device can be made under Wine; a D3D9Ex device is not one. */
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        cl_context_properties props[] = {CL_CONTEXT_ADAPTER_DXVA_KHR,
                                         (cl_context_properties)devs[kind], 0};
        snprintf(what, sizeof(what), "CL_CONTEXT_ADAPTER_DXVA_KHR with a %s device",
                 dx9_kind_name(kind));
        expect_error(props, CL_INVALID_DX9_MEDIA_ADAPTER_KHR, (IUnknown *)devs[kind], what);
        props[0] = CL_CONTEXT_DXVA_DEVICE_INTEL;
        snprintf(what, sizeof(what), "CL_CONTEXT_DXVA_DEVICE_INTEL with a %s device",
                 dx9_kind_name(kind));
        expect_error(props, CL_INVALID_DX9_DEVICE_INTEL, (IUnknown *)devs[kind], what);
        props[1] = (cl_context_properties)&not_a_device;
        expect_error(props, CL_INVALID_DX9_DEVICE_INTEL, NULL,
                     "CL_CONTEXT_DXVA_DEVICE_INTEL with a pointer to an int");
    }
    /* DX9 interop with another graphics API, either order: CL_INVALID_OPERATION. */
    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        const struct {
            cl_context_properties name;
            void *value;
            const char *label;
        } others[] = {
            {CL_CONTEXT_D3D11_DEVICE_KHR, d3d11, "CL_CONTEXT_D3D11_DEVICE_KHR"},
            {CL_CONTEXT_D3D10_DEVICE_KHR, d3d10, "CL_CONTEXT_D3D10_DEVICE_KHR"},
            {CL_GL_CONTEXT_KHR, &not_a_device, "CL_GL_CONTEXT_KHR"},
        };
        for (size_t o = 0; o < sizeof(others) / sizeof(others[0]); o++) {
            cl_context_properties first[] = {dx9_khr_property(kind),
                                             (cl_context_properties)devs[kind], others[o].name,
                                             (cl_context_properties)others[o].value, 0};
            cl_context_properties second[] = {
                others[o].name, (cl_context_properties)others[o].value, dx9_intel_property(kind),
                (cl_context_properties)devs[kind], 0};
            snprintf(what, sizeof(what), "KHR %s adapter then %s", dx9_kind_name(kind),
                     others[o].label);
            expect_error(first, CL_INVALID_OPERATION, (IUnknown *)devs[kind], what);
            snprintf(what, sizeof(what), "%s then Intel %s device", others[o].label,
                     dx9_kind_name(kind));
            expect_error(second, CL_INVALID_OPERATION, (IUnknown *)devs[kind], what);
        }
    }
    /* Two DX9 adapters: CL_INVALID_OPERATION. */
    {
        cl_context_properties two[] = {CL_CONTEXT_ADAPTER_D3D9_KHR, (cl_context_properties)dev9,
                                       CL_CONTEXT_ADAPTER_D3D9EX_KHR, (cl_context_properties)dev9ex,
                                       0};
        expect_error(two, CL_INVALID_OPERATION, (IUnknown *)dev9, "D3D9 and D3D9Ex adapters");
        two[2] = CL_CONTEXT_D3D9_DEVICE_INTEL;
        two[3] = (cl_context_properties)dev9;
        expect_error(two, CL_INVALID_OPERATION, (IUnknown *)dev9,
                     "the same D3D9 device as KHR and Intel property");
        two[0] = CL_CONTEXT_D3D9EX_DEVICE_INTEL;
        two[1] = (cl_context_properties)dev9ex;
        two[2] = CL_CONTEXT_ADAPTER_D3D9_KHR;
        expect_error(two, CL_INVALID_OPERATION, (IUnknown *)dev9ex,
                     "Intel D3D9Ex and KHR D3D9 adapters");
    }
    /* Generic property errors still apply. */
    {
        cl_context_properties twice[] = {CL_CONTEXT_ADAPTER_D3D9_KHR, (cl_context_properties)dev9,
                                         CL_CONTEXT_ADAPTER_D3D9_KHR, (cl_context_properties)dev9,
                                         0};
        expect_error(twice, CL_INVALID_PROPERTY, (IUnknown *)dev9,
                     "CL_CONTEXT_ADAPTER_D3D9_KHR given twice");
        cl_context_properties sync[] = {CL_CONTEXT_ADAPTER_D3D9_KHR, (cl_context_properties)dev9,
                                        CL_CONTEXT_INTEROP_USER_SYNC, 5, 0};
        expect_error(sync, CL_INVALID_PROPERTY, (IUnknown *)dev9,
                     "CL_CONTEXT_INTEROP_USER_SYNC = 5 with a D3D9 adapter");
    }
    IDirect3DSurface9_Release(surface);
    ID3D11Device_Release(d3d11);
    ID3D10Device_Release(d3d10);
}

/* A NULL adapter is the property's default: a context without DX9 interop. */
static void null_adapter(void)
{
    cl_context_properties props[] = {CL_CONTEXT_ADAPTER_D3D9EX_KHR, 0, 0};
    cl_int err;
    cl_context context = clCreateContext(props, 1, &device, NULL, NULL, &err);

    CHECK(err == CL_SUCCESS && context, "CL_CONTEXT_ADAPTER_D3D9EX_KHR = NULL: %d", err);
    if (context) {
        check_properties(context, props, 3, "NULL adapter");
        clReleaseContext(context);
    }
}

int main(void)
{
    IDirect3DDevice9 *devs[2];

    platform = test_platform();
    device = test_device(platform);
    dx9_load(platform);
    devs[DX9_D3D9] = dx9_device(DX9_D3D9);
    devs[DX9_D3D9EX] = dx9_device(DX9_D3D9EX);

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        const struct {
            cl_context_properties property;
            const char *name;
        } spellings[] = {
            {dx9_khr_property(kind),
             kind ? "CL_CONTEXT_ADAPTER_D3D9EX_KHR" : "CL_CONTEXT_ADAPTER_D3D9_KHR"},
            {dx9_intel_property(kind),
             kind ? "CL_CONTEXT_D3D9EX_DEVICE_INTEL" : "CL_CONTEXT_D3D9_DEVICE_INTEL"},
        };
        for (int s = 0; s < 2; s++)
            for (int from_type = 0; from_type < 2; from_type++) {
                good_context(devs[kind], spellings[s].property, DX9_NO_USER_SYNC, from_type,
                             spellings[s].name);
                good_context(devs[kind], spellings[s].property, CL_TRUE, from_type,
                             spellings[s].name);
                good_context(devs[kind], spellings[s].property, CL_FALSE, from_type,
                             spellings[s].name);
            }
        reference_kept_by_memobj(devs[kind], kind);
    }
    /* A D3D9Ex device is also a D3D9 device. */
    good_context(devs[DX9_D3D9EX], CL_CONTEXT_ADAPTER_D3D9_KHR, DX9_NO_USER_SYNC, false,
                 "CL_CONTEXT_ADAPTER_D3D9_KHR with a D3D9Ex device");
    errors(devs[DX9_D3D9], devs[DX9_D3D9EX]);
    null_adapter();

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        ULONG left = IDirect3DDevice9_Release(devs[kind]);
        CHECK(left == 0, "%s device: %lu references left", dx9_kind_name(kind),
              (unsigned long)left);
    }
    return test_finish("dx9_context");
}
