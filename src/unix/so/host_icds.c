/* The host's OpenCL drivers from inside a container (host_icds.h). The steps, each said in the
 * report:
 *   1. The host's root: DXCL_HOST_ROOT, /run/host by default ("0" looks nowhere). Without its
 *      etc/OpenCL/vendors, or when that is the container's own folder, nothing is added.
 *   2. Each host .icd file names a library: a path, looked for under the root first (the host's
 *      file), or a bare name, looked for in the host's library folders under the root (those of
 *      its etc/ld.so.conf.d too), else left to the container's library path.
 *   3. A library under the root is opened here first, after what it needs (DT_NEEDED) that the
 *      container lacks, opened from the host's folders: the loader's dlopen of it then finds
 *      all of it in the process (glibc matches loaded libraries by soname). One that does not
 *      open is left out, with dlerror's words.
 *   4. The loader reads a vendors folder made for it (OCL_ICD_VENDORS, which ocl-icd and the
 *      Khronos loader both read): the container's own .icd files and the host's that opened,
 *      rewritten to the paths found. dxcl makes the loader read it at once (clGetPlatformIDs),
 *      then removes the folder and the variable: the process keeps nothing of it.
 * Where the container has no libOpenCL.so.1, the host's (under the root, with what it needs) is
 * the loader. A program's own OCL_ICD_VENDORS, OPENCL_VENDOR_PATH or OCL_ICD_FILENAMES wins:
 * nothing is added then. */
#define _GNU_SOURCE
#include "host_icds.h"
#include "unix/host_config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The host's library folders and ELF machine of this build; an i686 build takes the second. */
#if defined(__x86_64__)
#define HOST_TUPLE "x86_64-linux-gnu"
#define HOST_LIB_WORD "lib64"
#define HOST_MACHINE EM_X86_64
#elif defined(__i386__)
#define HOST_TUPLE "i386-linux-gnu"
#define HOST_LIB_WORD "lib32"
#define HOST_MACHINE EM_386
#else
#error "host_icds.c knows the library folders of x86-64 and i686 only"
#endif

#define MAX_ICDS 16
#define MAX_DIRS 24
#define MAX_NEEDED 64
#define MAX_DEPTH 6
#define PATH_SIZE 640

typedef int32_t cl_int_t;
typedef cl_int_t (*get_platform_ids_fn)(uint32_t count, void **platforms, uint32_t *found);

struct icd {
    char file[256];       /* the .icd file's name */
    char library[512];    /* what it names */
    char path[PATH_SIZE]; /* the library the loader gets, once it opened here */
    char problem[300];
};

/* One look: the root, its library folders, what came from the host besides the drivers. */
struct search {
    char root[256];
    char dirs[MAX_DIRS][320];
    unsigned dir_count;
    char from_host[512]; /* the sonames opened from the host, comma separated */
};

struct report {
    char *text;
    size_t size, used;
};

static void say(struct report *report, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct report *report, const char *fmt, ...)
{
    va_list args;
    int len;

    if (report->used >= report->size)
        return;
    va_start(args, fmt);
    len = vsnprintf(report->text + report->used, report->size - report->used, fmt, args);
    va_end(args);
    if (len > 0)
        report->used += (size_t)len;
    if (report->used >= report->size)
        report->used = report->size - 1;
}

