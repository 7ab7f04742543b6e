// cv_d3d11_nv12: OpenCV 4.6's Direct3D 11 NV12 conversions (modules/core/src/directx.cpp) on dxcl.
//
// initializeContextFromD3D11Device, then for each frame:
//  - an NV12 texture holding a known picture (written through a staging texture);
//    convertFromD3D11Texture2D into a UMat: OpenCV makes images of subresource 0 (Y, CL_R) and
//    1 (UV, CL_RG), acquires them and runs its kernel YUV2BGR_NV12_8u (BT.601 limited range,
//    float, truncated); compared with the CPU's cv::cvtColor(COLOR_YUV2BGR_NV12) (its Mat path,
//    cv::hal::cvtTwoPlaneYUVtoBGR, called directly: fixed point, rounded), within +-1;
//  - convertToD3D11Texture2D of that BGR UMat into a second NV12 texture holding other contents
//    (kernel BGR2YUV_NV12_8u: Y of every pixel, U and V of each 2x2 block's top-left pixel);
//    read back through a staging texture and compared with the CPU's
//    cv::hal::cvtBGRtoTwoPlaneYUV (the same rule in fixed point), within +-1.
//
//   cv_d3d11_nv12.exe [FRAMES [WIDTH HEIGHT]]   defaults 30 640 360
// Exit: 0 all passed; 1 a check failed; 2 no D3D11 device; 3 no OpenCL context from it;
//       4 Direct3D cannot create NV12 textures; 5 OpenCV's conversion threw (dxcl refused the
//       NV12 planes: the line before says which call).
#define CL_TARGET_OPENCL_VERSION 120
#include <d3d11.h>

#include <CL/cl.h>
#include <CL/cl_d3d11.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <opencv2/core.hpp>
#include <opencv2/core/directx.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/imgproc/hal/hal.hpp>

static int passed, failed;

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

static int finish(int code)
{
    // OpenCV's current OpenCL context holds the D3D device until its thread-exit callback, which
    // under Wine runs too late (docs/testing.md): release it before returning.
    cv::ocl::OpenCLExecutionContext::getCurrentRef().release();
    std::printf("cv_d3d11_nv12: %d passed, %d failed\n", passed, failed);
    std::fflush(stdout);
    return code ? code : failed ? 1 : 0;
}

// The known NV12 picture of frame f (rows: h of Y, then h/2 of interleaved UV). Y spans 0..255,
// so the limited-range clamp below 16 is exercised too.
static cv::Mat make_nv12(int f, int w, int h)
{
    cv::Mat nv12(h * 3 / 2, w, CV_8UC1);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            nv12.at<uchar>(y, x) = (uchar)((x + 2 * y + 5 * f) % 256);
    for (int y = 0; y < h / 2; y++)
        for (int x = 0; x < w / 2; x++) {
            nv12.at<uchar>(h + y, 2 * x) = (uchar)(64 + (x * 3 + f * 11) % 128);
            nv12.at<uchar>(h + y, 2 * x + 1) = (uchar)(64 + (y * 5 + x + f * 7) % 128);
        }
    return nv12;
}

static ID3D11Texture2D *make_texture(ID3D11Device *dev, int w, int h, bool staging, HRESULT *hr)
{
    D3D11_TEXTURE2D_DESC desc = {};
    desc.Width = w;
    desc.Height = h;
    desc.MipLevels = 1;
    desc.ArraySize = 1;
    desc.Format = DXGI_FORMAT_NV12;
    desc.SampleDesc.Count = 1;
    desc.Usage = staging ? D3D11_USAGE_STAGING : D3D11_USAGE_DEFAULT;
    desc.BindFlags = staging ? 0 : D3D11_BIND_SHADER_RESOURCE;
    desc.CPUAccessFlags = staging ? D3D11_CPU_ACCESS_READ | D3D11_CPU_ACCESS_WRITE : 0;
    ID3D11Texture2D *tex = nullptr;
    *hr = dev->CreateTexture2D(&desc, nullptr, &tex);
    return SUCCEEDED(*hr) ? tex : nullptr;
}

