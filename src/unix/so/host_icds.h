/* The host's OpenCL drivers seen from inside a container (docs/proxy.md, "Inside Steam's
 * container"). Steam's pressure-vessel, like Flatpak and distrobox, shows the host's root at
 * /run/host while /usr and /etc are the runtime's: the ICD loader there reads the runtime's
 * /etc/OpenCL/vendors, which has none of the host's drivers. The Unix side opens the ICD loader
 * through dxcl_host_icds_open, which adds the host's vendor files (their libraries rebased
 * under /run/host, with what those need that the container lacks) and takes the host's loader
 * where the container has none. */
#ifndef DXCL_HOST_ICDS_H
#define DXCL_HOST_ICDS_H

#include <stddef.h>

/* Opens the ICD loader `name` (libOpenCL.so.1, or DXCL_UNIX_LIBRARY's) as dlopen would, with
 * the host's drivers added when the process runs in such a container; NULL with `error` set
 * (dlerror's text) when no loader opens. `report` receives one line: where it looked, what it
 * found and used, or why nothing was added (then programs see what the loader alone gives).
 * Not reentrant: one call at a time (the Unix half makes it once). */
void *dxcl_host_icds_open(const char *name, char *error, size_t error_size, char *report,
                          size_t report_size);

#endif
