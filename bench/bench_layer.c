/* The cost of dxcl's Vulkan layer to a program that does not share (issue 39; docs/perf.md):
 * Direct3D work on DXVK with no OpenCL context on its device (textures made with data and freed:
 * images and their memory; copies submitted with a flush each), in child processes that differ
 * in DXCL_LAYER_MODE only, pairs run in turn (the order alternating), and the ratio of their times.
 * Both children load dxcl's OpenCL.dll and its Unix side as the bench does, so by default the
 * layer sees a process where dxcl may share: the fd extensions added, the device's images
 * recorded, nothing changed until sharing starts. With DXCL_LAYER_MODE=passive it hands the device
 * the next layer's functions, as in every process without dxcl: the baseline. (Wine keeps a
 * program's VK_ variables from its children's Windows environment, so a child cannot be started
 * without the layer from here; a passive device's calls do not enter the layer: native.vk_layer
 * checks that.) Where Direct3D is not DXVK or the layer is not loaded, the row says so.
 *   bench.exe layer-child ROUNDS FILE   a child: its time (ms) for ROUNDS rounds into FILE,
 *                                       and whether dxcl's layer answered in it */
#include "benchlib.h"
#include "interop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initguid.h>
#include "core/twin.h"
#include "gpu/dxvk_interop.h"

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

/* Whether dxcl's layer is loaded in this process: its Unix side answers a call of it (an unknown
 * twin's release state: no effect) without saying the layer is missing. */
static bool layer_loaded(void)
{
    typedef int32_t(WINAPI * layer_call_fn)(uint32_t call, void *params, uint32_t *missing);
    HMODULE pair = GetModuleHandleA("dxclunix.dll");
    layer_call_fn layer_call =
        pair ? (layer_call_fn)(void *)GetProcAddress(pair, "dxclunixLayerCall") : NULL;
    struct dxcl_layer_release_state state = {0};
    uint32_t missing = 1;

    if (layer_call)
        layer_call(DXCL_LAYER_RELEASE_STATE, &state, &missing);
    return !missing;
}

int bench_layer_child(int rounds, const char *file)
{
    ID3D11DeviceContext *immediate;
    ID3D11Device *device = test_d3d11_device(&immediate);
    D3D11_TEXTURE2D_DESC desc = {
        SIDE, SIDE, 1, 1, DXGI_FORMAT_R8G8B8A8_UNORM, {1, 0}, D3D11_USAGE_DEFAULT, 0, 0, 0};
    static uint32_t pixels[SIDE * SIDE];
    void *interop = NULL;
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
    if (SUCCEEDED(ID3D11Device_QueryInterface(device, &IID_IDXGIVkInteropDevice1, &interop)))
        IUnknown_Release((IUnknown *)interop);
    REQUIRE((out = fopen(file, "w")) != NULL, "cannot write %s", file);
    fprintf(out, "%f %d %d\n", ms, interop != NULL, layer_loaded());
    fclose(out);
    ID3D11Texture2D_Release(target);
    ID3D11DeviceContext_Release(immediate);
    ID3D11Device_Release(device);
    CHECK(ms > 0, "the child's rounds took %.1f ms", ms);
    return test_finish("layer child");
}

/* This process's environment with DXCL_LAYER_MODE=`setting` (NULL: without it); the caller frees
 * it. */
static char *environment_with(const char *setting)
{
    char *now = GetEnvironmentStringsA(), *block, *at;
    size_t size = 0;

    for (const char *v = now; *v; v += strlen(v) + 1)
        size += strlen(v) + 1;
    REQUIRE((block = malloc(size + 64)), "memory");
    at = block;
    for (const char *v = now; *v; v += strlen(v) + 1)
        if (_strnicmp(v, "DXCL_LAYER_MODE=", 16)) {
            strcpy(at, v);
            at += strlen(v) + 1;
        }
    if (setting)
        at += sprintf(at, "DXCL_LAYER_MODE=%s", setting) + 1;
    *at = 0;
    FreeEnvironmentStringsA(now);
    return block;
}

struct child {
    double ms;
    bool dxvk, layer;
};

/* A child run with DXCL_LAYER_MODE=`setting` (NULL: unset). */
static struct child run_child(const char *setting, const char *file)
{
    char exe[MAX_PATH], command[MAX_PATH + 600];
    STARTUPINFOA startup = {.cb = sizeof(startup)};
    PROCESS_INFORMATION process;
    char *environment = environment_with(setting);
    struct child child = {-1, false, false};
    int dxvk = 0, layer = 0;
    DWORD code = 1;
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
    if (fscanf(in, "%lf %d %d", &child.ms, &dxvk, &layer) != 3)
        child.ms = -1;
    fclose(in);
    REQUIRE(child.ms > 0, "the layer's child reported no time");
    child.dxvk = dxvk;
    child.layer = layer;
    return child;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

void bench_layer(void)
{
    char file[MAX_PATH], dir[MAX_PATH];
    double with_ms[PAIRS], without_ms[PAIRS], ratios[PAIRS];
    struct child probe;

    GetTempPathA(sizeof(dir), dir);
    snprintf(file, sizeof(file), "%sdxcl-bench-layer-%lu.txt", dir, GetCurrentProcessId());
    probe = run_child(NULL, file);
    if (!probe.dxvk || !probe.layer) {
        bench_note("layer row: not measured (%s)",
                   !probe.dxvk ? "Direct3D is not DXVK"
                               : "dxcl's Vulkan layer or its Unix side is not loaded");
        DeleteFileA(file);
        return;
    }
    for (int i = 0; i < PAIRS; i++) {
        bool layer_first = i % 2 == 0;
        struct child first = run_child(layer_first ? NULL : "passive", file);
        struct child second = run_child(layer_first ? "passive" : NULL, file);
        with_ms[i] = layer_first ? first.ms : second.ms;
        without_ms[i] = layer_first ? second.ms : first.ms;
        ratios[i] = with_ms[i] / without_ms[i];
    }
    DeleteFileA(file);
    qsort(ratios, PAIRS, sizeof(ratios[0]), compare);
    qsort(with_ms, PAIRS, sizeof(with_ms[0]), compare);
    qsort(without_ms, PAIRS, sizeof(without_ms[0]), compare);
    bench_note(
        "layer row: %d pairs of children, %d rounds each (%dx%d texture made, copied, freed)",
        PAIRS, ROUNDS, SIDE, SIDE);
    bench_note("layer row medians: %.1f ms where dxcl may share, %.1f ms with the layer passive",
               (with_ms[PAIRS / 2 - 1] + with_ms[PAIRS / 2]) / 2,
               (without_ms[PAIRS / 2 - 1] + without_ms[PAIRS / 2]) / 2);
    bench_ratio("Layer, no sharing: DXVK's textures and submits, dxcl loaded / layer passive",
                (struct bench_spread){(ratios[PAIRS / 2 - 1] + ratios[PAIRS / 2]) / 2, ratios[0],
                                      ratios[PAIRS - 1]},
                1.01);
}
