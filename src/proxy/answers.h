/* The param names the QRY exports answer themselves (src/proxy/platform.c), written once: the
 * exports in src/proxy/forward.c compare against these lists before jumping to the driver. */
#ifndef DXCL_ANSWERS_H
#define DXCL_ANSWERS_H

#define DXCL_ANSWERS_clGetPlatformInfo(X)                                                          \
    X(clGetPlatformInfo, CL_PLATFORM_EXTENSIONS, answer_extension_string)                          \
    X(clGetPlatformInfo, CL_PLATFORM_EXTENSIONS_WITH_VERSION, answer_extension_versions)
#define DXCL_ANSWERS_clGetDeviceInfo(X)                                                            \
    X(clGetDeviceInfo, CL_DEVICE_EXTENSIONS, answer_extension_string)                              \
    X(clGetDeviceInfo, CL_DEVICE_EXTENSIONS_WITH_VERSION, answer_extension_versions)

#endif
