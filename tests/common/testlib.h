/* Shared helpers for dxcl's test programs. A test that cannot get what it needs (a D3D
 * device, an OpenCL platform) fails loudly: it never passes or skips silently. */
#ifndef DXCL_TESTLIB_H
#define DXCL_TESTLIB_H

#define COBJMACROS
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <windows.h>
#include <d3d11.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <CL/cl.h>
#include <CL/cl_gl.h>

extern int test_failures;
extern int test_checks;

void test_report(bool ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(gnu_printf, 4, 5)));

/* CHECK(cond, fmt, ...): records one assertion; prints the failure with its location. */
#define CHECK(cond, ...) test_report(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
/* CHECK_ERR(got, want): an OpenCL error code equals the expected one. */
#define CHECK_ERR(got, want)                                                                       \
    do {                                                                                           \
        cl_int got_ = (got), want_ = (want);                                                       \
        test_report(got_ == want_, __FILE__, __LINE__, "%s: got %d, want %s (%d)", #got, got_,     \
                    #want, want_);                                                                 \
    } while (0)
/* REQUIRE: like CHECK but stops the test (exit 1) when it fails; evaluates cond once. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        bool ok_ = !!(cond);                                                                       \
        CHECK(ok_, __VA_ARGS__);                                                                   \
        if (!ok_)                                                                                  \
            test_abort();                                                                          \
    } while (0)

void test_abort(void) __attribute__((noreturn));
/* Prints "N passed, N failed" and returns the process exit code. */
int test_finish(const char *name);

/* OpenCL: the first platform and its first device; abort if there is none. */
cl_platform_id test_platform(void);
cl_device_id test_device(cl_platform_id platform);
/* Builds `source` for the device; aborts with the build log on error. */
cl_program test_program(cl_context context, cl_device_id device, const char *source);
/* The kernel `name` of a built program; aborts on error. */
cl_kernel test_program_kernel(cl_program program, const char *name);
/* Builds `source` for the device and returns the kernel `name`; aborts with the log on error. */
cl_kernel test_kernel(cl_context context, cl_device_id device, const char *source,
                      const char *name);

/* Direct3D 11: a hardware device at feature level 11_0 (wined3d); aborts on failure. */
ID3D11Device *test_d3d11_device(ID3D11DeviceContext **immediate);
/* Reads a D3D11 buffer or a single-level 2D texture through a staging copy: `rows` rows of
 * `row_bytes` each, packed into `out` (a buffer is one row). Aborts on failure. */
void test_d3d11_read(ID3D11Device *device, ID3D11Resource *resource, void *out, size_t row_bytes,
                     UINT rows);
/* A hidden top-level window of the test's own class, made once per process, for Direct3D 9
 * devices (focus and device window). Not the desktop window: DXVK's D3D9 makes a Vulkan surface
 * for the device window, and Wine refuses one for the desktop. Aborts if it cannot be made. */
HWND test_device_window(void);
/* COM reference count probe: AddRef then Release, returning the count before the probe. */
ULONG test_refcount(IUnknown *object);
/* The count once it is down to `want` or less, waiting up to 5 s: dxcl gives the references of
 * a released object back when the driver is done with the object, which may be a moment after
 * clReleaseMemObject returns (docs/design.md, "Threads"). */
ULONG test_refcount_settled(IUnknown *object, ULONG want);

/* The system OpenCL driver, loaded by its full path (%SystemRoot%\system32\OpenCL.dll: Wine's
 * builtin under Wine) next to dxcl, so that a test can ask the driver itself what it provides.
 * One pointer per entry of src/core/cl_api.h, NULL where the driver lacks the function. */
struct test_driver {
#define DXCL_API_FN(route, kind, ret, name, version, params, args) ret(CL_API_CALL *name) params;
#include "core/cl_api.h"
#undef DXCL_API_FN
};
/* Loads the system driver once; aborts if it cannot be loaded or if it is dxcl itself. */
const struct test_driver *test_driver(void);
HMODULE test_driver_module(void);
/* The OpenCL.dll this program imports (dxcl); aborts if it is not loaded. */
HMODULE test_dxcl_module(void);
/* True when `address` lies inside the image of `module`. */
bool test_address_in(HMODULE module, const void *address);

/* Waits until *counter reaches `want` (something another thread counts, e.g. callbacks); false
 * after timeout_ms. Hang protection, not a timing check. */
bool test_wait_count(volatile LONG *counter, LONG want, DWORD timeout_ms);
/* An event callback's record: how often it ran and the last status it got. */
struct test_status_box {
    volatile LONG calls;
    cl_int status;
};
/* A clSetEventCallback function that fills the struct test_status_box of user_data. */
void CL_CALLBACK test_keep_status(cl_event event, cl_int status, void *user_data);

/* What the driver itself (the one dxcl forwards to: test_driver()'s system driver, or
 * DXCL_DRIVER's) lists for `context` (a handle dxcl passes through)
 * from clGetSupportedImageFormats with these flags and image type: whether it lists `format`,
 * and whether it could back it the way dxcl does (docs/design.md, "Formats the driver lacks"):
 * the format itself, or CL_RGBA or CL_BGRA of the same channel type. Tests use these to decide
 * which behaviour the driver's answer calls for (native or emulated), never to skip. */
bool test_driver_lists(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                       const cl_image_format *format);
bool test_driver_can_back(cl_context context, cl_mem_flags flags, cl_mem_object_type type,
                          const cl_image_format *format);
/* Whether the context's driver is one that gets `format` wrong in kernels for these access flags
 * (PoCL 3.1: CL_R/CL_A half always, CL_R integer when kernels may read: alpha reads 0), so dxcl
 * must emulate it there. Written apart from src/formats/formats.c; test_formats shows each claim
 * with kernels on the driver. */
bool test_driver_gets_wrong(cl_context context, cl_mem_flags flags, const cl_image_format *format);
/* A device's CL_DEVICE_HOST_UNIFIED_MEMORY, asked of that driver. */
bool test_device_host_unified(cl_device_id device);

/* Progress of a long test: prints "<name>: [<seconds since start> s] <message>" on stdout and
 * flushes it, so that a test stopped at its timeout shows how far it got (stdout of a Windows
 * program is a file under Wine, fully buffered). */
void test_progress(const char *fmt, ...) __attribute__((format(gnu_printf, 1, 2)));
/* Seconds since the program started (since the first call of a test_* helper that notes it). */
double test_elapsed(void);

/* True when the space-separated `list` holds `word` as a whole entry. */
bool test_has_word(const char *list, const char *word);
/* Reads a whole file into a NUL-terminated malloc'ed buffer; NULL if it cannot be opened. */
char *test_read_file(const char *path, size_t *size);

#endif
