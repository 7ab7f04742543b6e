/* ff_d3d11_nv12: FFmpeg's D3D11VA -> OpenCL path (libavutil's hwcontext API, what
 * `-init_hw_device d3d11va -filter_hw_device ... hwmap=derive_device=opencl` runs) on dxcl.
 *
 * A D3D11VA device, an OpenCL device derived from it, a fixed pool of NV12 frames (one texture
 * array, as FFmpeg makes it) and the OpenCL frames derived from that pool (one image per plane
 * and slice: clCreateFromD3D11Texture2DKHR with subresource 2 * slice + plane, the encoding of
 * cl_intel_d3d11_nv12_media_sharing). Each frame: a known picture uploaded through D3D11
 * (av_hwframe_transfer_data), mapped to OpenCL (acquire), both planes read and checked, each
 * plane inverted by a kernel into the mapped image, unmapped (release), read back through D3D11
 * and checked against the inverted picture.
 *
 *   ff_d3d11_nv12.exe [FRAMES [WIDTH HEIGHT [BIND]]]   defaults 30 640 360 decoder
 *   BIND: decoder (D3D11_BIND_DECODER, what FFmpeg's decoders ask), shader
 *         (D3D11_BIND_SHADER_RESOURCE), none (0).
 * Exit: 0 all checks passed; 1 a check failed; 2 no D3D11VA device; 3 no OpenCL device derived;
 *       4 Direct3D cannot create the NV12 texture array; 5 the OpenCL frames could not be
 *       derived (dxcl refused the NV12 planes); 6 other setup failure.
 */
#define COBJMACROS
#include <d3d11.h>

#include "ff_common.h"
#include <CL/cl_d3d11.h>
#include <libavutil/hwcontext_d3d11va.h>

static void fill_picture(AVFrame *sw, int f)
{
    for (int y = 0; y < sw->height; y++)
        for (int x = 0; x < sw->width; x++)
            sw->data[0][y * sw->linesize[0] + x] = picture_y(f, x, y);
    for (int y = 0; y < sw->height / 2; y++)
        for (int x = 0; x < sw->width / 2; x++)
            for (int c = 0; c < 2; c++)
                sw->data[1][y * sw->linesize[1] + 2 * x + c] = picture_uv(f, x, y, c);
}

static const char *bind_name = "decoder";

static UINT bind_flags(void)
{
    if (!strcmp(bind_name, "shader"))
        return D3D11_BIND_SHADER_RESOURCE;
    if (!strcmp(bind_name, "none"))
        return 0;
    return D3D11_BIND_DECODER;
}

/* Direct3D's own answer for the pool's texture array, so a refusal is proven by the HRESULT. */
static HRESULT probe_nv12_array(ID3D11Device *device, int w, int h)
{
    D3D11_TEXTURE2D_DESC desc = {
        .Width = w,
        .Height = h,
        .MipLevels = 1,
        .ArraySize = POOL_SIZE,
        .Format = DXGI_FORMAT_NV12,
        .SampleDesc = {.Count = 1},
        .Usage = D3D11_USAGE_DEFAULT,
        .BindFlags = bind_flags(),
    };
    ID3D11Texture2D *texture = NULL;
    HRESULT hr = ID3D11Device_CreateTexture2D(device, &desc, NULL, &texture);
    if (SUCCEEDED(hr))
        ID3D11Texture2D_Release(texture);
    return hr;
}

/* FFmpeg's D3D11VA device needs a device made with D3D11_CREATE_DEVICE_VIDEO_SUPPORT that
 * answers ID3D11VideoDevice and ID3D11VideoContext; says which of these Direct3D refuses. */
static void explain_d3d11va_failure(void)
{
    ID3D11Device *device = NULL;
    ID3D11DeviceContext *context = NULL;
    void *video = NULL;
    HRESULT hr =
        D3D11CreateDevice(NULL, D3D_DRIVER_TYPE_HARDWARE, NULL, D3D11_CREATE_DEVICE_VIDEO_SUPPORT,
                          NULL, 0, D3D11_SDK_VERSION, &device, NULL, &context);
    if (FAILED(hr)) {
        printf("  D3D11CreateDevice with D3D11_CREATE_DEVICE_VIDEO_SUPPORT: hr=0x%08lx\n",
               (unsigned long)hr);
        return;
    }
    hr = ID3D11Device_QueryInterface(device, &IID_ID3D11VideoDevice, &video);
    printf("  ID3D11Device::QueryInterface(ID3D11VideoDevice): hr=0x%08lx\n", (unsigned long)hr);
    if (SUCCEEDED(hr))
        IUnknown_Release((IUnknown *)video);
    hr = ID3D11DeviceContext_QueryInterface(context, &IID_ID3D11VideoContext, &video);
    printf("  ID3D11DeviceContext::QueryInterface(ID3D11VideoContext): hr=0x%08lx\n",
           (unsigned long)hr);
    if (SUCCEEDED(hr))
        IUnknown_Release((IUnknown *)video);
    ID3D11DeviceContext_Release(context);
    ID3D11Device_Release(device);
}

