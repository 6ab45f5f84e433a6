/* Licensed under the Apache License, Version 2.0.
 *
 * store_allocation.c: allocations in the database, and the single write
 * path of allocations (and of the reshaper's inventories), with its
 * capacity rule and generation compare-and-swap (DESIGN.md section 3).
 */
#include <string.h>
#include <stdlib.h>
#include <apr_strings.h>
#include <apr_hash.h>
#include <apr_time.h>

#include "pl_store_allocation.h"
#include "pl_store_rc.h"
#include "pl_idmap.h"

/* ------------------------------------------------------------------ */
/* listing                                                             */
/* ------------------------------------------------------------------ */

/* A new zeroed element of out from row i of a listing whose columns 2-5
 * are rc.name, a.used, a.created_at, a.updated_at; the caller fills in
 * what its columns 0-1 are. */
static pl_alloc_row_t *push_alloc_row(apr_array_header_t *out,
                                      const pl_rows_t *rows, int i)
{
    pl_alloc_row_t *r = apr_array_push(out);

    memset(r, 0, sizeof(*r));
    r->rc = PL_CELL(rows, i, 2);
    r->used = apr_atoi64(PL_CELL(rows, i, 3));
    r->created_at = PL_CELL(rows, i, 4);
    r->updated_at = PL_CELL(rows, i, 5);
    return r;
}

/* One statement, the allocations with their consumer: the periodic
 * reads of every compute are mostly this (GET /allocations/{c} for each
 * consumer on a host), and a second statement for the consumer cost a
 * round trip more each. The consumer's columns repeat on every row. */
apr_status_t pl_store_allocation_by_consumer(pl_db_t *db, apr_pool_t *p,
                                             const char *uuid,
                                             apr_array_header_t **prows,
                                             pl_consumer_t **pc)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    *pc = NULL;
    *prows = apr_array_make(p, 4, sizeof(pl_alloc_row_t));
    rv = pl_db_select(
        db, p, &rows,
        "SELECT rp.uuid, rp.generation, rc.name, a.used, "
        "a.created_at, a.updated_at, " PL_CONSUMER_COLUMNS
        " FROM allocations a "
        "JOIN resource_providers rp "
        "ON rp.id = a.resource_provider_id "
        "JOIN resource_classes rc ON rc.id = a.resource_class_id "
        "JOIN consumers c ON c.uuid = a.consumer_id " PL_CONSUMER_JOINS
        "WHERE a.consumer_id = %s ORDER BY a.id",
        PL_ARGS(uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        pl_alloc_row_t *r = push_alloc_row(*prows, rows, i);

        r->provider_uuid = PL_CELL(rows, i, 0);
        r->provider_generation = apr_atoi64(PL_CELL(rows, i, 1));
        r->consumer_uuid = uuid;
    }
    if (rows->nrows > 0) {
        *pc = pl_store_consumer_from_row(p, rows, 0, 6);
    }
    return APR_SUCCESS;
}

/* One statement, the provider's generation with its allocations (a
 * provider without any gives one row of NULLs past its generation):
 * every compute's periodic reads each provider of its tree so. */
apr_status_t pl_store_allocation_by_provider(pl_db_t *db, apr_pool_t *p,
                                             const char *uuid,
                                             apr_int64_t *pgeneration,
                                             apr_array_header_t **prows)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    *prows = apr_array_make(p, 4, sizeof(pl_alloc_row_t));
    rv = pl_db_select(
        db, p, &rows,
        "SELECT c.uuid, c.generation, rc.name, a.used, "
        "a.created_at, a.updated_at, rp.generation "
        "FROM resource_providers rp "
        "LEFT JOIN (allocations a "
        "JOIN consumers c ON c.uuid = a.consumer_id "
        "JOIN projects pr ON pr.id = c.project_id "
        "JOIN users u ON u.id = c.user_id "
        "JOIN resource_classes rc ON rc.id = a.resource_class_id) "
        "ON a.resource_provider_id = rp.id "
        "WHERE rp.uuid = %s ORDER BY a.id",
        PL_ARGS(uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rows->nrows == 0) {
        return APR_ENOENT;
    }
    *pgeneration = apr_atoi64(PL_CELL(rows, 0, 6));
    for (i = 0; i < rows->nrows; i++) {
        pl_alloc_row_t *r;

        if (PL_CELL(rows, i, 0) == NULL) { /* no allocation */
            continue;
        }
        r = push_alloc_row(*prows, rows, i);
        r->consumer_uuid = PL_CELL(rows, i, 0);
        r->consumer_generation = apr_atoi64(PL_CELL(rows, i, 1));
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* the write                                                           */
/* ------------------------------------------------------------------ */

/* What one attempt works on: the items plus the removals of "clear"
 * consumers, with resource class ids resolved. */
typedef struct work_t {
    pl_alloc_consumer_t *ac;
    pl_provider_t *prov;
    const char *rc;
    apr_int64_t rc_id;
    apr_int64_t used;
} work_t;

typedef struct inv_row_t {
    apr_int64_t rp_id, rc_id, total, reserved, min_unit, max_unit, step;
    double ratio;
    apr_int64_t used;
} inv_row_t;

/* A provider and a class: the key (its bytes) of the write's maps of
 * inventories, holdings and sums, so that an item finds its own in one
 * lookup, not in a scan of all (a write is linear in its items). */
typedef struct pair_t {
    apr_int64_t rp_id, rc_id;
} pair_t;

static void *pair_get(apr_hash_t *map, apr_int64_t rp_id, apr_int64_t rc_id)
{
    pair_t key;

    key.rp_id = rp_id;
    key.rc_id = rc_id;
    return apr_hash_get(map, &key, sizeof(key));
}

static void pair_set(apr_pool_t *p, apr_hash_t *map, apr_int64_t rp_id,
                     apr_int64_t rc_id, void *val)
{
    pair_t *key = apr_palloc(p, sizeof(*key));

    key->rp_id = rp_id;
    key->rc_id = rc_id;
    apr_hash_set(map, key, sizeof(*key), val);
}

/* A pointer as the key of a pl_idmap_t. */
#define PTR_KEY(ptr) ((apr_int64_t)(apr_uintptr_t)(ptr))

static apr_status_t rc_id(pl_db_t *db, apr_pool_t *p, pl_alloc_write_t *w,
                          apr_hash_t *cache, const char *name, apr_int64_t *pid)
{
    apr_int64_t *v = apr_hash_get(cache, name, APR_HASH_KEY_STRING);
    apr_status_t rv;

    if (v) {
        *pid = *v;
        return APR_SUCCESS;
    }
    rv = pl_store_rc_id(db, p, name, pid);
    if (rv == APR_ENOENT) {
        w->fail.rc = name;
        return rv;
    }
    if (rv == APR_SUCCESS) {
        v = apr_palloc(p, sizeof(*v));
        *v = *pid;
        apr_hash_set(cache, name, APR_HASH_KEY_STRING, v);
    }
    return rv;
}

/* id pushed onto ids unless the set of them (seen) has it already. */
static void push_unique(apr_array_header_t *ids, pl_idmap_t *seen,
                        apr_int64_t id)
{
    if (pl_idmap_add(seen, id)) {
        APR_ARRAY_PUSH(ids, apr_int64_t) = id;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    apr_int64_t x = *(const apr_int64_t *)a, y = *(const apr_int64_t *)b;

    return x < y ? -1 : x > y;
}

/* The current allocations of a consumer that is being cleared, as
 * removals (used 0), so that their providers are checked and bumped. */
static apr_status_t add_removals(pl_db_t *db, apr_pool_t *p,
                                 pl_alloc_consumer_t *ac, apr_hash_t *provs,
                                 apr_array_header_t *work)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT rp.id, rp.uuid, rp.generation, rc.name, "
                      "a.resource_class_id FROM allocations a "
                      "JOIN resource_providers rp "
                      "ON rp.id = a.resource_provider_id "
                      "JOIN resource_classes rc ON rc.id = a.resource_class_id "
                      "WHERE a.consumer_id = %s ORDER BY a.id",
                      PL_ARGS(ac->consumer->uuid));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        work_t *wk = apr_array_push(work);
        const char *uuid = PL_CELL(rows, i, 1);
        pl_provider_t *prov = apr_hash_get(provs, uuid, APR_HASH_KEY_STRING);

        if (prov == NULL) {
            prov = apr_pcalloc(p, sizeof(*prov));
            prov->id = apr_atoi64(PL_CELL(rows, i, 0));
            prov->uuid = uuid;
            prov->generation = apr_atoi64(PL_CELL(rows, i, 2));
            apr_hash_set(provs, uuid, APR_HASH_KEY_STRING, prov);
        }
        wk->ac = ac;
        wk->prov = prov;
        wk->rc = PL_CELL(rows, i, 3);
        wk->rc_id = apr_atoi64(PL_CELL(rows, i, 4));
        wk->used = 0;
    }
    return APR_SUCCESS;
}

