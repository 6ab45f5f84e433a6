/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req_log.c: the pl_log_t of a request, through which the library
 * below the glue (pl_db, the candidate engine) writes to httpd's error
 * log under this module's LogLevel, each line carrying the request id
 * so that an operator can follow one request through its statements.
 */

#include "pl_private.h"
#include "pl_req.h"

static void forward(void *baton, int level, apr_status_t rv, const char *msg)
{
    const pl_req_t *req = baton;

    ap_log_rerror(APLOG_MARK, level, rv, req->r, "%s %s", req->request_id, msg);
}

void pl_req_log_init(pl_req_t *req)
{
    req->log.fn = forward;
    req->log.baton = req;
    /* the level in force for this request: per directory, per module */
    req->log.level = ap_get_request_module_loglevel(req->r, APLOG_MODULE_INDEX);
}
