/* The cost of dxcl's Vulkan layer to a program that does not share (issue 39; docs/perf.md):
 * Direct3D work on DXVK, with no OpenCL context on its device — textures made and freed (images
 * and their memory), copies submitted with a flush each — in child processes with and without
 * VK_LAYER_DXCL_interop on VK_INSTANCE_LAYERS, pairs run in turn (the order alternating), and the
 * ratio of their times. The children load dxcl's OpenCL.dll as the bench does, so the layer sees
 * a process where dxcl may share: it follows the device (its images, its submissions) without
 * changing anything of it. Where Direct3D is not DXVK or the layer is not enabled, the row says
 * so instead.
 *   bench.exe layer-child ROUNDS FILE   a child: ROUNDS rounds, its time (ms) into FILE */
#include "benchlib.h"
#include "interop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initguid.h>
#include "dxgi/dxvk_interop.h"

#define LAYER_NAME "VK_LAYER_DXCL_interop"
enum { SIDE = 256, ROUNDS = 300, PAIRS = 6 };

/* One round: a texture made with data, copied into `target` and flushed (a submission), freed. */
static void layer_round(ID3D11Device *device, ID3D11DeviceContext *immediate,
                        ID3D11Texture2D *target, const void *pixels)
{
    D3D11_TEXTURE2D_DESC desc = {SIDE,
                                 SIDE,
                                 1,
                                 1,
                                 DXGI_FORMAT_R8G8B8A8_UNORM,
                                 {1, 0},
                                 D3D11_USAGE_DEFAULT,
                                 D3D11_BIND_SHADER_RESOURCE,
                                 0,
                                 0};
    D3D11_SUBRESOURCE_DATA data = {pixels, SIDE * 4, 0};
    ID3D11Texture2D *texture;

    BENCH_HR(ID3D11Device_CreateTexture2D(device, &desc, &data, &texture));
    ID3D11DeviceContext_CopyResource(immediate, (ID3D11Resource *)target,
                                     (ID3D11Resource *)texture);
    ID3D11DeviceContext_Flush(immediate);
    ID3D11Texture2D_Release(texture);
}

static void wait_idle(ID3D11Device *device, ID3D11DeviceContext *immediate)
{
    D3D11_QUERY_DESC desc = {D3D11_QUERY_EVENT, 0};
    ID3D11Query *query;

    BENCH_HR(ID3D11Device_CreateQuery(device, &desc, &query));
    ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
    while (ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)query, NULL, 0, 0) ==
           S_FALSE)
        Sleep(0);
    ID3D11Query_Release(query);
}

int bench_layer_child(int rounds, const char *file)
{
    ID3D11DeviceContext *immediate;
    ID3D11Device *device = test_d3d11_device(&immediate);
    D3D11_TEXTURE2D_DESC desc = {
        SIDE, SIDE, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, {1, 0}, D3D11_USAGE_DEFAULT, 0, 0, 0};
    static uint32_t pixels[SIDE * SIDE];
    ID3D11Texture2D *target;
    double start, ms;
    FILE *out;

    test_fill_bytes(pixels, sizeof(pixels), 0x1a7e);
    BENCH_HR(ID3D11Device_CreateTexture2D(device, &desc, NULL, &target));
    for (int i = 0; i < 20; i++) /* warm-up: DXVK's pipelines and allocator */
        layer_round(device, immediate, target, pixels);
    wait_idle(device, immediate);
    start = bench_now_ms();
    for (int i = 0; i < rounds; i++)
        layer_round(device, immediate, target, pixels);
    wait_idle(device, immediate);
    ms = bench_now_ms() - start;
    REQUIRE((out = fopen(file, "w")) != NULL, "cannot write %s", file);
    fprintf(out, "%f\n", ms);
    fclose(out);
    ID3D11Texture2D_Release(target);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
    CHECK(ms > 0, "the child's rounds took %.1f ms", ms);
    return test_finish("layer child");
}

/* This process's environment with VK_INSTANCE_LAYERS as `layers` (NULL: without it); the caller
 * frees it. */
static char *environment_with(const char *layers)
{
    char *now = GetEnvironmentStringsA(), *block, *at;
    size_t size = 0;

    for (const char *v = now; *v; v += strlen(v) + 1)
        size += strlen(v) + 1;
    REQUIRE((block = malloc(size + strlen(LAYER_NAME) + 64 + (layers ? strlen(layers) : 0))),
            "memory");
    at = block;
    for (const char *v = now; *v; v += strlen(v) + 1)
        if (_strnicmp(v, "VK_INSTANCE_LAYERS=", 19)) {
            strcpy(at, v);
            at += strlen(v) + 1;
        }
    if (layers)
        at += sprintf(at, "VK_INSTANCE_LAYERS=%s", layers) + 1;
    *at = 0;
    FreeEnvironmentStringsA(now);
    return block;
}