static apr_int64_t held_on(apr_hash_t *held, apr_int64_t rp_id,
                           apr_int64_t rc_id)
{
    const apr_int64_t *used = pair_get(held, rp_id, rc_id);

    return used ? *used : 0;
}

/* What check_capacity works on, read in one statement before the
 * write's DELETE: the providers' generations (into by_id's providers:
 * read with the usages, so that a write committed after it makes the
 * later compare-and-swap fail), their inventories in the write's
 * classes (*pinvs pair_t -> inv_row_t *, used: what the consumers
 * outside the write hold), the providers with any of them (*pwith: id
 * -> the first) and what the write's consumers hold now (*pheld pair_t
 * -> apr_int64_t *: with the others' it is the usage before the write,
 * which a provider over capacity must not exceed afterwards: upstream
 * bug 2104040). */
typedef struct state_t {
    apr_hash_t *invs;
    pl_idmap_t *with;
    apr_hash_t *held;
} state_t;

static apr_status_t read_state(pl_db_t *db, apr_pool_t *p,
                               const apr_array_header_t *consumers,
                               apr_array_header_t *rp_ids,
                               apr_array_header_t *rc_ids,
                               const pl_idmap_t *by_id, state_t *st)
{
    apr_array_header_t *uuids = apr_array_make(p, consumers->nelts + 1,
                                               sizeof(const char *));
    apr_array_header_t *args = apr_array_make(p, 3, sizeof(const char *));
    int bare = pl_db_dialect(db) == PL_DB_PGSQL; /* pl_db_in_set's arrays */
    const char *sql, *rc_in, *consumer_in, *rp_in;
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    for (i = 0; i < consumers->nelts; i++) {
        const char *uuid = APR_ARRAY_IDX(consumers, i, pl_alloc_consumer_t *)
                               ->consumer->uuid;

        APR_ARRAY_PUSH(uuids, const char *) = bare ? uuid
                                                   : pl_db_quote(db, p, uuid);
    }
    /* in the text's order: each pushes its argument on args */
    rc_in = pl_db_in_set(db, p, pl_db_id_array(p, rc_ids), args);
    consumer_in = pl_db_in_set(db, p, apr_array_pstrcat(p, uuids, ','), args);
    rp_in = pl_db_in_set(db, p, pl_db_id_array(p, rp_ids), args);
    sql = apr_psprintf(
        p,
        "SELECT rp.id, rp.generation, i.resource_class_id, i.total, "
        "i.reserved, i.min_unit, i.max_unit, i.step_size, "
        "i.allocation_ratio, (SELECT SUM(a.used) FROM allocations a "
        "WHERE a.resource_provider_id = i.resource_provider_id "
        "AND a.resource_class_id = i.resource_class_id), h.used "
        "FROM resource_providers rp "
        "LEFT JOIN inventories i ON i.resource_provider_id = rp.id "
        "AND i.resource_class_id %s "
        "LEFT JOIN (SELECT resource_provider_id, resource_class_id, "
        "SUM(used) AS used FROM allocations WHERE consumer_id %s "
        "GROUP BY resource_provider_id, resource_class_id) h "
        "ON h.resource_provider_id = i.resource_provider_id "
        "AND h.resource_class_id = i.resource_class_id "
        "WHERE rp.id %s",
        rc_in, consumer_in, rp_in);
    rv = args->nelts > 0
             ? pl_db_select(db, p, &rows, sql, args->nelts,
                            (const char *const *)args->elts)
             : pl_db_select_text(db, p, &rows, sql, PL_DB_TEXT_KEPT);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    st->invs = apr_hash_make(p);
    st->held = apr_hash_make(p);
    st->with = pl_idmap_make(p, (apr_size_t)rp_ids->nelts);
    for (i = 0; i < rows->nrows; i++) {
        apr_int64_t rp_id = apr_atoi64(PL_CELL(rows, i, 0));
        pl_provider_t *prov = pl_idmap_get(by_id, rp_id);
        apr_int64_t *held;
        inv_row_t *r;

        if (prov != NULL) {
            prov->generation = apr_atoi64(PL_CELL(rows, i, 1));
        }
        if (PL_CELL(rows, i, 2) == NULL) {
            continue; /* none of the classes on this provider */
        }
        r = apr_palloc(p, sizeof(*r));
        held = apr_palloc(p, sizeof(*held));
        r->rp_id = rp_id;
        r->rc_id = apr_atoi64(PL_CELL(rows, i, 2));
        r->total = apr_atoi64(PL_CELL(rows, i, 3));
        r->reserved = apr_atoi64(PL_CELL(rows, i, 4));
        r->min_unit = apr_atoi64(PL_CELL(rows, i, 5));
        r->max_unit = apr_atoi64(PL_CELL(rows, i, 6));
        r->step = apr_atoi64(PL_CELL(rows, i, 7));
        r->ratio = atof(PL_CELL(rows, i, 8));
        *held = PL_CELL(rows, i, 10) ? apr_atoi64(PL_CELL(rows, i, 10)) : 0;
        /* the others' usage: all of it but what the write replaces */
        r->used = (PL_CELL(rows, i, 9) ? apr_atoi64(PL_CELL(rows, i, 9)) : 0) -
                  *held;
        pair_set(p, st->invs, r->rp_id, r->rc_id, r);
        pair_set(p, st->held, r->rp_id, r->rc_id, held);
        if (!pl_idmap_has(st->with, r->rp_id)) {
            pl_idmap_set(st->with, r->rp_id, r);
        }
    }
    return APR_SUCCESS;
}

