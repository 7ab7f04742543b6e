/* The Khronos sharing specs' format tables and the choice of the driver format that backs
 * each spec format. */
#include "formats/formats.h"
#include "core/driver.h"

#include <stdlib.h>

static const struct {
    DXGI_FORMAT dxgi;
    cl_image_format format;
} dxgi_formats[] = {
    {DXGI_FORMAT_R32G32B32A32_FLOAT, {CL_RGBA, CL_FLOAT}},
    {DXGI_FORMAT_R32G32B32A32_UINT, {CL_RGBA, CL_UNSIGNED_INT32}},
    {DXGI_FORMAT_R32G32B32A32_SINT, {CL_RGBA, CL_SIGNED_INT32}},
    {DXGI_FORMAT_R16G16B16A16_FLOAT, {CL_RGBA, CL_HALF_FLOAT}},
    {DXGI_FORMAT_R16G16B16A16_UNORM, {CL_RGBA, CL_UNORM_INT16}},
    {DXGI_FORMAT_R16G16B16A16_UINT, {CL_RGBA, CL_UNSIGNED_INT16}},
    {DXGI_FORMAT_R16G16B16A16_SNORM, {CL_RGBA, CL_SNORM_INT16}},
    {DXGI_FORMAT_R16G16B16A16_SINT, {CL_RGBA, CL_SIGNED_INT16}},
    {DXGI_FORMAT_B8G8R8A8_UNORM, {CL_BGRA, CL_UNORM_INT8}},
    {DXGI_FORMAT_R8G8B8A8_UNORM, {CL_RGBA, CL_UNORM_INT8}},
    {DXGI_FORMAT_R8G8B8A8_UINT, {CL_RGBA, CL_UNSIGNED_INT8}},
    {DXGI_FORMAT_R8G8B8A8_SNORM, {CL_RGBA, CL_SNORM_INT8}},
    {DXGI_FORMAT_R8G8B8A8_SINT, {CL_RGBA, CL_SIGNED_INT8}},
    {DXGI_FORMAT_R32G32_FLOAT, {CL_RG, CL_FLOAT}},
    {DXGI_FORMAT_R32G32_UINT, {CL_RG, CL_UNSIGNED_INT32}},
    {DXGI_FORMAT_R32G32_SINT, {CL_RG, CL_SIGNED_INT32}},
    {DXGI_FORMAT_R16G16_FLOAT, {CL_RG, CL_HALF_FLOAT}},
    {DXGI_FORMAT_R16G16_UNORM, {CL_RG, CL_UNORM_INT16}},
    {DXGI_FORMAT_R16G16_UINT, {CL_RG, CL_UNSIGNED_INT16}},
    {DXGI_FORMAT_R16G16_SNORM, {CL_RG, CL_SNORM_INT16}},
    {DXGI_FORMAT_R16G16_SINT, {CL_RG, CL_SIGNED_INT16}},
    {DXGI_FORMAT_R8G8_UNORM, {CL_RG, CL_UNORM_INT8}},
    {DXGI_FORMAT_R8G8_UINT, {CL_RG, CL_UNSIGNED_INT8}},
    {DXGI_FORMAT_R8G8_SNORM, {CL_RG, CL_SNORM_INT8}},
    {DXGI_FORMAT_R8G8_SINT, {CL_RG, CL_SIGNED_INT8}},
    {DXGI_FORMAT_R32_FLOAT, {CL_R, CL_FLOAT}},
    {DXGI_FORMAT_R32_UINT, {CL_R, CL_UNSIGNED_INT32}},
    {DXGI_FORMAT_R32_SINT, {CL_R, CL_SIGNED_INT32}},
    {DXGI_FORMAT_R16_FLOAT, {CL_R, CL_HALF_FLOAT}},
    {DXGI_FORMAT_R16_UNORM, {CL_R, CL_UNORM_INT16}},
    {DXGI_FORMAT_R16_UINT, {CL_R, CL_UNSIGNED_INT16}},
    {DXGI_FORMAT_R16_SNORM, {CL_R, CL_SNORM_INT16}},
    {DXGI_FORMAT_R16_SINT, {CL_R, CL_SIGNED_INT16}},
    {DXGI_FORMAT_R8_UNORM, {CL_R, CL_UNORM_INT8}},
    {DXGI_FORMAT_R8_UINT, {CL_R, CL_UNSIGNED_INT8}},
    {DXGI_FORMAT_R8_SNORM, {CL_R, CL_SNORM_INT8}},
    {DXGI_FORMAT_R8_SINT, {CL_R, CL_SIGNED_INT8}},
};

