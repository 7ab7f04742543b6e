/* The benchmark harness: interleaving, medians, result rows, results.txt and perf.png. */
#include "benchlib.h"
#include "dxcl/dxcl.h"
#include "interop.h"

#include <stdarg.h>
#include <stdlib.h>
#include <d3d11.h>
#include <wincodec.h>

int bench_frames = 60;

double bench_now_ms(void)
{
    static LARGE_INTEGER frequency;
    LARGE_INTEGER t;

    if (!frequency.QuadPart)
        QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&t);
    return 1000.0 * (double)t.QuadPart / (double)frequency.QuadPart;
}

void bench_mark(struct bench_clock *clock)
{
    double t = bench_now_ms();

    if (clock->phases < BENCH_MAX_PHASES)
        clock->phase[clock->phases++] = t - clock->last;
    clock->last = t;
}

void bench_fail(const char *file, int line, const char *call, long code)
{
    test_report(false, file, line, "%s: %ld (0x%08lx)", call, code, (unsigned long)code);
    test_abort();
}

void bench_finish(cl_command_queue queue)
{
    BENCH_CL(clFinish(queue));
}

void bench_check_bytes(const void *got, const void *want, size_t bytes, const char *what)
{
    REQUIRE(test_same_bytes(got, want, bytes, what), "%s: result is not bit-exact", what);
}

bool bench_runs(const char *group)
{
    const char *only = getenv("BENCH_ONLY");

    return !only || !*only || !strcmp(only, group);
}

/* BENCH_SETTLE=0: the variants' settle steps are skipped. */
static bool settle_wanted(void)
{
    const char *value = getenv("BENCH_SETTLE");

    return !value || strcmp(value, "0");
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values, interpolated between the two nearest. */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;

    return i + 1 < n ? sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]) : sorted[n - 1];
}

/* The median and p10..p90 of n values (sorted in place). */
static struct bench_spread spread_of(double *v, int n)
{
    qsort(v, n, sizeof(*v), compare_doubles);
    return (struct bench_spread){quantile(v, n, 0.5), quantile(v, n, 0.1), quantile(v, n, 0.9)};
}

void bench_interleave(const struct bench_variant *variants, int count, int frames,
                      struct bench_median *out)
{
    enum { WARM_UP = 2 };
    /* samples[variant][phase 0..MAX-1, total at MAX][frame] */
    double *samples = calloc((size_t)count * (BENCH_MAX_PHASES + 1) * frames, sizeof(double));
    bool settle = settle_wanted();

    REQUIRE(samples != NULL, "out of memory");
#define SAMPLE(v, p, f) samples[((size_t)(v) * (BENCH_MAX_PHASES + 1) + (p)) * frames + (f)]
    for (int f = -WARM_UP; f < frames; f++) {
        for (int v = 0; v < count; v++) {
            struct bench_clock clock = {.last = bench_now_ms()};
            double start = clock.last, end;

            variants[v].frame(variants[v].ctx, &clock);
            end = bench_now_ms();
            if (settle && variants[v].settle)
                variants[v].settle(variants[v].ctx);
            if (f < 0)
                continue;
            SAMPLE(v, BENCH_MAX_PHASES, f) = end - start;
            for (int p = 0; p < clock.phases; p++)
                SAMPLE(v, p, f) = clock.phase[p];
            out[v].phases = clock.phases;
        }
    }
    for (int v = 0; v < count; v++) {
        out[v].frames = malloc(frames * sizeof(double));
        REQUIRE(out[v].frames != NULL, "out of memory");
        out[v].count = frames;
        memcpy(out[v].frames, &SAMPLE(v, BENCH_MAX_PHASES, 0), frames * sizeof(double));
        out[v].spread = spread_of(&SAMPLE(v, BENCH_MAX_PHASES, 0), frames);
        out[v].total = out[v].spread.median;
        for (int p = 0; p < out[v].phases; p++)
            out[v].phase[p] = spread_of(&SAMPLE(v, p, 0), frames).median;
    }
#undef SAMPLE
    free(samples);
}

void bench_medians_free(struct bench_median *medians, int count)
{
    for (int v = 0; v < count; v++) {
        free(medians[v].frames);
        medians[v].frames = NULL;
    }
}

