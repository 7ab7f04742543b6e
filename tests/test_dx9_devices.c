/* Device queries of cl_khr_dx9_media_sharing (clGetDeviceIDsFromDX9MediaAdapterKHR: arrays
 * of adapter types and adapters) and cl_intel_dx9_media_sharing (clGetDeviceIDsFromDX9INTEL)
 * on real D3D9 and D3D9Ex devices, every error of both; the extension strings and the
 * lookup of the eight functions. */
#include "dx9util.h"

static cl_platform_id platform;
static cl_device_id all_devices[16];
static cl_uint all_count;

static bool is_platform_device(cl_device_id device)
{
    for (cl_uint i = 0; i < all_count; i++)
        if (all_devices[i] == device)
            return true;
    return false;
}

/* A successful query: the count, then the devices, then a short array. */
static void check_khr_query(cl_uint count, cl_dx9_media_adapter_type_khr *types, void **adapters,
                            cl_dx9_media_adapter_set_khr set, const char *what)
{
    cl_device_id devices[16] = {0};
    cl_uint num = 0, num2 = 0;
    cl_int err;

    err = dx9.get_device_ids(platform, count, types, adapters, set, 0, NULL, &num);
    CHECK_ERR(err, CL_SUCCESS);
    CHECK(num >= 1 && num <= all_count, "%s: %u devices (the platform has %u)", what, num,
          all_count);
    if (set == CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR)
        CHECK(num == all_count,
              "%s: ALL gives %u devices, the platform has %u (the copy "
              "engine serves every device)",
              what, num, all_count);
    err = dx9.get_device_ids(platform, count, types, adapters, set, 16, devices, &num2);
    CHECK_ERR(err, CL_SUCCESS);
    CHECK(num2 == num, "%s: %u devices, then %u", what, num, num2);
    for (cl_uint i = 0; i < num2 && i < 16; i++)
        CHECK(is_platform_device(devices[i]), "%s: device %u (%p) is not the platform's", what, i,
              (void *)devices[i]);
    /* devices only, then a one-entry array: min(num_entries, count) entries. */
    memset(devices, 0, sizeof(devices));
    CHECK_ERR(dx9.get_device_ids(platform, count, types, adapters, set, 16, devices, NULL),
              CL_SUCCESS);
    CHECK(devices[0] && is_platform_device(devices[0]), "%s: devices without num_devices", what);
    memset(devices, 0, sizeof(devices));
    num2 = 0;
    CHECK_ERR(dx9.get_device_ids(platform, count, types, adapters, set, 1, devices, &num2),
              CL_SUCCESS);
    CHECK(devices[0] && !devices[1] && num2 == num, "%s: one entry asked: %p %p, count %u", what,
          (void *)devices[0], (void *)devices[1], num2);
}

static void khr_queries(IDirect3DDevice9 *dev9, IDirect3DDevice9 *dev9ex)
{
    static const cl_dx9_media_adapter_set_khr sets[] = {
        CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR, CL_ALL_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR};
    IDirect3DDevice9 *devs[2] = {dev9, dev9ex};
    cl_dx9_media_adapter_type_khr types[3];
    void *adapters[3];
    char what[160];

    for (size_t s = 0; s < 2; s++) {
        const char *set = s ? "ALL" : "PREFERRED";
        for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
            types[0] = dx9_adapter_type(kind);
            adapters[0] = devs[kind];
            snprintf(what, sizeof(what), "KHR %s, %s", dx9_kind_name(kind), set);
            check_khr_query(1, types, adapters, sets[s], what);
        }
        /* A D3D9Ex device is a D3D9 device too. */
        types[0] = CL_ADAPTER_D3D9_KHR;
        adapters[0] = dev9ex;
        snprintf(what, sizeof(what), "KHR D3D9Ex device as CL_ADAPTER_D3D9_KHR, %s", set);
        check_khr_query(1, types, adapters, sets[s], what);
        /* Arrays: both devices, and the same device twice. */
        types[0] = CL_ADAPTER_D3D9_KHR;
        adapters[0] = dev9;
        types[1] = CL_ADAPTER_D3D9EX_KHR;
        adapters[1] = dev9ex;
        snprintf(what, sizeof(what), "KHR array {D3D9, D3D9Ex}, %s", set);
        check_khr_query(2, types, adapters, sets[s], what);
        types[2] = CL_ADAPTER_D3D9_KHR;
        adapters[2] = dev9;
        snprintf(what, sizeof(what), "KHR array {D3D9, D3D9Ex, D3D9}, %s", set);
        check_khr_query(3, types, adapters, sets[s], what);
        /* A long array: no limit on the number of adapters. */
        {
            cl_dx9_media_adapter_type_khr many_types[40];
            void *many[40];
            for (int i = 0; i < 40; i++) {
                many_types[i] = i % 2 ? CL_ADAPTER_D3D9EX_KHR : CL_ADAPTER_D3D9_KHR;
                many[i] = i % 2 ? (void *)dev9ex : (void *)dev9;
            }
            snprintf(what, sizeof(what), "KHR array of 40 adapters, %s", set);
            check_khr_query(40, many_types, many, sets[s], what);
        }
    }
}