// NV12 in a mapped subresource: h rows of Y at RowPitch, then h/2 rows of UV at the same pitch.
static bool staging_io(ID3D11DeviceContext *ctx, ID3D11Texture2D *staging, cv::Mat &nv12,
                       bool write)
{
    D3D11_MAPPED_SUBRESOURCE map;
    HRESULT hr = ctx->Map(staging, 0, write ? D3D11_MAP_WRITE : D3D11_MAP_READ, 0, &map);
    if (FAILED(hr)) {
        check(false, "staging NV12 texture mapped: hr=0x%08lx", (unsigned long)hr);
        return false;
    }
    for (int r = 0; r < nv12.rows; r++) {
        uchar *row = (uchar *)map.pData + (size_t)r * map.RowPitch;
        if (write)
            std::memcpy(row, nv12.ptr(r), nv12.cols);
        else
            std::memcpy(nv12.ptr(r), row, nv12.cols);
    }
    ctx->Unmap(staging, 0);
    return true;
}

// Largest difference and how many bytes differ at all.
static void compare(const cv::Mat &got, const cv::Mat &want, int f, const char *what)
{
    cv::Mat diff;
    cv::absdiff(got, want, diff);
    double max_diff = 0;
    cv::minMaxLoc(diff.reshape(1), nullptr, &max_diff);
    int differing = cv::countNonZero(diff.reshape(1));
    check(max_diff <= 1, "frame %d %s: max difference %.0f (%d of %d bytes differ by 1)", f, what,
          max_diff, differing, (int)diff.total() * diff.channels());
}