struct bench_spread bench_frame_ratio(const struct bench_median *a, const struct bench_median *b,
                                      double scale)
{
    int n = a->count < b->count ? a->count : b->count;
    double *ratios = malloc((n ? n : 1) * sizeof(double));
    struct bench_spread spread;

    REQUIRE(ratios != NULL && n > 0, "frame ratio of %d frames", n);
    for (int f = 0; f < n; f++)
        ratios[f] = scale * a->frames[f] / b->frames[f];
    spread = spread_of(ratios, n);
    free(ratios);
    /* The figure stays the ratio of the medians; the frames give its spread. */
    spread.median = scale * a->total / b->total;
    return spread;
}

struct bench_spread bench_scaled(const struct bench_median *m, double scale)
{
    return (struct bench_spread){scale * m->spread.median, scale * m->spread.lo,
                                 scale * m->spread.hi};
}

/* ---- Result rows ---- */

enum row_kind { ROW_RATIO, ROW_TIMES, ROW_VALUE, ROW_NOTE };

struct row {
    enum row_kind kind;
    char name[128];
    double value, lo, hi, target; /* lo, hi: p10 and p90 of the frames */
    const char *unit;
    int phases;
    char phase_names[BENCH_MAX_PHASES][24];
    double phase[BENCH_MAX_PHASES];
};

enum { MAX_ROWS = 160 };
static struct row rows[MAX_ROWS];
static int row_count;

static struct row *new_row(enum row_kind kind, const char *name)
{
    REQUIRE(row_count < MAX_ROWS, "too many result rows");
    struct row *row = &rows[row_count++];
    row->kind = kind;
    snprintf(row->name, sizeof(row->name), "%s", name);
    return row;
}

/* One line of a row, as printed and as written to results.txt. */
static void format_row(const struct row *row, char *line, size_t size)
{
    int n;

    switch (row->kind) {
    case ROW_RATIO:
        if (row->target <= 0) /* a figure to report, with no target */
            snprintf(line, size, "%-58s %8.3f  p10-p90 %.3f..%.3f", row->name, row->value, row->lo,
                     row->hi);
        else
            snprintf(line, size, "%-58s %8.3f  p10-p90 %.3f..%.3f   target <= %.2f  %s", row->name,
                     row->value, row->lo, row->hi, row->target,
                     row->value <= row->target ? "met" : "NOT MET");
        return;
    case ROW_TIMES:
        n = snprintf(line, size, "%-58s %8.3f ms  p10-p90 %.3f..%.3f", row->name, row->value,
                     row->lo, row->hi);
        for (int p = 0; p < row->phases && n > 0 && (size_t)n < size; p++)
            n += snprintf(line + n, size - n, "%s%s %.3f", p ? ", " : "   (", row->phase_names[p],
                          row->phase[p]);
        if (row->phases && n > 0 && (size_t)n < size)
            snprintf(line + n, size - n, ")");
        return;
    case ROW_VALUE:
        n = snprintf(line, size, "%-58s %8.3f %s  p10-p90 %.3f..%.3f", row->name, row->value,
                     row->unit, row->lo, row->hi);
        if (row->target > 0 && n > 0 && (size_t)n < size)
            snprintf(line + n, size - n, "   target <= %.2f %s  %s", row->target, row->unit,
                     row->value <= row->target ? "met" : "NOT MET");
        return;
    case ROW_NOTE:
        snprintf(line, size, "%s", row->name);
        return;
    }
}

static void print_row(const struct row *row)
{
    char line[320];

    format_row(row, line, sizeof(line));
    printf("%s\n", line);
    fflush(stdout);
}

void bench_ratio(const char *name, struct bench_spread ratio, double target)
{
    struct row *row = new_row(ROW_RATIO, name);

    row->value = ratio.median;
    row->lo = ratio.lo;
    row->hi = ratio.hi;
    row->target = target;
    print_row(row);
}

void bench_times(const char *name, const struct bench_variant *variant,
                 const struct bench_median *median)
{
    struct row *row = new_row(ROW_TIMES, name);

    row->value = median->total;
    row->lo = median->spread.lo;
    row->hi = median->spread.hi;
    row->phases = median->phases;
    for (int p = 0; p < median->phases; p++) {
        snprintf(row->phase_names[p], sizeof(row->phase_names[p]), "%s",
                 variant->phase_names[p] ? variant->phase_names[p] : "?");
        row->phase[p] = median->phase[p];
    }
    print_row(row);
}

