/* Licensed under the Apache License, Version 2.0.
 *
 * pl_body.h: reading the members of a request body that its JSON schema
 * has already accepted (pl_read_json): the getters every handler uses,
 * and the one reading of an inventory record (PUT and POST
 * /resource_providers/{uuid}/inventories[/{rc}], POST /reshaper).
 */
#ifndef PL_BODY_H
#define PL_BODY_H

#include <apr_pools.h>
#include <json-c/json.h>

#include "pl_store_inventory.h"

/** Member key of o, or NULL when it is absent or JSON null. */
json_object *pl_body_get(json_object *o, const char *key);

/** String member key of o, or NULL when it is absent, null or not a
 *  string. */
const char *pl_body_str(json_object *o, const char *key);

/** Integer member key of o, or dflt when it is absent (a JSON null reads
 *  0, as json-c gives it). */
apr_int64_t pl_body_int(json_object *o, const char *key, apr_int64_t dflt);

/**
 * An inventory of class rc_name from a record the schema accepted, with
 * upstream's defaults for what it leaves out (handlers/inventory.py
 * INVENTORY_DEFAULTS): reserved 0, min_unit 1, max_unit 2147483647,
 * step_size 1, allocation_ratio 1.0. Allocated from p.
 */
pl_inventory_t *pl_body_inventory(apr_pool_t *p, json_object *rec,
                                  const char *rc_name);

#endif /* PL_BODY_H */
