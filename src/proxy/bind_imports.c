/* Binding the program's imports of forwarded functions straight to the driver (bind_imports.h),
 * an opt-in setting (DXCL_BIND_IMPORTS=1; docs/proxy.md, "Bound imports"). A forwarded export
 * is one indirect jump to the driver; a program that imports it statically (FFmpeg links
 * OpenCL.lib) pays that jump on every call, about 1 ns (docs/perf.md, P2). Once the driver is
 * bound, the program's import slots of those exports are pointed at the driver's functions, as
 * the loader does for a forwarder export. A slot is one aligned pointer: a thread calling
 * through it meanwhile gets either target, and both forward the same call.
 *
 * It reads other modules' headers and import tables, which a packed or protected program may
 * have changed or left unreadable: every RVA is checked against the module's SizeOfImage and
 * every page is queried before it is read, and a module that fails a check is left alone. */
/* K32EnumProcessModules, in kernel32 since Windows 7. */
#define PSAPI_VERSION 2
#include "proxy/bind_imports.h"

#include "core/driver.h"
#include "core/env.h"
#include "core/log.h"

#include <psapi.h>
#include <string.h>

enum { MAX_MODULES = 1024, MAX_HEADER_OFFSET = 64 * 1024, MAX_NAME = 260 };

static bool binding_wanted(void)
{
    char value[8];

    return dxcl_getenv("BIND_IMPORTS", value, sizeof(value)) && !strcmp(value, "1");
}

/* The file name of a module, without its folder; false if it has none. */
static bool module_name(HMODULE module, char *name, DWORD size)
{
    char path[MAX_PATH];
    DWORD len = GetModuleFileNameA(module, path, sizeof(path));
    const char *base;

    if (!len || len >= sizeof(path))
        return false;
    base = strrchr(path, '\\');
    base = base ? base + 1 : path;
    if (strlen(base) >= size)
        return false;
    strcpy(name, base);
    return true;
}

enum {
    READABLE = PAGE_READONLY | PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READ |
               PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY,
    WRITABLE = PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY,
    EXECUTABLE = PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY
};

/* A module in memory: its base and SizeOfImage, the bound of every RVA it holds. */
struct image {
    const BYTE *base;
    DWORD size;
};

/* Every page of [address, address + len) is committed and readable, and not a guard page. */
static bool pages_readable(const void *address, size_t len)
{
    const BYTE *at = address, *end = at + len;

    while (at < end) {
        MEMORY_BASIC_INFORMATION page;

        if (!VirtualQuery(at, &page, sizeof(page)) || page.State != MEM_COMMIT ||
            !(page.Protect & READABLE) || (page.Protect & (PAGE_GUARD | PAGE_NOACCESS)))
            return false;
        at = (const BYTE *)page.BaseAddress + page.RegionSize;
    }
    return true;
}

/* The image's bytes at [rva, rva + len), or NULL when they lie outside it or cannot be read. */
static const void *image_at(const struct image *image, DWORD rva, size_t len)
{
    if (!len || rva >= image->size || len > image->size - rva ||
        !pages_readable(image->base + rva, len))
        return NULL;
    return image->base + rva;
}

/* A 0-terminated string of the image at `rva`, read page by page. */
static const char *image_string(const struct image *image, DWORD rva)
{
    for (DWORD len = 1; len <= MAX_NAME; len++) {
        const char *text = image_at(image, rva, len);

        if (!text)
            return NULL;
        if (!text[len - 1])
            return text;
    }
    return NULL;
}

/* The image of a 64-bit PE module in memory, or false. Its DOS header is checked before
 * SizeOfImage is known: against the pages alone. */
static bool image_of(HMODULE module, struct image *image)
{
    const BYTE *base = (const BYTE *)module;
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS64 *nt;

    if (!pages_readable(dos, sizeof(*dos)) || dos->e_magic != IMAGE_DOS_SIGNATURE ||
        dos->e_lfanew <= 0 || dos->e_lfanew > MAX_HEADER_OFFSET)
        return false;
    nt = (const IMAGE_NT_HEADERS64 *)(base + dos->e_lfanew);
    if (!pages_readable(nt, sizeof(*nt)) || nt->Signature != IMAGE_NT_SIGNATURE ||
        nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        (DWORD)dos->e_lfanew + sizeof(*nt) > nt->OptionalHeader.SizeOfImage)
        return false;
    image->base = base;
    image->size = nt->OptionalHeader.SizeOfImage;
    return true;
}