void bench_compare(const char *figure, const struct bench_variant v[2], int frames, double target)
{
    struct bench_median m[2];
    char name[128];

    bench_interleave(v, 2, frames, m);
    for (int i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), "%s: %s", figure, v[i].name);
        bench_times(name, &v[i], &m[i]);
    }
    snprintf(name, sizeof(name), "%s: %s / %s", figure, v[0].name, v[1].name);
    bench_ratio(name, bench_frame_ratio(&m[0], &m[1], 1.0), target);
    bench_medians_free(m, 2);
}

void bench_value_limit(const char *name, struct bench_spread value, const char *unit, double limit)
{
    struct row *row = new_row(ROW_VALUE, name);

    row->value = value.median;
    row->lo = value.lo;
    row->hi = value.hi;
    row->unit = unit;
    row->target = limit;
    print_row(row);
}

void bench_value(const char *name, struct bench_spread value, const char *unit)
{
    bench_value_limit(name, value, unit, 0);
}

void bench_note(const char *fmt, ...)
{
    char text[128];
    va_list args;

    va_start(args, fmt);
    vsnprintf(text, sizeof(text), fmt, args);
    va_end(args);
    print_row(new_row(ROW_NOTE, text));
}

/* ---- results.txt ---- */

static bool write_text(const char *path)
{
    FILE *file = fopen(path, "w");
    char line[320];

    if (!file)
        return false;
    for (int i = 0; i < row_count; i++) {
        format_row(&rows[i], line, sizeof(line));
        fprintf(file, "%s\n", line);
    }
    return fclose(file) == 0;
}

/* ---- perf.png: a bar chart drawn with GDI into a DIB section ---- */

enum { PLOT_W = 1560, ROW_H = 22, LABEL_W = 560, BAR_W = 420, HEADER_H = 34 };

static const COLORREF phase_colors[BENCH_MAX_PHASES] = {
    RGB(66, 133, 244), RGB(251, 188, 5), RGB(52, 168, 83), RGB(171, 71, 188), RGB(120, 120, 120)};

static void fill(HDC dc, int x, int y, int w, int h, COLORREF color)
{
    RECT rect = {x, y, x + w, y + h};
    HBRUSH brush = CreateSolidBrush(color);

    FillRect(dc, &rect, brush);
    DeleteObject(brush);
}

static void text(HDC dc, int x, int y, const char *s)
{
    TextOutA(dc, x, y, s, (int)strlen(s));
}

static int plot_ratio(HDC dc, const struct row *row, int y)
{
    const double scale = BAR_W / 2.0; /* the axis runs from 0 to 2 */
    int w = (int)(row->value * scale), target_x = LABEL_W + (int)(row->target * scale);
    int lo = (int)(row->lo * scale), hi = (int)(row->hi * scale);
    char label[96];

    bool has_target = row->target > 0;

    fill(dc, LABEL_W, y + 3, w < BAR_W ? w : BAR_W, ROW_H - 6,
         !has_target                 ? RGB(120, 120, 120)
         : row->value <= row->target ? RGB(52, 168, 83)
                                     : RGB(234, 67, 53));
    /* The spread of the frames (p10..p90): a whisker across the bar's end. */
    lo = lo < BAR_W ? lo : BAR_W;
    hi = hi < BAR_W ? hi : BAR_W;
    fill(dc, LABEL_W + lo, y + ROW_H / 2 - 1, hi - lo + 1, 2, RGB(0, 0, 0));
    fill(dc, LABEL_W + lo, y + 6, 1, ROW_H - 12, RGB(0, 0, 0));
    fill(dc, LABEL_W + hi, y + 6, 1, ROW_H - 12, RGB(0, 0, 0));
    if (has_target)
        fill(dc, target_x - 1, y, 3, ROW_H, RGB(0, 0, 0));
    text(dc, 10, y + 3, row->name);
    if (has_target)
        snprintf(label, sizeof(label), "%.3f (p10-p90 %.3f..%.3f, target %.2f)", row->value,
                 row->lo, row->hi, row->target);
    else
        snprintf(label, sizeof(label), "%.3f (p10-p90 %.3f..%.3f)", row->value, row->lo, row->hi);
    text(dc, LABEL_W + BAR_W + 10, y + 3, label);
    return y + ROW_H;
}