/* snprintf through a va_list: paths cut at their buffer are no paths, and are not found. */
static void format(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void format(char *out, size_t size, const char *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    vsnprintf(out, size, fmt, args);
    va_end(args);
}

static bool is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void add_dir(struct search *search, const char *dir)
{
    if (search->dir_count < MAX_DIRS) {
        format(search->dirs[search->dir_count], sizeof(search->dirs[0]), "%s%s", search->root, dir);
        search->dir_count++;
    }
}

/* The folders of one ld.so.conf file under the root (lines that name a folder). */
static void add_conf_dirs(struct search *search, const char *conf)
{
    char path[PATH_SIZE], line[300];
    FILE *file;

    format(path, sizeof(path), "%s/etc/ld.so.conf.d/%s", search->root, conf);
    if (!(file = fopen(path, "r")))
        return;
    while (fgets(line, sizeof(line), file)) {
        line[strcspn(line, " \t\r\n#")] = 0;
        if (line[0] == '/')
            add_dir(search, line);
    }
    fclose(file);
}

/* The host's library folders, as its dynamic loader would search them, under the root. */
static void find_host_dirs(struct search *search)
{
    static const char *const standard[] = {
        "/usr/lib/" HOST_TUPLE, "/lib/" HOST_TUPLE, "/usr/" HOST_LIB_WORD,
        "/" HOST_LIB_WORD,      "/usr/lib",         "/lib"};
    char path[PATH_SIZE];
    struct dirent *entry;
    DIR *dir;

    for (size_t i = 0; i < sizeof(standard) / sizeof(standard[0]); i++)
        add_dir(search, standard[i]);
    format(path, sizeof(path), "%s/etc/ld.so.conf.d", search->root);
    if (!(dir = opendir(path)))
        return;
    while ((entry = readdir(dir)))
        if (strlen(entry->d_name) > 5 &&
            !strcmp(entry->d_name + strlen(entry->d_name) - 5, ".conf"))
            add_conf_dirs(search, entry->d_name);
    closedir(dir);
}

/* `name` in the host's library folders: its path under the root, or false. */
static bool find_in_host(const struct search *search, const char *name, char *path, size_t size)
{
    for (unsigned i = 0; i < search->dir_count; i++) {
        format(path, size, "%s/%s", search->dirs[i], name);
        if (is_file(path))
            return true;
    }
    return false;
}

/* The ELF file's dynamic section entries, read into `dyn` (at most `max`), and its program
 * headers; the count, or -1 when it is no ELF library of this build's machine. */
static int read_dynamic(int fd, ElfW(Ehdr) * header, ElfW(Phdr) * phdrs, ElfW(Dyn) * dyn, int max)
{
    ssize_t got;

    if (pread(fd, header, sizeof(*header), 0) != sizeof(*header) ||
        memcmp(header->e_ident, ELFMAG, SELFMAG) || header->e_machine != HOST_MACHINE ||
        header->e_phentsize != sizeof(ElfW(Phdr)) || header->e_phnum > 64)
        return -1;
    if (pread(fd, phdrs, header->e_phnum * sizeof(ElfW(Phdr)), (off_t)header->e_phoff) !=
        (ssize_t)(header->e_phnum * sizeof(ElfW(Phdr))))
        return -1;
    for (int i = 0; i < header->e_phnum; i++) {
        if (phdrs[i].p_type != PT_DYNAMIC)
            continue;
        got = pread(fd, dyn, sizeof(*dyn) * (size_t)max, (off_t)phdrs[i].p_offset);
        return got < 0 ? -1 : (int)((size_t)got / sizeof(*dyn));
    }
    return 0;
}

/* The file offset of a virtual address, through the PT_LOAD that holds it; 0 when none. */
static off_t file_offset(const ElfW(Ehdr) * header, const ElfW(Phdr) * phdrs, ElfW(Addr) address)
{
    for (int i = 0; i < header->e_phnum; i++)
        if (phdrs[i].p_type == PT_LOAD && address >= phdrs[i].p_vaddr &&
            address < phdrs[i].p_vaddr + phdrs[i].p_filesz)
            return (off_t)(address - phdrs[i].p_vaddr + phdrs[i].p_offset);
    return 0;
}

/* The sonames the library at `path` needs (DT_NEEDED), each 64 bytes at most; the count, or -1
 * when it is no library of this build's machine. */
static int needed_libraries(const char *path, char needed[][64], int max)
{
    ElfW(Ehdr) header;
    ElfW(Phdr) phdrs[64];
    ElfW(Dyn) dyn[256];
    ElfW(Addr) strtab = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC), count, found = 0;
    off_t strings;

    if (fd < 0)
        return -1;
    if ((count = read_dynamic(fd, &header, phdrs, dyn, 256)) < 0) {
        close(fd);
        return -1;
    }
    for (int i = 0; i < count && dyn[i].d_tag != DT_NULL; i++)
        if (dyn[i].d_tag == DT_STRTAB)
            strtab = dyn[i].d_un.d_ptr;
    strings = strtab ? file_offset(&header, phdrs, strtab) : 0;
    for (int i = 0; i < count && dyn[i].d_tag != DT_NULL && found < max; i++) {
        if (dyn[i].d_tag != DT_NEEDED || !strings)
            continue;
        if (pread(fd, needed[found], 63, strings + (off_t)dyn[i].d_un.d_val) <= 0)
            continue;
        needed[found][63] = 0;
        found++;
    }
    close(fd);
    return found;
}