bool dxcl_format_from_dxgi(DXGI_FORMAT dxgi, cl_image_format *format)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(dxgi_formats); i++) {
        if (dxgi_formats[i].dxgi == dxgi) {
            *format = dxgi_formats[i].format;
            return true;
        }
    }
    return false;
}

size_t dxcl_dxgi_format_count(void)
{
    return DXCL_ARRAY_SIZE(dxgi_formats);
}

DXGI_FORMAT dxcl_dxgi_format_at(size_t index)
{
    return index < DXCL_ARRAY_SIZE(dxgi_formats) ? dxgi_formats[index].dxgi : DXGI_FORMAT_UNKNOWN;
}

/* d3d9types.h names no NV12 or YV12. */
#define DXCL_D3DFMT_NV12 ((D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'))
#define DXCL_D3DFMT_YV12 ((D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2'))

#define FULL(order, type) {order, type}, 1, 1
#define HALF(order, type) {order, type}, 2, 2

static const struct {
    D3DFORMAT d3d9;
    unsigned planes;
    struct dxcl_plane plane[3];
} d3d9_formats[] = {
    {D3DFMT_R32F, 1, {{FULL(CL_R, CL_FLOAT)}}},
    {D3DFMT_R16F, 1, {{FULL(CL_R, CL_HALF_FLOAT)}}},
    {D3DFMT_L16, 1, {{FULL(CL_R, CL_UNORM_INT16)}}},
    {D3DFMT_A8, 1, {{FULL(CL_A, CL_UNORM_INT8)}}},
    {D3DFMT_L8, 1, {{FULL(CL_R, CL_UNORM_INT8)}}},
    {D3DFMT_G32R32F, 1, {{FULL(CL_RG, CL_FLOAT)}}},
    {D3DFMT_G16R16F, 1, {{FULL(CL_RG, CL_HALF_FLOAT)}}},
    {D3DFMT_G16R16, 1, {{FULL(CL_RG, CL_UNORM_INT16)}}},
    {D3DFMT_A8L8, 1, {{FULL(CL_RG, CL_UNORM_INT8)}}},
    {D3DFMT_A32B32G32R32F, 1, {{FULL(CL_RGBA, CL_FLOAT)}}},
    {D3DFMT_A16B16G16R16F, 1, {{FULL(CL_RGBA, CL_HALF_FLOAT)}}},
    {D3DFMT_A16B16G16R16, 1, {{FULL(CL_RGBA, CL_UNORM_INT16)}}},
    {D3DFMT_A8B8G8R8, 1, {{FULL(CL_RGBA, CL_UNORM_INT8)}}},
    {D3DFMT_X8B8G8R8, 1, {{FULL(CL_RGBA, CL_UNORM_INT8)}}},
    {D3DFMT_A8R8G8B8, 1, {{FULL(CL_BGRA, CL_UNORM_INT8)}}},
    {D3DFMT_X8R8G8B8, 1, {{FULL(CL_BGRA, CL_UNORM_INT8)}}},
    /* Y, then interleaved UV at half resolution. */
    {DXCL_D3DFMT_NV12, 2, {{FULL(CL_R, CL_UNORM_INT8)}, {HALF(CL_RG, CL_UNORM_INT8)}}},
    /* Y, then V, then U (memory order), each chroma plane at half resolution. */
    {DXCL_D3DFMT_YV12,
     3,
     {{FULL(CL_R, CL_UNORM_INT8)}, {HALF(CL_R, CL_UNORM_INT8)}, {HALF(CL_R, CL_UNORM_INT8)}}},
};

#undef FULL
#undef HALF

static int d3d9_index(D3DFORMAT d3d9)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(d3d9_formats); i++)
        if (d3d9_formats[i].d3d9 == d3d9)
            return (int)i;
    return -1;
}

unsigned dxcl_d3d9_plane_count(D3DFORMAT d3d9)
{
    int i = d3d9_index(d3d9);

    return i < 0 ? 0 : d3d9_formats[i].planes;
}

bool dxcl_format_from_d3d9(D3DFORMAT d3d9, unsigned plane, struct dxcl_plane *out)
{
    int i = d3d9_index(d3d9);

    if (i < 0 || plane >= d3d9_formats[i].planes)
        return false;
    *out = d3d9_formats[i].plane[plane];
    return true;
}

