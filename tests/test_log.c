/* The log (DXCL_LOG, read once when OpenCL.dll loads): the program runs itself as a child
 * with different DXCL_LOG values and inspects what the child's dxcl wrote:
 *   DXCL_LOG=<file>        lines "dxcl: ..." in that file (appended), none on stderr;
 *   DXCL_LOG=1             the same lines on stderr;
 *   DXCL_LOG=<bad path>    falls back to stderr;
 *   DXCL_LOG unset or 0    nothing anywhere (no file named "0" either).
 * It also checks DXCL_DRIVER, whose effect shows in the log: an explicit driver path, a
 * missing one (no platforms, CL_INVALID_OPERATION elsewhere) and dxcl itself (detected). */
#include "testlib.h"

#include <CL/cl_ext.h>
#include <dxcl/dxcl.h>
#include <stdlib.h>

/* The child: a few calls that produce known log lines; exits non-zero if a call surprises. */
static int child(void)
{
    cl_platform_id platform = NULL;
    cl_uint count = 0;
    char tiny[4];
    int bad = 0;

    if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || !count)
        return 10;
    /* Too small for any extension string: CL_INVALID_VALUE and one diagnostic line. */
    bad += clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(tiny), tiny, NULL) !=
           CL_INVALID_VALUE;
    bad += clGetExtensionFunctionAddress("clNoSuchFunctionXYZ") != NULL;
    /* An emulated call with an invalid property: a diagnostic naming the error. */
    const cl_sampler_properties unknown[] = {0x7fff1234, 1, 0};
    cl_int err = CL_SUCCESS;
    bad += clCreateSamplerWithProperties(NULL, unknown, &err) != NULL;
    /* Emulated, dxcl judges the property; forwarded, the driver may see the context first. */
    bad +=
        test_driver()->clCreateSamplerWithProperties ? err == CL_SUCCESS : err != CL_INVALID_VALUE;
    return bad ? 20 + bad : 0;
}

/* The child when DXCL_DRIVER names no usable driver: dxcl answers like a loader without ICDs
 * and fails every other call with CL_INVALID_OPERATION. */
static int child_without_driver(void)
{
    cl_platform_id platform = NULL;
    cl_uint count = 99;
    cl_int err = CL_SUCCESS;
    int bad = 0;

    bad += clGetPlatformIDs(1, &platform, &count) != CL_PLATFORM_NOT_FOUND_KHR;
    bad += count != 0;
    bad += clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 0, NULL, &count) != CL_INVALID_OPERATION;
    bad += clCreateContext(NULL, 0, NULL, NULL, NULL, &err) != NULL;
    bad += err != CL_INVALID_OPERATION;
    err = CL_SUCCESS;
    bad += clCreateCommandQueueWithProperties(NULL, NULL, NULL, &err) != NULL;
    bad += err != CL_INVALID_OPERATION;
    bad += clGetExtensionFunctionAddress("clNoSuchFunctionXYZ") != NULL;
    return bad ? 30 + bad : 0;
}

static char exe_path[MAX_PATH];

/* Runs the child in `mode` with DXCL_LOG set to `log` and DXCL_DRIVER to `driver` (NULL:
 * unset) in `dir` (NULL: ours); its stderr and stdout go to `output`. Returns its exit code. */
static DWORD run_child_as(const char *mode, const char *log, const char *driver, const char *dir,
                          const char *output)
{
    SECURITY_ATTRIBUTES inherit = {sizeof(inherit), NULL, TRUE};
    STARTUPINFOA si = {0};
    PROCESS_INFORMATION pi;
    char command[MAX_PATH + 32];
    DWORD code = 0xdead;
    HANDLE out = CreateFileA(output, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                             CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);

    REQUIRE(out != INVALID_HANDLE_VALUE, "cannot create %s (error %lu)", output, GetLastError());
    REQUIRE(SetEnvironmentVariableA("DXCL_LOG", log), "SetEnvironmentVariable: %lu",
            GetLastError());
    REQUIRE(SetEnvironmentVariableA("DXCL_DRIVER", driver), "SetEnvironmentVariable: %lu",
            GetLastError());
    snprintf(command, sizeof(command), "\"%s\" %s", exe_path, mode);
    si.cb = sizeof(si);
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = out;
    si.hStdError = out;
    BOOL ok = CreateProcessA(exe_path, command, NULL, NULL, TRUE, 0, NULL, dir, &si, &pi);
    CloseHandle(out);
    SetEnvironmentVariableA("DXCL_LOG", NULL);
    SetEnvironmentVariableA("DXCL_DRIVER", NULL);
    REQUIRE(ok, "CreateProcess(%s): error %lu", command, GetLastError());
    CHECK(WaitForSingleObject(pi.hProcess, 120000) == WAIT_OBJECT_0, "child timed out");
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return code;
}

static DWORD run_child(const char *log, const char *dir, const char *output)
{
    return run_child_as("child", log, NULL, dir, output);
}