static void check_plane_image(cl_mem image, int slice, int plane, int w, int h)
{
    cl_image_format format = {0};
    size_t width = 0, height = 0;
    UINT subresource = 999;
    clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof(format), &format, NULL);
    clGetImageInfo(image, CL_IMAGE_WIDTH, sizeof(width), &width, NULL);
    clGetImageInfo(image, CL_IMAGE_HEIGHT, sizeof(height), &height, NULL);
    cl_int err = clGetImageInfo(image, CL_IMAGE_D3D11_SUBRESOURCE_KHR, sizeof(subresource),
                                &subresource, NULL);
    cl_channel_order order = plane ? CL_RG : CL_R;
    size_t want_w = plane ? w / 2 : w, want_h = plane ? h / 2 : h;
    check(format.image_channel_order == order && format.image_channel_data_type == CL_UNORM_INT8 &&
              width == want_w && height == want_h && err == CL_SUCCESS &&
              subresource == (UINT)(2 * slice + plane),
          "slice %d plane %d image: order 0x%x type 0x%x %zux%zu subresource %u (err %d); "
          "expected order 0x%x UNORM_INT8 %zux%zu subresource %d",
          slice, plane, format.image_channel_order, format.image_channel_data_type, width, height,
          subresource, err, order, want_w, want_h, 2 * slice + plane);
}

static void check_download(AVFrame *hw, int f, int w, int h)
{
    AVFrame *sw = av_frame_alloc();
    sw->format = AV_PIX_FMT_NV12;
    sw->width = w;
    sw->height = h;
    int err = av_frame_get_buffer(sw, 0);
    if (!err)
        err = av_hwframe_transfer_data(sw, hw, 0);
    for (int p = 0; p < 2; p++) {
        char where[128] = "";
        long bad = err ? -1
                       : count_mismatches(sw->data[p], sw->linesize[p], f, p, w, h, 1, where,
                                          sizeof(where));
        check(!err && bad == 0,
              "frame %d %s plane read back through D3D11 after unmap is the inverted picture: "
              "transfer %s, %ld bytes differ%s",
              f, p ? "UV" : "Y", err ? av_error(err) : "ok", bad, where);
    }
    av_frame_free(&sw);
}