unsigned dxcl_dxgi_plane_count(DXGI_FORMAT dxgi)
{
    return dxgi == DXGI_FORMAT_NV12 ? dxcl_d3d9_plane_count(DXCL_D3DFMT_NV12) : 0;
}

bool dxcl_format_from_dxgi_plane(DXGI_FORMAT dxgi, unsigned plane, struct dxcl_plane *out)
{
    return dxgi == DXGI_FORMAT_NV12 && dxcl_format_from_d3d9(DXCL_D3DFMT_NV12, plane, out);
}

size_t dxcl_d3d9_format_count(void)
{
    return DXCL_ARRAY_SIZE(d3d9_formats);
}

D3DFORMAT dxcl_d3d9_format_at(size_t index)
{
    return index < DXCL_ARRAY_SIZE(d3d9_formats) ? d3d9_formats[index].d3d9 : D3DFMT_UNKNOWN;
}

/* cl_nv_d3d9_sharing's own table (NVIDIA's table 9.13.4.1): memory-literal channel orders (no
 * BGRA), A8 as CL_R, and the signed V/U/Q formats. */
static const struct {
    D3DFORMAT d3d9;
    cl_image_format format;
} d3d9_nv_formats[] = {
    {D3DFMT_R32F, {CL_R, CL_FLOAT}},
    {D3DFMT_R16F, {CL_R, CL_HALF_FLOAT}},
    {D3DFMT_L16, {CL_R, CL_UNORM_INT16}},
    {D3DFMT_A8, {CL_R, CL_UNORM_INT8}},
    {D3DFMT_L8, {CL_R, CL_UNORM_INT8}},
    {D3DFMT_G32R32F, {CL_RG, CL_FLOAT}},
    {D3DFMT_G16R16F, {CL_RG, CL_HALF_FLOAT}},
    {D3DFMT_G16R16, {CL_RG, CL_UNORM_INT16}},
    {D3DFMT_V16U16, {CL_RG, CL_SNORM_INT16}},
    {D3DFMT_A8L8, {CL_RG, CL_UNORM_INT8}},
    {D3DFMT_V8U8, {CL_RG, CL_SNORM_INT8}},
    {D3DFMT_A32B32G32R32F, {CL_RGBA, CL_FLOAT}},
    {D3DFMT_A16B16G16R16F, {CL_RGBA, CL_HALF_FLOAT}},
    {D3DFMT_A16B16G16R16, {CL_RGBA, CL_UNORM_INT16}},
    {D3DFMT_Q16W16V16U16, {CL_RGBA, CL_SNORM_INT16}},
    {D3DFMT_A8B8G8R8, {CL_RGBA, CL_UNORM_INT8}},
    {D3DFMT_X8B8G8R8, {CL_RGBA, CL_UNORM_INT8}},
    {D3DFMT_A8R8G8B8, {CL_RGBA, CL_UNORM_INT8}},
    {D3DFMT_X8R8G8B8, {CL_RGBA, CL_UNORM_INT8}},
    {D3DFMT_Q8W8V8U8, {CL_RGBA, CL_SNORM_INT8}},
};

bool dxcl_format_from_d3d9_nv(D3DFORMAT d3d9, cl_image_format *format)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(d3d9_nv_formats); i++) {
        if (d3d9_nv_formats[i].d3d9 == d3d9) {
            *format = d3d9_nv_formats[i].format;
            return true;
        }
    }
    return false;
}

size_t dxcl_d3d9_nv_format_count(void)
{
    return DXCL_ARRAY_SIZE(d3d9_nv_formats);
}

D3DFORMAT dxcl_d3d9_nv_format_at(size_t index)
{
    return index < DXCL_ARRAY_SIZE(d3d9_nv_formats) ? d3d9_nv_formats[index].d3d9 : D3DFMT_UNKNOWN;
}

static bool format_listed(const cl_image_format *list, cl_uint count, cl_channel_order order,
                          cl_channel_type type)
{
    for (cl_uint i = 0; i < count; i++)
        if (list[i].image_channel_order == order && list[i].image_channel_data_type == type)
            return true;
    return false;
}

