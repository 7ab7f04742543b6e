/* Direct3D 9 helpers for the DX9 media sharing tests (tests/test_dx9_*.c): real D3D9 and
 * D3D9Ex devices (wined3d under Wine), surfaces of every kind the tests share, their contents
 * plane by plane, the D3D9/FourCC format tables of cl_khr_dx9_media_sharing, the entry points
 * of cl_khr_dx9_media_sharing and cl_intel_dx9_media_sharing, and a round trip through a
 * kernel. Failures to get what a test needs abort the test: nothing is skipped silently. */
#ifndef DXCL_TEST_DX9UTIL_H
#define DXCL_TEST_DX9UTIL_H

#include "testlib.h"

#include <d3d9.h>
#include <CL/cl_dx9_media_sharing.h>

/* d3d9types.h names no NV12 or YV12. */
#define DX9_FMT_NV12 ((D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'))
#define DX9_FMT_YV12 ((D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2'))

/* ---- Entry points ---- */

/* The eight functions of the two extensions, found by name through
 * clGetExtensionFunctionAddressForPlatform (dx9_load). */
struct dx9_fns {
    clGetDeviceIDsFromDX9MediaAdapterKHR_fn get_device_ids;
    clCreateFromDX9MediaSurfaceKHR_fn create;
    clEnqueueAcquireDX9MediaSurfacesKHR_fn acquire;
    clEnqueueReleaseDX9MediaSurfacesKHR_fn release;
    clGetDeviceIDsFromDX9INTEL_fn intel_get_device_ids;
    clCreateFromDX9MediaSurfaceINTEL_fn intel_create;
    clEnqueueAcquireDX9ObjectsINTEL_fn intel_acquire;
    clEnqueueReleaseDX9ObjectsINTEL_fn intel_release;
};
extern struct dx9_fns dx9;

/* Fills `dx9`; aborts when a function is missing. */
void dx9_load(cl_platform_id platform);

/* ---- Devices ---- */

enum dx9_kind { DX9_D3D9, DX9_D3D9EX };
#define DX9_KIND_COUNT 2

const char *dx9_kind_name(enum dx9_kind kind);
/* CL_ADAPTER_D3D9_KHR / CL_ADAPTER_D3D9EX_KHR. */
cl_dx9_media_adapter_type_khr dx9_adapter_type(enum dx9_kind kind);
/* CL_CONTEXT_ADAPTER_D3D9_KHR / _D3D9EX_KHR. */
cl_context_properties dx9_khr_property(enum dx9_kind kind);
/* CL_CONTEXT_D3D9_DEVICE_INTEL / _D3D9EX_DEVICE_INTEL. */
cl_context_properties dx9_intel_property(enum dx9_kind kind);
/* CL_D3D9_DEVICE_INTEL / CL_D3D9EX_DEVICE_INTEL. */
cl_dx9_device_source_intel dx9_intel_source(enum dx9_kind kind);

/* A device made with Direct3DCreate9 + CreateDevice (DX9_D3D9) or Direct3DCreate9Ex +
 * CreateDeviceEx (DX9_D3D9EX; the pointer is then an IDirect3DDevice9Ex *): windowed on
 * test_device_window(), software vertex processing, multithreaded. Aborts on failure. */
IDirect3DDevice9 *dx9_device(enum dx9_kind kind);
/* The same, with D3DCREATE_MULTITHREADED only when `multithreaded`. */
IDirect3DDevice9 *dx9_device_threads(enum dx9_kind kind, bool multithreaded);
/* The IDirect3D9 object the device was made from (referenced). */
IDirect3D9 *dx9_d3d(IDirect3DDevice9 *device);

/* ---- Surfaces ---- */

