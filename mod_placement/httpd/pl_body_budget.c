/* Licensed under the Apache License, Version 2.0.
 *
 * pl_body_budget.c: what the JSON bodies a child parses at the same time
 * may cost it together.
 *
 * One body is bounded by its price (pl_req_body.c: json-c's cost, at
 * most 48 times the body, and the body itself), but each thread of a
 * child may be parsing one: 32 threads given 8 MB bodies at once grew a
 * child to 13-16 GB. So a body priced over LARGE_PRICE takes its price
 * from the child's budget (PlacementMaxBodyMemory, default 512 MB) before
 * json-c builds it, and gives it back when its request ends (its
 * objects freed with the request's pool). A body whose price does not
 * fit waits for others to end, at most the server's Timeout, then
 * answers 503 with Retry-After. A body priced over the whole budget goes
 * alone. Small bodies (all of nova's ordinary requests) never wait or
 * lock: a child's parses then cost at most the budget, one body more,
 * and LARGE_PRICE per thread.
 */
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <http_core.h>

#include "pl_private.h"
#include "pl_req.h"
#include "pl_body_budget.h"
#include "pl_memory.h"

/* A body priced at most this takes nothing from the budget */
#define LARGE_PRICE ((apr_uint64_t)1024 * 1024)

/* The prices held in this child, guarded by lock; freed is signalled
 * when one is given back. */
static apr_thread_mutex_t *lock;
static apr_thread_cond_t *freed;
static apr_uint64_t held;

typedef struct {
    apr_uint64_t price;
} holding_t;

void pl_body_budget_child_init(apr_pool_t *pchild, server_rec *s)
{
    held = 0;
    if (apr_thread_mutex_create(&lock, APR_THREAD_MUTEX_DEFAULT, pchild) ||
        apr_thread_cond_create(&freed, pchild)) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     PL_LOGNO(00107) "cannot create the lock of the body "
                                     "budget: large bodies are refused");
        lock = NULL;
    }
}

/* Once the body's objects are freed (their cleanup, registered after
 * this one, ran first): malloc's free memory goes back to the system
 * before the next body may take its place, or the next parse, in
 * another thread's arena, would add to it. */
static apr_status_t give_back(void *data)
{
    holding_t *h = data;

    pl_memory_trim();
    apr_thread_mutex_lock(lock);
    held -= h->price;
    apr_thread_cond_broadcast(freed);
    apr_thread_mutex_unlock(lock);
    return APR_SUCCESS;
}

/* Whether price fits beside what is held: it does when nothing else is
 * held, so that a body over the whole budget still goes, alone. */
static int fits(apr_uint64_t price)
{
    return held == 0 || held + price <= pl_config_max_body_memory();
}

int pl_body_budget_take(pl_req_t *req, apr_uint64_t price)
{
    request_rec *r = req->r;
    apr_time_t until = apr_time_now() + r->server->timeout;
    apr_uint64_t seen_held = 0;
    holding_t *h;
    int ok;

    if (price <= LARGE_PRICE) {
        return 0;
    }
    if (lock == NULL) {
        return pl_err(req, HTTP_INTERNAL_SERVER_ERROR, NULL,
                      "Request body not parsed: no body budget in this "
                      "process");
    }
    apr_thread_mutex_lock(lock);
    while (!fits(price)) {
        apr_time_t left = until - apr_time_now();

        if (left <= 0) {
            break;
        }
        apr_thread_cond_timedwait(freed, lock, left);
    }
    ok = fits(price);
    if (ok) {
        held += price;
    }
    else {
        seen_held = held;
    }
    apr_thread_mutex_unlock(lock);
    if (!ok) {
        ap_log_rerror(
            APLOG_MARK, APLOG_WARNING, 0, r,
            PL_LOGNO(00108) "%s: a request body priced %" APR_UINT64_T_FMT
                            " MB waited %" APR_TIME_T_FMT
                            " s for the %" APR_UINT64_T_FMT
                            " MB of bodies parsed in this process "
                            "(PlacementMaxBodyMemory): 503",
            req->request_id, price >> 20, apr_time_sec(r->server->timeout),
            seen_held >> 20);
        apr_table_setn(r->err_headers_out, "Retry-After", "5");
        return pl_err(req, HTTP_SERVICE_UNAVAILABLE, NULL,
                      "Too many large request bodies at once: try again "
                      "later");
    }
    h = apr_palloc(req->pool, sizeof(*h));
    h->price = price;
    apr_pool_cleanup_register(req->pool, h, give_back, apr_pool_cleanup_null);
    return 0;
}
