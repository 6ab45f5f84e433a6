/* Licensed under the Apache License, Version 2.0.
 *
 * pl_body.c: the members of request bodies already checked against their
 * schema, read one way for every handler (pl_body.h). The schema has
 * settled each member's type, so a getter only tells "absent" apart.
 */
#include <apr_strings.h>

#include "pl_body.h"

json_object *pl_body_get(json_object *o, const char *key)
{
    json_object *v = NULL;

    /* json-c keeps a JSON null as a NULL member */
    if (!json_object_object_get_ex(o, key, &v)) {
        return NULL;
    }
    return v;
}

const char *pl_body_str(json_object *o, const char *key)
{
    json_object *v = pl_body_get(o, key);

    return json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                                                    : NULL;
}

apr_int64_t pl_body_int(json_object *o, const char *key, apr_int64_t dflt)
{
    json_object *v;

    return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v)
                                                 : dflt;
}

pl_inventory_t *pl_body_inventory(apr_pool_t *p, json_object *rec,
                                  const char *rc_name)
{
    pl_inventory_t *inv = apr_pcalloc(p, sizeof(*inv));
    json_object *v;

    inv->rc_name = rc_name;
    inv->total = pl_body_int(rec, "total", 0);
    inv->reserved = pl_body_int(rec, "reserved", 0);
    inv->min_unit = pl_body_int(rec, "min_unit", 1);
    inv->max_unit = pl_body_int(rec, "max_unit", PL_INVENTORY_MAX_INT);
    inv->step_size = pl_body_int(rec, "step_size", 1);
    inv->allocation_ratio = json_object_object_get_ex(rec, "allocation_ratio",
                                                      &v)
                                ? json_object_get_double(v)
                                : 1.0;
    return inv;
}
