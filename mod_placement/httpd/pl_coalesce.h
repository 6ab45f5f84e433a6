/* Licensed under the Apache License, Version 2.0.
 *
 * pl_coalesce.h: identical requests answered by one computation, when
 * they arrive together or while the database has not changed since
 * (PlacementCoalesceCandidates; pl_coalesce.c says how, and why no
 * answer is older than its request).
 */
#ifndef PL_COALESCE_H
#define PL_COALESCE_H

#include <apr_pools.h>

/** The longest answer kept for later requests. */
#define PL_COALESCE_KEEP_MAX_BYTES ((apr_size_t)4 * 1024 * 1024)

/** A batch a request leads: its answer is computed once for every
 *  request of the batch. */
typedef struct pl_coalesce_batch_t pl_coalesce_batch_t;

/** An answer as the requests that share it see it. */
typedef struct pl_coalesce_answer_t {
    const char *text;
    apr_size_t len;
    long items; /* the caller's own figures about it (what it counts) */
    int flags;
} pl_coalesce_answer_t;

/**
 * Join the batch of key (the request's whole identity: anything its
 * answer depends on besides the database). Returns 1 when another
 * request of the batch computed the answer: *out is that answer, shared
 * with the batch's other requests, read-only and kept until p is cleared
 * (send it from p's request, not after). Returns 0 when the caller
 * computes its own; then *lead is a batch it must end with
 * pl_coalesce_kept or pl_coalesce_publish (NULL: none, nothing to
 * publish), and *followers how many requests wait for its answer.
 */
int pl_coalesce_join(apr_pool_t *p, const char *key, pl_coalesce_batch_t **lead,
                     int *followers, pl_coalesce_answer_t *out);

/**
 * The answer an identical request computed when the database was at
 * version (a text that changes with every commit the database makes
 * visible), if the child still keeps it: 1 and *out as for
 * pl_coalesce_join, and the batch is ended with it (its followers get
 * it too). 0: none kept at that version; compute, then publish.
 */
int pl_coalesce_kept(pl_coalesce_batch_t *b, apr_pool_t *p, const char *version,
                     pl_coalesce_answer_t *out);

/** End a batch with its answer (NULL: the leader had none to share, each
 *  follower computes its own). Copies the text once, for its followers
 *  and, when version is not NULL, for later requests that find the
 *  database still at version. Returns how many followers get the answer
 *  (0: none wait, or none can and each computes its own). Only the first
 *  call counts; a cleanup of p makes it if the leader never did. */
int pl_coalesce_publish(pl_coalesce_batch_t *b, const pl_coalesce_answer_t *a,
                        const char *version);

/** Keep a for later requests of key that find the database still at
 *  version, as pl_coalesce_publish does, once a computation nobody
 *  waited for has sent it. a->text is a buffer of a->len bytes from
 *  pl_pages_alloc, and pl_coalesce's to free from now on, kept or not. */
void pl_coalesce_keep(const char *key, const pl_coalesce_answer_t *a,
                      const char *version);

/** child_init: the child's table of batches. */
void pl_coalesce_child_init(apr_pool_t *pchild);

#endif /* PL_COALESCE_H */
