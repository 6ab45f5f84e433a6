/* Licensed under the Apache License, Version 2.0.
 *
 * pl_memory.c: where the memory of a request comes from, and when it goes
 * back to the system.
 *
 * httpd gives each connection an allocator that keeps up to MaxMemFree of
 * freed blocks for as long as the child lives, and recycles it for the
 * next connection: a child that once served ten connections at the same
 * time keeps ten such free lists. A request for candidates needs about
 * 1.5 MB of pool, so the child stays that much larger for good.
 *
 * Our requests take their pool from an allocator of the connection's own
 * instead. It keeps what the requests of the connection freed while the
 * connection lives (keep-alive clients such as nova reuse those blocks
 * without mapping memory again) and gives all of it back when the
 * connection closes. Memory that json-c and the database drivers took
 * from malloc goes back once an answer leaves more than a megabyte of it
 * free (malloc_trim): glibc would keep it in the thread's arena otherwise.
 */
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <apr_allocator.h>

#include "pl_private.h"
#include "pl_memory.h"

/* The most a connection's allocator keeps between its requests: a
 * candidates answer of a few hundred providers needs about 1.5 MB. */
#define CONN_KEEP_BYTES ((apr_size_t)4 * 1024 * 1024)

/* After an answer of this size, the malloc'd memory behind it (json-c
 * objects, driver results: several times the answer) may be large. */
#define TRIM_AFTER_BYTES ((apr_off_t)16 * 1024)

/* ...and is handed back when malloc holds more than this of it free.
 * Below, the next request reuses it: trimming after every such answer
 * cost the gate query (245 KB, its driver result about 100 KB) eight
 * madvise calls and 16-18 page faults, the pages mapped again by the
 * next request. */
#define TRIM_FREE_BYTES ((size_t)1024 * 1024)

static apr_status_t destroy_allocator(void *data)
{
    apr_allocator_destroy(data);
    return APR_SUCCESS;
}

/* The connection's allocator, made at its first request. Registered on
 * the connection's pool, it is destroyed once every request pool of the
 * connection is (apr_pool_clear destroys subpools before cleanups run). */
static apr_allocator_t *connection_allocator(conn_rec *c)
{
    apr_allocator_t *a = ap_get_module_config(c->conn_config,
                                              &placement_module);

    if (a == NULL && apr_allocator_create(&a) == APR_SUCCESS) {
        apr_allocator_max_free_set(a, CONN_KEEP_BYTES);
        ap_set_module_config(c->conn_config, &placement_module, a);
        apr_pool_cleanup_register(c->pool, a, destroy_allocator,
                                  apr_pool_cleanup_null);
    }
    return a;
}

#ifdef __GLIBC__
/* Bytes malloc holds free in its arenas. */
static size_t free_in_malloc(void)
{
#if __GLIBC_PREREQ(2, 33)
    return mallinfo2().fordblks;
#else
    return (size_t)-1; /* unknown: trim */
#endif
}
#endif

/* Registered first on r->pool, so it runs once everything of the
 * request is freed. */
static apr_status_t trim_after_answer(void *data)
{
#ifdef __GLIBC__
    const request_rec *r = data;

    /* bytes_sent: a streamed answer has no Content-Length */
    if ((r->clength >= TRIM_AFTER_BYTES || r->bytes_sent >= TRIM_AFTER_BYTES) &&
        free_in_malloc() > TRIM_FREE_BYTES) {
        malloc_trim(0);
    }
#endif
    return APR_SUCCESS;
}

apr_pool_t *pl_memory_request_pool(request_rec *r)
{
    apr_allocator_t *a;
    apr_pool_t *p;

    apr_pool_cleanup_register(r->pool, r, trim_after_answer,
                              apr_pool_cleanup_null);
    /* a child of r->pool: destroyed with it, after the answer is sent */
    a = connection_allocator(r->connection);
    if (a == NULL || apr_pool_create_ex(&p, r->pool, NULL, a) != APR_SUCCESS) {
        return r->pool;
    }
    apr_pool_tag(p, "placement_request");
    return p;
}
