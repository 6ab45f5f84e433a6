/* Licensed under the Apache License, Version 2.0.
 *
 * ac_summary.c: the provider_summaries of GET /allocation_candidates,
 * assembled from the trees the world read whole (store_ac.c): no second
 * trip to the database for what the engine already had. Pure: no
 * database, no httpd headers.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "pl_ac.h"
#include "pl_idmap.h"

/* Whether provider pv is summarized: in one of the trees of res, or one
 * of res->only_rps. */
static int summarized(const pl_ac_result_t *res, const pl_idmap_t *wanted,
                      const pl_ac_prov_t *pv)
{
    return pl_idmap_has(wanted, res->only_rps ? pv->id : pv->root_id);
}

static pl_idmap_t *id_set(apr_pool_t *p, const apr_array_header_t *ids)
{
    pl_idmap_t *m = pl_idmap_make(p, ids->nelts);
    int i;

    for (i = 0; i < ids->nelts; i++) {
        pl_idmap_add(m, APR_ARRAY_IDX(ids, i, apr_int64_t));
    }
    return m;
}

/* id -> name of names, each name's first entry */
static pl_idmap_t *name_map(apr_pool_t *p, const apr_array_header_t *names)
{
    pl_idmap_t *m = pl_idmap_make(p, names->nelts);
    int i;

    for (i = 0; i < names->nelts; i++) {
        const pl_ac_name_t *n = &APR_ARRAY_IDX(names, i, pl_ac_name_t);

        if (!pl_idmap_has(m, n->id)) {
            pl_idmap_set(m, n->id, (void *)n->name);
        }
    }
    return m;
}

static const char *name_of(const pl_idmap_t *names, apr_int64_t id)
{
    const char *name = pl_idmap_get(names, id);

    return name ? name : "";
}

/* id when the world read that provider, else 0 */
static apr_int64_t read_id(const pl_ac_world_t *w, apr_int64_t id)
{
    return id && pl_idmap_has(w->prov_by_id, id) ? id : 0;
}

/* The summary of provider id, from *last when it is that one's. */
static pl_ac_summary_t *summary_of(const pl_idmap_t *by_id, apr_int64_t id,
                                   pl_ac_summary_t **last)
{
    if (*last == NULL || (*last)->id != id) {
        *last = pl_idmap_get(by_id, id);
    }
    return *last;
}

void pl_ac_summaries(apr_pool_t *p, const pl_ac_world_t *w,
                     const pl_ac_result_t *res, int want_traits,
                     apr_array_header_t **psums, pl_idmap_t **pby_id)
{
    apr_array_header_t *sums = apr_array_make(p, w->provs->nelts + 1,
                                              sizeof(pl_ac_summary_t *));
    pl_idmap_t *by_id = pl_idmap_make(p, w->provs->nelts);
    pl_idmap_t *wanted = id_set(p, res->only_rps ? res->only_rps : res->roots);
    pl_idmap_t *rc_names = name_map(p, w->rc_names);
    pl_idmap_t *trait_names = name_map(p, w->trait_names);
    pl_ac_summary_t *last = NULL;
    int i;

    /* every provider read, in id order; the summarized ones listed */
    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);
        pl_ac_summary_t *s = apr_pcalloc(p, sizeof(*s));

        s->id = pv->id;
        s->uuid = pv->uuid;
        s->parent_id = read_id(w, pv->parent_id);
        s->root_id = read_id(w, pv->root_id);
        if (s->root_id == 0) { /* its root was not read */
            s->root_id = s->id;
        }
        s->res = apr_array_make(p, 3, sizeof(pl_ac_summary_res_t));
        s->traits = apr_array_make(p, 4, sizeof(const char *));
        pl_idmap_set(by_id, s->id, s);
        if (res->roots->nelts && summarized(res, wanted, pv)) {
            APR_ARRAY_PUSH(sums, pl_ac_summary_t *) = s;
        }
    }
    /* inventories and traits come by provider id, then class or trait:
     * a provider's come one after the other (one lookup for them all) */
    for (i = 0; i < w->invs->nelts; i++) {
        const pl_ac_inv_t *inv = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);
        pl_ac_summary_t *s = summary_of(by_id, inv->rp_id, &last);
        pl_ac_summary_res_t *r;

        if (s == NULL) {
            continue;
        }
        r = apr_array_push(s->res);
        r->rc_id = inv->rc_id;
        r->rc_name = name_of(rc_names, inv->rc_id);
        r->capacity = pl_ac_capacity(inv);
        r->used = inv->used;
    }
    for (i = 0; want_traits && i < w->all_traits->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(w->all_traits, i, pl_ac_link_t);
        pl_ac_summary_t *s = summary_of(by_id, l->rp_id, &last);

        if (s) {
            APR_ARRAY_PUSH(s->traits, const char *) = name_of(trait_names,
                                                              l->other_id);
        }
    }
    *psums = sums;
    *pby_id = by_id;
}
