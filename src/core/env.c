/* dxcl's settings from the environment (env.h), read with the build's prefix (DXCL_, or
 * DXCL_BACK_ for the tests' dxcl_back.dll). */
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

DWORD dxcl_getenv_size(const char *name)
{
    char full[64];

    snprintf(full, sizeof(full), "%s%s", DXCL_ENV_PREFIX, name);
    return GetEnvironmentVariableA(full, NULL, 0);
}
