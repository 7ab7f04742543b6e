/* The extensions dxcl provides. Each sharing backend adds itself with DXCL_REGISTER_EXTENSION;
 * the extension strings and clGetExtensionFunctionAddress* are answered from here. */
#ifndef DXCL_REGISTRY_H
#define DXCL_REGISTRY_H

#include "core/common.h"

struct dxcl_ext_function {
    const char *name;
    void *address;
};

struct dxcl_extension {
    const char *name;
    cl_version version;
    const struct dxcl_ext_function *functions; /* terminated by {NULL, NULL} */
    /* The context properties naming its interop device (0-terminated), or NULL. */
    const cl_context_properties *context_properties;
    /* An extension with the same tokens and rules whose functions, in the same order, do the
     * same (KHR and NV D3D10/D3D11): a driver that has it serves this one by translation. */
    const struct dxcl_extension *sibling;
    /* An extension that only widens what another's functions accept (no functions of its own:
     * cl_intel_d3d11_nv12_media_sharing on cl_khr_d3d11_sharing): advertised on a platform only
     * where the driver has it or dxcl's copy engine serves `extends` (core/route.h). */
    const struct dxcl_extension *extends;
};

void dxcl_register_extension(const struct dxcl_extension *extension);
/* The extensions dxcl exposes: all registered ones, or those DXCL_FAMILIES names (a comma
 * separated list of extension names; "none" for none). */
size_t dxcl_extension_count(void);
const struct dxcl_extension *dxcl_extension_at(size_t index);
void *dxcl_find_ext_function(const char *name);
/* The exposed extension and function index of an entry point's address (the first extension
 * that lists it), or NULL. */
const struct dxcl_extension *dxcl_extension_of_function(const void *address, size_t *index);

/* Upper layers that must hear of the program's releases (compat/ delivers destructor callbacks
 * the driver drops). Registered at DLL load, so core needs no include of theirs. */
struct dxcl_release_listener {
    /* Optional: after the program's successful clRelease of a cl_mem, cl_context or
     * cl_command_queue. */
    void (*released)(const void *handle);
    /* Optional: after the program set a user event (work waiting for it may go on now). */
    void (*user_event_set)(void);
    struct dxcl_release_listener *next; /* the registry's */
};
void dxcl_listen_to_releases(struct dxcl_release_listener *listener);
/* Tells every listener. */
void dxcl_released(const void *handle);
void dxcl_user_event_set(void);

#define DXCL_LISTEN_TO_RELEASES(var)                                                               \
    __attribute__((constructor)) static void dxcl_listen_##var(void)                               \
    {                                                                                              \
        dxcl_listen_to_releases(&var);                                                             \
    }

/* Registration at DLL load: backends need no central list to appear in. */
#define DXCL_REGISTER_EXTENSION(var)                                                               \
    __attribute__((constructor)) static void dxcl_register_##var(void)                             \
    {                                                                                              \
        dxcl_register_extension(&var);                                                             \
    }

#endif
