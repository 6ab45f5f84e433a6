/* Licensed under the Apache License, Version 2.0.
 *
 * pl_log.h: how the library below the glue logs without knowing httpd
 * (as mod_md's md_log): the glue hands each request a pl_log_t whose
 * function forwards to ap_log_rerror_, with the highest level the
 * request's LogLevel lets through, and with the file and line of the
 * library's call (as mod_md's MD_LOG_MARK), since httpd prints them at
 * debug and trace. A lower layer asks PL_LOG_ON first,
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

/**
 * Where a message goes: msg is formatted and ends without a newline;
 * file and line are those of the pl_log call (__FILE__, __LINE__).
 */
typedef void pl_log_fn(void *baton, const char *file, int line, int level,
                       apr_status_t rv, const char *msg);

typedef struct pl_log_t {
    pl_log_fn *fn;
    void *baton;
    int level; /* the highest level passed on to fn */
} pl_log_t;

/* Our own message numbers (docs/log-numbers; scripts/check-log-numbers.sh),
 * for the library and the glue alike (pl_private.h includes this). */
#define PL_LOGNO(n) "PL" #n ": "

/** Whether log (may be NULL) passes messages of this level on. */
#define PL_LOG_ON(log, lvl) ((log) != NULL && (lvl) <= (log)->level)

/**
 * Format a message and pass it on when log lets its level through, with
 * the caller's file and line: pl_log(log, level, rv, fmt, ...).
 * Messages are cut at 4,000 bytes (httpd's own lines end at 8 KB).
 */
#define pl_log(log, level, rv, ...) \
    pl_log_at(__FILE__, __LINE__, (log), (level), (rv), __VA_ARGS__)

/** pl_log with the file and line given: what the macro calls. */
void pl_log_at(const char *file, int line, const pl_log_t *log, int level,
               apr_status_t rv, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif /* PL_LOG_H */
