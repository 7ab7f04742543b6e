/* dxcl's settings beyond the environment (docs/deploy.md, "The config file" and "The log"): the
 * program runs itself as a child with a config file and log settings, and inspects what the
 * child saw and wrote.
 *   - DXCL_CONFIG names a dxvk.conf-style file: its settings outside sections, and those of the
 *     [test_settings.exe] section, apply (DXCL_FAMILIES there narrows the extension string);
 *     another program's section, later in the file, does not; the environment wins over the
 *     file; a Unix path (/tmp/...) names the file as well as a Windows one.
 *   - DXCL_LOG_PATH (a folder, Windows or Unix path) gives each process a log of its own,
 *     <program>_<pid>_dxcl.log: two children, two files, each naming its own process.
 *   - DXCL_LOG_LEVEL: info writes what dxcl chose (the route, the config file it read) and the
 *     diagnostics, not each call's result; error writes the diagnostics only; from the file as
 *     from the environment. */
#include "testlib.h"

#include <stdlib.h>

static char exe_path[MAX_PATH];

/* The child: the extension string, printed, and one call that fails with a diagnostic. */
static int child(void)
{
    cl_platform_id platform = NULL;
    cl_uint count = 0;
    char extensions[4096] = "", tiny[4];

    if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || !count)
        return 10;
    if (clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(extensions), extensions, NULL) !=
        CL_SUCCESS)
        return 11;
    printf("extensions: %s\n", extensions);
    /* Too small for the string: CL_INVALID_VALUE and one diagnostic line. */
    return clGetPlatformInfo(platform, CL_PLATFORM_EXTENSIONS, sizeof(tiny), tiny, NULL) ==
                   CL_INVALID_VALUE
               ? 0
               : 12;
}

static void set(const char *name, const char *value)
{
    REQUIRE(SetEnvironmentVariableA(name, value) || !value, "SetEnvironmentVariable(%s)", name);
}

/* Runs the child with the settings given as NAME=value pairs (NULL-terminated; the others of
 * dxcl's settings here unset); its output goes to `output`. Returns its process id. */