/* Every provider must have inventory of at least one class asked: the
 * failure names those that have none (in the order of the items) and
 * every class asked (in id order). */
static apr_status_t check_some_inventory(apr_pool_t *p, pl_alloc_write_t *w,
                                         const apr_array_header_t *work,
                                         const apr_array_header_t *rc_ids,
                                         const pl_idmap_t *with)
{
    apr_array_header_t *missing = apr_array_make(p, 2, sizeof(const char *));
    apr_array_header_t *sorted;
    pl_idmap_t *named = pl_idmap_make(p, 16), *rc_names;
    int i;

    for (i = 0; i < work->nelts; i++) {
        const work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (!pl_idmap_has(with, wk->prov->id) &&
            pl_idmap_add(named, wk->prov->id)) {
            APR_ARRAY_PUSH(missing, const char *) = wk->prov->uuid;
        }
    }
    if (missing->nelts == 0) {
        return APR_SUCCESS;
    }
    /* each class by the name its first item gave */
    rc_names = pl_idmap_make(p, (apr_size_t)rc_ids->nelts);
    for (i = 0; i < work->nelts; i++) {
        const work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (!pl_idmap_has(rc_names, wk->rc_id)) {
            pl_idmap_set(rc_names, wk->rc_id, (void *)wk->rc);
        }
    }
    sorted = apr_array_copy(p, rc_ids);
    qsort(sorted->elts, (size_t)sorted->nelts, sizeof(apr_int64_t), cmp_i64);
    w->fail.why = PL_ALLOC_NO_INVENTORY;
    w->fail.providers = missing;
    w->fail.classes = apr_array_make(p, sorted->nelts, sizeof(const char *));
    for (i = 0; i < sorted->nelts; i++) {
        const char *name = pl_idmap_get(rc_names,
                                        APR_ARRAY_IDX(sorted, i, apr_int64_t));

        if (name != NULL) {
            APR_ARRAY_PUSH(w->fail.classes, const char *) = name;
        }
    }
    return PL_ECAPACITY;
}

/* The capacity rule of upstream's _check_capacity_exceeded, with the
 * relief of upstream bug 2104040 (placement 14.0.0, 2025.2; not in 13.0.0
 * or before, nor backported): a provider and class over capacity after the
 * write is accepted when its usage is no higher than before (held: what
 * the write's consumers held before it; inv_row_t.used: what the others
 * hold). Applied whatever PlacementPolicyDefaults says, on purpose: it
 * only lets an operator out of a stuck state (docs/api-coverage.md). */
static apr_status_t check_capacity(apr_pool_t *p, pl_alloc_write_t *w,
                                   apr_array_header_t *work,
                                   apr_array_header_t *rc_ids,
                                   const state_t *st)
{
    apr_hash_t *invs = st->invs, *held = st->held, *sums = apr_hash_make(p);
    apr_status_t rv;
    int k;

    if ((rv = check_some_inventory(p, w, work, rc_ids, st->with))) {
        return rv;
    }
    for (k = 0; k < work->nelts; k++) {
        work_t *wk = &APR_ARRAY_IDX(work, k, work_t);
        inv_row_t *inv;
        apr_int64_t *sum;
        double capacity;

        /* what the items so far ask of this provider and class */
        sum = pair_get(sums, wk->prov->id, wk->rc_id);
        if (sum == NULL) {
            sum = apr_pcalloc(p, sizeof(*sum));
            pair_set(p, sums, wk->prov->id, wk->rc_id, sum);
        }
        *sum += wk->used;
        if (wk->used == 0) {
            continue;
        }
        inv = pair_get(invs, wk->prov->id, wk->rc_id);
        if (inv == NULL) {
            w->fail.why = PL_ALLOC_NO_INVENTORY;
            w->fail.providers = apr_array_make(p, 1, sizeof(const char *));
            w->fail.classes = apr_array_make(p, 1, sizeof(const char *));
            APR_ARRAY_PUSH(w->fail.providers, const char *) = wk->prov->uuid;
            APR_ARRAY_PUSH(w->fail.classes, const char *) = wk->rc;
            return PL_ECAPACITY;
        }
        if (wk->used < inv->min_unit || wk->used > inv->max_unit ||
            wk->used % inv->step != 0) {
            w->fail.why = PL_ALLOC_BAD_AMOUNT;
            w->fail.rc = wk->rc;
            w->fail.provider = wk->prov->uuid;
            return PL_ECAPACITY;
        }
        capacity = (double)(inv->total - inv->reserved) * inv->ratio;
        /* usage after (others + sum) above usage before (others +
         * held), without adding to the others' (no overflow) */
        if ((capacity < (double)(inv->used + wk->used) ||
             capacity < (double)(inv->used + *sum)) &&
            *sum > held_on(held, inv->rp_id, inv->rc_id)) {
            w->fail.why = PL_ALLOC_OVER_CAPACITY;
            w->fail.rc = wk->rc;
            w->fail.provider = wk->prov->uuid;
            return PL_ECAPACITY;
        }
    }
    return APR_SUCCESS;
}