static int plot_times(HDC dc, const struct row *row, int y, double max_ms)
{
    double scale = BAR_W / max_ms;
    int x = LABEL_W, n = 0;
    char label[160];

    for (int p = 0; p < row->phases; p++) {
        int w = (int)(row->phase[p] * scale);
        fill(dc, x, y + 3, w, ROW_H - 6, phase_colors[p]);
        x += w;
    }
    if (!row->phases)
        fill(dc, x, y + 3, (int)(row->value * scale), ROW_H - 6, RGB(128, 128, 128));
    text(dc, 10, y + 3, row->name);
    n = snprintf(label, sizeof(label), "%.2f ms (%.2f..%.2f)", row->value, row->lo, row->hi);
    for (int p = 0; p < row->phases && n > 0 && (size_t)n < sizeof(label); p++)
        n += snprintf(label + n, sizeof(label) - n, "%s%s %.2f", p ? ", " : ": ",
                      row->phase_names[p], row->phase[p]);
    text(dc, LABEL_W + BAR_W + 10, y + 3, label);
    return y + ROW_H;
}

static int plot_height(void)
{
    int h = 3 * HEADER_H + 20;

    for (int i = 0; i < row_count; i++)
        h += rows[i].kind == ROW_NOTE ? 18 : rows[i].kind == ROW_VALUE ? 0 : ROW_H;
    return h;
}

static void draw(HDC dc)
{
    double max_ms = 1e-3;
    int y = 10;

    SetBkMode(dc, TRANSPARENT);
    fill(dc, 0, 0, PLOT_W, plot_height(), RGB(255, 255, 255));
    for (int i = 0; i < row_count; i++)
        if (rows[i].kind == ROW_TIMES && rows[i].value > max_ms)
            max_ms = rows[i].value;
    for (int i = 0; i < row_count; i++)
        if (rows[i].kind == ROW_NOTE) {
            text(dc, 10, y, rows[i].name);
            y += 18;
        }
    y += 10;
    text(dc, 10, y,
         "Ratios (bar, whisker: p10..p90 of the frames) vs targets (black line); axis 0..2, "
         "green: met, red: not met, grey: no target");
    y += HEADER_H;
    for (int i = 0; i < row_count; i++)
        if (rows[i].kind == ROW_RATIO)
            y = plot_ratio(dc, &rows[i], y);
    y += 10;
    text(dc, 10, y,
         "Median times per frame (ms, p10..p90), split into phases (blue, yellow, green, purple, "
         "grey)");
    y += HEADER_H;
    for (int i = 0; i < row_count; i++)
        if (rows[i].kind == ROW_TIMES)
            y = plot_times(dc, &rows[i], y, max_ms);
}

static bool encode_png(const WCHAR *path, const void *bgra, UINT width, UINT height)
{
    IWICImagingFactory *wic = NULL;
    IWICStream *stream = NULL;
    IWICBitmapEncoder *encoder = NULL;
    IWICBitmapFrameEncode *frame = NULL;
    WICPixelFormatGUID format = GUID_WICPixelFormat32bppBGRA;
    HRESULT hr;

    hr = CoCreateInstance(&CLSID_WICImagingFactory, NULL, CLSCTX_INPROC_SERVER,
                          &IID_IWICImagingFactory, (void **)&wic);
    if (SUCCEEDED(hr))
        hr = IWICImagingFactory_CreateStream(wic, &stream);
    if (SUCCEEDED(hr))
        hr = IWICStream_InitializeFromFilename(stream, path, GENERIC_WRITE);
    if (SUCCEEDED(hr))
        hr = IWICImagingFactory_CreateEncoder(wic, &GUID_ContainerFormatPng, NULL, &encoder);
    if (SUCCEEDED(hr))
        hr = IWICBitmapEncoder_Initialize(encoder, (IStream *)stream, WICBitmapEncoderNoCache);
    if (SUCCEEDED(hr))
        hr = IWICBitmapEncoder_CreateNewFrame(encoder, &frame, NULL);
    if (SUCCEEDED(hr))
        hr = IWICBitmapFrameEncode_Initialize(frame, NULL);
    if (SUCCEEDED(hr))
        hr = IWICBitmapFrameEncode_SetSize(frame, width, height);
    if (SUCCEEDED(hr))
        hr = IWICBitmapFrameEncode_SetPixelFormat(frame, &format);
    if (SUCCEEDED(hr) && !IsEqualGUID(&format, &GUID_WICPixelFormat32bppBGRA))
        hr = E_FAIL;
    if (SUCCEEDED(hr))
        hr = IWICBitmapFrameEncode_WritePixels(frame, height, width * 4, width * height * 4,
                                               (BYTE *)bgra);
    if (SUCCEEDED(hr))
        hr = IWICBitmapFrameEncode_Commit(frame);
    if (SUCCEEDED(hr))
        hr = IWICBitmapEncoder_Commit(encoder);
    if (frame)
        IWICBitmapFrameEncode_Release(frame);
    if (encoder)
        IWICBitmapEncoder_Release(encoder);
    if (stream)
        IWICStream_Release(stream);
    if (wic)
        IWICImagingFactory_Release(wic);
    return SUCCEEDED(hr);
}