/* The driver dxcl forwards to in this process (dxclGetInfo). */
static void driver_path(char *path, size_t size)
{
    dxclGetInfo_fn info =
        (dxclGetInfo_fn)(void (*)(void))GetProcAddress(test_dxcl_module(), "dxclGetInfo");

    REQUIRE(info && info(DXCL_INFO_DRIVER_PATH, size, path, NULL) == CL_SUCCESS && path[0],
            "dxclGetInfo(DXCL_INFO_DRIVER_PATH)");
}

/* Checks the lines of a log: every one "dxcl: ..." and the expected ones present. */
static void check_log_lines(const char *text, const char *what)
{
    int lines = 0, bad = 0;
    char driver[MAX_PATH];

    CHECK(text != NULL && text[0], "%s: empty", what);
    if (!text || !text[0])
        return;
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len && line[len - 1] == '\r')
            len--;
        lines++;
        if (len < 7 || strncmp(line, "dxcl: ", 6) != 0) {
            bad++;
            fprintf(stderr, "%s: unexpected line: %.*s\n", what, (int)len, line);
        }
        line = end ? end + 1 : line + len;
    }
    CHECK(bad == 0, "%s: %d of %d lines do not start with \"dxcl: \"", what, bad, lines);
    CHECK(text[strlen(text) - 1] == '\n', "%s: the last line is not terminated", what);
    /* The driver chosen, by its full path: the one dxcl chose here (the system driver, or the
     * Unix side in the .unix variants). */
    driver_path(driver, sizeof(driver));
    CHECK(strstr(text, "dxcl: forwarding to ") != NULL, "%s: no \"forwarding to\" line", what);
    const char *forwarding = strstr(text, "dxcl: forwarding to ");
    if (forwarding)
        CHECK(!_strnicmp(forwarding + strlen("dxcl: forwarding to "), driver, strlen(driver)),
              "%s: not forwarding to %s", what, driver);
    /* The too-small buffer: a diagnostic naming the error, then the call's result. */
    CHECK(strstr(text, "dxcl: CL_INVALID_VALUE: extension string needs ") != NULL,
          "%s: no diagnostic for the too-small buffer", what);
    CHECK(strstr(text, "dxcl: clGetPlatformInfo -> CL_INVALID_VALUE") != NULL,
          "%s: no result line for clGetPlatformInfo", what);
    CHECK(strstr(text, "dxcl: clGetExtensionFunctionAddress(clNoSuchFunctionXYZ) -> ") != NULL,
          "%s: no line for clGetExtensionFunctionAddress", what);
    if (!test_driver()->clCreateSamplerWithProperties) /* emulated, so dxcl judged it */
        CHECK(strstr(text, "dxcl: CL_INVALID_VALUE: sampler property 0x7fff1234") != NULL,
              "%s: no diagnostic for the sampler property", what);
}

