/* Licensed under the Apache License, Version 2.0.
 *
 * pm_source.c: where the database is. Three ways to say it:
 *  - a URL as upstream's [placement_database] connection option takes it
 *    (SQLAlchemy's form): sqlite:///relative.db, sqlite:////abs/path.db,
 *    postgresql[+driver]://user:pass@host:port/db?host=/socketdir,
 *    mysql[+driver]://user:pass@host:port/db?unix_socket=/path;
 *  - httpd configuration holding the module's DBDriver and DBDParams
 *    lines (and PlacementIncompleteConsumer*, PlacementPolicyFile), read
 *    as httpd reads it: pm_httpd_conf.c;
 *  - upstream's placement.conf (oslo.config INI): [placement_database]
 *    connection, [placement] incomplete_consumer_*_id, [oslo_policy]
 *    policy_file.
 * The result is an apr_dbd driver name and its parameter string.
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include "pm.h"

/* %XX decoding of a URL part, from p */
static char *url_decode(apr_pool_t *p, const char *s)
{
    char *out = apr_palloc(p, strlen(s) + 1), *o = out;

    while (*s) {
        if (s[0] == '%' && apr_isxdigit(s[1]) && apr_isxdigit(s[2])) {
            char hex[3] = { s[1], s[2], 0 };
            *o++ = (char)strtol(hex, NULL, 16);
            s += 3;
        }
        else {
            *o++ = *s++;
        }
    }
    *o = 0;
    return out;
}

/* A value in a libpq conninfo string: quoted when it needs it */
static const char *pg_value(apr_pool_t *p, const char *v)
{
    const char *s;
    char *out, *o;

    if (*v && strcspn(v, " '\\") == strlen(v)) {
        return v;
    }
    out = o = apr_palloc(p, 2 * strlen(v) + 3);
    *o++ = '\'';
    for (s = v; *s; s++) {
        if (*s == '\'' || *s == '\\') {
            *o++ = '\\';
        }
        *o++ = *s;
    }
    *o++ = '\'';
    *o = 0;
    return out;
}

const char *pm_source_url(apr_pool_t *p, const char *url, pm_source_t *src)
{
    const char *sep = strstr(url, "://");
    char *scheme, *rest, *query, *path, *auth = NULL, *hostport, *at, *slash;
    const char *user = NULL, *pass = NULL, *host = NULL, *port = NULL;
    const char *db, *sock = NULL;
    int pg;

    if (sep == NULL) {
        return apr_psprintf(p, "not a database URL: %s", url);
    }
    scheme = apr_pstrmemdup(p, url, sep - url);
    rest = apr_pstrdup(p, sep + 3);
    if (!strcmp(scheme, "sqlite") || !strncmp(scheme, "sqlite+", 7)) {
        /* SQLAlchemy: three slashes and a relative path, or four and an
         * absolute one; parameters after '?' are for pysqlite */
        rest[strcspn(rest, "?")] = 0;
        if (rest[0] != '/' || rest[1] == 0) {
            return apr_psprintf(p, "no SQLite file in %s", url);
        }
        src->driver = "sqlite3";
        src->params = rest + 1;
        src->shown = apr_pstrcat(p, "sqlite:///", rest + 1, NULL);
        return NULL;
    }
    if (!strcmp(scheme, "postgresql") || !strcmp(scheme, "postgres") ||
        !strcmp(scheme, "pgsql") || !strncmp(scheme, "postgresql+", 11)) {
        pg = 1;
    }
    else if (!strcmp(scheme, "mysql") || !strcmp(scheme, "mariadb") ||
             !strncmp(scheme, "mysql+", 6) || !strncmp(scheme, "mariadb+", 8)) {
        pg = 0;
    }
    else {
        return apr_psprintf(p, "unknown database type '%s' in the URL", scheme);
    }
    query = strchr(rest, '?');
    if (query != NULL) {
        *query++ = 0;
    }
    slash = strchr(rest, '/');
    path = slash != NULL ? slash + 1 : "";
    if (slash != NULL) {
        *slash = 0;
    }
    at = strrchr(rest, '@');
    if (at != NULL) {
        *at = 0;
        auth = rest;
        hostport = at + 1;
    }
    else {
        hostport = rest;
    }
    if (auth != NULL) {
        char *colon = strchr(auth, ':');
        if (colon != NULL) {
            *colon = 0;
            pass = url_decode(p, colon + 1);
        }
        user = url_decode(p, auth);
    }
    if (*hostport == '[') { /* [IPv6]:port */
        char *end = strchr(hostport, ']');
        if (end == NULL) {
            return "bad host in the database URL";
        }
        *end = 0;
        host = hostport + 1;
        if (end[1] == ':') {
            port = end + 2;
        }
    }
    else if (*hostport) {
        char *colon = strrchr(hostport, ':');
        if (colon != NULL) {
            *colon = 0;
            port = colon + 1;
        }
        host = url_decode(p, hostport);
    }
    db = url_decode(p, path);
    while (query != NULL && *query) {
        char *amp = strchr(query, '&'), *eq;
        if (amp != NULL) {
            *amp = 0;
        }
        eq = strchr(query, '=');
        if (eq != NULL) {
            const char *v = url_decode(p, eq + 1);
            *eq = 0;
            if (!strcmp(query, "host")) {
                host = v;
            }
            else if (!strcmp(query, "port")) {
                port = v;
            }
            else if (!strcmp(query, "unix_socket") ||
                     !strcmp(query, "socket")) {
                sock = v;
            }
        }
        query = amp != NULL ? amp + 1 : NULL;
    }
    if (!*db) {
        return "no database name in the database URL";
    }
    if (port != NULL &&
        (!*port || strspn(port, "0123456789") != strlen(port))) {
        return "bad port in the database URL";
    }
    if (pg) {
        const char *s = apr_pstrcat(p, "dbname=", pg_value(p, db), NULL);
        if (host != NULL && *host) {
            s = apr_pstrcat(p, s, " host=", pg_value(p, host), NULL);
        }
        if (port != NULL) {
            s = apr_pstrcat(p, s, " port=", port, NULL);
        }
        if (user != NULL) {
            s = apr_pstrcat(p, s, " user=", pg_value(p, user), NULL);
        }
        if (pass != NULL) {
            s = apr_pstrcat(p, s, " password=", pg_value(p, pass), NULL);
        }
        src->driver = "pgsql";
        src->params = apr_pstrcat(p, s, " connect_timeout=10", NULL);
    }
    else {
        /* apr_dbd_mysql reads key=value words: no spaces in values */
        const char *vals[] = { db, host, user, pass, sock };
        const char *s;
        int i;
        for (i = 0; i < 5; i++) {
            if (vals[i] != NULL && strpbrk(vals[i], " \t") != NULL) {
                return "MySQL parameters with spaces cannot be passed on";
            }
        }
        s = apr_pstrcat(p, "dbname=", db, NULL);
        if (sock != NULL) {
            s = apr_pstrcat(p, s, " sock=", sock, NULL);
        }
        else if (host != NULL && *host) {
            s = apr_pstrcat(p, s, " host=", host, NULL);
        }
        if (port != NULL) {
            s = apr_pstrcat(p, s, " port=", port, NULL);
        }
        if (user != NULL) {
            s = apr_pstrcat(p, s, " user=", user, NULL);
        }
        if (pass != NULL) {
            s = apr_pstrcat(p, s, " pass=", pass, NULL);
        }
        src->driver = "mysql";
        src->params = apr_pstrcat(p, s, " reconnect=0 connecttimeout=10", NULL);
    }
    src->shown = apr_psprintf(p, "%s database %s on %s%s%s",
                              pg ? "PostgreSQL" : "MySQL", db,
                              sock != NULL            ? sock
                              : host != NULL && *host ? host
                                                      : "localhost",
                              port != NULL ? ":" : "", port ? port : "");
    return NULL;
}

