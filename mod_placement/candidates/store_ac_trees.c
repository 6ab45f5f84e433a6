/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac_trees.c: the trees of a candidate request, whole. What may
 * change without a provider's generation moving is read with every
 * request, in one statement: each provider of the trees with its uuid,
 * generation, parent and root, the usages of its classes, its requested
 * aggregates. Its inventories and traits, which only change with the
 * generation, come from the child's cache (pl_store_ac_cache.h) when kept at
 * that uuid and generation; the others are read by id, a batch at a
 * time, and kept. Then the world as the engine and the provider
 * summaries want it: in the order of ids, the providers indexed.
 *
 * Every value in the statements is an integer formatted here.
 */
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "pl_idmap.h"
#include "pl_store_ac_private.h"
#include "pl_std_data.h"

/* Providers whose facts one statement reads at most: its IN lists stay
 * short enough to plan fast. */
#define FACTS_BATCH 1000

/* ------------------------------------------------------------------ */
/* What is read with every request                                    */
/* ------------------------------------------------------------------ */

/* The kinds of rows of trees_sql. */
enum { ROW_PROVIDER = 1, ROW_USAGE };

typedef struct tree_prov_t {
    pl_store_ac_cache_key_t key; /* id, generation, uuid */
    apr_int64_t parent_id;       /* 0: a root */
    apr_int64_t root_id;
} tree_prov_t;

/* the amount of a class used on a provider */
typedef struct usage_t {
    apr_int64_t rp_id;
    apr_int64_t rc_id;
    apr_int64_t used;
} usage_t;

/* The rows of a rider (pl_store_ac_rider_t) as they come, cell by cell. */
typedef struct rider_rows_t {
    apr_pool_t *p;
    pl_rows_t rows;
    apr_array_header_t *cells;
} rider_rows_t;

static void rider_rows_init(rider_rows_t *r, apr_pool_t *p)
{
    memset(r, 0, sizeof(*r));
    r->p = p;
    r->cells = apr_array_make(p, 64, sizeof(const char *));
}

/* A row into r if its kind (first cell) is a rider's: 1 if it was. */
static int rider_row(rider_rows_t *r, int ncols, const char *const *cells)
{
    int j;

    if (pl_db_cell_i64(cells[0]) < PL_STORE_AC_RIDER_KIND) {
        return 0;
    }
    for (j = 0; j < ncols; j++) {
        APR_ARRAY_PUSH(r->cells,
                       const char *) = cells[j] ? apr_pstrdup(r->p, cells[j])
                                                : NULL;
    }
    r->rows.ncols = ncols;
    r->rows.nrows++;
    return 1;
}

/* Once the statement is read: whether rider takes its rows (else it is
 * marked rejected). */
static int rider_accepts(pl_store_ac_rider_t *rider, rider_rows_t *r)
{
    pl_rows_t *rows = apr_pmemdup(r->p, &r->rows, sizeof(*rows));

    rows->cells = (const char **)r->cells->elts;
    if (!rider->accept(rider->baton, rows)) {
        rider->rejected = 1;
        return 0;
    }
    return 1;
}

/*
 * The usage of each class of each provider of provs (kind 2). On
 * PostgreSQL, summed provider by provider (LATERAL): each sum is one
 * range of the allocations index, already in class order, where the
 * join of all of them was hashed by provider and class: nova's request
 * at 2,500 computes sums 78,000 allocation rows of 1,016 trees in its
 * first round, and its statement took 20.5 ms instead of 27.5. MariaDB
 * and SQLite have no LATERAL.
 */
static const char *usage_sql(apr_pool_t *p, const char *provs,
                             const char *where, pl_db_dialect_e dialect)
{
    if (dialect == PL_DB_PGSQL) {
        return apr_pstrcat(p,
                           "SELECT 2, p.id, u.rc, u.used, NULL, NULL, NULL "
                           "FROM ",
                           provs,
                           " p CROSS JOIN LATERAL (SELECT "
                           "a.resource_class_id AS rc, SUM(a.used) AS used "
                           "FROM allocations a WHERE a.resource_provider_id "
                           "= p.id GROUP BY a.resource_class_id) u",
                           where, NULL);
    }
    return apr_pstrcat(p,
                       "SELECT 2, a.resource_provider_id, a.resource_class_id, "
                       "SUM(a.used), NULL, NULL, NULL FROM allocations a JOIN ",
                       provs, " p ON p.id = a.resource_provider_id", where,
                       " GROUP BY a.resource_provider_id, a.resource_class_id",
                       NULL);
}

