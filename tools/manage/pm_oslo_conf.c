/* Licensed under the Apache License, Version 2.0.
 *
 * pm_oslo_conf.c: placement.conf read as oslo.config reads it, the one
 * reader every verb of the tool uses. The rules are oslo.config's
 * (iniparser.py, cfg.py's ConfigParser and _parse_config_files):
 *  - a line is right-stripped; a blank one ends a value;
 *  - a line starting with a space or tab continues the value before it
 *    (its text left-stripped, joined with "\n"); with no value open it is
 *    an error;
 *  - "[name]" starts a section; the line must end with ']' and the name
 *    must not be empty; names other than DEFAULT are compared lowercased;
 *  - a line starting with '#' or ';' is a comment (nowhere else: a '#'
 *    after a value belongs to the value);
 *  - "key = value" or "key: value", split at whichever of '=' and ':'
 *    comes first; key and value stripped; a value quoted with the same
 *    quote at both ends loses the quotes; an empty key is an error, and
 *    so is a key before any section;
 *  - a key given twice: the last counts (all of them for a list option).
 * Files: without --config-file, the first placement.conf found in
 * ~/.placement/, ~/, /etc/placement/, /etc/; without --config-dir, the
 * first placement.conf.d there (a missing one is fine); then each
 * --config-file and --config-dir in command-line order, a directory's
 * *.conf files (not hidden ones) in name order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <apr_file_info.h>
#include <apr_tables.h>
#include "pm.h"

pm_conf_t *pm_conf_make(apr_pool_t *p)
{
    pm_conf_t *conf = apr_pcalloc(p, sizeof(*conf));

    conf->items = apr_array_make(p, 32, sizeof(pm_conf_item_t));
    conf->files = apr_array_make(p, 4, sizeof(const char *));
    return conf;
}

/* oslo's _normalize_group_name: DEFAULT as it is, others lowercased */
static char *normalize_section(apr_pool_t *p, const char *name)
{
    char *s = apr_pstrdup(p, name), *c;

    if (strcmp(s, "DEFAULT") != 0) {
        for (c = s; *c; c++) {
            *c = (char)apr_tolower(*c);
        }
    }
    return s;
}

static char *strip(char *s)
{
    apr_size_t n;

    while (apr_isspace(*s)) {
        s++;
    }
    n = strlen(s);
    while (n > 0 && apr_isspace(s[n - 1])) {
        s[--n] = '\0';
    }
    return s;
}

/* The parser's state for one file */
typedef struct reader_t {
    apr_pool_t *p;
    pm_conf_t *conf;
    const char *file;
    const char *section;  /* NULL before the first header */
    pm_conf_item_t *open; /* the assignment a continuation would extend */
    int line;
} reader_t;

static const char *line_error(reader_t *r, const char *msg)
{
    return apr_psprintf(r->p, "%s:%d: %s", r->file, r->line, msg);
}

/* One right-stripped, non-blank line that is not a continuation */
static const char *parse_line(reader_t *r, char *line)
{
    char *colon, *equal, *split, *key, *value;
    apr_size_t n;
    pm_conf_item_t *item;

    if (line[0] == '[') {
        n = strlen(line);
        if (line[n - 1] != ']') {
            return line_error(r, "invalid section (must end with ])");
        }
        if (n <= 2) {
            return line_error(r, "empty section name");
        }
        line[n - 1] = '\0';
        r->section = normalize_section(r->p, line + 1);
        return NULL;
    }
    if (line[0] == '#' || line[0] == ';') {
        return NULL;
    }
    colon = strchr(line, ':');
    equal = strchr(line, '=');
    if (colon == NULL && equal == NULL) {
        return line_error(r, "no ':' or '=' found in assignment");
    }
    split = colon == NULL || (equal != NULL && equal < colon) ? equal : colon;
    *split = '\0';
    key = strip(line);
    value = strip(split + 1);
    n = strlen(value);
    if (n > 0 && (value[0] == '"' || value[0] == '\'') &&
        value[n - 1] == value[0]) {
        value[n - 1] = '\0'; /* one quote alone becomes empty, as in oslo */
        value = n > 1 ? value + 1 : value + n - 1;
    }
    if (!*key) {
        return line_error(r, "key cannot be empty");
    }
    if (r->section == NULL) {
        return line_error(r, "section must be started before assignment");
    }
    item = apr_array_push(r->conf->items);
    item->section = r->section;
    item->key = apr_pstrdup(r->p, key);
    item->value = apr_pstrdup(r->p, value);
    item->file = r->file;
    item->line = r->line;
    r->open = item;
    return NULL;
}

