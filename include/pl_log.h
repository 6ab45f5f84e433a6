/* Licensed under the Apache License, Version 2.0.
 *
 * pl_log.h: how the library below the glue logs without knowing httpd
 * (as mod_md's md_log): the glue hands each request a pl_log_t whose
 * function forwards to ap_log_rerror, with the highest level the
 * request's LogLevel lets through. A lower layer asks PL_LOG_ON first,
 * so that when a level is off nothing is timed, counted or formatted.
 * A NULL pl_log_t (unit tests, the command-line tool without -v) logs
 * nothing.
 */
#ifndef PL_LOG_H
#define PL_LOG_H

#include <apr_errno.h>

/* httpd's APLOG_* numbers, so the glue passes them on as they are */
#define PL_LOG_ERR 3
#define PL_LOG_WARNING 4
#define PL_LOG_NOTICE 5
#define PL_LOG_INFO 6
#define PL_LOG_DEBUG 7
#define PL_LOG_TRACE1 8 /* each statement: time, rows, its start */
#define PL_LOG_TRACE2 9 /* each statement's whole text */

/** Where a message goes: msg is formatted and ends without a newline. */
typedef void pl_log_fn(void *baton, int level, apr_status_t rv,
                       const char *msg);

typedef struct pl_log_t {
    pl_log_fn *fn;
    void *baton;
    int level; /* the highest level passed on to fn */
} pl_log_t;

/* Our own message numbers (docs/log-numbers), as the glue writes them. */
#ifndef PL_LOGNO
#define PL_LOGNO(n) "PL" #n ": "
#endif

/** Whether log (may be NULL) passes messages of this level on. */
#define PL_LOG_ON(log, lvl) ((log) != NULL && (lvl) <= (log)->level)

/**
 * Format a message and pass it on when log lets its level through.
 * Messages are cut at 4,000 bytes (httpd's own lines end at 8 KB).
 */
void pl_log(const pl_log_t *log, int level, apr_status_t rv, const char *fmt,
            ...) __attribute__((format(printf, 4, 5)));

#endif /* PL_LOG_H */