static void run_frame(Opencl *cl, AVBufferRef *cl_frames, AVFrame *hw, int f, int w, int h,
                      uint8_t *buffer)
{
    int slice = (int)(intptr_t)hw->data[1];
    AVFrame *sw = av_frame_alloc();
    sw->format = AV_PIX_FMT_NV12;
    sw->width = w;
    sw->height = h;
    int err = av_frame_get_buffer(sw, 0);
    if (!err) {
        fill_picture(sw, f);
        err = av_hwframe_transfer_data(hw, sw, 0);
    }
    av_frame_free(&sw);
    check(!err, "frame %d (slice %d) uploaded through D3D11: %s", f, slice,
          err ? av_error(err) : "ok");
    if (err)
        return;

    AVFrame *mapped = av_frame_alloc();
    mapped->format = AV_PIX_FMT_OPENCL;
    mapped->hw_frames_ctx = av_buffer_ref(cl_frames);
    err = av_hwframe_map(mapped, hw, AV_HWFRAME_MAP_READ | AV_HWFRAME_MAP_WRITE);
    check(!err, "frame %d mapped to OpenCL (acquire): %s", f, err ? av_error(err) : "ok");
    if (err) {
        av_frame_free(&mapped);
        return;
    }
    if (f < POOL_SIZE)
        for (int p = 0; p < 2; p++)
            check_plane_image((cl_mem)mapped->data[p], slice, p, w, h);
    if (!cl->scratch[0] && make_scratch(cl, mapped)) {
        av_frame_free(&mapped);
        return;
    }
    check_planes_in_opencl(cl, mapped, f, w, h, 0, buffer);
    invert_planes(cl, mapped, f, w, h);
    check_planes_in_opencl(cl, mapped, f, w, h, 1, buffer);
    av_frame_free(&mapped); /* unmap: FFmpeg releases the planes and waits */
    check_download(hw, f, w, h);
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 30;
    int w = argc > 3 ? atoi(argv[2]) : 640, h = argc > 3 ? atoi(argv[3]) : 360;
    if (argc > 4)
        bind_name = argv[4];
    AVBufferRef *d3d_dev = NULL, *cl_dev = NULL, *d3d_frames = NULL, *cl_frames = NULL;
    Opencl cl = {0};
    int err;

    check_program = "ff_d3d11_nv12";
    setvbuf(stdout, NULL, _IONBF, 0);
    av_log_set_level(getenv("FF_VERBOSE") ? AV_LOG_DEBUG : AV_LOG_VERBOSE);
    av_log_set_callback(log_callback);
    printf("ff_d3d11_nv12: libavutil %s, %d frames %dx%d NV12, pool of %d, bind %s (0x%x)\n",
           av_version_info(), frames, w, h, POOL_SIZE, bind_name, bind_flags());

    err = av_hwdevice_ctx_create(&d3d_dev, AV_HWDEVICE_TYPE_D3D11VA, NULL, NULL, 0);
    check(!err, "D3D11VA device (av_hwdevice_ctx_create): %s", err ? av_error(err) : "ok");
    if (err) {
        explain_d3d11va_failure();
        return finish(2);
    }

    err = av_hwdevice_ctx_create_derived(&cl_dev, AV_HWDEVICE_TYPE_OPENCL, d3d_dev, 0);
    check(!err, "OpenCL device derived from D3D11VA (av_hwdevice_ctx_create_derived): %s%s",
          err ? av_error(err) : "ok",
          err ? " (FFmpeg takes only GPU devices of platforms with cl_khr_d3d11_sharing here; "
                "a CPU OpenCL device such as PoCL's needs the any-device build, see README)"
              : "");
    if (err)
        return finish(3);
    if (describe_opencl((AVHWDeviceContext *)cl_dev->data, &cl))
        return finish(6);

    AVD3D11VADeviceContext *d3d = ((AVHWDeviceContext *)d3d_dev->data)->hwctx;
    HRESULT hr = probe_nv12_array(d3d->device, w, h);
    if (FAILED(hr)) {
        printf("NV12 UNSUPPORTED: Direct3D cannot create a %dx%d NV12 texture array of %d "
               "(bind %s): CreateTexture2D hr=0x%08lx; nothing past this point was tested\n",
               w, h, POOL_SIZE, bind_name, (unsigned long)hr);
        check(0, "NV12 texture array created by Direct3D");
        return finish(4);
    }

    d3d_frames = av_hwframe_ctx_alloc(d3d_dev);
    AVHWFramesContext *fc = (AVHWFramesContext *)d3d_frames->data;
    fc->format = AV_PIX_FMT_D3D11;
    fc->sw_format = AV_PIX_FMT_NV12;
    fc->width = w;
    fc->height = h;
    fc->initial_pool_size = POOL_SIZE;
    ((AVD3D11VAFramesContext *)fc->hwctx)->BindFlags = bind_flags();
    err = av_hwframe_ctx_init(d3d_frames);
    check(!err, "D3D11VA NV12 frames pool (one texture array of %d): %s", POOL_SIZE,
          err ? av_error(err) : "ok");
    if (err)
        return finish(4);

    err = av_hwframe_ctx_create_derived(&cl_frames, AV_PIX_FMT_OPENCL, cl_dev, d3d_frames,
                                        AV_HWFRAME_MAP_READ | AV_HWFRAME_MAP_WRITE);
    check(!err,
          "OpenCL frames derived from the NV12 pool (clCreateFromD3D11Texture2DKHR, subresource "
          "2*slice+plane): %s",
          err ? av_error(err) : "ok");
    if (err) {
        printf("NV12 SHARE REFUSED: the OpenCL driver (dxcl) did not make images of the NV12 "
               "planes; see the ffmpeg lines above for the OpenCL error\n");
        return finish(5);
    }

    return run_pool(&cl, d3d_dev, cl_dev, d3d_frames, cl_frames, frames, w, h, run_frame);
}
