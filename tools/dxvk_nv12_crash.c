/* The crash behind test_dx9_lifetime.dxvk (docs/testing.md, "Direct3D on DXVK"), without dxcl
 * or OpenCL: Direct3D 9 alone. Each round makes a device, writes an NV12 surface once through
 * LockRect/UnlockRect, releases the surface and then the device. Under DXVK 2.6.2 on lavapipe
 * the process dies of SIGSEGV in a lavapipe thread (or hangs) within a few rounds; on wined3d
 * it does not. With --wait-idle the program waits for an event query before releasing the
 * device, and the rounds pass.
 *
 *   dxvk_nv12_crash.exe [ROUNDS] [--wait-idle]     (20 rounds by default) */
#define COBJMACROS
#include <windows.h>
#include <d3d9.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static HWND hidden_window(void)
{
    WNDCLASSW window_class = {.lpfnWndProc = DefWindowProcW,
                              .hInstance = GetModuleHandleW(NULL),
                              .lpszClassName = L"dxvk_nv12_crash"};

    RegisterClassW(&window_class);
    return CreateWindowExW(0, window_class.lpszClassName, L"dxvk_nv12_crash", WS_OVERLAPPEDWINDOW,
                           0, 0, 64, 64, NULL, NULL, window_class.hInstance, NULL);
}

static IDirect3DDevice9 *make_device(HWND window)
{
    D3DPRESENT_PARAMETERS present = {.BackBufferWidth = 64,
                                     .BackBufferHeight = 64,
                                     .SwapEffect = D3DSWAPEFFECT_DISCARD,
                                     .hDeviceWindow = window,
                                     .Windowed = TRUE};
    IDirect3D9 *d3d = Direct3DCreate9(D3D_SDK_VERSION);
    IDirect3DDevice9 *device = NULL;
    HRESULT hr;

    if (!d3d)
        return NULL;
    hr = IDirect3D9_CreateDevice(d3d, D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                 D3DCREATE_SOFTWARE_VERTEXPROCESSING | D3DCREATE_MULTITHREADED,
                                 &present, &device);
    IDirect3D9_Release(d3d);
    if (FAILED(hr))
        printf("CreateDevice: 0x%08lx\n", (unsigned long)hr);
    return device;
}

/* Waits until the device has executed everything submitted so far. */
static void wait_idle(IDirect3DDevice9 *device)
{
    IDirect3DQuery9 *query = NULL;

    if (FAILED(IDirect3DDevice9_CreateQuery(device, D3DQUERYTYPE_EVENT, &query)))
        return;
    IDirect3DQuery9_Issue(query, D3DISSUE_END);
    while (IDirect3DQuery9_GetData(query, NULL, 0, D3DGETDATA_FLUSH) == S_FALSE)
        Sleep(0);
    IDirect3DQuery9_Release(query);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    BOOL waits = argc > 2 && strcmp(argv[2], "--wait-idle") == 0;
    HWND window = hidden_window();

    for (int round = 0; round < rounds; round++) {
        IDirect3DDevice9 *device = make_device(window);
        IDirect3DSurface9 *surface = NULL;
        D3DLOCKED_RECT locked;

        if (!device)
            return 1;
        if (FAILED(IDirect3DDevice9_CreateOffscreenPlainSurface(
                device, 16, 8, (D3DFORMAT)MAKEFOURCC('N', 'V', '1', '2'), D3DPOOL_DEFAULT, &surface,
                NULL))) {
            printf("no NV12 surface\n");
            return 1;
        }
        if (SUCCEEDED(IDirect3DSurface9_LockRect(surface, &locked, NULL, 0))) {
            memset(locked.pBits, 0x80, (size_t)locked.Pitch * 12); /* Y rows, then UV rows */
            IDirect3DSurface9_UnlockRect(surface);
        }
        IDirect3DSurface9_Release(surface);
        if (waits)
            wait_idle(device);
        IDirect3DDevice9_Release(device);
    }
    printf("dxvk_nv12_crash: %d rounds%s, no crash\n", rounds, waits ? " (waiting for idle)" : "");
    return 0;
}
