/* The host driver's entry points of core/cl_api.h, by index (dxclunix_so.h): filled by
 * dxclunix_so.c as the library opens, read by its calls and by the event watches (watches.c). */
#include "dxclunix_so.h"

uintptr_t dxclunix_host_functions[DXCLUNIX_API_COUNT];

uintptr_t dxclunix_host_function(enum dxclunix_api index)
{
    return (unsigned)index < DXCLUNIX_API_COUNT ? dxclunix_host_functions[index] : 0;
}
