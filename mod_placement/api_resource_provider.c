/* Licensed under the Apache License, Version 2.0.
 *
 * api_resource_provider.c: not written yet (being written now).
 */
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"

int pl_api_rp_list(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_rp_create(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_rp_get(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_rp_update(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_rp_delete(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}