const char *pm_conf_read_text(apr_pool_t *p, pm_conf_t *conf, const char *file,
                              const char *text)
{
    reader_t r = { p, conf, file, NULL, NULL, 0 };
    const char *s = text;

    while (*s) {
        apr_size_t len = strcspn(s, "\n");
        char *line = apr_pstrmemdup(p, s, len);
        apr_size_t n = len;
        const char *err;

        s += len + (s[len] == '\n');
        r.line++;
        while (n > 0 && apr_isspace(line[n - 1])) {
            line[--n] = '\0';
        }
        if (n == 0) {
            r.open = NULL; /* a blank line ends a value */
            continue;
        }
        if (line[0] == ' ' || line[0] == '\t') {
            if (r.open == NULL) {
                return line_error(&r, "unexpected continuation line");
            }
            r.open->value = apr_pstrcat(p, r.open->value, "\n", strip(line),
                                        NULL);
            continue;
        }
        r.open = NULL;
        err = parse_line(&r, line);
        if (err != NULL) {
            return err;
        }
    }
    APR_ARRAY_PUSH(conf->files, const char *) = file;
    return NULL;
}

const char *pm_conf_read_file(apr_pool_t *p, pm_conf_t *conf, const char *file)
{
    FILE *f = fopen(file, "r");
    char buf[8192];
    apr_size_t n, len = 0, cap = sizeof(buf);
    char *text = apr_palloc(p, cap);

    if (f == NULL) {
        return apr_psprintf(p, "%s: cannot read: %s", file, strerror(errno));
    }
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        if (len + n + 1 > cap) {
            char *more;
            cap = 2 * (len + n + 1);
            more = apr_palloc(p, cap);
            memcpy(more, text, len);
            text = more;
        }
        memcpy(text + len, buf, n);
        len += n;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        return apr_psprintf(p, "%s: cannot read: %s", file, strerror(e));
    }
    fclose(f);
    text[len] = '\0';
    if (strlen(text) != len) {
        return apr_psprintf(p, "%s: cannot read: a NUL byte in the file", file);
    }
    return pm_conf_read_text(p, conf, file, text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *pm_conf_read_dir(apr_pool_t *p, pm_conf_t *conf, const char *dir)
{
    apr_dir_t *d;
    apr_finfo_t fi;
    apr_array_header_t *names = apr_array_make(p, 8, sizeof(const char *));
    apr_status_t rv;
    char err[120];
    int i;

    rv = apr_dir_open(&d, dir, p);
    if (rv != APR_SUCCESS) {
        return apr_psprintf(p, "%s: cannot read the directory: %s", dir,
                            apr_strerror(rv, err, sizeof(err)));
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME, d) == APR_SUCCESS) {
        apr_size_t n = strlen(fi.name);
        /* glob's "*.conf": hidden files are not matched */
        if (fi.name[0] != '.' && n > 5 && !strcmp(fi.name + n - 5, ".conf")) {
            APR_ARRAY_PUSH(names, const char *) = apr_pstrdup(p, fi.name);
        }
    }
    apr_dir_close(d);
    qsort(names->elts, names->nelts, sizeof(const char *), by_name);
    for (i = 0; i < names->nelts; i++) {
        const char *e = pm_conf_read_file(
            p, conf,
            apr_pstrcat(p, dir, "/", APR_ARRAY_IDX(names, i, const char *),
                        NULL));
        if (e != NULL) {
            return e;
        }
    }
    return NULL;
}

/* oslo's search for a default file or directory: the first that exists */
static const char *search_default(apr_pool_t *p, const char *name)
{
    const char *home = getenv("HOME");
    const char *dirs[4];
    struct stat st;
    int i, n = 0;

    if (home != NULL && *home) {
        dirs[n++] = apr_pstrcat(p, home, "/.placement", NULL);
        dirs[n++] = home;
    }
    dirs[n++] = "/etc/placement";
    dirs[n++] = "/etc";
    for (i = 0; i < n; i++) {
        const char *path = apr_pstrcat(p, dirs[i], "/", name, NULL);
        if (stat(path, &st) == 0) {
            return path;
        }
    }
    return NULL;
}

const char *pm_conf_load(apr_pool_t *p, const apr_array_header_t *sources,
                         pm_conf_t **pconf)
{
    pm_conf_t *conf = pm_conf_make(p);
    int i, any_file = 0, any_dir = 0;
    const char *err = NULL, *path;

    for (i = 0; i < sources->nelts; i++) {
        const pm_conf_source_t *s = &APR_ARRAY_IDX(sources, i,
                                                   pm_conf_source_t);
        any_file |= !s->is_dir;
        any_dir |= s->is_dir;
    }
    if (!any_file && (path = search_default(p, "placement.conf")) != NULL) {
        err = pm_conf_read_file(p, conf, path);
    }
    if (err == NULL && !any_dir &&
        (path = search_default(p, "placement.conf.d")) != NULL) {
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            err = pm_conf_read_dir(p, conf, path);
        }
    }
    for (i = 0; err == NULL && i < sources->nelts; i++) {
        const pm_conf_source_t *s = &APR_ARRAY_IDX(sources, i,
                                                   pm_conf_source_t);
        err = s->is_dir ? pm_conf_read_dir(p, conf, s->path)
                        : pm_conf_read_file(p, conf, s->path);
    }
    *pconf = conf;
    return err;
}

