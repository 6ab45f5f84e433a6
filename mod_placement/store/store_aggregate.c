/* Licensed under the Apache License, Version 2.0.
 *
 * store_aggregate.c: provider aggregates in the database. Rows of
 * placement_aggregates come into being on first use and are never
 * removed.
 *
 * Setting the aggregates of a provider costs time linear in the uuids:
 * they are compared in a sorted array, and each step of the write (the
 * associations removed, the aggregates found, those created, the
 * associations made) runs in statements of up to PL_DB_LIST_MAX uuids
 * (pl_db_exec_list), not one or two per uuid: 100,000 uuids once held
 * SQLite's write lock for 27 s, and 500,000 for over 7 minutes.
 *
 * Two writers meeting a new uuid at once cannot both insert it (its
 * uuid is unique): the INSERTs leave a row that exists alone (the later
 * writer waits for the earlier one, then finds its row), and so do the
 * associations, as upstream skips one another writer made first. Which
 * rows match a uuid is the database's say (its collation): MySQL's
 * compares without case, so a uuid sent in capitals finds the aggregate
 * stored in small letters, as upstream's lookups do.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_strings.h>

#include "pl_store_aggregate.h"

apr_status_t pl_store_aggregate_list(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **puuids)
{
    pl_rows_t *rows;
    apr_status_t rv;
    int i;

    rv = pl_db_select(db, p, &rows,
                      "SELECT pa.uuid "
                      "FROM placement_aggregates pa "
                      "JOIN resource_provider_aggregates rpa "
                      "ON rpa.aggregate_id = pa.id "
                      "WHERE rpa.resource_provider_id = %s ORDER BY pa.id",
                      PL_ARGS(pl_db_i64(p, prov_id)));
    if (rv != APR_SUCCESS) {
        return rv;
    }
    *puuids = apr_array_make(p, rows->nrows, sizeof(const char *));
    for (i = 0; i < rows->nrows; i++) {
        APR_ARRAY_PUSH(*puuids, const char *) = PL_CELL(rows, i, 0);
    }
    return APR_SUCCESS;
}

/* What a uuid of the request is to the write. */
typedef enum {
    AGG_SENT,       /* asked for: to be associated */
    AGG_ASSOCIATED, /* associated already: kept as it is */
    AGG_KNOWN       /* in placement_aggregates already: not created */
} agg_state_e;

typedef struct sent_t {
    const char *uuid;
    agg_state_e state;
} sent_t;

/* The uuids of a request sorted, each once: the rows the database
 * returns are looked up in it, and every list is written in uuid order,
 * so that the indexes on uuid take their new keys in order (in random
 * order SQLite's page cache thrashed: 500,000 uuids took 5 minutes) and
 * concurrent writers lock the rows alike. The aggregates created get
 * their ids in that order (upstream: in the order of a Python set). */
typedef struct sent_set_t {
    sent_t **sorted;
    int n;
} sent_set_t;

static int sent_order(const void *a, const void *b)
{
    return strcmp((*(const sent_t *const *)a)->uuid,
                  (*(const sent_t *const *)b)->uuid);
}

static int sent_find(const void *key, const void *elt)
{
    return strcmp(key, (*(const sent_t *const *)elt)->uuid);
}

static void sent_set_make(apr_pool_t *p, const apr_array_header_t *uuids,
                          sent_set_t *s)
{
    sent_t *all = apr_palloc(p,
                             (apr_size_t)(uuids->nelts + 1) * sizeof(sent_t));
    int i;

    s->sorted = apr_palloc(p,
                           (apr_size_t)(uuids->nelts + 1) * sizeof(sent_t *));
    for (i = 0; i < uuids->nelts; i++) {
        all[i].uuid = APR_ARRAY_IDX(uuids, i, const char *);
        all[i].state = AGG_SENT;
        s->sorted[i] = &all[i];
    }
    qsort(s->sorted, (size_t)uuids->nelts, sizeof(sent_t *), sent_order);
    /* a uuid sent twice counts once */
    s->n = 0;
    for (i = 0; i < uuids->nelts; i++) {
        if (s->n == 0 ||
            strcmp(s->sorted[s->n - 1]->uuid, s->sorted[i]->uuid) != 0) {
            s->sorted[s->n++] = s->sorted[i];
        }
    }
}