static void khr_errors(IDirect3DDevice9 *dev9, IDirect3DDevice9 *dev9ex)
{
    const cl_dx9_media_adapter_set_khr preferred = CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR;
    IDirect3DSurface9 *surface = dx9_surface(dev9, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
    cl_dx9_media_adapter_type_khr types[2] = {CL_ADAPTER_D3D9_KHR, CL_ADAPTER_D3D9EX_KHR};
    void *adapters[2] = {dev9, dev9ex};
    cl_device_id devices[4];
    cl_uint num = 0;
    int not_a_device = 1234;
    cl_dx9_media_adapter_type_khr bad_type;
    void *bad_adapter;

    /* CL_INVALID_PLATFORM: NULL and a pointer that is no platform. */
    CHECK_ERR(dx9.get_device_ids(NULL, 1, types, adapters, preferred, 0, NULL, &num),
              CL_INVALID_PLATFORM);
    CHECK_ERR(dx9.get_device_ids((cl_platform_id)&not_a_device, 1, types, adapters, preferred, 0,
                                 NULL, &num),
              CL_INVALID_PLATFORM);
    /* The arrays. */
    CHECK_ERR(dx9.get_device_ids(platform, 0, types, adapters, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, NULL, adapters, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, NULL, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    /* An invalid type value; a type that is valid but not supported here is DXVA. */
    bad_type = 0x1234;
    CHECK_ERR(dx9.get_device_ids(platform, 1, &bad_type, adapters, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    bad_type = CL_D3D9_DEVICE_INTEL; /* the Intel source token is no KHR adapter type */
    CHECK_ERR(dx9.get_device_ids(platform, 1, &bad_type, adapters, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    bad_type = CL_ADAPTER_DXVA_KHR; /* a D3D9 device is no IDXVAHD_Device */
    CHECK_ERR(dx9.get_device_ids(platform, 1, &bad_type, &adapters[1], preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    /* Adapters that are not of their type. */
    bad_adapter = surface;
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, &bad_adapter, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    bad_adapter = &not_a_device;
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, &bad_adapter, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    bad_adapter = NULL;
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, &bad_adapter, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    bad_type = CL_ADAPTER_D3D9EX_KHR; /* a plain D3D9 device is no IDirect3DDevice9Ex */
    CHECK_ERR(dx9.get_device_ids(platform, 1, &bad_type, &adapters[0], preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    /* The second entry of an array is checked too. */
    {
        void *mixed[2] = {dev9, surface};
        CHECK_ERR(dx9.get_device_ids(platform, 2, types, mixed, preferred, 0, NULL, &num),
                  CL_INVALID_VALUE);
        cl_dx9_media_adapter_type_khr mixed_types[2] = {CL_ADAPTER_D3D9_KHR, 0x1234};
        CHECK_ERR(dx9.get_device_ids(platform, 2, mixed_types, adapters, preferred, 0, NULL, &num),
                  CL_INVALID_VALUE);
    }
    /* The set. */
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, 0, 0, NULL, &num), CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, 0x1234, 0, NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, CL_ALL_DEVICES_FOR_DX9_INTEL, 0,
                                 NULL, &num),
              CL_INVALID_VALUE);
    /* The outputs. */
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, preferred, 0, devices, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, preferred, 0, devices, NULL),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, preferred, 4, NULL, NULL),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.get_device_ids(platform, 1, types, adapters, preferred, 0, NULL, NULL),
              CL_INVALID_VALUE);
    IDirect3DSurface9_Release(surface);
}

static void check_intel_query(cl_dx9_device_source_intel source, void *object,
                              cl_dx9_device_set_intel set, const char *what)
{
    cl_device_id devices[16] = {0};
    cl_uint num = 0, num2 = 0;

    CHECK_ERR(dx9.intel_get_device_ids(platform, source, object, set, 0, NULL, &num), CL_SUCCESS);
    CHECK(num >= 1 && num <= all_count, "%s: %u devices (the platform has %u)", what, num,
          all_count);
    if (set == CL_ALL_DEVICES_FOR_DX9_INTEL)
        CHECK(num == all_count, "%s: ALL gives %u devices, the platform has %u", what, num,
              all_count);
    CHECK_ERR(dx9.intel_get_device_ids(platform, source, object, set, 16, devices, &num2),
              CL_SUCCESS);
    CHECK(num2 == num, "%s: %u devices, then %u", what, num, num2);
    for (cl_uint i = 0; i < num2 && i < 16; i++)
        CHECK(is_platform_device(devices[i]), "%s: device %u is not the platform's", what, i);
    memset(devices, 0, sizeof(devices));
    CHECK_ERR(dx9.intel_get_device_ids(platform, source, object, set, 1, devices, NULL),
              CL_SUCCESS);
    CHECK(devices[0] && !devices[1], "%s: one entry asked: %p %p", what, (void *)devices[0],
          (void *)devices[1]);
}

static void intel_queries(IDirect3DDevice9 *dev9, IDirect3DDevice9 *dev9ex)
{
    static const cl_dx9_device_set_intel sets[] = {CL_PREFERRED_DEVICES_FOR_DX9_INTEL,
                                                   CL_ALL_DEVICES_FOR_DX9_INTEL};
    IDirect3DDevice9 *devs[2] = {dev9, dev9ex};
    IDirect3DSurface9 *surface = dx9_surface(dev9, 16, 16, D3DFMT_A8R8G8B8, DX9_PLAIN);
    const cl_dx9_device_set_intel preferred = CL_PREFERRED_DEVICES_FOR_DX9_INTEL;
    cl_device_id devices[4];
    cl_uint num;
    int not_a_device = 1234;
    char what[160];

    for (size_t s = 0; s < 2; s++)
        for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
            snprintf(what, sizeof(what), "Intel %s, %s", dx9_kind_name(kind),
                     s ? "ALL" : "PREFERRED");
            check_intel_query(dx9_intel_source(kind), devs[kind], sets[s], what);
        }
    check_intel_query(CL_D3D9_DEVICE_INTEL, dev9ex, preferred, "Intel D3D9Ex device as D3D9");

    CHECK_ERR(dx9.intel_get_device_ids(NULL, CL_D3D9_DEVICE_INTEL, dev9, preferred, 0, NULL, &num),
              CL_INVALID_PLATFORM);
    CHECK_ERR(dx9.intel_get_device_ids((cl_platform_id)&not_a_device, CL_D3D9_DEVICE_INTEL, dev9,
                                       preferred, 0, NULL, &num),
              CL_INVALID_PLATFORM);
    /* Sources: invalid values, the KHR adapter type, DXVA with a D3D9 device. */
    CHECK_ERR(dx9.intel_get_device_ids(platform, 0x1234, dev9, preferred, 0, NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_ADAPTER_D3D9_KHR, dev9, preferred, 0, NULL, &num),
        CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_DXVA_DEVICE_INTEL, dev9ex, preferred, 0, NULL, &num),
        CL_INVALID_VALUE);
    /* Objects that are not of their source. */
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, surface, preferred, 0, NULL, &num),
        CL_INVALID_VALUE);
    CHECK_ERR(dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, &not_a_device, preferred, 0,
                                       NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, NULL, preferred, 0, NULL, &num),
        CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_D3D9EX_DEVICE_INTEL, dev9, preferred, 0, NULL, &num),
        CL_INVALID_VALUE);
    /* Sets and outputs. */
    CHECK_ERR(dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, dev9, 0x1234, 0, NULL, &num),
              CL_INVALID_VALUE);
    CHECK_ERR(dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, dev9,
                                       CL_PREFERRED_DEVICES_FOR_DX9_MEDIA_ADAPTER_KHR, 0, NULL,
                                       &num),
              CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, dev9, preferred, 0, devices, &num),
        CL_INVALID_VALUE);
    CHECK_ERR(
        dx9.intel_get_device_ids(platform, CL_D3D9_DEVICE_INTEL, dev9, preferred, 4, NULL, NULL),
        CL_INVALID_VALUE);
    IDirect3DSurface9_Release(surface);
}

