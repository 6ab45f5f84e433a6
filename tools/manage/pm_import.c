/* Licensed under the Apache License, Version 2.0.
 *
 * pm_import.c: `config import`, placement.conf (pm_oslo_conf.c) turned
 * into the Apache configuration that serves the same cloud the same way,
 * option by option through pm_import_table.c. What it does with each
 * option set in the files:
 *  - a section placement does not read: nothing (oslo.config passes
 *    over them too); an option of [DEFAULT] not in the table: nothing
 *    ([DEFAULT] is every library's);
 *  - an option not in the table, in a section placement reads: a warning
 *    (a likely typo), an error with --strict;
 *  - a value of the wrong type, out of range or not a valid URL: an error
 *    "FILE:LINE: ...", exit 1, nothing written;
 *  - an option with a directive: the directive;
 *  - an option without: a comment at the top of the output and a warning
 *    on stderr with the reason, unless its value means what the module
 *    does anyway; an error with --strict.
 * Options left unset keep upstream's defaults where the module's own
 * differ (auth strategy keystone, depth-first candidates, the 2026.1
 * policy defaults), so the output says them.
 */
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <apr_tables.h>
#include "pm.h"

#ifndef PM_MODULE_DIR
#define PM_MODULE_DIR "/usr/lib/apache2/modules"
#endif

/* The conversion's state */
typedef struct import_t {
    apr_pool_t *p;
    const pm_conf_t *conf;
    const pm_import_opts_t *o;
    const char *error;               /* the first error, one line */
    apr_array_header_t *unconverted; /* const char *: one line each */
    apr_array_header_t *unknown;     /* const char *: one line each */
    apr_array_header_t *server;      /* lines of the vhost (DBD*) */
    apr_array_header_t *global;      /* server config lines */
    apr_array_header_t *location;    /* lines of the <Location> */
    apr_array_header_t *modules;     /* "name file" of LoadModule lines */
} import_t;

static void add(apr_array_header_t *lines, const char *line)
{
    APR_ARRAY_PUSH(lines, const char *) = line;
}

static const pm_import_opt_t *table_row(const char *section, const char *key)
{
    const pm_import_opt_t *r;

    for (r = pm_import_table; r->section != NULL; r++) {
        if (!strcmp(r->section, section) && !strcmp(r->option, key)) {
            return r;
        }
    }
    return NULL;
}

static int section_read(const char *section)
{
    const pm_import_opt_t *r;

    for (r = pm_import_table; r->section != NULL; r++) {
        if (!strcmp(r->section, section)) {
            return 1;
        }
    }
    return 0;
}

static const char *where(import_t *im, const pm_conf_item_t *it)
{
    return apr_psprintf(im->p, "%s:%d: [%s] %s", it->file, it->line,
                        it->section, it->key);
}

static void fail(import_t *im, const pm_conf_item_t *it, const char *msg)
{
    if (im->error == NULL) {
        im->error = apr_psprintf(im->p, "%s: %s", where(im, it), msg);
    }
}

static void unconverted(import_t *im, const pm_conf_item_t *it,
                        const char *what, const char *reason)
{
    add(im->unconverted,
        apr_psprintf(im->p, "%s%s: no equivalent: %s", where(im, it),
                     what != NULL ? what : "", reason));
}

/* oslo's Boolean: 1 true, 0 false, -1 neither */
static int oslo_bool(const char *v)
{
    static const char *const yes[] = { "true", "1", "on", "yes", NULL };
    static const char *const no[] = { "false", "0", "off", "no", NULL };
    int i;

    for (i = 0; yes[i] != NULL; i++) {
        if (!strcasecmp(v, yes[i])) {
            return 1;
        }
        if (!strcasecmp(v, no[i])) {
            return 0;
        }
    }
    return -1;
}

