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
 * (destroyed with it) whose blocks come from an allocator of the
 * connection, kept between its requests and freed when it closes. Also
 * hands malloc'd memory back to the system after large answers. Falls
 * back to r->pool if no allocator can be made.
 */
apr_pool_t *pl_memory_request_pool(request_rec *r);

#endif /* PL_MEMORY_H */
