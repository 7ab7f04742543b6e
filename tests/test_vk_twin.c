/* The GPU path's twins (docs/proxy.md, "The Vulkan layer") on the real stack: DXVK's D3D11
 * device, dxcl's Vulkan layer VK_LAYER_DXCL_interop below it on the host, and the builtin pair's
 * dxclunixLayerCall between them (core/twin.h). Registered as test_vk_twin.unix_dxvk, under the
 * Khronos validation layer: a twin needs DXVK (wined3d has no Vulkan image to name), the Unix
 * side and the layer (tests/CMakeLists.txt). Under wined3d (test_vk_twin.unix, the GPU rig's
 * hybrid mode) it says in one line that Direct3D is not DXVK, proven by the failed
 * QueryInterface, and checks only that the pair answers that the layer never loaded.
 *   - Sharing starts on the device of a texture (dxcl loaded its Unix side before the program
 *     made the device, so the layer follows it).
 *   - A host-visible twin of a DEFAULT R8G8B8A8 texture (the test-only import) is made on the
 *     texture's VkDevice, with its mapping, pitches, size and device UUID.
 *   - DXVK wraps it (IDXGIVkInteropDevice1::CreateTexture2DFromVkImage); a GPU copy texture ->
 *     twin shows every pixel in the mapping; a pattern written there and copied twin -> texture
 *     reads back exactly through a staging copy.
 *   - A direct twin of a 512x256 texture made after sharing started is DXVK's image itself, with
 *     an fd of its memory; the texture keeps its pixels after it; a render target of that size
 *     and the 67x45 texture have none.
 *   - A twin of an image the device did not make fails with the layer's error and holds
 *     nothing; an export, a `ready`, a release state and a hand-over of a twin id the layer never
 *     issued are refused with no fd, a batch of more than DXCL_HAND_OVER_MAX twins is refused,
 *     and fd handles never issued (or closed) close nothing. */
#include "testlib.h"

#include <initguid.h>
#include "gpu/dxvk_interop.h"
#include "real_driver.h"
#include "core/twin.h"

#include <stdlib.h>
#include <string.h>

enum { WIDTH = 67, HEIGHT = 45 }; /* odd: rows are padded to the layer's row pitch */
#define VK_FORMAT_R8G8B8A8_UNORM 37
#define VK_IMAGE_TYPE_2D 1

typedef int32_t(WINAPI *layer_call_fn)(uint32_t call, void *params, uint32_t *layer_missing);
typedef BOOL(WINAPI *close_fd_fn)(int32_t handle);
static layer_call_fn layer_call;
static close_fd_fn close_fd; /* the fd handle of a host fd the layer gave out: the Unix side
                              * closes it */

/* A call of the layer through the pair: its answer; *missing where the layer is not loaded. */
static int32_t call(enum dxcl_layer_call which, void *params, uint32_t *missing)
{
    uint32_t unused;

    return layer_call(which, params, missing ? missing : &unused);
}

static uint32_t pixel(uint32_t seed, unsigned x, unsigned y)
{
    uint32_t v = seed ^ (x * 0x9E3779B1u) ^ (y * 0x85EBCA77u);

    return v ^ (v >> 15);
}

static void fill(uint32_t *pixels, uint32_t seed)
{
    for (unsigned y = 0; y < HEIGHT; y++)
        for (unsigned x = 0; x < WIDTH; x++)
            pixels[y * WIDTH + x] = pixel(seed, x, y);
}

/* False when Wine's DLL folders hold no pair (the rig's RIG_UNIX=0): nothing here can run, and
 * the line says so. */
static bool find_pair(void)
{
    real_driver_lookup_fn lookup;
    HMODULE pair = real_driver_load_unix_side(&lookup);

    if (!pair) {
        printf("no dxclunix.dll in Wine's DLL folders: no twin without dxcl's Unix side\n");
        return false;
    }
    layer_call = (layer_call_fn)(void *)GetProcAddress(pair, "dxclunixLayerCall");
    close_fd = (close_fd_fn)(void *)GetProcAddress(pair, "dxclunixCloseFd");
    REQUIRE(layer_call && close_fd, "dxclunix.dll exports no dxclunixLayerCall, dxclunixCloseFd");
    return true;
}