/* v is one of "a|b|c" (a bool row: compared as booleans) */
static int one_of(const pm_import_opt_t *r, const char *v, const char *set)
{
    char buf[256], *last, *w;

    if (set == NULL) {
        return 0;
    }
    apr_cpystrn(buf, set, sizeof(buf));
    for (w = apr_strtok(buf, "|", &last); w != NULL;
         w = apr_strtok(NULL, "|", &last)) {
        if (r != NULL && r->type == PM_OPT_BOOL ? oslo_bool(v) == oslo_bool(w)
                                                : !strcmp(v, w)) {
            return 1;
        }
    }
    return 0;
}

/* oslo's List: comma-separated, items stripped, empty ones dropped */
static apr_array_header_t *oslo_list(apr_pool_t *p, const char *v)
{
    apr_array_header_t *out = apr_array_make(p, 4, sizeof(const char *));
    char *s = apr_pstrdup(p, v), *last, *w;

    for (w = apr_strtok(s, ",", &last); w != NULL;
         w = apr_strtok(NULL, ",", &last)) {
        apr_size_t n;
        while (apr_isspace(*w)) {
            w++;
        }
        n = strlen(w);
        while (n > 0 && apr_isspace(w[n - 1])) {
            w[--n] = '\0';
        }
        if (*w) {
            APR_ARRAY_PUSH(out, const char *) = w;
        }
    }
    return out;
}

/* One argument of a directive: quoted when httpd would split it */
static const char *arg(apr_pool_t *p, const char *v)
{
    const char *s;
    char *out, *o;

    if (*v && strcspn(v, " \t\"'\\#<>") == strlen(v)) {
        return v;
    }
    out = o = apr_palloc(p, 2 * strlen(v) + 3);
    *o++ = '"';
    for (s = v; *s; s++) {
        if (*s == '"' || *s == '\\') {
            *o++ = '\\';
        }
        *o++ = (char)(*s == '\n' ? ' ' : *s);
    }
    *o++ = '"';
    *o = '\0';
    return out;
}

/* Checks the value against its row's type; NULL if bad (error set) */
static const char *checked(import_t *im, const pm_import_opt_t *r,
                           const pm_conf_item_t *it, long *pnum)
{
    const char *err = NULL;
    const char *v = pm_conf_value(im->p, im->conf, it, &err);
    char *end;
    long n;

    if (v == NULL) {
        if (im->error == NULL) {
            im->error = err;
        }
        return NULL;
    }
    switch (r->type) {
    case PM_OPT_BOOL:
        if (oslo_bool(v) < 0) {
            fail(im, it,
                 apr_psprintf(im->p,
                              "'%s' is not a boolean (true/false, yes/no, "
                              "on/off, 1/0)",
                              v));
            return NULL;
        }
        break;
    case PM_OPT_INT:
        errno = 0;
        n = strtol(v, &end, 10);
        if (!*v || *end || errno != 0) {
            fail(im, it, apr_psprintf(im->p, "'%s' is not an integer", v));
            return NULL;
        }
        if (r->min != r->max && (n < r->min || n > r->max)) {
            fail(im, it,
                 apr_psprintf(im->p, "%ld is out of range (%ld to %ld)", n,
                              r->min, r->max));
            return NULL;
        }
        if (pnum != NULL) {
            *pnum = n;
        }
        break;
    default:
        if (r->choices != NULL && !one_of(NULL, v, r->choices)) {
            fail(im, it,
                 apr_psprintf(im->p, "'%s' is not one of %s", v, r->choices));
            return NULL;
        }
    }
    return v;
}

/* The directive line of a plain row */
static const char *directive_line(import_t *im, const pm_import_opt_t *r,
                                  const char *v)
{
    if (r->type == PM_OPT_BOOL) {
        return apr_pstrcat(im->p, r->directive, " ",
                           oslo_bool(v) ? "On" : "Off", NULL);
    }
    if (r->type == PM_OPT_LIST) {
        apr_array_header_t *l = oslo_list(im->p, v);
        const char *s = r->directive;
        int i;
        if (l->nelts == 0) {
            return apr_pstrcat(im->p, s, " ,", NULL); /* the empty list */
        }
        for (i = 0; i < l->nelts; i++) {
            s = apr_pstrcat(im->p, s, " ",
                            arg(im->p, APR_ARRAY_IDX(l, i, const char *)),
                            NULL);
        }
        return s;
    }
    return apr_pstrcat(im->p, r->directive, " ", arg(im->p, v), NULL);
}

