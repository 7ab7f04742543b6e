/* COM helpers (com.h): interface queries on pointers the program hands dxcl, checked to be
 * readable objects with callable methods first, and object identity. */
#include "core/com.h"

static bool readable(const void *address, size_t size)
{
    MEMORY_BASIC_INFORMATION info;
    const DWORD ok = PAGE_READONLY | PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READ |
                     PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY;

    if (!address || !VirtualQuery(address, &info, sizeof(info)))
        return false;
    if (info.State != MEM_COMMIT || !(info.Protect & ok) || (info.Protect & PAGE_GUARD))
        return false;
    return (const char *)address + size <= (const char *)info.BaseAddress + info.RegionSize;
}

static bool executable(const void *address)
{
    MEMORY_BASIC_INFORMATION info;
    const DWORD ok =
        PAGE_EXECUTE | PAGE_EXECUTE_READ | PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY;

    return address && VirtualQuery(address, &info, sizeof(info)) && info.State == MEM_COMMIT &&
           (info.Protect & ok);
}

HRESULT dxcl_query_interface(const void *object, REFIID iid, void **out)
{
    void *const *vtable;

    *out = NULL;
    if (!readable(object, sizeof(void *)))
        return E_POINTER;
    vtable = *(void *const *const *)object;
    if (!readable(vtable, 3 * sizeof(void *)) || !executable(vtable[0]))
        return E_POINTER;
    return IUnknown_QueryInterface((IUnknown *)object, iid, out);
}

bool dxcl_same_object(IUnknown *a, IUnknown *b)
{
    IUnknown *ua = NULL, *ub = NULL;
    bool same;

    if (!a || !b)
        return false;
    if (FAILED(IUnknown_QueryInterface(a, &IID_IUnknown, (void **)&ua)))
        return false;
    if (FAILED(IUnknown_QueryInterface(b, &IID_IUnknown, (void **)&ub))) {
        IUnknown_Release(ua);
        return false;
    }
    same = ua == ub;
    IUnknown_Release(ua);
    IUnknown_Release(ub);
    return same;
}