/* The entry of uuid (byte for byte), or NULL. */
static sent_t *sent_get(const sent_set_t *s, const char *uuid)
{
    sent_t **e = bsearch(uuid, s->sorted, (size_t)s->n, sizeof(sent_t *),
                         sent_find);

    return e ? *e : NULL;
}

/* The uuids in state, in uuid order. */
static apr_array_header_t *sent_in_state(apr_pool_t *p, const sent_set_t *s,
                                         agg_state_e state)
{
    apr_array_header_t *out = apr_array_make(p, s->n + 1, sizeof(const char *));
    int i;

    for (i = 0; i < s->n; i++) {
        if (s->sorted[i]->state == state) {
            APR_ARRAY_PUSH(out, const char *) = s->sorted[i]->uuid;
        }
    }
    return out;
}

/* The provider's associations: those sent are kept (AGG_ASSOCIATED),
 * the others' aggregate ids go to drop. */
typedef struct existing_t {
    apr_pool_t *p;
    sent_set_t *sent;
    apr_array_header_t *drop;
} existing_t;

static apr_status_t existing_row(void *baton, int ncols,
                                 const char *const *cells)
{
    existing_t *x = baton;
    sent_t *e = sent_get(x->sent, cells[1]);

    (void)ncols;
    if (e != NULL) {
        e->state = AGG_ASSOCIATED;
    }
    else {
        APR_ARRAY_PUSH(x->drop, const char *) = apr_pstrdup(x->p, cells[0]);
    }
    return APR_SUCCESS;
}

static apr_status_t drop_unsent(pl_db_t *db, apr_pool_t *p, const char *prov_id,
                                sent_set_t *sent)
{
    existing_t x;
    const char *head_args[] = { prov_id };
    const pl_db_list_t del = { "DELETE FROM resource_provider_aggregates "
                               "WHERE resource_provider_id = %s "
                               "AND aggregate_id IN (",
                               1,
                               head_args,
                               "%s",
                               0,
                               NULL,
                               ")" };
    apr_status_t rv;

    x.p = p;
    x.sent = sent;
    x.drop = apr_array_make(p, 16, sizeof(const char *));
    /* the id is an integer written in: a text run once, not kept */
    rv = pl_db_select_each(
        db, p,
        apr_pstrcat(p,
                    "SELECT pa.id, pa.uuid FROM placement_aggregates pa "
                    "JOIN resource_provider_aggregates rpa "
                    "ON rpa.aggregate_id = pa.id "
                    "WHERE rpa.resource_provider_id = ",
                    prov_id, NULL),
        PL_DB_TEXT_ONCE, existing_row, &x);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    return pl_db_exec_list(db, p, &del, PL_DB_ARRAY(x.drop), NULL);
}

/* A uuid that exists in placement_aggregates already. */
static apr_status_t known_row(void *baton, int ncols, const char *const *cells)
{
    sent_t *e = sent_get(baton, cells[0]);

    (void)ncols;
    if (e != NULL && e->state == AGG_SENT) {
        e->state = AGG_KNOWN;
    }
    return APR_SUCCESS;
}

/* The end of an INSERT that leaves alone a row whose unique key exists
 * (column: one of the key's, which MySQL's form sets to itself). */
static const char *keep_existing(pl_db_t *db, apr_pool_t *p, const char *column)
{
    if (pl_db_dialect(db) == PL_DB_MYSQL) {
        /* not INSERT IGNORE: that would cut a uuid too long for the
         * column where the others refuse it */
        return apr_pstrcat(p, " ON DUPLICATE KEY UPDATE ", column, " = ",
                           column, NULL);
    }
    return " ON CONFLICT DO NOTHING";
}

