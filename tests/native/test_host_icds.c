/* The Unix side's look for the host's OpenCL drivers (src/unix/so/host_icds.c), natively, against
 * a fake host root made here (DXCL_HOST_ROOT) beside the machine's own /etc/OpenCL/vendors and
 * ICD loader:
 *   - an .icd file naming a path is rebased under the root, and its library opened after the
 *     library it needs that only the root has (probes/host_icd.c needs probes/host_dep.c's);
 *   - an .icd file whose text the container's own vendors folder has is left to that one;
 *   - an .icd file naming a library found nowhere is said;
 *   - the loader gets a vendors folder with the container's .icd files and the host's that
 *     opened, reads it at once (PoCL's platform), and the folder and OCL_ICD_VENDORS are gone
 *     afterwards;
 *   - no look with DXCL_HOST_ROOT=0, without a root, when the root's vendors folder is the
 *     container's own, or when the program set OCL_ICD_VENDORS; each says why;
 *   - a loader the container lacks is taken from the root.
 * PROBE_DIR (the environment) holds the probes' libraries. */
#define _GNU_SOURCE
#include "unix/so/host_icds.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256], report[2048], error[256];

#define CHECK_NOTE() printf("  report: %s\n", report)
#include "native_check.h"

static void write_file(const char *path, const char *text)
{
    FILE *file = fopen(path, "w");

    if (!file || fputs(text, file) < 0 || fclose(file)) {
        printf("FAIL: cannot write %s\n", path);
        exit(1);
    }
}

static void link_to(const char *target, const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/usr/lib/x86_64-linux-gnu/%s", root, name);
    if (symlink(target, path)) {
        printf("FAIL: cannot link %s\n", path);
        exit(1);
    }
}

/* The fake host: its vendors, a library that needs another, and an ICD loader. */
static void make_root(const char *probes)
{
    char path[512], text[512] = "";
    FILE *own = fopen("/etc/OpenCL/vendors/pocl.icd", "r");

    snprintf(text, sizeof(text),
             "cd '%s' && mkdir -p etc/OpenCL/vendors usr/lib/x86_64-linux-gnu tmp", root);
    if (system(text) != 0)
        exit(1);
    snprintf(path, sizeof(path), "%s/libdxcl_icd_probe.so", probes);
    link_to(path, "libdxcl_icd_probe.so");
    snprintf(path, sizeof(path), "%s/libdxcl_dep_probe.so.1", probes);
    link_to(path, "libdxcl_dep_probe.so.1");
    link_to("/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "libdxcl_host_loader.so.1");
    snprintf(path, sizeof(path), "%s/etc/OpenCL/vendors/probe.icd", root);
    write_file(path, "/usr/lib/x86_64-linux-gnu/libdxcl_icd_probe.so\n");
    snprintf(path, sizeof(path), "%s/etc/OpenCL/vendors/missing.icd", root);
    write_file(path, "/opt/none/libmissing.so\n");
    text[0] = 0;
    if (own) { /* the container's own PoCL, named alike by the host */
        if (!fgets(text, sizeof(text), own))
            text[0] = 0;
        fclose(own);
    }
    snprintf(path, sizeof(path), "%s/etc/OpenCL/vendors/pocl.icd", root);
    write_file(path, text[0] ? text : "libpocl.so.2\n");
}

static void *open_with(const char *setting, const char *name)
{
    if (setting)
        setenv("DXCL_HOST_ROOT", setting, 1);
    else
        unsetenv("DXCL_HOST_ROOT");
    return dxcl_host_icds_open(name, error, sizeof(error), report, sizeof(report));
}

static bool said(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool said(const char *fmt, ...)
{
    char text[600];
    va_list args;

    va_start(args, fmt);
    vsnprintf(text, sizeof(text), fmt, args);
    va_end(args);
    return strstr(report, text) != NULL;
}

static void test_host_root(void)
{
    char tmp[300];
    void *loader = open_with(root, "libOpenCL.so.1");

    check(loader != NULL, "no loader: %s", error);
    check(said("host drivers: looked in %s/etc/OpenCL/vendors: ", root), "where it looked");
    check(said("probe.icd -> %s/usr/lib/x86_64-linux-gnu/libdxcl_icd_probe.so", root),
          "the probe's rebased path");
    check(said("(from the host besides: libdxcl_dep_probe.so.1)"), "the dependency from the host");
    check(dlopen("libdxcl_dep_probe.so.1", RTLD_NOW | RTLD_NOLOAD) != NULL,
          "the dependency is not loaded");
    check(
        said("missing.icd -> /opt/none/libmissing.so: found neither under %s nor in the container",
             root),
        "the missing one");
    check(said("pocl.icd (the container's too)"), "PoCL named by both");
    check(said("; the loader read ") && (said(": 1 platform") || said(" platforms")),
          "the loader's platforms");
    check(!said(": 0 platforms"), "no platform through the vendors folder");
    check(getenv("OCL_ICD_VENDORS") == NULL, "OCL_ICD_VENDORS left set");
    snprintf(tmp, sizeof(tmp), "rmdir '%s/tmp' 2>/dev/null", root);
    check(system(tmp) == 0, "the vendors folder is left in %s/tmp", root);
}

static void test_no_look(void)
{
    char missing[300];

    check(open_with("0", "libOpenCL.so.1") != NULL, "DXCL_HOST_ROOT=0: no loader");
    check(said("host drivers: DXCL_HOST_ROOT=0 (not looked for); the loader reads "
               "/etc/OpenCL/vendors as without dxcl"),
          "DXCL_HOST_ROOT=0");
    snprintf(missing, sizeof(missing), "%s/nothing", root);
    check(open_with(missing, "libOpenCL.so.1") != NULL, "no root: no loader");
    check(said("host drivers: no %s (not in a container); ", missing), "no root");
    check(open_with("/", "libOpenCL.so.1") != NULL, "root /: no loader");
    check(said("the container's own /etc/OpenCL/vendors"), "root / is the container");
    setenv("OCL_ICD_VENDORS", "/etc/OpenCL/vendors", 1);
    check(open_with(root, "libOpenCL.so.1") != NULL, "OCL_ICD_VENDORS: no loader");
    check(said("OCL_ICD_VENDORS is set, the program chose its drivers"), "OCL_ICD_VENDORS");
    unsetenv("OCL_ICD_VENDORS");
}

static void test_host_loader(void)
{
    check(open_with(root, "libdxcl_host_loader.so.1") != NULL, "no host loader: %s", error);
    check(
        said("; the ICD loader is the host's %s/usr/lib/x86_64-linux-gnu/libdxcl_host_loader.so.1",
             root),
        "the host's loader");
    check(open_with(root, "libdxcl_nowhere.so.1") == NULL, "a loader from nowhere");
    check(said("; the ICD loader libdxcl_nowhere.so.1: in neither the container nor %s", root),
          "a loader from nowhere is said");
    check(error[0] != 0, "no dlerror for a loader from nowhere");
}

int main(void)
{
    const char *probes = getenv("PROBE_DIR");
    char command[300];

    snprintf(root, sizeof(root), "/tmp/dxcl-host-root.XXXXXX");
    if (!probes || !mkdtemp(root)) {
        printf("FAIL: PROBE_DIR unset or no temporary folder\n");
        return 1;
    }
    make_root(probes);
    setenv("TMPDIR", (snprintf(command, sizeof(command), "%s/tmp", root), command), 1);
    test_host_root();
    test_no_look();
    test_host_loader();
    snprintf(command, sizeof(command), "rm -rf '%s'", root);
    if (system(command) != 0)
        printf("(could not remove %s)\n", root);
    printf("native host_icds: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
