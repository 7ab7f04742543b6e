/* Lazy uploads: an acquire leaves an eligible object's Direct3D contents where they are, and
 * the first command that touches the object decides. A command that overwrites all of it
 * (a whole-object write, fill, copy into it, or write-invalidate map) needs none of them: the
 * Direct3D read and the upload are skipped and only the staging memory is mapped for the
 * release. Any other command first reads the resource and queues the upload on its own queue,
 * behind a barrier. An object no command touches is neither read nor written back.
 * Every family and format: for D3D10/D3D11 an overwrite also skips copying the resource into
 * the staging texture; a DX9 surface is locked either way (the lock is the read), and an
 * emulated format skips its conversion with the upload. DXCL_LAZY=0 turns it off. */
#ifndef DXCL_LAZY_H
#define DXCL_LAZY_H

#include "core/memobj.h"

/* Whether an acquire may defer `mem`'s upload. */
bool dxcl_lazy_eligible(const struct dxcl_memobj *mem);
/* The first touch of an acquired object whose upload was deferred, by a command about to be
 * queued on `queue`. */
cl_int dxcl_lazy_touch(cl_command_queue queue, struct dxcl_memobj *mem, bool overwrites,
                       const char *caller);
/* A later command on another queue than the one the deferred upload went to: orders `queue`
 * after that upload. */
cl_int dxcl_lazy_order(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller);

#endif
