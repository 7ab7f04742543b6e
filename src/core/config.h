/* dxcl's config file (DXCL_CONFIG names it; docs/deploy.md, "The config file"), in the style
 * of dxvk.conf: `NAME = value` lines, where NAME is a setting's environment variable
 * (DXCL_LOG_LEVEL, DXCL_GPU_DIRECT, ...), and `[program.exe]` sections whose lines apply to
 * that program only. Pure C (stdio and string.h only): OpenCL.dll (mingw) and the host-side
 * libraries (dxclunix.so, the Vulkan layer) compile the same file; each reads the file once
 * and keeps what applies to its program. */
#ifndef DXCL_CONFIG_H
#define DXCL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DXCL_CONFIG_SETTINGS 64
#define DXCL_CONFIG_NAME_SIZE 64
#define DXCL_CONFIG_VALUE_SIZE 520

struct dxcl_config_setting {
    char name[DXCL_CONFIG_NAME_SIZE];
    char value[DXCL_CONFIG_VALUE_SIZE];
};

/* The settings that apply to one program: those before the first section and those of the
 * sections that name it ([*] names every program), a later line of a name replacing an earlier
 * one. `problem` holds the first line the reader skipped and why ("" when none). */
struct dxcl_config {
    unsigned count;
    struct dxcl_config_setting settings[DXCL_CONFIG_SETTINGS];
    char problem[160];
};

/* Reads the settings of `text` (a whole file, 0-terminated) for `program` (its file name or
 * path, Windows or Unix; NULL or "": the settings outside sections only). */
void dxcl_config_parse(struct dxcl_config *config, const char *text, const char *program);

/* Reads an open file (up to 64 KiB) as above: false, with `problem` set, without memory. */
bool dxcl_config_read(struct dxcl_config *config, FILE *file, const char *program);

/* Reads the file `path` as above: false, with `problem` saying why, when it cannot be read. */
bool dxcl_config_load(struct dxcl_config *config, const char *path, const char *program);

/* The value of setting `name` (matched without regard to case), or NULL when the file has none. */
const char *dxcl_config_find(const struct dxcl_config *config, const char *name);

/* The file name part of a Windows or Unix path (after the last '\\' or '/'). */
const char *dxcl_config_base_name(const char *path);

#endif
