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
 * Our requests take their pool from an allocator of the child's own
 * instead, lent for the request and given back at its end to a short
 * list of spares (at most one per thread of the child), each keeping up
 * to REQUEST_KEEP_BYTES of blocks. So a child keeps at most
 * ThreadsPerChild of them, however many connections come and go: an
 * allocator made and destroyed per connection unmapped its blocks each
 * time, and with many clients (event closes idle keep-alive connections
 * when its threads are busy) unmapping in a threaded process, every
 * unmap stopping the child's other threads to flush their TLBs, was a
 * third of the child's CPU (issue 26, the scheduler loop at 50 workers).
 * Memory that json-c and the database drivers took from malloc goes back
 * once an answer (or a large request body) leaves more than a quarter of
 * PlacementCandidatesMemory of it free (malloc_trim): glibc would keep it
 * in the thread's arena otherwise.
 *
 * A request for allocation candidates on a cloud of thousands of computes
 * uses tens of MB (nova's at 2,500 computes: a 3.6 MB answer); handed back
 * to the system at its end, the next one faults it in again, zeroed by
 * the kernel, which cost half its CPU (docs/scale.md). So each child has
 * one roomy allocator more, lent to a candidates request when no other
 * holds it, that keeps up to PlacementCandidatesMemory. Between requests
 * a child keeps at most ThreadsPerChild x REQUEST_KEEP_BYTES in its
 * spares, PlacementCandidatesMemory in the roomy one and a quarter of it
 * free in malloc.
 */
#include <stdlib.h> /* defines __GLIBC__ on glibc */
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <apr_allocator.h>
#include <apr_thread_mutex.h>
#include <ap_mpm.h>

#include "pl_config.h"
#include "pl_memory.h"

/* The most a spare allocator keeps between requests: a candidates
 * answer of a few hundred providers needs about 1.5 MB. */
#define REQUEST_KEEP_BYTES ((apr_size_t)4 * 1024 * 1024)

/* After an answer or a request body of this size, the malloc'd memory
 * behind it (json-c objects, driver results: several times its size)
 * may be large. */
#define TRIM_AFTER_BYTES ((apr_off_t)16 * 1024)

/* The child's spare allocators (made in child_init). A request's pool
 * may be destroyed by another thread than the one that made it (event's
 * write completion), hence the lock. */
static struct {
    apr_thread_mutex_t *lock;
    apr_allocator_t **spare;
    int count;
    int max;                /* ThreadsPerChild */
    apr_allocator_t *roomy; /* the candidates' one, when not lent */
    int roomy_made;
    apr_size_t roomy_keep; /* PlacementCandidatesMemory */
    size_t trim_free;      /* malloc's free memory handed back above it */
} spares;

void pl_memory_child_init(apr_pool_t *pchild)
{
    int threads = 0;

    spares.roomy_keep = pl_config_candidates_memory();
    /* 8 MB by default: what a candidates request leaves in malloc (json-c
     * objects, driver results) is reused by the next one. Below 1 MB,
     * trimming after every answer over 16 KB cost the gate query (245
     * KB) eight madvise calls and 16-18 page faults. */
    spares.trim_free = spares.roomy_keep / 4;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) != APR_SUCCESS ||
        threads < 1) {
        threads = 1;
    }
    if (apr_thread_mutex_create(&spares.lock, APR_THREAD_MUTEX_DEFAULT,
                                pchild) != APR_SUCCESS) {
        spares.lock = NULL; /* no spares: an allocator per request */
        return;
    }
    spares.spare = apr_pcalloc(pchild,
                               (apr_size_t)threads * sizeof(apr_allocator_t *));
    spares.max = threads;
}

static apr_allocator_t *new_allocator(apr_size_t keep)
{
    apr_allocator_t *a = NULL;

    if (apr_allocator_create(&a) != APR_SUCCESS) {
        return NULL;
    }
    apr_allocator_max_free_set(a, keep);
    return a;
}

