/* Licensed under the Apache License, Version 2.0.
 *
 * pm.h: mod-placement-manage, the command-line tool that does what
 * upstream's `placement-manage` and `placement-status` do (db sync,
 * version, stamp, online_data_migrations; upgrade check) on the same
 * database layer as the module (include/pl_db.h). One file per job:
 * main.c (arguments), pm_oslo_conf.c (placement.conf read as
 * oslo.config reads it), pm_source.c (where the database is: a URL or
 * upstream's placement.conf), pm_import.c and pm_import_table.c (config
 * import: placement.conf to Apache), pm_httpd_conf.c (or httpd's configuration,
 * Include followed), pm_conn.c (opening it), pm_migrate.c (alembic
 * revisions), pm_online.c (online data migrations), pm_std.c (the
 * standard classes and traits), pm_check.c (upgrade checks). Messages go to stderr, one line each; results to stdout.
 */
#ifndef PM_H
#define PM_H

#include <apr_pools.h>
#include <apr_dbd.h>
#include "pl_db.h"

/* Exit codes, as upstream's tools end */
#define PM_EXIT_OK 0
#define PM_EXIT_FAIL 1     /* an error (upstream: an exception, status 1) */
#define PM_EXIT_USAGE 2    /* bad arguments (argparse's status) */
#define PM_EXIT_BADARG 127 /* online_data_migrations --max-count < 1 */
#define PM_EXIT_CHECK_ERROR 255 /* upgrade check could not run */

/* The incomplete-consumer project and user upstream uses by default */
#define PM_MISSING_ID "00000000-0000-0000-0000-000000000000"

/** Where the database is, and what else the configuration says. */
typedef struct pm_source_t {
    const char *driver;             /* apr_dbd driver: pgsql, mysql, sqlite3 */
    const char *params;             /* its DBDParams */
    const char *shown;              /* the database for messages, no password */
    const char *incomplete_project; /* external ids for online migrations */
    const char *incomplete_user;
    const char *policy_file;     /* PlacementPolicyFile / [oslo_policy] */
    const char *std_traits_file; /* PlacementStandardTraitsFile */
    apr_array_header_t *dropped; /* "?name: why" of URL parameters
                                  * apr_dbd cannot take (or NULL) */
} pm_source_t;

/** An open connection. */
typedef struct pm_conn_t {
    apr_pool_t *pool;
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    pl_db_t *db;
    pl_db_dialect_e dialect;
    const pm_source_t *src;
} pm_conn_t;

/** The files of sql/migrations/, built into the tool (gen-sql.sh). */
typedef struct pm_sql_file_t {
    const char *name;
    const char *text;
} pm_sql_file_t;
extern const pm_sql_file_t pm_sql_files[];

/** Print "mod-placement-manage: <message>" on stderr. */
void pm_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** One `key = value` of placement.conf, where it was written. */
typedef struct pm_conf_item_t {
    const char *section; /* DEFAULT, or the name lowercased (oslo) */
    const char *key;
    const char *value; /* continuation lines joined with "\n" */
    const char *file;
    int line;
} pm_conf_item_t;

/** Everything read, in reading order (a later item overrides). */
typedef struct pm_conf_t {
    apr_array_header_t *items; /* pm_conf_item_t */
    apr_array_header_t *files; /* const char *: the files read */
} pm_conf_t;

/** A --config-file or --config-dir of the command line. */
typedef struct pm_conf_source_t {
    const char *path;
    int is_dir;
} pm_conf_source_t;

/* pm_oslo_conf.c: each reader returns NULL on success, else one line:
 * "FILE:LINE: message" for a malformed line, "FILE: cannot read: why" */
pm_conf_t *pm_conf_make(apr_pool_t *p);
/** Parse text as the file named file (for messages), appending to conf. */
const char *pm_conf_read_text(apr_pool_t *p, pm_conf_t *conf, const char *file,
                              const char *text);
const char *pm_conf_read_file(apr_pool_t *p, pm_conf_t *conf, const char *file);
/** Every *.conf of dir (hidden files not), in name order. */
const char *pm_conf_read_dir(apr_pool_t *p, pm_conf_t *conf, const char *dir);
/** Read as oslo.config does for project "placement": the default
 *  placement.conf unless sources has a file, the default placement.conf.d
 *  unless it has a directory, then sources (pm_conf_source_t) in order.
 *  *pconf is set even on error. */
const char *pm_conf_load(apr_pool_t *p, const apr_array_header_t *sources,
                         pm_conf_t **pconf);