/* c in p: what the rest of the write reads of it outlives the pool of
 * the statements that found it */
static pl_consumer_t *consumer_keep(apr_pool_t *p, const pl_consumer_t *c)
{
    pl_consumer_t *k = apr_pmemdup(p, c, sizeof(*c));

    k->uuid = apr_pstrdup(p, c->uuid);
    k->project_external_id = apr_pstrdup(p, c->project_external_id);
    k->user_external_id = apr_pstrdup(p, c->user_external_id);
    k->type_name = apr_pstrdup(p, c->type_name);
    k->created_at = apr_pstrdup(p, c->created_at);
    k->updated_at = apr_pstrdup(p, c->updated_at);
    return k;
}

/* upstream's ensure_consumer, inside the write's transaction: the
 * consumer (project, user, type) made to exist, its generation checked.
 * Its statements use p, which the caller clears after each consumer
 * (a driver's result buffers, some KB a statement on MySQL, would
 * otherwise add up over a write of thousands); ac->consumer is kept in
 * keep. */
static apr_status_t ensure_consumer(pl_db_t *db, apr_pool_t *p,
                                    apr_pool_t *keep, pl_alloc_write_t *w,
                                    pl_alloc_consumer_t *ac, int has_items)
{
    pl_consumer_names_t names;
    pl_consumer_t *c = NULL;
    apr_status_t rv;

    ac->consumer = NULL;
    ac->created = 0;
    ac->type_id = 0;
    memset(&names, 0, sizeof(names));
    names.uuid = ac->uuid;
    names.project_external_id = ac->project_external_id;
    names.user_external_id = ac->user_external_id;
    names.type_name = ac->type_name;
    /* all four in one statement; what is missing is made below */
    if ((rv = pl_store_consumer_resolve(db, p, &names, &c))) {
        return rv;
    }
    ac->project_id = names.project_id;
    ac->user_id = names.user_id;
    if ((!ac->project_id &&
         (rv = pl_store_project_ensure(db, p, ac->project_external_id,
                                       &ac->project_id))) ||
        (!ac->user_id && (rv = pl_store_user_ensure(db, p, ac->user_external_id,
                                                    &ac->user_id)))) {
        return rv;
    }
    if (c != NULL) {
        if (ac->check_generation &&
            (!ac->has_generation || ac->generation != c->generation)) {
            w->fail.has_current = 1;
            w->fail.current = c->generation;
            w->fail.has_given = ac->has_generation;
            w->fail.given = ac->generation;
            return PL_ALLOC_ECONSUMER;
        }
    }
    else if (ac->check_generation && ac->has_generation) {
        w->fail.has_given = 1;
        w->fail.given = ac->generation;
        return PL_ALLOC_ECONSUMER;
    }
    ac->type_id = ac->type_name ? names.type_id : 0;
    if (ac->type_name && !ac->type_id &&
        (rv = pl_store_consumer_type_ensure(db, p, ac->type_name,
                                            &ac->type_id))) {
        return rv;
    }
    if (c == NULL) {
        /* one with items is made at generation 1 (bump_consumers
         * leaves it be: no one else sees it before the commit) */
        rv = pl_store_consumer_create(db, p, ac->uuid, ac->project_id,
                                      ac->user_id, ac->type_id,
                                      has_items ? 1 : 0, &c, &ac->created);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        /* Another request created it first: its INSERT made ours wait
         * for its whole write. This request meant a new consumer, so it
         * compares against generation 0 and its bump fails (409 "Another
         * thread concurrently updated the data"), as when upstream's (and
         * our former) separate consumer transactions race. */
        if (!ac->created) {
            c->generation = 0;
        }
    }
    ac->consumer = consumer_keep(keep, c);
    return APR_SUCCESS;
}

/* A row of find_providers' statement: a provider (column 0 is 0) into
 * its map (uuid -> pl_provider_t *: id, uuid and generation only), or a
 * class (1) into the write's cache of class ids (name, as the database
 * has it: MySQL compares without case -> apr_int64_t *). */
typedef struct found_t {
    apr_pool_t *p;
    apr_hash_t *map;
    apr_hash_t *rcs;
} found_t;

static apr_status_t found_provider(void *baton, int ncols,
                                   const char *const *cells)
{
    found_t *f = baton;

    (void)ncols;
    if (cells[0][0] == '0') {
        pl_provider_t *prov = apr_pcalloc(f->p, sizeof(*prov));

        prov->id = apr_atoi64(cells[1]);
        prov->uuid = apr_pstrdup(f->p, cells[2]);
        prov->generation = apr_atoi64(cells[3]);
        apr_hash_set(f->map, prov->uuid, APR_HASH_KEY_STRING, prov);
    }
    else {
        apr_int64_t *v = apr_palloc(f->p, sizeof(*v));

        *v = apr_atoi64(cells[1]);
        apr_hash_set(f->rcs, apr_pstrdup(f->p, cells[2]), APR_HASH_KEY_STRING,
                     v);
    }
    return APR_SUCCESS;
}

/* name pushed onto ask unless asked (a set of them) has it already. */
static void ask_once(apr_array_header_t *ask, apr_hash_t *asked,
                     const char *name)
{
    if (!apr_hash_get(asked, name, APR_HASH_KEY_STRING)) {
        apr_hash_set(asked, name, APR_HASH_KEY_STRING, "");
        APR_ARRAY_PUSH(ask, const char *) = name;
    }
}

