/* The config file reader (config.h): pure C, compiled into OpenCL.dll and into the host-side
 * libraries alike. */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest config file read: far more than its 64 settings need. */
#define DXCL_CONFIG_FILE_LIMIT (64 * 1024)

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool same_text(const char *a, const char *b)
{
    while (*a && lower(*a) == lower(*b))
        a++, b++;
    return lower(*a) == lower(*b);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Cuts the blanks around s (in place) and returns its first character. */
static char *trim(char *s)
{
    size_t len;

    while (is_space(*s))
        s++;
    len = strlen(s);
    while (len && is_space(s[len - 1]))
        s[--len] = 0;
    return s;
}

static bool valid_name(const char *name)
{
    if (!*name)
        return false;
    for (; *name; name++)
        if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') ||
              (*name >= '0' && *name <= '9') || *name == '_'))
            return false;
    return true;
}

const char *dxcl_config_base_name(const char *path)
{
    const char *base = path;

    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    return base;
}

static void note_problem(struct dxcl_config *config, unsigned line, const char *why)
{
    if (!config->problem[0])
        snprintf(config->problem, sizeof(config->problem), "line %u: %s", line, why);
}

static void set_value(struct dxcl_config *config, unsigned line, const char *name,
                      const char *value)
{
    unsigned i;

    if (strlen(name) >= DXCL_CONFIG_NAME_SIZE || strlen(value) >= DXCL_CONFIG_VALUE_SIZE) {
        note_problem(config, line, "name or value too long");
        return;
    }
    for (i = 0; i < config->count && !same_text(config->settings[i].name, name); i++)
        ;
    if (i == DXCL_CONFIG_SETTINGS) {
        note_problem(config, line, "too many settings");
        return;
    }
    if (i == config->count)
        config->count++;
    strcpy(config->settings[i].name, name);
    strcpy(config->settings[i].value, value);
}

/* One line, cut out of the text: a section header changes *applies, a setting is kept when
 * it applies. */
static void parse_line(struct dxcl_config *config, char *line, unsigned number, const char *program,
                       bool *applies)
{
    char *equals, *name, *value;
    size_t len;

    line = trim(line);
    if (!*line || *line == '#' || *line == ';')
        return;
    len = strlen(line);
    if (*line == '[') {
        if (line[len - 1] != ']') {
            note_problem(config, number, "a section needs [program.exe]");
            *applies = false;
            return;
        }
        line[len - 1] = 0;
        name = trim(line + 1);
        *applies = !strcmp(name, "*") || (*program && same_text(name, program));
        return;
    }
    if (!(equals = strchr(line, '='))) {
        note_problem(config, number, "no '=' (want NAME = value)");
        return;
    }
    *equals = 0;
    name = trim(line);
    value = trim(equals + 1);
    len = strlen(value);
    if (len >= 2 && value[0] == '"' && value[len - 1] == '"') {
        value[len - 1] = 0;
        value++;
    }
    if (!valid_name(name))
        note_problem(config, number, "a name is letters, digits and '_' (DXCL_LOG_LEVEL)");
    else if (*applies)
        set_value(config, number, name, value);
}

void dxcl_config_parse(struct dxcl_config *config, const char *text, const char *program)
{
    char line[1024];
    unsigned number = 0;
    bool applies = true;

    memset(config, 0, sizeof(*config));
    program = program ? dxcl_config_base_name(program) : "";
    while (*text) {
        size_t len = strcspn(text, "\n");

        number++;
        if (len >= sizeof(line))
            note_problem(config, number, "line too long");
        else {
            memcpy(line, text, len);
            line[len] = 0;
            parse_line(config, line, number, program, &applies);
        }
        text += len + (text[len] == '\n');
    }
}

bool dxcl_config_read(struct dxcl_config *config, FILE *file, const char *program)
{
    char *text = malloc(DXCL_CONFIG_FILE_LIMIT + 1);
    size_t len;

    if (!text) {
        memset(config, 0, sizeof(*config));
        strcpy(config->problem, "no memory to read the file");
        return false;
    }
    len = fread(text, 1, DXCL_CONFIG_FILE_LIMIT, file);
    text[len] = 0;
    dxcl_config_parse(config, text, program);
    free(text);
    return true;
}

bool dxcl_config_load(struct dxcl_config *config, const char *path, const char *program)
{
    FILE *file = fopen(path, "rb");
    bool read;

    if (!file) {
        memset(config, 0, sizeof(*config));
        snprintf(config->problem, sizeof(config->problem), "cannot open %s", path);
        return false;
    }
    read = dxcl_config_read(config, file, program);
    fclose(file);
    return read;
}

const char *dxcl_config_find(const struct dxcl_config *config, const char *name)
{
    for (unsigned i = 0; i < config->count; i++)
        if (same_text(config->settings[i].name, name))
            return config->settings[i].value;
    return NULL;
}