static void extension_strings_and_lookup(void)
{
    static const char *const names[] = {
        "clGetDeviceIDsFromDX9MediaAdapterKHR", "clCreateFromDX9MediaSurfaceKHR",
        "clEnqueueAcquireDX9MediaSurfacesKHR",  "clEnqueueReleaseDX9MediaSurfacesKHR",
        "clGetDeviceIDsFromDX9INTEL",           "clCreateFromDX9MediaSurfaceINTEL",
        "clEnqueueAcquireDX9ObjectsINTEL",      "clEnqueueReleaseDX9ObjectsINTEL"};
    char extensions[8192] = "";

    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(extensions) - 1,
                                extensions, NULL),
              CL_SUCCESS);
    CHECK(test_has_word(extensions, "cl_khr_dx9_media_sharing"),
          "platform extensions lack cl_khr_dx9_media_sharing: %s", extensions);
    CHECK(test_has_word(extensions, "cl_intel_dx9_media_sharing"),
          "platform extensions lack cl_intel_dx9_media_sharing: %s", extensions);
    CHECK(!test_has_word(extensions, "cl_khr_media_sharing"),
          "the 1.2 man page's name cl_khr_media_sharing is not the extension's name");
    for (cl_uint i = 0; i < all_count; i++) {
        memset(extensions, 0, sizeof(extensions));
        CHECK_ERR(clGetDeviceInfo(all_devices[i], CL_DEVICE_EXTENSIONS, sizeof(extensions) - 1,
                                  extensions, NULL),
                  CL_SUCCESS);
        CHECK(test_has_word(extensions, "cl_khr_dx9_media_sharing") &&
                  test_has_word(extensions, "cl_intel_dx9_media_sharing"),
              "device %u extensions lack the DX9 media sharing names: %s", i, extensions);
    }
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *for_platform = clGetExtensionFunctionAddressForPlatform(platform, names[i]);
        void *plain = clGetExtensionFunctionAddress(names[i]);
        CHECK(for_platform != NULL, "clGetExtensionFunctionAddressForPlatform(%s) is NULL",
              names[i]);
        CHECK(plain == for_platform, "clGetExtensionFunctionAddress(%s) = %p, ForPlatform %p",
              names[i], plain, for_platform);
        CHECK(test_address_in(test_dxcl_module(), for_platform), "%s is not dxcl's", names[i]);
    }
}

int main(void)
{
    IDirect3DDevice9 *dev9, *dev9ex;
    ULONG left;

    platform = test_platform();
    dx9_load(platform);
    CHECK_ERR(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 16, all_devices, &all_count),
              CL_SUCCESS);
    REQUIRE(all_count >= 1 && all_count <= 16, "%u devices", all_count);
    dev9 = dx9_device(DX9_D3D9);
    dev9ex = dx9_device(DX9_D3D9EX);

    extension_strings_and_lookup();
    khr_queries(dev9, dev9ex);
    khr_errors(dev9, dev9ex);
    intel_queries(dev9, dev9ex);

    left = IDirect3DDevice9_Release(dev9);
    CHECK(left == 0, "D3D9 device: %lu references left", (unsigned long)left);
    left = IDirect3DDevice9_Release(dev9ex);
    CHECK(left == 0, "D3D9Ex device: %lu references left", (unsigned long)left);
    return test_finish("dx9_devices");
}