const pm_conf_item_t *pm_conf_get(const pm_conf_t *conf, const char *section,
                                  const char *key)
{
    int i;

    for (i = conf->items->nelts - 1; i >= 0; i--) {
        const pm_conf_item_t *it = &APR_ARRAY_IDX(conf->items, i,
                                                  pm_conf_item_t);
        if (!strcmp(it->section, section) && !strcmp(it->key, key)) {
            return it;
        }
    }
    return NULL;
}

apr_array_header_t *pm_conf_get_all(apr_pool_t *p, const pm_conf_t *conf,
                                    const char *section, const char *key)
{
    apr_array_header_t *out = apr_array_make(p, 2,
                                             sizeof(const pm_conf_item_t *));
    int i;

    for (i = 0; i < conf->items->nelts; i++) {
        const pm_conf_item_t *it = &APR_ARRAY_IDX(conf->items, i,
                                                  pm_conf_item_t);
        if (!strcmp(it->section, section) && !strcmp(it->key, key)) {
            APR_ARRAY_PUSH(out, const pm_conf_item_t *) = it;
        }
    }
    return out;
}

const char *pm_conf_files_shown(apr_pool_t *p, const pm_conf_t *conf)
{
    const char *s = NULL;
    int i;

    for (i = 0; i < conf->files->nelts; i++) {
        const char *f = APR_ARRAY_IDX(conf->files, i, const char *);
        s = s == NULL ? f : apr_pstrcat(p, s, ", ", f, NULL);
    }
    return s != NULL ? s : "no placement.conf";
}

/* oslo.config expands $name and ${name} (name: an option of [DEFAULT] or
 * group.option) in string values when they are read; $$ is a dollar
 * sign. A name that is not set is an error there too. depth bounds
 * values that refer to each other. */
static const char *substitute(apr_pool_t *p, const pm_conf_t *conf,
                              const pm_conf_item_t *it, const char *v,
                              int depth, const char **perr)
{
    const char *out = "";

    while (*v) {
        const char *dollar = strchr(v, '$'), *end;
        const char *name, *sub, *dot;
        const pm_conf_item_t *ref;
        if (dollar == NULL) {
            return apr_pstrcat(p, out, v, NULL);
        }
        out = apr_pstrcat(p, out, apr_pstrmemdup(p, v, dollar - v), NULL);
        if (dollar[1] == '$') {
            out = apr_pstrcat(p, out, "$", NULL);
            v = dollar + 2;
            continue;
        }
        if (dollar[1] == '{') {
            end = strchr(dollar + 2, '}');
            if (end == NULL) {
                *perr = apr_psprintf(p, "%s:%d: [%s] %s: '${' without '}'",
                                     it->file, it->line, it->section, it->key);
                return NULL;
            }
            name = apr_pstrmemdup(p, dollar + 2, end - dollar - 2);
            v = end + 1;
        }
        else {
            end = dollar + 1;
            while (apr_isalnum(*end) || *end == '_' || *end == '.') {
                end++;
            }
            name = apr_pstrmemdup(p, dollar + 1, end - dollar - 1);
            v = end;
        }
        dot = strchr(name, '.');
        ref = !*name ? NULL
              : dot  ? pm_conf_get(conf, apr_pstrmemdup(p, name, dot - name),
                                   dot + 1)
                     : pm_conf_get(conf, "DEFAULT", name);
        if (ref == NULL || depth > 8) {
            *perr = apr_psprintf(p,
                                 "%s:%d: [%s] %s: $%s names no option set in "
                                 "the configuration (oslo.config expands "
                                 "$NAME; write $$ for a dollar sign)",
                                 it->file, it->line, it->section, it->key,
                                 name);
            return NULL;
        }
        sub = substitute(p, conf, ref, ref->value, depth + 1, perr);
        if (sub == NULL) {
            return NULL;
        }
        out = apr_pstrcat(p, out, sub, NULL);
    }
    return out;
}

const char *pm_conf_value(apr_pool_t *p, const pm_conf_t *conf,
                          const pm_conf_item_t *it, const char **perr)
{
    return substitute(p, conf, it, it->value, 0, perr);
}