/* A DEFAULT RGBA8 texture of the program's, with `pixels` (width x height) in it. */
static ID3D11Texture2D *program_texture(ID3D11Device *device, UINT width, UINT height, UINT bind,
                                        const uint32_t *pixels)
{
    D3D11_TEXTURE2D_DESC desc = {
        width, height, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, {1, 0}, D3D11_USAGE_DEFAULT, bind, 0, 0};
    D3D11_SUBRESOURCE_DATA init = {pixels, width * 4, 0};
    ID3D11Texture2D *texture = NULL;
    HRESULT hr = ID3D11Device_CreateTexture2D(device, &desc, &init, &texture);

    REQUIRE(SUCCEEDED(hr), "CreateTexture2D %ux%u RGBA8 (bind 0x%x): 0x%08lx", width, height, bind,
            (unsigned long)hr);
    return texture;
}

/* The host VkImage behind the texture. */
static dxvk_vk_image vulkan_image(ID3D11Texture2D *texture)
{
    IDXGIVkInteropSurface *surface = NULL;
    struct dxvk_image_create_info info = {.s_type = DXVK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    dxvk_vk_image image = 0;
    int32_t layout = 0;
    HRESULT hr =
        ID3D11Texture2D_QueryInterface(texture, &IID_IDXGIVkInteropSurface, (void **)&surface);

    REQUIRE(SUCCEEDED(hr), "IDXGIVkInteropSurface (is Direct3D DXVK's?): 0x%08lx",
            (unsigned long)hr);
    hr = surface->lpVtbl->GetVulkanImageInfo(surface, &image, &layout, &info);
    surface->lpVtbl->Release(surface);
    REQUIRE(SUCCEEDED(hr) && image, "GetVulkanImageInfo: 0x%08lx", (unsigned long)hr);
    CHECK(info.format == VK_FORMAT_R8G8B8A8_UNORM, "the texture's VkFormat is %d", info.format);
    return image;
}

static void wait_idle(ID3D11Device *device, ID3D11DeviceContext *immediate)
{
    D3D11_QUERY_DESC desc = {D3D11_QUERY_EVENT, 0};
    ID3D11Query *query = NULL;
    BOOL done = FALSE;

    REQUIRE(SUCCEEDED(ID3D11Device_CreateQuery(device, &desc, &query)), "CreateQuery(EVENT)");
    ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
    ID3D11DeviceContext_Flush(immediate);
    while (ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)query, &done, sizeof(done),
                                       0) != S_OK)
        Sleep(0);
    ID3D11Query_Release(query);
}

static struct dxcl_twin make_twin(uint64_t device, dxvk_vk_image image, UINT width, UINT height,
                                  bool host_visible, bool direct, uint32_t *missing)
{
    struct dxcl_layer_twin_create create = {.request = {device, image, VK_FORMAT_R8G8B8A8_UNORM,
                                                        VK_IMAGE_TYPE_2D, width, height, 1,
                                                        host_visible, direct}};

    call(DXCL_LAYER_TWIN_CREATE, &create, missing);
    return create.twin;
}

static void give_up(uint64_t twin)
{
    struct dxcl_layer_twin gone = {.twin = twin};

    CHECK(call(DXCL_LAYER_TWIN_DESTROY, &gone, NULL) == 0, "twin %llu given up: %s",
          (unsigned long long)twin, gone.error.text);
}

static void check_twin(const struct dxcl_twin *twin)
{
    static const uint8_t zero[16];

    CHECK(twin->id && twin->image, "twin %llu, image 0x%llx", (unsigned long long)twin->id,
          (unsigned long long)twin->image);
    CHECK(twin->fd == -1, "a host-visible twin's fd is closed after the export (fd %d)", twin->fd);
    CHECK(twin->host != 0, "a host-visible twin is mapped");
    CHECK(twin->row_pitch >= WIDTH * 4u && twin->slice_pitch >= twin->row_pitch * (HEIGHT - 1),
          "row pitch %llu, slice pitch %llu", (unsigned long long)twin->row_pitch,
          (unsigned long long)twin->slice_pitch);
    CHECK(twin->size >= twin->row_pitch * (HEIGHT - 1) + WIDTH * 4u, "size %llu",
          (unsigned long long)twin->size);
    CHECK(memcmp(twin->device_uuid, zero, sizeof(zero)) != 0, "the device UUID is filled");
}