/* The providers of the items into provs (uuid -> pl_provider_t *) and
 * their classes into rcs (resolve_classes' cache), all in one statement
 * (chunked for big writes: one list of uuids and names, which each half
 * of the statement matches against its own column), then the providers
 * in the order they are named: the first unknown one is the failure (a
 * class unknown is resolve_classes' to name, after). A uuid the
 * statement did not give back as it was asked is read alone as before
 * (MySQL compares uuids without case). */
static apr_status_t find_providers(pl_db_t *db, apr_pool_t *p,
                                   pl_alloc_write_t *w, apr_hash_t *provs,
                                   apr_hash_t *rcs)
{
    static const pl_db_list_t by_name = {
        "SELECT 0, id, uuid, generation FROM resource_providers "
        "WHERE uuid IN (",
        0,
        NULL,
        "%s",
        0,
        NULL,
        ")",
        0,
        NULL,
        1,
        ") UNION ALL SELECT 1, id, name, 0 FROM resource_classes "
        "WHERE name IN ("
    };
    apr_array_header_t *ask = apr_array_make(p, 4, sizeof(const char *));
    apr_array_header_t *uuids = apr_array_make(p, 4, sizeof(const char *));
    apr_hash_t *asked = apr_hash_make(p);
    found_t found;
    apr_status_t rv;
    int i;

    for (i = 0; i < w->items->nelts; i++) {
        const pl_alloc_item_t *it = &APR_ARRAY_IDX(w->items, i,
                                                   pl_alloc_item_t);

        if (!apr_hash_get(provs, it->provider_uuid, APR_HASH_KEY_STRING) &&
            !apr_hash_get(asked, it->provider_uuid, APR_HASH_KEY_STRING)) {
            APR_ARRAY_PUSH(uuids, const char *) = it->provider_uuid;
            ask_once(ask, asked, it->provider_uuid);
        }
    }
    for (i = 0; i < w->items->nelts; i++) {
        const char *rc = APR_ARRAY_IDX(w->items, i, pl_alloc_item_t).rc;

        if (!apr_hash_get(rcs, rc, APR_HASH_KEY_STRING)) {
            ask_once(ask, asked, rc);
        }
    }
    found.p = p;
    found.map = apr_hash_make(p);
    found.rcs = rcs;
    rv = pl_db_select_list(db, p, &by_name, PL_DB_ARRAY(ask), found_provider,
                           &found);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < uuids->nelts; i++) {
        const char *uuid = APR_ARRAY_IDX(uuids, i, const char *);
        pl_provider_t *prov = apr_hash_get(found.map, uuid,
                                           APR_HASH_KEY_STRING);

        if (prov == NULL) {
            rv = pl_store_provider_get(db, p, uuid, &prov);
            if (rv == APR_ENOENT) {
                w->fail.provider = uuid;
                return PL_ALLOC_ENOPROVIDER;
            }
            if (rv != APR_SUCCESS) {
                return rv;
            }
        }
        apr_hash_set(provs, uuid, APR_HASH_KEY_STRING, prov);
    }
    return APR_SUCCESS;
}

/* upstream's update_consumers: project/user/type as the request says */
static apr_status_t update_consumers(pl_db_t *db, pl_alloc_write_t *w)
{
    apr_status_t rv;
    int i;

    for (i = 0; i < w->consumers->nelts; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(w->consumers, i,
                                                pl_alloc_consumer_t *);
        pl_consumer_t *c = ac->consumer;
        int change = 0;

        if (ac->project_id != c->project_id || ac->user_id != c->user_id) {
            c->project_id = ac->project_id;
            c->user_id = ac->user_id;
            c->project_external_id = ac->project_external_id;
            c->user_external_id = ac->user_external_id;
            change = 1;
        }
        if (ac->type_id && ac->type_id != c->type_id) {
            c->type_id = ac->type_id;
            change = 1;
        }
        if (change && (rv = pl_store_consumer_update(db, c))) {
            return rv;
        }
    }
    return APR_SUCCESS;
}

/* Replace the inventory of set->prov with invs (pl_inventory_t *, names
 * resolved here) through the inventory store, in this transaction. */
static apr_status_t replace_inventory(pl_db_t *db, apr_pool_t *p,
                                      pl_alloc_write_t *w, apr_hash_t *rcs,
                                      pl_provider_t *prov,
                                      const apr_array_header_t *invs)
{
    const char *inuse = NULL;
    apr_status_t rv;
    int i;

    for (i = 0; i < invs->nelts; i++) {
        pl_inventory_t *inv = APR_ARRAY_IDX(invs, i, pl_inventory_t *);

        if ((rv = rc_id(db, p, w, rcs, inv->rc_name, &inv->rc_id))) {
            return rv;
        }
    }
    rv = pl_store_inventory_set(db, p, prov, invs, &inuse, NULL);
    if (rv == PL_EINUSE) {
        w->fail.rc = inuse;
        w->fail.provider = prov->uuid;
    }
    else if (rv == PL_ECONFLICT) {
        w->fail.why = PL_ALLOC_PROVIDER_MOVED;
    }
    return rv;
}

/* The reshaper's interim inventory: what exists plus what is asked, so
 * that allocations can move before classes go. */
static apr_status_t interim_inventory(pl_db_t *db, apr_pool_t *p,
                                      pl_alloc_write_t *w, apr_hash_t *rcs,
                                      pl_alloc_inv_set_t *set)
{
    apr_array_header_t *have, *un;
    apr_hash_t *asked;
    apr_status_t rv;
    int i;

    if (set->invs->nelts == 0) {
        return APR_SUCCESS;
    }
    if ((rv = pl_store_inventory_list(db, p, set->prov->id, &have))) {
        return rv;
    }
    asked = apr_hash_make(p);
    for (i = 0; i < set->invs->nelts; i++) {
        apr_hash_set(asked,
                     APR_ARRAY_IDX(set->invs, i, pl_inventory_t *)->rc_name,
                     APR_HASH_KEY_STRING, "");
    }
    un = apr_array_copy(p, set->invs);
    for (i = 0; i < have->nelts; i++) {
        pl_inventory_t *old = APR_ARRAY_IDX(have, i, pl_inventory_t *);

        if (!apr_hash_get(asked, old->rc_name, APR_HASH_KEY_STRING)) {
            APR_ARRAY_PUSH(un, pl_inventory_t *) = old;
        }
    }
    return replace_inventory(db, p, w, rcs, set->prov, un);
}

