/* Licensed under the Apache License, Version 2.0.
 *
 * main.c: mod-placement-manage's arguments. Upstream's verbs:
 *
 *   mod-placement-manage [OPTIONS] db sync [VERSION]
 *   mod-placement-manage [OPTIONS] db version
 *   mod-placement-manage [OPTIONS] db stamp VERSION
 *   mod-placement-manage [OPTIONS] db online_data_migrations [--max-count N]
 *   mod-placement-manage [OPTIONS] db sync_standard_data [--traits-file F]
 *   mod-placement-manage [OPTIONS] upgrade check [--json]
 *   mod-placement-manage [--config-file F] [--config-dir D] config import
 *                        [--port PORT | --location PATH] [--strict]
 *                        [--output FILE]
 *
 * OPTIONS say where the database is (the first given counts):
 *   --db-url URL        as upstream's [placement_database] connection
 *   --config FILE       httpd configuration with DBDriver / DBDParams
 *                       (Include followed; --vhost NAME picks a server)
 *   --config-file FILE  upstream's placement.conf (several may be given)
 *   --config-dir DIR    its *.conf files, in name order (several too)
 * and with none of them, upstream's default placement.conf and
 * placement.conf.d (oslo's search: ~/.placement/, ~/, /etc/placement/,
 * /etc/); pm_oslo_conf.c reads them as oslo.config does.
 * Run as "placement-status" (a link), `upgrade check` is the only verb, as
 * upstream's tool of that name.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <apr_general.h>
#include <apr_strings.h>
#include "pm.h"

#define PM_VERSION "0.2.0"

static void usage(FILE *out)
{
    fputs(
        "usage: mod-placement-manage [--db-url URL |\n"
        "                             --config HTTPD_CONF [--vhost NAME] |\n"
        "                             [--config-file PLACEMENT_CONF]...\n"
        "                             [--config-dir DIR]...] COMMAND\n"
        "commands:\n"
        "  db sync [VERSION]     create or upgrade the schema, revision by\n"
        "                        revision, to VERSION (default: head,\n"
        "                        a082b8bb98d0; 422ece571366 for a database\n"
        "                        placement 8.0.0 or 9.0.0 shares)\n"
        "  db version            print the database's revision (None if none)\n"
        "  db stamp VERSION      record VERSION without changing the schema\n"
        "  db online_data_migrations [--max-count N]\n"
        "                        run the online data migrations\n"
        "  db sync_standard_data [--traits-file FILE]\n"
        "                        insert the standard resource classes and\n"
        "                        traits the database lacks (the module does\n"
        "                        it at its first request); FILE: more\n"
        "                        standard trait names, as for the directive\n"
        "                        PlacementStandardTraitsFile (default: its\n"
        "                        file in --config's server)\n"
        "  upgrade check [--json] placement-status's checks\n"
        "  config import [--port PORT | --location PATH] [--strict]\n"
        "                [--output FILE]\n"
        "                        print the Apache configuration that serves\n"
        "                        what placement.conf describes: a vhost of\n"
        "                        its own on PORT (default 8778) or a\n"
        "                        <Location PATH> for an existing site;\n"
        "                        options with no equivalent are listed and\n"
        "                        warned about (--strict: an error); FILE is\n"
        "                        written whole or not at all, mode 0640\n"
        "URL: sqlite:///relative/path, sqlite:////absolute/path,\n"
        "     postgresql://user:pass@host:port/db, mysql+pymysql://...\n"
        "HTTPD_CONF: read as httpd reads it, Include and IncludeOptional\n"
        "     followed (relative to ServerRoot, by default the file's\n"
        "     directory); the DBDriver/DBDParams of the servers with\n"
        "     SetHandler placement (else of any server): one database, or\n"
        "     --vhost NAME (ServerName, <VirtualHost> address or main)\n"
        "PLACEMENT_CONF: read as oslo.config reads it; without\n"
        "     --config-file, the first placement.conf of ~/.placement/, ~/,\n"
        "     /etc/placement/, /etc/; without --config-dir, the first\n"
        "     placement.conf.d there; then each option in its order\n",
        out);
}

/* Where the database is: --db-url, else --config, else placement.conf
 * (the files of --config-file and --config-dir, or oslo's defaults) */
