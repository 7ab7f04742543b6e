/* One Direct3D sharing API (D3D11 KHR, D3D11 NV, D3D10 KHR, D3D10 NV) described for the shared
 * test suites (tests/common/suite_*.c): its tokens, its six OpenCL entry points (found by name
 * through clGetExtensionFunctionAddressForPlatform) and the Direct3D operations the tests
 * need. The suites use nothing API-specific beyond this table, so the same bodies test every
 * API that fills one. */
#ifndef DXCL_TEST_INTEROP_H
#define DXCL_TEST_INTEROP_H

#include "testlib.h"

#include <dxgi.h>
#include <dxgiformat.h>

/* The six entry points in API-neutral form: the D3D object parameters are plain pointers, the
 * enum parameters cl_uint (ABI-identical to every API's own prototypes). */
typedef cl_int(CL_API_CALL *test_get_device_ids_fn)(cl_platform_id platform, cl_uint source,
                                                    void *object, cl_uint set, cl_uint num_entries,
                                                    cl_device_id *devices, cl_uint *num_devices);
typedef cl_mem(CL_API_CALL *test_create_buffer_fn)(cl_context context, cl_mem_flags flags,
                                                   void *resource, cl_int *errcode_ret);
typedef cl_mem(CL_API_CALL *test_create_texture_fn)(cl_context context, cl_mem_flags flags,
                                                    void *resource, UINT subresource,
                                                    cl_int *errcode_ret);
typedef cl_int(CL_API_CALL *test_acquire_fn)(cl_command_queue queue, cl_uint num_objects,
                                             const cl_mem *mem_objects, cl_uint num_events,
                                             const cl_event *wait_list, cl_event *event);

/* The entry points of one API, filled by interop_load(). */
struct test_cl_fns {
    test_get_device_ids_fn get_device_ids;
    test_create_buffer_fn create_buffer;
    test_create_texture_fn create_texture2d;
    test_create_texture_fn create_texture3d;
    test_acquire_fn acquire;
    test_acquire_fn release;
};

enum test_usage { TEST_USAGE_DEFAULT, TEST_USAGE_IMMUTABLE };

/* A texture to create. 2D: depth is ignored; 3D: array_size and samples are ignored. */
struct test_texture_desc {
    UINT width, height, depth;
    UINT mips, array_size;
    DXGI_FORMAT format;
    enum test_usage usage;
    UINT samples;
};

/* Subresource data is always tightly packed: rows of width * bytes per pixel, slices of
 * height rows (the mip level's width, height and depth). */
struct test_api {
    const char *name;      /* "D3D11 KHR": for messages */
    const char *extension; /* "cl_khr_d3d11_sharing" */
    /* The entry point names: prefix + suffix, e.g. "clGetDeviceIDsFromD3D11" "KHR". */
    const char *fn_get_device_ids, *fn_create_buffer, *fn_create_texture2d, *fn_create_texture3d,
        *fn_acquire, *fn_release;
    const char *suffix; /* "KHR", "NV" */

    /* Tokens. */
    cl_context_properties context_property; /* CL_CONTEXT_D3D11_DEVICE_KHR */
    cl_uint source_device, source_adapter;  /* CL_D3D11_DEVICE_KHR, CL_D3D11_DXGI_ADAPTER_KHR */
    cl_uint set_preferred, set_all;
    cl_int err_invalid_device, err_invalid_resource, err_already_acquired, err_not_acquired;
    cl_command_type command_acquire, command_release;
    cl_mem_info mem_resource_query;        /* CL_MEM_D3D11_RESOURCE_KHR */
    cl_image_info image_subresource_query; /* CL_IMAGE_D3D11_SUBRESOURCE_KHR */
    cl_context_info prefer_shared_query;   /* CL_CONTEXT_D3D11_PREFER_SHARED_RESOURCES_KHR */
    /* Another Direct3D API's context property and a device for it (CL_INVALID_OPERATION when
     * both are given). */
    cl_context_properties other_context_property;
    void *(*create_other_device)(void);

    /* Direct3D operations. Objects are COM objects passed as void *; NULL on failure. */
    void *(*create_device)(void);
    void *(*get_adapter)(void *device); /* IDXGIAdapter *, referenced */
    void *(*create_buffer)(void *device, UINT size, enum test_usage usage, const void *data);
    /* data: one pointer per subresource (mip + slice * mips), or NULL (MSAA: no data). */
    void *(*create_texture2d)(void *device, const struct test_texture_desc *desc,
                              const void *const *data);
    void *(*create_texture3d)(void *device, const struct test_texture_desc *desc,
                              const void *const *data);
    /* Whole subresource (buffers: subresource 0, the whole buffer) through a staging copy, on
     * the resource's own device. */
    bool (*read_subresource)(void *resource, UINT subresource, void *out);
    bool (*write_subresource)(void *resource, UINT subresource, const void *data);
    /* Quality levels for a sample count (0: unsupported). */
    UINT (*msaa_quality_levels)(void *device, DXGI_FORMAT format, UINT samples);
    ULONG (*release)(void *object);
    ULONG (*refcount)(void *object); /* AddRef then Release: the count before the probe */
    /* The device's multithread protection object, referenced: ID3D10Multithread or
     * ID3D11Multithread (the same IID and vtable; D3D11's lives on the immediate context). */
    void *(*multithread)(void *device);