/* Formats a driver lists but gets wrong in kernels; dxcl backs them with a wider format for the
 * access they get wrong, as if they were not listed for it. PoCL 3.1 (checked with kernels on
 * plain images, without dxcl; test_formats checks each entry again on the driver it runs on):
 * CL_R and CL_A with CL_HALF_FLOAT read garbage and ignore writes; CL_R with an integer type
 * reads alpha as 0, not 1, but writes exactly, so a write-only image of it is native. */
enum broken_access { BROKEN_IN_READS, BROKEN_ALWAYS };

static const struct {
    const char *platform; /* a prefix of CL_PLATFORM_NAME */
    cl_channel_order order;
    cl_channel_type type;
    enum broken_access when;
} broken_formats[] = {
    {"Portable Computing Language", CL_R, CL_HALF_FLOAT, BROKEN_ALWAYS},
    {"Portable Computing Language", CL_A, CL_HALF_FLOAT, BROKEN_ALWAYS},
    {"Portable Computing Language", CL_R, CL_UNSIGNED_INT8, BROKEN_IN_READS},
    {"Portable Computing Language", CL_R, CL_UNSIGNED_INT16, BROKEN_IN_READS},
    {"Portable Computing Language", CL_R, CL_UNSIGNED_INT32, BROKEN_IN_READS},
    {"Portable Computing Language", CL_R, CL_SIGNED_INT8, BROKEN_IN_READS},
    {"Portable Computing Language", CL_R, CL_SIGNED_INT16, BROKEN_IN_READS},
    {"Portable Computing Language", CL_R, CL_SIGNED_INT32, BROKEN_IN_READS},
};

cl_mem_flags dxcl_image_access(cl_mem_flags flags)
{
    const cl_mem_flags access =
        CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_KERNEL_READ_AND_WRITE;

    return flags & access ? flags & access : CL_MEM_READ_WRITE;
}

/* Whether kernels may read images made with these access flags. */
static bool kernels_read(cl_mem_flags access)
{
    return access != CL_MEM_WRITE_ONLY;
}

/* The name of the context's platform, for the broken-format rule (caller frees; NULL when it
 * cannot be read, and then no format counts as broken). */
static char *platform_name(cl_context context)
{
    cl_platform_id platform = dxcl_platform_of_context(context);

    return platform ? dxcl_driver_platform_string(platform, CL_PLATFORM_NAME) : NULL;
}

static bool broken_for(const char *name, cl_mem_flags access, const cl_image_format *format)
{
    for (size_t j = 0; j < DXCL_ARRAY_SIZE(broken_formats) && name; j++)
        if (!strncmp(name, broken_formats[j].platform, strlen(broken_formats[j].platform)) &&
            format->image_channel_order == broken_formats[j].order &&
            format->image_channel_data_type == broken_formats[j].type &&
            (broken_formats[j].when == BROKEN_ALWAYS || kernels_read(access)))
            return true;
    return false;
}

/* Drops the driver's broken formats for this access (those of the platform named `name`) from
 * its list. */
static cl_uint drop_broken_formats(const char *name, cl_mem_flags access, cl_image_format *list,
                                   cl_uint count)
{
    cl_uint kept = 0;

    for (cl_uint i = 0; i < count; i++)
        if (!broken_for(name, access, &list[i]))
            list[kept++] = list[i];
    return kept;
}

/* The driver's list for these flags and image type (caller frees list->formats), without the
 * formats it gets wrong for their access when `broken_platform` names its platform. One call
 * when the list fits a first guess, two when it is longer. */
static cl_int driver_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             const char *broken_platform, struct dxcl_format_list *list)
{
    const struct dxcl_driver *drv = dxcl_driver();
    cl_uint capacity = 128, count = 0;
    cl_int err;

    list->formats = NULL;
    list->count = 0;
    if (!drv->clGetSupportedImageFormats)
        return dxcl_driver_missing("clGetSupportedImageFormats");
    for (;;) {
        cl_image_format *formats = calloc(capacity, sizeof(*formats));
        if (!formats)
            return CL_OUT_OF_HOST_MEMORY;
        err = drv->clGetSupportedImageFormats(context, flags, type, capacity, formats, &count);
        if (err != CL_SUCCESS || count <= capacity) {
            if (err != CL_SUCCESS) {
                free(formats);
                return err;
            }
            list->formats = formats;
            list->count = count;
            break;
        }
        free(formats);
        capacity = count;
    }
    if (broken_platform)
        list->count = drop_broken_formats(broken_platform, dxcl_image_access(flags), list->formats,
                                          list->count);
    return CL_SUCCESS;
}