static const char *read_source(apr_pool_t *p, const char *url,
                               const char *httpd_conf, const char *vhost,
                               const apr_array_header_t *oslo_sources,
                               pm_source_t *src)
{
    pm_conf_t *conf;
    const char *err;

    if (url != NULL) {
        return pm_source_url(p, url, src);
    }
    if (httpd_conf != NULL) {
        return pm_source_httpd_conf(p, httpd_conf, vhost, src);
    }
    err = pm_conf_load(p, oslo_sources, &conf);
    if (err != NULL) {
        return err;
    }
    if (conf->files->nelts == 0) {
        return "no database given: --db-url URL, --config HTTPD_CONF or "
               "--config-file PLACEMENT_CONF (or "
               "/etc/placement/placement.conf)";
    }
    return pm_source_oslo_conf(p, conf, src);
}

/* A verb's one option with a value, "NAME VALUE" or "NAME=VALUE", at
 * argv[*pi] if there: *pvalue set and *pi moved past it. 0 when the
 * value is missing (said on stderr). */
static int verb_option(int argc, const char *const *argv, int *pi,
                       const char *name, const char **pvalue)
{
    apr_size_t len = strlen(name);
    int i = *pi;

    if (i >= argc || strncmp(argv[i], name, len) != 0) {
        return 1;
    }
    if (argv[i][len] == '=') {
        *pvalue = argv[i] + len + 1;
        *pi = i + 1;
        return 1;
    }
    if (argv[i][len] != '\0') {
        return 1; /* another option: "unrecognized" below */
    }
    if (i + 1 >= argc) {
        pm_err("%s: expected one argument", name);
        return 0;
    }
    *pvalue = argv[i + 1];
    *pi = i + 2;
    return 1;
}

/* config import's own arguments from argv[*pi] on; 0: a usage error
 * (said on stderr) */
static int import_args(int argc, const char *const *argv, int *pi,
                       pm_import_opts_t *o)
{
    int i = *pi;

    while (i < argc) {
        int before = i;
        if (!strcmp(argv[i], "--strict")) {
            o->strict = 1;
            i++;
            continue;
        }
        if (!verb_option(argc, argv, &i, "--port", &o->port) ||
            !verb_option(argc, argv, &i, "--location", &o->location) ||
            !verb_option(argc, argv, &i, "--output", &o->output)) {
            return 0;
        }
        if (i == before) {
            break; /* not ours: "unrecognized" */
        }
    }
    *pi = i;
    if (o->port != NULL && o->location != NULL) {
        pm_err("config import: --port and --location exclude each other");
        return 0;
    }
    return 1;
}

