/* The rig itself: Direct3D 11, 10, 10.1, 9Ex and 9 devices can be created in this prefix on
 * this display, and each does real work (a texture or surface round trip). If this test fails,
 * the sharing tests cannot mean anything: fix the rig (scripts/wine-run.sh, Xvfb, Mesa) first.
 * D3D9 also creates and locks NV12 and YV12 surfaces, which the DX9 media sharing needs. */
#include "testlib.h"

#include <d3d10.h>
#include <d3d10_1.h>
#include <d3d9.h>

enum { W = 16, H = 8 };

static void fill_pattern(uint32_t *pixels)
{
    for (int i = 0; i < W * H; i++)
        pixels[i] = 0xff000000u | (uint32_t)(i * 0x010203);
}

static void check_d3d11(void)
{
    static const D3D_FEATURE_LEVEL level = D3D_FEATURE_LEVEL_11_0;
    D3D_FEATURE_LEVEL got_level = 0;
    ID3D11Device *device = NULL;
    ID3D11DeviceContext *immediate = NULL;
    HRESULT hr = D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, 0, &level, 1,
                                   D3D11_SDK_VERSION, &device, &got_level, &immediate);
    uint32_t pixels[W * H];

    REQUIRE(SUCCEEDED(hr) && device && immediate, "D3D11CreateDevice(11_0): 0x%08lx",
            (unsigned long)hr);
    CHECK(got_level == D3D_FEATURE_LEVEL_11_0, "D3D11 feature level 0x%x", got_level);
    CHECK(ID3D11Device_GetFeatureLevel(device) == D3D_FEATURE_LEVEL_11_0,
          "device feature level 0x%x", ID3D11Device_GetFeatureLevel(device));

    /* The adapter behind it (its LUID is what a sharing driver would match). */
    IDXGIDevice *dxgi = NULL;
    IDXGIAdapter *adapter = NULL;
    DXGI_ADAPTER_DESC desc;
    hr = ID3D11Device_QueryInterface(device, &IID_IDXGIDevice, (void **)&dxgi);
    CHECK(SUCCEEDED(hr), "IDXGIDevice: 0x%08lx", (unsigned long)hr);
    if (SUCCEEDED(hr)) {
        hr = IDXGIDevice_GetAdapter(dxgi, &adapter);
        CHECK(SUCCEEDED(hr), "GetAdapter: 0x%08lx", (unsigned long)hr);
        if (SUCCEEDED(hr) && SUCCEEDED(IDXGIAdapter_GetDesc(adapter, &desc))) {
            printf("D3D11 adapter: %ls (LUID %08lx:%08lx)\n", desc.Description,
                   (unsigned long)desc.AdapterLuid.HighPart,
                   (unsigned long)desc.AdapterLuid.LowPart);
            IDXGIAdapter_Release(adapter);
        }
        IDXGIDevice_Release(dxgi);
    }

    /* GPU texture with initial data -> staging copy -> map: the data comes back. */
    D3D11_TEXTURE2D_DESC td = {W,
                               H,
                               1,
                               1,
                               DXGI_FORMAT_R8G8B8A8_UNORM,
                               {1, 0},
                               D3D11_USAGE_DEFAULT,
                               D3D11_BIND_SHADER_RESOURCE,
                               0,
                               0};
    D3D11_SUBRESOURCE_DATA init = {pixels, W * 4, 0};
    ID3D11Texture2D *texture = NULL, *staging = NULL;
    fill_pattern(pixels);
    hr = ID3D11Device_CreateTexture2D(device, &td, &init, &texture);
    CHECK(SUCCEEDED(hr), "D3D11 CreateTexture2D: 0x%08lx", (unsigned long)hr);
    td.Usage = D3D11_USAGE_STAGING;
    td.BindFlags = 0;
    td.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
    hr = ID3D11Device_CreateTexture2D(device, &td, NULL, &staging);
    CHECK(SUCCEEDED(hr), "D3D11 staging texture: 0x%08lx", (unsigned long)hr);
    if (texture && staging) {
        D3D11_MAPPED_SUBRESOURCE map;
        ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)staging,
                                         (ID3D11Resource *)texture);
        hr = ID3D11DeviceContext_Map(immediate, (ID3D11Resource *)staging, 0, D3D11_MAP_READ, 0,
                                     &map);
        CHECK(SUCCEEDED(hr), "D3D11 Map: 0x%08lx", (unsigned long)hr);
        if (SUCCEEDED(hr)) {
            int wrong = 0;
            for (int y = 0; y < H; y++)
                wrong += memcmp((char *)map.pData + y * map.RowPitch, pixels + y * W, W * 4) != 0;
            CHECK(wrong == 0, "D3D11 round trip: %d of %d rows differ", wrong, H);
            ID3D11DeviceContext_Unmap(immediate, (ID3D11Resource *)staging, 0);
        }
    }
    if (staging)
        ID3D11Texture2D_Release(staging);
    if (texture)
        ID3D11Texture2D_Release(texture);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
}

