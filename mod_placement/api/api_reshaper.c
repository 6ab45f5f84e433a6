/* Licensed under the Apache License, Version 2.0.
 *
 * api_reshaper.c: POST /reshaper (1.30; consumer_type 1.38), placement's
 * handlers/reshaper.py: inventories and allocations of many providers
 * and consumers replaced in one transaction (one store write), every
 * generation checked.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_schemas.h"
#include "pl_api_allocation.h"
#include "pl_body.h"

/* Body and query schemas: pl_schemas.c (PL_SCHEMA_RESHAPER_*). */

/* The inventories part, as the store's write takes it. */
static void read_inventories(pl_req_t *req, json_object *invs,
                             apr_array_header_t *sets)
{
    json_object_object_foreach(invs, rp_uuid, data)
    {
        pl_alloc_inv_set_t *set = apr_pcalloc(req->pool, sizeof(*set));
        json_object *classes = pl_body_get(data, "inventories");

        set->provider_uuid = rp_uuid;
        set->generation = pl_body_int(data, "resource_provider_generation", 0);
        set->invs = apr_array_make(req->pool, 4, sizeof(pl_inventory_t *));
        {
            json_object_object_foreach(classes, rc, rec)
            {
                APR_ARRAY_PUSH(set->invs, pl_inventory_t *) = pl_body_inventory(
                    req->pool, rec, rc);
            }
        }
        APR_ARRAY_PUSH(sets, pl_alloc_inv_set_t *) = set;
    }
}

int pl_api_reshaper_post(pl_req_t *req)
{
    const char *text = req->mv >= PL_MV(1, 38) ? PL_SCHEMA_RESHAPER_SCHEMA_1_38
                       : req->mv >= PL_MV(1, 34)
                           ? PL_SCHEMA_RESHAPER_SCHEMA_1_34
                           : PL_SCHEMA_RESHAPER_SCHEMA_1_30;
    const pl_jsonschema_t *schema;
    json_object *doc;
    pl_alloc_write_t w;
    apr_status_t rv;
    pl_db_t *db;
    int st;

    if ((st = pl_schema(req, text, &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    pl_api_allocation_init(req, &w);
    w.inventories = apr_array_make(req->pool, 2, sizeof(pl_alloc_inv_set_t *));
    read_inventories(req, pl_body_get(doc, "inventories"), w.inventories);
    pl_api_allocation_parse(req, pl_body_get(doc, "allocations"), &w);
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    rv = pl_store_allocation_write(db, req->pool, &w);
    pl_api_allocation_log(req, &w);
    if (rv != APR_SUCCESS) {
        return pl_api_allocation_error(req, rv, &w, PL_API_ALLOCATION_RESHAPER);
    }
    return pl_reply_empty(req, HTTP_NO_CONTENT);
}