    struct test_cl_fns *cl; /* filled by interop_load() */
};

extern const struct test_api api_d3d11_khr;
extern const struct test_api api_d3d11_nv;
extern const struct test_api api_d3d10_khr;
extern const struct test_api api_d3d10_nv;
/* cl_khr_d3d10_sharing on ID3D10Device1 devices (D3D10CreateDevice1, feature level 10.1). */
extern const struct test_api api_d3d10_1_khr;

/* A device of each API (each is the other's "other API"); failing is a failed check. */
void *test_create_d3d10_device(void);
void *test_create_d3d11_device(void);

/* Finds the six entry points through clGetExtensionFunctionAddressForPlatform; aborts when one
 * is missing. */
void interop_load(const struct test_api *api, cl_platform_id platform);

/* ---- The DXGI formats of the sharing tables (CURRENT.md 1.11.7) ---- */

enum test_class { CLASS_FLOAT, CLASS_HALF, CLASS_UNORM, CLASS_SNORM, CLASS_UINT, CLASS_SINT };

struct test_format {
    DXGI_FORMAT dxgi;
    const char *name;
    cl_channel_order order;
    cl_channel_type type;
    unsigned channels, channel_size;
    enum test_class cls;
};

#define TEST_FORMAT_COUNT 37
extern const struct test_format test_formats[TEST_FORMAT_COUNT];
const struct test_format *test_format_find(DXGI_FORMAT dxgi);
/* The table's entry of a CL format (the first, for formats two DXGI formats share); NULL when
 * the table has none. */
const struct test_format *test_format_by_cl(cl_channel_order order, cl_channel_type type);
/* The table's formats that the driver itself does not list for `flags` and `type` in `context`
 * but could back (test_driver_can_back): those dxcl emulates (docs/design.md, "Formats the
 * driver lacks"). Up to `max` into `out`, in table order; returns how many. 0 on a driver that
 * has every table format. */
size_t test_unlisted_formats(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                             const struct test_format **out, size_t max);
/* A clEnqueueFillImage color for the format (16 bytes: float4, uint4 or int4 by class) and the
 * pixel (channels * channel_size bytes, memory order) an image of the format stores for it. */
void test_fill_model(const struct test_format *format, void *color, unsigned char *pixel);
/* The transform kernel of a class (tests/common/interop.c's program: FLOAT/HALF/SNORM -x,
 * UNORM 1-x, UINT x ^ max, SINT ~x), its arguments after (src, dst), and its host model. */
const char *test_class_kernel(enum test_class cls, bool is_3d);
void test_class_kernel_args(cl_kernel kernel, const struct test_format *format, cl_mem src,
                            cl_mem dst);
void test_class_expected(const struct test_format *format, const void *src, void *dst,
                         size_t bytes);

/* Bytes per pixel of the table's formats and of the few others the tests use. */
UINT test_format_bytes(DXGI_FORMAT dxgi);

/* ---- Subresource geometry ---- */

UINT test_mip_size(UINT size, UINT mip);
/* Width, height and depth of a subresource of a texture (is_3d: desc->depth counts). */
void test_subresource_size(const struct test_texture_desc *desc, bool is_3d, UINT subresource,
                           UINT *width, UINT *height, UINT *depth);
size_t test_subresource_bytes(const struct test_texture_desc *desc, bool is_3d, UINT subresource);
UINT test_subresource_count(const struct test_texture_desc *desc, bool is_3d);

/* ---- Data ---- */

/* Deterministic pseudo-random bytes valid for the format's channel type: finite normal
 * floats and halves, any bits otherwise. */
void test_fill_random(void *data, size_t bytes, const struct test_format *format, uint32_t seed);
void test_fill_bytes(void *data, size_t bytes, uint32_t seed);

/* A texture with every subresource initialised to random data: data[i] are malloc'ed copies
 * of what each subresource holds (free with test_texture_free). */
struct test_texture {
    void *resource;
    struct test_texture_desc desc;
    bool is_3d;
    UINT count;  /* subresources */
    void **data; /* per subresource */
};
bool test_texture_create(const struct test_api *api, void *device, struct test_texture *tex,
                         const struct test_texture_desc *desc, bool is_3d, uint32_t seed);
/* Releases the resource (if still set) and the data. */
void test_texture_free(const struct test_api *api, struct test_texture *tex);
/* True when every subresource, read back through D3D, equals tex->data; reports each
 * mismatch (what names the check). */
bool test_texture_intact(const struct test_api *api, const struct test_texture *tex,
                         const char *what);
/* Compares `bytes` bytes and reports the first difference. */
bool test_same_bytes(const void *got, const void *want, size_t bytes, const char *what);

