/* Licensed under the Apache License, Version 2.0.
 *
 * pl_metrics.c: what the service is doing, for Prometheus. The counters
 * live in one anonymous shared memory segment made in post_config, which
 * every child inherits; requests add to them with relaxed atomic adds (no
 * lock: a scrape may see one request's counters half added, which
 * Prometheus tolerates). The handler "placement-metrics" writes them in
 * the text exposition format; "placement-healthcheck" answers 200 "OK"
 * when the database answers, else 503, as oslo.middleware's healthcheck.
 */
#include <stdint.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_shm.h>
#include <apr_dbd.h>
#include <mod_dbd.h>
#include <http_protocol.h>

#include "pl_private.h"
#include "pl_metrics.h"

#define MAX_ROUTES 64
#define UNROUTED MAX_ROUTES /* 404, 405, refused before routing */
#define STATUS_CLASSES 5    /* 1xx .. 5xx */

/* Latency buckets, in seconds (upper bounds; +Inf is the count). */
static const double bounds[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                 0.25,  0.5,    1,     2.5,  5,     10 };
#define BUCKETS (sizeof(bounds) / sizeof(bounds[0]))

typedef struct {
    uint64_t requests[MAX_ROUTES + 1][STATUS_CLASSES];
    uint64_t buckets[MAX_ROUTES + 1][BUCKETS];
    uint64_t count[MAX_ROUTES + 1];
    uint64_t sum_us[MAX_ROUTES + 1];
    int64_t counters[PL_METRIC_COUNT];
} shared_t;

static shared_t *shared;

/* The routes' labels, given at post_config ("GET /traits"), and mod_dbd's
 * connection getter for the healthcheck, taken then too. */
static const char *const *labels;
static int n_labels;
typedef APR_OPTIONAL_FN_TYPE(ap_dbd_acquire) dbd_acquire_fn;
static dbd_acquire_fn *dbd_acquire;

static const struct {
    const char *name;
    const char *type;
    const char *help;
} counter_info[PL_METRIC_COUNT] = {
    [PL_METRIC_CONFLICT_RETRIES] = { "placement_allocation_conflict_retries_"
                                     "total",
                                     "counter",
                                     "Allocation writes retried after a "
                                     "provider generation "
                                     "conflict." },
    [PL_METRIC_DEADLOCK_RETRIES] = { "placement_allocation_deadlock_retries_"
                                     "total",
                                     "counter",
                                     "Allocation writes retried after a "
                                     "database deadlock or "
                                     "serialization failure." },
    [PL_METRIC_CANDIDATE_REQUESTS] = { "placement_allocation_candidates_"
                                       "requests_total",
                                       "counter",
                                       "Allocation candidate requests answered "
                                       "with 200." },
    [PL_METRIC_CANDIDATES_RETURNED] = { "placement_allocation_candidates_"
                                        "returned_total",
                                        "counter",
                                        "Allocation requests returned by those "
                                        "answers." },
    [PL_METRIC_CANDIDATES_CUT] = { "placement_allocation_candidates_cut_"
                                   "total",
                                   "counter",
                                   "Allocation candidate answers cut short "
                                   "by the engine's node budget (PL05101 in "
                                   "the error log): fewer candidates than "
                                   "the request allowed." },
    [PL_METRIC_CANDIDATES_AT_MAXIMUM] = { "placement_allocation_candidates_"
                                          "maximum_reached_total",
                                          "counter",
                                          "Allocation candidate answers that "
                                          "stopped at "
                                          "PlacementMaxAllocationCandidates, "
                                          "below the request's limit or "
                                          "without one." },
    [PL_METRIC_CANDIDATES_SHARED] = { "placement_allocation_candidates_"
                                      "shared_total",
                                      "counter",
                                      "Allocation candidate answers computed "
                                      "once for an identical request that "
                                      "arrived together "
                                      "(PlacementCoalesceCandidates)." },
    [PL_METRIC_PROVIDER_CACHE_HITS] = { "placement_provider_cache_hits_total",
                                        "counter",
                                        "Providers of candidate trees whose "
                                        "inventories and traits the cache "
                                        "had at their generation." },
    [PL_METRIC_PROVIDER_CACHE_MISSES] = { "placement_provider_cache_misses_"
                                          "total",
                                          "counter",
                                          "Providers of candidate trees read "
                                          "from the database (new, changed or "
                                          "not kept)." },
    [PL_METRIC_PROVIDER_CACHE_RESETS] = { "placement_provider_cache_resets_"
                                          "total",
                                          "counter",
                                          "Times a child's provider cache was "
                                          "full and started again empty." },
    [PL_METRIC_DB_ACQUIRED] = { "placement_db_connections_acquired_total",
                                "counter",
                                "Database connections taken from mod_dbd by "
                                "requests." },
    [PL_METRIC_DB_FAILURES] = { "placement_db_connection_failures_total",
                                "counter",
                                "Requests that could not get a database "
                                "connection." },
    [PL_METRIC_DB_IN_USE] = { "placement_db_connections_in_use", "gauge",
                              "Database connections held by requests now." },
    [PL_METRIC_TOKEN_CACHE_HITS] = { "placement_token_cache_hits_total",
                                     "counter",
                                     "Keystone tokens answered from the token "
                                     "cache." },
    [PL_METRIC_TOKEN_VALIDATIONS] = { "placement_token_validations_total",
                                      "counter",
                                      "Keystone tokens validated with "
                                      "Keystone." },
    [PL_METRIC_KEYSTONE_FAILURES] = { "placement_keystone_failures_total",
                                      "counter",
                                      "Token validations Keystone could not "
                                      "answer (503)." },
};