/* The first pixel of the mapping that differs from `pixels`, or -1. */
static long mapping_differs(const struct dxcl_twin *twin, const uint32_t *pixels)
{
    for (unsigned y = 0; y < HEIGHT; y++) {
        const uint32_t *row =
            (const uint32_t *)((const char *)(uintptr_t)twin->host + y * twin->row_pitch);

        for (unsigned x = 0; x < WIDTH; x++)
            if (row[x] != pixels[y * WIDTH + x])
                return (long)(y * WIDTH + x);
    }
    return -1;
}

static void write_mapping(const struct dxcl_twin *twin, const uint32_t *pixels)
{
    for (unsigned y = 0; y < HEIGHT; y++)
        memcpy((char *)(uintptr_t)twin->host + y * twin->row_pitch, pixels + y * WIDTH, WIDTH * 4);
}

static ID3D11Texture2D *wrap_twin(IDXGIVkInteropDevice1 *interop, const struct dxcl_twin *twin)
{
    D3D11_TEXTURE2D_DESC1 desc = {WIDTH,
                                  HEIGHT,
                                  1,
                                  1,
                                  DXGI_FORMAT_R8G8B8A8_UNORM,
                                  {1, 0},
                                  D3D11_USAGE_DEFAULT,
                                  0,
                                  0,
                                  0,
                                  D3D11_TEXTURE_LAYOUT_UNDEFINED};
    ID3D11Texture2D *texture = NULL;
    HRESULT hr = interop->lpVtbl->CreateTexture2DFromVkImage(interop, &desc, twin->image, &texture);

    REQUIRE(SUCCEEDED(hr) && texture, "CreateTexture2DFromVkImage(twin 0x%llx): 0x%08lx",
            (unsigned long long)twin->image, (unsigned long)hr);
    return texture;
}

static void check_round_trip(ID3D11Device *device, ID3D11DeviceContext *immediate,
                             IDXGIVkInteropDevice1 *interop, uint64_t shared,
                             ID3D11Texture2D *texture, dxvk_vk_image image)
{
    static uint32_t expected[WIDTH * HEIGHT], got[WIDTH * HEIGHT];
    struct dxcl_twin twin = make_twin(shared, image, WIDTH, HEIGHT, true, false, NULL);
    long at;

    REQUIRE(twin.id, "a host-visible twin: %d (%s)", twin.error.result, twin.error.text);
    check_twin(&twin);
    ID3D11Texture2D *wrapped = wrap_twin(interop, &twin);

    fill(expected, 0x1234abcdu);
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)wrapped,
                                     (ID3D11Resource *)texture);
    wait_idle(device, immediate);
    at = mapping_differs(&twin, expected);
    CHECK(at < 0,
          "texture -> twin on the GPU: the mapping holds every pixel (first differs at %ld)", at);

    fill(expected, 0x5eed0042u);
    write_mapping(&twin, expected);
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)texture,
                                     (ID3D11Resource *)wrapped);
    test_d3d11_read(device, (ID3D11Resource *)texture, got, WIDTH * 4, HEIGHT);
    CHECK(!memcmp(got, expected, sizeof(got)), "mapping -> twin -> texture reads back exactly");

    wait_idle(device, immediate);
    ID3D11Texture2D_Release(wrapped);
    give_up(twin.id);
}

