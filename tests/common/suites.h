/* The shared sharing-API suites. Each runs every check for the API it is given; the test
 * programs (tests/test_<api>_<suite>.c) are one call each. */
#ifndef DXCL_TEST_SUITES_H
#define DXCL_TEST_SUITES_H

#include "interop.h"

/* clGetExtensionFunctionAddress*, clGetDeviceIDsFrom*, context creation and queries. */
void suite_context(const struct test_api *api);
/* Creating shared objects: every error, and the object queries. */
void suite_create(const struct test_api *api);
/* Acquire/release errors and the enqueue guard, with host transfers while acquired. */
void suite_acquire(const struct test_api *api);
/* Round trips through a kernel: every format on every kind of subresource, buffers, and
 * what a kernel reads from R and RG images. */
void suite_roundtrip(const struct test_api *api);
/* Parts of it: formats test_formats[first, first + count); buffers and R/RG reads. */
void suite_roundtrip_formats(const struct test_api *api, size_t first, size_t count);
void suite_roundtrip_misc(const struct test_api *api);
/* One round trip of `format` on an open env: mip 0 of a 2D texture, or of a 3D one. */
void suite_roundtrip_one(struct interop_env *env, const struct test_format *format, bool is_3d,
                         uint32_t seed);
/* Shared images meet ordinary images of the spec's format: copies both ways, a kernel,
 * image <-> buffer copies, and clGetSupportedImageFormats listing every table format. */
void suite_roundtrip_seams(const struct test_api *api);
/* Reference counts of devices and resources. */
void suite_lifetime(const struct test_api *api);
/* Events, user events, several queues, CL_CONTEXT_INTEROP_USER_SYNC. */
void suite_sync(const struct test_api *api);
/* Two threads share one device with multithread protection on, and one context. */
void suite_threads(const struct test_api *api);

#endif
