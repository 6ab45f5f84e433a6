/* Licensed under the Apache License, Version 2.0.
 *
 * api_inventory.c: not written yet (being written now).
 */
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"

int pl_api_inventory_list(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_create(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_set_all(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_delete_all(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_get(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_update(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}

int pl_api_inventory_delete(pl_req_t *req)
{
    return pl_err(req, HTTP_NOT_IMPLEMENTED, NULL, "not implemented yet");
}
