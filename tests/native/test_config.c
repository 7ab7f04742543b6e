/* dxcl's config file reader (src/core/config.c) and the host side's settings
 * (src/unix/host_config.c), natively:
 *   - settings before any section apply to every program, a [program.exe] section's to that
 *     program only (names and sections matched without regard to case, [*] to all), a later
 *     line replacing an earlier one; quotes around a value are dropped, comments and blank
 *     lines skipped;
 *   - a malformed line is skipped and named in `problem`, the others kept;
 *   - a file that cannot be read says so;
 *   - the host side: the environment wins over the file, the file's section for the program of
 *     /proc/self/cmdline applies (this program's name here, as Wine shows the Windows
 *     program's), and a Windows path (Z:\...) reaches the file through the prefix's dosdevices. */
#define _GNU_SOURCE
#include "core/config.h"
#include "unix/host_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "native_check.h"

static bool value_is(const struct dxcl_config *config, const char *name, const char *want)
{
    const char *value = dxcl_config_find(config, name);

    if (!want)
        return value == NULL;
    return value && !strcmp(value, want);
}

static const char *sample = "# dxcl.conf\n"
                            "DXCL_LOG_LEVEL = info\n"
                            "\n"
                            "DXCL_GPU_DIRECT=all\r\n"
                            "[game.exe]\n"
                            "  dxcl_gpu_direct = 0   \n"
                            "DXCL_LOG_PATH = \"C:\\logs with spaces\"\n"
                            "[other.exe]\n"
                            "DXCL_LOG_LEVEL = debug\n"
                            "DXCL_FAMILIES = cl_khr_d3d11_sharing\n"
                            "[*]\n"
                            "DXCL_LAZY = 0\n";

static void test_sections(void)
{
    struct dxcl_config config;

    dxcl_config_parse(&config, sample, "C:\\Games\\Some\\GAME.EXE");
    check(value_is(&config, "DXCL_LOG_LEVEL", "info"), "the global DXCL_LOG_LEVEL");
    check(value_is(&config, "DXCL_GPU_DIRECT", "0"), "game.exe's section replaces the global");
    check(value_is(&config, "DXCL_LOG_PATH", "C:\\logs with spaces"), "quotes are dropped");
    check(value_is(&config, "DXCL_FAMILIES", NULL), "other.exe's section applies to game.exe");
    check(value_is(&config, "dxcl_lazy", "0"), "[*] applies to every program");
    check(!config.problem[0], "a problem in a good file: %s", config.problem);

    dxcl_config_parse(&config, sample, "/home/u/other.exe");
    check(value_is(&config, "DXCL_LOG_LEVEL", "debug"), "other.exe's level");
    check(value_is(&config, "DXCL_GPU_DIRECT", "all"), "other.exe keeps the global GPU_DIRECT");
    check(value_is(&config, "DXCL_FAMILIES", "cl_khr_d3d11_sharing"), "other.exe's families");

    dxcl_config_parse(&config, sample, NULL);
    check(value_is(&config, "DXCL_LOG_PATH", NULL), "no program: a section applied");
    check(value_is(&config, "DXCL_LAZY", "0"), "no program: [*] not applied");
    check(config.count == 3, "no program: %u settings, want 3", config.count);
}

static void test_problems(void)
{
    struct dxcl_config config;

    dxcl_config_parse(&config,
                      "DXCL_LOG = 1\n"
                      "this line has no equals sign\n"
                      "BAD NAME = 2\n"
                      "[unterminated\n"
                      "DXCL_SKIPPED = 1\n"
                      "[*]\n"
                      "DXCL_LAZY = 0\n",
                      "game.exe");
    check(value_is(&config, "DXCL_LOG", "1"), "a line before the problems is kept");
    check(!strncmp(config.problem, "line 2: no '='", 14), "the first problem: '%s'",
          config.problem);
    check(value_is(&config, "DXCL_SKIPPED", NULL), "a broken section's lines applied");
    check(value_is(&config, "DXCL_LAZY", "0"), "a line after the problems is lost");

    check(!dxcl_config_load(&config, "/nonexistent/dxcl.conf", "game.exe"),
          "a missing file loaded");
    check(strstr(config.problem, "cannot open /nonexistent/dxcl.conf") != NULL,
          "a missing file's problem: '%s'", config.problem);
    check(!strcmp(dxcl_config_base_name("C:\\a/b\\c.exe"), "c.exe"), "the base name");
}

/* The host side, through a file written here: this program is test_config. */
static void test_host(const char *dir)
{
    char path[512], windows[600], unix_path[700], prefix[512];
    FILE *file;

    snprintf(path, sizeof(path), "%s/dxcl.conf", dir);
    file = fopen(path, "w");
    check(file != NULL, "cannot write %s", path);
    if (!file)
        return;
    fputs("DXCL_HOST_ROOT = /from/the/file\n[test_config]\nDXCL_UNIX_LIBRARY = libX.so\n"
          "[game.exe]\nDXCL_LAZY = 0\n",
          file);
    fclose(file);
    /* Z: is the prefix's dosdevices/z: -> / */
    snprintf(prefix, sizeof(prefix), "%s/prefix", dir);
    snprintf(unix_path, sizeof(unix_path), "%s/dosdevices", prefix);
    if (mkdir(prefix, 0700) || mkdir(unix_path, 0700) ||
        symlink("/", strcat(unix_path, "/z:")) != 0)
        check(false, "cannot make %s", unix_path);
    setenv("WINEPREFIX", prefix, 1);
    snprintf(windows, sizeof(windows), "Z:%s", path);
    for (char *p = windows; *p; p++)
        if (*p == '/')
            *p = '\\';
    check(dxcl_host_path(windows, unix_path, sizeof(unix_path)) && !access(unix_path, R_OK),
          "%s does not reach the file (%s)", windows, unix_path);
    setenv("DXCL_CONFIG", windows, 1);
    setenv("DXCL_UNIX_LIBRARY", "", 1); /* empty: as unset */
    check(dxcl_host_setting("DXCL_UNIX_LIBRARY") &&
              !strcmp(dxcl_host_setting("DXCL_UNIX_LIBRARY"), "libX.so"),
          "the program's section: %s", dxcl_host_setting("DXCL_UNIX_LIBRARY"));
    check(dxcl_host_setting("DXCL_LAZY") == NULL, "game.exe's section applied to test_config");
    setenv("DXCL_HOST_ROOT", "/from/the/environment", 1);
    check(!strcmp(dxcl_host_setting("DXCL_HOST_ROOT"), "/from/the/environment"),
          "the environment does not win");
    unsetenv("DXCL_HOST_ROOT");
    check(!strcmp(dxcl_host_setting("DXCL_HOST_ROOT"), "/from/the/file"), "the file's global");
    check(strstr(dxcl_host_config_report(), "3 settings") == NULL &&
              strstr(dxcl_host_config_report(), "2 settings for test_config"),
          "the report: %s", dxcl_host_config_report());
}

int main(void)
{
    char dir[] = "/tmp/dxcl-config-test.XXXXXX", command[600];

    test_sections();
    test_problems();
    if (!mkdtemp(dir)) {
        printf("FAIL: mkdtemp\n");
        return 1;
    }
    test_host(dir);
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    if (system(command) != 0)
        printf("(could not remove %s)\n", dir);
    printf("native config: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