/* An image the device did not make: the layer's error (`want`), nothing made. */
static void check_unknown_image(uint64_t shared, const char *want)
{
    uint32_t missing = 0;
    struct dxcl_twin twin = make_twin(shared, 0x7e57ull, WIDTH, HEIGHT, true, false, &missing);

    CHECK(!twin.id && !twin.image && !twin.host,
          "a twin of an unknown image fails, holding nothing");
    CHECK(missing ? !strcmp(want, "is not loaded") : strstr(twin.error.text, want) != NULL,
          "its error: %s (want \"%s\")", missing ? "the layer is not loaded" : twin.error.text,
          want);
}

/* With the layer loaded: ids it never issued and a batch of too many twins are refused, and no
 * fd comes back (the Unix side checks the count before the layer reads the items). */
static void check_bad_input(uint64_t shared)
{
    static struct dxcl_hand_over batch;
    struct dxcl_layer_twin_fd fd = {.twin = 0xdead, .fd = 1};
    struct dxcl_layer_release_state state = {.twin = 0xdead, .value = 1};
    uint32_t missing = 1;

    CHECK(call(DXCL_LAYER_TWIN_EXPORT, &fd, &missing) != 0 && !missing && fd.fd == -1 &&
              fd.error.text[0],
          "an export of twin 0xdead: refused, no fd (%s)", fd.error.text);
    fd = (struct dxcl_layer_twin_fd){.twin = 0xdead, .fd = 2};
    CHECK(call(DXCL_LAYER_TWIN_READY_FD, &fd, &missing) != 0 && !missing && fd.fd == -1,
          "twin 0xdead's `ready`: refused, no fd (%s)", fd.error.text);
    CHECK(call(DXCL_LAYER_RELEASE_STATE, &state, &missing) != 0 && !missing,
          "the release state of twin 0xdead: refused");
    batch = (struct dxcl_hand_over){.device = shared, .count = DXCL_HAND_OVER_MAX + 1};
    CHECK(call(DXCL_LAYER_HAND_OVER, &batch, &missing) == -1 && !missing,
          "a hand-over of %u twins: refused", batch.count);
    batch.count = 1;
    batch.items[0] = (struct dxcl_hand_over_item){.twin = 0xdead, .op = DXCL_HAND_IN};
    CHECK(call(DXCL_LAYER_HAND_OVER, &batch, &missing) != 0 && !missing,
          "a hand-over of twin 0xdead: refused (%s)", batch.error.text);
    CHECK(!close_fd(1) && !close_fd(0x40000000 | 0x123456), "fd handles never issued are refused");
}

/* Sharing starts on the device of a texture: the layer's id of its Vulkan device. */
static uint64_t start_sharing(dxvk_vk_image image)
{
    struct dxcl_layer_share share = {.image = image};

    REQUIRE(call(DXCL_LAYER_SHARE, &share, NULL) == 0 && share.device,
            "sharing on the texture's device: %s", share.error.text);
    return share.device;
}

/* A direct twin (core/twin.h): the layer made DXVK's image of a large texture exportable, with
 * dedicated memory, so the twin is that image itself; the texture keeps its pixels after the
 * twin goes. A texture below the layer's least size has none, nor a render target. */
