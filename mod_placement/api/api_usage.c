/* Licensed under the Apache License, Version 2.0.
 *
 * api_usage.c: GET /resource_providers/{uuid}/usages and GET /usages
 * (1.9+; grouped by consumer type with consumer counts from 1.38), as
 * placement's handlers/usage.py. Both answer "what is used now", so
 * last-modified is the time of the answer.
 */
#include <apr_strings.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_api.h"
#include "pl_authorize.h"
#include "pl_schemas.h"
#include "pl_store_provider.h"
#include "pl_store_usage.h"

/* schemas/usage.py GET_USAGES_SCHEMA_1_9 */
/* Body and query schemas: pl_schemas.c (PL_SCHEMA_USAGE_*). */

int pl_api_usage_provider(pl_req_t *req)
{
    apr_array_header_t *usages;
    json_object *root, *all;
    pl_provider_t *prov;
    apr_status_t rv;
    int st, i;

    if ((st = pl_api_rp_of_path(req,
                                "No resource provider with uuid "
                                "%s found: No resource provider "
                                "with uuid %s found",
                                &prov))) {
        return st;
    }
    rv = pl_store_usage_provider(req->db, req->pool, prov->id, &usages);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading provider usages");
    }
    root = json_object_new_object();
    all = json_object_new_object();
    json_object_object_add(root, "resource_provider_generation",
                           json_object_new_int64(prov->generation));
    for (i = 0; i < usages->nelts; i++) {
        const pl_usage_t *u = APR_ARRAY_IDX(usages, i, const pl_usage_t *);

        json_object_object_add(all, u->rc_name, json_object_new_int64(u->used));
    }
    json_object_object_add(root, "usages", all);
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK, root);
}

int pl_api_usage_totals(pl_req_t *req)
{
    const char *project = pl_arg_last(req, "project_id");
    const char *user = pl_arg_last(req, "user_id");
    const char *type = pl_arg_last(req, "consumer_type");
    int by_type = req->mv >= PL_MV(1, 38);
    const pl_jsonschema_t *schema;
    apr_array_header_t *usages;
    json_object *root, *all;
    pl_db_t *db;
    apr_status_t rv;
    int st, i;

    /* Policy before the query check, as upstream; its target is the
     * project asked for, which oslo.policy renders "None" when absent. */
    if ((st = pl_authorize(req, "placement:usages",
                           project ? project : "None")) ||
        (st = pl_schema(req,
                        by_type ? PL_SCHEMA_USAGE_QS_SCHEMA_V1_38
                                : PL_SCHEMA_USAGE_QS_SCHEMA_V1_9,
                        &schema)) ||
        (st = pl_check_query(req, schema))) {
        return st;
    }
    if ((st = pl_req_db(req, &db))) {
        return st;
    }
    /* upstream tests "if user_id:", and minLength keeps "" out */
    rv = pl_store_usage_totals(db, req->pool, project, user,
                               by_type ? type : PL_USAGE_NO_TYPES, &usages);
    if (rv != APR_SUCCESS) {
        return pl_err_store(req, rv, "reading usages");
    }
    root = json_object_new_object();
    all = json_object_new_object();
    for (i = 0; i < usages->nelts; i++) {
        const pl_usage_t *u = APR_ARRAY_IDX(usages, i, const pl_usage_t *);
        json_object *group = all;

        if (by_type) {
            if (!json_object_object_get_ex(all, u->consumer_type, &group)) {
                group = json_object_new_object();
                json_object_object_add(all, u->consumer_type, group);
            }
        }
        json_object_object_add(group, u->rc_name,
                               json_object_new_int64(u->used));
        if (by_type) {
            json_object_object_add(group, "consumer_count",
                                   json_object_new_int64(u->consumer_count));
        }
    }
    json_object_object_add(root, "usages", all);
    req->last_modified = apr_time_now();
    return pl_reply_json(req, HTTP_OK, root);
}
