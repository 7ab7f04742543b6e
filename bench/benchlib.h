/* The benchmark harness of `make bench` (bench/): variants of one frame run interleaved in one
 * process, medians per variant and per phase with the spread of the frames (p10..p90), result
 * rows printed with their targets and written to results.txt, and a bar chart (perf.png, drawn
 * with GDI, written through WIC).
 * Times are reported, never asserted: the bench fails only when a result is wrong. */
#ifndef DXCL_BENCHLIB_H
#define DXCL_BENCHLIB_H

#include "testlib.h"

#define BENCH_MAX_PHASES 5

/* Phase times of one frame: bench_mark ends the current phase (time since the previous mark or
 * the frame's start). */
struct bench_clock {
    double last;
    double phase[BENCH_MAX_PHASES];
    int phases;
};
void bench_mark(struct bench_clock *clock);

/* One way of doing a frame. phase_names: what each bench_mark ends (NULL-terminated). settle
 * (or NULL), untimed after each frame: finishes work the frame left queued on the GPU (a
 * Direct3D copy not yet submitted), which the next frame, often another variant's, would
 * otherwise pay for. BENCH_SETTLE=0 skips it (the method before the eleventh session). */
struct bench_variant {
    const char *name;
    void (*frame)(void *ctx, struct bench_clock *clock);
    void *ctx;
    const char *phase_names[BENCH_MAX_PHASES + 1];
    void (*settle)(void *ctx);
};

/* A figure and its spread over the measured frames: the median, and the 10th and 90th
 * percentiles (lo, hi) of the per-frame values. */
struct bench_spread {
    double median, lo, hi;
};

/* Median frame time (with its spread) and median time of each phase of a variant (ms), and
 * every measured frame's time in frame order (for per-frame ratios between variants). */
struct bench_median {
    double total;
    struct bench_spread spread; /* spread.median == total */
    double phase[BENCH_MAX_PHASES];
    int phases;
    double *frames; /* `count` frame times, frame f of every variant measured side by side */
    int count;
};

/* Runs `count` variants in turn, frame after frame (2 warm-up frames each, then `frames`
 * measured), and fills out[count] with the medians; bench_medians_free frees them. */
void bench_interleave(const struct bench_variant *variants, int count, int frames,
                      struct bench_median *out);
void bench_medians_free(struct bench_median *medians, int count);

/* scale * a / b: the ratio of the medians, and the spread of the ratios of frames measured side
 * by side (frame f of a against frame f of b). */
struct bench_spread bench_frame_ratio(const struct bench_median *a, const struct bench_median *b,
                                      double scale);
/* A variant's frame time and spread times `scale` (a per-call or per-object figure). */
struct bench_spread bench_scaled(const struct bench_median *m, double scale);

double bench_now_ms(void);

/* Whether the figure `group` ("D3D11", "D3D10", "DX9", "NV12", "many", "layer", "release")
 * runs: BENCH_ONLY, where set, names the one group to run (P2 always runs). */
bool bench_runs(const char *group);

/* The measured frame count of the main figures (the program's argument); benches scale it. */
extern int bench_frames;

/* ---- Results ---- */

/* A ratio with its spread and target (median <= target is met; target 0: none). */
void bench_ratio(const char *name, struct bench_spread ratio, double target);
/* A time (ms) of a variant with its spread and the medians of its phases (printed and
 * plotted). */
void bench_times(const char *name, const struct bench_variant *variant,
                 const struct bench_median *median);
/* Runs a sharing and a hand-written variant interleaved (`frames` frames) and reports both
 * times ("figure: name") and the ratio of the first to the second against `target`. */
void bench_compare(const char *figure, const struct bench_variant v[2], int frames, double target);
/* A time with its spread, without phases (in `unit`). */
void bench_value(const char *name, struct bench_spread value, const char *unit);
/* The same with a target: the value must be at most `limit` (in `unit`). */
void bench_value_limit(const char *name, struct bench_spread value, const char *unit, double limit);
/* A line of context (driver, version): printed and written to results.txt. */
void bench_note(const char *fmt, ...) __attribute__((format(gnu_printf, 1, 2)));
/* How dxcl moves a shared object's data (dxclGetTransferMode), as a note: the same figure means
 * different work on the copy engine, zero-copy and the GPU path. */
void bench_note_transfer_mode(const char *what, cl_mem mem);
/* An event query on the D3D11 device's immediate context, flushed and waited for: a frame's
 * last Direct3D copy is done (the variants' settle). */
void bench_d3d11_settle(void *device);

/* Writes results.txt and perf.png into `dir` (a Windows or Unix path); false on failure. */
bool bench_write(const char *dir);

/* Stops the bench when a result is not bit-exact. */
void bench_check_bytes(const void *got, const void *want, size_t bytes, const char *what);

/* Finishes the queue; any error stops the bench. */
void bench_finish(cl_command_queue queue);

/* BENCH_CL / BENCH_HR: a failed call stops the bench. Successes are not counted as checks:
 * these run inside timed loops, where test_report would add its own cost. */
#define BENCH_CL(call)                                                                             \
    do {                                                                                           \
        cl_int err_ = (call);                                                                      \
        if (err_ != CL_SUCCESS)                                                                    \
            bench_fail(__FILE__, __LINE__, #call, err_);                                           \
    } while (0)
#define BENCH_HR(call)                                                                             \
    do {                                                                                           \
        HRESULT hr_ = (call);                                                                      \
        if (FAILED(hr_))                                                                           \
            bench_fail(__FILE__, __LINE__, #call, hr_);                                            \
    } while (0)
void bench_fail(const char *file, int line, const char *call, long code) __attribute__((noreturn));

/* ---- The benches (one file each) ---- */

void bench_d3d1x(void);      /* bench_d3d1x.c: P1, P1b, P4 and format rows, D3D11 and D3D10 */
void bench_many(void);       /* bench_many.c: P3 */
void bench_plain(void);      /* bench_plain.c: P2 */
void bench_dx9_nv12(void);   /* bench_dx9.c: the DX9 NV12 row */
void bench_d3d11_nv12(void); /* bench_d3d11_nv12.c: the D3D11 NV12 row */
void bench_buffer(void);     /* bench_buffer.c: the 64 MB D3D11 buffer row */
void bench_layer(void);      /* bench_layer.c: the Vulkan layer's cost without sharing */
int bench_layer_child(int rounds, const char *file);
void bench_release(void); /* bench_release.c: P6, the release event's latency */

#endif
