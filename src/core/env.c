#include "core/env.h"

#include <stdio.h>

DWORD dxcl_getenv(const char *name, char *value, DWORD size)
{
    char full[64];
    DWORD len;

    snprintf(full, sizeof(full), "%s%s", DXCL_ENV_PREFIX, name);
    len = GetEnvironmentVariableA(full, value, size);
    return len < size ? len : 0;
}