static DWORD run_child(const char *output, const char *const *settings)
{
    static const char *const names[] = {"DXCL_CONFIG", "DXCL_LOG", "DXCL_LOG_PATH",
                                        "DXCL_LOG_LEVEL", "DXCL_FAMILIES"};
    SECURITY_ATTRIBUTES inherit = {sizeof(inherit), NULL, TRUE};
    STARTUPINFOA si = {.cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES};
    PROCESS_INFORMATION pi;
    char command[MAX_PATH + 16];
    DWORD code = 0xdead;
    HANDLE out = CreateFileA(output, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                             CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);

    REQUIRE(out != INVALID_HANDLE_VALUE, "cannot create %s (error %lu)", output, GetLastError());
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        set(names[i], NULL);
    for (size_t i = 0; settings[i]; i += 2)
        set(settings[i], settings[i + 1]);
    snprintf(command, sizeof(command), "\"%s\" child", exe_path);
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = si.hStdError = out;
    BOOL ok = CreateProcessA(exe_path, command, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    CloseHandle(out);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        set(names[i], NULL);
    REQUIRE(ok, "CreateProcess(%s): error %lu", command, GetLastError());
    CHECK(WaitForSingleObject(pi.hProcess, 120000) == WAIT_OBJECT_0, "child timed out");
    GetExitCodeProcess(pi.hProcess, &code);
    CHECK(code == 0, "the child exited with %lu", code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return pi.dwProcessId;
}

/* Whether the child's extension string names `extension` (as a whole word). */
static bool child_lists(const char *output, const char *extension)
{
    char *text = test_read_file(output, NULL), *line = text ? strstr(text, "extensions: ") : NULL;
    bool listed = false;

    CHECK(line != NULL, "the child printed no extension string: %s", text ? text : "(none)");
    if (line) {
        line[strcspn(line, "\r\n")] = 0;
        for (char *word = strtok(line + 12, " "); word && !listed; word = strtok(NULL, " "))
            listed = !strcmp(word, extension);
    }
    free(text);
    return listed;
}

/* The Unix path of a Windows one (Wine's kernel32), or "" outside Wine. */
static void unix_path(const char *windows, char *path, size_t size)
{
    typedef char *(CDECL * unix_name_fn)(const WCHAR *dos);
    unix_name_fn unix_name = (unix_name_fn)(void *)GetProcAddress(GetModuleHandleA("kernel32.dll"),
                                                                  "wine_get_unix_file_name");
    WCHAR wide[MAX_PATH];
    char *name;

    path[0] = 0;
    MultiByteToWideChar(CP_ACP, 0, windows, -1, wide, MAX_PATH);
    if (unix_name && (name = unix_name(wide))) {
        snprintf(path, size, "%s", name);
        HeapFree(GetProcessHeap(), 0, name);
    }
}

static void write_text(const char *path, const char *text)
{
    FILE *file = fopen(path, "wb");

    REQUIRE(file && fputs(text, file) >= 0 && fclose(file) == 0, "cannot write %s", path);
}

/* The log files of `dir` (test_settings_<pid>_dxcl.log): how many, and the text of the one of
 * process `pid` (NULL when it has none). */
static char *process_log(const char *dir, DWORD pid, int *files)
{
    WIN32_FIND_DATAA found;
    char pattern[MAX_PATH], path[MAX_PATH];
    HANDLE find;

    *files = 0;
    snprintf(pattern, sizeof(pattern), "%s\\test_settings_*_dxcl.log", dir);
    if ((find = FindFirstFileA(pattern, &found)) != INVALID_HANDLE_VALUE) {
        do
            (*files)++;
        while (FindNextFileA(find, &found));
        FindClose(find);
    }
    snprintf(path, sizeof(path), "%s\\test_settings_%lu_dxcl.log", dir, (unsigned long)pid);
    return test_read_file(path, NULL);
}

static void empty_folder(const char *dir)
{
    WIN32_FIND_DATAA found;
    char pattern[MAX_PATH], path[MAX_PATH];
    HANDLE find;

    snprintf(pattern, sizeof(pattern), "%s\\*", dir);
    if ((find = FindFirstFileA(pattern, &found)) == INVALID_HANDLE_VALUE)
        return;
    do {
        snprintf(path, sizeof(path), "%s\\%s", dir, found.cFileName);
        DeleteFileA(path);
    } while (FindNextFileA(find, &found));
    FindClose(find);
}

static const char *config_text = "# dxcl.conf of test_settings\n"
                                 "DXCL_LOG_LEVEL = info\n"
                                 "\n"
                                 "[test_settings.exe]\n"
                                 "DXCL_FAMILIES = \"cl_khr_d3d11_sharing\"\n"
                                 "[other.exe]\n"
                                 "DXCL_FAMILIES = cl_nv_d3d9_sharing\n"
                                 "DXCL_LOG_LEVEL = debug\n";

static void test_config_file(const char *config, const char *output)
{
    char config_unix[MAX_PATH];

    run_child(output, (const char *[]){"DXCL_CONFIG", config, NULL});
    CHECK(child_lists(output, "cl_khr_d3d11_sharing"), "the program's section: no d3d11");
    CHECK(!child_lists(output, "cl_khr_dx9_media_sharing"), "DXCL_FAMILIES from the file unused");
    CHECK(!child_lists(output, "cl_nv_d3d9_sharing"), "other.exe's section applied");
    run_child(output, (const char *[]){"DXCL_CONFIG", config, "DXCL_FAMILIES",
                                       "cl_khr_dx9_media_sharing", NULL});
    CHECK(child_lists(output, "cl_khr_dx9_media_sharing") &&
              !child_lists(output, "cl_khr_d3d11_sharing"),
          "the environment does not win over the file");
    unix_path(config, config_unix, sizeof(config_unix));
    CHECK(config_unix[0] == '/', "no Unix path for %s", config);
    run_child(output, (const char *[]){"DXCL_CONFIG", config_unix, NULL});
    CHECK(!child_lists(output, "cl_khr_dx9_media_sharing"),
          "DXCL_CONFIG=%s (a Unix path) was not read", config_unix);
}

static void test_log_path(const char *config, const char *logs, const char *output)
{
    char logs_unix[MAX_PATH], *first, *second;
    DWORD pids[2];
    int files;

    /* Info from the file, a folder given as a Unix path; two processes, two logs. */
    unix_path(logs, logs_unix, sizeof(logs_unix));
    for (int i = 0; i < 2; i++)
        pids[i] = run_child(
            output, (const char *[]){"DXCL_CONFIG", config, "DXCL_LOG_PATH", logs_unix, NULL});
    first = process_log(logs, pids[0], &files);
    second = process_log(logs, pids[1], &files);
    CHECK(files == 2, "%d log files in %s for two processes", files, logs);
    CHECK(first && second, "no log of process %lu or %lu", pids[0], pids[1]);
    CHECK(first && strstr(first, "dxcl: forwarding to "), "info: no route line");
    CHECK(first && strstr(first, "settings for test_settings.exe"), "info: no config file line");
    CHECK(first && strstr(first, "dxcl: CL_INVALID_VALUE: extension string needs "),
          "info: no diagnostic");
    CHECK(first && !strstr(first, " -> CL_"), "info: a call's result (debug) was logged");
    free(first);
    free(second);

    /* Error from the environment, over the file's info: the diagnostic alone. */
    empty_folder(logs);
    pids[0] = run_child(output, (const char *[]){"DXCL_CONFIG", config, "DXCL_LOG_PATH", logs,
                                                 "DXCL_LOG_LEVEL", "error", NULL});
    first = process_log(logs, pids[0], &files);
    CHECK(files == 1 && first, "error: %d log files, none of process %lu", files, pids[0]);
    CHECK(first && strstr(first, "dxcl: CL_INVALID_VALUE: extension string needs "),
          "error: no diagnostic");
    CHECK(first && !strstr(first, "forwarding to"), "error: an info line was logged");
    free(first);
    empty_folder(logs);
}

int main(int argc, char **argv)
{
    char temp[MAX_PATH], config[MAX_PATH], logs[MAX_PATH], output[MAX_PATH];

    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    REQUIRE(GetModuleFileNameA(NULL, exe_path, sizeof(exe_path)) > 0, "GetModuleFileName");
    REQUIRE(GetTempPathA(sizeof(temp), temp) > 0, "GetTempPath: %lu", GetLastError());
    snprintf(config, sizeof(config), "%sdxcl-settings-%lu.conf", temp, GetCurrentProcessId());
    snprintf(logs, sizeof(logs), "%sdxcl-settings-logs-%lu", temp, GetCurrentProcessId());
    snprintf(output, sizeof(output), "%sdxcl-settings-%lu.out", temp, GetCurrentProcessId());
    write_text(config, config_text);
    test_config_file(config, output);
    test_log_path(config, logs, output);
    RemoveDirectoryA(logs);
    DeleteFileA(config);
    DeleteFileA(output);
    return test_finish("settings");
}