/* A relative path as oslo.config's find_file looks for it: beside the
 * files read (the last first), then ~/.placement, ~, /etc/placement,
 * /etc. NULL if nowhere. */
static const char *find_path(import_t *im, const char *v, int want_dir)
{
    const char *home = getenv("HOME");
    apr_array_header_t *dirs = apr_array_make(im->p, 8, sizeof(char *));
    struct stat st;
    int i;

    if (v[0] == '/') {
        return stat(v, &st) == 0 && (S_ISDIR(st.st_mode) ? 1 : 0) == want_dir
                   ? v
                   : NULL;
    }
    for (i = im->conf->files->nelts - 1; i >= 0; i--) {
        const char *f = APR_ARRAY_IDX(im->conf->files, i, const char *);
        const char *slash = strrchr(f, '/');
        APR_ARRAY_PUSH(dirs, const char *) = slash != NULL
                                                 ? apr_pstrmemdup(im->p, f,
                                                                  slash - f)
                                                 : ".";
    }
    if (home != NULL && *home) {
        APR_ARRAY_PUSH(dirs, const char *) = apr_pstrcat(im->p, home,
                                                         "/.placement", NULL);
        APR_ARRAY_PUSH(dirs, const char *) = home;
    }
    APR_ARRAY_PUSH(dirs, const char *) = "/etc/placement";
    APR_ARRAY_PUSH(dirs, const char *) = "/etc";
    for (i = 0; i < dirs->nelts; i++) {
        const char *path = apr_pstrcat(
            im->p, APR_ARRAY_IDX(dirs, i, const char *), "/", v, NULL);
        if (stat(path, &st) == 0 && (S_ISDIR(st.st_mode) ? 1 : 0) == want_dir) {
            char *abs = realpath(path, NULL);
            if (abs != NULL) {
                path = apr_pstrdup(im->p, abs);
                free(abs);
            }
            return path;
        }
    }
    return NULL;
}

