/* make bench: every figure of docs/perf.md in one run, ratios measured side by side.
 *   bench.exe [frames] [output dir] [P2]
 * frames: measured frames of the main figures (default 60; the other benches scale it).
 * output dir: where results.txt and perf.png go (default: the current directory).
 * P2: only the P2 figures (a few seconds: for repeated runs of the call overhead).
 *   bench.exe layer-child ROUNDS FILE   a child of the layer's row (bench_layer.c) */
#include "benchlib.h"

#include <stdlib.h>
#include <string.h>

#include "dxcl/dxcl.h"

static void note_platform(void)
{
    cl_platform_id platform = test_platform();
    cl_device_id device = test_device(platform);
    char name[256], version[256], device_name[256];

    BENCH_CL(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name), name, NULL));
    BENCH_CL(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(version), version, NULL));
    BENCH_CL(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(device_name), device_name, NULL));
    bench_note("driver: %s | %s", name, version);
    bench_note("device: %s", device_name);
}

static void note_dxcl(void)
{
    dxclGetInfo_fn get_info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");
    char version[64] = "?", data_path[1024] = "?";

    REQUIRE(get_info != NULL, "dxclGetInfo is not exported: is OpenCL.dll dxcl?");
    BENCH_CL(get_info(DXCL_INFO_VERSION, sizeof(version), version, NULL));
    BENCH_CL(get_info(DXCL_INFO_DATA_PATH, sizeof(data_path), data_path, NULL));
    bench_note("dxcl %s, data path: %s", version, data_path);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 2 ? argv[2] : ".";
    double start = bench_now_ms();

    if (argc == 4 && !strcmp(argv[1], "layer-child"))
        return bench_layer_child(atoi(argv[2]), argv[3]);
    if (argc > 1)
        bench_frames = atoi(argv[1]);
    REQUIRE(bench_frames >= 3, "usage: bench.exe [frames >= 3] [output dir]");
    note_platform();
    note_dxcl();
    bench_note("%d frames per figure (P2: %d batches), variants interleaved, medians and p10-p90 "
               "of the frames",
               bench_frames, 4 * bench_frames);
    if (argc <= 3 || strcmp(argv[3], "P2")) {
        bench_d3d1x();
        if (bench_runs("DX9"))
            bench_dx9_nv12();
        if (bench_runs("NV12"))
            bench_d3d11_nv12();
        if (bench_runs("buffer"))
            bench_buffer();
        if (bench_runs("many"))
            bench_many();
        if (bench_runs("layer"))
            bench_layer();
        if (bench_runs("release"))
            bench_release();
    }
    bench_plain();
    printf("bench: %.1f s\n", (bench_now_ms() - start) / 1000.0);
    REQUIRE(bench_write(dir), "cannot write the results into %s", dir);
    return test_finish("bench");
}