/* VK_INSTANCE_LAYERS without dxcl's layer (the others, such as a validation layer, stay). */
static void layers_without(const char *layers, char *out, size_t size)
{
    const char *at = layers;

    out[0] = 0;
    while (*at) {
        const char *end = strchr(at, ':');
        size_t length = end ? (size_t)(end - at) : strlen(at);
        if (length != strlen(LAYER_NAME) || strncmp(at, LAYER_NAME, length))
            snprintf(out + strlen(out), size - strlen(out), "%s%.*s", out[0] ? ":" : "",
                     (int)length, at);
        at += length + (end != NULL);
    }
}

/* A child's time (ms) for ROUNDS rounds with `layers` on its instance layers. */
static double run_child(const char *layers, const char *file)
{
    char exe[MAX_PATH], command[MAX_PATH + 600];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    char *environment = environment_with(layers && *layers ? layers : NULL);
    DWORD code = 1;
    double ms = -1;
    FILE *in;

    GetModuleFileNameA(NULL, exe, sizeof(exe));
    snprintf(command, sizeof(command), "\"%s\" layer-child %d \"%s\"", exe, ROUNDS, file);
    fflush(stdout);
    REQUIRE(
        CreateProcessA(exe, command, NULL, NULL, FALSE, 0, environment, NULL, &startup, &process),
        "CreateProcess(%s): error %lu", command, GetLastError());
    WaitForSingleObject(process.hProcess, 600000);
    GetExitCodeProcess(process.hProcess, &code);
    CloseHandle(process.hProcess);
    CloseHandle(process.hThread);
    free(environment);
    REQUIRE(code == 0 && (in = fopen(file, "r")), "the layer's child failed (exit code %lu)",
            (unsigned long)code);
    if (fscanf(in, "%lf", &ms) != 1)
        ms = -1;
    fclose(in);
    REQUIRE(ms > 0, "the layer's child reported no time");
    return ms;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* Where the row can be measured: Direct3D is DXVK and dxcl's layer is on the instance layers;
 * else why not. */
static const char *not_measurable(char *layers, size_t size)
{
    ID3D11DeviceContext *immediate;
    ID3D11Device *device = test_d3d11_device(&immediate);
    void *interop = NULL;
    bool dxvk = SUCCEEDED(
        ID3D11Device_QueryInterface(device, &IID_IDXGIVkInteropDevice1, (void **)&interop));

    if (interop)
        IUnknown_Release((IUnknown *)interop);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
    if (!dxvk)
        return "Direct3D is not DXVK";
    if (!GetEnvironmentVariableA("VK_INSTANCE_LAYERS", layers, (DWORD)size) ||
        !strstr(layers, LAYER_NAME))
        return "dxcl's Vulkan layer is not on VK_INSTANCE_LAYERS";
    return NULL;
}

void bench_layer(void)
{
    char layers[1024], without[1024], file[MAX_PATH], dir[MAX_PATH];
    double with_ms[PAIRS], without_ms[PAIRS], ratios[PAIRS];
    const char *why = not_measurable(layers, sizeof(layers));

    if (why) {
        bench_note("the layer's cost to a program that does not share: not measured (%s)", why);
        return;
    }
    layers_without(layers, without, sizeof(without));
    GetTempPathA(sizeof(dir), dir);
    snprintf(file, sizeof(file), "%sdxcl-bench-layer-%lu.txt", dir, GetCurrentProcessId());
    for (int i = 0; i < PAIRS; i++) {
        bool layer_first = i % 2 == 0;
        double first = run_child(layer_first ? layers : without, file);
        double second = run_child(layer_first ? without : layers, file);
        with_ms[i] = layer_first ? first : second;
        without_ms[i] = layer_first ? second : first;
        ratios[i] = with_ms[i] / without_ms[i];
    }
    DeleteFileA(file);
    qsort(ratios, PAIRS, sizeof(ratios[0]), compare);
    qsort(with_ms, PAIRS, sizeof(with_ms[0]), compare);
    qsort(without_ms, PAIRS, sizeof(without_ms[0]), compare);
    bench_note("the layer's cost to a program that does not share: %d pairs of children, %d rounds "
               "each (a %dx%d texture made, copied, flushed, freed): %.1f ms with the layer, "
               "%.1f ms without (medians)",
               PAIRS, ROUNDS, SIDE, SIDE, (with_ms[PAIRS / 2 - 1] + with_ms[PAIRS / 2]) / 2,
               (without_ms[PAIRS / 2 - 1] + without_ms[PAIRS / 2]) / 2);
    bench_ratio("Layer, no sharing: DXVK's textures and submits with / without",
                (struct bench_spread){(ratios[PAIRS / 2 - 1] + ratios[PAIRS / 2]) / 2, ratios[0],
                                      ratios[PAIRS - 1]},
                1.01);
}
