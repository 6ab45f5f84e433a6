/* Licensed under the Apache License, Version 2.0.
 *
 * pl_pages.h: buffers of whole pages mapped for them alone, for answers a
 * child keeps beyond the request that made them (pl_coalesce.c).
 */
#ifndef PL_PAGES_H
#define PL_PAGES_H

#include <apr.h>

/** A buffer of size bytes (rounded up to pages), or NULL. */
char *pl_pages_alloc(apr_size_t size);

/** The buffer of old_size bytes, now of size bytes, its bytes kept (it
 *  may move; a smaller one does not). NULL when it cannot grow: s is then
 *  unchanged. */
char *pl_pages_resize(char *s, apr_size_t old_size, apr_size_t size);

/** Give back a buffer of size bytes (the size it was last given). */
void pl_pages_free(char *s, apr_size_t size);

#endif /* PL_PAGES_H */
