/* Licensed under the Apache License, Version 2.0.
 *
 * pl_metrics.h: counters shared by every child of the server (anonymous
 * shared memory made in post_config, updated with atomic adds, so they
 * cost a few instructions per request), the "placement-metrics" handler
 * that writes them in Prometheus' text format, and the
 * "placement-healthcheck" handler.
 */
#ifndef PL_METRICS_H
#define PL_METRICS_H

#include <httpd.h>

typedef enum {
    PL_METRIC_CONFLICT_RETRIES,      /* allocation writes retried: generation */
    PL_METRIC_DEADLOCK_RETRIES,      /* ... retried: deadlock, serialization */
    PL_METRIC_CANDIDATE_REQUESTS,    /* GET /allocation_candidates answered */
    PL_METRIC_CANDIDATES_RETURNED,   /* allocation requests in those answers */
    PL_METRIC_CANDIDATES_CUT,        /* answers the node budget cut short */
    PL_METRIC_CANDIDATES_AT_MAXIMUM, /* ... stopped at the configured maximum */
    PL_METRIC_CANDIDATES_SHARED,     /* ... computed for an identical request */
    PL_METRIC_PROVIDER_CACHE_HITS,   /* providers' facts found in the cache */
    PL_METRIC_PROVIDER_CACHE_MISSES, /* ... read from the database */
    PL_METRIC_PROVIDER_CACHE_RESETS, /* caches full, started again empty */
    PL_METRIC_DB_ACQUIRED,           /* database connections taken */
    PL_METRIC_DB_FAILURES,           /* ... that could not be had */
    PL_METRIC_DB_IN_USE,             /* gauge: held by requests right now */
    PL_METRIC_TOKEN_CACHE_HITS,      /* Keystone tokens found in the cache */
    PL_METRIC_TOKEN_VALIDATIONS,     /* ... validated with Keystone */
    PL_METRIC_KEYSTONE_FAILURES,     /* ... that Keystone could not answer */
    PL_METRIC_COUNT
} pl_metric_e;

/** post_config: the shared counters (lost on restart, as Prometheus
 *  counters may be), and the labels of the n_routes routes, by index
 *  ("GET /traits", kept: from pconf). */
int pl_metrics_post_config(apr_pool_t *pconf, server_rec *s,
                           const char *const *route_labels, int n_routes);

/** Add n (may be negative for a gauge) to a counter. */
void pl_metrics_add(pl_metric_e m, long n);

/** One answered placement request: its route (the index of its label,
 *  or -1 when none matched), status and duration. */
void pl_metrics_request(int route, int status, apr_time_t duration);

/** The "placement-metrics" and "placement-healthcheck" handlers. */
int pl_metrics_handler(request_rec *r);
int pl_health_handler(request_rec *r);

#endif /* PL_METRICS_H */
