/* Binding the program's imports of forwarded functions straight to the driver (bind_imports.h).
 * A forwarded export is one indirect jump to the driver; a program that imports it statically
 * (FFmpeg links OpenCL.lib) pays that jump on every call, which is all that dxcl adds to a 10 ns
 * query (docs/perf.md, P2). Once the driver is bound, the program's import slots of those
 * exports are pointed at the driver's functions, as the loader does for a forwarder export.
 * A slot is one aligned pointer: a thread calling through it meanwhile gets either target, and
 * both forward the same call. */
/* K32EnumProcessModules, in kernel32 since Windows 7. */
#define PSAPI_VERSION 2
#include "proxy/bind_imports.h"

#include "core/driver.h"
#include "core/env.h"
#include "core/log.h"

#include <psapi.h>
#include <string.h>

enum { MAX_MODULES = 1024 };

static bool binding_wanted(void)
{
    char value[8];

    return !(dxcl_getenv("BIND_IMPORTS", value, sizeof(value)) && !strcmp(value, "0"));
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

/* The import directory of a 64-bit PE image in memory, or NULL. */
static const IMAGE_IMPORT_DESCRIPTOR *import_directory(const BYTE *base)
{
    const IMAGE_DOS_HEADER *dos = (const IMAGE_DOS_HEADER *)base;
    const IMAGE_NT_HEADERS64 *nt;
    const IMAGE_DATA_DIRECTORY *dir;

    if (dos->e_magic != IMAGE_DOS_SIGNATURE)
        return NULL;
    nt = (const IMAGE_NT_HEADERS64 *)(base + dos->e_lfanew);
    if (nt->Signature != IMAGE_NT_SIGNATURE ||
        nt->OptionalHeader.Magic != IMAGE_NT_OPTIONAL_HDR64_MAGIC ||
        nt->OptionalHeader.NumberOfRvaAndSizes <= IMAGE_DIRECTORY_ENTRY_IMPORT)
        return NULL;
    dir = &nt->OptionalHeader.DataDirectory[IMAGE_DIRECTORY_ENTRY_IMPORT];
    if (!dir->VirtualAddress || !dir->Size)
        return NULL;
    return (const IMAGE_IMPORT_DESCRIPTOR *)(base + dir->VirtualAddress);
}

static const void *driver_of(const struct dxcl_import_binding *bindings, size_t count,
                             ULONGLONG slot_value)
{
    for (size_t i = 0; i < count; i++)
        if ((ULONGLONG)(ULONG_PTR)bindings[i].export_fn == slot_value)
            return bindings[i].driver_fn;
    return NULL;
}

enum {
    WRITABLE = PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY,
    EXECUTABLE = PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY
};

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

/* Rewrites the slots of one module's imports from dxcl's module. */
static unsigned bind_slots_of(BYTE *base, const IMAGE_IMPORT_DESCRIPTOR *import,
                              const struct dxcl_import_binding *bindings, size_t count)
{
    ULONGLONG *slots = (ULONGLONG *)(base + import->FirstThunk);
    unsigned bound = 0;

    for (size_t i = 0; slots[i]; i++) {
        const void *driver_fn = driver_of(bindings, count, slots[i]);
        bound += driver_fn && store_slot(&slots[i], (ULONGLONG)(ULONG_PTR)driver_fn);
    }
    return bound;
}

static unsigned bind_module(HMODULE module, const char *own_name,
                            const struct dxcl_import_binding *bindings, size_t count)
{
    BYTE *base = (BYTE *)module;
    const IMAGE_IMPORT_DESCRIPTOR *import = import_directory(base);
    unsigned bound = 0;

    for (; import && import->Name; import++) {
        if (import->FirstThunk && !_stricmp((const char *)base + import->Name, own_name))
            bound += bind_slots_of(base, import, bindings, count);
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
