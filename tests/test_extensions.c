/* Extension strings and extension function lookup: for the platform and every device, the
 * CL_*_EXTENSIONS answer follows the clGet*Info convention (size query, fetch, too-small
 * buffer), keeps every name of the driver's own string, appends the names dxcl registers once
 * each; the _WITH_VERSION forms agree with the driver; clGetExtensionFunctionAddress* gives
 * NULL for names nobody provides and the function for each advertised sharing extension. */
#include "testlib.h"

#include <stdlib.h>

/* The extensions dxcl must add on this stack (the D3D11 backend), with the version each must
 * report in the _WITH_VERSION queries: Khronos assigned 1.0.0 to the KHR sharing extensions
 * (CL_KHR_D3D11_SHARING_EXTENSION_VERSION in newer headers); NVIDIA assigned its extension no
 * version, reported as 0.0.0 as Khronos does for the unversioned Intel sharing extensions
 * (spec/CURRENT.md 1.2 and 4.7). */
static const struct {
    const char *name;
    cl_version version;
} required[] = {
    {"cl_khr_d3d11_sharing", CL_MAKE_VERSION(1, 0, 0)},
    {"cl_nv_d3d11_sharing", CL_MAKE_VERSION(0, 0, 0)},
};
enum { REQUIRED_COUNT = sizeof(required) / sizeof(required[0]) };

/* The entry points of each sharing extension, from the Khronos headers and the NV text. */
static const struct {
    const char *extension;
    const char *functions[10];
} extension_functions[] = {
    {"cl_khr_d3d11_sharing",
     {"clGetDeviceIDsFromD3D11KHR", "clCreateFromD3D11BufferKHR", "clCreateFromD3D11Texture2DKHR",
      "clCreateFromD3D11Texture3DKHR", "clEnqueueAcquireD3D11ObjectsKHR",
      "clEnqueueReleaseD3D11ObjectsKHR"}},
    {"cl_nv_d3d11_sharing",
     {"clGetDeviceIDsFromD3D11NV", "clCreateFromD3D11BufferNV", "clCreateFromD3D11Texture2DNV",
      "clCreateFromD3D11Texture3DNV", "clEnqueueAcquireD3D11ObjectsNV",
      "clEnqueueReleaseD3D11ObjectsNV"}},
    {"cl_khr_d3d10_sharing",
     {"clGetDeviceIDsFromD3D10KHR", "clCreateFromD3D10BufferKHR", "clCreateFromD3D10Texture2DKHR",
      "clCreateFromD3D10Texture3DKHR", "clEnqueueAcquireD3D10ObjectsKHR",
      "clEnqueueReleaseD3D10ObjectsKHR"}},
    {"cl_nv_d3d10_sharing",
     {"clGetDeviceIDsFromD3D10NV", "clCreateFromD3D10BufferNV", "clCreateFromD3D10Texture2DNV",
      "clCreateFromD3D10Texture3DNV", "clEnqueueAcquireD3D10ObjectsNV",
      "clEnqueueReleaseD3D10ObjectsNV"}},
    {"cl_khr_dx9_media_sharing",
     {"clGetDeviceIDsFromDX9MediaAdapterKHR", "clCreateFromDX9MediaSurfaceKHR",
      "clEnqueueAcquireDX9MediaSurfacesKHR", "clEnqueueReleaseDX9MediaSurfacesKHR"}},
    {"cl_intel_dx9_media_sharing",
     {"clGetDeviceIDsFromDX9INTEL", "clCreateFromDX9MediaSurfaceINTEL",
      "clEnqueueAcquireDX9ObjectsINTEL", "clEnqueueReleaseDX9ObjectsINTEL"}},
    {"cl_nv_d3d9_sharing",
     {"clGetDeviceIDsFromD3D9NV", "clCreateFromD3D9VertexBufferNV", "clCreateFromD3D9IndexBufferNV",
      "clCreateFromD3D9SurfaceNV", "clCreateFromD3D9TextureNV", "clCreateFromD3D9CubeTextureNV",
      "clCreateFromD3D9VolumeTextureNV", "clEnqueueAcquireD3D9ObjectsNV",
      "clEnqueueReleaseD3D9ObjectsNV"}},
    {"cl_intel_sharing_format_query_d3d11", {"clGetSupportedD3D11TextureFormatsINTEL"}},
    {"cl_intel_sharing_format_query_d3d10", {"clGetSupportedD3D10TextureFormatsINTEL"}},
    {"cl_intel_sharing_format_query_dx9", {"clGetSupportedDX9MediaSurfaceFormatsINTEL"}},
};

