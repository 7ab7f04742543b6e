/* Wine's NTSTATUS and the type of a __wine_unix_call_funcs entry (Wine's include/wine/unixlib.h),
 * for the files of dxclunix.so, which is built without Wine's headers. */
#ifndef DXCLUNIX_WINE_UNIXLIB_H
#define DXCLUNIX_WINE_UNIXLIB_H

#include <stdint.h>

typedef int32_t NTSTATUS;
typedef NTSTATUS (*unixlib_entry_t)(void *args);

#endif