/* The lists that decide a wider backing: read-write, read-only and write-only, for 2D and 3D
 * images (DXCL_CHOICE_LISTS of them; a list the driver refuses counts as empty). */
static const cl_mem_flags choice_flags[] = {CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY};
static const cl_mem_object_type choice_types[] = {CL_MEM_OBJECT_IMAGE2D, CL_MEM_OBJECT_IMAGE3D};

static void free_lists(struct dxcl_format_list *lists, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(lists[i].formats);
}

static cl_int choice_lists(cl_context context, const char *broken_platform,
                           struct dxcl_format_list lists[DXCL_CHOICE_LISTS])
{
    cl_int first_err = CL_SUCCESS;
    size_t n = 0, read = 0;

    for (size_t t = 0; t < DXCL_ARRAY_SIZE(choice_types); t++) {
        for (size_t f = 0; f < DXCL_ARRAY_SIZE(choice_flags); f++, n++) {
            cl_int err = driver_formats(context, choice_flags[f], choice_types[t], broken_platform,
                                        &lists[n]);
            if (err == CL_SUCCESS)
                read++;
            else if (first_err == CL_SUCCESS)
                first_err = err;
        }
    }
    if (read)
        return CL_SUCCESS;
    free_lists(lists, n);
    return first_err;
}

static void set_backing(const cl_image_format *spec, const cl_image_format *driver,
                        struct dxcl_backing *backing)
{
    backing->spec = *spec;
    backing->driver = *driver;
    dxcl_layout_for(spec, driver, &backing->layout);
    backing->emulated = driver->image_channel_order != spec->image_channel_order;
}

bool dxcl_backing_from_lists(const struct dxcl_format_list *own,
                             const struct dxcl_format_list *lists, size_t count,
                             const cl_image_format *spec, struct dxcl_backing *backing)
{
    /* The wider candidates: the same channel type in RGBA, then in BGRA. */
    const cl_image_format wider[] = {{CL_RGBA, spec->image_channel_data_type},
                                     {CL_BGRA, spec->image_channel_data_type}};
    size_t best = DXCL_ARRAY_SIZE(wider), best_score = 0;
    struct dxcl_layout layout;

    if (format_listed(own->formats, own->count, spec->image_channel_order,
                      spec->image_channel_data_type) &&
        dxcl_layout_for(spec, spec, &layout)) {
        set_backing(spec, spec, backing);
        return true;
    }
    for (size_t c = 0; c < DXCL_ARRAY_SIZE(wider); c++) {
        size_t score = 0;
        if (wider[c].image_channel_order == spec->image_channel_order ||
            !dxcl_layout_for(spec, &wider[c], &layout))
            continue;
        for (size_t i = 0; i < count; i++)
            score += format_listed(lists[i].formats, lists[i].count, wider[c].image_channel_order,
                                   wider[c].image_channel_data_type);
        if (score > best_score) {
            best = c;
            best_score = score;
        }
    }
    if (!best_score)
        return false;
    set_backing(spec, &wider[best], backing);
    return true;
}

/* The object's own list and the choice lists, read once for a choice (caller frees both). */
static cl_int read_lists(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                         struct dxcl_format_list *own,
                         struct dxcl_format_list lists[DXCL_CHOICE_LISTS])
{
    char *name = platform_name(context);
    cl_int err = driver_formats(context, dxcl_image_access(flags), type, name, own);

    /* A driver that refuses the object's own flags backs nothing natively for them. */
    if (err != CL_SUCCESS && err != CL_OUT_OF_HOST_MEMORY && err != CL_INVALID_CONTEXT) {
        own->formats = NULL;
        own->count = 0;
        err = CL_SUCCESS;
    }
    if (err == CL_SUCCESS && (err = choice_lists(context, name, lists)) != CL_SUCCESS)
        free(own->formats);
    free(name);
    return err;
}

