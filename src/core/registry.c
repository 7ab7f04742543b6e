#include "core/registry.h"
#include "core/names.h"

#include <stdlib.h>

#define DXCL_MAX_EXTENSIONS 32

/* Written only by constructors while the DLL loads, read-only afterwards: no lock needed. */
static const struct dxcl_extension *extensions[DXCL_MAX_EXTENSIONS];
static size_t num_extensions;

void dxcl_register_extension(const struct dxcl_extension *extension)
{
    if (num_extensions < DXCL_MAX_EXTENSIONS)
        extensions[num_extensions++] = extension;
}

size_t dxcl_extension_count(void)
{
    return num_extensions;
}

const struct dxcl_extension *dxcl_extension_at(size_t index)
{
    return index < num_extensions ? extensions[index] : NULL;
}

void *dxcl_find_ext_function(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < num_extensions; i++)
        for (const struct dxcl_ext_function *fn = extensions[i]->functions; fn && fn->name; fn++)
            if (!strcmp(fn->name, name))
                return fn->address;
    return NULL;
}

char *dxcl_extend_extension_string(const char *driver_list)
{
    size_t size = strlen(driver_list) + 2;
    char *result;

    for (size_t i = 0; i < num_extensions; i++)
        size += strlen(extensions[i]->name) + 1;
    if (!(result = malloc(size)))
        return NULL;
    strcpy(result, driver_list);
    for (size_t i = 0; i < num_extensions; i++) {
        size_t len = strlen(result);
        if (dxcl_has_word(driver_list, extensions[i]->name))
            continue;
        if (len && result[len - 1] != ' ')
            strcat(result, " ");
        strcat(result, extensions[i]->name);
    }
    return result;
}

#include "core/backend.h"

#define DXCL_MAX_BACKENDS 8

static const struct dxcl_backend *backends[DXCL_MAX_BACKENDS];
static size_t num_backends;

void dxcl_register_backend(const struct dxcl_backend *backend)
{
    if (num_backends < DXCL_MAX_BACKENDS)
        backends[num_backends++] = backend;
}

size_t dxcl_backend_count(void)
{
    return num_backends;
}

const struct dxcl_backend *dxcl_backend_at(size_t index)
{
    return index < num_backends ? backends[index] : NULL;
}

const struct dxcl_backend *dxcl_backend_for_property(cl_context_properties property)
{
    for (size_t i = 0; i < num_backends; i++)
        for (const cl_context_properties *p = backends[i]->context_properties; p && *p; p++)
            if (*p == property)
                return backends[i];
    return NULL;
}
