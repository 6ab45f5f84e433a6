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
 *
 * OPTIONS say where the database is (the first given counts):
 *   --db-url URL        as upstream's [placement_database] connection
 *   --config FILE       httpd configuration with DBDriver / DBDParams
 *                       (Include followed; --vhost NAME picks a server)
 *   --config-file FILE  upstream's placement.conf
 * and with none of them, upstream's default placement.conf files (oslo's
 * search: ~/.placement/, ~/, /etc/placement/, /etc/).
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
        "                             --config-file PLACEMENT_CONF] COMMAND\n"
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
        "URL: sqlite:///relative/path, sqlite:////absolute/path,\n"
        "     postgresql://user:pass@host:port/db, mysql+pymysql://...\n"
        "HTTPD_CONF: read as httpd reads it, Include and IncludeOptional\n"
        "     followed (relative to ServerRoot, by default the file's\n"
        "     directory); the DBDriver/DBDParams of the servers with\n"
        "     SetHandler placement (else of any server): one database, or\n"
        "     --vhost NAME (ServerName, <VirtualHost> address or main)\n",
        out);
}

/* Where the database is: the first option that says it */
static const char *read_source(apr_pool_t *p, const char *url,
                               const char *httpd_conf, const char *vhost,
                               const char *oslo_conf, pm_source_t *src)
{
    if (url != NULL) {
        return pm_source_url(p, url, src);
    }
    if (httpd_conf != NULL) {
        return pm_source_httpd_conf(p, httpd_conf, vhost, src);
    }
    if (oslo_conf != NULL) {
        return pm_source_oslo_conf(p, oslo_conf, src);
    }
    /* as upstream's tools: oslo.config's default files, first found */
    {
        const char *home = getenv("HOME");
        const char *files[] = {
            home ? apr_pstrcat(p, home, "/.placement/placement.conf", NULL)
                 : NULL,
            home ? apr_pstrcat(p, home, "/placement.conf", NULL) : NULL,
            "/etc/placement/placement.conf", "/etc/placement.conf"
        };
        int i;
        for (i = 0; i < 4; i++) {
            if (files[i] != NULL && access(files[i], R_OK) == 0) {
                return pm_source_oslo_conf(p, files[i], src);
            }
        }
    }
    return "no database given: --db-url URL, --config HTTPD_CONF or "
           "--config-file PLACEMENT_CONF (or /etc/placement/placement.conf)";
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

static int run(apr_pool_t *p, int argc, const char *const *argv)
{
    const char *url = NULL, *httpd_conf = NULL, *oslo_conf = NULL;
    const char *vhost = NULL;
    const char *base = strrchr(argv[0], '/');
    const char *err, *verb, *sub, *arg = NULL;
    pm_source_t src = { 0 };
    pm_conn_t *c;
    int i = 1, json = 0, status_only;

    base = base != NULL ? base + 1 : argv[0];
    status_only = strstr(base, "status") != NULL;
    /* each option takes a value: i moves by two */
    while (i < argc && argv[i][0] == '-') {
        const char *o = argv[i];
        const char **slot = !strcmp(o, "--db-url")        ? &url
                            : !strcmp(o, "--config")      ? &httpd_conf
                            : !strcmp(o, "--config-file") ? &oslo_conf
                            : !strcmp(o, "--vhost")       ? &vhost
                                                          : NULL;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            usage(stdout);
            return PM_EXIT_OK;
        }
        if (!strcmp(o, "--version")) {
            puts(PM_VERSION);
            return PM_EXIT_OK;
        }
        if (slot == NULL || i + 1 >= argc) {
            pm_err("%s: %s", slot == NULL ? "unknown option" : "no value for",
                   o);
            return PM_EXIT_USAGE;
        }
        if (*slot == NULL) {
            *slot = argv[i + 1];
        }
        i += 2;
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

    err = read_source(p, url, httpd_conf, vhost, oslo_conf, &src);
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