int pl_metrics_post_config(apr_pool_t *pconf, server_rec *s,
                           const char *const *route_labels, int n_routes)
{
    apr_shm_t *shm;
    apr_status_t rv;

    if (n_routes > MAX_ROUTES) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     PL_LOGNO(00005) "more routes than metrics slots (%d)",
                     MAX_ROUTES);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    /* anonymous: inherited by the children, gone with pconf */
    rv = apr_shm_create(&shm, sizeof(shared_t), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(
            APLOG_MARK, APLOG_CRIT, rv, s,
            PL_LOGNO(00006) "cannot create the shared memory of the metrics");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    shared = apr_shm_baseaddr_get(shm);
    memset(shared, 0, sizeof(*shared));
    labels = route_labels;
    n_labels = n_routes;
    dbd_acquire = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire);
    return OK;
}

static void add(uint64_t *at, uint64_t n)
{
    __atomic_fetch_add(at, n, __ATOMIC_RELAXED);
}

void pl_metrics_add(pl_metric_e m, long n)
{
    if (shared) {
        __atomic_fetch_add(&shared->counters[m], (int64_t)n, __ATOMIC_RELAXED);
    }
}

void pl_metrics_request(int route, int status, apr_time_t duration)
{
    int r = route >= 0 && route < MAX_ROUTES ? route : UNROUTED;
    int cls = status / 100 - 1;
    double secs = (double)duration / APR_USEC_PER_SEC;
    unsigned b;

    if (shared == NULL) {
        return;
    }
    if (cls >= 0 && cls < STATUS_CLASSES) {
        add(&shared->requests[r][cls], 1);
    }
    for (b = 0; b < BUCKETS && secs > bounds[b]; b++) {
    }
    if (b < BUCKETS) {
        add(&shared->buckets[r][b], 1); /* made cumulative on output */
    }
    add(&shared->count[r], 1);
    add(&shared->sum_us[r], (uint64_t)(duration > 0 ? duration : 0));
}

static uint64_t load(const uint64_t *at)
{
    return __atomic_load_n(at, __ATOMIC_RELAXED);
}

static void write_route_label(request_rec *r, int i)
{
    if (i >= 0 && i < n_labels) {
        ap_rprintf(r, "route=\"%s\"", labels[i]);
    }
    else {
        ap_rputs("route=\"none\"", r);
    }
}

