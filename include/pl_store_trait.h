/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_trait.h: traits and the traits of resource providers
 * (placement's objects/trait.py and the trait part of
 * objects/resource_provider.py). Standard traits (os-traits) are never
 * changed here; custom ones (CUSTOM_*) are created and deleted by users.
 * Nothing is cached: every call reads the database.
 */
#ifndef PL_STORE_TRAIT_H
#define PL_STORE_TRAIT_H

#include <apr_tables.h>
#include "pl_store.h"
#include "pl_store_provider.h"

/** The prefix of every custom trait (os_traits.CUSTOM_NAMESPACE). */
#define PL_TRAIT_CUSTOM_PREFIX "CUSTOM_"

typedef struct pl_trait_t {
    apr_int64_t id;
    const char *name;
    const char *created_at; /* SQL text, may be NULL */
    const char *updated_at;
} pl_trait_t;

/** What GET /traits filters on; every field is optional. */
typedef struct pl_trait_filter_t {
    /** const char *: only these names (NULL: any name) */
    const apr_array_header_t *names;
    /** only names starting with this (a LIKE prefix, as upstream: '_'
     *  and '%' keep their LIKE meaning); NULL: any */
    const char *prefix;
    /** 1: only traits some provider has; 0: only traits none has;
     *  -1: either */
    int associated;
} pl_trait_filter_t;

/**
 * The traits that pass f (NULL: all), by id.
 * @return APR_SUCCESS and *ptraits (pl_trait_t *); database errors.
 */
apr_status_t pl_store_trait_list(pl_db_t *db, apr_pool_t *p,
                                 const pl_trait_filter_t *f,
                                 apr_array_header_t **ptraits);

/**
 * The trait called name.
 * @return APR_SUCCESS and *ptrait; APR_ENOENT; database errors.
 */
apr_status_t pl_store_trait_get(pl_db_t *db, apr_pool_t *p, const char *name,
                                pl_trait_t **ptrait);

/**
 * Create the trait name (the caller has checked the CUSTOM_ form).
 * @return APR_SUCCESS and *ptrait; APR_EEXIST; database errors.
 */
apr_status_t pl_store_trait_create(pl_db_t *db, apr_pool_t *p, const char *name,
                                   pl_trait_t **ptrait);

/**
 * Delete the custom trait t.
 * @return APR_SUCCESS; APR_EINVAL for a standard trait; PL_EINUSE when a
 *         provider has it; APR_ENOENT if it vanished; database errors.
 */
apr_status_t pl_store_trait_delete(pl_db_t *db, apr_pool_t *ptemp,
                                   const pl_trait_t *t);

/**
 * The traits of provider prov, by id.
 * @return APR_SUCCESS and *ptraits (pl_trait_t *); database errors.
 */
apr_status_t pl_store_trait_provider_list(pl_db_t *db, apr_pool_t *p,
                                          const pl_provider_t *prov,
                                          apr_array_header_t **ptraits);

/**
 * Make traits (pl_trait_t *, existing ones) the traits of prov, in one
 * transaction. When that changes anything, the generation of prov is
 * bumped (compare-and-swap against prov->generation); when it changes
 * nothing, nothing is written and the generation stays.
 * @return APR_SUCCESS; PL_ECONFLICT when the generation moved meanwhile;
 *         database errors.
 */
apr_status_t pl_store_trait_provider_set(pl_db_t *db, apr_pool_t *ptemp,
                                         pl_provider_t *prov,
                                         const apr_array_header_t *traits);

#endif /* PL_STORE_TRAIT_H */
