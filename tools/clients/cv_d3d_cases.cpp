// cv_d3d_cases: the five OpenCV Direct3D cases of docs/testing.md ("Real clients") on dxcl.
//
// Each case: a texture or surface with known contents; cv::directx::convertFrom* into a UMat
// (OpenCV: create the shared image, acquire, copy into its buffer, release) and every byte
// checked; inverted by an OpenCL kernel (cv::bitwise_not); cv::directx::convertTo* into a
// second texture holding other contents; that texture read back through Direct3D (a staging
// copy, or a lock for D3D9) and every byte checked.
//
//   cv_d3d_cases.exe CASE [FRAMES]   CASE: d3d11_bgra d3d11_rg d3d11_r32f d3d10_rgba dx9_argb
//                                    (one case a process: each initializes its own context)
// Exit: 0 all passed; 1 a check failed; 2 no device or resource; 3 no OpenCL context;
//       5 OpenCV threw.
#define CL_TARGET_OPENCL_VERSION 120
#include <d3d10.h>
#include <d3d11.h>
#include <d3d9.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/core/directx.hpp>
#include <opencv2/core/ocl.hpp>

static int passed, failed;
static const int W = 640, H = 360;

static void check(bool ok, const char *fmt, ...)
{
    va_list ap;
    std::printf("%s: ", ok ? "PASS" : "FAIL");
    va_start(ap, fmt);
    std::vprintf(fmt, ap);
    va_end(ap);
    std::printf("\n");
    std::fflush(stdout);
    (ok ? passed : failed)++;
}

// Known contents of frame f for a Mat type: every byte a function of place and frame (floats:
// exact small values).
static cv::Mat known(int type, int f)
{
    cv::Mat m(H, W, type);
    if (CV_MAT_DEPTH(type) == CV_32F) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                m.at<float>(y, x) = (float)((x + y * 3 + f) % 1000) / 8.0f - 20.0f;
    } else {
        for (int y = 0; y < H; y++) {
            uchar *row = m.ptr(y);
            for (size_t i = 0; i < m.cols * m.elemSize(); i++)
                row[i] = (uchar)(i * 7 + y * 3 + f * 11);
        }
    }
    return m;
}

static cv::Mat inverted(const cv::Mat &m)
{
    cv::Mat out;
    cv::bitwise_not(m, out);
    return out;
}

static void compare_exact(const cv::Mat &got, const cv::Mat &want, int f, const char *what)
{
    long bad = 0;
    for (int y = 0; y < want.rows; y++)
        if (std::memcmp(got.ptr(y), want.ptr(y), want.cols * want.elemSize()))
            for (size_t i = 0; i < want.cols * want.elemSize(); i++)
                bad += got.ptr(y)[i] != want.ptr(y)[i];
    check(bad == 0, "frame %d %s: %ld bytes differ", f, what, bad);
}

// Rows of a mapped or locked resource into a Mat, or a Mat into them.
static void rows_io(void *data, size_t pitch, cv::Mat &m, bool write)
{
    for (int y = 0; y < m.rows; y++) {
        uchar *row = (uchar *)data + y * pitch;
        if (write)
            std::memcpy(row, m.ptr(y), m.cols * m.elemSize());
        else
            std::memcpy(m.ptr(y), row, m.cols * m.elemSize());
    }
}

// One frame of a case: Direct3D in, OpenCV out and back; `upload`, `download`, `from`, `to`
// hide the API.
template <class Upload, class Download, class From, class To>
static void run_frame(int type, int f, Upload upload, Download download, From from, To to)
{
    cv::Mat picture = known(type, f);
    upload(0, picture);
    cv::UMat u;
    from(u);
    cv::Mat got = u.getMat(cv::ACCESS_READ).clone();
    check(got.type() == type && got.size() == picture.size(), "frame %d convertFrom: %dx%d type %d",
          f, got.cols, got.rows, got.type());
    if (got.type() != type || got.size() != picture.size())
        return;
    compare_exact(got, picture, f, "convertFrom is the picture");
    cv::UMat inv;
    cv::bitwise_not(u, inv);
    cv::Mat other(H, W, type, cv::Scalar::all(0x33));
    upload(1, other);
    to(inv);
    cv::Mat back(H, W, type);
    download(1, back);
    compare_exact(back, inverted(picture), f, "convertTo, read back through Direct3D, is inverted");
}

