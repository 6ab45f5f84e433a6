/* Licensed under the Apache License, Version 2.0.
 *
 * pl_idmap.h: a map of database ids (apr_int64_t) to pointers, for the
 * candidate engine's hot paths. apr_hash hashes and compares its keys as
 * bytes, through a chain of entries each allocated on its own: in the
 * gate query at 1,000 providers its lookups took about a tenth of the
 * child's CPU. Here each id sits with its value in one array of slots
 * (one cache line a probe), probed linearly from a multiplicative hash;
 * the map doubles at half full.
 * Entries are never removed; values are never NULL (NULL is "absent").
 * Not locked: a map shared between threads is only read while shared.
 */
#ifndef PL_IDMAP_H
#define PL_IDMAP_H

#include <apr_pools.h>

typedef struct pl_idmap_slot_t {
    apr_int64_t id;
    void *val; /* NULL: a free slot */
} pl_idmap_slot_t;

typedef struct pl_idmap_t {
    apr_pool_t *p; /* where it grows */
    apr_size_t n;  /* entries */
    apr_size_t mask;
    pl_idmap_slot_t *slots;
} pl_idmap_t;

/** A map sized for about hint entries before it first grows. */
pl_idmap_t *pl_idmap_make(apr_pool_t *p, apr_size_t hint);

/** The value of id, or NULL. */
void *pl_idmap_get(const pl_idmap_t *m, apr_int64_t id);

/** id -> val (not NULL), replacing what id had. */
void pl_idmap_set(pl_idmap_t *m, apr_int64_t id, void *val);

/** As a set: id in, 1 if it was not there yet. */
int pl_idmap_add(pl_idmap_t *m, apr_int64_t id);

/** Whether id is in. */
#define pl_idmap_has(m, id) (pl_idmap_get((m), (id)) != NULL)

#define pl_idmap_count(m) ((m)->n)

/** The entries in no particular order: from *pos = 0, the next value,
 * its id in *pid (if pid is not NULL) and *pos past it; NULL at the end. */
void *pl_idmap_next(const pl_idmap_t *m, apr_size_t *pos, apr_int64_t *pid);

/** Empty again, its room kept. */
void pl_idmap_clear(pl_idmap_t *m);

#endif /* PL_IDMAP_H */
