/* The staging pool of a D3D1x context (dxgi/pool.h). */
#include "dxgi/pool.h"
#include "core/context.h"
#include "core/driver.h"

#include <stdlib.h>
#include <string.h>

/* The per-context staging pool (ctx->backend_data: a list of idle surfaces). */
#define DXCL_DXGI_POOL_MAX 8
static SRWLOCK pool_lock = SRWLOCK_INIT;

/* Twins and staging copies are told apart: `want` says which it wants by its `twin`. */
static bool same_staging(const struct dxcl_dxgi_surface *a, const struct dxcl_dxgi_surface *b)
{
    return a->kind == b->kind && a->format == b->format && a->width == b->width &&
           a->height == b->height && a->depth == b->depth && a->byte_width == b->byte_width &&
           a->lone_plane == b->lone_plane && a->plane == b->plane && !a->twin == !b->twin &&
           a->direct_image == b->direct_image;
}

void dxcl_dxgi_release_kept(struct dxcl_dxgi_surface *s)
{
    for (unsigned i = 0; i < ARRAYSIZE(s->kept); i++)
        if (s->kept[i].handle)
            dxcl_driver()->clReleaseMemObject(s->kept[i].handle);
    memset(s->kept, 0, sizeof(s->kept));
}

/* A pooled surface whose kept driver object was made with `flags` (an object's access): a
 * twin's import, or a staging copy's object. */
static bool kept_fits(const struct dxcl_dxgi_surface *s, cl_mem_flags flags)
{
    if (s->twin)
        return s->twin->cl_import && s->twin->cl_import_flags == flags;
    return s->kept[dxcl_dxgi_kept_slot(flags)].handle != NULL;
}

/* The first idle surface like `want`; one whose kept driver object fits `flags` first. */
bool dxcl_dxgi_pool_take(struct dxcl_context *ctx, struct dxcl_dxgi_surface *want,
                         cl_mem_flags flags)
{
    struct dxcl_dxgi_surface **link, **first = NULL, *found = NULL;

    dxcl_take(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    for (link = (struct dxcl_dxgi_surface **)&ctx->backend_data; *link;
         link = &(*link)->next_pooled) {
        if (!same_staging(*link, want))
            continue;
        if (!first)
            first = link;
        if (kept_fits(*link, flags)) {
            first = link;
            break;
        }
    }
    if (first) {
        found = *first;
        *first = found->next_pooled;
    }
    dxcl_leave(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    if (!found)
        return false;
    want->staging = found->staging;
    want->twin = found->twin;
    want->stable = found->stable;
    want->moved = found->moved;
    memcpy(want->kept, found->kept, sizeof(want->kept));
    free(found);
    return true;
}

static unsigned pool_count(struct dxcl_context *ctx)
{
    unsigned count = 0;

    for (struct dxcl_dxgi_surface *entry = ctx->backend_data; entry; entry = entry->next_pooled)
        count++;
    return count;
}

unsigned dxcl_dxgi_pooled_surfaces(struct dxcl_context *ctx)
{
    unsigned count;

    dxcl_take(&pool_lock, DXCL_LOCK_POOL, false, __func__);
    count = pool_count(ctx);
    dxcl_leave(&pool_lock, DXCL_LOCK_POOL, false, __func__);
    return count;
}

bool dxcl_dxgi_pool_take_twin(struct dxcl_context *ctx, struct dxcl_dxgi_surface *want,
                              cl_mem_flags flags)
{
    struct dxcl_dxgi_twin key = {0};

    want->twin = &key; /* asks for a twin: same_staging tells them apart */
    if (dxcl_dxgi_pool_take(ctx, want, flags))
        return true;
    want->twin = NULL;
    return false;
}

static bool pool_put(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    unsigned count;

    dxcl_take(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    count = pool_count(ctx);
    if (count < DXCL_DXGI_POOL_MAX) {
        s->next_pooled = ctx->backend_data;
        ctx->backend_data = s;
    }
    dxcl_leave(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    return count < DXCL_DXGI_POOL_MAX;
}

bool dxcl_dxgi_pool_put(struct dxcl_context *ctx, struct dxcl_dxgi_surface *s)
{
    return pool_put(ctx, s);
}

/* Puts `s` first in the pool; a full pool gives up its oldest entry, which the caller frees
 * (a program that moves on to other sizes keeps the ones it uses now). */
struct dxcl_dxgi_surface *dxcl_dxgi_pool_put_evicting(struct dxcl_context *ctx,
                                                      struct dxcl_dxgi_surface *s)
{
    struct dxcl_dxgi_surface **link, *evicted = NULL;
    unsigned count = 1;

    dxcl_take(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    s->next_pooled = ctx->backend_data;
    ctx->backend_data = s;
    for (link = &s->next_pooled; *link && count < DXCL_DXGI_POOL_MAX; link = &(*link)->next_pooled)
        count++;
    evicted = *link;
    *link = NULL;
    dxcl_leave(&pool_lock, DXCL_LOCK_POOL, true, __func__);
    return evicted;
}