static bool file_exists(const char *path)
{
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

int main(int argc, char **argv)
{
    char temp[MAX_PATH], log[MAX_PATH], output[MAX_PATH], empty_dir[MAX_PATH], zero[MAX_PATH];
    DWORD code;
    char *text;

    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    if (argc > 1 && !strcmp(argv[1], "child-without-driver"))
        return child_without_driver();

    REQUIRE(GetModuleFileNameA(NULL, exe_path, sizeof(exe_path)) > 0, "GetModuleFileName");
    REQUIRE(GetTempPathA(sizeof(temp), temp) > 0, "GetTempPath: %lu", GetLastError());
    /* Unique names; the log itself must not exist before the child runs. */
    REQUIRE(GetTempFileNameA(temp, "dxl", 0, log), "GetTempFileName: %lu", GetLastError());
    REQUIRE(GetTempFileNameA(temp, "dxo", 0, output), "GetTempFileName: %lu", GetLastError());
    DeleteFileA(log);

    /* DXCL_LOG=<file>: the file is created and holds the lines; stderr stays quiet. */
    code = run_child(log, NULL, output);
    CHECK(code == 0, "child with DXCL_LOG=<file> exited with %lu", code);
    text = test_read_file(log, NULL);
    CHECK(text != NULL, "DXCL_LOG=%s: no log file written", log);
    check_log_lines(text, "log file");
    size_t first_size = text ? strlen(text) : 0;
    free(text);
    text = test_read_file(output, NULL);
    CHECK(text && !strstr(text, "dxcl: "), "DXCL_LOG=<file>: dxcl also wrote to stderr: %s",
          text ? text : "(no output file)");
    free(text);

    /* A second run appends: the file grows and the first run's lines stay. */
    code = run_child(log, NULL, output);
    CHECK(code == 0, "second child exited with %lu", code);
    text = test_read_file(log, NULL);
    CHECK(text && strlen(text) > first_size, "the second run did not append (%zu -> %zu bytes)",
          first_size, text ? strlen(text) : 0);
    free(text);
    DeleteFileA(log);

    /* DXCL_LOG=1: the same lines on stderr. */
    code = run_child("1", NULL, output);
    CHECK(code == 0, "child with DXCL_LOG=1 exited with %lu", code);
    text = test_read_file(output, NULL);
    check_log_lines(text, "DXCL_LOG=1 stderr");
    free(text);

    /* A path that cannot be opened: stderr instead. */
    code = run_child("Q:\\dxcl-no-such-dir\\sub\\log.txt", NULL, output);
    CHECK(code == 0, "child with a bad DXCL_LOG path exited with %lu", code);
    text = test_read_file(output, NULL);
    check_log_lines(text, "bad path stderr");
    free(text);

    /* DXCL_LOG unset and DXCL_LOG=0, run in an empty folder: no output, no file. */
    snprintf(empty_dir, sizeof(empty_dir), "%sdxcl-log-%lu", temp, GetCurrentProcessId());
    CreateDirectoryA(empty_dir, NULL);
    REQUIRE(file_exists(empty_dir), "cannot create %s", empty_dir);
    snprintf(zero, sizeof(zero), "%s\\0", empty_dir);
    const char *off[] = {NULL, "0"};
    for (int i = 0; i < 2; i++) {
        const char *what = off[i] ? "DXCL_LOG=0" : "DXCL_LOG unset";
        code = run_child(off[i], empty_dir, output);
        CHECK(code == 0, "child with %s exited with %lu", what, code);
        text = test_read_file(output, NULL);
        CHECK(text && !strstr(text, "dxcl"), "%s: dxcl wrote: %s", what,
              text ? text : "(no output file)");
        free(text);
        CHECK(!file_exists(zero), "%s: a file named 0 was created", what);
        CHECK(!file_exists(log), "%s: the old log file reappeared", what);
        WIN32_FIND_DATAA found;
        char pattern[MAX_PATH];
        snprintf(pattern, sizeof(pattern), "%s\\*", empty_dir);
        HANDLE find = FindFirstFileA(pattern, &found);
        int entries = 0;
        if (find != INVALID_HANDLE_VALUE) {
            do
                entries += strcmp(found.cFileName, ".") && strcmp(found.cFileName, "..");
            while (FindNextFileA(find, &found));
            FindClose(find);
        }
        CHECK(entries == 0, "%s: the child created %d files in its folder", what, entries);
    }
    DeleteFileA(zero);
    RemoveDirectoryA(empty_dir);

    /* DXCL_DRIVER: the driver dxcl forwards to, named in the log. */
    char chosen_driver[MAX_PATH], own_dll[MAX_PATH], line[MAX_PATH + 32];
    driver_path(chosen_driver, sizeof(chosen_driver));
    code = run_child_as("child", "1", chosen_driver, NULL, output);
    CHECK(code == 0, "child with DXCL_DRIVER=%s exited with %lu", chosen_driver, code);
    text = test_read_file(output, NULL);
    snprintf(line, sizeof(line), "dxcl: forwarding to %s", chosen_driver);
    CHECK(text && strstr(text, line), "DXCL_DRIVER=%s: no line \"%s\" in: %s", chosen_driver, line,
          text ? text : "");
    free(text);
    /* A driver that does not exist: no platforms, every call fails, the log says why. */
    code = run_child_as("child-without-driver", "1", "C:\\dxcl-no-such-driver.dll", NULL, output);
    CHECK(code == 0, "child with a missing DXCL_DRIVER exited with %lu", code);
    text = test_read_file(output, NULL);
    CHECK(text && strstr(text, "dxcl: cannot load the OpenCL driver 'C:\\dxcl-no-such-driver.dll'"),
          "missing DXCL_DRIVER: no diagnostic in: %s", text ? text : "");
    CHECK(text && strstr(text, "dxcl: CL_PLATFORM_NOT_FOUND_KHR: "),
          "missing DXCL_DRIVER: clGetPlatformIDs did not log its error: %s", text ? text : "");
    CHECK(text && strstr(text, "dxcl: clGetDeviceIDs: the driver does not provide it"),
          "missing DXCL_DRIVER: no line for the missing function: %s", text ? text : "");
    free(text);
    /* dxcl itself as the driver (as if installed in system32): detected, not called in a loop. */
    REQUIRE(GetModuleFileNameA(test_dxcl_module(), own_dll, sizeof(own_dll)) > 0,
            "GetModuleFileName(dxcl)");
    code = run_child_as("child-without-driver", "1", own_dll, NULL, output);
    CHECK(code == 0, "child with DXCL_DRIVER=dxcl exited with %lu", code);
    text = test_read_file(output, NULL);
    snprintf(line, sizeof(line), "dxcl: driver %s is dxcl itself; no driver available", own_dll);
    CHECK(text && strstr(text, line), "DXCL_DRIVER=dxcl: no line \"%s\" in: %s", line,
          text ? text : "");
    free(text);
    DeleteFileA(output);
    return test_finish("log");
}