static bool write_plot(const WCHAR *path)
{
    int height = plot_height();
    BITMAPINFO info = {.bmiHeader = {.biSize = sizeof(BITMAPINFOHEADER),
                                     .biWidth = PLOT_W,
                                     .biHeight = -height, /* top-down */
                                     .biPlanes = 1,
                                     .biBitCount = 32,
                                     .biCompression = BI_RGB}};
    void *bits = NULL;
    HDC dc = CreateCompatibleDC(NULL);
    HBITMAP bitmap = CreateDIBSection(dc, &info, DIB_RGB_COLORS, &bits, NULL, 0);
    bool ok = false;

    if (dc && bitmap && bits) {
        HGDIOBJ old = SelectObject(dc, bitmap);
        draw(dc);
        GdiFlush();
        for (int i = 0; i < PLOT_W * height; i++) /* GDI leaves alpha at 0: make it opaque */
            ((unsigned char *)bits)[i * 4 + 3] = 255;
        ok = encode_png(path, bits, PLOT_W, height);
        SelectObject(dc, old);
    }
    if (bitmap)
        DeleteObject(bitmap);
    if (dc)
        DeleteDC(dc);
    return ok;
}

bool bench_write(const char *dir)
{
    char text_path[MAX_PATH];
    WCHAR plot_path[MAX_PATH];
    bool ok;

    snprintf(text_path, sizeof(text_path), "%s\\results.txt", dir);
    if (_snwprintf(plot_path, MAX_PATH, L"%hs\\perf.png", dir) < 0)
        return false;
    ok = write_text(text_path);
    BENCH_HR(CoInitializeEx(NULL, COINIT_MULTITHREADED));
    ok = write_plot(plot_path) && ok;
    CoUninitialize();
    printf("bench: wrote %s and %ls%s\n", text_path, plot_path, ok ? "" : " (FAILED)");
    return ok;
}

void bench_note_transfer_mode(const char *what, cl_mem mem)
{
    static const char *const names[] = {"?",
                                        "copies",
                                        "zero-copy",
                                        "the GPU path",
                                        "the GPU path with semaphores",
                                        "the GPU path, direct"};
    dxclGetTransferMode_fn transfer_mode = (dxclGetTransferMode_fn)(void (*)(void))GetProcAddress(
        test_dxcl_module(), "dxclGetTransferMode");
    cl_uint mode = 0;

    if (transfer_mode && transfer_mode(mem, &mode) == CL_SUCCESS &&
        mode < sizeof(names) / sizeof(names[0]))
        bench_note("%s shared objects: %s", what, names[mode]);
}

void bench_d3d11_settle(void *device)
{
    D3D11_QUERY_DESC desc = {D3D11_QUERY_EVENT, 0};
    ID3D11DeviceContext *immediate;
    ID3D11Query *query;

    ID3D11Device_GetImmediateContext((ID3D11Device *)device, &immediate);
    BENCH_HR(ID3D11Device_CreateQuery((ID3D11Device *)device, &desc, &query));
    ID3D11DeviceContext_End(immediate, (ID3D11Asynchronous *)query);
    while (ID3D11DeviceContext_GetData(immediate, (ID3D11Asynchronous *)query, NULL, 0, 0) ==
           S_FALSE)
        Sleep(0);
    ID3D11Query_Release(query);
    ID3D11DeviceContext_Release(immediate);
}