/* ---- What the D3D10 and D3D11 tables share (tests/common/api_dxgi.h) ---- */

/* The IDXGIAdapter (referenced) of any D3D1x device; NULL if it has none. */
void *test_dxgi_adapter(void *device);
ULONG test_com_release(void *object);
ULONG test_com_refcount(void *object); /* AddRef then Release: the count before the probe */

enum test_kind { TEST_KIND_BUFFER, TEST_KIND_TEXTURE2D, TEST_KIND_TEXTURE3D };

/* One subresource in plain terms. Buffers: width is the size in bytes, one byte per pixel. */
struct test_subresource {
    enum test_kind kind;
    UINT width, height, depth, bytes_per_pixel;
    DXGI_FORMAT format;
};
/* Fills `sub` for a subresource of a resource described by `desc` (buffers: desc->width
 * bytes); false when the subresource does not exist. */
bool test_subresource_locate(enum test_kind kind, const struct test_texture_desc *desc,
                             UINT subresource, struct test_subresource *sub);
/* Row and slice pitches of a tightly packed subresource (initial data). */
void test_packed_pitches(const struct test_texture_desc *desc, bool is_3d, UINT subresource,
                         UINT *row_pitch, UINT *slice_pitch);

/* A mapped staging subresource. */
struct test_mapped {
    void *data;
    UINT row_pitch, depth_pitch;
};
/* Copies the subresource between tightly packed `data` and the mapping (to_mapped: data ->
 * mapping). */
void test_copy_mapped(const struct test_subresource *sub, const struct test_mapped *mapped,
                      void *data, bool to_mapped);

/* ---- The OpenCL side ---- */

/* A platform, its device, an API device, a context on it and a queue. */
struct interop_env {
    const struct test_api *api;
    const struct test_cl_fns *cl;
    cl_platform_id platform;
    cl_device_id device;
    void *d3d;
    cl_context context;
    cl_command_queue queue;
    cl_program program; /* the test kernels, built on first use */
};

#define INTEROP_NO_USER_SYNC (-1)

/* Opens everything: user_sync is CL_TRUE, CL_FALSE or INTEROP_NO_USER_SYNC (property absent).
 * Aborts on failure. */
void interop_open(struct interop_env *env, const struct test_api *api, int user_sync,
                  cl_command_queue_properties queue_properties);
void interop_close(struct interop_env *env);
/* The GPU path's variants (DXCL_TEST_EXPECT_GPU=1): some shared 2D texture took the path
 * (interop_close checks it too). */
void interop_check_gpu_served(const char *what);
/* A width x height R32_UINT texture made from `data`, and whether it holds first, first + 1,
 * ... (read through a staging copy): the program's own Direct3D use from a thread, inside the
 * device's multithread protection (an ID3D10Multithread or ID3D11Multithread: the same IID
 * and vtable). */
void *interop_protected_texture(const struct test_api *api, void *device, void *multithread,
                                UINT width, UINT height, const unsigned *data);
bool interop_protected_holds(const struct test_api *api, void *multithread, void *texture,
                             UINT width, UINT height, unsigned first);
/* The idle staging resources dxcl keeps for `context` (each holds a device reference). */
ULONG interop_pooled_staging(cl_context context);
/* tests/common/interop.c's program of test kernels, built for a device of any context. */
cl_program interop_program(cl_context context, cl_device_id device);
/* A kernel of tests/common/interop.c's program (built once per env). */
cl_kernel interop_kernel(struct interop_env *env, const char *name);
/* A context on env->d3d with the given extra properties (0-terminated, may be NULL). */
cl_context interop_context(struct interop_env *env, const cl_context_properties *extra,
                           cl_int *err);

const char *test_class_name(enum test_class cls);

/* Checks what clGetMemObjectInfo and clGetImageInfo say about a shared image: type, flags,
 * context, size, the API's resource and subresource queries, format, element size, width,
 * height and depth (0 for 2D images). */
void interop_check_image(const struct interop_env *env, cl_mem mem,
                         const struct test_format *format, bool is_3d, UINT width, UINT height,
                         UINT depth, cl_mem_flags flags, void *resource, UINT subresource,
                         const char *what);
/* The same for a shared buffer. */
void interop_check_buffer(const struct interop_env *env, cl_mem mem, size_t size,
                          cl_mem_flags flags, void *resource, const char *what);

/* dxclGetTransferMode of a shared object (include/dxcl/dxcl.h); 0 where it has none. */
cl_uint interop_transfer_mode(cl_mem mem);

/* Three acquire/release cycles of `mem`, a 2D RGBA8 UINT object of `tex` (whose data[0] is kept
 * as the texture's): Direct3D writes before each acquire, then none, a partial fill and a whole
 * write from OpenCL, each checked through Direct3D; then `mem` released while acquired, which
 * must leave the texture as it was. Releases `mem`. */
void interop_check_hand_overs(struct interop_env *env, cl_mem mem, struct test_texture *tex);

#endif
