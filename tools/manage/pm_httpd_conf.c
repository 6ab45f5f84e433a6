/* Licensed under the Apache License, Version 2.0.
 *
 * pm_httpd_conf.c: --config FILE, httpd's configuration read as httpd
 * reads it, for the module's DBDriver and DBDParams lines (and
 * PlacementIncompleteConsumer*, PlacementPolicyFile,
 * PlacementStandardTraitsFile):
 *  - Include and IncludeOptional are followed: a relative path is
 *    relative to ServerRoot (the directory of FILE until a ServerRoot line
 *    says otherwise); wildcards in any part of the path; the matches of a
 *    wildcard, and the files of an included directory (read recursively),
 *    in strcmp order, as httpd sorts them; Include of a missing file or of
 *    a wildcard that matches nothing is an error, IncludeOptional's is
 *    not; a file that includes itself (directly or not) is an error, and
 *    nesting stops at httpd's depth of 128;
 *  - a line ending in '\' goes on on the next line; '#' at the start of a
 *    line makes it a comment; arguments may be quoted ("..." or '...',
 *    \" and \\ inside), as ap_getword_conf reads them;
 *  - <VirtualHost> sections are servers of their own: a directive there
 *    is theirs, one outside is the main server's, which virtual hosts
 *    inherit (mod_dbd merges DBDriver and DBDParams one by one). Other
 *    sections (<IfModule>, <IfDefine>, <Location>...) are read as if their
 *    condition held; ${VAR} is not replaced.
 * Which database, when several servers have one: those of the servers
 * that serve the module (SetHandler or AddHandler placement in their
 * scope) or, when none does, of every server with DBD lines. One database
 * among them (the same driver and parameters) is the answer; several are
 * refused with the list, and --vhost NAME (a ServerName, the address of a
 * <VirtualHost>, or "main" for the main server) picks one.
 * Within one scope the last line of a directive counts, as in httpd.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <apr_file_io.h>
#include <apr_file_info.h>
#include <apr_fnmatch.h>
#include <apr_tables.h>
#include "pm.h"

#define PM_MAX_INCLUDE_DEPTH 128 /* httpd's AP_MAX_INCLUDE_DEPTH */

/** A server of the configuration: the main one or a <VirtualHost>. */
typedef struct conf_server_t {
    const char *addr;        /* the <VirtualHost> argument; NULL: main */
    const char *server_name; /* its ServerName, or NULL */
    const char *driver, *params;
    const char *dbd_at; /* file:line of its last DBDriver/DBDParams */
    int handler;        /* SetHandler/AddHandler placement in its scope */
    const char *incomplete_project, *incomplete_user, *policy_file;
    const char *std_traits_file;
} conf_server_t;

/** The state of one read, across included files. */
typedef struct conf_reader_t {
    apr_pool_t *p;
    const char *server_root;
    apr_array_header_t *servers; /* conf_server_t *; [0] the main server */
    conf_server_t *cur;          /* where directives go now */
    apr_array_header_t *reading; /* apr_finfo_t of the files being read */
    int depth;
} conf_reader_t;

static const char *read_path(conf_reader_t *r, const char *path, int optional,
                             const char *at);

/* One argument as ap_getword_conf takes it: quoted ("..." or '...') or up
 * to the next blank; \\ is a backslash, \" (\') the quote. *s moves past
 * it. NULL when the line has no more. */
static char *conf_word(apr_pool_t *p, const char **s)
{
    const char *c = *s;
    char *out, *o, q = 0;

    while (apr_isspace(*c)) {
        c++;
    }
    if (!*c) {
        *s = c;
        return NULL;
    }
    out = o = apr_palloc(p, strlen(c) + 1);
    if (*c == '"' || *c == '\'') {
        q = *c++;
    }
    while (*c && (q ? *c != q : !apr_isspace(*c))) {
        if (*c == '\\' && (c[1] == '\\' || (q && c[1] == q))) {
            c++;
        }
        *o++ = *c++;
    }
    if (q && *c) {
        c++;
    }
    *o = 0;
    *s = c;
    return out;
}