static void check_direct_twin(ID3D11Device *device, uint64_t shared, ID3D11Texture2D *small)
{
    enum { BIG_WIDTH = 512, BIG_HEIGHT = 256 };
    static uint32_t pixels[BIG_WIDTH * BIG_HEIGHT], got[BIG_WIDTH * BIG_HEIGHT];
    ID3D11Texture2D *texture;
    struct dxcl_twin twin;

    for (unsigned i = 0; i < BIG_WIDTH * BIG_HEIGHT; i++)
        pixels[i] = pixel(0xd17ec7u, i % BIG_WIDTH, i / BIG_WIDTH);
    texture = program_texture(device, BIG_WIDTH, BIG_HEIGHT, D3D11_BIND_SHADER_RESOURCE, pixels);
    dxvk_vk_image image = vulkan_image(texture);
    twin = make_twin(shared, image, BIG_WIDTH, BIG_HEIGHT, false, true, NULL);
    REQUIRE(twin.id, "a direct twin of DXVK's %ux%u image: %d (%s)", BIG_WIDTH, BIG_HEIGHT,
            twin.error.result, twin.error.text);
    CHECK(twin.direct && twin.image == image && twin.fd >= 0,
          "the twin is DXVK's image itself (0x%llx, fd %d)", (unsigned long long)twin.image,
          twin.fd);
    CHECK(twin.size >= BIG_WIDTH * BIG_HEIGHT * 4ull, "its memory's size %llu",
          (unsigned long long)twin.size);
    CHECK(close_fd(twin.fd), "the twin's fd handle closes");
    CHECK(!close_fd(twin.fd), "a closed fd handle is stale");
    give_up(twin.id);
    test_d3d11_read(device, (ID3D11Resource *)texture, got, BIG_WIDTH * 4, BIG_HEIGHT);
    CHECK(!memcmp(got, pixels, sizeof(got)), "the texture keeps its pixels after the twin goes");
    ID3D11Texture2D_Release(texture);

    /* A render target may be kept compressed (core/twin.h): it keeps its copying twin. */
    texture = program_texture(device, BIG_WIDTH, BIG_HEIGHT,
                              D3D11_BIND_SHADER_RESOURCE | D3D11_BIND_RENDER_TARGET, pixels);
    twin = make_twin(shared, vulkan_image(texture), BIG_WIDTH, BIG_HEIGHT, false, true, NULL);
    CHECK(!twin.id && strstr(twin.error.text, "a render target"),
          "a render target has no direct twin: %s", twin.error.text);
    ID3D11Texture2D_Release(texture);
    twin = make_twin(shared, vulkan_image(small), WIDTH, HEIGHT, false, true, NULL);
    CHECK(!twin.id && strstr(twin.error.text, "not made exportable"),
          "a %ux%u texture has no direct twin: %s", WIDTH, HEIGHT, twin.error.text);
}

int main(void)
{
    static uint32_t pixels[WIDTH * HEIGHT];
    ID3D11DeviceContext *immediate;
    ID3D11Device *device = test_d3d11_device(&immediate);
    IDXGIVkInteropDevice1 *interop = NULL;
    uint64_t shared;

    if (!find_pair()) {
        /* CI runs this only with the pair (test_vk_twin.unix*), so there this is a failure. */
        CHECK(!getenv("DXCL_WINE_UNIX"), "DXCL_WINE_UNIX is set, yet no pair was found");
        ID3D11DeviceContext_Release(immediate);
        ID3D11Device_Release(device);
        return test_finish("vk_twin");
    }
    HRESULT hr = ID3D11Device_QueryInterface(device, &IID_IDXGIVkInteropDevice1, (void **)&interop);
    if (FAILED(hr)) {
        /* The rig's hybrid mode (wined3d): no Vulkan image behind a texture, nothing to twin. CI
         * runs this only on DXVK, where wine-run.sh requires DXVK to have made the device. */
        printf("Direct3D is not DXVK (QueryInterface(IDXGIVkInteropDevice1): 0x%08lx): no "
               "texture to twin\n",
               (unsigned long)hr);
        CHECK(hr == E_NOINTERFACE, "QueryInterface failed with 0x%08lx, want E_NOINTERFACE",
              (unsigned long)hr);
        /* Nothing made a Vulkan instance, so the layer never loaded: the pair says so. */
        check_unknown_image(1, "is not loaded");
        ID3D11DeviceContext_Release(immediate);
        ID3D11Device_Release(device);
        return test_finish("vk_twin");
    }
    fill(pixels, 0x1234abcdu);
    ID3D11Texture2D *texture =
        program_texture(device, WIDTH, HEIGHT, D3D11_BIND_SHADER_RESOURCE, pixels);
    dxvk_vk_image image = vulkan_image(texture);

    shared = start_sharing(image);
    check_round_trip(device, immediate, interop, shared, texture, image);
    check_unknown_image(shared, "made no image 0x7e57");
    check_bad_input(shared);
    check_direct_twin(device, shared, texture);

    ID3D11Texture2D_Release(texture);
    interop->lpVtbl->Release(interop);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
    return test_finish("vk_twin");
}
