/* cl_khr_dx9_media_sharing round trips of the 16 D3D9 formats of the table as offscreen plain
 * surfaces (D3DPOOL_DEFAULT) on D3D9 and D3D9Ex devices: Direct3D writes random data, a
 * kernel computes 1.0f - x (UNORM) or -x (FLOAT, HALF) from the source image into the
 * destination image, and Direct3D reads back exactly that; the source is unchanged. */
#include "dx9util.h"

int main(void)
{
    static const UINT sizes[][2] = {{16, 8}, {33, 7}};

    for (int kind = 0; kind < DX9_KIND_COUNT; kind++) {
        struct dx9_env env;

        dx9_open(&env, kind, false, DX9_NO_USER_SYNC);
        for (size_t f = 0; f < DX9_RGB_FORMAT_COUNT; f++) {
            const struct dx9_format *format = &dx9_formats[f];
            HRESULT hr = dx9_check_format(env.d3d, format->format, DX9_PLAIN);

            /* wined3d supports every format of the table as an offscreen plain surface. */
            CHECK(SUCCEEDED(hr), "%s: CheckDeviceFormat(%s, offscreen plain): 0x%08lx",
                  dx9_kind_name(kind), format->name, (unsigned long)hr);
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
                dx9_roundtrip(&env, format->format, DX9_PLAIN, sizes[s][0], sizes[s][1], false,
                              (uint32_t)(kind * 1000 + f * 10 + s + 1));
        }
        dx9_close(&env);
    }
    return test_finish("dx9_roundtrip_rgb");
}