static apr_status_t replace_allocations(pl_db_t *db, apr_pool_t *p,
                                        pl_alloc_write_t *w, apr_hash_t *provs,
                                        apr_hash_t *rcs);

/* The reshaper's providers, each at the generation the client gave
 * (upstream checks them before anything else). */
static apr_status_t find_inventory_providers(pl_db_t *db, apr_pool_t *p,
                                             pl_alloc_write_t *w)
{
    apr_status_t rv;
    int i;

    for (i = 0; w->inventories && i < w->inventories->nelts; i++) {
        pl_alloc_inv_set_t *set = APR_ARRAY_IDX(w->inventories, i,
                                                pl_alloc_inv_set_t *);

        rv = pl_store_provider_get(db, p, set->provider_uuid, &set->prov);
        if (rv == APR_ENOENT) {
            w->fail.provider = set->provider_uuid;
            return PL_ALLOC_ENOINVPROVIDER;
        }
        if (rv != APR_SUCCESS) {
            return rv;
        }
        if (set->generation != set->prov->generation) {
            w->fail.provider = set->provider_uuid;
            w->fail.has_current = 1;
            w->fail.current = set->prov->generation;
            w->fail.has_given = 1;
            w->fail.given = set->generation;
            return PL_ALLOC_EPROVGEN;
        }
    }
    return APR_SUCCESS;
}

/* One attempt of the write, inside its transaction (a pl_db_txn_fn). */
static apr_status_t write_once(pl_db_t *db, apr_pool_t *p, void *baton)
{
    pl_alloc_write_t *w = baton;
    apr_hash_t *provs = apr_hash_make(p), *rcs = apr_hash_make(p);
    pl_idmap_t *with_items;
    apr_pool_t *each;
    apr_status_t rv;
    int i;

    memset(&w->fail, 0, sizeof(w->fail));
    if ((rv = find_inventory_providers(db, p, w))) {
        return rv;
    }
    /* the consumers with items: replace_allocations bumps them */
    with_items = pl_idmap_make(p, (apr_size_t)w->consumers->nelts);
    for (i = 0; i < w->items->nelts; i++) {
        pl_idmap_add(with_items,
                     PTR_KEY(APR_ARRAY_IDX(w->items, i, pl_alloc_item_t).ac));
    }
    apr_pool_create(&each, p);
    for (i = 0, rv = APR_SUCCESS; i < w->consumers->nelts && !rv; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(w->consumers, i,
                                                pl_alloc_consumer_t *);

        rv = ensure_consumer(db, each, p, w, ac,
                             pl_idmap_has(with_items, PTR_KEY(ac)));
        apr_pool_clear(each);
    }
    apr_pool_destroy(each);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; w->inventories && i < w->inventories->nelts; i++) {
        pl_alloc_inv_set_t *set = APR_ARRAY_IDX(w->inventories, i,
                                                pl_alloc_inv_set_t *);

        apr_hash_set(provs, set->prov->uuid, APR_HASH_KEY_STRING, set->prov);
    }
    if ((rv = find_providers(db, p, w, provs, rcs)) ||
        (rv = update_consumers(db, w))) {
        return rv;
    }
    for (i = 0; w->inventories && i < w->inventories->nelts; i++) {
        pl_alloc_inv_set_t *set = APR_ARRAY_IDX(w->inventories, i,
                                                pl_alloc_inv_set_t *);

        if ((rv = interim_inventory(db, p, w, rcs, set))) {
            return rv;
        }
    }
    if ((rv = replace_allocations(db, p, w, provs, rcs)) != APR_SUCCESS) {
        return rv;
    }
    /* the reshaper's inventories as asked, now that allocations moved */
    for (i = 0; w->inventories && i < w->inventories->nelts; i++) {
        pl_alloc_inv_set_t *set = APR_ARRAY_IDX(w->inventories, i,
                                                pl_alloc_inv_set_t *);

        if ((rv = replace_inventory(db, p, w, rcs, set->prov, set->invs))) {
            return rv;
        }
    }
    return APR_SUCCESS;
}

/* A class name of the write's statement into the cache of rc_id: the
 * name as the database has it (MySQL compares without case). */
typedef struct rc_found_t {
    apr_pool_t *p;
    apr_hash_t *rcs;
} rc_found_t;

static apr_status_t found_rc(void *baton, int ncols, const char *const *cells)
{
    rc_found_t *f = baton;
    apr_int64_t *v = apr_palloc(f->p, sizeof(*v));

    (void)ncols;
    *v = apr_atoi64(cells[0]);
    apr_hash_set(f->rcs, apr_pstrdup(f->p, cells[1]), APR_HASH_KEY_STRING, v);
    return APR_SUCCESS;
}

/* The ids of the classes of the items, all in one statement, into rcs
 * (name -> apr_int64_t *); then in the order of the items: the first
 * unknown one is the failure (fail.rc, APR_ENOENT). */
static apr_status_t resolve_classes(pl_db_t *db, apr_pool_t *p,
                                    pl_alloc_write_t *w, apr_hash_t *rcs,
                                    apr_array_header_t *work)
{
    static const pl_db_list_t by_name = {
        "SELECT id, name FROM resource_classes WHERE name IN (",
        0,
        NULL,
        "%s",
        0,
        NULL,
        ")",
        0
    };
    apr_array_header_t *ask = apr_array_make(p, 4, sizeof(const char *));
    apr_hash_t *asked = apr_hash_make(p);
    rc_found_t found;
    apr_status_t rv;
    int i;

    for (i = 0; i < work->nelts; i++) {
        work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (wk->rc_id < 0 && !apr_hash_get(rcs, wk->rc, APR_HASH_KEY_STRING) &&
            !apr_hash_get(asked, wk->rc, APR_HASH_KEY_STRING)) {
            apr_hash_set(asked, wk->rc, APR_HASH_KEY_STRING, "");
            APR_ARRAY_PUSH(ask, const char *) = wk->rc;
        }
    }
    found.p = p;
    found.rcs = rcs;
    rv = pl_db_select_list(db, p, &by_name, PL_DB_ARRAY(ask), found_rc, &found);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < work->nelts; i++) {
        work_t *wk = &APR_ARRAY_IDX(work, i, work_t);
        const apr_int64_t *v;

        if (wk->rc_id >= 0) {
            continue;
        }
        v = apr_hash_get(rcs, wk->rc, APR_HASH_KEY_STRING);
        if (v == NULL) {
            w->fail.rc = wk->rc;
            return APR_ENOENT;
        }
        wk->rc_id = *v;
    }
    return APR_SUCCESS;
}