cl_int dxcl_choose_backing(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                           const cl_image_format *spec, struct dxcl_backing *backing)
{
    struct dxcl_format_list own, lists[DXCL_CHOICE_LISTS];
    cl_int err = read_lists(context, flags, type, &own, lists);
    bool found;

    if (err != CL_SUCCESS)
        return DXCL_FAIL(err, "clGetSupportedImageFormats failed in the driver");
    found = dxcl_backing_from_lists(&own, lists, DXCL_CHOICE_LISTS, spec, backing);
    free_lists(lists, DXCL_CHOICE_LISTS);
    free(own.formats);
    if (!found)
        return DXCL_FAIL(CL_IMAGE_FORMAT_NOT_SUPPORTED,
                         "the driver has no image format that can hold %s/%s for flags 0x%llx",
                         dxcl_channel_order_name(spec->image_channel_order),
                         dxcl_channel_type_name(spec->image_channel_data_type),
                         (unsigned long long)dxcl_image_access(flags));
    if (backing->emulated)
        DXCL_LOG("format %s/%s emulated with %s for flags 0x%llx",
                 dxcl_channel_order_name(spec->image_channel_order),
                 dxcl_channel_type_name(spec->image_channel_data_type),
                 dxcl_channel_order_name(backing->driver.image_channel_order),
                 (unsigned long long)dxcl_image_access(flags));
    return CL_SUCCESS;
}

cl_int dxcl_backable_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             const cl_image_format *specs, size_t count, bool *backable)
{
    struct dxcl_format_list own, lists[DXCL_CHOICE_LISTS], wanted;
    cl_int err = driver_formats(context, flags, type, NULL, &wanted);

    if (err == CL_SUCCESS && (err = read_lists(context, flags, type, &own, lists)) != CL_SUCCESS)
        free(wanted.formats);
    if (err != CL_SUCCESS)
        return err;
    for (size_t i = 0; i < count; i++) {
        struct dxcl_backing backing;
        backable[i] =
            dxcl_backing_from_lists(&own, lists, DXCL_CHOICE_LISTS, &specs[i], &backing) &&
            format_listed(wanted.formats, wanted.count, backing.driver.image_channel_order,
                          backing.driver.image_channel_data_type);
    }
    free_lists(lists, DXCL_CHOICE_LISTS);
    free(own.formats);
    free(wanted.formats);
    return CL_SUCCESS;
}

/* What one device can hold. */
struct device_limits {
    cl_bool images;
    size_t image2d[2], image3d[3];
    cl_ulong max_alloc;
};

static struct device_limits device_limits(cl_device_id device)
{
    const struct dxcl_driver *drv = dxcl_driver();
    struct device_limits l = {0};

    /* A value the driver cannot give stays 0: that device holds nothing of it. */
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE_SUPPORT, sizeof(l.images), &l.images, NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof(size_t), &l.image2d[0], NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof(size_t), &l.image2d[1], NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_WIDTH, sizeof(size_t), &l.image3d[0], NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_HEIGHT, sizeof(size_t), &l.image3d[1], NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof(size_t), &l.image3d[2], NULL);
    drv->clGetDeviceInfo(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(l.max_alloc), &l.max_alloc,
                         NULL);
    return l;
}

/* The context's devices (caller frees); a log line and NULL when the driver cannot say. */
static cl_device_id *context_devices(cl_context context, size_t *count)
{
    cl_device_id *devices = dxcl_driver_context_devices(context, count);

    if (!devices)
        DXCL_LOG("the devices of context %p could not be read: sizes left to the driver",
                 (void *)context);
    return devices;
}

cl_int dxcl_check_image_size(cl_context context, cl_mem_object_type type,
                             const cl_image_format *backing, size_t width, size_t height,
                             size_t depth)
{
    bool is_3d = type == CL_MEM_OBJECT_IMAGE3D;
    size_t count, fits_dims = 0, fits_bytes = 0, with_images = 0;
    cl_device_id *devices = context_devices(context, &count);
    double bytes = (double)dxcl_element_size(backing) * width * height * depth;
    struct device_limits largest = {0};

    if (!devices)
        return CL_SUCCESS;
    for (size_t i = 0; i < count; i++) {
        struct device_limits l = device_limits(devices[i]);
        bool dims = is_3d ? width <= l.image3d[0] && height <= l.image3d[1] && depth <= l.image3d[2]
                          : width <= l.image2d[0] && height <= l.image2d[1];
        if (!l.images)
            continue;
        with_images++;
        fits_dims += dims;
        fits_bytes += dims && bytes <= (double)l.max_alloc;
        if (l.max_alloc > largest.max_alloc || !i)
            largest = l;
    }
    free(devices);
    if (!with_images)
        return DXCL_FAIL(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                         "no device of context %p supports images (CL_DEVICE_IMAGE_SUPPORT)",
                         (void *)context);
    if (!fits_dims && is_3d)
        return DXCL_FAIL(CL_INVALID_IMAGE_SIZE,
                         "a %zux%zux%zu 3D image exceeds every device's limit (%zux%zux%zu on "
                         "one, CL_DEVICE_IMAGE3D_MAX_*)",
                         width, height, depth, largest.image3d[0], largest.image3d[1],
                         largest.image3d[2]);
    if (!fits_dims)
        return DXCL_FAIL(CL_INVALID_IMAGE_SIZE,
                         "a %zux%zu 2D image exceeds every device's limit (%zux%zu on one, "
                         "CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT)",
                         width, height, largest.image2d[0], largest.image2d[1]);
    if (!fits_bytes)
        return DXCL_FAIL(CL_INVALID_IMAGE_SIZE,
                         "a %zux%zux%zu image of %s/%s takes %.0f bytes, more than any device "
                         "allocates at once (%llu, CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                         width, height, depth,
                         dxcl_channel_order_name(backing->image_channel_order),
                         dxcl_channel_type_name(backing->image_channel_data_type), bytes,
                         (unsigned long long)largest.max_alloc);
    return CL_SUCCESS;
}

