/* Licensed under the Apache License, Version 2.0.
 *
 * api_aggregate.c: not written yet (being written now).
 */
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"

int pl_api_aggregate_list(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_aggregate_set(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}
