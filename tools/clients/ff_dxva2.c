/* ff_dxva2: FFmpeg's DXVA2 -> OpenCL path (libavutil's hwcontext API, what
 * `hwmap=derive_device=opencl` runs on DXVA2 frames) on dxcl: the recheck of docs/testing.md.
 *
 * A DXVA2 device (D3D9Ex), an OpenCL device derived from it (the context carries
 * CL_CONTEXT_ADAPTER_D3D9EX_KHR), a pool of four NV12 surfaces and the OpenCL frames derived
 * from it (clCreateFromDX9MediaSurfaceKHR, one image per plane). Each frame: known data locked
 * into the surface, mapped to OpenCL (acquire), both planes read and checked, each inverted by a
 * kernel into the mapped image, unmapped (release), and the surface read back by a lock.
 *
 * The surfaces are locked by the program, not through av_hwframe_transfer_data: FFmpeg's upload
 * locks with D3DLOCK_DISCARD, and Wine 8 drops data written that way on these surfaces (with
 * or without dxcl; docs/testing.md). The pool is of DXVA2_VideoProcessorRenderTarget surfaces:
 * Wine refuses decoder render targets.
 *
 *   ff_dxva2.exe [FRAMES [WIDTH HEIGHT]]   defaults 30 640 360
 * Exit: 0 all passed; 1 a check failed; 2 no DXVA2 device; 3 no OpenCL device derived;
 *       4 no NV12 pool; 5 no OpenCL frames derived; 6 other setup failure.
 */
#define COBJMACROS
#include <d3d9.h>

#include "ff_common.h"
#include <libavutil/hwcontext_dxva2.h>

/* Locks the surface and copies the picture in (write) or checks it (read, inverted). */
static void lock_surface(IDirect3DSurface9 *surface, int f, int w, int h, int write)
{
    D3DLOCKED_RECT lock;
    HRESULT hr = IDirect3DSurface9_LockRect(surface, &lock, NULL, write ? 0 : D3DLOCK_READONLY);
    if (FAILED(hr)) {
        check(0, "frame %d surface locked for %s: hr=0x%08lx", f, write ? "upload" : "readback",
              (unsigned long)hr);
        return;
    }
    uint8_t *y_plane = lock.pBits, *uv_plane = y_plane + (size_t)lock.Pitch * h;
    if (write) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                y_plane[y * lock.Pitch + x] = picture_y(f, x, y);
        for (int y = 0; y < h / 2; y++)
            for (int x = 0; x < w / 2; x++)
                for (int c = 0; c < 2; c++)
                    uv_plane[y * lock.Pitch + 2 * x + c] = picture_uv(f, x, y, c);
        check(1, "frame %d picture locked into the surface (pitch %d)", f, lock.Pitch);
    } else {
        for (int p = 0; p < 2; p++) {
            char where[128] = "";
            long bad = count_mismatches(p ? uv_plane : y_plane, lock.Pitch, f, p, w, h, 1, where,
                                        sizeof(where));
            check(bad == 0,
                  "frame %d %s plane read back through a lock after unmap is the inverted "
                  "picture: %ld bytes differ%s",
                  f, p ? "UV" : "Y", bad, where);
        }
    }
    IDirect3DSurface9_UnlockRect(surface);
}

static void run_frame(Opencl *cl, AVBufferRef *cl_frames, AVFrame *hw, int f, int w, int h,
                      uint8_t *buffer)
{
    IDirect3DSurface9 *surface = (IDirect3DSurface9 *)hw->data[3];
    lock_surface(surface, f, w, h, 1);

    AVFrame *mapped = av_frame_alloc();
    mapped->format = AV_PIX_FMT_OPENCL;
    mapped->hw_frames_ctx = av_buffer_ref(cl_frames);
    int err = av_hwframe_map(mapped, hw, AV_HWFRAME_MAP_READ | AV_HWFRAME_MAP_WRITE);
    check(!err, "frame %d mapped to OpenCL (acquire): %s", f, err ? av_error(err) : "ok");
    if (err) {
        av_frame_free(&mapped);
        return;
    }
    if (!cl->scratch[0] && make_scratch(cl, mapped)) {
        av_frame_free(&mapped);
        return;
    }
    check_planes_in_opencl(cl, mapped, f, w, h, 0, buffer);
    invert_planes(cl, mapped, f, w, h);
    check_planes_in_opencl(cl, mapped, f, w, h, 1, buffer);
    av_frame_free(&mapped); /* unmap: FFmpeg releases the planes and waits */
    lock_surface(surface, f, w, h, 0);
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 30;
    int w = argc > 3 ? atoi(argv[2]) : 640, h = argc > 3 ? atoi(argv[3]) : 360;
    AVBufferRef *dev = NULL, *cl_dev = NULL, *dx_frames = NULL, *cl_frames = NULL;
    Opencl cl = {0};
    int err;

    check_program = "ff_dxva2";
    setvbuf(stdout, NULL, _IONBF, 0);
    av_log_set_level(getenv("FF_VERBOSE") ? AV_LOG_DEBUG : AV_LOG_WARNING);
    av_log_set_callback(log_callback);
    printf("ff_dxva2: libavutil %s, %d frames %dx%d NV12, pool of %d\n", av_version_info(), frames,
           w, h, POOL_SIZE);

    err = av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_DXVA2, NULL, NULL, 0);
    check(!err, "DXVA2 device (av_hwdevice_ctx_create): %s", err ? av_error(err) : "ok");
    if (err)
        return finish(2);
    err = av_hwdevice_ctx_create_derived(&cl_dev, AV_HWDEVICE_TYPE_OPENCL, dev, 0);
    check(!err, "OpenCL device derived from DXVA2: %s%s", err ? av_error(err) : "ok",
          err ? " (FFmpeg takes only GPU devices here; PoCL's CPU device needs the any-device "
                "build, see README)"
              : "");
    if (err)
        return finish(3);
    if (describe_opencl((AVHWDeviceContext *)cl_dev->data, &cl))
        return finish(6);

    dx_frames = av_hwframe_ctx_alloc(dev);
    AVHWFramesContext *fc = (AVHWFramesContext *)dx_frames->data;
    fc->format = AV_PIX_FMT_DXVA2_VLD;
    fc->sw_format = AV_PIX_FMT_NV12;
    fc->width = w;
    fc->height = h;
    fc->initial_pool_size = POOL_SIZE;
    ((AVDXVA2FramesContext *)fc->hwctx)->surface_type = DXVA2_VideoProcessorRenderTarget;
    err = av_hwframe_ctx_init(dx_frames);
    check(!err, "DXVA2 NV12 pool of %d surfaces: %s", POOL_SIZE, err ? av_error(err) : "ok");
    if (err)
        return finish(4);
    err = av_hwframe_ctx_create_derived(&cl_frames, AV_PIX_FMT_OPENCL, cl_dev, dx_frames,
                                        AV_HWFRAME_MAP_READ | AV_HWFRAME_MAP_WRITE);
    check(!err, "OpenCL frames derived from the pool (clCreateFromDX9MediaSurfaceKHR): %s",
          err ? av_error(err) : "ok");
    if (err)
        return finish(5);

    return run_pool(&cl, dev, cl_dev, dx_frames, cl_frames, frames, w, h, run_frame);
}
