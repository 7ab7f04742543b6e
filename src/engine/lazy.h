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

/* False when DXCL_LAZY=0 turns lazy uploads off for every object. */
bool dxcl_lazy_allowed(void);
/* Whether an acquire may defer `mem`'s upload: every object, but one on the GPU path only with
 * DXCL_GPU_LAZY=1. */
bool dxcl_lazy_eligible(const struct dxcl_memobj *mem);
/* Before a command that uses the object on `queue` is queued: the first one after the acquire
 * brings in the Direct3D contents and queues their upload on `queue`; a later one on another
 * queue is ordered after that upload. Not for a command that overwrites all of an untouched
 * object: see dxcl_lazy_overwrite. */
cl_int dxcl_lazy_touch(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller);

/* Before a command that overwrites all of an object no command touched since the acquire
 * reaches the driver: a copied object's surface is only mapped (for the release to download
 * into), nothing read from Direct3D nor uploaded; a zero-copy object's storage (the staging
 * memory) goes to the driver, the resource copied into it first, so that the staging resource is
 * never mapped unwritten (DXVK may give a small staging resource new memory at such a map). A
 * failure fails the command before the driver sees it: no write is lost. *prepared says whether
 * it did this (another thread's touch may have come first). Tentative: see dxcl_lazy_rejected. */
cl_int dxcl_lazy_overwrite(cl_command_queue queue, struct dxcl_memobj *mem, const char *caller,
                           bool *prepared);
/* The driver refused the command dxcl_lazy_overwrite prepared the object for: it holds none of
 * the resource's contents, so the next command that touches it reads them in first (for a
 * zero-copy object that waits for the commands queued before it: a rare error path). */
void dxcl_lazy_rejected(struct dxcl_memobj *mem);

#endif