/* "  key = value  " of an INI line into *pkey, *pvalue; 0 if not one */
static int ini_pair(apr_pool_t *p, const char *line, char **pkey, char **pvalue)
{
    const char *eq = strchr(line, '=');
    char *k, *v;

    if (eq == NULL) {
        return 0;
    }
    k = apr_collapse_spaces(apr_pstrmemdup(p, line, eq - line),
                            apr_pstrmemdup(p, line, eq - line));
    v = apr_pstrdup(p, eq + 1);
    while (apr_isspace(*v)) {
        v++;
    }
    while (*v && apr_isspace(v[strlen(v) - 1])) {
        v[strlen(v) - 1] = 0;
    }
    *pkey = k;
    *pvalue = v;
    return 1;
}

const char *pm_source_oslo_conf(apr_pool_t *p, const char *file,
                                pm_source_t *src)
{
    FILE *f = fopen(file, "r");
    char line[8192], section[128] = "";
    const char *url = NULL;

    if (f == NULL) {
        return apr_psprintf(p, "cannot read %s", file);
    }
    /* The last value of a key counts, as oslo.config reads a file */
    while (fgets(line, sizeof(line), f) != NULL) {
        char *key, *value;
        if (line[0] == '#' || line[0] == ';') {
            continue;
        }
        if (line[0] == '[') {
            apr_cpystrn(section, line + 1, sizeof(section));
            section[strcspn(section, "]")] = 0;
            continue;
        }
        if (!ini_pair(p, line, &key, &value)) {
            continue;
        }
        if (!strcmp(section, "placement_database") &&
            !strcmp(key, "connection")) {
            url = value;
        }
        else if (!strcmp(section, "placement") &&
                 !strcmp(key, "incomplete_consumer_project_id")) {
            src->incomplete_project = value;
        }
        else if (!strcmp(section, "placement") &&
                 !strcmp(key, "incomplete_consumer_user_id")) {
            src->incomplete_user = value;
        }
        else if (!strcmp(section, "oslo_policy") &&
                 !strcmp(key, "policy_file")) {
            src->policy_file = value;
        }
    }
    fclose(f);
    if (url == NULL || !*url) {
        return apr_psprintf(p, "%s has no [placement_database] connection",
                            file);
    }
    return pm_source_url(p, url, src);
}
