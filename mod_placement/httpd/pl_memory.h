/* Licensed under the Apache License, Version 2.0.
 *
 * pl_memory.h: the memory of a request (pl_memory.c says why it is not
 * simply r->pool).
 */
#ifndef PL_MEMORY_H
#define PL_MEMORY_H

#include <httpd.h>

/**
 * The pool a placement request allocates from: a child of r->pool
 * (destroyed with it) whose blocks come from an allocator the child
 * lends for the request and keeps, with its free blocks, for the next
 * one (at most ThreadsPerChild of them); a request for allocation
 * candidates (roomy) takes the child's roomy allocator when it is free,
 * which keeps up to PlacementCandidatesMemory. Also hands malloc'd memory
 * back to the system after large answers. Falls back to r->pool if no
 * allocator can be made.
 */
apr_pool_t *pl_memory_request_pool(request_rec *r, int roomy);

/** Hand what malloc holds free back to the system, if over a megabyte
 *  (glibc keeps it in the freeing thread's arena otherwise). */
void pl_memory_trim(void);

/** child_init: the lock of the child's spare allocators. */
void pl_memory_child_init(apr_pool_t *pchild);

#endif /* PL_MEMORY_H */
