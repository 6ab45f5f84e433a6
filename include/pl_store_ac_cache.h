/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_ac_cache.h: what an httpd child remembers of resource providers
 * between allocation-candidate requests: each provider's inventories and
 * traits, under the uuid and generation they were read at. Placement
 * moves a provider's generation in the same transaction as any change
 * to its inventories or traits (upstream does too), and nova's own
 * provider cache takes (uuid, generation) for the same state: facts kept
 * at the uuid and generation the provider has now, read fresh with every
 * request, are the database's, whichever process, host or release (or
 * upstream placement) wrote. The id alone would not do: a database
 * emptied and filled again reuses ids. What changes without a
 * generation is not kept here: usages, aggregates (before microversion
 * 1.19 they change without one), parents and resource class names.
 *
 * One cache per server (mod_dbd's database is per server), shared by
 * the threads of a child behind a read-write lock; readers get copies.
 * Bounded: when it would hold more than its size, it starts again empty.
 * Pure APR, no httpd headers.
 */
#ifndef PL_STORE_AC_CACHE_H
#define PL_STORE_AC_CACHE_H

#include <apr_pools.h>
#include "pl_ac.h"
#include "pl_db.h"

typedef struct pl_store_ac_cache_t pl_store_ac_cache_t;

/** One provider's facts that change only with its generation. */
typedef struct pl_ac_facts_t {
    apr_int64_t id;
    apr_int64_t generation;
    const char *uuid;
    int ninvs;
    pl_ac_inv_t *invs; /**< all its classes (used, root_id: unset) */
    int ntraits;
    pl_ac_name_t *traits; /**< id and name of each */
} pl_ac_facts_t;

/**
 * A cache of at most max_providers providers, living as long as p
 * (which may be shared by threads: the cache allocates from a pool of
 * its own). NULL when max_providers <= 0 or no lock could be made:
 * every call below then does nothing.
 */
pl_store_ac_cache_t *pl_store_ac_cache_make(apr_pool_t *p, int max_providers);

/** A provider as the database has it now. */
typedef struct pl_store_ac_cache_key_t {
    apr_int64_t id;
    apr_int64_t generation;
    const char *uuid;
} pl_store_ac_cache_key_t;

/**
 * For each i < n, facts[i]: a copy (from p) of the facts kept of
 * provider keys[i] if they were kept at its uuid and generation, else
 * NULL. Its uuid is the key's; its trait names are the cache's, kept as
 * long as the cache.
 * @return how many were found.
 */
int pl_store_ac_cache_get(pl_store_ac_cache_t *c, apr_pool_t *p, int n,
                          const pl_store_ac_cache_key_t *keys,
                          pl_ac_facts_t **facts);

/** Keep a copy of facts[0 .. n - 1], replacing what was kept of the
 *  same providers.
 *  @return 1 if the cache was full and started again empty, else 0. */
int pl_store_ac_cache_put(pl_store_ac_cache_t *c, int n,
                          pl_ac_facts_t *const *facts);

/**
 * The rows a statement of lookups (store_ac.c: names to ids, sharing
 * providers, the size of the cloud) gave the last time its text sql ran
 * in this child, as a copy from p; NULL if none are kept. They may be
 * stale: they only guess which statement comes next, so that it can
 * run with the lookups in one round trip, and count only when the
 * lookups it carried agree with the guess.
 */
pl_rows_t *pl_store_ac_cache_lookups(pl_store_ac_cache_t *c, apr_pool_t *p,
                                     const char *sql);

/** Keep a copy of rows as the last lookups of sql (bounded: after a
 *  few hundred copies it starts again with none). */
void pl_store_ac_cache_keep_lookups(pl_store_ac_cache_t *c, const char *sql,
                                    const pl_rows_t *rows);

/**
 * How many trees a request of this shape (its query string) read per
 * candidate it kept the last time this child answered one; 0 when none
 * is remembered. Only a guess for the size of the first round of trees
 * (store_ac.c): the answer never depends on it.
 */
double pl_store_ac_cache_trees_per_cand(pl_store_ac_cache_t *c,
                                        const char *shape);

/** Remember that for the next request of the same shape (the last of
 *  a few dozen shapes, each in a slot of its own hash). */
void pl_store_ac_cache_keep_trees_per_cand(pl_store_ac_cache_t *c,
                                           const char *shape, double n);

/** Providers kept now, and how often the cache started again empty. */
void pl_store_ac_cache_stats(pl_store_ac_cache_t *c, int *pkept, int *presets);

#endif /* PL_STORE_AC_CACHE_H */