/* A D3D10 device: a staging texture created with data maps back the same. */
static void check_d3d10_texture(ID3D10Device *device, const char *what)
{
    uint32_t pixels[W * H];
    D3D10_TEXTURE2D_DESC td = {W,
                               H,
                               1,
                               1,
                               DXGI_FORMAT_R8G8B8A8_UNORM,
                               {1, 0},
                               D3D10_USAGE_STAGING,
                               0,
                               D3D10_CPU_ACCESS_READ,
                               0};
    D3D10_SUBRESOURCE_DATA init = {pixels, W * 4, 0};
    ID3D10Texture2D *texture = NULL;
    D3D10_MAPPED_TEXTURE2D map;
    HRESULT hr;

    fill_pattern(pixels);
    hr = ID3D10Device_CreateTexture2D(device, &td, &init, &texture);
    CHECK(SUCCEEDED(hr), "%s CreateTexture2D: 0x%08lx", what, (unsigned long)hr);
    if (!texture)
        return;
    hr = ID3D10Texture2D_Map(texture, 0, D3D10_MAP_READ, 0, &map);
    CHECK(SUCCEEDED(hr), "%s Map: 0x%08lx", what, (unsigned long)hr);
    if (SUCCEEDED(hr)) {
        int wrong = 0;
        for (int y = 0; y < H; y++)
            wrong += memcmp((char *)map.pData + y * map.RowPitch, pixels + y * W, W * 4) != 0;
        CHECK(wrong == 0, "%s round trip: %d of %d rows differ", what, wrong, H);
        ID3D10Texture2D_Unmap(texture, 0);
    }
    ID3D10Texture2D_Release(texture);
}

typedef HRESULT(WINAPI *create_device1_fn)(IDXGIAdapter *, D3D10_DRIVER_TYPE, HMODULE, UINT,
                                           D3D10_FEATURE_LEVEL1, UINT, ID3D10Device1 **);

static void check_d3d10(void)
{
    ID3D10Device *device = NULL;
    HRESULT hr =
        D3D10CreateDevice(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_SDK_VERSION, &device);

    REQUIRE(SUCCEEDED(hr) && device, "D3D10CreateDevice: 0x%08lx", (unsigned long)hr);
    check_d3d10_texture(device, "D3D10");
    ID3D10Device_Release(device);

    /* mingw-w64 has no import library for d3d10_1.dll. */
    HMODULE d3d10_1 = LoadLibraryA("d3d10_1.dll");
    REQUIRE(d3d10_1 != NULL, "cannot load d3d10_1.dll (error %lu)", GetLastError());
    create_device1_fn create1 =
        (create_device1_fn)(void *)GetProcAddress(d3d10_1, "D3D10CreateDevice1");
    REQUIRE(create1 != NULL, "d3d10_1.dll has no D3D10CreateDevice1");
    ID3D10Device1 *device1 = NULL;
    hr = create1(NULL, D3D10_DRIVER_TYPE_HARDWARE, NULL, 0, D3D10_FEATURE_LEVEL_10_1,
                 D3D10_1_SDK_VERSION, &device1);
    REQUIRE(SUCCEEDED(hr) && device1, "D3D10CreateDevice1(10_1): 0x%08lx", (unsigned long)hr);
    CHECK(ID3D10Device1_GetFeatureLevel(device1) == D3D10_FEATURE_LEVEL_10_1,
          "D3D10.1 feature level 0x%x", ID3D10Device1_GetFeatureLevel(device1));
    check_d3d10_texture((ID3D10Device *)device1, "D3D10.1");
    ID3D10Device1_Release(device1);
}

