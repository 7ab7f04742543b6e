#include "core/registry.h"
#include "core/names.h"
#include "core/env.h"

#include <stdlib.h>

#define DXCL_MAX_EXTENSIONS 32

/* Written only by constructors while the DLL loads; the exposed list is derived once. */
static const struct dxcl_extension *registered[DXCL_MAX_EXTENSIONS];
static size_t num_registered;
static const struct dxcl_extension *extensions[DXCL_MAX_EXTENSIONS];
static size_t num_extensions;
static INIT_ONCE exposed_once = INIT_ONCE_STATIC_INIT;

void dxcl_register_extension(const struct dxcl_extension *extension)
{
    if (num_registered < DXCL_MAX_EXTENSIONS)
        registered[num_registered++] = extension;
}

static bool named_in(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *p = list; (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == 0))
            return true;
    return false;
}

static BOOL CALLBACK choose_exposed(INIT_ONCE *once, void *param, void **context)
{
    char list[1024];
    bool all = !dxcl_getenv("FAMILIES", list, sizeof(list));

    (void)once, (void)param, (void)context;
    for (size_t i = 0; i < num_registered; i++)
        if (all || named_in(list, registered[i]->name))
            extensions[num_extensions++] = registered[i];
    if (!all)
        DXCL_LOG("FAMILIES=%s: exposing %zu of %zu extensions", list, num_extensions,
                 num_registered);
    return TRUE;
}

size_t dxcl_extension_count(void)
{
    InitOnceExecuteOnce(&exposed_once, choose_exposed, NULL, NULL);
    return num_extensions;
}

const struct dxcl_extension *dxcl_extension_at(size_t index)
{
    return index < dxcl_extension_count() ? extensions[index] : NULL;
}

void *dxcl_find_ext_function(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < dxcl_extension_count(); i++)
        for (const struct dxcl_ext_function *fn = extensions[i]->functions; fn && fn->name; fn++)
            if (!strcmp(fn->name, name))
                return fn->address;
    return NULL;
}

const struct dxcl_extension *dxcl_extension_of_function(const void *address, size_t *index)
{
    for (size_t i = 0; i < dxcl_extension_count(); i++)
        for (size_t j = 0; extensions[i]->functions && extensions[i]->functions[j].name; j++)
            if (extensions[i]->functions[j].address == address) {
                *index = j;
                return extensions[i];
            }
    return NULL;
}

char *dxcl_extend_extension_string(const char *driver_list)
{
    size_t size = strlen(driver_list) + 2;
    char *result;

    dxcl_extension_count();

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

/* Written only by constructors while the DLL loads. */
static struct dxcl_release_listener *release_listeners;

void dxcl_listen_to_releases(struct dxcl_release_listener *listener)
{
    listener->next = release_listeners;
    release_listeners = listener;
}

void dxcl_released(const void *handle)
{
    for (struct dxcl_release_listener *l = release_listeners; l; l = l->next)
        l->released(handle);
}