// D3D11 and D3D10 differ only in names; one template serves both.
struct D3D11Api {
    typedef ID3D11Device Device;
    typedef ID3D11Texture2D Texture;
    typedef D3D11_TEXTURE2D_DESC Desc;
    ID3D11Device *dev = nullptr;
    ID3D11DeviceContext *ctx = nullptr;
    bool create()
    {
        return SUCCEEDED(D3D11CreateDevice(nullptr, D3D_DRIVER_TYPE_HARDWARE, nullptr, 0, nullptr,
                                           0, D3D11_SDK_VERSION, &dev, nullptr, &ctx));
    }
    void init_cl()
    {
        cv::directx::ocl::initializeContextFromD3D11Device(dev);
    }
    Texture *texture(DXGI_FORMAT format, bool staging)
    {
        Desc d = {};
        d.Width = W, d.Height = H, d.MipLevels = 1, d.ArraySize = 1, d.Format = format;
        d.SampleDesc.Count = 1;
        d.Usage = staging ? D3D11_USAGE_STAGING : D3D11_USAGE_DEFAULT;
        d.BindFlags = staging ? 0 : D3D11_BIND_SHADER_RESOURCE | D3D11_BIND_RENDER_TARGET;
        d.CPUAccessFlags = staging ? D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE : 0;
        Texture *t = nullptr;
        return SUCCEEDED(dev->CreateTexture2D(&d, nullptr, &t)) ? t : nullptr;
    }
    void copy(Texture *dst, Texture *src)
    {
        ctx->CopyResource(dst, src);
    }
    bool map(Texture *t, bool write, void **data, size_t *pitch)
    {
        D3D11_MAPPED_SUBRESOURCE m;
        if (FAILED(ctx->Map(t, 0, write ? D3D11_MAP_WRITE : D3D11_MAP_READ, 0, &m)))
            return false;
        *data = m.pData, *pitch = m.RowPitch;
        return true;
    }
    void unmap(Texture *t)
    {
        ctx->Unmap(t, 0);
    }
    static void from(Texture *t, cv::UMat &u)
    {
        cv::directx::convertFromD3D11Texture2D(t, u);
    }
    static void to(cv::UMat &u, Texture *t)
    {
        cv::directx::convertToD3D11Texture2D(u, t);
    }
};

struct D3D10Api {
    typedef ID3D10Texture2D Texture;
    ID3D10Device *dev = nullptr;
    bool create()
    {
        return SUCCEEDED(D3D10CreateDevice(nullptr, D3D10_DRIVER_TYPE_HARDWARE, nullptr, 0,
                                           D3D10_SDK_VERSION, &dev));
    }
    void init_cl()
    {
        cv::directx::ocl::initializeContextFromD3D10Device(dev);
    }
    Texture *texture(DXGI_FORMAT format, bool staging)
    {
        D3D10_TEXTURE2D_DESC d = {};
        d.Width = W, d.Height = H, d.MipLevels = 1, d.ArraySize = 1, d.Format = format;
        d.SampleDesc.Count = 1;
        d.Usage = staging ? D3D10_USAGE_STAGING : D3D10_USAGE_DEFAULT;
        d.BindFlags = staging ? 0 : D3D10_BIND_SHADER_RESOURCE | D3D10_BIND_RENDER_TARGET;
        d.CPUAccessFlags = staging ? D3D10_CPU_ACCESS_READ | D3D10_CPU_ACCESS_WRITE : 0;
        Texture *t = nullptr;
        return SUCCEEDED(dev->CreateTexture2D(&d, nullptr, &t)) ? t : nullptr;
    }
    void copy(Texture *dst, Texture *src)
    {
        dev->CopyResource(dst, src);
    }
    bool map(Texture *t, bool write, void **data, size_t *pitch)
    {
        D3D10_MAPPED_TEXTURE2D m;
        if (FAILED(t->Map(0, write ? D3D10_MAP_WRITE : D3D10_MAP_READ, 0, &m)))
            return false;
        *data = m.pData, *pitch = m.RowPitch;
        return true;
    }
    void unmap(Texture *t)
    {
        t->Unmap(0);
    }
    static void from(Texture *t, cv::UMat &u)
    {
        cv::directx::convertFromD3D10Texture2D(t, u);
    }
    static void to(cv::UMat &u, Texture *t)
    {
        cv::directx::convertToD3D10Texture2D(u, t);
    }
};

template <class Api>
static int run_dxgi_case(const char *name, DXGI_FORMAT format, int type, int frames)
{
    Api api;
    if (!api.create()) {
        check(false, "%s: device created", name);
        return 2;
    }
    api.init_cl();
    check(true, "%s: context from the device, OpenCL device %s", name,
          cv::ocl::Device::getDefault().name().c_str());
    typename Api::Texture *tex[2] = {api.texture(format, false), api.texture(format, false)};
    typename Api::Texture *staging = api.texture(format, true);
    if (!tex[0] || !tex[1] || !staging) {
        check(false, "%s: textures created", name);
        return 2;
    }
    auto upload = [&](int i, cv::Mat &m) {
        void *data;
        size_t pitch;
        if (!api.map(staging, true, &data, &pitch))
            return check(false, "staging mapped for writing");
        rows_io(data, pitch, m, true);
        api.unmap(staging);
        api.copy(tex[i], staging);
    };
    auto download = [&](int i, cv::Mat &m) {
        void *data;
        size_t pitch;
        api.copy(staging, tex[i]);
        if (!api.map(staging, false, &data, &pitch))
            return check(false, "staging mapped for reading");
        rows_io(data, pitch, m, false);
        api.unmap(staging);
    };
    for (int f = 0; f < frames; f++)
        run_frame(
            type, f, upload, download, [&](cv::UMat &u) { Api::from(tex[0], u); },
            [&](cv::UMat &u) { Api::to(u, tex[1]); });
    staging->Release();
    tex[0]->Release();
    tex[1]->Release();
    cv::ocl::OpenCLExecutionContext::getCurrentRef().release();
    api.dev->Release();
    return 0;
}

