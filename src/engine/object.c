/* The engine's state of a context (engine/object.h), attached to the core's record as one of
 * its parts. */
#include "engine/object.h"
#include "core/driver.h"

#include <stdlib.h>

static void free_engine_context(struct dxcl_context_part *part)
{
    struct dxcl_engine_context *engine = (struct dxcl_engine_context *)part;

    if (engine->own_queue)
        dxcl_driver()->clReleaseCommandQueue(engine->own_queue);
    if (engine->convert_program)
        dxcl_driver()->clReleaseProgram(engine->convert_program);
    free(engine);
}

static const struct dxcl_context_part_kind engine_context_kind = {free_engine_context};

struct dxcl_engine_context *dxcl_engine_context(struct dxcl_context *ctx)
{
    struct dxcl_context_part *part = dxcl_context_part(ctx, &engine_context_kind);
    struct dxcl_engine_context *made;

    if (part)
        return (struct dxcl_engine_context *)part;
    if (!(made = calloc(1, sizeof(*made))))
        return NULL;
    made->part.kind = &engine_context_kind;
    if ((part = dxcl_context_add_part(ctx, &made->part)) != &made->part)
        free(made); /* another thread's came first */
    return (struct dxcl_engine_context *)part;
}