/* The new allocations of work (those with an amount) in multi-row
 * INSERTs: pl_db_exec_list chunks a big write. */
static apr_status_t insert_allocations(pl_db_t *db, apr_pool_t *p,
                                       const apr_array_header_t *work)
{
    const char *now = pl_db_now(p);
    const char *const extra[] = { now };
    const pl_db_list_t insert = { "INSERT INTO allocations "
                                  "(resource_provider_id, consumer_id, "
                                  "resource_class_id, used, created_at) "
                                  "VALUES ",
                                  0,
                                  NULL,
                                  "(%s, %s, %s, %s, %s)",
                                  1,
                                  extra,
                                  "",
                                  4 };
    apr_array_header_t *values = apr_array_make(p, work->nelts * 4 + 1,
                                                sizeof(const char *));
    int i;

    for (i = 0; i < work->nelts; i++) {
        const work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (wk->used == 0) {
            continue;
        }
        APR_ARRAY_PUSH(values, const char *) = pl_db_i64(p, wk->prov->id);
        APR_ARRAY_PUSH(values, const char *) = wk->ac->consumer->uuid;
        APR_ARRAY_PUSH(values, const char *) = pl_db_i64(p, wk->rc_id);
        APR_ARRAY_PUSH(values, const char *) = pl_db_i64(p, wk->used);
    }
    return pl_db_exec_list(db, p, &insert, (const char *const *)values->elts,
                           values->nelts / 4, NULL);
}

/* The generations of the write's providers (rp_ids, in id order),
 * bumped in one statement: a provider that moved since read_state is a
 * conflict the transaction retries. */
static apr_status_t bump_providers(pl_db_t *db, apr_pool_t *p,
                                   const apr_array_header_t *rp_ids,
                                   const pl_idmap_t *by_id)
{
    apr_int64_t **gens = apr_palloc(p, (apr_size_t)(rp_ids->nelts + 1) *
                                           sizeof(*gens));
    apr_status_t rv;
    int i;

    for (i = 0; i < rp_ids->nelts; i++) {
        pl_provider_t *prov = pl_idmap_get(
            by_id, APR_ARRAY_IDX(rp_ids, i, apr_int64_t));

        gens[i] = &prov->generation;
    }
    rv = pl_store_bump_generations(db, p, "resource_providers", rp_ids->nelts,
                                   (const apr_int64_t *)rp_ids->elts, gens);
    return rv == PL_ECONFLICT ? PL_DB_ERETRY : rv;
}

/* The generations of the write's consumers (seen, each once), bumped in
 * one statement, but for those this write created (made at generation 1
 * by ensure_consumer): one that moved since ensure_consumer read it (or
 * that a concurrent request created first, at generation 0 here) is
 * upstream's concurrent update (409). */
static apr_status_t bump_consumers(pl_db_t *db, apr_pool_t *p,
                                   pl_alloc_write_t *w,
                                   const apr_array_header_t *seen)
{
    apr_int64_t *ids = apr_palloc(p,
                                  (apr_size_t)(seen->nelts + 1) * sizeof(*ids));
    apr_int64_t **gens = apr_palloc(p, (apr_size_t)(seen->nelts + 1) *
                                           sizeof(*gens));
    apr_status_t rv;
    int i, n = 0;

    for (i = 0; i < seen->nelts; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(seen, i, pl_alloc_consumer_t *);

        if (!ac->created) {
            ids[n] = ac->consumer->id;
            gens[n++] = &ac->consumer->generation;
        }
    }
    rv = pl_store_bump_generations(db, p, "consumers", n, ids, gens);
    if (rv == PL_ECONFLICT) {
        w->fail.why = PL_ALLOC_CONSUMER_MOVED;
    }
    return rv;
}