cl_int dxcl_check_buffer_size(cl_context context, size_t size)
{
    size_t count;
    cl_device_id *devices = context_devices(context, &count);
    cl_ulong largest = 0;

    if (!devices)
        return CL_SUCCESS;
    for (size_t i = 0; i < count; i++) {
        struct device_limits l = device_limits(devices[i]);
        if (l.max_alloc > largest)
            largest = l.max_alloc;
    }
    free(devices);
    if (size > largest)
        return DXCL_FAIL(CL_INVALID_BUFFER_SIZE,
                         "a buffer of %zu bytes is more than any device allocates at once (%llu, "
                         "CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
                         size, (unsigned long long)largest);
    return CL_SUCCESS;
}

/* Calls `fn` for every CL format of the DXGI and D3D9 tables (repeats included). */
static void each_table_format(void (*fn)(const cl_image_format *format, void *arg), void *arg)
{
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(dxgi_formats); i++)
        fn(&dxgi_formats[i].format, arg);
    for (size_t i = 0; i < DXCL_ARRAY_SIZE(d3d9_formats); i++)
        for (unsigned p = 0; p < d3d9_formats[i].planes; p++)
            fn(&d3d9_formats[i].plane[p].format, arg);
}

struct format_merge {
    cl_image_format table[DXCL_ARRAY_SIZE(dxgi_formats) + 3 * DXCL_ARRAY_SIZE(d3d9_formats)];
    size_t count;
};

static void add_table_format(const cl_image_format *format, void *arg)
{
    struct format_merge *merge = arg;

    merge->table[merge->count++] = *format;
}

cl_int dxcl_supported_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                              cl_uint num_entries, cl_image_format *formats, cl_uint *num_formats)
{
    struct format_merge merge = {.count = 0};
    struct dxcl_format_list full;
    bool backable[DXCL_ARRAY_SIZE(merge.table)] = {false};
    cl_image_format *out = NULL;
    cl_uint count;
    cl_int err;

    if (formats && !num_entries)
        return DXCL_FAIL(CL_INVALID_VALUE, "clGetSupportedImageFormats: num_entries is 0");
    /* The driver's own answer first: its list, or its error for these arguments. */
    if ((err = driver_formats(context, flags, type, NULL, &full)) != CL_SUCCESS)
        return err;
    /* Only image types whose layout dxcl converts get emulated formats. */
    if (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D) {
        each_table_format(add_table_format, &merge);
        err = dxcl_backable_formats(context, flags, type, merge.table, merge.count, backable);
    }
    if (err == CL_SUCCESS && !(out = calloc(full.count + merge.count + 1, sizeof(*out))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        memcpy(out, full.formats, full.count * sizeof(*out));
        count = full.count;
        for (size_t i = 0; i < merge.count; i++)
            if (backable[i] && !format_listed(out, count, merge.table[i].image_channel_order,
                                              merge.table[i].image_channel_data_type))
                out[count++] = merge.table[i];
        if (formats)
            memcpy(formats, out, (num_entries < count ? num_entries : count) * sizeof(*formats));
        if (num_formats)
            *num_formats = count;
    }
    free(out);
    free(full.formats);
    return err;
}
