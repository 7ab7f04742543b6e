/* The ground of dxcl's Vulkan layer (base.c): what every other file of it uses, and which uses
 * none of them. Internal to libdxcl_vk_layer.so. */
#ifndef DXCL_LAYER_BASE_H
#define DXCL_LAYER_BASE_H

#include "core/twin.h"

#include <vulkan/vulkan.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A line on stderr where DXCL_LOG is set. */
void layer_note(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* Fills `error` (where given) and says it; returns `result`. */
int32_t layer_fail(struct dxcl_layer_error *error, int32_t result, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* A structure of `type` in a pNext chain, or NULL. */
const void *layer_chained(const void *next, VkStructureType type);
/* DXCL_LAYER_FAULT names `point`: the layer fails there as a driver may (for the tests). */
bool layer_fault(const char *point);
/* The host setting `name` as a positive whole number, or `fallback` where it is unset, empty,
 * zero or not a number. */
uint64_t layer_setting_count(const char *name, uint64_t fallback);
/* Room for one more item in a growing array of `count` items of `size` bytes, `*capacity`
 * allocated: the array, grown where it is full (twice its capacity, or `first` items), or NULL
 * where out of memory (the array stays as it was). */
void *layer_room(void *items, size_t count, size_t *capacity, size_t size, size_t first);
/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t layer_now_ns(void);

#endif