static void module(import_t *im, const char *name, const char *file)
{
    int i;
    const char *entry = apr_pstrcat(im->p, name, " ", file, NULL);

    for (i = 0; i < im->modules->nelts; i++) {
        if (!strcmp(APR_ARRAY_IDX(im->modules, i, const char *), entry)) {
            return;
        }
    }
    add(im->modules, entry);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
    va_list ap;

    fputs("mod-placement-manage: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* [placement_database]: the connection and the pool */
static void convert_database(import_t *im)
{
    const pm_conf_item_t *url = pm_conf_get(im->conf, "placement_database",
                                            "connection");
    const pm_conf_item_t *it;
    pm_source_t src = { 0 };
    const char *err;
    long pool = -1, overflow = 10, recycle = 0;
    int i;

    if (url == NULL || !*url->value) {
        im->error = apr_psprintf(im->p,
                                 "%s: no [placement_database] "
                                 "connection",
                                 pm_conf_files_shown(im->p, im->conf));
        return;
    }
    err = pm_source_oslo_conf(im->p, im->conf, &src);
    if (err != NULL) {
        if (im->error == NULL) {
            im->error = err;
        }
        return;
    }
    for (i = 0; src.dropped != NULL && i < src.dropped->nelts; i++) {
        /* "?name: why" */
        const char *d = APR_ARRAY_IDX(src.dropped, i, const char *);
        const char *colon = strchr(d, ':');
        unconverted(
            im, url,
            apr_pstrcat(im->p, " ", apr_pstrmemdup(im->p, d, colon - d), NULL),
            colon + 2);
    }
    add(im->server, apr_pstrcat(im->p, "DBDriver ", src.driver, NULL));
    add(im->server,
        apr_pstrcat(im->p, "DBDParams ", arg(im->p, src.params), NULL));
    /* SQLAlchemy's QueuePool: pool_size connections kept, max_overflow
     * more when busy (-1: no bound); mod_dbd's are DBDKeep and DBDMax, per
     * process as SQLAlchemy's are */
    it = pm_conf_get(im->conf, "placement_database", "max_pool_size");
    if (it != NULL &&
        checked(im, table_row("placement_database", "max_pool_size"), it,
                &pool) == NULL) {
        return;
    }
    it = pm_conf_get(im->conf, "placement_database", "max_overflow");
    if (it != NULL &&
        checked(im, table_row("placement_database", "max_overflow"), it,
                &overflow) == NULL) {
        return;
    }
    if (pool > 0) {
        add(im->server, apr_psprintf(im->p, "DBDKeep %ld", pool));
    }
    if ((pool > 0 || it != NULL) && overflow >= 0) {
        add(im->server, apr_psprintf(im->p, "DBDMax %ld",
                                     (pool > 0 ? pool : 5) + overflow));
    }
    it = pm_conf_get(im->conf, "placement_database", "connection_recycle_time");
    if (it != NULL &&
        checked(im, table_row("placement_database", "connection_recycle_time"),
                it, &recycle) != NULL &&
        recycle > 0) {
        /* mod_dbd closes spare connections idle that long; it has no
         * limit on a connection's age */
        add(im->server, apr_psprintf(im->p, "DBDExptime %ld", recycle));
    }
}

/* [api] auth_strategy (once [DEFAULT]), upstream's default keystone */
static const char *convert_auth_strategy(import_t *im)
{
    const pm_conf_item_t *it = pm_conf_get(im->conf, "api", "auth_strategy");
    const char *v = "keystone";

    if (it == NULL) {
        it = pm_conf_get(im->conf, "DEFAULT", "auth_strategy");
    }
    if (it != NULL) {
        v = checked(im, table_row("api", "auth_strategy"), it, NULL);
        if (v == NULL) {
            return NULL;
        }
    }
    add(im->location, apr_pstrcat(im->p, "PlacementAuthStrategy ", v, NULL));
    return v;
}

/* [keystone_authtoken]'s options that need more than their directive */
static void convert_keystone(import_t *im, int keystone)
{
    const char *ks = "keystone_authtoken";
    const pm_conf_item_t *it;
    const char *v;

    it = pm_conf_get(im->conf, ks, "auth_uri");
    if (it != NULL &&
        pm_conf_get(im->conf, ks, "www_authenticate_uri") == NULL &&
        (v = checked(im, table_row(ks, "auth_uri"), it, NULL)) != NULL) {
        add(im->location,
            apr_pstrcat(im->p, "PlacementKeystoneWWWAuthenticateURI ",
                        arg(im->p, v), NULL));
    }
    {
        static const char *const ids[][2] = {
            { "user_domain_id", "user_domain_name" },
            { "project_domain_id", "project_domain_name" },
        };
        int i;
        for (i = 0; i < 2; i++) {
            it = pm_conf_get(im->conf, ks, ids[i][0]);
            if (it == NULL ||
                (v = checked(im, table_row(ks, ids[i][0]), it, NULL)) == NULL ||
                pm_conf_get(im->conf, ks, ids[i][1]) != NULL) {
                continue;
            }
            if (!strcmp(v, "default")) {
                /* Keystone's default domain: id default, name Default */
                add(im->location,
                    apr_pstrcat(im->p, table_row(ks, ids[i][0])->directive,
                                " Default", NULL));
            }
            else {
                unconverted(im, it, NULL,
                            apr_psprintf(im->p,
                                         "the module names domains: set %s "
                                         "to the name of domain %s",
                                         ids[i][1], v));
            }
        }
    }
    it = pm_conf_get(im->conf, ks, "memcached_servers");
    if (it != NULL && (v = checked(im, table_row(ks, "memcached_servers"), it,
                                   NULL)) != NULL) {
        apr_array_header_t *l = oslo_list(im->p, v);
        const char *s = NULL;
        int i;
        for (i = 0; i < l->nelts; i++) {
            const char *h = APR_ARRAY_IDX(l, i, const char *);
            if (!strncmp(h, "inet:", 5)) {
                h += 5;
            }
            s = s == NULL ? h : apr_pstrcat(im->p, s, ",", h, NULL);
        }
        if (s != NULL) {
            add(im->global,
                apr_pstrcat(im->p, "PlacementTokenCache memcache:", s, NULL));
            module(im, "socache_memcache_module", "mod_socache_memcache.so");
            return;
        }
    }
    if (keystone) {
        module(im, "socache_shmcb_module", "mod_socache_shmcb.so");
    }
}

/* [oslo_policy] policy_file and policy_dirs, found as oslo.policy finds
 * them (upstream's defaults policy.yaml and policy.d included) */
static void convert_policy_paths(import_t *im)
{
    const pm_conf_item_t *it = pm_conf_get(im->conf, "oslo_policy",
                                           "policy_file");
    const char *v = "policy.yaml", *path;
    apr_array_header_t *dirs;
    int i, used = 0;

    if (it != NULL && (v = checked(im, table_row("oslo_policy", "policy_file"),
                                   it, NULL)) == NULL) {
        return;
    }
    path = find_path(im, v, 0);
    if (path != NULL) {
        add(im->location,
            apr_pstrcat(im->p, "PlacementPolicyFile ", arg(im->p, path), NULL));
    }
    else if (it != NULL) {
        warn("%s: %s not found: the release's default rules apply, as with "
             "oslo.policy",
             where(im, it), v);
    }
    dirs = pm_conf_get_all(im->p, im->conf, "oslo_policy", "policy_dirs");
    if (dirs->nelts == 0) {
        path = find_path(im, "policy.d", 1);
        if (path != NULL) {
            add(im->location, apr_pstrcat(im->p, "PlacementPolicyDir ",
                                          arg(im->p, path), NULL));
        }
        return;
    }
    for (i = 0; i < dirs->nelts; i++) {
        it = APR_ARRAY_IDX(dirs, i, const pm_conf_item_t *);
        v = checked(im, table_row("oslo_policy", "policy_dirs"), it, NULL);
        if (v == NULL || !*v) {
            continue;
        }
        path = find_path(im, v, 1);
        if (path == NULL) {
            continue; /* oslo.policy skips a missing directory too */
        }
        if (used++) {
            unconverted(im, it, NULL,
                        apr_psprintf(im->p,
                                     "%s: the module reads one policy "
                                     "directory: move its files into the "
                                     "first",
                                     v));
            continue;
        }
        add(im->location,
            apr_pstrcat(im->p, "PlacementPolicyDir ", arg(im->p, path), NULL));
    }
}

/* Every option set, in reading order: checked, converted or reported */
static void convert_options(import_t *im)
{
    int i;

    for (i = 0; i < im->conf->items->nelts && im->error == NULL; i++) {
        const pm_conf_item_t *it = &APR_ARRAY_IDX(im->conf->items, i,
                                                  pm_conf_item_t);
        const pm_import_opt_t *r = table_row(it->section, it->key);
        const char *v;
        if (pm_conf_get(im->conf, it->section, it->key) != it &&
            (r == NULL || r->type != PM_OPT_MULTI)) {
            continue; /* a later value counts */
        }
        if (!strncmp(it->section, "cors.", 5)) {
            unconverted(im, it, NULL,
                        "oslo's per-origin [cors.NAME] sections are gone: "
                        "one set of [cors] settings applies to every "
                        "origin of a location");
            continue;
        }
        if (r == NULL) {
            if (strcmp(it->section, "DEFAULT") != 0 &&
                section_read(it->section)) {
                add(im->unknown,
                    apr_psprintf(im->p,
                                 "%s: unknown option (a typo?): placement "
                                 "does not read it",
                                 where(im, it)));
            }
            continue;
        }
        v = checked(im, r, it, NULL);
        if (v == NULL || r->code) {
            continue; /* an error, or converted by its own function */
        }
        if (r->directive != NULL) {
            add(im->location, directive_line(im, r, v));
        }
        else if (!one_of(r, v, r->same)) {
            unconverted(im, it, NULL, r->reason);
        }
    }
}

static const char *output_text(import_t *im)
{
    const pm_import_opts_t *o = im->o;
    const char *port = o->port != NULL ? o->port : "8778";
    const char *in = o->location != NULL ? "" : "    ";
    const char *inner = o->location != NULL ? "    " : "        ";
    const char *t;
    int i;

    t = apr_psprintf(
        im->p,
        "# Apache configuration of OpenStack Placement (mod_placement), made "
        "by\n# mod-placement-manage config import from %s.\n"
        "# It may hold secrets (the database password, Keystone's service "
        "password):\n# keep the file root:www-data, mode 0640.\n",
        pm_conf_files_shown(im->p, im->conf));
    if (o->location != NULL) {
        t = apr_pstrcat(im->p, t,
                        "# Include it in the server configuration (a2enconf), "
                        "or inside the <VirtualHost>\n# of an existing site "
                        "(without a PlacementTokenCache line: that one is "
                        "server config).\n",
                        NULL);
    }
    if (im->unconverted->nelts > 0) {
        t = apr_pstrcat(im->p, t,
                        "#\n# Options with no equivalent, not converted:\n",
                        NULL);
        for (i = 0; i < im->unconverted->nelts; i++) {
            t = apr_pstrcat(im->p, t, "#   ",
                            APR_ARRAY_IDX(im->unconverted, i, const char *),
                            "\n", NULL);
        }
    }
    t = apr_pstrcat(im->p, t,
                    "\n<IfModule !dbd_module>\n    LoadModule "
                    "dbd_module " PM_MODULE_DIR "/mod_dbd.so\n"
                    "</IfModule>\n",
                    NULL);
    for (i = 0; i < im->modules->nelts; i++) {
        const char *m = APR_ARRAY_IDX(im->modules, i, const char *);
        const char *sp = strchr(m, ' ');
        t = apr_pstrcat(im->p, t, "<IfModule !",
                        apr_pstrmemdup(im->p, m, sp - m), ">\n    LoadModule ",
                        apr_pstrmemdup(im->p, m, sp - m), " " PM_MODULE_DIR "/",
                        sp + 1, "\n</IfModule>\n", NULL);
    }
    t = apr_pstrcat(im->p, t,
                    "<IfModule !placement_module>\n    LoadModule "
                    "placement_module " PM_MODULE_DIR "/mod_placement.so\n"
                    "</IfModule>\n",
                    NULL);
    for (i = 0; i < im->global->nelts; i++) {
        t = apr_pstrcat(im->p, t, APR_ARRAY_IDX(im->global, i, const char *),
                        "\n", NULL);
    }
    if (o->location == NULL) {
        t = apr_pstrcat(im->p, t, "\nListen ", port, "\n<VirtualHost *:", port,
                        ">\n", NULL);
    }
    else {
        t = apr_pstrcat(im->p, t, "\n", NULL);
    }
    for (i = 0; i < im->server->nelts; i++) {
        t = apr_pstrcat(im->p, t, in,
                        APR_ARRAY_IDX(im->server, i, const char *), "\n", NULL);
    }
    t = apr_pstrcat(im->p, t, in, "<Location ",
                    arg(im->p, o->location != NULL ? o->location : "/"), ">\n",
                    inner, "SetHandler placement\n", inner,
                    "Require all granted\n", NULL);
    for (i = 0; i < im->location->nelts; i++) {
        t = apr_pstrcat(im->p, t, inner,
                        APR_ARRAY_IDX(im->location, i, const char *), "\n",
                        NULL);
    }
    t = apr_pstrcat(im->p, t, in, "</Location>\n", NULL);
    if (o->location == NULL) {
        t = apr_pstrcat(im->p, t, "</VirtualHost>\n", NULL);
    }
    return t;
}

/* FILE written whole or not at all, 0640 from the start */
static const char *write_output(apr_pool_t *p, const char *file,
                                const char *text)
{
    char *tmp = apr_pstrcat(p, file, ".XXXXXX", NULL);
    apr_size_t len = strlen(text), done = 0;
    int fd = mkstemp(tmp);

    if (fd < 0) {
        return apr_psprintf(p, "%s: cannot write: %s", file, strerror(errno));
    }
    if (fchmod(fd, 0640) != 0) {
        goto failed;
    }
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0) {
            goto failed;
        }
        done += (apr_size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        fd = -1;
        goto failed;
    }
    if (rename(tmp, file) != 0) {
        fd = -1;
        goto failed;
    }
    return NULL;
failed : {
    int e = errno;
    if (fd >= 0) {
        close(fd);
    }
    unlink(tmp);
    return apr_psprintf(p, "%s: cannot write: %s", file, strerror(e));
}
}

static int valid_port(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);

    return *s && !*end && n >= 1 && n <= 65535;
}