static void write_requests(request_rec *r)
{
    int i, c, n = n_labels;
    unsigned b;

    ap_rputs("# HELP placement_requests_total Placement API requests "
             "answered, by route and status class.\n"
             "# TYPE placement_requests_total counter\n",
             r);
    for (i = 0; i <= UNROUTED; i++) {
        if (i >= n && i != UNROUTED) {
            continue;
        }
        for (c = 0; c < STATUS_CLASSES; c++) {
            ap_rputs("placement_requests_total{", r);
            write_route_label(r, i);
            ap_rprintf(r, ",status=\"%dxx\"} %" APR_UINT64_T_FMT "\n", c + 1,
                       load(&shared->requests[i][c]));
        }
    }
    ap_rputs("# HELP placement_request_duration_seconds Time from reading "
             "the request to the end of the answer, by route.\n"
             "# TYPE placement_request_duration_seconds histogram\n",
             r);
    for (i = 0; i <= UNROUTED; i++) {
        uint64_t cum = 0;

        if (i >= n && i != UNROUTED) {
            continue;
        }
        for (b = 0; b < BUCKETS; b++) {
            cum += load(&shared->buckets[i][b]);
            ap_rputs("placement_request_duration_seconds_bucket{", r);
            write_route_label(r, i);
            ap_rprintf(r, ",le=\"%g\"} %" APR_UINT64_T_FMT "\n", bounds[b],
                       cum);
        }
        ap_rputs("placement_request_duration_seconds_bucket{", r);
        write_route_label(r, i);
        ap_rprintf(r, ",le=\"+Inf\"} %" APR_UINT64_T_FMT "\n",
                   load(&shared->count[i]));
        ap_rputs("placement_request_duration_seconds_sum{", r);
        write_route_label(r, i);
        ap_rprintf(r, "} %.6f\n", (double)load(&shared->sum_us[i]) / 1e6);
        ap_rputs("placement_request_duration_seconds_count{", r);
        write_route_label(r, i);
        ap_rprintf(r, "} %" APR_UINT64_T_FMT "\n", load(&shared->count[i]));
    }
}

static void write_counters(request_rec *r)
{
    int m;

    for (m = 0; m < PL_METRIC_COUNT; m++) {
        ap_rprintf(r, "# HELP %s %s\n# TYPE %s %s\n%s %" APR_INT64_T_FMT "\n",
                   counter_info[m].name, counter_info[m].help,
                   counter_info[m].name, counter_info[m].type,
                   counter_info[m].name,
                   __atomic_load_n(&shared->counters[m], __ATOMIC_RELAXED));
    }
}

/* Only GET (and HEAD): anything else is 405, as mod_status does. */
static int refuse_method(request_rec *r)
{
    r->allowed = (AP_METHOD_BIT << M_GET);
    return r->method_number == M_GET ? OK : HTTP_METHOD_NOT_ALLOWED;
}

int pl_metrics_handler(request_rec *r)
{
    int st;

    if (r->handler == NULL || strcmp(r->handler, "placement-metrics") != 0) {
        return DECLINED;
    }
    if ((st = refuse_method(r)) != OK) {
        return st;
    }
    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    if (r->header_only) {
        return OK;
    }
    if (shared == NULL) {
        return HTTP_SERVICE_UNAVAILABLE;
    }
    write_requests(r);
    write_counters(r);
    return OK;
}

int pl_health_handler(request_rec *r)
{
    ap_dbd_t *dbd;
    apr_dbd_results_t *res = NULL;
    apr_dbd_row_t *row = NULL;
    const char *why = NULL;
    int st;

    if (r->handler == NULL ||
        strcmp(r->handler, "placement-healthcheck") != 0) {
        return DECLINED;
    }
    if ((st = refuse_method(r)) != OK) {
        return st;
    }
    dbd = dbd_acquire ? dbd_acquire(r) : NULL;
    if (dbd == NULL) {
        why = "no database connection";
    }
    else if (apr_dbd_select(dbd->driver, r->pool, dbd->handle, &res, "SELECT 1",
                            0) != 0) {
        why = apr_pstrcat(r->pool, "database error: ",
                          apr_dbd_error(dbd->driver, dbd->handle, 0), NULL);
    }
    else {
        while (apr_dbd_get_row(dbd->driver, r->pool, res, &row, -1) == 0) {
        }
    }
    ap_set_content_type(r, "text/plain; charset=UTF-8");
    if (why) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      PL_LOGNO(00007) "healthcheck: %s", why);
        r->status = HTTP_SERVICE_UNAVAILABLE;
        ap_rputs(why, r);
        return OK;
    }
    ap_rputs("OK", r);
    return OK;
}