enum dx9_surface_kind {
    DX9_PLAIN,       /* CreateOffscreenPlainSurface, D3DPOOL_DEFAULT */
    DX9_RT,          /* CreateRenderTarget, Lockable FALSE */
    DX9_RT_LOCKABLE, /* CreateRenderTarget, Lockable TRUE */
    DX9_SYSMEM,      /* CreateOffscreenPlainSurface, D3DPOOL_SYSTEMMEM */
    DX9_TEX_RT,      /* level 0 of a D3DUSAGE_RENDERTARGET texture, D3DPOOL_DEFAULT */
    DX9_TEX_DYNAMIC, /* level 0 of a D3DUSAGE_DYNAMIC texture, D3DPOOL_DEFAULT */
    DX9_TEX_PLAIN,   /* level 0 of a texture without usage, D3DPOOL_DEFAULT (does not lock) */
};
/* Whether Direct3D reads and writes the kind through a system-memory surface
 * (GetRenderTargetData / UpdateSurface) rather than LockRect. */
bool dx9_via_copy(enum dx9_surface_kind kind);
const char *dx9_surface_kind_name(enum dx9_surface_kind kind);

/* Creates a surface; returns the HRESULT (the surface is NULL on failure). A texture level
 * keeps its texture alive. */
HRESULT dx9_try_surface(IDirect3DDevice9 *device, UINT width, UINT height, D3DFORMAT format,
                        enum dx9_surface_kind kind, IDirect3DSurface9 **surface);
/* The same, aborting on failure. */
IDirect3DSurface9 *dx9_surface(IDirect3DDevice9 *device, UINT width, UINT height, D3DFORMAT format,
                               enum dx9_surface_kind kind);
/* IDirect3D9::CheckDeviceFormat for the kind's usage (0, D3DUSAGE_RENDERTARGET or
 * D3DUSAGE_DYNAMIC) and resource type (D3DRTYPE_SURFACE or D3DRTYPE_TEXTURE), against the
 * adapter's display format. */
HRESULT dx9_check_format(IDirect3DDevice9 *device, D3DFORMAT format, enum dx9_surface_kind kind);

/* ---- Formats ---- */

enum dx9_class { DX9_UNORM, DX9_FLOAT, DX9_HALF };

/* A format of the tables (CURRENT.md 1.11.7): the 16 D3D9 formats, then NV12 and YV12. For
 * the FourCC formats, order/type/bytes are those of plane 0. */
struct dx9_format {
    D3DFORMAT format;
    const char *name;
    cl_channel_order order;
    cl_channel_type type;
    unsigned bytes;        /* per pixel */
    unsigned channel_size; /* bytes per channel */
    enum dx9_class cls;
    bool has_x; /* X8R8G8B8, X8B8G8R8: byte 3 of each pixel is unused by D3D */
};
#define DX9_RGB_FORMAT_COUNT 16
extern const struct dx9_format dx9_formats[DX9_RGB_FORMAT_COUNT + 2];
const struct dx9_format *dx9_format_find(D3DFORMAT format);
const char *dx9_format_name(D3DFORMAT format);

/* Planes: 2 for NV12, 3 for YV12 (Y, V, U: memory order), 1 otherwise. */
unsigned dx9_plane_count(D3DFORMAT format);
/* The CL image of plane `plane` of a width x height surface: size, format, element size. */
void dx9_plane_info(D3DFORMAT format, UINT width, UINT height, unsigned plane, UINT *plane_width,
                    UINT *plane_height, cl_image_format *cl_format, unsigned *element_size);

/* ---- Contents ---- */

/* A surface's contents as the tests hold them: each plane tightly packed (rows of
 * plane_width * element_size bytes), the planes one after another in plane order. */
size_t dx9_plane_bytes(D3DFORMAT format, UINT width, UINT height, unsigned plane);
size_t dx9_plane_offset(D3DFORMAT format, UINT width, UINT height, unsigned plane);
size_t dx9_content_bytes(D3DFORMAT format, UINT width, UINT height);

/* Writes / reads a whole surface. via_copy: through a D3DPOOL_SYSTEMMEM surface with
 * UpdateSurface / GetRenderTargetData (render targets that cannot be locked); otherwise
 * LockRect on the surface itself. The D3D9 layouts: NV12 is Y then interleaved UV with the
 * same pitch; YV12 is Y, then V and U at half the pitch. Returns false (and reports a failed
 * check) when Direct3D fails. */
bool dx9_write(IDirect3DSurface9 *surface, const void *content, bool via_copy);
bool dx9_read(IDirect3DSurface9 *surface, void *content, bool via_copy);