typedef struct trees_t {
    apr_pool_t *p;
    pl_ac_world_t *w;
    apr_array_header_t *provs;  /* tree_prov_t */
    apr_array_header_t *usages; /* usage_t */
    /* ids of the traits the world has names of, and of the classes
     * whose names are to be read */
    pl_idmap_t *trait_named;
    pl_idmap_t *rc_unnamed;
    rider_rows_t rider;
} trees_t;

/*
 * The providers of the trees whose roots are in roots (kind 1, first,
 * so that every dialect types the columns from its own), each with one
 * of the requested aggregates it is a member of (a row per membership,
 * one with NULL for none: as a kind of their own, the memberships cost
 * one more join of the providers), and the usage of each of their
 * classes (2). roots: the query of the roots, then run once as a CTE
 * and the trees' providers as another (PostgreSQL, SQLite); or the
 * roots' ids (MariaDB, which evaluates a CTE once per reference: there
 * the providers are read by root for each kind, which took a third less
 * of its CPU for the gate query at 1,000 providers than the CTEs).
 * Its text only depends on the ids the request names (and, with a
 * bound, where the walk starts), so the database keeps its plan.
 */
static const char *trees_sql(apr_pool_t *p, const pl_ac_world_t *w,
                             const char *roots, pl_db_dialect_e dialect)
{
    int roots_listed = dialect == PL_DB_MYSQL;
    const char *with = "", *provs = "provs", *where = "";

    if (roots_listed) {
        provs = "resource_providers";
        where = apr_pstrcat(p, " WHERE p.root_provider_id IN (", roots, ")",
                            NULL);
    }
    else {
        with = apr_pstrcat(p, "WITH roots AS (", roots,
                           "), provs AS (SELECT id, generation, "
                           "parent_provider_id, root_provider_id, uuid "
                           "FROM resource_providers WHERE root_provider_id "
                           "IN (SELECT id FROM roots)) ",
                           NULL);
    }
    return apr_pstrcat(
        p, with,
        "SELECT 1, p.id, p.generation, p.parent_provider_id, "
        "p.root_provider_id, p.uuid, ",
        w->aggs->nelts ? "g.aggregate_id" : "NULL", " FROM ", provs, " p",
        w->aggs->nelts
            ? apr_pstrcat(p,
                          " LEFT JOIN resource_provider_aggregates g "
                          "ON g.resource_provider_id = p.id "
                          "AND g.aggregate_id IN (",
                          pl_store_ac_ids_of_names(p, w->aggs), ")", NULL)
            : "",
        where, " UNION ALL ", usage_sql(p, provs, where, dialect), NULL);
}

static void push_link(apr_array_header_t *out, apr_int64_t rp_id,
                      apr_int64_t root_id, apr_int64_t other)
{
    pl_ac_link_t *l = apr_array_push(out);

    l->rp_id = rp_id;
    l->root_id = root_id;
    l->other_id = other;
}

/* A provider of several requested aggregates comes once per membership:
 * its copies go once the providers are sorted (unique_provs). */