static void d3d9_params(D3DPRESENT_PARAMETERS *pp, HWND window)
{
    memset(pp, 0, sizeof(*pp));
    pp->BackBufferWidth = 64;
    pp->BackBufferHeight = 64;
    pp->BackBufferFormat = D3DFMT_UNKNOWN;
    pp->BackBufferCount = 1;
    pp->SwapEffect = D3DSWAPEFFECT_DISCARD;
    pp->hDeviceWindow = window;
    pp->Windowed = TRUE;
}

/* An RGB surface: ColorFill on the GPU side, read back through a lock. */
static void check_d3d9_fill(IDirect3DDevice9 *device, const char *what)
{
    IDirect3DSurface9 *surface = NULL;
    HRESULT hr = IDirect3DDevice9_CreateOffscreenPlainSurface(device, W, H, D3DFMT_A8R8G8B8,
                                                              D3DPOOL_DEFAULT, &surface, NULL);
    D3DLOCKED_RECT lock;

    CHECK(SUCCEEDED(hr), "%s A8R8G8B8 surface: 0x%08lx", what, (unsigned long)hr);
    if (!surface)
        return;
    hr = IDirect3DDevice9_ColorFill(device, surface, NULL, D3DCOLOR_ARGB(0xff, 0x12, 0x34, 0x56));
    CHECK(SUCCEEDED(hr), "%s ColorFill: 0x%08lx", what, (unsigned long)hr);
    hr = IDirect3DSurface9_LockRect(surface, &lock, NULL, D3DLOCK_READONLY);
    CHECK(SUCCEEDED(hr), "%s LockRect: 0x%08lx", what, (unsigned long)hr);
    if (SUCCEEDED(hr)) {
        int wrong = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                wrong += ((uint32_t *)((char *)lock.pBits + y * lock.Pitch))[x] != 0xff123456u;
        CHECK(wrong == 0, "%s ColorFill: %d of %d pixels wrong", what, wrong, W * H);
        IDirect3DSurface9_UnlockRect(surface);
    }
    IDirect3DSurface9_Release(surface);
}

/* A planar YUV surface (NV12: Y then interleaved UV; YV12: Y, V, U): create, fill every plane
 * through a lock, lock again and read the same bytes back. */
static bool check_yuv_surface(IDirect3DDevice9 *device, D3DFORMAT format, const char *name)
{
    enum { SW = 64, SH = 32 };
    IDirect3DSurface9 *surface = NULL;
    D3DSURFACE_DESC desc;
    D3DLOCKED_RECT lock;
    /* Bytes of the whole surface in rows of Pitch: Y is SH rows, chroma SH / 2 rows. */
    const int rows = SH + SH / 2;
    HRESULT hr = IDirect3DDevice9_CreateOffscreenPlainSurface(device, SW, SH, format,
                                                              D3DPOOL_DEFAULT, &surface, NULL);

    CHECK(SUCCEEDED(hr) && surface, "%s surface: 0x%08lx", name, (unsigned long)hr);
    if (!surface)
        return false;
    CHECK(SUCCEEDED(IDirect3DSurface9_GetDesc(surface, &desc)) && desc.Format == format &&
              desc.Width == SW && desc.Height == SH,
          "%s surface description", name);
    hr = IDirect3DSurface9_LockRect(surface, &lock, NULL, 0);
    CHECK(SUCCEEDED(hr), "%s LockRect: 0x%08lx", name, (unsigned long)hr);
    if (FAILED(hr)) {
        IDirect3DSurface9_Release(surface);
        return false;
    }
    CHECK(lock.Pitch >= SW, "%s pitch %d", name, lock.Pitch);
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < SW; x++)
            ((BYTE *)lock.pBits)[y * lock.Pitch + x] = (BYTE)(x * 3 + y * 7);
    IDirect3DSurface9_UnlockRect(surface);

    hr = IDirect3DSurface9_LockRect(surface, &lock, NULL, D3DLOCK_READONLY);
    CHECK(SUCCEEDED(hr), "%s second LockRect: 0x%08lx", name, (unsigned long)hr);
    bool ok = SUCCEEDED(hr);
    if (ok) {
        int wrong = 0;
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < SW; x++)
                wrong += ((BYTE *)lock.pBits)[y * lock.Pitch + x] != (BYTE)(x * 3 + y * 7);
        CHECK(wrong == 0, "%s: %d of %d bytes changed between locks", name, wrong, rows * SW);
        ok = wrong == 0;
        IDirect3DSurface9_UnlockRect(surface);
    }
    IDirect3DSurface9_Release(surface);
    printf("D3D9 %s surface: %s\n", name, ok ? "works" : "fails");
    return ok;
}