static int run_dx9_case(int frames)
{
    IDirect3D9Ex *d3d = nullptr;
    IDirect3DDevice9Ex *dev = nullptr;
    // A hidden top-level window: Wine refuses devices on the desktop window for some D3D9s.
    HWND window = CreateWindowA("STATIC", "cv_d3d_cases", WS_OVERLAPPEDWINDOW, 0, 0, W, H, nullptr,
                                nullptr, nullptr, nullptr);
    D3DPRESENT_PARAMETERS pp = {};
    pp.Windowed = TRUE, pp.SwapEffect = D3DSWAPEFFECT_DISCARD, pp.hDeviceWindow = window;
    pp.BackBufferFormat = D3DFMT_UNKNOWN;
    if (FAILED(Direct3DCreate9Ex(D3D_SDK_VERSION, &d3d)) ||
        FAILED(d3d->CreateDeviceEx(D3DADAPTER_DEFAULT, D3DDEVTYPE_HAL, window,
                                   D3DCREATE_HARDWARE_VERTEXPROCESSING | D3DCREATE_MULTITHREADED,
                                   &pp, nullptr, &dev))) {
        check(false, "dx9_argb: D3D9Ex device created");
        return 2;
    }
    cv::directx::ocl::initializeContextFromDirect3DDevice9Ex(dev);
    check(true, "dx9_argb: context from the D3D9Ex device, OpenCL device %s",
          cv::ocl::Device::getDefault().name().c_str());
    IDirect3DSurface9 *surf[2] = {nullptr, nullptr};
    for (auto &s : surf)
        if (FAILED(dev->CreateOffscreenPlainSurface(W, H, D3DFMT_A8R8G8B8, D3DPOOL_DEFAULT, &s,
                                                    nullptr))) {
            check(false, "dx9_argb: offscreen surfaces created");
            return 2;
        }
    auto lock_io = [&](int i, cv::Mat &m, bool write) {
        D3DLOCKED_RECT r;
        if (FAILED(surf[i]->LockRect(&r, nullptr, write ? 0 : D3DLOCK_READONLY)))
            return check(false, "surface locked");
        rows_io(r.pBits, r.Pitch, m, write);
        surf[i]->UnlockRect();
    };
    for (int f = 0; f < frames; f++)
        run_frame(
            CV_8UC4, f, [&](int i, cv::Mat &m) { lock_io(i, m, true); },
            [&](int i, cv::Mat &m) { lock_io(i, m, false); },
            [&](cv::UMat &u) { cv::directx::convertFromDirect3DSurface9(surf[0], u); },
            [&](cv::UMat &u) { cv::directx::convertToDirect3DSurface9(u, surf[1]); });
    surf[0]->Release();
    surf[1]->Release();
    cv::ocl::OpenCLExecutionContext::getCurrentRef().release();
    dev->Release();
    d3d->Release();
    return 0;
}

int main(int argc, char **argv)
{
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    std::string c = argc > 1 ? argv[1] : "";
    int frames = argc > 2 ? std::atoi(argv[2]) : 30, code = 0;
    try {
        if (c == "d3d11_bgra")
            code =
                run_dxgi_case<D3D11Api>("d3d11_bgra", DXGI_FORMAT_B8G8R8A8_UNORM, CV_8UC4, frames);
        else if (c == "d3d11_rg")
            code = run_dxgi_case<D3D11Api>("d3d11_rg", DXGI_FORMAT_R8G8_UNORM, CV_8UC2, frames);
        else if (c == "d3d11_r32f")
            code = run_dxgi_case<D3D11Api>("d3d11_r32f", DXGI_FORMAT_R32_FLOAT, CV_32FC1, frames);
        else if (c == "d3d10_rgba")
            code =
                run_dxgi_case<D3D10Api>("d3d10_rgba", DXGI_FORMAT_R8G8B8A8_UNORM, CV_8UC4, frames);
        else if (c == "dx9_argb")
            code = run_dx9_case(frames);
        else {
            std::printf("usage: cv_d3d_cases CASE [FRAMES]; CASE: d3d11_bgra d3d11_rg d3d11_r32f "
                        "d3d10_rgba dx9_argb\n");
            return 2;
        }
    } catch (const cv::Exception &e) {
        check(false, "%s: OpenCV threw: %s", c.c_str(), e.what());
        code = 5;
    }
    std::printf("cv_d3d_cases %s: %d passed, %d failed\n", c.c_str(), passed, failed);
    return code ? code : failed ? 1 : 0;
}