static int run(apr_pool_t *p, int argc, const char *const *argv)
{
    const char *url = NULL, *httpd_conf = NULL;
    const char *vhost = NULL;
    const char *base = strrchr(argv[0], '/');
    const char *err, *verb, *sub, *arg = NULL;
    apr_array_header_t *oslo_sources = apr_array_make(p, 2,
                                                      sizeof(pm_conf_source_t));
    pm_import_opts_t import = { 0 };
    pm_source_t src = { 0 };
    pm_conn_t *c;
    int i = 1, json = 0, status_only;

    base = base != NULL ? base + 1 : argv[0];
    status_only = strstr(base, "status") != NULL;
    /* each option takes a value, "--name VALUE" or "--name=VALUE" */
    while (i < argc && argv[i][0] == '-') {
        const char *o = argv[i], *eq = strchr(o, '='), *value;
        const char *name = eq != NULL ? apr_pstrmemdup(p, o, eq - o) : o;
        const char **slot = !strcmp(name, "--db-url")   ? &url
                            : !strcmp(name, "--config") ? &httpd_conf
                            : !strcmp(name, "--vhost")  ? &vhost
                                                        : NULL;
        int is_file = !strcmp(name, "--config-file");
        int is_dir = !strcmp(name, "--config-dir");
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return PM_EXIT_OK;
        }
        if (!strcmp(o, "--version")) {
            puts(PM_VERSION);
            return PM_EXIT_OK;
        }
        if (slot == NULL && !is_file && !is_dir) {
            pm_err("unknown option: %s", o);
            return PM_EXIT_USAGE;
        }
        if (eq == NULL && i + 1 >= argc) {
            pm_err("no value for %s", o);
            return PM_EXIT_USAGE;
        }
        value = eq != NULL ? eq + 1 : argv[i + 1];
        i += eq != NULL ? 1 : 2;
        if (is_file || is_dir) {
            pm_conf_source_t *s = apr_array_push(oslo_sources);
            s->path = value;
            s->is_dir = is_dir;
        }
        else if (*slot == NULL) {
            *slot = value;
        }
    }
    if (vhost != NULL && httpd_conf == NULL) {
        pm_err("--vhost goes with --config HTTPD_CONF");
        return PM_EXIT_USAGE;
    }
    if (i + 1 >= argc) {
        usage(stderr);
        return PM_EXIT_USAGE;
    }
    verb = argv[i];
    sub = argv[i + 1];
    i += 2;
    /* the verb's own arguments, checked before anything is opened */
    if (!status_only && !strcmp(verb, "db") &&
        (!strcmp(sub, "sync") || !strcmp(sub, "stamp"))) {
        if (i < argc) {
            arg = argv[i++];
        }
        if (!strcmp(sub, "stamp") && arg == NULL) {
            pm_err("db stamp: the version to stamp is required");
            return PM_EXIT_USAGE;
        }
        if (arg != NULL && pm_resolve_revision(arg) == NULL) {
            pm_err("Can't locate revision identified by '%s'", arg);
            return PM_EXIT_FAIL;
        }
    }
    else if (!status_only && !strcmp(verb, "db") &&
             !strcmp(sub, "online_data_migrations")) {
        if (!verb_option(argc, argv, &i, "--max-count", &arg)) {
            return PM_EXIT_USAGE;
        }
    }
    else if (!status_only && !strcmp(verb, "db") &&
             !strcmp(sub, "sync_standard_data")) {
        if (!verb_option(argc, argv, &i, "--traits-file", &arg)) {
            return PM_EXIT_USAGE;
        }
    }
    else if (!status_only && !strcmp(verb, "config") &&
             !strcmp(sub, "import")) {
        if (!import_args(argc, argv, &i, &import)) {
            return PM_EXIT_USAGE;
        }
        if (url != NULL || httpd_conf != NULL) {
            pm_err("config import reads placement.conf: --config-file or "
                   "--config-dir, not --db-url or --config");
            return PM_EXIT_USAGE;
        }
    }
    else if (!strcmp(verb, "upgrade") && !strcmp(sub, "check")) {
        if (i < argc && !strcmp(argv[i], "--json")) {
            json = 1;
            i++;
        }
    }
    else if (!(!status_only && !strcmp(verb, "db") &&
               !strcmp(sub, "version"))) {
        pm_err("unknown command: %s %s (--help lists them)", verb, sub);
        return PM_EXIT_USAGE;
    }
    if (i < argc) {
        pm_err("unrecognized arguments: %s", argv[i]);
        return PM_EXIT_USAGE;
    }

    if (!strcmp(verb, "config")) {
        pm_conf_t *conf;
        err = pm_conf_load(p, oslo_sources, &conf);
        if (err == NULL && conf->files->nelts == 0) {
            err = "no placement.conf: --config-file FILE or --config-dir DIR "
                  "(or /etc/placement/placement.conf)";
        }
        if (err != NULL) {
            pm_err("%s", err);
            return PM_EXIT_FAIL;
        }
        return pm_config_import(p, conf, &import);
    }
    err = read_source(p, url, httpd_conf, vhost, oslo_sources, &src);
    if (err == NULL) {
        err = pm_connect(p, &src, &c);
    }
    if (err != NULL) {
        pm_err("%s", err);
        return !strcmp(verb, "upgrade") ? PM_EXIT_CHECK_ERROR : PM_EXIT_FAIL;
    }
    if (!strcmp(verb, "upgrade")) {
        return pm_upgrade_check(c, json);
    }
    if (!strcmp(sub, "sync_standard_data")) {
        return pm_db_sync_standard_data(c, arg);
    }
    if (!strcmp(sub, "sync")) {
        return pm_db_sync(c, arg != NULL ? arg : "head");
    }
    if (!strcmp(sub, "version")) {
        return pm_db_version(c);
    }
    if (!strcmp(sub, "stamp")) {
        return pm_db_stamp(c, arg);
    }
    return pm_online_data_migrations(c, arg);
}

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    int rc;

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS ||
        apr_pool_create(&p, NULL) != APR_SUCCESS) {
        fputs("mod-placement-manage: cannot start APR\n", stderr);
        return PM_EXIT_FAIL;
    }
    apr_dbd_init(p);
    rc = run(p, argc, argv);
    fflush(stdout);
    apr_pool_destroy(p);
    apr_terminate();
    return rc;
}
