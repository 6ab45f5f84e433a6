/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_usage.h: what is used, summed from the allocations (placement's
 * objects/usage.py): per class on one provider, and per class (and
 * consumer type, 1.38+) over the consumers of a project or user. Quotas
 * are counted from these, so they are exact sums read in one go.
 */
#ifndef PL_STORE_USAGE_H
#define PL_STORE_USAGE_H

#include <apr_tables.h>
#include "pl_store.h"

typedef struct pl_usage_t {
    const char *rc_name;
    apr_int64_t used;
    const char *consumer_type;  /* totals by type: the name, "all" or
                                   "unknown" (no type); else NULL */
    apr_int64_t consumer_count; /* totals by type: distinct consumers */
} pl_usage_t;

/**
 * The usage of provider prov_id for each class it has inventory of (0
 * when nothing is allocated), ordered by class id.
 * @return APR_SUCCESS and *pusages (pl_usage_t *, from p); database
 *         errors.
 */
apr_status_t pl_store_usage_provider(pl_db_t *db, apr_pool_t *p,
                                     apr_int64_t prov_id,
                                     apr_array_header_t **pusages);

/**
 * The usage of the consumers of project (external id) and, when user is
 * not NULL, of that user, per class. consumer_type selects the grouping:
 *  - PL_USAGE_NO_TYPES (before 1.38): per class only;
 *  - NULL: per consumer type (consumers without one under "unknown");
 *  - "all": everything under "all"; "unknown": consumers without a type
 *    under "unknown";
 *  - a name: the consumers of that type only.
 * With a grouping, each entry carries the number of distinct consumers of
 * its group.
 * @return APR_SUCCESS and *pusages (pl_usage_t *, from p, ordered by
 *         type then class); database errors.
 */
apr_status_t pl_store_usage_totals(pl_db_t *db, apr_pool_t *p,
                                   const char *project, const char *user,
                                   const char *consumer_type,
                                   apr_array_header_t **pusages);

/** consumer_type of pl_store_usage_totals for "no grouping". */
extern const char pl_store_usage_no_types[];
#define PL_USAGE_NO_TYPES pl_store_usage_no_types

#endif /* PL_STORE_USAGE_H */
