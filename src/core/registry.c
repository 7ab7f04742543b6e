/* The registry (registry.h): the backends, extensions and release listeners that register at
 * DLL load, and the function addresses answered from them. */
#include "core/registry.h"
#include "core/names.h"
#include "core/env.h"

#include <stdlib.h>

/* Written only by constructors while the DLL loads (one thread); the exposed list is derived
 * once. A registration that finds no memory is counted and logged at the first use: the log
 * opens after the constructors run. */
static const struct dxcl_extension **registered;
static size_t num_registered;
static const struct dxcl_extension **extensions;
static size_t num_extensions;
static size_t lost_registrations;
static INIT_ONCE exposed_once = INIT_ONCE_STATIC_INIT;

/* Appends `entry` to a growing array of pointers. */
static bool append(const void ***array, size_t *count, const void *entry)
{
    const void **grown = realloc(*array, (*count + 1) * sizeof(**array));

    if (!grown) {
        lost_registrations++;
        return false;
    }
    grown[(*count)++] = entry;
    *array = grown;
    return true;
}

void dxcl_register_extension(const struct dxcl_extension *extension)
{
    append((const void ***)&registered, &num_registered, extension);
}

/* The value of DXCL_FAMILIES, malloc'ed, or NULL when unset. */
static char *families_setting(void)
{
    DWORD size = dxcl_getenv_size("FAMILIES");
    char *list = size ? malloc(size) : NULL;

    if (list && !dxcl_getenv("FAMILIES", list, size)) {
        free(list);
        list = NULL;
    }
    return list;
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
    char *list = families_setting();

    (void)once, (void)param, (void)context;
    if (lost_registrations)
        DXCL_LOG("registry: %zu registrations lost (out of memory at load)", lost_registrations);
    if (num_registered && !(extensions = calloc(num_registered, sizeof(*extensions))))
        DXCL_LOG("registry: no memory for the exposed extensions: none exposed");
    for (size_t i = 0; extensions && i < num_registered; i++)
        if (!list || named_in(list, registered[i]->name))
            extensions[num_extensions++] = registered[i];
    if (list)
        DXCL_LOG("FAMILIES=%s: exposing %zu of %zu extensions", list, num_extensions,
                 num_registered);
    free(list);
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

#include "core/backend.h"

static const struct dxcl_backend **backends;
static size_t num_backends;

void dxcl_register_backend(const struct dxcl_backend *backend)
{
    append((const void ***)&backends, &num_backends, backend);
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
        if (l->released)
            l->released(handle);
}

void dxcl_user_event_set(void)
{
    for (struct dxcl_release_listener *l = release_listeners; l; l = l->next)
        if (l->user_event_set)
            l->user_event_set();
}
