/* Licensed under the Apache License, Version 2.0.
 *
 * api_aggregate.c: /resource_providers/{uuid}/aggregates (placement's
 * handlers/aggregate.py), from 1.1. Up to 1.18 the body of PUT is a bare
 * list of uuids and the generation is left alone; from 1.19 both ways
 * carry resource_provider_generation, and PUT checks and bumps it.
 */
#include <string.h>
#include <apr_strings.h>
#include <apr_lib.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_body.h"
#include "pl_schemas.h"
#include "pl_store_aggregate.h"

/* schemas/aggregate.py */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_AGGREGATE_*). */

/* _send_aggregates: the generation from 1.19; last-modified is now, as
 * upstream keeps no time for an association. */
static int send_aggregates(pl_req_t *req, const pl_provider_t *prov,
                           json_object *uuids)
{
    json_object *root = json_object_new_object();

    json_object_object_add(root, "aggregates", uuids);
    if (req->mv >= PL_MV(1, 19)) {
        json_object_object_add(root, "resource_provider_generation",
                               json_object_new_int64(prov->generation));
    }
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_aggregate_list(pl_req_t *req)
{
    apr_array_header_t *uuids;
    json_object *list;
    pl_provider_t *prov;
    apr_status_t rv;
    int st, i;

    if ((st = pl_api_rp_of_path(req, NULL, &prov))) {
        return st;
    }
    rv = pl_store_aggregate_list(req->db, req->pool, prov->id, &uuids);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "listing aggregates");
    }
    list = json_object_new_array();
    for (i = 0; i < uuids->nelts; i++) {
        json_object_array_add(list, json_object_new_string(
                                        APR_ARRAY_IDX(uuids, i, const char *)));
    }
    return send_aggregates(req, prov, list);
}

int pl_api_aggregate_set(pl_req_t *req)
{
    int with_generation = req->mv >= PL_MV(1, 19);
    const pl_jsonschema_t *schema;
    apr_array_header_t *uuids;
    json_object *doc, *list;
    pl_provider_t *prov;
    apr_status_t rv;
    size_t i, n;
    int st;

    if ((st = pl_api_rp_of_path(req, NULL, &prov)) ||
        (st = pl_schema(req,
                        with_generation ? PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_19
                                        : PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_1,
                        &schema)) ||
        (st = pl_read_json(req, schema, &doc))) {
        return st;
    }
    list = doc;
    if (with_generation) {
        if (pl_body_int(doc, "resource_provider_generation", 0) !=
            prov->generation) {
            return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                          "Resource provider's generation already changed. "
                          "Please update the generation and try again.");
        }
        list = pl_body_get(doc, "aggregates");
    }
    n = json_object_array_length(list);
    uuids = apr_array_make(req->pool, (int)n + 1, sizeof(const char *));
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(uuids, const char *) = json_object_get_string(
            json_object_array_get_idx(list, i));
    }
    rv = pl_store_aggregate_set(req->db, req->pool, prov, uuids,
                                with_generation);
    if (rv == PL_ECONFLICT) {
        return pl_err(req, HTTP_CONFLICT, PL_ERRC_CONCURRENT_UPDATE,
                      "Update conflict: Another thread concurrently "
                      "updated the resource provider data. Please retry "
                      "your update");
    }
    if (rv == APR_EEXIST) {
        return pl_err(req, HTTP_CONFLICT, NULL,
                      "Update conflict: an aggregate of resource provider "
                      "%s kept being created concurrently",
                      prov->uuid);
    }
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "setting aggregates");
    }
    /* the answer echoes the list as sent */
    return send_aggregates(req, prov, json_object_get(list));
}