// After OpenCV threw: dxcl's own answer for each NV12 plane of the texture, so the output says
// which CL error refused the share (OpenCV's message has none). OpenCL.dll is loaded as OpenCV
// loads it.
static void probe_nv12_share(ID3D11Texture2D *tex)
{
    typedef cl_int(CL_API_CALL * GetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *,
                                                size_t *);
    typedef void *(CL_API_CALL * GetAddress)(cl_platform_id, const char *);
    HMODULE cl = LoadLibraryA("OpenCL.dll");
    GetDeviceInfo get_device_info =
        cl ? (GetDeviceInfo)(void *)GetProcAddress(cl, "clGetDeviceInfo") : nullptr;
    GetAddress get_address =
        cl ? (GetAddress)(void *)GetProcAddress(cl, "clGetExtensionFunctionAddressForPlatform")
           : nullptr;
    cl_device_id device = (cl_device_id)cv::ocl::Device::getDefault().ptr();
    cl_context context = (cl_context)cv::ocl::Context::getDefault().ptr();
    cl_platform_id platform = nullptr;
    if (!get_device_info || !get_address ||
        get_device_info(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr))
        return;
    clCreateFromD3D11Texture2DKHR_fn create =
        (clCreateFromD3D11Texture2DKHR_fn)get_address(platform, "clCreateFromD3D11Texture2DKHR");
    typedef cl_int(CL_API_CALL * Release)(cl_mem);
    Release release = (Release)(void *)GetProcAddress(cl, "clReleaseMemObject");
    for (UINT plane = 0; create && plane < 2; plane++) {
        cl_int err = 0;
        cl_mem image = create(context, CL_MEM_READ_WRITE, tex, plane, &err);
        std::printf("  clCreateFromD3D11Texture2DKHR(NV12 texture, subresource %u): %d\n", plane,
                    err);
        if (image && release)
            release(image);
    }
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? std::atoi(argv[1]) : 30;
    int w = argc > 3 ? std::atoi(argv[2]) : 640, h = argc > 3 ? std::atoi(argv[3]) : 360;
    std::setvbuf(stdout, nullptr, _IONBF, 0);
    std::printf("cv_d3d11_nv12: OpenCV %s, %d frames %dx%d\n", CV_VERSION, frames, w, h);

    ID3D11Device *dev = nullptr;
    ID3D11DeviceContext *ctx = nullptr;
    HRESULT hr = D3D11CreateDevice(nullptr, D3D_DRIVER_TYPE_HARDWARE, nullptr, 0, nullptr, 0,
                                   D3D11_SDK_VERSION, &dev, nullptr, &ctx);
    check(SUCCEEDED(hr), "D3D11 device: hr=0x%08lx", (unsigned long)hr);
    if (FAILED(hr)) {
        std::printf("cv_d3d11_nv12: %d passed, %d failed\n", passed, failed);
        return 2;
    }
    try {
        cv::directx::ocl::initializeContextFromD3D11Device(dev);
        cv::ocl::Device d = cv::ocl::Device::getDefault();
        check(true, "initializeContextFromD3D11Device: OpenCL device %s (%s)", d.name().c_str(),
              d.type() == cv::ocl::Device::TYPE_GPU ? "GPU" : "not GPU");
    } catch (const cv::Exception &e) {
        check(false, "initializeContextFromD3D11Device threw: %s", e.what());
        return finish(3);
    }

    // Each creation's own HRESULT proves a refusal: the shared one, the output, the staging one.
    const char *names[3] = {"default (shader resource)", "second default", "staging"};
    ID3D11Texture2D *textures[3] = {nullptr, nullptr, nullptr};
    for (int i = 0; i < 3; i++) {
        textures[i] = make_texture(dev, w, h, i == 2, &hr);
        if (!textures[i]) {
            std::printf("NV12 UNSUPPORTED: Direct3D cannot create a %dx%d NV12 texture: "
                        "CreateTexture2D (%s) hr=0x%08lx; nothing past this point was tested\n",
                        w, h, names[i], (unsigned long)hr);
            check(false, "NV12 textures created by Direct3D");
            return finish(4);
        }
    }
    ID3D11Texture2D *tex = textures[0], *tex_out = textures[1], *staging = textures[2];
    check(true, "NV12 textures created (default with shader-resource binding, and staging)");

    int code = 0;
    for (int f = 0; f < frames && !code; f++) {
        cv::Mat nv12 = make_nv12(f, w, h);
        if (!staging_io(ctx, staging, nv12, true))
            break;
        ctx->CopyResource(tex, staging);

        cv::UMat bgr;
        try {
            cv::directx::convertFromD3D11Texture2D(tex, bgr);
        } catch (const cv::Exception &e) {
            check(false, "frame %d convertFromD3D11Texture2D threw: %s", f, e.what());
            probe_nv12_share(tex);
            code = 5;
            break;
        }
        // What cv::cvtColor(nv12, bgr, COLOR_YUV2BGR_NV12) runs on a Mat (imgproc's color.cpp:
        // cvtColorTwoPlaneYUV2BGR with dcn 3, no blue swap, uIdx 0), called directly.
        cv::Mat bgr_cpu(h, w, CV_8UC3);
        cv::hal::cvtTwoPlaneYUVtoBGR(nv12.data, nv12.step, bgr_cpu.data, bgr_cpu.step, w, h, 3,
                                     false, 0);
        cv::Mat bgr_gpu = bgr.getMat(cv::ACCESS_READ).clone();
        check(bgr_gpu.type() == CV_8UC3 && bgr_gpu.size() == bgr_cpu.size(),
              "frame %d convertFromD3D11Texture2D gave a %dx%d %s UMat", f, bgr_gpu.cols,
              bgr_gpu.rows, bgr_gpu.type() == CV_8UC3 ? "CV_8UC3" : "other-type");
        if (bgr_gpu.size() == bgr_cpu.size() && bgr_gpu.type() == bgr_cpu.type())
            compare(bgr_gpu, bgr_cpu, f,
                    "NV12 -> BGR (OpenCL) vs the CPU's cvtColor(COLOR_YUV2BGR_NV12)");

        cv::Mat other(h * 3 / 2, w, CV_8UC1, cv::Scalar(0x55));
        if (!staging_io(ctx, staging, other, true))
            break;
        ctx->CopyResource(tex_out, staging);
        try {
            cv::directx::convertToD3D11Texture2D(bgr, tex_out);
        } catch (const cv::Exception &e) {
            check(false, "frame %d convertToD3D11Texture2D threw: %s", f, e.what());
            probe_nv12_share(tex_out);
            code = 5;
            break;
        }
        ctx->CopyResource(staging, tex_out);
        cv::Mat back(h * 3 / 2, w, CV_8UC1);
        if (!staging_io(ctx, staging, back, false))
            break;
        cv::Mat nv12_cpu(h * 3 / 2, w, CV_8UC1);
        cv::hal::cvtBGRtoTwoPlaneYUV(bgr_gpu.data, bgr_gpu.step, nv12_cpu.data, nv12_cpu.ptr(h),
                                     nv12_cpu.step, w, h, 3, false, 1);
        compare(back.rowRange(0, h), nv12_cpu.rowRange(0, h), f,
                "BGR -> NV12 texture Y plane (OpenCL) vs the CPU's conversion");
        compare(back.rowRange(h, h * 3 / 2), nv12_cpu.rowRange(h, h * 3 / 2), f,
                "BGR -> NV12 texture UV plane (OpenCL) vs the CPU's conversion");
    }
    staging->Release();
    tex_out->Release();
    tex->Release();
    int result = finish(code);
    ctx->Release();
    dev->Release();
    return result;
}
