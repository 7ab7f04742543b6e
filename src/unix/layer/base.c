/* What every file of dxcl's Vulkan layer uses (base.h): its log line, its failures, its fault
 * points, pNext chains, its numeric settings, its growing arrays and the clock. */
#define _GNU_SOURCE
#include "base.h"
#include "unix/host_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void layer_note(const char *format, ...)
{
    va_list args;

    if (!dxcl_host_setting("DXCL_LOG"))
        return;
    va_start(args, format);
    fputs("dxcl vk layer: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
}

uint64_t layer_setting_count(const char *name, uint64_t fallback)
{
    const char *setting = dxcl_host_setting(name);
    char *end;
    unsigned long long value;

    if (!setting || !*setting)
        return fallback;
    value = strtoull(setting, &end, 10);
    return *end || !value ? fallback : value;
}

int32_t layer_fail(struct dxcl_layer_error *error, int32_t result, const char *format, ...)
{
    char text[sizeof(error->text)];
    va_list args;

    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    if (error) {
        error->result = result;
        memcpy(error->text, text, sizeof(text));
    }
    layer_note("%s", text);
    return result;
}

const void *layer_chained(const void *next, VkStructureType type)
{
    const VkBaseInStructure *link = next;

    while (link && link->sType != type)
        link = link->pNext;
    return link;
}

bool layer_fault(const char *point)
{
    const char *setting = dxcl_host_setting("DXCL_LAYER_FAULT");

    return setting && !strcmp(setting, point);
}

void *layer_room(void *items, size_t count, size_t *capacity, size_t size, size_t first)
{
    size_t grown_capacity = *capacity ? 2 * *capacity : first;
    void *grown;

    if (count < *capacity)
        return items;
    if (!(grown = realloc(items, grown_capacity * size)))
        return NULL;
    *capacity = grown_capacity;
    return grown;
}

uint64_t layer_now_ns(void)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
