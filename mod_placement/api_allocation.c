/* Licensed under the Apache License, Version 2.0.
 *
 * api_allocation.c: not written yet (being written now).
 */
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"

int pl_api_allocation_provider_list(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_allocation_post(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_allocation_consumer_get(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_allocation_consumer_put(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_allocation_consumer_delete(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}