/** The last value of section/key, or NULL. */
const pm_conf_item_t *pm_conf_get(const pm_conf_t *conf, const char *section,
                                  const char *key);
/** Every value of section/key in reading order (a list option's). */
apr_array_header_t *pm_conf_get_all(apr_pool_t *p, const pm_conf_t *conf,
                                    const char *section, const char *key);
/** it's value with oslo.config's $NAME / ${group.name} expanded ($$: a
 *  dollar sign); NULL and *perr ("FILE:LINE: ...") if a name is not set */
const char *pm_conf_value(apr_pool_t *p, const pm_conf_t *conf,
                          const pm_conf_item_t *it, const char **perr);
/** The files read, for messages: "a.conf, b.conf" */
const char *pm_conf_files_shown(apr_pool_t *p, const pm_conf_t *conf);

/* pm_source.c: each returns NULL on success or the message of the error */
const char *pm_source_url(apr_pool_t *p, const char *url, pm_source_t *src);
/** The database and the rest a verb needs from placement.conf. */
const char *pm_source_oslo_conf(apr_pool_t *p, const pm_conf_t *conf,
                                pm_source_t *src);

/* pm_import_table.c: placement.conf's options and their directives */
typedef enum {
    PM_OPT_STR,
    PM_OPT_BOOL, /* oslo's true/false, on/off, yes/no, 1/0 */
    PM_OPT_INT,  /* a whole number in [min, max] */
    PM_OPT_LIST, /* comma-separated */
    PM_OPT_MULTI /* each line a value (policy_dirs) */
} pm_opt_type_e;

typedef struct pm_import_opt_t {
    const char *section;
    const char *option;
    pm_opt_type_e type;
    const char *choices;   /* "a|b" or NULL: any */
    long min, max;         /* PM_OPT_INT */
    const char *directive; /* NULL: no equivalent */
    const char *reason;    /* with no directive: why, and what to do */
    const char *same;      /* with no directive: values ("a|b") that mean
                            * what the module does anyway: not reported */
    int code;              /* converted by pm_import.c's own code */
} pm_import_opt_t;
extern const pm_import_opt_t pm_import_table[];

/** config import's arguments */
typedef struct pm_import_opts_t {
    const char *port;     /* --port (default 8778) */
    const char *location; /* --location: a <Location> block, no vhost */
    const char *output;   /* --output FILE, or NULL: stdout */
    int strict;           /* options with no equivalent are errors */
} pm_import_opts_t;

/* pm_import.c: the exit code */
int pm_config_import(apr_pool_t *p, const pm_conf_t *conf,
                     const pm_import_opts_t *o);

/* pm_httpd_conf.c: httpd's configuration from FILE on, Include and
 * IncludeOptional followed; vhost (or NULL) picks a server when several
 * name a database. NULL on success or the message of the error. */
const char *pm_source_httpd_conf(apr_pool_t *p, const char *file,
                                 const char *vhost, pm_source_t *src);
/* pm_conn.c */
const char *pm_connect(apr_pool_t *p, const pm_source_t *src,
                       pm_conn_t **pconn);
/** Whether the table exists in the connection's database (-1: error). */
int pm_table_exists(pm_conn_t *c, const char *table);
/** How many tables the database has (-1: error). */
int pm_count_tables(pm_conn_t *c);
/** The first cell of a one-row query as a number (-1: error). */
long pm_count(pm_conn_t *c, const char *sql);
/** Run SQL text holding several statements, each ending with ';' at the
 *  end of its line, "--" comment lines skipped. tolerate: on MySQL, a
 *  statement whose object is already there (or already gone) is passed
 *  over, so that a step that DDL's implicit commits cut short can run
 *  again. */
apr_status_t pm_exec_script(pm_conn_t *c, const char *script, int tolerate);

/* pm_migrate.c: the verbs; each returns the exit code */
int pm_db_sync(pm_conn_t *c, const char *target);
int pm_db_version(pm_conn_t *c);
int pm_db_stamp(pm_conn_t *c, const char *target);
/** The revision id a name means (a full id, a unique prefix or "head"),
 *  or NULL. */
const char *pm_resolve_revision(const char *name);

/* pm_online.c */
int pm_online_data_migrations(pm_conn_t *c, const char *max_count);

/* pm_std.c: db sync_standard_data; traits_file (or NULL: the
 * configuration's PlacementStandardTraitsFile, if any) */
int pm_db_sync_standard_data(pm_conn_t *c, const char *traits_file);

/* pm_check.c */
int pm_upgrade_check(pm_conn_t *c, int json);

#endif /* PM_H */