static void check_d3d9ex(HWND window)
{
    IDirect3D9Ex *d3d = NULL;
    IDirect3DDevice9Ex *device = NULL;
    D3DPRESENT_PARAMETERS pp;
    D3DADAPTER_IDENTIFIER9 id;
    HRESULT hr = Direct3DCreate9Ex(D3D_SDK_VERSION, &d3d);

    REQUIRE(SUCCEEDED(hr) && d3d, "Direct3DCreate9Ex: 0x%08lx", (unsigned long)hr);
    CHECK(IDirect3D9Ex_GetAdapterCount(d3d) >= 1, "D3D9Ex has no adapter");
    if (SUCCEEDED(IDirect3D9Ex_GetAdapterIdentifier(d3d, D3DADAPTER_DEFAULT, 0, &id)))
        printf("D3D9 adapter: %s\n", id.Description);
    d3d9_params(&pp, window);
    hr = IDirect3D9Ex_CreateDeviceEx(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                     D3DCREATE_SOFTWARE_VERTEXPROCESSING | D3DCREATE_MULTITHREADED,
                                     &pp, NULL, &device);
    REQUIRE(SUCCEEDED(hr) && device, "CreateDeviceEx: 0x%08lx", (unsigned long)hr);

    IDirect3DDevice9 *device9 = (IDirect3DDevice9 *)device;
    check_d3d9_fill(device9, "D3D9Ex");
    /* NV12 is mandatory for cl_khr_dx9_media_sharing; NOTES.md says wined3d has it. */
    CHECK(check_yuv_surface(device9, (D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'), "NV12"),
          "D3D9Ex NV12 surface");
    CHECK(check_yuv_surface(device9, (D3DFORMAT)MAKEFOURCC('Y', 'V', '1', '2'), "YV12"),
          "D3D9Ex YV12 surface");
    IDirect3DDevice9Ex_Release(device);
    IDirect3D9Ex_Release(d3d);
}

static void check_d3d9(HWND window)
{
    IDirect3D9 *d3d = Direct3DCreate9(D3D_SDK_VERSION);
    IDirect3DDevice9 *device = NULL;
    D3DPRESENT_PARAMETERS pp;
    HRESULT hr;

    REQUIRE(d3d != NULL, "Direct3DCreate9 failed");
    d3d9_params(&pp, window);
    hr = IDirect3D9_CreateDevice(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                 D3DCREATE_SOFTWARE_VERTEXPROCESSING | D3DCREATE_MULTITHREADED, &pp,
                                 &device);
    REQUIRE(SUCCEEDED(hr) && device, "CreateDevice: 0x%08lx", (unsigned long)hr);
    check_d3d9_fill(device, "D3D9");
    CHECK(check_yuv_surface(device, (D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'), "NV12"),
          "D3D9 NV12 surface");
    IDirect3DDevice9_Release(device);
    IDirect3D9_Release(d3d);
}

int main(void)
{
    check_d3d11();
    check_d3d10();
    check_d3d9ex(test_device_window());
    check_d3d9(test_device_window());
    return test_finish("rig_devices");
}