typedef cl_int(CL_API_CALL *info_fn)(void *object, cl_uint param, size_t size, void *value,
                                     size_t *size_ret);

struct target {
    const char *what; /* "platform" or "device N" */
    void *object;
    info_fn dxcl, driver;
    cl_uint extensions, with_version;
};

/* The driver's answer fetched whole (size query, then value); NULL when it gives an error. */
static void *driver_answer(const struct target *t, cl_uint param, size_t *size, cl_int *err)
{
    void *value;

    *err = t->driver(t->object, param, 0, NULL, size);
    if (*err != CL_SUCCESS)
        return NULL;
    value = calloc(1, *size + 1);
    REQUIRE(value != NULL, "out of memory");
    *err = t->driver(t->object, param, *size, value, NULL);
    if (*err != CL_SUCCESS) {
        free(value);
        return NULL;
    }
    return value;
}

/* Splits a space-separated list into words (the list is modified). */
static int split_words(char *list, char **words, int max)
{
    int count = 0;

    for (char *word = strtok(list, " "); word; word = strtok(NULL, " "))
        if (count < max)
            words[count++] = word;
    return count;
}

static void check_extension_string(const struct target *t)
{
    size_t size = 0, size_ret = 0, driver_size = 0;
    cl_int err, driver_err;
    char *value, *copy, *words[512];
    int count;

    /* Size query. */
    CHECK_ERR(t->dxcl(t->object, t->extensions, 0, NULL, &size), CL_SUCCESS);
    REQUIRE(size > 1 && size < 1 << 20, "%s: extension string size %zu", t->what, size);

    /* Fetch with exactly that size: a NUL-terminated string of size - 1 characters. */
    value = malloc(size + 16);
    REQUIRE(value != NULL, "out of memory");
    memset(value, 'x', size + 16);
    size_ret = 0;
    CHECK_ERR(t->dxcl(t->object, t->extensions, size, value, &size_ret), CL_SUCCESS);
    CHECK(size_ret == size, "%s: fetch reports %zu bytes, size query %zu", t->what, size_ret, size);
    CHECK(memchr(value, 0, size) == value + size - 1, "%s: string is not %zu characters long",
          t->what, size - 1);
    CHECK(value[size] == 'x', "%s: wrote past the %zu-byte answer", t->what, size);
    value[size - 1] = 0;
    printf("%s: %s\n", t->what, value);

    /* A larger buffer gets the same string; size_ret stays the exact size. */
    char *big = calloc(1, size + 64);
    REQUIRE(big != NULL, "out of memory");
    size_ret = 0;
    CHECK_ERR(t->dxcl(t->object, t->extensions, size + 64, big, &size_ret), CL_SUCCESS);
    CHECK(size_ret == size, "%s: large buffer reports %zu bytes", t->what, size_ret);
    CHECK(!strcmp(big, value), "%s: large buffer gets another string", t->what);
    free(big);

    /* One byte short: CL_INVALID_VALUE, the buffer untouched. */
    char *small = malloc(size);
    REQUIRE(small != NULL, "out of memory");
    memset(small, 'y', size);
    CHECK_ERR(t->dxcl(t->object, t->extensions, size - 1, small, NULL), CL_INVALID_VALUE);
    CHECK(small[0] == 'y', "%s: a failed fetch wrote to the buffer", t->what);
    CHECK_ERR(t->dxcl(t->object, t->extensions, 1, small, NULL), CL_INVALID_VALUE);
    free(small);

    /* Names are whole words, listed once. */
    copy = strdup(value);
    count = split_words(copy, words, 512);
    CHECK(count > 0 && count < 512, "%s: %d names", t->what, count);
    for (int i = 0; i < count; i++)
        for (int j = 0; j < i; j++)
            CHECK(strcmp(words[i], words[j]) != 0, "%s: %s is listed twice", t->what, words[i]);
    for (int r = 0; r < REQUIRED_COUNT; r++)
        CHECK(test_has_word(value, required[r].name), "%s: %s is not advertised", t->what,
              required[r].name);

    /* The driver's own names are all still there, first, in the driver's order: dxcl's names
     * are appended. */
    char *driver = driver_answer(t, t->extensions, &driver_size, &driver_err);
    CHECK_ERR(driver_err, CL_SUCCESS);
    if (driver) {
        char *driver_words[512];
        char *driver_copy = strdup(driver);
        int driver_count = split_words(driver_copy, driver_words, 512);
        printf("%s (driver): %s\n", t->what, driver);
        for (int i = 0; i < driver_count; i++)
            CHECK(test_has_word(value, driver_words[i]), "%s: the driver's %s is missing", t->what,
                  driver_words[i]);
        for (int i = 0; i < driver_count && i < count; i++)
            CHECK(!strcmp(words[i], driver_words[i]), "%s: name %d is %s, the driver's is %s",
                  t->what, i, words[i], driver_words[i]);
        CHECK(count >= driver_count, "%s: %d names, the driver has %d", t->what, count,
              driver_count);
        for (int i = driver_count; i < count; i++) {
            printf("%s: dxcl adds %s\n", t->what, words[i]);
            /* Khronos names are "cl_<vendor>_<name>" in lower case; programs compare exactly. */
            bool well_formed = !strncmp(words[i], "cl_", 3);
            for (const char *c = words[i]; *c; c++)
                well_formed &= (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
            CHECK(well_formed, "%s: dxcl adds \"%s\": not a lower-case cl_ extension name", t->what,
                  words[i]);
        }
        free(driver_copy);
        free(driver);
    }
    free(copy);
    free(value);

    /* Without a value buffer or size_ret the call still succeeds (nothing to return). */
    CHECK_ERR(t->dxcl(t->object, t->extensions, 0, NULL, NULL), CL_SUCCESS);
    err = t->dxcl(t->object, t->extensions, 0, NULL, &size_ret);
    CHECK_ERR(err, CL_SUCCESS);
    CHECK(size_ret == size, "%s: second size query %zu, first %zu", t->what, size_ret, size);
}

static const cl_name_version *find_version(const cl_name_version *list, size_t count,
                                           const char *name, int *hits)
{
    const cl_name_version *found = NULL;

    *hits = 0;
    for (size_t i = 0; i < count; i++)
        if (!strncmp(list[i].name, name, CL_NAME_VERSION_MAX_NAME_SIZE)) {
            (*hits)++;
            found = &list[i];
        }
    return found;
}

static void check_extension_versions(const struct target *t)
{
    size_t driver_size = 0, size = 0;
    cl_int driver_err, err;
    cl_name_version *driver = driver_answer(t, t->with_version, &driver_size, &driver_err);

    err = t->dxcl(t->object, t->with_version, 0, NULL, &size);
    if (driver_err != CL_SUCCESS) {
        /* A 1.2 driver (Wine's) does not know the query: dxcl answers as the driver does. */
        printf("%s: driver answers _WITH_VERSION with %d\n", t->what, driver_err);
        CHECK_ERR(err, driver_err);
        cl_name_version one[4];
        CHECK_ERR(t->dxcl(t->object, t->with_version, sizeof(one), one, NULL), driver_err);
        return;
    }

    CHECK_ERR(err, CL_SUCCESS);
    CHECK(size % sizeof(cl_name_version) == 0, "%s: _WITH_VERSION size %zu", t->what, size);
    size_t count = size / sizeof(cl_name_version),
           driver_count = driver_size / sizeof(cl_name_version);
    printf("%s: _WITH_VERSION has %zu entries, the driver's %zu\n", t->what, count, driver_count);
    cl_name_version *list = calloc(count + 1, sizeof(*list));
    REQUIRE(list != NULL, "out of memory");
    size_t size_ret = 0;
    CHECK_ERR(t->dxcl(t->object, t->with_version, size, list, &size_ret), CL_SUCCESS);
    CHECK(size_ret == size, "%s: fetch reports %zu bytes, size query %zu", t->what, size_ret, size);
    if (size >= sizeof(cl_name_version))
        CHECK_ERR(t->dxcl(t->object, t->with_version, size - 1, list, NULL), CL_INVALID_VALUE);

    for (int r = 0; r < REQUIRED_COUNT; r++) {
        int hits;
        const cl_name_version *entry = find_version(list, count, required[r].name, &hits);
        CHECK(hits == 1, "%s: %s appears %d times in _WITH_VERSION", t->what, required[r].name,
              hits);
        if (entry && !find_version(driver, driver_count, required[r].name, &hits))
            CHECK(entry->version == required[r].version,
                  "%s: %s has version %u.%u.%u, want %u.%u.%u", t->what, required[r].name,
                  CL_VERSION_MAJOR(entry->version), CL_VERSION_MINOR(entry->version),
                  CL_VERSION_PATCH(entry->version), CL_VERSION_MAJOR(required[r].version),
                  CL_VERSION_MINOR(required[r].version), CL_VERSION_PATCH(required[r].version));
    }
    /* The driver's entries come first, unchanged; what dxcl appends is also in its string. */
    for (size_t i = 0; i < driver_count && i < count; i++)
        CHECK(!memcmp(&list[i], &driver[i], sizeof(list[i])),
              "%s: entry %zu is %.64s, the "
              "driver's is %.64s",
              t->what, i, list[i].name, driver[i].name);
    size_t string_size = 0;
    CHECK_ERR(t->dxcl(t->object, t->extensions, 0, NULL, &string_size), CL_SUCCESS);
    char *string = calloc(1, string_size + 1);
    REQUIRE(string != NULL, "out of memory");
    CHECK_ERR(t->dxcl(t->object, t->extensions, string_size, string, NULL), CL_SUCCESS);
    for (size_t i = driver_count; i < count; i++) {
        char name[CL_NAME_VERSION_MAX_NAME_SIZE + 1] = "";
        memcpy(name, list[i].name, CL_NAME_VERSION_MAX_NAME_SIZE);
        printf("%s: _WITH_VERSION adds %s %u.%u.%u\n", t->what, name,
               CL_VERSION_MAJOR(list[i].version), CL_VERSION_MINOR(list[i].version),
               CL_VERSION_PATCH(list[i].version));
        CHECK(test_has_word(string, name), "%s: %s is versioned but not in the string", t->what,
              name);
    }
    free(string);
    for (size_t i = 0; i < driver_count; i++) {
        int hits;
        const cl_name_version *entry = find_version(list, count, driver[i].name, &hits);
        CHECK(hits == 1, "%s: the driver's %.64s appears %d times", t->what, driver[i].name, hits);
        CHECK(entry && entry->version == driver[i].version, "%s: the driver's %.64s changed",
              t->what, driver[i].name);
    }
    free(list);
    free(driver);
}

/* Advertised sharing extensions have their functions; names nobody has give NULL. */
static void check_function_lookup(cl_platform_id platform, const char *platform_extensions)
{
    HMODULE dxcl = test_dxcl_module();
    static const char *const unknown[] = {"clNoSuchFunctionXYZ", "clGetDeviceIDsFromD3D11KHRX",
                                          "clGetDeviceIDsFromD3D11", "",
                                          "clgetdeviceidsfromd3d11khr"};

    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        CHECK(clGetExtensionFunctionAddress(unknown[i]) == NULL,
              "clGetExtensionFunctionAddress(\"%s\") is not NULL", unknown[i]);
        CHECK(clGetExtensionFunctionAddressForPlatform(platform, unknown[i]) == NULL,
              "clGetExtensionFunctionAddressForPlatform(\"%s\") is not NULL", unknown[i]);
    }
    CHECK(clGetExtensionFunctionAddress(NULL) == NULL, "clGetExtensionFunctionAddress(NULL)");
    CHECK(clGetExtensionFunctionAddressForPlatform(platform, NULL) == NULL,
          "clGetExtensionFunctionAddressForPlatform(NULL)");

    for (size_t e = 0; e < sizeof(extension_functions) / sizeof(extension_functions[0]); e++) {
        bool advertised = test_has_word(platform_extensions, extension_functions[e].extension);
        printf("%s: %s\n", extension_functions[e].extension,
               advertised ? "advertised" : "not advertised");
        if (!advertised)
            continue;
        for (const char *const *name = extension_functions[e].functions; *name; name++) {
            void *address = clGetExtensionFunctionAddressForPlatform(platform, *name);
            CHECK(address != NULL, "%s is advertised but %s is not found",
                  extension_functions[e].extension, *name);
            CHECK(test_address_in(dxcl, address), "%s resolves outside dxcl", *name);
            CHECK(clGetExtensionFunctionAddress(*name) == address, "the two lookups of %s disagree",
                  *name);
        }
    }
}