static void note_from_host(struct search *search, const char *soname)
{
    size_t used = strlen(search->from_host);

    if (!strstr(search->from_host, soname))
        format(search->from_host + used, sizeof(search->from_host) - used, "%s%s", used ? ", " : "",
               soname);
}

/* Opens the library at `path` under the root after what it needs: each needed soname the
 * process has or the container gives stays so, the others come from the host's folders (and
 * what they need, `depth` levels down). The handle, or NULL with `problem` set. */
static void *open_from_host(struct search *search, const char *path, int depth, char *problem,
                            size_t size)
{
    char needed[MAX_NEEDED][64], found[PATH_SIZE];
    int count = needed_libraries(path, needed, MAX_NEEDED);
    void *handle;

    if (count < 0) {
        format(problem, size, "%s is no %s library", path, HOST_TUPLE);
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        if ((handle = dlopen(needed[i], RTLD_NOW | RTLD_NOLOAD)) ||
            (handle = dlopen(needed[i], RTLD_NOW | RTLD_LOCAL)))
            continue; /* kept open: the library below needs it */
        if (depth >= MAX_DEPTH || !find_in_host(search, needed[i], found, sizeof(found))) {
            format(problem, size, "%s needs %s, which neither the container nor %s has", path,
                   needed[i], search->root);
            return NULL;
        }
        if (!open_from_host(search, found, depth + 1, problem, size))
            return NULL;
        note_from_host(search, needed[i]);
    }
    if (!(handle = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        format(problem, size, "%s", dlerror());
    return handle;
}

/* Where the library an .icd file names is: a path under the root (the host's file) or in the
 * container, a bare name in the host's folders, else the bare name for the container's path. */
static void locate_icd(const struct search *search, struct icd *icd)
{
    char rebased[PATH_SIZE];

    if (icd->library[0] == '/') {
        format(rebased, sizeof(rebased), "%s%s", search->root, icd->library);
        format(icd->path, sizeof(icd->path), "%s",
               is_file(rebased) || !is_file(icd->library) ? rebased : icd->library);
    } else if (strchr(icd->library, '/') ||
               !find_in_host(search, icd->library, icd->path, sizeof(icd->path))) {
        format(icd->path, sizeof(icd->path), "%s", icd->library);
    }
}

/* Opens the library of an .icd file here (under the root: after what it needs); its path
 * stays in icd->path, or icd->problem says why not. */
static void open_icd(struct search *search, struct icd *icd)
{
    locate_icd(search, icd);
    if (icd->path[0] == '/' && !is_file(icd->path))
        format(icd->problem, sizeof(icd->problem), "found neither under %s nor in the container",
               search->root);
    else if (!strncmp(icd->path, search->root, strlen(search->root)))
        open_from_host(search, icd->path, 0, icd->problem, sizeof(icd->problem));
    else if (!dlopen(icd->path, RTLD_NOW | RTLD_LOCAL))
        format(icd->problem, sizeof(icd->problem), "not under %s; %s", search->root, dlerror());
    if (icd->problem[0])
        icd->path[0] = 0;
}

/* The first line of an .icd file: the library it names. */
static bool read_icd(const char *dir, const char *file, char *library, size_t size)
{
    char path[PATH_SIZE];
    FILE *stream;
    bool read;

    format(path, sizeof(path), "%s/%s", dir, file);
    if (!(stream = fopen(path, "r")))
        return false;
    read = fgets(library, (int)size, stream) != NULL;
    fclose(stream);
    library[strcspn(library, "\r\n")] = 0;
    return read && library[0];
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The .icd files of `dir` (names sorted, at most MAX_ICDS), each with the library it names. */
static unsigned list_icds(const char *dir, struct icd *icds)
{
    struct dirent *entry;
    unsigned count = 0;
    DIR *stream = opendir(dir);

    if (!stream)
        return 0;
    while ((entry = readdir(stream)) && count < MAX_ICDS) {
        size_t len = strlen(entry->d_name);

        memset(&icds[count], 0, sizeof(icds[count]));
        if (len > 4 && !strcmp(entry->d_name + len - 4, ".icd") && len < sizeof(icds[count].file) &&
            read_icd(dir, entry->d_name, icds[count].library, sizeof(icds[count].library))) {
            strcpy(icds[count].file, entry->d_name);
            count++;
        }
    }
    closedir(stream);
    qsort(icds, count, sizeof(*icds), compare_names); /* `file` comes first */
    return count;
}

static bool is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool same_folder(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* A host .icd the container's own vendors folder already names (the same text): the loader
 * reads that one, when the library it names is the container's too. */
static bool container_has(const struct icd *own, unsigned own_count, const struct icd *icd)
{
    for (unsigned i = 0; i < own_count; i++)
        if (!strcmp(own[i].library, icd->library) &&
            (icd->library[0] != '/' || is_file(icd->library)))
            return true;
    return false;
}

/* Why the host's drivers are not looked for, or NULL: then search->root and its folders. */
static const char *why_not_look(struct search *search, struct report *report)
{
    static const char *const own_choice[] = {"OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH",
                                             "OCL_ICD_FILENAMES"};
    const char *root = dxcl_host_setting("DXCL_HOST_ROOT");
    char vendors[PATH_SIZE];

    if (!root)
        root = "/run/host";
    if (!strcmp(root, "0") || !strcmp(root, "none"))
        return "DXCL_HOST_ROOT=0 (not looked for)";
    format(search->root, sizeof(search->root), "%s", root);
    format(vendors, sizeof(vendors), "%s/etc/OpenCL/vendors", root);
    if (!is_dir(root)) {
        say(report, "no %s (not in a container)", root);
        return "";
    }
    say(report, "looked in %s: ", vendors);
    if (!is_dir(vendors))
        return "the host has no such folder";
    if (same_folder(vendors, "/etc/OpenCL/vendors"))
        return "the container's own /etc/OpenCL/vendors";
    for (size_t i = 0; i < sizeof(own_choice) / sizeof(own_choice[0]); i++)
        if (getenv(own_choice[i]) && *getenv(own_choice[i])) {
            say(report, "%s is set, ", own_choice[i]);
            return "the program chose its drivers";
        }
    find_host_dirs(search);
    return NULL;
}

/* The host's .icd files resolved and opened, said one by one; the number usable. */
static unsigned find_host_icds(struct search *search, struct icd *icds, unsigned *count,
                               struct report *report)
{
    static struct icd own[MAX_ICDS]; /* 27 KiB: off the Unix call's stack (one caller at once) */
    unsigned own_count = list_icds("/etc/OpenCL/vendors", own), usable = 0;
    char vendors[PATH_SIZE];

    format(vendors, sizeof(vendors), "%s/etc/OpenCL/vendors", search->root);
    *count = list_icds(vendors, icds);
    for (unsigned i = 0; i < *count; i++) {
        struct icd *icd = &icds[i];

        if (container_has(own, own_count, icd)) {
            say(report, "%s%s (the container's too)", i ? "; " : "", icd->file);
            continue;
        }
        open_icd(search, icd);
        if (icd->path[0]) {
            say(report, "%s%s -> %s", i ? "; " : "", icd->file, icd->path);
            usable++;
        } else {
            say(report, "%s%s -> %s: %s", i ? "; " : "", icd->file, icd->library, icd->problem);
        }
    }
    if (!*count)
        say(report, "no .icd file");
    if (search->from_host[0])
        say(report, " (from the host besides: %s)", search->from_host);
    return usable;
}

/* A vendors folder for the loader: the container's own .icd files and the host's usable ones
 * (host-<name>.icd, naming the library found). False when it cannot be written. */
static bool write_vendors(char *dir, size_t size, const struct icd *icds, unsigned count)
{
    static struct icd own[MAX_ICDS]; /* as in find_host_icds */
    unsigned own_count = list_icds("/etc/OpenCL/vendors", own);
    const char *tmp = getenv("TMPDIR");
    char path[PATH_SIZE + 300];
    bool written = true;

    format(dir, size, "%s/dxcl-icds.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return false;
    for (unsigned i = 0; i < own_count + count; i++) {
        const struct icd *icd = i < own_count ? &own[i] : &icds[i - own_count];
        FILE *file;

        if (i >= own_count && !icd->path[0])
            continue;
        format(path, sizeof(path), "%s/%s%s", dir, i < own_count ? "" : "host-", icd->file);
        if (!(file = fopen(path, "w"))) {
            written = false;
            continue;
        }
        fprintf(file, "%s\n", i < own_count ? icd->library : icd->path);
        written &= fclose(file) == 0;
    }
    return written;
}

static void remove_vendors(const char *dir)
{
    char path[PATH_SIZE + 300];
    struct dirent *entry;
    DIR *stream = opendir(dir);

    while (stream && (entry = readdir(stream)))
        if (entry->d_name[0] != '.') {
            format(path, sizeof(path), "%s/%s", dir, entry->d_name);
            unlink(path);
        }
    if (stream)
        closedir(stream);
    rmdir(dir);
}

/* The ICD loader: `name` as dlopen finds it, else (a bare name, in a container) the host's,
 * with what it needs. */
static void *open_loader(struct search *search, const char *name, struct report *report,
                         char *error, size_t size)
{
    char path[PATH_SIZE], problem[300] = "";
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);

    if (handle || !search->dir_count || strchr(name, '/')) {
        if (!handle)
            format(error, size, "%s", dlerror());
        return handle;
    }
    format(error, size, "%s", dlerror());
    if (!find_in_host(search, name, path, sizeof(path))) {
        say(report, "; the ICD loader %s: in neither the container nor %s", name, search->root);
        return NULL;
    }
    if (!(handle = open_from_host(search, path, 0, problem, sizeof(problem)))) {
        say(report, "; the host's ICD loader %s: %s", path, problem);
        return NULL;
    }
    say(report, "; the ICD loader is the host's %s (the container has none)", path);
    return handle;
}

/* The loader reads the vendors folder now, while it exists: its first clGetPlatformIDs. */
static void read_vendors_now(void *loader, const char *dir, struct report *report)
{
    get_platform_ids_fn get_platform_ids =
        loader ? (get_platform_ids_fn)dlsym(loader, "clGetPlatformIDs") : NULL;
    uint32_t found = 0;

    if (!get_platform_ids)
        return;
    if (get_platform_ids(0, NULL, &found) != 0)
        found = 0;
    say(report, "; the loader read %s (the container's .icd files and the host's): %u platform%s",
        dir, found, found == 1 ? "" : "s");
}

void *dxcl_host_icds_open(const char *name, char *error, size_t error_size, char *report_text,
                          size_t report_size)
{
    static struct icd icds[MAX_ICDS]; /* as in find_host_icds */
    struct report report = {report_text, report_size, 0};
    struct search search;
    const char *why;
    char dir[PATH_SIZE];
    unsigned count = 0;
    void *loader;

    memset(&search, 0, sizeof(search));
    report_text[0] = error[0] = 0;
    say(&report, "host drivers: ");
    if ((why = why_not_look(&search, &report))) {
        say(&report, "%s; the loader reads /etc/OpenCL/vendors as without dxcl", why);
        return open_loader(&search, name, &report, error, error_size);
    }
    if (!find_host_icds(&search, icds, &count, &report)) {
        say(&report, "; none added: programs see what the container's /etc/OpenCL/vendors gives");
        return open_loader(&search, name, &report, error, error_size);
    }
    if (!write_vendors(dir, sizeof(dir), icds, count)) {
        say(&report, "; cannot write a vendors folder in %s: none added", dir);
        remove_vendors(dir);
        return open_loader(&search, name, &report, error, error_size);
    }
    setenv("OCL_ICD_VENDORS", dir, 1);
    loader = open_loader(&search, name, &report, error, error_size);
    read_vendors_now(loader, dir, &report);
    unsetenv("OCL_ICD_VENDORS");
    remove_vendors(dir);
    return loader;
}
