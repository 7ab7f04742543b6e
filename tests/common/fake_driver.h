/* fake_cl.exe (tests/common/fake_driver.c): an OpenCL driver made up for test_driver_sizes.
 * It has more platforms, more devices and longer strings than any driver of the test stack,
 * so that every list and string dxcl reads from its driver is longer than a small fixed
 * buffer would hold. It runs no kernels and stores no data: it answers queries, keeps
 * contexts, images and programs as records, and serves cl_khr_d3d11_sharing's device query
 * itself so that a routed call can be told from dxcl's own. */
#ifndef DXCL_FAKE_DRIVER_H
#define DXCL_FAKE_DRIVER_H

#define FAKE_PLATFORMS 20
/* Platform 0 is PoCL by name, with 70 devices whose extension strings (over 5,000 bytes) end
 * in cl_khr_device_uuid; device 0 has the LUID FAKE_LUID_ENV names, the others another one.
 * Its contexts list CL_R and CL_RGBA of CL_HALF_FLOAT. */
#define FAKE_WIDE_PLATFORM 0
#define FAKE_WIDE_DEVICES 70
/* Platform 1 lists cl_khr_d3d11_sharing, and so do its first 16 devices, but not the 17th. */
#define FAKE_MIXED_PLATFORM 1
#define FAKE_MIXED_DEVICES 17
/* Platforms 2..18: the platform and its one device list cl_khr_d3d11_sharing. */
#define FAKE_FIRST_SHARING 2
#define FAKE_LAST_SHARING 18
/* Platform 19 and its one device list no sharing. */
#define FAKE_PLAIN_PLATFORM 19
/* The LUID of the wide platform's device 0: 16 hex digits, its 8 bytes in memory order. */
#define FAKE_LUID_ENV "FAKE_CL_LUID"
/* The fake's clGetDeviceIDsFromD3D11KHR answers *num_devices = FAKE_ROUTED_BASE + platform. */
#define FAKE_ROUTED_BASE 1000

/* Builds with a callback stay CL_BUILD_IN_PROGRESS until this is called: it completes them
 * and calls their callbacks (as a driver does from a thread of its own). */
typedef void (*fake_finish_builds_fn)(void);
void fake_finish_builds(void);

#endif