int main(void)
{
    const struct test_driver *drv = test_driver();
    cl_platform_id platforms[8];
    cl_uint num_platforms = 0;

    CHECK_ERR(clGetPlatformIDs(8, platforms, &num_platforms), CL_SUCCESS);
    REQUIRE(num_platforms > 0, "no OpenCL platform");
    if (num_platforms > 8)
        num_platforms = 8;

    for (cl_uint p = 0; p < num_platforms; p++) {
        char what[64];
        cl_device_id devices[16];
        cl_uint num_devices = 0;

        snprintf(what, sizeof(what), "platform %u", p);
        struct target platform = {what,
                                  platforms[p],
                                  (info_fn)clGetPlatformInfo,
                                  (info_fn)drv->clGetPlatformInfo,
                                  CL_PLATFORM_EXTENSIONS,
                                  CL_PLATFORM_EXTENSIONS_WITH_VERSION};
        check_extension_string(&platform);
        check_extension_versions(&platform);

        size_t size = 0;
        CHECK_ERR(clGetPlatformInfo(platforms[p], CL_PLATFORM_EXTENSIONS, 0, NULL, &size),
                  CL_SUCCESS);
        char *extensions = calloc(1, size + 1);
        REQUIRE(extensions != NULL, "out of memory");
        CHECK_ERR(clGetPlatformInfo(platforms[p], CL_PLATFORM_EXTENSIONS, size, extensions, NULL),
                  CL_SUCCESS);
        check_function_lookup(platforms[p], extensions);
        free(extensions);

        CHECK_ERR(clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &num_devices),
                  CL_SUCCESS);
        CHECK(num_devices > 0, "%s has no device", what);
        for (cl_uint d = 0; d < num_devices && d < 16; d++) {
            char device_what[64];
            snprintf(device_what, sizeof(device_what), "platform %u device %u", p, d);
            struct target device = {device_what,
                                    devices[d],
                                    (info_fn)clGetDeviceInfo,
                                    (info_fn)drv->clGetDeviceInfo,
                                    CL_DEVICE_EXTENSIONS,
                                    CL_DEVICE_EXTENSIONS_WITH_VERSION};
            check_extension_string(&device);
            check_extension_versions(&device);
        }
    }
    /* Other queries are the driver's answers, untouched. */
    char name[256] = "", driver_name[256] = "";
    CHECK_ERR(clGetPlatformInfo(platforms[0], CL_PLATFORM_NAME, sizeof(name), name, NULL),
              CL_SUCCESS);
    CHECK_ERR(drv->clGetPlatformInfo(platforms[0], CL_PLATFORM_NAME, sizeof(driver_name),
                                     driver_name, NULL),
              CL_SUCCESS);
    CHECK(!strcmp(name, driver_name), "platform name %s, driver says %s", name, driver_name);
    return test_finish("extensions");
}