/* upstream's _set_allocations */
static apr_status_t replace_allocations(pl_db_t *db, apr_pool_t *p,
                                        pl_alloc_write_t *w, apr_hash_t *provs,
                                        apr_hash_t *rcs)
{
    static const pl_db_list_t clean = {
        "DELETE FROM allocations WHERE consumer_id IN (",
        0,
        NULL,
        "%s",
        0,
        NULL,
        ")",
        0
    };
    apr_array_header_t *work = apr_array_make(p, 8, sizeof(work_t));
    apr_array_header_t *rp_ids = apr_array_make(p, 4, sizeof(apr_int64_t));
    apr_array_header_t *rc_ids = apr_array_make(p, 4, sizeof(apr_int64_t));
    apr_array_header_t *seen = apr_array_make(p, 4, sizeof(void *));
    apr_array_header_t *seen_uuids = apr_array_make(p, 4, sizeof(const char *));
    apr_array_header_t *check = apr_array_make(p, 4, sizeof(const char *));
    pl_idmap_t *seen_ids, *rp_set, *rc_set, *by_id, *holding;
    apr_hash_index_t *hi;
    state_t st;
    apr_status_t rv;
    int i;

    /* the list upstream's replace_all works on */
    for (i = 0; i < w->items->nelts; i++) {
        pl_alloc_item_t *it = &APR_ARRAY_IDX(w->items, i, pl_alloc_item_t);
        work_t *wk = apr_array_push(work);

        wk->ac = it->ac;
        wk->prov = apr_hash_get(provs, it->provider_uuid, APR_HASH_KEY_STRING);
        wk->rc = it->rc;
        wk->used = it->used;
        wk->rc_id = -1;
    }
    for (i = 0; i < w->consumers->nelts; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(w->consumers, i,
                                                pl_alloc_consumer_t *);

        if (ac->clear && (rv = add_removals(db, p, ac, provs, work))) {
            return rv;
        }
    }
    if (work->nelts == 0) {
        return APR_SUCCESS;
    }
    if ((rv = resolve_classes(db, p, w, rcs, work)) != APR_SUCCESS) {
        return rv;
    }
    seen_ids = pl_idmap_make(p, (apr_size_t)w->consumers->nelts);
    rp_set = pl_idmap_make(p, 16);
    rc_set = pl_idmap_make(p, 16);
    for (i = 0; i < work->nelts; i++) {
        work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (pl_idmap_add(seen_ids, PTR_KEY(wk->ac))) {
            APR_ARRAY_PUSH(seen, pl_alloc_consumer_t *) = wk->ac;
            APR_ARRAY_PUSH(seen_uuids, const char *) = wk->ac->consumer->uuid;
        }
        push_unique(rp_ids, rp_set, wk->prov->id);
        push_unique(rc_ids, rc_set, wk->rc_id);
    }
    qsort(rp_ids->elts, rp_ids->nelts, sizeof(apr_int64_t), cmp_i64);
    by_id = pl_idmap_make(p, (apr_size_t)rp_ids->nelts);
    for (hi = apr_hash_first(p, provs); hi; hi = apr_hash_next(hi)) {
        pl_provider_t *prov = apr_hash_this_val(hi);

        pl_idmap_set(by_id, prov->id, prov);
    }
    /* generations, capacities and usages in one statement, then the
     * rule; only then the clean slate of every consumer in the list and
     * the new rows */
    if ((rv = read_state(db, p, w->consumers, rp_ids, rc_ids, by_id, &st)) ||
        (rv = check_capacity(p, w, work, rc_ids, &st)) ||
        (rv = pl_db_exec_list(db, p, &clean, PL_DB_ARRAY(seen_uuids), NULL)) ||
        (rv = insert_allocations(db, p, work))) {
        return rv;
    }
    /* the providers' bumps in one statement (id order: MySQL's and
     * SQLite's scans of the key lock them alike for concurrent writers;
     * PostgreSQL's bitmap scan in the order of the table, also alike;
     * a deadlock left is retried), then the consumers' */
    if ((rv = bump_providers(db, p, rp_ids, by_id))) {
        return rv;
    }
    /* the consumers left holding nothing may go */
    holding = pl_idmap_make(p, (apr_size_t)seen->nelts);
    for (i = 0; i < work->nelts; i++) {
        work_t *wk = &APR_ARRAY_IDX(work, i, work_t);

        if (wk->used > 0) {
            pl_idmap_add(holding, PTR_KEY(wk->ac));
        }
    }
    if ((rv = bump_consumers(db, p, w, seen))) {
        return rv;
    }
    for (i = 0; i < seen->nelts; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(seen, i, pl_alloc_consumer_t *);

        if (!pl_idmap_has(holding, PTR_KEY(ac))) {
            APR_ARRAY_PUSH(check, const char *) = ac->consumer->uuid;
        }
    }
    return pl_store_consumer_delete_unused(db, p, check);
}

/* A pl_db_txn_fn, run outside the write's transaction after it
 * deadlocked: the consumers' projects, users and types made to exist,
 * each in a statement of its own. Inside the write, INSERT IGNORE of a
 * project that two new consumers share holds a shared lock on its key
 * and waits for an insert lock the other holds the same way (MariaDB
 * after a restart: every writer of the project at once); made alone, the
 * next attempt only reads them. */
static apr_status_t make_consumer_names(pl_db_t *db, apr_pool_t *p, void *baton)
{
    pl_alloc_write_t *w = baton;
    apr_int64_t id;
    int i;

    for (i = 0; i < w->consumers->nelts; i++) {
        pl_alloc_consumer_t *ac = APR_ARRAY_IDX(w->consumers, i,
                                                pl_alloc_consumer_t *);
        apr_status_t rv = APR_SUCCESS;

        if (ac->project_external_id) {
            rv = pl_store_project_ensure(db, p, ac->project_external_id, &id);
        }
        if (rv == APR_SUCCESS && ac->user_external_id) {
            rv = pl_store_user_ensure(db, p, ac->user_external_id, &id);
        }
        if (rv == APR_SUCCESS && ac->type_name) {
            rv = pl_store_consumer_type_ensure(db, p, ac->type_name, &id);
        }
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    return APR_SUCCESS;
}

apr_status_t pl_store_allocation_write(pl_db_t *db, apr_pool_t *p,
                                       pl_alloc_write_t *w)
{
    pl_db_txn_stats_t stats = { 0, 0 };
    apr_status_t rv;

    rv = pl_db_run_txn_prep(db, p, write_once, make_consumer_names, w,
                            w->retries > 0 ? w->retries : 1, &stats);
    w->conflicts = stats.retries;
    w->deadlocks = stats.deadlocks;
    if (rv == PL_DB_ERETRY) {
        w->fail.why = PL_ALLOC_PROVIDER_MOVED;
        rv = PL_ECONFLICT;
    }
    return rv;
}

typedef struct delete_consumer_t {
    const char *uuid;
} delete_consumer_t;

static apr_status_t delete_consumer_once(pl_db_t *db, apr_pool_t *p,
                                         void *baton)
{
    delete_consumer_t *d = baton;
    apr_array_header_t *one = apr_array_make(p, 1, sizeof(const char *));
    apr_status_t rv;
    int changed = 0;

    APR_ARRAY_PUSH(one, const char *) = d->uuid;
    rv = pl_db_exec(db, &changed,
                    "DELETE FROM allocations "
                    "WHERE consumer_id = %s",
                    PL_ARGS(d->uuid));
    if (rv == APR_SUCCESS && changed == 0) {
        rv = APR_ENOENT;
    }
    if (rv == APR_SUCCESS) {
        rv = pl_store_consumer_delete_unused(db, p, one);
    }
    return rv;
}

apr_status_t pl_store_allocation_delete_consumer(pl_db_t *db, apr_pool_t *p,
                                                 const char *uuid)
{
    delete_consumer_t d;

    d.uuid = uuid;
    return pl_db_run_txn(db, p, delete_consumer_once, &d, 1, NULL);
}