static apr_status_t tree_row(void *baton, int ncols, const char *const *cells)
{
    trees_t *t = baton;
    apr_int64_t rp_id = pl_db_cell_i64(cells[1]),
                other = pl_db_cell_i64(cells[2]);

    if (rider_row(&t->rider, ncols, cells)) {
        return APR_SUCCESS;
    }
    switch (pl_db_cell_i64(cells[0])) {
    case ROW_PROVIDER: {
        tree_prov_t *tp = apr_array_push(t->provs);

        tp->key.id = rp_id;
        tp->key.generation = other;
        tp->key.uuid = apr_pstrdup(t->p, cells[5]);
        tp->parent_id = pl_db_cell_i64(cells[3]);
        tp->root_id = pl_db_cell_i64(cells[4]);
        if (cells[6]) {
            /* its root: once the world is indexed */
            push_link(t->w->rp_aggs, rp_id, 0, pl_db_cell_i64(cells[6]));
        }
        break;
    }
    case ROW_USAGE: {
        usage_t *u = apr_array_push(t->usages);

        u->rp_id = rp_id;
        u->rc_id = other;
        u->used = pl_db_cell_i64(cells[3]);
        break;
    }
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The facts of providers the cache does not have                      */
/* ------------------------------------------------------------------ */

/* The kinds of rows of facts_sql. */
enum { FACT_INVENTORY = 1, FACT_PROVIDER, FACT_TRAIT };

/* facts being read: the arrays grow, then become the facts' */
typedef struct facts_reader_t {
    apr_pool_t *p;
    pl_idmap_t *by_id; /* provider id -> building_t */
} facts_reader_t;

typedef struct building_t {
    pl_ac_facts_t facts;
    int seen;                   /* its provider row came: it exists */
    apr_array_header_t *invs;   /* pl_ac_inv_t */
    apr_array_header_t *traits; /* pl_ac_name_t */
} building_t;

/* One statement, consistent in itself: the inventories (kind 1, first:
 * every column typed), the provider with its generation and uuid (2)
 * and the traits with their names (3) of the providers of ids. */
static const char *facts_sql(apr_pool_t *p, const char *ids)
{
    return apr_pstrcat(
        p,
        "SELECT 1, i.resource_provider_id, i.resource_class_id, i.total, "
        "i.reserved, i.min_unit, i.max_unit, i.step_size, "
        "i.allocation_ratio, NULL FROM inventories i "
        "WHERE i.resource_provider_id IN (",
        ids,
        ") UNION ALL SELECT 2, id, generation, NULL, NULL, NULL, NULL, NULL, "
        "NULL, uuid FROM resource_providers WHERE id IN (",
        ids,
        ") UNION ALL SELECT 3, t.resource_provider_id, t.trait_id, NULL, "
        "NULL, NULL, NULL, NULL, NULL, tr.name FROM resource_provider_traits t "
        "JOIN traits tr ON tr.id = t.trait_id "
        "WHERE t.resource_provider_id IN (",
        ids, ")", NULL);
}

static building_t *building(facts_reader_t *r, apr_int64_t id)
{
    building_t *b = pl_idmap_get(r->by_id, id);

    if (b == NULL) {
        b = apr_pcalloc(r->p, sizeof(*b));
        b->facts.id = id;
        b->invs = apr_array_make(r->p, 4, sizeof(pl_ac_inv_t));
        b->traits = apr_array_make(r->p, 4, sizeof(pl_ac_name_t));
        pl_idmap_set(r->by_id, id, b);
    }
    return b;
}

static apr_status_t fact_row(void *baton, int ncols, const char *const *cells)
{
    facts_reader_t *r = baton;
    building_t *b = building(r, pl_db_cell_i64(cells[1]));

    switch (pl_db_cell_i64(cells[0])) {
    case FACT_INVENTORY: {
        pl_ac_inv_t *inv = apr_array_push(b->invs);

        memset(inv, 0, sizeof(*inv));
        inv->rp_id = b->facts.id;
        inv->rc_id = pl_db_cell_i64(cells[2]);
        inv->total = pl_db_cell_i64(cells[3]);
        inv->reserved = pl_db_cell_i64(cells[4]);
        inv->min_unit = pl_db_cell_i64(cells[5]);
        inv->max_unit = pl_db_cell_i64(cells[6]);
        inv->step_size = pl_db_cell_i64(cells[7]);
        inv->allocation_ratio = cells[8] ? strtod(cells[8], NULL) : 1.0;
        break;
    }
    case FACT_PROVIDER:
        b->seen = 1;
        b->facts.generation = pl_db_cell_i64(cells[2]);
        b->facts.uuid = apr_pstrdup(r->p, cells[9]);
        break;
    case FACT_TRAIT: {
        pl_ac_name_t *t = apr_array_push(b->traits);

        t->id = pl_db_cell_i64(cells[2]);
        t->name = apr_pstrdup(r->p, cells[9]);
        break;
    }
    }
    return APR_SUCCESS;
}

static int cmp_i64(apr_int64_t a, apr_int64_t b)
{
    return a < b ? -1 : a > b;
}

static int by_inv_class(const void *a, const void *b)
{
    return cmp_i64(((const pl_ac_inv_t *)a)->rc_id,
                   ((const pl_ac_inv_t *)b)->rc_id);
}

static int by_name_id(const void *a, const void *b)
{
    return cmp_i64(((const pl_ac_name_t *)a)->id,
                   ((const pl_ac_name_t *)b)->id);
}

/* Sorted by cmp. The rows mostly come in order already (PostgreSQL
 * emits the providers as it scans their table): checked first, as
 * qsort would compare each element log n times even then. */
static void sort_array(apr_array_header_t *a,
                       int (*cmp)(const void *, const void *))
{
    const char *e = a->elts;
    apr_size_t size = (apr_size_t)a->elt_size;
    int i;

    for (i = 1; i < a->nelts && cmp(e + (i - 1) * size, e + i * size) <= 0;
         i++) {
    }
    if (i < a->nelts) {
        qsort(a->elts, (size_t)a->nelts, (size_t)a->elt_size, cmp);
    }
}

/* The facts of the n providers of ids, a batch at a time, each
 * provider's inventories by class and traits by id; kept in cache.
 * *pread: id -> building_t (not seen: the provider is gone) */
static apr_status_t read_facts(pl_db_t *db, apr_pool_t *p,
                               pl_store_ac_cache_t *cache, int n,
                               const apr_int64_t *ids, pl_ac_world_t *w,
                               pl_idmap_t **pread)
{
    facts_reader_t r = { p, pl_idmap_make(p, n) };
    apr_array_header_t *read;
    building_t *b;
    apr_size_t pos = 0;
    apr_status_t rv;
    int i;

    for (i = 0; i < n; i += FACTS_BATCH) {
        int m = n - i < FACTS_BATCH ? n - i : FACTS_BATCH;

        rv = pl_db_select_each(db, p,
                               facts_sql(p, pl_db_id_list(p, ids + i, m)),
                               PL_DB_TEXT_ONCE, fact_row, &r);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    read = apr_array_make(p, n + 1, sizeof(pl_ac_facts_t *));
    while ((b = pl_idmap_next(r.by_id, &pos, NULL)) != NULL) {
        if (!b->seen) {
            continue; /* deleted since the trees were read */
        }
        sort_array(b->invs, by_inv_class);
        sort_array(b->traits, by_name_id);
        b->facts.ninvs = b->invs->nelts;
        b->facts.invs = (pl_ac_inv_t *)b->invs->elts;
        b->facts.ntraits = b->traits->nelts;
        b->facts.traits = (pl_ac_name_t *)b->traits->elts;
        APR_ARRAY_PUSH(read, pl_ac_facts_t *) = &b->facts;
    }
    w->cache_resets += pl_store_ac_cache_put(
        cache, read->nelts, (pl_ac_facts_t *const *)read->elts);
    *pread = r.by_id;
    return APR_SUCCESS;
}

/* The facts of provs (in their order), from cache or the database:
 * *pfacts[i] for provs[i], NULL for one gone. */
static apr_status_t all_facts(pl_db_t *db, apr_pool_t *p,
                              pl_store_ac_cache_t *cache,
                              const apr_array_header_t *provs, pl_ac_world_t *w,
                              pl_ac_facts_t ***pfacts)
{
    int i, n = provs->nelts, nmissed = 0;
    pl_store_ac_cache_key_t *keys = apr_palloc(p, (n + 1) * sizeof(*keys));
    apr_int64_t *missed = apr_palloc(p, (n + 1) * sizeof(*missed));
    /* an array of pointers: sizeof(pointer) is meant
     * NOLINTNEXTLINE(bugprone-sizeof-expression) */
    pl_ac_facts_t **facts = apr_palloc(p, (n + 1) * sizeof(*facts));
    pl_idmap_t *read;
    apr_status_t rv;

    for (i = 0; i < n; i++) {
        keys[i] = APR_ARRAY_IDX(provs, i, tree_prov_t).key;
    }
    w->facts_cached += pl_store_ac_cache_get(cache, p, n, keys, facts);
    for (i = 0; i < n; i++) {
        if (facts[i] == NULL) {
            missed[nmissed++] = keys[i].id;
        }
    }
    *pfacts = facts;
    w->facts_read += nmissed;
    if (nmissed == 0) {
        return APR_SUCCESS;
    }
    if ((rv = read_facts(db, p, cache, nmissed, missed, w, &read)) !=
        APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < n; i++) {
        building_t *b;

        if (facts[i] == NULL && (b = pl_idmap_get(read, keys[i].id)) &&
            b->seen) {
            facts[i] = &b->facts;
        }
    }
    return APR_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The world                                                           */
/* ------------------------------------------------------------------ */

static int by_tree_prov(const void *a, const void *b)
{
    return cmp_i64(((const tree_prov_t *)a)->key.id,
                   ((const tree_prov_t *)b)->key.id);
}

/* Sorted provs without the copies of a provider (tree_row). */
static void unique_provs(apr_array_header_t *provs)
{
    tree_prov_t *tp = (tree_prov_t *)provs->elts;
    int i, n = 0;

    for (i = 0; i < provs->nelts; i++) {
        if (n == 0 || tp[i].key.id != tp[n - 1].key.id) {
            tp[n++] = tp[i];
        }
    }
    provs->nelts = n;
}

static int by_usage(const void *a, const void *b)
{
    const usage_t *x = a, *y = b;

    return x->rp_id != y->rp_id ? cmp_i64(x->rp_id, y->rp_id)
                                : cmp_i64(x->rc_id, y->rc_id);
}

static int by_prov(const void *a, const void *b)
{
    return cmp_i64(((const pl_ac_prov_t *)a)->id,
                   ((const pl_ac_prov_t *)b)->id);
}

static int by_inv(const void *a, const void *b)
{
    const pl_ac_inv_t *x = a, *y = b;

    return x->rp_id != y->rp_id ? cmp_i64(x->rp_id, y->rp_id)
                                : cmp_i64(x->rc_id, y->rc_id);
}

static int by_link(const void *a, const void *b)
{
    const pl_ac_link_t *x = a, *y = b;

    return x->rp_id != y->rp_id ? cmp_i64(x->rp_id, y->rp_id)
                                : cmp_i64(x->other_id, y->other_id);
}

/* The providers indexed, and the roots of the aggregate links. Trees
 * added after others may hold providers of lower ids: then everything
 * is sorted again (else it came in order). */
static void index_world(pl_ac_world_t *w, int resort)
{
    int i;

    if (resort) {
        sort_array(w->provs, by_prov);
        sort_array(w->invs, by_inv);
        sort_array(w->all_traits, by_link);
        sort_array(w->rp_traits, by_link);
        sort_array(w->parents, by_link);
    }
    pl_idmap_clear(w->prov_by_id);
    for (i = 0; i < w->provs->nelts; i++) {
        pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        pl_idmap_set(w->prov_by_id, pv->id, pv);
    }
    for (i = 0; i < w->rp_aggs->nelts; i++) {
        pl_ac_link_t *l = &APR_ARRAY_IDX(w->rp_aggs, i, pl_ac_link_t);
        const pl_ac_prov_t *pv = pl_idmap_get(w->prov_by_id, l->rp_id);

        l->root_id = pv ? pv->root_id : l->rp_id;
    }
    sort_array(w->rp_aggs, by_link);
}

static int has_name(const apr_array_header_t *names, apr_int64_t id)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        if (APR_ARRAY_IDX(names, i, pl_ac_name_t).id == id) {
            return 1;
        }
    }
    return 0;
}

static void push_name(apr_array_header_t *out, apr_int64_t id, const char *name)
{
    pl_ac_name_t *n = apr_array_push(out);

    n->id = id;
    n->name = name;
}

/* The name of a class of the world: a standard one's is known by heart,
 * another's is read (read_class_names). */
static void name_class(trees_t *t, apr_int64_t rc_id)
{
    pl_ac_world_t *w = t->w;

    if (has_name(w->rc_names, rc_id)) {
        return;
    }
    if (rc_id >= 0 && rc_id < pl_std_resource_classes_n) {
        push_name(w->rc_names, rc_id, pl_std_resource_classes[rc_id]);
    }
    else {
        pl_idmap_add(t->rc_unnamed, rc_id);
    }
}

/* One provider of a tree, with its facts, into the world; *u: the usages
 * not yet taken, by provider and class (as providers come by id and
 * their inventories by class). */
static void add_provider(trees_t *t, const tree_prov_t *tp,
                         const pl_ac_facts_t *f, const usage_t **u,
                         const usage_t *end)
{
    pl_ac_world_t *w = t->w;
    pl_ac_prov_t *pv = apr_array_push(w->provs);
    int i;

    apr_int64_t id = tp->key.id;

    pv->id = id;
    pv->parent_id = tp->parent_id;
    pv->root_id = tp->root_id;
    pv->uuid = f->uuid;
    if (tp->parent_id) {
        push_link(w->parents, id, tp->root_id, tp->parent_id);
    }
    while (*u < end && (*u)->rp_id < id) {
        ++*u;
    }
    for (i = 0; i < f->ninvs; i++) {
        pl_ac_inv_t *inv = apr_array_push(w->invs);

        *inv = f->invs[i];
        inv->root_id = tp->root_id;
        while (*u < end && (*u)->rp_id == id && (*u)->rc_id < inv->rc_id) {
            ++*u;
        }
        inv->used = *u < end && (*u)->rp_id == id && (*u)->rc_id == inv->rc_id
                        ? (*u)->used
                        : 0;
        name_class(t, inv->rc_id);
    }
    for (i = 0; i < f->ntraits; i++) {
        const pl_ac_name_t *tr = &f->traits[i];

        push_link(w->all_traits, id, tp->root_id, tr->id);
        if (has_name(w->traits, tr->id)) {
            push_link(w->rp_traits, id, tp->root_id, tr->id);
        }
        if (pl_idmap_add(t->trait_named, tr->id)) {
            push_name(w->trait_names, tr->id, tr->name);
        }
    }
}

/* Room in the world for the n providers of facts (add_provider), made
 * once instead of by doubling. */
static void reserve_world(pl_ac_world_t *w, int n, pl_ac_facts_t *const *facts)
{
    int i, ninvs = 0, ntraits = 0;

    for (i = 0; i < n; i++) {
        if (facts[i]) {
            ninvs += facts[i]->ninvs;
            ntraits += facts[i]->ntraits;
        }
    }
    pl_ac_array_reserve(w->provs, n);
    pl_ac_array_reserve(w->invs, ninvs);
    pl_ac_array_reserve(w->all_traits, ntraits);
}

/* The names of custom classes (and of standard ones newer than ours)
 * are read with every request: a custom class can be renamed (PUT
 * /resource_classes before microversion 1.7) without any provider's
 * generation moving. */
static apr_status_t read_class_names(pl_db_t *db, apr_pool_t *p,
                                     pl_idmap_t *unnamed, pl_ac_world_t *w)
{
    apr_int64_t *ids = apr_palloc(p,
                                  (pl_idmap_count(unnamed) + 1) * sizeof(*ids));
    apr_size_t pos = 0;
    pl_rows_t *rows;
    apr_status_t rv;
    int i, n = 0;

    while (pl_idmap_next(unnamed, &pos, &ids[n])) {
        n++;
    }
    if (n == 0) {
        return APR_SUCCESS;
    }
    rv = pl_db_select_text(
        db, p, &rows,
        apr_pstrcat(p, "SELECT id, name FROM resource_classes WHERE id IN (",
                    pl_db_id_list(p, ids, n), ")", NULL),
        PL_DB_TEXT_ONCE);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    for (i = 0; i < rows->nrows; i++) {
        push_name(w->rc_names, pl_db_cell_i64(PL_CELL(rows, i, 0)),
                  apr_pstrdup(p, PL_CELL(rows, i, 1)));
    }
    return APR_SUCCESS;
}

/* The kind of the roots' rows when a rider comes with them. */
#define ROW_ROOT 3

/* the roots read first, and the rows of a rider with them */
typedef struct roots_reader_t {
    apr_array_header_t *ids; /* apr_int64_t */
    int kinded;              /* rows of the roots are (ROW_ROOT, id, ...) */
    rider_rows_t rider;
} roots_reader_t;

static apr_status_t root_row(void *baton, int ncols, const char *const *cells)
{
    roots_reader_t *r = baton;

    if (!r->kinded || !rider_row(&r->rider, ncols, cells)) {
        APR_ARRAY_PUSH(r->ids,
                       apr_int64_t) = pl_db_cell_i64(cells[r->kinded ? 1 : 0]);
    }
    return APR_SUCCESS;
}

/* MariaDB (and MySQL) evaluate a CTE once for each reference, so the
 * query of the roots would run once per kind of row: there the roots are
 * read first and the trees statement gets their ids (*proots: "1,2,3",
 * NULL when there are none). A rider comes with the roots; when it is
 * rejected, *proots is NULL. */
static apr_status_t roots_first(pl_db_t *db, apr_pool_t *p, int once,
                                pl_store_ac_rider_t *rider, const char **proots)
{
    roots_reader_t r = { apr_array_make(p, 64, sizeof(apr_int64_t)),
                         rider != NULL };
    const char *sql = *proots;
    apr_status_t rv;

    rider_rows_init(&r.rider, p);
    if (rider) {
        sql = apr_psprintf(p,
                           "SELECT %d, id, NULL, NULL, NULL, NULL, NULL "
                           "FROM (%s) r UNION ALL %s",
                           ROW_ROOT, sql, rider->sql);
    }
    rv = pl_db_select_each(db, p, sql, once ? PL_DB_TEXT_ONCE : PL_DB_TEXT_KEPT,
                           root_row, &r);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *proots = NULL;
    if ((rider == NULL || rider_accepts(rider, &r.rider)) && r.ids->nelts) {
        *proots = pl_db_id_list(p, (const apr_int64_t *)r.ids->elts,
                                r.ids->nelts);
    }
    return APR_SUCCESS;
}

apr_status_t
pl_store_ac_read_trees(pl_db_t *db, apr_pool_t *p, pl_store_ac_cache_t *cache,
                       const char *roots, int once, pl_store_ac_rider_t *rider,
                       pl_ac_world_t *w, int *pnroots, apr_int64_t *plast)
{
    trees_t t = { p,
                  w,
                  apr_array_make(p, 64, sizeof(tree_prov_t)),
                  apr_array_make(p, 64, sizeof(usage_t)),
                  pl_idmap_make(p, 64),
                  pl_idmap_make(p, 8) };
    pl_db_dialect_e dialect = pl_db_dialect(db);
    int i, listed = dialect == PL_DB_MYSQL;
    int had = w->provs->nelts;
    const usage_t *u, *end;
    pl_ac_facts_t **facts;
    apr_status_t rv;
    const char *sql;

    *pnroots = 0;
    rider_rows_init(&t.rider, p);
    if (listed) {
        if ((rv = roots_first(db, p, once, rider, &roots)) != APR_SUCCESS) {
            return rv;
        }
        rider = NULL; /* it came with the roots */
    }
    if (roots == NULL) {
        return APR_SUCCESS;
    }
    sql = trees_sql(p, w, roots, dialect);
    if (rider) {
        sql = apr_pstrcat(p, sql, " UNION ALL ", rider->sql, NULL);
    }
    /* with root ids in it, a text of the moment: not kept prepared */
    rv = pl_db_select_each(db, p, sql,
                           listed || once ? PL_DB_TEXT_ONCE : PL_DB_TEXT_KEPT,
                           tree_row, &t);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (rider && !rider_accepts(rider, &t.rider)) {
        return APR_SUCCESS;
    }
    /* by provider id, so that the world comes out in order */
    sort_array(t.provs, by_tree_prov);
    unique_provs(t.provs);
    sort_array(t.usages, by_usage);
    if ((rv = all_facts(db, p, cache, t.provs, w, &facts)) != APR_SUCCESS) {
        return rv;
    }
    reserve_world(w, t.provs->nelts, facts);
    for (i = 0; i < w->trait_names->nelts; i++) {
        pl_idmap_add(t.trait_named,
                     APR_ARRAY_IDX(w->trait_names, i, pl_ac_name_t).id);
    }
    u = (const usage_t *)t.usages->elts;
    end = u + t.usages->nelts;
    for (i = 0; i < t.provs->nelts; i++) {
        const tree_prov_t *tp = &APR_ARRAY_IDX(t.provs, i, tree_prov_t);

        if (facts[i] == NULL) {
            continue; /* deleted meanwhile */
        }
        add_provider(&t, tp, facts[i], &u, end);
        if (tp->parent_id == 0) {
            ++*pnroots;
            if (tp->key.id > *plast) {
                *plast = tp->key.id;
            }
        }
    }
    if ((rv = read_class_names(db, p, t.rc_unnamed, w)) != APR_SUCCESS) {
        return rv;
    }
    index_world(w, had > 0);
    return APR_SUCCESS;
}
