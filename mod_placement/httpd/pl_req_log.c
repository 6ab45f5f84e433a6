/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req_log.c: the pl_log_t of a request, through which the library
 * below the glue (pl_db, the candidate engine) writes to httpd's error
 * log under this module's LogLevel, each line carrying the request id
 * so that an operator can follow one request through its statements.
 * Each line carries the file and line of the library's pl_log call, not
 * this file's: ap_log_rerror_ is the function behind ap_log_rerror's
 * APLOG_MARK, taking them (and the module) as arguments.
 */

#include "pl_private.h"
#include "pl_req.h"

static void forward(void *baton, const char *file, int line, int level,
                    apr_status_t rv, const char *msg)
{
    const pl_req_t *req = baton;

    /* pl_log has checked the level against log.level already */
    ap_log_rerror_(file, line, APLOG_MODULE_INDEX, level, rv, req->r, "%s %s",
                   req->request_id, msg);
}

void pl_req_log_init(pl_req_t *req)
{
    req->log.fn = forward;
    req->log.baton = req;
    /* the level in force for this request: per directory, per module */
    req->log.level = ap_get_request_module_loglevel(req->r, APLOG_MODULE_INDEX);
}