/* The image's import directory: its RVA and number of descriptors (0 when it has none). */
static DWORD import_directory(const struct image *image, DWORD *count)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)image->base;
    const IMAGE_NT_HEADERS64 *nt = (const IMAGE_NT_HEADERS64 *)(image->base + dos->e_lfanew);
    const IMAGE_DATA_DIRECTORY *dir;

    *count = 0;
    if (nt->OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_IMPORT)
        return 0;
    dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
    if (!dir->VirtualAddress || dir->Size < sizeof(IMAGE_IMPORT_DESCRIPTOR) ||
        !image_at(image, dir->VirtualAddress, dir->Size))
        return 0;
    *count = dir->Size / sizeof(IMAGE_IMPORT_DESCRIPTOR);
    return dir->VirtualAddress;
}

static const void *driver_of(const struct dxcl_import_binding *bindings, size_t count,
                             ULONGLONG slot_value)
{
    for (size_t i = 0; i < count; i++)
        if ((ULONGLONG)(ULONG_PTR)bindings[i].export_fn == slot_value)
            return bindings[i].driver_fn;
    return NULL;
}

/* Stores `value` into one import slot. Its page becomes writable for the store only, and stays
 * executable if it was: a packed image may keep its import table beside code that another
 * thread runs meanwhile. Each slot's page is looked at on its own, since a table may cross
 * pages of different protections. */
static bool store_slot(ULONGLONG *slot, ULONGLONG value)
{
    MEMORY_BASIC_INFORMATION page;
    DWORD old;

    if (!VirtualQuery(slot, &page, sizeof(page)) || page.State != MEM_COMMIT)
        return false;
    if (page.Protect & WRITABLE) {
        __atomic_store_n(slot, value, __ATOMIC_RELEASE);
        return true;
    }
    if (!VirtualProtect(slot, sizeof(*slot),
                        page.Protect & EXECUTABLE ? PAGE_EXECUTE_READWRITE : PAGE_READWRITE, &old))
        return false;
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    VirtualProtect(slot, sizeof(*slot), old, &old);
    return true;
}

/* Rewrites the slots of one module's imports from dxcl's module: each slot is read only once
 * its page was found readable, and within the image. */
static unsigned bind_slots_of(const struct image *image, DWORD first_thunk,
                              const struct dxcl_import_binding *bindings, size_t count)
{
    unsigned bound = 0;

    if (first_thunk % sizeof(ULONGLONG)) /* a slot is stored whole, atomically */
        return 0;
    for (DWORD rva = first_thunk;; rva += sizeof(ULONGLONG)) {
        ULONGLONG *slot = (ULONGLONG *)image_at(image, rva, sizeof(ULONGLONG));
        const void *driver_fn;

        if (!slot || !*slot)
            break;
        driver_fn = driver_of(bindings, count, *slot);
        bound += driver_fn && store_slot(slot, (ULONGLONG)(ULONG_PTR)driver_fn);
    }
    return bound;
}

static unsigned bind_module(HMODULE module, const char *own_name,
                            const struct dxcl_import_binding *bindings, size_t count)
{
    struct image image;
    DWORD descriptors, at;
    unsigned bound = 0;

    if (!image_of(module, &image) || !(at = import_directory(&image, &descriptors)))
        return 0;
    for (DWORD i = 0; i < descriptors; i++, at += sizeof(IMAGE_IMPORT_DESCRIPTOR)) {
        const IMAGE_IMPORT_DESCRIPTOR *import = image_at(&image, at, sizeof(*import));
        const char *name;

        if (!import || !import->Name)
            break;
        if (import->FirstThunk && (name = image_string(&image, import->Name)) &&
            !_stricmp(name, own_name))
            bound += bind_slots_of(&image, import->FirstThunk, bindings, count);
    }
    return bound;
}

unsigned dxcl_bind_imports(const struct dxcl_import_binding *bindings, size_t count)
{
    static HMODULE modules[MAX_MODULES]; /* one caller at a time: proxy/forward.c's once */
    HMODULE self = dxcl_own_module();
    char own_name[MAX_PATH];
    DWORD size = 0;
    unsigned bound = 0, seen = 0;

    if (!binding_wanted() || !self || !module_name(self, own_name, sizeof(own_name)) ||
        !EnumProcessModules(GetCurrentProcess(), modules, sizeof(modules), &size)) {
        return 0;
    }
    for (DWORD i = 0; i < size / sizeof(modules[0]) && i < MAX_MODULES; i++) {
        HMODULE held;
        /* Held while it is read, so that a FreeLibrary on another thread cannot unmap it. */
        if (modules[i] == self || !GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS,
                                                      (const char *)modules[i], &held)) {
            continue;
        }
        unsigned here = bind_module(held, own_name, bindings, count);
        bound += here;
        seen += here != 0;
        FreeLibrary(held);
    }
    DXCL_LOG("bound %u import slots of forwarded functions to the driver (modules: %u)", bound,
             seen);
    return bound;
}
