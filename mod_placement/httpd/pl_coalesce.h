/* Licensed under the Apache License, Version 2.0.
 *
 * pl_coalesce.h: identical requests that arrive together answered by one
 * computation (PlacementCoalesceCandidates; pl_coalesce.c says how, and
 * why no answer is older than its request).
 */
#ifndef PL_COALESCE_H
#define PL_COALESCE_H

#include <apr_pools.h>

/** A batch a request leads: its answer is computed once for every
 *  request of the batch. */
typedef struct pl_coalesce_batch_t pl_coalesce_batch_t;

/**
 * Join the batch of key (the request's whole identity: anything its
 * answer depends on). Returns 1 when another request of the batch
 * computed the answer: *text and *len are that answer, shared with the
 * batch's other requests, read-only and kept until p is cleared (send it
 * from p's request, not after). Returns 0
 * when the caller computes its own; then *lead is a batch it must end
 * with pl_coalesce_publish (NULL: none, nothing to publish), and
 * *followers how many requests wait for its answer (0: none wait, the
 * answer need not be published).
 */
int pl_coalesce_join(apr_pool_t *p, const char *key, pl_coalesce_batch_t **lead,
                     int *followers, const char **text, apr_size_t *len);

/** End a batch: its answer (NULL: the leader had none to share, each
 *  follower computes its own). Copies text once for all its followers.
 *  Returns how many followers get that answer (0: none, or none can,
 *  and each computes its own). Safe to call more than once: only the
 *  first counts; also called by a cleanup of p if the leader never did. */
int pl_coalesce_publish(pl_coalesce_batch_t *b, const char *text,
                        apr_size_t len);

/** child_init: the child's table of batches. */
void pl_coalesce_child_init(apr_pool_t *pchild);

#endif /* PL_COALESCE_H */
