/* Licensed under the Apache License, Version 2.0.
 *
 * pl_log.c: formatting a lower layer's log message (pl_log.h). The text
 * goes into a buffer on the stack: a message costs no pool memory, so a
 * request that logs every statement at trace1 does not grow with it.
 */
#include <stdarg.h>
#include <apr_strings.h>

#include "pl_log.h"

/* Long enough for a statement's text at trace2, short of httpd's 8 KB
 * line once its own prefix is added. */
#define MSG_MAX 4000

void pl_log_at(const char *file, int line, const pl_log_t *log, int level,
               apr_status_t rv, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;

    if (!PL_LOG_ON(log, level) || log->fn == NULL) {
        return;
    }
    va_start(ap, fmt);
    apr_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log->fn(log->baton, file, line, level, rv, msg);
}