/* Deterministic pseudo-random data valid for the class: finite normal floats and halves. */
void dx9_fill(void *data, size_t bytes, enum dx9_class cls, unsigned channel_size, uint32_t seed);
/* What the test kernels do to each channel: UNORM 1.0f - x (max - v), FLOAT/HALF -x. */
void dx9_expected(const void *src, void *dst, size_t bytes, enum dx9_class cls,
                  unsigned channel_size);
/* Compares two buffers; skip_x ignores byte 3 of every 4-byte pixel. Reports the first
 * difference (with `what`) and returns whether they are equal. */
bool dx9_same(const void *got, const void *want, size_t bytes, bool skip_x, const char *what);

/* ---- OpenCL ---- */

/* A platform, its device, a D3D9 device, a context on it and an in-order queue. */
struct dx9_env {
    enum dx9_kind kind;
    bool intel; /* the context names the device with the Intel property */
    cl_platform_id platform;
    cl_device_id device;
    IDirect3DDevice9 *d3d;
    cl_context context;
    cl_command_queue queue;
    cl_program program; /* the test kernels, built on first use */
    int user_sync;      /* CL_TRUE, CL_FALSE or DX9_NO_USER_SYNC */
};

#define DX9_NO_USER_SYNC (-1)

/* Opens everything (user_sync: CL_TRUE, CL_FALSE or DX9_NO_USER_SYNC); aborts on failure. */
void dx9_open(struct dx9_env *env, enum dx9_kind kind, bool intel, int user_sync);
/* The same with the context property `property` naming the device (cl_nv_d3d9_sharing:
 * CL_CONTEXT_D3D9_DEVICE_NV, for D3D9 and D3D9Ex devices alike). */
void dx9_open_property(struct dx9_env *env, enum dx9_kind kind, cl_context_properties property,
                       int user_sync);
/* The same on a device of the caller's (the env takes its reference). */
void dx9_open_device(struct dx9_env *env, enum dx9_kind kind, IDirect3DDevice9 *device,
                     cl_context_properties property, int user_sync);
/* Releases the CL objects and the device; checks the device's last reference is gone. */
/* Releases the program's reference on a D3D9 device once the device is idle; returns the
 * references left. */
ULONG dx9_release_device(IDirect3DDevice9 *device);
void dx9_close(struct dx9_env *env);

/* Kernels: invert(src, dst) writes 1.0f - read_imagef(src), negate(src, dst) writes -x,
 * both over a 2D range. */
cl_kernel dx9_kernel(struct dx9_env *env, const char *name);
const char *dx9_kernel_for(enum dx9_class cls);

/* clCreateFromDX9MediaSurfaceKHR with the env's adapter type, or clCreateFromDX9Media-
 * SurfaceINTEL when intel; shared handle NULL. */
cl_mem dx9_create(struct dx9_env *env, bool intel, IDirect3DSurface9 *surface, cl_uint plane,
                  cl_mem_flags flags, cl_int *err);
cl_int dx9_acquire(struct dx9_env *env, bool intel, cl_uint count, const cl_mem *mems,
                   cl_event *event);
cl_int dx9_release(struct dx9_env *env, bool intel, cl_uint count, const cl_mem *mems,
                   cl_event *event);

/* Checks the image's CL_IMAGE_FORMAT, WIDTH, HEIGHT, DEPTH (0), ELEMENT_SIZE and CL_MEM_TYPE
 * against plane `plane` of a width x height surface of `format`. */
void dx9_check_plane_image(cl_mem mem, D3DFORMAT format, UINT width, UINT height, unsigned plane,
                           const char *what);

/* The round trip: a source surface with random data and a destination surface with other
 * data (both of `format` and `kind`), one CL image per plane of each, one acquire of all,
 * per plane a kernel reading the source plane and writing the destination plane, one release
 * of all; then Direct3D reads the destination (the kernel's result on every plane, exactly)
 * and the source (unchanged). intel: the Intel create/acquire/release functions. */
void dx9_roundtrip(struct dx9_env *env, D3DFORMAT format, enum dx9_surface_kind kind, UINT width,
                   UINT height, bool intel, uint32_t seed);

#endif