int pm_config_import(apr_pool_t *p, const pm_conf_t *conf,
                     const pm_import_opts_t *o)
{
    import_t im = { 0 };
    const char *auth, *text, *err;
    int i;

    if (o->port != NULL && !valid_port(o->port)) {
        pm_err("config import: --port %s: not a port number (1 to 65535)",
               o->port);
        return PM_EXIT_USAGE;
    }
    if (o->location != NULL && o->location[0] != '/') {
        pm_err("config import: --location %s: a URL path starting with /",
               o->location);
        return PM_EXIT_USAGE;
    }
    im.p = p;
    im.conf = conf;
    im.o = o;
    im.unconverted = apr_array_make(p, 8, sizeof(const char *));
    im.unknown = apr_array_make(p, 4, sizeof(const char *));
    im.server = apr_array_make(p, 8, sizeof(const char *));
    im.global = apr_array_make(p, 2, sizeof(const char *));
    im.location = apr_array_make(p, 16, sizeof(const char *));
    im.modules = apr_array_make(p, 2, sizeof(const char *));

    convert_database(&im);
    auth = im.error == NULL ? convert_auth_strategy(&im) : NULL;
    if (im.error == NULL &&
        pm_conf_get(conf, "placement",
                    "allocation_candidates_generation_strategy") == NULL) {
        /* upstream's default; the module's own is breadth-first */
        add(im.location, "PlacementAllocationCandidatesStrategy depth-first");
    }
    if (im.error == NULL) {
        /* upstream 12.0.0 (2024.2) and later: 2026.1's rules */
        add(im.location, "PlacementPolicyDefaults 2026.1");
        convert_options(&im);
    }
    if (im.error == NULL) {
        convert_keystone(&im, auth != NULL && !strcmp(auth, "keystone"));
        convert_policy_paths(&im);
    }
    if (im.error != NULL) {
        pm_err("%s", im.error);
        return PM_EXIT_FAIL;
    }
    for (i = 0; i < im.unknown->nelts; i++) {
        const char *line = APR_ARRAY_IDX(im.unknown, i, const char *);
        if (o->strict) {
            pm_err("%s", line);
        }
        else {
            warn("%s", line);
        }
    }
    for (i = 0; i < im.unconverted->nelts; i++) {
        const char *line = APR_ARRAY_IDX(im.unconverted, i, const char *);
        if (o->strict) {
            pm_err("%s", line);
        }
        else {
            warn("%s", line);
        }
    }
    if (o->strict && (im.unknown->nelts > 0 || im.unconverted->nelts > 0)) {
        pm_err("--strict: %d option(s) not converted, nothing written",
               im.unknown->nelts + im.unconverted->nelts);
        return PM_EXIT_FAIL;
    }
    text = output_text(&im);
    if (o->output == NULL) {
        fputs(text, stdout);
        return PM_EXIT_OK;
    }
    err = write_output(p, o->output, text);
    if (err != NULL) {
        pm_err("%s", err);
        return PM_EXIT_FAIL;
    }
    return PM_EXIT_OK;
}