/* A spare allocator, or a new one; NULL if none can be made. */
static apr_allocator_t *take_allocator(void)
{
    apr_allocator_t *a = NULL;

    if (spares.lock && apr_thread_mutex_lock(spares.lock) == APR_SUCCESS) {
        if (spares.count > 0) {
            a = spares.spare[--spares.count];
        }
        apr_thread_mutex_unlock(spares.lock);
    }
    return a ? a : new_allocator(REQUEST_KEEP_BYTES);
}

/* The roomy allocator, made at its first use; NULL while another
 * request holds it. */
static apr_allocator_t *take_roomy(void)
{
    apr_allocator_t *a = NULL;
    int make = 0;

    if (spares.lock && apr_thread_mutex_lock(spares.lock) == APR_SUCCESS) {
        a = spares.roomy;
        spares.roomy = NULL;
        make = !spares.roomy_made;
        spares.roomy_made = 1;
        apr_thread_mutex_unlock(spares.lock);
    }
    /* made once: if that fails, the spares serve every request */
    return make ? new_allocator(spares.roomy_keep) : a;
}

static apr_status_t give_back_roomy(void *data)
{
    apr_allocator_t *a = data;

    if (apr_thread_mutex_lock(spares.lock) == APR_SUCCESS) {
        if (spares.roomy == NULL) {
            spares.roomy = a;
            a = NULL;
        }
        apr_thread_mutex_unlock(spares.lock);
    }
    if (a != NULL) {
        apr_allocator_destroy(a);
    }
    return APR_SUCCESS;
}

/* Registered on r->pool: runs after its subpools, the request's pool
 * among them, gave their blocks back to the allocator. */
static apr_status_t give_back_allocator(void *data)
{
    apr_allocator_t *a = data;

    if (spares.lock && apr_thread_mutex_lock(spares.lock) == APR_SUCCESS) {
        if (spares.count < spares.max) {
            spares.spare[spares.count++] = a;
            a = NULL;
        }
        apr_thread_mutex_unlock(spares.lock);
    }
    if (a != NULL) {
        apr_allocator_destroy(a);
    }
    return APR_SUCCESS;
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

void pl_memory_trim(void)
{
#ifdef __GLIBC__
    if (free_in_malloc() > spares.trim_free) {
        malloc_trim(0);
    }
#endif
}

/* Registered first on r->pool, so it runs once everything of the
 * request is freed. */
static apr_status_t trim_after_answer(void *data)
{
    const request_rec *r = data;

    /* bytes_sent: a streamed answer has no Content-Length; read_length:
     * a big body answered by a short error (a 400 after json-c built
     * 8 MB of it kept the child hundreds of MB larger) */
    if (r->clength >= TRIM_AFTER_BYTES || r->bytes_sent >= TRIM_AFTER_BYTES ||
        r->read_length >= TRIM_AFTER_BYTES) {
        pl_memory_trim();
    }
    return APR_SUCCESS;
}

apr_pool_t *pl_memory_request_pool(request_rec *r, int roomy)
{
    apr_status_t (*give_back)(void *) = give_back_allocator;
    apr_allocator_t *a = roomy ? take_roomy() : NULL;
    apr_pool_t *p;

    apr_pool_cleanup_register(r->pool, r, trim_after_answer,
                              apr_pool_cleanup_null);
    if (a != NULL) {
        give_back = give_back_roomy;
    }
    else if ((a = take_allocator()) == NULL) {
        return r->pool;
    }
    /* a child of r->pool: destroyed with it, after the answer is sent */
    if (apr_pool_create_ex(&p, r->pool, NULL, a) != APR_SUCCESS) {
        give_back(a);
        return r->pool;
    }
    apr_pool_cleanup_register(r->pool, a, give_back, apr_pool_cleanup_null);
    apr_pool_tag(p, "placement_request");
    return p;
}