static int has_wildcard(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir (not . or ..) that pattern matches (all when NULL;
 * dirs_only: only directories), sorted, as full paths; NULL if dir cannot
 * be read. */
static apr_array_header_t *dir_entries(apr_pool_t *p, const char *dir,
                                       const char *pattern, int dirs_only)
{
    apr_array_header_t *names = apr_array_make(p, 16, sizeof(char *));
    apr_dir_t *d;
    apr_finfo_t fi;

    if (apr_dir_open(&d, dir, p) != APR_SUCCESS) {
        return NULL;
    }
    /* the name only: apr_dir_read says APR_INCOMPLETE when it cannot
     * tell the type without a stat of its own */
    while (apr_dir_read(&fi, APR_FINFO_NAME, d) == APR_SUCCESS) {
        const char *full;
        apr_finfo_t st;
        if (!strcmp(fi.name, ".") || !strcmp(fi.name, "..")) {
            continue;
        }
        if (pattern != NULL &&
            apr_fnmatch(pattern, fi.name, APR_FNM_PERIOD) != APR_SUCCESS) {
            continue;
        }
        full = apr_pstrcat(p, dir, strcmp(dir, "/") ? "/" : "", fi.name, NULL);
        if (dirs_only &&
            (apr_stat(&st, full, APR_FINFO_TYPE, p) != APR_SUCCESS ||
             st.filetype != APR_DIR)) {
            continue;
        }
        APR_ARRAY_PUSH(names, const char *) = full;
    }
    apr_dir_close(d);
    qsort(names->elts, names->nelts, sizeof(char *), by_name);
    return names;
}

/* A wildcard path: the directory before its first wildcard component,
 * that component matched against the directory's entries, the rest
 * applied to each match in order. *matched counts the files read. */
static const char *read_wildcard(conf_reader_t *r, const char *dir,
                                 const char *rest, int optional, const char *at,
                                 int *matched)
{
    const char *slash = strchr(rest, '/');
    const char *part = slash ? apr_pstrmemdup(r->p, rest, slash - rest) : rest;
    apr_array_header_t *names;
    int i;

    if (!has_wildcard(part)) { /* a plain component: go down, or read */
        const char *down = apr_pstrcat(r->p, dir, "/", part, NULL);
        apr_finfo_t fi;
        if (slash != NULL) {
            return read_wildcard(r, down, slash + 1, optional, at, matched);
        }
        if (apr_stat(&fi, down, APR_FINFO_TYPE, r->p) != APR_SUCCESS) {
            return NULL; /* not there: no match */
        }
        (*matched)++;
        return read_path(r, down, optional, at);
    }
    names = dir_entries(r->p, dir, part, slash != NULL);
    if (names == NULL) {
        return NULL; /* no such directory: nothing matches there */
    }
    for (i = 0; i < names->nelts; i++) {
        const char *name = APR_ARRAY_IDX(names, i, char *);
        const char *err = slash != NULL ? read_wildcard(r, name, slash + 1,
                                                        optional, at, matched)
                                        : read_path(r, name, optional, at);
        if (err != NULL) {
            return err;
        }
        if (slash == NULL) {
            (*matched)++;
        }
    }
    return NULL;
}

/* Include / IncludeOptional ARG, written at `at` */
static const char *read_include(conf_reader_t *r, const char *arg, int optional,
                                const char *at)
{
    const char *path = arg[0] == '/'
                           ? arg
                           : apr_pstrcat(r->p, r->server_root, "/", arg, NULL);
    const char *slash;
    int matched = 0;

    if (!has_wildcard(path)) {
        return read_path(r, path, optional, at);
    }
    /* the longest part without a wildcard is the directory to start in */
    slash = path;
    while (strchr(slash, '/') != NULL &&
           strcspn(slash, "*?[") > (size_t)(strchr(slash, '/') - slash)) {
        slash = strchr(slash, '/') + 1;
    }
    {
        const char *dir = slash - path > 1
                              ? apr_pstrmemdup(r->p, path, slash - path - 1)
                              : "/";
        const char *err = read_wildcard(r, dir, slash, optional, at, &matched);
        if (err != NULL) {
            return err;
        }
    }
    if (matched == 0 && !optional) {
        return apr_psprintf(r->p, "%s: Include %s matches no file", at, arg);
    }
    return NULL;
}

/* A directive of the configuration, its name and the rest of its line */
static const char *directive(conf_reader_t *r, const char *name,
                             const char *args, const char *at)
{
    conf_server_t *s = r->cur;
    const char *a = args;
    char *v = conf_word(r->p, &a);

    if (name[0] == '<') {
        if (!strcasecmp(name, "<VirtualHost")) {
            conf_server_t *vh = apr_pcalloc(r->p, sizeof(*vh));
            char *addr = v != NULL ? v : apr_pstrdup(r->p, "");
            addr[strcspn(addr, ">")] = 0;
            vh->addr = addr;
            APR_ARRAY_PUSH(r->servers, conf_server_t *) = vh;
            r->cur = vh;
        }
        else if (!strncasecmp(name, "</VirtualHost", 13)) {
            r->cur = APR_ARRAY_IDX(r->servers, 0, conf_server_t *);
        }
        return NULL; /* other sections: read as if their condition held */
    }
    if (!strcasecmp(name, "Include") || !strcasecmp(name, "IncludeOptional")) {
        if (v == NULL) {
            return apr_psprintf(r->p, "%s: %s without a path", at, name);
        }
        return read_include(r, v, !strcasecmp(name, "IncludeOptional"), at);
    }
    if (v == NULL) {
        return NULL;
    }
    if (!strcasecmp(name, "ServerRoot")) {
        r->server_root = v;
    }
    else if (!strcasecmp(name, "ServerName")) {
        s->server_name = v;
    }
    else if (!strcasecmp(name, "DBDriver")) {
        s->driver = v;
        s->dbd_at = at;
    }
    else if (!strcasecmp(name, "DBDParams")) {
        s->params = v;
        s->dbd_at = at;
    }
    else if ((!strcasecmp(name, "SetHandler") ||
              !strcasecmp(name, "AddHandler")) &&
             !strcasecmp(v, "placement")) {
        s->handler = 1;
    }
    else if (!strcasecmp(name, "PlacementIncompleteConsumerProject")) {
        s->incomplete_project = v;
    }
    else if (!strcasecmp(name, "PlacementIncompleteConsumerUser")) {
        s->incomplete_user = v;
    }
    else if (!strcasecmp(name, "PlacementPolicyFile")) {
        s->policy_file = v;
    }
    else if (!strcasecmp(name, "PlacementStandardTraitsFile")) {
        /* as httpd's ap_server_root_relative */
        s->std_traits_file = v[0] == '/' ? v
                                         : apr_pstrcat(r->p, r->server_root,
                                                       "/", v, NULL);
    }
    return NULL;
}

/* The lines of one file, continuations joined */
static const char *read_lines(conf_reader_t *r, const char *file, char *text)
{
    char *line = text;
    int lineno = 0;

    while (line != NULL && *line) {
        char *next, *end, *logical = NULL;
        int first = lineno + 1;
        /* join "...\" with the next line, as ap_cfg_getline does */
        for (;;) {
            next = strchr(line, '\n');
            if (next != NULL) {
                *next++ = 0;
            }
            lineno++;
            end = line + strlen(line);
            if (end > line && end[-1] == '\r') {
                *--end = 0;
            }
            if (end > line && end[-1] == '\\' && next != NULL) {
                end[-1] = 0;
                logical = apr_pstrcat(r->p, logical ? logical : "", line, NULL);
                line = next;
                continue;
            }
            logical = apr_pstrcat(r->p, logical ? logical : "", line, NULL);
            break;
        }
        line = next;
        {
            const char *s = logical;
            char *name = conf_word(r->p, &s);
            const char *err;
            if (name == NULL || name[0] == '#') {
                continue;
            }
            err = directive(r, name, s,
                            apr_psprintf(r->p, "%s:%d", file, first));
            if (err != NULL) {
                return err;
            }
        }
    }
    return NULL;
}

/* A file (or every file of a directory, recursively, sorted) */
static const char *read_path(conf_reader_t *r, const char *path, int optional,
                             const char *at)
{
    apr_finfo_t fi;
    apr_file_t *f;
    char *text;
    apr_size_t got;
    const char *err;
    int i;

    if (apr_stat(&fi, path,
                 APR_FINFO_TYPE | APR_FINFO_SIZE | APR_FINFO_INODE |
                     APR_FINFO_DEV,
                 r->p) != APR_SUCCESS) {
        if (optional) {
            return NULL;
        }
        return at ? apr_psprintf(r->p, "%s: included file %s does not exist",
                                 at, path)
                  : apr_psprintf(r->p, "cannot read %s", path);
    }
    if (r->depth >= PM_MAX_INCLUDE_DEPTH) {
        return apr_psprintf(r->p,
                            "%s: Include nested more than %d deep (a loop?)",
                            at, PM_MAX_INCLUDE_DEPTH);
    }
    if (fi.filetype == APR_DIR) {
        apr_array_header_t *names = dir_entries(r->p, path, NULL, 0);
        if (names == NULL) {
            return apr_psprintf(r->p, "cannot read the directory %s", path);
        }
        r->depth++;
        for (i = 0; i < names->nelts; i++) {
            err = read_path(r, APR_ARRAY_IDX(names, i, char *), optional, at);
            if (err != NULL) {
                return err;
            }
        }
        r->depth--;
        return NULL;
    }
    for (i = 0; i < r->reading->nelts; i++) {
        apr_finfo_t *o = &APR_ARRAY_IDX(r->reading, i, apr_finfo_t);
        if (o->inode == fi.inode && o->device == fi.device) {
            return apr_psprintf(r->p,
                                "%s: Include loop: %s is already being "
                                "read",
                                at, path);
        }
    }
    if (apr_file_open(&f, path, APR_FOPEN_READ, APR_OS_DEFAULT, r->p) !=
        APR_SUCCESS) {
        return apr_psprintf(r->p, "cannot read %s", path);
    }
    text = apr_palloc(r->p, (apr_size_t)fi.size + 1);
    if (apr_file_read_full(f, text, (apr_size_t)fi.size, &got) != APR_SUCCESS &&
        got != (apr_size_t)fi.size) {
        apr_file_close(f);
        return apr_psprintf(r->p, "cannot read %s", path);
    }
    apr_file_close(f);
    text[got] = 0;
    APR_ARRAY_PUSH(r->reading, apr_finfo_t) = fi;
    r->depth++;
    err = read_lines(r, path, text);
    r->depth--;
    apr_array_pop(r->reading);
    return err;
}

static const char *server_shown(const conf_server_t *s)
{
    return s->server_name ? s->server_name : s->addr ? s->addr : "main";
}

/* Whether s names the database of first or of one of others */
static int same_database(const conf_server_t *first,
                         const apr_array_header_t *others,
                         const conf_server_t *s)
{
    int i;

    if (!strcmp(first->driver, s->driver) &&
        !strcmp(first->params, s->params)) {
        return 1;
    }
    for (i = 0; i < others->nelts; i++) {
        const conf_server_t *o = APR_ARRAY_IDX(others, i, conf_server_t *);
        if (!strcmp(o->driver, s->driver) && !strcmp(o->params, s->params)) {
            return 1;
        }
    }
    return 0;
}

const char *pm_source_httpd_conf(apr_pool_t *p, const char *file,
                                 const char *vhost, pm_source_t *src)
{
    conf_reader_t r = { 0 };
    conf_server_t *main_s, *pick = NULL;
    apr_array_header_t *cands;
    const char *err, *slash = strrchr(file, '/');
    int i, any_handler = 0;

    r.p = p;
    r.server_root = slash == NULL   ? "."
                    : slash == file ? "/"
                                    : apr_pstrmemdup(p, file, slash - file);
    r.servers = apr_array_make(p, 4, sizeof(conf_server_t *));
    r.reading = apr_array_make(p, 8, sizeof(apr_finfo_t));
    main_s = apr_pcalloc(p, sizeof(*main_s));
    APR_ARRAY_PUSH(r.servers, conf_server_t *) = main_s;
    r.cur = main_s;
    err = read_path(&r, file, 0, NULL);
    if (err != NULL) {
        return err;
    }
    /* a virtual host's settings: its own, else the main server's */
    for (i = 1; i < r.servers->nelts; i++) {
        conf_server_t *s = APR_ARRAY_IDX(r.servers, i, conf_server_t *);
        if (s->driver == NULL && s->params == NULL) {
            s->dbd_at = main_s->dbd_at;
        }
        s->driver = s->driver ? s->driver : main_s->driver;
        s->params = s->params ? s->params : main_s->params;
#define INHERIT(f) s->f = s->f ? s->f : main_s->f
        INHERIT(incomplete_project);
        INHERIT(incomplete_user);
        INHERIT(policy_file);
        INHERIT(std_traits_file);
#undef INHERIT
    }
    if (vhost != NULL) {
        for (i = 0; i < r.servers->nelts && pick == NULL; i++) {
            conf_server_t *s = APR_ARRAY_IDX(r.servers, i, conf_server_t *);
            if ((s->server_name && !strcasecmp(s->server_name, vhost)) ||
                (s->addr && !strcasecmp(s->addr, vhost)) ||
                (i == 0 && !strcmp(vhost, "main"))) {
                pick = s;
            }
        }
        if (pick == NULL) {
            return apr_psprintf(p, "%s has no virtual host %s", file, vhost);
        }
        if (pick->driver == NULL || pick->params == NULL) {
            return apr_psprintf(p, "%s: %s has no DBDriver and DBDParams", file,
                                vhost);
        }
    }
    else {
        for (i = 0; i < r.servers->nelts; i++) {
            conf_server_t *s = APR_ARRAY_IDX(r.servers, i, conf_server_t *);
            any_handler |= s->handler && s->driver && s->params;
        }
        cands = apr_array_make(p, 4, sizeof(conf_server_t *));
        for (i = 0; i < r.servers->nelts; i++) {
            conf_server_t *s = APR_ARRAY_IDX(r.servers, i, conf_server_t *);
            if (s->driver == NULL || s->params == NULL ||
                (any_handler && !s->handler)) {
                continue;
            }
            if (pick == NULL) {
                pick = s;
            }
            else if (!same_database(pick, cands, s)) {
                APR_ARRAY_PUSH(cands, conf_server_t *) = s;
            }
        }
        if (pick == NULL) {
            return apr_psprintf(p,
                                "%s (and the files it includes) has no "
                                "DBDriver and DBDParams lines",
                                file);
        }
        if (cands->nelts > 0) {
            const char *list = apr_psprintf(p, "%s (%s, %s)",
                                            server_shown(pick), pick->driver,
                                            pick->dbd_at);
            for (i = 0; i < cands->nelts; i++) {
                conf_server_t *s = APR_ARRAY_IDX(cands, i, conf_server_t *);
                list = apr_psprintf(p, "%s, %s (%s, %s)", list, server_shown(s),
                                    s->driver, s->dbd_at);
            }
            return apr_psprintf(p,
                                "%s names %d databases: %s; choose one "
                                "with --vhost NAME",
                                file, cands->nelts + 1, list);
        }
    }
    src->driver = pick->driver;
    src->params = pick->params;
    src->incomplete_project = pick->incomplete_project;
    src->incomplete_user = pick->incomplete_user;
    src->policy_file = pick->policy_file;
    src->std_traits_file = pick->std_traits_file;
    src->shown = !strcmp(pick->driver, "sqlite3")
                     ? apr_pstrcat(p, "sqlite:///", pick->params, NULL)
                     : apr_psprintf(p, "the %s database of %s (%s)",
                                    pick->driver, server_shown(pick),
                                    pick->dbd_at);
    return NULL;
}
