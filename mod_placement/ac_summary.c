/* Licensed under the Apache License, Version 2.0.
 *
 * ac_summary.c: the provider_summaries of GET /allocation_candidates,
 * assembled from the trees the world read whole (store_ac.c): no second
 * trip to the database for what the engine already had. Pure: no
 * database, no httpd headers.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include "pl_ac.h"

/* Whether provider pv is summarized: in one of the trees of res, or one
 * of res->only_rps. */
static int summarized(const pl_ac_result_t *res, apr_hash_t *wanted,
                      const pl_ac_prov_t *pv)
{
    apr_int64_t key = res->only_rps ? pv->id : pv->root_id;

    return apr_hash_get(wanted, &key, sizeof(key)) != NULL;
}

static apr_hash_t *id_set(apr_pool_t *p, const apr_array_header_t *ids)
{
    apr_hash_t *h = apr_hash_make(p);
    int i;

    for (i = 0; i < ids->nelts; i++) {
        const apr_int64_t *v = &APR_ARRAY_IDX(ids, i, apr_int64_t);

        apr_hash_set(h, v, sizeof(*v), v);
    }
    return h;
}

static apr_hash_t *wanted_set(apr_pool_t *p, const pl_ac_result_t *res)
{
    return id_set(p, res->only_rps ? res->only_rps : res->roots);
}

static const char *name_of(const apr_array_header_t *names, apr_int64_t id)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        if (APR_ARRAY_IDX(names, i, pl_ac_name_t).id == id) {
            return APR_ARRAY_IDX(names, i, pl_ac_name_t).name;
        }
    }
    return "";
}

static const char *uuid_of(const pl_ac_world_t *w, apr_int64_t id)
{
    const pl_ac_prov_t *pv = apr_hash_get(w->prov_by_id, &id, sizeof(id));

    return pv ? pv->uuid : NULL;
}

void pl_ac_summaries(apr_pool_t *p, const pl_ac_world_t *w,
                     const pl_ac_result_t *res, int want_traits,
                     apr_array_header_t **psums, apr_hash_t **pby_id)
{
    apr_array_header_t *sums = apr_array_make(p, w->provs->nelts + 1,
                                              sizeof(pl_ac_summary_t *));
    apr_hash_t *by_id = apr_hash_make(p), *wanted = wanted_set(p, res);
    int i;

    /* every provider read, in id order; the summarized ones listed */
    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);
        pl_ac_summary_t *s = apr_pcalloc(p, sizeof(*s));

        s->id = pv->id;
        s->uuid = pv->uuid;
        s->parent_uuid = pv->parent_id ? uuid_of(w, pv->parent_id) : NULL;
        s->root_uuid = uuid_of(w, pv->root_id);
        if (s->root_uuid == NULL) { /* its root was not read */
            s->root_uuid = s->uuid;
        }
        s->res = apr_array_make(p, 3, sizeof(pl_ac_summary_res_t));
        s->traits = apr_array_make(p, 4, sizeof(const char *));
        apr_hash_set(by_id, &s->id, sizeof(s->id), s);
        if (res->roots->nelts && summarized(res, wanted, pv)) {
            APR_ARRAY_PUSH(sums, pl_ac_summary_t *) = s;
        }
    }
    /* inventories and traits come by provider id, then class or trait */
    for (i = 0; i < w->invs->nelts; i++) {
        const pl_ac_inv_t *inv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);
        pl_ac_summary_t *s = apr_hash_get(by_id, &inv->rp_id,
                                          sizeof(inv->rp_id));
        pl_ac_summary_res_t *r;

        if (s == NULL) {
            continue;
        }
        r = apr_array_push(s->res);
        r->rc_id = inv->rc_id;
        r->rc_name = name_of(w->rc_names, inv->rc_id);
        r->capacity = pl_ac_capacity(inv);
        r->used = inv->used;
    }
    for (i = 0; want_traits && i < w->all_traits->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->all_traits, i, pl_ac_link_t);
        pl_ac_summary_t *s = apr_hash_get(by_id, &l->rp_id, sizeof(l->rp_id));

        if (s) {
            APR_ARRAY_PUSH(s->traits, const char *) = name_of(w->trait_names,
                                                              l->other_id);
        }
    }
    *psums = sums;
    *pby_id = by_id;
}