/* Associate prov with the uuids left AGG_SENT, creating the aggregates
 * never seen before. */
static apr_status_t associate_sent(pl_db_t *db, apr_pool_t *p,
                                   const char *prov_id, const char *now,
                                   sent_set_t *sent)
{
    apr_array_header_t *add = sent_in_state(p, sent, AGG_SENT), *create;
    const char *assoc_args[] = { prov_id, now }, *extra[] = { now };
    const pl_db_list_t find = { "SELECT uuid FROM placement_aggregates "
                                "WHERE uuid IN (",
                                0,
                                NULL,
                                "%s",
                                0,
                                NULL,
                                ")" };
    const pl_db_list_t insert = { "INSERT INTO placement_aggregates "
                                  "(uuid, created_at) VALUES ",
                                  0,
                                  NULL,
                                  "(%s, %s)",
                                  1,
                                  extra,
                                  keep_existing(db, p, "uuid") };
    /* The SQL text is the same for every provider: prepared once. */
    const pl_db_list_t assoc = {
        "INSERT INTO resource_provider_aggregates "
        "(resource_provider_id, aggregate_id, created_at) "
        "SELECT %s, id, %s FROM placement_aggregates WHERE uuid IN (",
        2,
        assoc_args,
        "%s",
        0,
        NULL,
        apr_pstrcat(p, ")", keep_existing(db, p, "aggregate_id"), NULL)
    };
    apr_status_t rv;

    if ((rv = pl_db_select_list(db, p, &find, PL_DB_ARRAY(add), known_row,
                                sent))) {
        return rv;
    }
    create = sent_in_state(p, sent, AGG_SENT);
    if ((rv = pl_db_exec_list(db, p, &insert, PL_DB_ARRAY(create), NULL))) {
        return rv;
    }
    return pl_db_exec_list(db, p, &assoc, PL_DB_ARRAY(add), NULL);
}

/* One attempt, inside its transaction. */
static apr_status_t set_once(pl_db_t *db, apr_pool_t *p, pl_provider_t *prov,
                             const apr_array_header_t *uuids, int bump)
{
    const char *prov_id = pl_db_i64(p, prov->id);
    sent_set_t sent;
    apr_status_t rv;

    sent_set_make(p, uuids, &sent);
    if ((rv = drop_unsent(db, p, prov_id, &sent)) ||
        (rv = associate_sent(db, p, prov_id, pl_db_now(p), &sent))) {
        return rv;
    }
    return bump ? pl_store_provider_bump(db, prov) : APR_SUCCESS;
}

typedef struct set_args_t {
    pl_provider_t *prov;
    const apr_array_header_t *uuids;
    int bump;
    apr_int64_t generation; /* prov's, before the first try */
} set_args_t;

/* A pl_db_txn_fn. A duplicate runs the transaction again, as upstream
 * retries its writes on one; none is expected, since the INSERTs leave
 * existing rows alone. */
static apr_status_t set_txn(pl_db_t *db, apr_pool_t *p, void *baton)
{
    set_args_t *a = baton;
    apr_status_t rv;

    a->prov->generation = a->generation;
    rv = set_once(db, p, a->prov, a->uuids, a->bump);
    return rv == APR_EEXIST ? PL_DB_ERETRY : rv;
}

apr_status_t pl_store_aggregate_set(pl_db_t *db, apr_pool_t *p,
                                    pl_provider_t *prov,
                                    const apr_array_header_t *uuids, int bump)
{
    set_args_t a;
    apr_status_t rv;

    a.prov = prov;
    a.uuids = uuids;
    a.bump = bump;
    a.generation = prov->generation;
    rv = pl_db_run_txn(db, p, set_txn, &a, PL_AGGREGATE_SET_RETRIES + 1, NULL);
    if (rv != APR_SUCCESS) {
        prov->generation = a.generation;
    }
    return rv == PL_DB_ERETRY ? APR_EEXIST : rv;
}
