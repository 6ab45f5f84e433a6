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
 *  - upstream's placement.conf (read by pm_oslo_conf.c):
 *    [placement_database] connection, [placement]
 *    incomplete_consumer_*_id, [oslo_policy] policy_file.
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

/* A URL parameter apr_dbd cannot take: its name and why */
static void drop(apr_pool_t *p, pm_source_t *src, const char *name,
                 const char *why)
{
    if (src->dropped == NULL) {
        src->dropped = apr_array_make(p, 2, sizeof(const char *));
    }
    APR_ARRAY_PUSH(src->dropped, const char *) = apr_psprintf(p, "?%s: %s",
                                                              name, why);
}

/* One name=value of the URL's query. libpq takes what psycopg2 passes on
 * (sslmode, sslrootcert, sslcert, sslkey, application_name, ...): every
 * parameter goes to the conninfo. apr_dbd_mysql takes a few words; TLS
 * settings reach it only through an option group of my.cnf. */
static void url_param(apr_pool_t *p, int pg, const char *name, const char *v,
                      const char **phost, const char **pport,
                      const char **psock, const char **pextra, pm_source_t *src)
{
    static const char *const my_words[][2] = {
        { "connect_timeout", "connecttimeout" },
        { "read_timeout", "readtimeout" },
        { "write_timeout", "writetimeout" },
        { "read_default_group", "group" },
        { NULL, NULL }
    };
    int i;

    if (!strcmp(name, "host")) {
        *phost = v;
        return;
    }
    if (!strcmp(name, "port")) {
        *pport = v;
        return;
    }
    if (pg) {
        if (!strcmp(name, "client_encoding") && !strcasecmp(v, "utf8")) {
            return; /* the module's own */
        }
        *pextra = apr_pstrcat(p, *pextra, " ", name, "=", pg_value(p, v), NULL);
        return;
    }
    if (!strcmp(name, "unix_socket") || !strcmp(name, "socket")) {
        *psock = v;
        return;
    }
    if (!strcmp(name, "charset")) {
        /* MariaDB's client library speaks utf8mb4 unless told otherwise */
        if (strcasecmp(v, "utf8") != 0 && strcasecmp(v, "utf8mb4") != 0 &&
            strcasecmp(v, "utf8mb3") != 0) {
            drop(p, src, name,
                 "apr_dbd_mysql has no charset parameter: set "
                 "default-character-set in an option group of my.cnf and "
                 "add group=NAME to DBDParams");
        }
        return;
    }
    for (i = 0; my_words[i][0] != NULL; i++) {
        if (!strcmp(name, my_words[i][0]) && !strpbrk(v, " \t")) {
            *pextra = apr_pstrcat(p, *pextra, " ", my_words[i][1], "=", v,
                                  NULL);
            return;
        }
    }
    if (!strncmp(name, "ssl", 3)) {
        drop(p, src, name,
             "apr_dbd_mysql takes no TLS parameters: put ssl-ca, ssl-cert, "
             "ssl-key in an option group of my.cnf and add group=NAME to "
             "DBDParams");
        return;
    }
    drop(p, src, name, "apr_dbd_mysql has no such parameter");
}

const char *pm_source_url(apr_pool_t *p, const char *url, pm_source_t *src)
{
    const char *sep = strstr(url, "://");
    char *scheme, *rest, *query, *path, *auth = NULL, *hostport, *at, *slash;
    const char *user = NULL, *pass = NULL, *host = NULL, *port = NULL;
    const char *db, *sock = NULL, *extra = "";
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
            url_param(p, pg, query, v, &host, &port, &sock, &extra, src);
        }
        else if (*query) {
            drop(p, src, query, "a parameter without a value");
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
        s = apr_pstrcat(p, s, extra, NULL);
        src->driver = "pgsql";
        src->params = strstr(extra, " connect_timeout=") != NULL
                          ? s
                          : apr_pstrcat(p, s, " connect_timeout=10", NULL);
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
        s = apr_pstrcat(p, s, extra, NULL);
        src->driver = "mysql";
        src->params = apr_pstrcat(p, s, " reconnect=0",
                                  strstr(extra, " connecttimeout=") != NULL
                                      ? ""
                                      : " connecttimeout=10",
                                  NULL);
    }
    src->shown = apr_psprintf(p, "%s database %s on %s%s%s",
                              pg ? "PostgreSQL" : "MySQL", db,
                              sock != NULL            ? sock
                              : host != NULL && *host ? host
                                                      : "localhost",
                              port != NULL ? ":" : "", port ? port : "");
    return NULL;
}

const char *pm_source_oslo_conf(apr_pool_t *p, const pm_conf_t *conf,
                                pm_source_t *src)
{
    const pm_conf_item_t *url, *it;
    const char *err = NULL, *value;

    url = pm_conf_get(conf, "placement_database", "connection");
    if (url == NULL || !*url->value) {
        return apr_psprintf(p, "%s: no [placement_database] connection",
                            pm_conf_files_shown(p, conf));
    }
    value = pm_conf_value(p, conf, url, &err);
    if (value == NULL) {
        return err;
    }
    /* oslo.db adds connection_parameters to the URL's query */
    it = pm_conf_get(conf, "placement_database", "connection_parameters");
    if (it != NULL && *it->value) {
        value = apr_pstrcat(p, value, strchr(value, '?') ? "&" : "?", it->value,
                            NULL);
    }
    err = pm_source_url(p, value, src);
    if (err != NULL) {
        return apr_psprintf(p, "%s:%d: [placement_database] connection: %s",
                            url->file, url->line, err);
    }
    it = pm_conf_get(conf, "placement", "incomplete_consumer_project_id");
    if (it != NULL) {
        src->incomplete_project = it->value;
    }
    it = pm_conf_get(conf, "placement", "incomplete_consumer_user_id");
    if (it != NULL) {
        src->incomplete_user = it->value;
    }
    it = pm_conf_get(conf, "oslo_policy", "policy_file");
    if (it != NULL) {
        src->policy_file = it->value;
    }
    return NULL;
}
